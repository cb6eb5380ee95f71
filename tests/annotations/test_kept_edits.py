"""Kept edits are per writer and per journal (issue 34, item 4), with real processes: two
windows on one journal never overwrite each other's kept edits, one killed hands its own
to the next session, a discard drops only one's own, and a journal deleted and made
again never receives the edits kept for its predecessor (they are set aside in a file
the user is told about)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sentspace.app.annotations.journal import read_journal
from sentspace.app.annotations.session import RESTORED, AnnotationSession
from sentspace.app.cli import main

from .conftest import reopened

ROOT = Path(__file__).resolve().parents[2]
#: A window on the journal argv[1] as author argv[2], driven by lines on stdin: "keep
#: ITEM" marks ITEM reviewed while the journal cannot be written (the edit is kept),
#: "edit ITEM" marks it with the journal writable, "save", "discard", "close". Each
#: answer is one line: what it did and the edit ids concerned.
WINDOW = """
import sys
from sentspace.app.annotations import journal
from sentspace.app.annotations.journal import JournalUnavailable
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus

session = AnnotationSession.open(load_corpus("msrp-grouped"), sys.argv[1], author=sys.argv[2])
writable = journal.EditJournal._write

def full(self, *args):
    raise JournalUnavailable("No space left on device", self.path)

print("open", *[item.edit.id for item in session.pending], flush=True)
for line in sys.stdin:
    command, *item = line.split()
    if command == "keep":
        journal.EditJournal._write = full
        try:
            session.mark_reviewed(item[0])
        except JournalUnavailable:
            pass
        journal.EditJournal._write = writable
        print("kept", session.pending[-1].edit.id, flush=True)
    elif command == "edit":
        print("edited", session.mark_reviewed(item[0]).id, flush=True)
    elif command == "save":
        print("saved", *[edit.id for edit in session.save_pending().saved], flush=True)
    elif command == "discard":
        print("discarded", *[edit.id for edit in session.discard_pending()], flush=True)
    elif command == "close":
        session.close()
        print("closed", flush=True)
        break
"""


class Window:
    """A sentspace process editing ``journal`` as ``author``."""

    def __init__(self, journal: Path, author: str):
        self.process = subprocess.Popen(
            [sys.executable, "-c", WINDOW, str(journal), author],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.opened = self._answer()[1:]  # the kept edits it took over

    def _answer(self) -> list[str]:
        line = self.process.stdout.readline()
        assert line, f"the window died: {self.process.wait(timeout=60)}"
        return line.split()

    def ask(self, command: str) -> list[str]:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self._answer()

    def keep(self, item: str) -> str:
        """Mark ``item`` reviewed while the journal cannot be written; the kept edit's id."""
        what, edit_id = self.ask(f"keep {item}")
        assert what == "kept"
        return edit_id

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        assert self.process.wait(timeout=60) == -signal.SIGKILL

    def close(self) -> None:
        assert self.ask("close") == ["closed"]
        self.process.wait(timeout=60)


def saved_ids(path: Path) -> set[str]:
    return {record.id for record in read_journal(path)[1]}


pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")


def test_two_windows_keep_edits_one_is_killed_each_keeps_its_own(corpus, tmp_path):
    path = tmp_path / "edits.jsonl"
    ann, ben = Window(path, "ann"), Window(path, "ben")
    # A burst: both keep edits in turn on a journal neither can write.
    kept = {"ann": [], "ben": []}
    for number in range(1, 11):
        kept["ann"].append(ann.keep(f"sentence:L{number}"))
        kept["ben"].append(ben.keep(f"sentence:L{100 + number}"))
    ann.kill()

    cat = AnnotationSession.open(corpus, path, author="cat")
    # ann's ten, not ben's (ben lives and keeps them), each kept, not applied.
    assert [item.edit.id for item in cat.pending] == kept["ann"]
    assert {item.reason for item in cat.pending} == {RESTORED} and cat.edits == []
    assert [edit.id for edit in cat.save_pending().saved] == kept["ann"]
    assert ben.ask("save") == ["saved", *kept["ben"]]
    ben.close()
    cat.close()
    assert saved_ids(path) == set(kept["ann"]) | set(kept["ben"])
    assert reopened(corpus, path).pending == []  # nothing kept twice


