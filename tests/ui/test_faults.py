"""Faults while annotating, in the window (issue 25, item 4): an edit the journal cannot
take is shown not saved with the reason and can be retried; a journal folder that goes
away and comes back is followed without a crash; a failed export says why; a workspace
another window saved since is not overwritten without asking."""

from __future__ import annotations

import dataclasses
import errno
import os

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox

from sentspace.app.annotations import journal as journal_module
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.ui.window import files as files_module
from sentspace.app.workspace.format import load_workspace, save_workspace
from sentspace.app.workspace.paths import stamp
from tests.ui.conftest import save_and_wait, wait_for_job

FULL = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def full_disk(monkeypatch) -> None:
    def full(handle, data):
        raise FULL

    monkeypatch.setattr(journal_module.os, "write", full)


def reviewing(qtbot, window):
    """The Review panel on the suspicious lists, its first row selected."""
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    review = window.review_panel
    review.select_row(0)
    return review, review.model.items.key(review.selected_row())


def reread(window) -> AnnotationSession:
    session = AnnotationSession.open(
        window.annotations.original, window.annotations.journal.path, author="reader"
    )
    session.close()
    return session


def dialog(name: str) -> QMessageBox:
    boxes = [
        widget
        for widget in QApplication.topLevelWidgets()
        if isinstance(widget, QMessageBox) and widget.objectName() == name and widget.isVisible()
    ]
    assert boxes, f"no {name} dialog is shown"
    return boxes[-1]


def test_an_edit_on_a_full_disk_is_shown_not_saved_and_retried(qtbot, window, monkeypatch):
    review, key = reviewing(qtbot, window)
    journal = window.annotations.journal.path
    before = journal.read_bytes()
    full_disk(monkeypatch)
    assert not review.mark_selected_reviewed("looked at it")
    assert review.status.text() == (
        f"Not saved: No space left on device (reviewed {key} "
        "is kept, not applied, until it can be written)."
    )
    assert review.unsaved_box.isVisibleTo(review)
    assert "1 edit is not saved</b>: No space left on device" in review.unsaved.text()
    assert str(journal) in review.unsaved.text()
    assert key not in window.annotations.reviewed and journal.read_bytes() == before
    # A second edit waits behind the first; an undo changes nothing.
    review.note_selected("a note")
    assert "2 edits are not saved" in review.unsaved.text()
    assert not review.undo() and "nothing changed" in review.status.text()
    # Closing asks: the edits would be lost.
    window.close()
    asked = dialog("unsaved-edits-dialog")
    assert "2 edits are not saved" in asked.text() and window.isVisible()
    asked.button(QMessageBox.StandardButton.Cancel).click()
    assert window.isVisible() and len(window.annotations.pending) == 2

    monkeypatch.undo()
    with qtbot.waitSignal(review.corpus_changed):
        review.retry_button.click()
    assert review.status.text() == "Saved 2 edits to the journal."
    assert not review.unsaved_box.isVisibleTo(review)
    assert key in window.annotations.reviewed and window.annotations.notes[key] == ["a note"]
    assert [e.id for e in reread(window).edits] == [e.id for e in window.annotations.edits]


def test_closing_with_unsaved_edits_can_discard_them(qtbot, window, monkeypatch):
    review, _ = reviewing(qtbot, window)
    full_disk(monkeypatch)
    review.mark_selected_reviewed()
    window.close()
    dialog("unsaved-edits-dialog").button(QMessageBox.StandardButton.Discard).click()
    assert window.annotations.pending == []
    # Then, as ever, the results not in a workspace.
    dialog("save-dialog").button(QMessageBox.StandardButton.Discard).click()
    qtbot.waitUntil(lambda: not window.isVisible())


def test_a_journal_folder_that_goes_away_and_comes_back(qtbot, window, tmp_path):
    review, key = reviewing(qtbot, window)
    journal = window.annotations.journal.path
    folder, away = journal.parent, tmp_path / "away"
    following = window.following
    assert str(journal) in following.watcher.files()
    folder.rename(away)  # the network drive is gone
    following.check_paths()
    assert "the edit journal is gone" in window.statusBar().currentMessage()
    assert str(journal) not in following.watcher.files()
    following.journal_changed(str(journal))  # a late change signal: said, not raised
    assert not review.mark_selected_reviewed("while away")
    assert "Not saved: the journal's folder is gone" in review.status.text()
    assert not folder.exists()  # not made again, empty, by the lock
    for _ in range(3):
        following.check_paths()  # nothing new: nothing said, nothing watched
    assert following.watcher.files() == []

    away.rename(folder)  # back
    with qtbot.waitSignal(window.session.edited):
        following.check_paths()
    assert (
        "the edit journal is back; 1 edit not saved: Retry saving in Review"
        in window.statusBar().currentMessage()
    )
    assert str(journal) in following.watcher.files()
    assert review.retry()
    assert key in window.annotations.reviewed
    assert [e.id for e in reread(window).edits] == [e.id for e in window.annotations.edits]
    # Watched again: another writer's edit is followed live.
    other = reread(window)
    other = AnnotationSession.open(other.original, journal, author="ben")
    other.mark_reviewed("sentence:L1")
    other.close()
    qtbot.waitUntil(lambda: "sentence:L1" in window.annotations.reviewed, timeout=10_000)


