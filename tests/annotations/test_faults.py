"""Faults while annotating (issue 25, item 4): a full disk during an append or an export,
and a journal whose folder goes away and comes back (a network drive). An edit that
cannot be written is not applied and is kept, with the reason; the journal is left as
it was (no partial line), so what a session holds is what a fresh open reads; the kept
edits are written when the journal can be written again."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from sentspace.app.annotations import journal as journal_module
from sentspace.app.annotations.export import ExportError
from sentspace.app.annotations.journal import JournalUnavailable
from sentspace.app.annotations.recovery import recovery_root
from sentspace.app.annotations.session import RESTORED, AnnotationSession

FULL = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def fresh(corpus, path: Path) -> AnnotationSession:
    """A new session on the journal at ``path``, read with warnings as errors: a torn
    line left behind would warn."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        session = AnnotationSession.open(corpus, path, author="reader")
    session.close()
    return session


def same_state(session: AnnotationSession, path: Path) -> None:
    """What ``session`` holds is what the journal on disk gives."""
    reread = fresh(session.original, path)
    assert [edit.id for edit in reread.edits] == [edit.id for edit in session.edits]
    assert reread.corpus.fingerprint == session.corpus.fingerprint


def test_a_full_disk_during_an_append_keeps_the_edit_unsaved_and_the_journal_whole(
    corpus, tmp_path, monkeypatch
):
    path = tmp_path / "edits.jsonl"
    session = AnnotationSession.open(corpus, path, author="ann")
    first = session.move(0, corpus.groups.names[5])
    before = path.read_bytes()

    def full(handle, data):
        raise FULL

    monkeypatch.setattr(journal_module.os, "write", full)
    with pytest.raises(JournalUnavailable) as caught:
        session.move(1, corpus.groups.names[7], reason="kept")
    assert caught.value.reason == "No space left on device"
    assert "not saved: No space left on device" in str(caught.value)
    # Not applied, kept with its reason; the file is as it was.
    assert [edit.id for edit in session.edits] == [first.id]
    assert session.group_names_of(1) != [corpus.groups.names[7]]
    (kept,) = session.pending
    assert kept.edit.describe().startswith("move L2") and kept.reason == "No space left on device"
    assert path.read_bytes() == before
    same_state(session, path)
    # Undo cannot write either: nothing undone, nothing more kept.
    with pytest.raises(JournalUnavailable):
        session.undo()
    assert [edit.id for edit in session.edits] == [first.id] and len(session.pending) == 1

    monkeypatch.undo()
    saved = session.save_pending()
    assert [edit.id for edit in saved.saved] == [kept.edit.id] and saved.error is None
    assert session.pending == [] and session.group_names_of(1) == [corpus.groups.names[7]]
    same_state(session, path)
    session.close()