def test_a_window_closed_with_edits_kept_hands_them_to_the_next(corpus, tmp_path):
    path = tmp_path / "edits.jsonl"
    ann = Window(path, "ann")
    edit_id = ann.keep("sentence:L1")
    ann.close()
    ben = Window(path, "ben")
    assert ben.opened == [edit_id]
    assert ben.ask("save") == ["saved", edit_id]
    ben.close()
    assert saved_ids(path) == {edit_id}


def test_a_discard_by_one_window_is_never_saved_by_another(corpus, tmp_path):
    path = tmp_path / "edits.jsonl"
    ann = Window(path, "ann")
    discarded = ann.keep("sentence:L1")
    ben = Window(path, "ben")  # opened while ann keeps it: not ben's to save
    assert ben.opened == []
    assert ann.ask("discard") == ["discarded", discarded]
    what, edited = ben.ask("edit sentence:L2")
    assert what == "edited" and ben.ask("save") == ["saved"]
    ann.close()
    ben.close()
    assert saved_ids(path) == {edited}
    assert reopened(corpus, path).pending == []


def test_a_journal_deleted_and_made_again_never_receives_the_old_kept_edit(
    corpus, tmp_path, capsys
):
    path = tmp_path / "edits.jsonl"
    ann = Window(path, "ann")
    old = ann.keep("sentence:L1")
    ann.kill()
    path.unlink()  # to start over

    session = AnnotationSession.open(corpus, path, author="ann")
    assert session.pending == [] and session.edits == []
    (aside,) = tmp_path.glob("edits.kept-*.jsonl")
    (notice,) = session.warnings
    assert (
        f"1 edit kept unsaved for an earlier journal at {path} (deleted or replaced "
        f"since) set aside in {aside}, not applied"
    ) in notice
    assert {record.id for record in read_journal(aside)[1]} == {old}
    new = session.mark_reviewed("sentence:L2")
    session.close()
    assert saved_ids(path) == {new.id}
    assert reopened(corpus, path).pending == []  # not offered again

    # The user reviews the file and takes the edit, as the notice says.
    assert (
        main(
            [
                "annotations",
                "merge",
                str(path),
                str(aside),
                "--corpus",
                "msrp-grouped",
                "--out",
                str(path),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert saved_ids(path) == {new.id, old}


def keep_in(session: AnnotationSession, item: str, monkeypatch) -> str:
    """Mark ``item`` reviewed in ``session`` while its journal cannot be written."""
    from sentspace.app.annotations.journal import EditJournal, JournalUnavailable

    def full(self, *records):
        raise JournalUnavailable("No space left on device", self.path)

    with monkeypatch.context() as patch, pytest.raises(JournalUnavailable):
        patch.setattr(EditJournal, "_write", full)
        session.mark_reviewed(item)
    return session.pending[-1].edit.id


def test_a_live_sessions_kept_edits_are_not_taken_by_another_in_the_same_process(
    corpus, tmp_path, monkeypatch
):
    path = tmp_path / "edits.jsonl"
    ann = AnnotationSession.open(corpus, path, author="ann")
    kept = keep_in(ann, "sentence:L1", monkeypatch)
    assert reopened(corpus, path).pending == []
    assert [item.edit.id for item in ann.pending] == [kept] and ann.kept.path.is_file()
    ann.close()
    assert [item.edit.id for item in reopened(corpus, path).pending] == [kept]


def test_a_recovery_file_of_the_first_format_is_set_aside_not_applied(corpus, tmp_path):
    """Before writers had their own, one file per journal path held no journal id: which
    journal its edits were for cannot be told, so they are set aside."""
    import hashlib
    import json

    from sentspace.app.annotations.edits import MarkReviewed
    from sentspace.app.annotations.recovery import recovery_root

    path = tmp_path / "edits.jsonl"
    edit = MarkReviewed(item="sentence:L1", author="ann")
    key = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:16]
    legacy = recovery_root() / f"{key}.jsonl"
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_text(json.dumps({"edit": edit.to_dict(), "new_target": False}) + "\n")
    session = AnnotationSession.open(corpus, path, author="ann")
    assert session.pending == [] and not legacy.exists()
    (aside,) = tmp_path.glob("edits.kept-*.jsonl")
    assert [record.id for record in read_journal(aside)[1]] == [edit.id]
    assert str(aside) in session.warnings[0]
    session.close()
