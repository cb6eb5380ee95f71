"""Saving the window's workspace (issue 34, item 1): a Costra orderings result is saved
from *File > Save workspace* and reopened by name from another folder; a save that fails
says why in a dialog and leaves the window unsaved, and *Quit > Save* then keeps the
window open; what the user does while the save job runs is not in the file (issue 41)."""

import dataclasses
import errno
import os
import threading

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox

from sentspace.app.analysis.filters import Filter
from sentspace.app.ui.window import files as files_module
from sentspace.app.ui.window.main_window import MainWindow
from sentspace.app.workspace.format import load_workspace, save_workspace
from tests.ui.conftest import JOB_TIMEOUT_MS, costra_shown, run_and_wait, wait_for_job
from tests.ui.test_faults import dialog


def save_action(window) -> QAction:
    return next(
        action for action in window.findChildren(QAction) if action.text() == "&Save workspace"
    )


def test_a_costra_result_is_saved_and_reopens_from_another_folder(
    qtbot, window, tmp_path, monkeypatch
):
    costra_shown(qtbot, window)
    result = window.session.current.costra_result
    monkeypatch.setattr(files_module, "save_file", lambda *_, **__: str(tmp_path / "costra"))
    save_action(window).trigger()
    path = tmp_path / "costra.sentspace"
    # A job in the worker: the window says it is saving, and is unsaved, until it ends.
    assert window.is_running and window.unsaved
    assert window.windowTitle() == "sentspace — saving costra.sentspace…"
    wait_for_job(qtbot, window)
    assert path.is_file() and not window.unsaved
    assert window.windowTitle() == "sentspace — costra.sentspace"
    # A zip of the manifest and the arrays, well under the 51 MB of base64 in JSON.
    assert path.stat().st_size < 10e6
    workspace = load_workspace(path)
    assert workspace.corpora[0].spec == "costra"  # by name, not a path
    assert "costra" in [entry.name for entry in workspace.evaluations]

    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "costra").mkdir(parents=True)  # a folder of that name is not the corpus
    monkeypatch.chdir(elsewhere)
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    again.files.open_workspace(os.path.relpath(path))
    wait_for_job(qtbot, again)
    assert again.session.current.spec == "costra"
    reopened = again.session.current.costra_result
    assert reopened is not None and reopened.summary() == result.summary()


def test_a_save_that_fails_says_why_and_quit_keeps_the_window_open(
    qtbot, window, tmp_path, monkeypatch
):
    @dataclasses.dataclass(frozen=True)
    class Unregistered:
        value: int

    run_and_wait(qtbot, window)
    assert window.unsaved
    # A result of a kind the workspace does not know, as the Costra result once was.
    window.session.current.explanation = Unregistered(1)
    monkeypatch.setattr(files_module, "save_file", lambda *_, **__: str(tmp_path / "study"))
    save_action(window).trigger()
    # The result is encoded in the save job: it fails there, and the window says so.
    wait_for_job(qtbot, window)
    box = dialog("error-dialog")
    assert box.windowTitle() == "The workspace is not saved"
    assert "a workspace cannot hold a" in box.text() and "Unregistered" in box.text()
    assert window.unsaved and not (tmp_path / "study.sentspace").exists()
    assert window.statusBar().currentMessage().startswith("Not saved: a workspace cannot")
    box.accept()

    # Quit > Save: the save fails the same way; the window stays, and says why.
    assert window.close() is False
    dialog("save-dialog").button(QMessageBox.StandardButton.Save).click()
    wait_for_job(qtbot, window)
    box = dialog("error-dialog")
    assert "Unregistered" in box.text()
    assert window.isVisible() and window.unsaved
    assert not (tmp_path / "study.sentspace").exists()


def test_a_full_disk_while_the_save_job_writes_is_said_and_leaves_the_window_unsaved(
    qtbot, window, tmp_path, monkeypatch
):
    run_and_wait(qtbot, window)
    title = window.windowTitle()

    def full(*_args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    # The disk fills as the archive is written (in the worker).
    monkeypatch.setattr("zipfile.ZipFile.writestr", full)
    assert window.files.save_workspace_to(tmp_path / "study") == tmp_path / "study.sentspace"
    wait_for_job(qtbot, window)
    box = dialog("error-dialog")
    assert box.windowTitle() == "The workspace is not saved", box.text()
    assert "No space left on device" in box.text()
    assert window.unsaved and window.windowTitle() == title
    assert not (tmp_path / "study.sentspace").exists()
    box.accept()


def test_the_file_holds_the_session_as_it_was_when_save_was_asked(
    qtbot, window, tmp_path, monkeypatch
):
    """The job builds the workspace from the session taken when Save was asked: a
    selection, a view setting, a filter and an edit made while it runs are not in the
    file (no mix of before and after), and the window stays unsaved for the filter."""
    run_and_wait(qtbot, window)
    session = window.session
    session.selection.select([1, 2, 3], source="point")
    asked = save_workspace(window.files.workspace(), tmp_path / "asked", remember=False)
    release = threading.Event()
    build = files_module.workspace_from

    def held_back(states):  # in the worker: waits until the user has changed things
        assert release.wait(JOB_TIMEOUT_MS / 1000)
        return build(states)

    monkeypatch.setattr(files_module, "workspace_from", held_back)
    path = window.files.save_workspace_to(tmp_path / "study")
    assert window.windowTitle() == "sentspace — saving study.sentspace…"
    spec = session.current.spec
    session.selection.select([5, 6], source="lasso")
    session.set_view(spec, "search", "typed while saving")
    session.set_filter(spec, Filter(expression="words > 10"))
    window.annotations.mark_reviewed("sentence:L1")
    release.set()
    wait_for_job(qtbot, window)
    assert window.windowTitle() == "sentspace — study.sentspace"
    saved = load_workspace(path)
    assert saved.corpora[0].state["selection"]["indices"] == [1, 2, 3]
    assert saved.corpora[0].state["filter"] == Filter().to_dict()
    assert saved == load_workspace(asked)
    assert window.unsaved