@pytest.mark.parametrize("fault", ["short write", "fsync", "fsync and truncate"])
def test_a_write_that_fails_part_way_leaves_no_partial_line(corpus, tmp_path, monkeypatch, fault):
    path = tmp_path / "edits.jsonl"
    session = AnnotationSession.open(corpus, path, author="ann")
    session.mark_reviewed("sentence:L1")
    before = path.read_bytes()
    real_write = os.write

    def half(handle, data):  # a disk that fills in the middle of the line
        if half.done:
            raise FULL
        half.done = True
        return real_write(handle, data[: len(data) // 2])

    half.done = False

    def failing_fsync(handle):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    def failing_truncate(handle, size):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    if fault == "short write":
        monkeypatch.setattr(journal_module.os, "write", half)
    else:
        monkeypatch.setattr(journal_module.os, "fsync", failing_fsync)
    if fault == "fsync and truncate":
        monkeypatch.setattr(journal_module.os, "ftruncate", failing_truncate)
    with pytest.raises(JournalUnavailable) as caught:
        session.mark_reviewed("sentence:L2", reason="late")
    monkeypatch.undo()
    assert len(session.pending) == 1 and "sentence:L2" not in session.reviewed
    if fault == "short write":  # the error that stopped it, not the short count
        assert half.done and caught.value.reason == "No space left on device"
    if fault != "fsync and truncate":
        assert path.read_bytes() == before  # the partial or unsynced line taken back
        same_state(session, path)
    # Even where it could not be taken back, saving again writes the edit once.
    saved = session.save_pending()
    assert len(saved.saved) == 1 and session.pending == []
    assert sum(b'"sentence:L2"' in line for line in path.read_bytes().splitlines()) == 1
    same_state(session, path)
    assert session.reviewed == {"sentence:L1", "sentence:L2"}
    session.close()


def test_a_short_write_the_disk_then_takes_is_saved_whole(corpus, tmp_path, monkeypatch):
    path = tmp_path / "edits.jsonl"
    session = AnnotationSession.open(corpus, path, author="ann")
    real_write = os.write
    calls = []

    def short_once(handle, data):
        calls.append(len(data))
        return real_write(handle, data[:10] if len(calls) == 1 else data)

    monkeypatch.setattr(journal_module.os, "write", short_once)
    session.mark_reviewed("sentence:L1")
    monkeypatch.undo()
    assert len(calls) == 2 and session.pending == []
    same_state(session, path)
    assert fresh(corpus, path).reviewed == {"sentence:L1"}
    session.close()


def test_the_journals_folder_goes_away_and_comes_back(corpus, tmp_path):
    folder = tmp_path / "drive" / "project"
    folder.mkdir(parents=True)
    path = folder / "edits.jsonl"
    session = AnnotationSession.open(corpus, path, author="ann")
    names = corpus.groups.names
    session.move(0, names[5])
    away = tmp_path / "away"
    folder.rename(away)  # the drive is gone
    with pytest.raises(JournalUnavailable, match="the journal's folder is gone"):
        session.move(1, names[7])
    with pytest.raises(JournalUnavailable):
        session.move(2, None)  # a new group, named while the drive is away
    assert not folder.exists()  # not made again (empty) by the lock
    assert [item.edit.op for item in session.pending] == ["move", "move"]
    with pytest.raises(JournalUnavailable):
        session.refresh()
    assert len(session.edits) == 1
    away.rename(folder)  # back
    assert session.save_pending().error is None and session.pending == []
    assert session.group_names_of(1) == [names[7]] and len(session.edits) == 3
    same_state(session, path)
    session.close()


def test_a_journal_back_as_another_file_is_taken_only_if_it_holds_what_was_read(corpus, tmp_path):
    folder = tmp_path / "drive"
    folder.mkdir()
    path = folder / "edits.jsonl"
    session = AnnotationSession.open(corpus, path, author="ann")
    session.mark_reviewed("sentence:L1")
    backup = tmp_path / "backup"
    shutil.copytree(folder, backup)
    shutil.rmtree(folder)
    with pytest.raises(JournalUnavailable):
        session.mark_reviewed("sentence:L2")
    shutil.copytree(backup, folder)  # mounted again: the same bytes, another inode
    assert session.save_pending().error is None
    assert session.reviewed == {"sentence:L1", "sentence:L2"}
    same_state(session, path)

    # A journal that comes back without what this session read is refused, not written.
    session.mark_reviewed("sentence:L3")
    shutil.rmtree(folder)
    shutil.copytree(backup, folder)  # an older copy: no L2, L3
    with pytest.raises(JournalUnavailable, match="replaced"):
        session.mark_reviewed("sentence:L4")
    assert (folder / "edits.jsonl").read_bytes() == (backup / "edits.jsonl").read_bytes()
    assert [item.edit.item for item in session.pending] == ["sentence:L4"]
    session.close()


def test_a_full_disk_during_an_export_says_what_was_written(corpus, tmp_path, monkeypatch):
    session = AnnotationSession.open(corpus, tmp_path / "edits.jsonl", author="ann")
    session.move(0, corpus.groups.names[5])
    out = tmp_path / "out"
    out.mkdir()
    (out / "corpus.json").write_text("the previous export\n")
    real_fsync = os.fsync

    def fsync(handle):  # the disk fills while corpus.json is written
        if "corpus.json" in os.readlink(f"/proc/self/fd/{handle}"):
            raise FULL
        real_fsync(handle)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(ExportError) as caught:
        session.export(out)
    monkeypatch.undo()
    error = caught.value
    assert error.reason == "No space left on device" and error.path == out / "corpus.json"
    assert [path.name for path in error.written] == ["phrases.txt", "phrase_groups.csv"]
    assert "written before it stopped: phrases.txt, phrase_groups.csv" in str(error)
    assert (out / "corpus.json").read_text() == "the previous export\n"
    assert sorted(p.name for p in out.iterdir()) == [
        "corpus.json",
        "phrase_groups.csv",
        "phrases.txt",
    ]  # no temporary left
    session.close()


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KiB tmpfs mounted for the test (root only; skipped where mount is refused)."""
    mount = tmp_path / "small"
    mount.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"cannot mount a tmpfs: {error}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False, timeout=30)


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to the last byte; the filler file."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as handle:
        while True:
            try:
                handle.write(b"x" * 512)
            except OSError as error:
                assert error.errno == errno.ENOSPC
                return filler


def test_a_real_full_disk(corpus, small_disk):
    path = small_disk / "edits.jsonl"
    session = AnnotationSession.open(corpus, path, author="ann")
    session.move(0, corpus.groups.names[5])
    filler = fill(small_disk)
    # The journal's last page may still have room for a line or two: edit until full.
    for number in range(2, 200):
        try:
            session.note("sentence:L1", f"note {number} " + "words " * 20)
        except JournalUnavailable as error:
            assert error.errno == errno.ENOSPC
            break
    else:
        pytest.fail("the full disk took every append")
    assert len(session.pending) == 1
    same_state(session, path)
    with pytest.raises(ExportError, match="No space left on device"):
        session.export(small_disk / "out")
    assert not any(p.name.endswith(".partial") for p in (small_disk / "out").iterdir())
    filler.unlink()
    assert session.save_pending().error is None and session.pending == []
    same_state(session, path)
    session.close()


def test_edits_kept_unsaved_survive_the_app_being_killed(corpus, tmp_path):
    """A process whose journal cannot be written keeps an edit, then is killed (kill -9):
    the next session on the journal finds it kept, not applied, and saves it."""
    path = tmp_path / "edits.jsonl"
    AnnotationSession.open(corpus, path, author="ann").close()
    target = corpus.groups.names[7]
    child = f"""
import errno, os, signal
from sentspace.app.annotations import journal
from sentspace.app.annotations.journal import JournalUnavailable
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus
session = AnnotationSession.open(load_corpus("msrp-grouped"), {str(path)!r}, author="ann")
def full(handle, data):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
journal.os.write = full
try:
    session.move(1, {target!r}, reason="kept")
except JournalUnavailable:
    os.kill(os.getpid(), signal.SIGKILL)
"""
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True)
    assert done.returncode == -9, done.stderr
    assert len(path.read_text().splitlines()) == 1  # the header: nothing written

    session = AnnotationSession.open(corpus, path, author="ann")
    (kept,) = session.pending
    assert kept.edit.describe().startswith("move L2") and kept.edit.reason == "kept"
    assert kept.reason == RESTORED and session.edits == []
    saved = session.save_pending()
    assert [edit.id for edit in saved.saved] == [kept.edit.id]
    assert session.group_names_of(1) == [target]
    assert not list((recovery_root() / session.journal.id).glob("*.jsonl"))  # all saved
    same_state(session, path)
    session.close()


def test_discarded_edits_leave_no_recovery_and_a_broken_one_is_set_aside(
    corpus, tmp_path, monkeypatch
):
    path = tmp_path / "edits.jsonl"
    session = AnnotationSession.open(corpus, path, author="ann")

    def full(handle, data):
        raise FULL

    monkeypatch.setattr(journal_module.os, "write", full)
    with pytest.raises(JournalUnavailable):
        session.move(0, corpus.groups.names[5])
    monkeypatch.undo()
    assert session.kept.path.exists()
    session.discard_pending()
    assert not session.kept.path.exists()
    session.close()

    broken = session.kept.path
    broken.write_text("not json\n", encoding="utf-8")
    reopened = AnnotationSession.open(corpus, path, author="ann")
    assert reopened.pending == []
    assert broken.with_suffix(".unreadable").read_text() == "not json\n"
    assert any(str(broken.with_suffix(".unreadable")) in line for line in reopened.warnings)
    reopened.close()
