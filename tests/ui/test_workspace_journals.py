"""Opening a workspace whose journal is missing asks before one is started, beside the
workspace only; one whose journal is no file (a FIFO) is a dialog at once (issue 42,
items 16 and 17)."""

import os

from PySide6.QtWidgets import QMessageBox

from tests.ui.conftest import save_and_wait, wait_for_job
from tests.workspace_files import manifest, rewrite


def saved_naming(qtbot, window, folder, journal):
    """The window's session saved in ``folder``, its corpus's journal made ``journal``."""
    path = save_and_wait(qtbot, window, folder / "study.sentspace")
    saved = manifest(path)
    saved["corpora"][0]["journal"] = str(journal)
    saved["relative"] = {}
    rewrite(path, saved)
    return path


def test_a_missing_journal_is_started_beside_the_workspace_once_the_user_agrees(
    qtbot, window, tmp_path
):
    corpus = window.corpus
    gone = tmp_path / "share" / "team" / "edits.jsonl"
    path = saved_naming(qtbot, window, tmp_path, gone)
    window.files.open_workspace(path)
    box = window.files.journal_box
    assert box.isVisible() and box.objectName() == "journal-missing"
    new = tmp_path / f"study.{corpus.fingerprint}.edits.jsonl"
    assert box.text().startswith(
        f"msrp-grouped: {gone} is missing; start a new, empty journal beside the "
        f"workspace, {new.name}"
    )
    box.button(QMessageBox.StandardButton.Cancel).click()
    wait_for_job(qtbot, window)
    assert not window.is_running and not new.exists() and not gone.parent.exists()

    window.files.open_workspace(path)
    window.files.journal_box.button(QMessageBox.StandardButton.Open).click()
    wait_for_job(qtbot, window)
    assert window.findChild(QMessageBox, "error-dialog") is None
    assert window.annotations.journal.path == new and not window.annotations.edits
    assert window.files.unsaved  # the workspace names the missing one until saved
    assert not gone.parent.exists()
    save_and_wait(qtbot, window, path)
    assert manifest(path)["corpora"][0]["journal"] == str(new)


def test_a_journal_that_is_a_fifo_is_a_dialog_and_nothing_waits(qtbot, window, tmp_path):
    folder = tmp_path / "study"  # beside the data folder's journals
    folder.mkdir()
    fifo = folder / "edits.jsonl"
    os.mkfifo(fifo)
    path = saved_naming(qtbot, window, folder, fifo)
    window.files.open_workspace(path)  # returns: a FIFO is never opened
    dialog = window.findChild(QMessageBox, "error-dialog")
    assert dialog.windowTitle() == "Cannot open the workspace"
    assert dialog.text() == f"{fifo}: is a FIFO (a named pipe), not a journal file"
    assert not window.is_running and window.files.journal_box is None
    assert sorted(os.listdir(folder)) == ["edits.jsonl", "study.sentspace"]