def test_a_full_disk_during_the_corrected_export_is_said(qtbot, window, monkeypatch, tmp_path):
    out = tmp_path / "out"
    real_fsync = os.fsync

    def fsync(handle):
        if "corpus.json" in os.readlink(f"/proc/self/fd/{handle}"):
            raise FULL
        real_fsync(handle)

    monkeypatch.setattr(os, "fsync", fsync)
    written = window.files.export_corrected(out)
    monkeypatch.undo()
    assert [path.name for path in written] == ["phrases.txt", "phrase_groups.csv"]
    box = window.findChild(QMessageBox, "error-dialog")
    assert box.windowTitle() == "The corrected corpus is not exported"
    assert "corpus.json: not exported: No space left on device" in box.text()
    assert "written before it stopped: phrases.txt, phrase_groups.csv" in box.text()
    assert window.statusBar().currentMessage() == "Not exported: No space left on device"


@pytest.fixture
def changed_on_disk(qtbot, window, tmp_path):
    """The window's workspace saved, then saved again by another window (its view
    differs): (path, the other window's bytes)."""
    path = save_and_wait(qtbot, window, tmp_path / "study.sentspace")
    other = dataclasses.replace(load_workspace(path), view={"saved by": "the other window"})
    save_workspace(other, path, remember=False)
    return path, path.read_bytes()


def asked(window) -> QMessageBox:
    # The file is checked before anything is written: no save starts.
    assert window.files.save_workspace_to(window.files.workspace_path) is None
    box = dialog("workspace-changed")
    assert box.windowTitle() == "The workspace changed on disk"
    assert "saved by another window or program since this window opened" in box.text()
    return box


def test_a_workspace_changed_on_disk_is_not_overwritten_without_asking(
    qtbot, window, changed_on_disk
):
    path, theirs = changed_on_disk
    box = asked(window)
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert path.read_bytes() == theirs

    asked(window).overwrite.click()
    wait_for_job(qtbot, window)
    assert path.read_bytes() != theirs
    assert load_workspace(path).view.get("saved by") is None  # this window's session
    assert window.files.workspace_stamp == stamp(path)
    assert save_and_wait(qtbot, window, path) == path  # no question now


def test_save_as_leaves_the_other_windows_workspace(
    qtbot, window, changed_on_disk, monkeypatch, tmp_path
):
    path, theirs = changed_on_disk
    monkeypatch.setattr(files_module, "save_file", lambda *_, **__: str(tmp_path / "mine"))
    asked(window).save_as.click()
    wait_for_job(qtbot, window)
    assert path.read_bytes() == theirs
    assert window.files.workspace_path == tmp_path / "mine.sentspace"
    assert load_workspace(tmp_path / "mine.sentspace").corpora


def test_reload_opens_the_workspace_as_the_other_window_saved_it(qtbot, window, changed_on_disk):
    path, theirs = changed_on_disk
    window.annotations.mark_reviewed("sentence:L1")  # an edit: in the journal, kept
    asked(window).reload.click()
    wait_for_job(qtbot, window)
    qtbot.waitUntil(lambda: window.files.workspace_stamp == stamp(path))
    assert path.read_bytes() == theirs and not window.files.unsaved
    assert "sentence:L1" in window.annotations.reviewed
    assert save_and_wait(qtbot, window, path) == path  # no question now


def test_edits_kept_for_a_journal_deleted_since_are_set_aside_and_said(qtbot, monkeypatch):
    """Issue 34, item 4: they are not applied to the new journal, and the window says
    where they are."""
    from sentspace.app.annotations.journal import EditJournal, JournalUnavailable, journal_path
    from sentspace.app.corpora import load_corpus
    from sentspace.app.ui.window.main_window import MainWindow

    corpus = load_corpus("msrp-grouped")
    path = journal_path(corpus)
    earlier = AnnotationSession.open(corpus, path, author="ann")

    def full(self, *records):
        raise JournalUnavailable("No space left on device", self.path)

    with monkeypatch.context() as patch, pytest.raises(JournalUnavailable):
        patch.setattr(EditJournal, "_write", full)
        earlier.mark_reviewed("sentence:L1")
    earlier.close()  # as if the app had been killed: the edit stays kept
    path.unlink()  # the user starts over

    window = MainWindow()
    qtbot.addWidget(window)
    window.open_corpus("msrp-grouped")
    wait_for_job(qtbot, window)
    (aside,) = path.parent.glob("*.kept-*.jsonl")
    assert window.annotations.pending == [] and window.annotations.edits == []
    assert (
        f"1 edit kept unsaved for an earlier journal at {path} (deleted or replaced "
        f"since) set aside in {aside}"
    ) in window.statusBar().currentMessage()
    window.close()
