"""A journal is recognised before anything is written to it (issue 34, item 3): a file
that does not begin with a journal header is refused and left byte for byte; a torn
last line of a journal is kept beside it when cut; a complete line that does not parse
is an error naming it, never deleted."""

from __future__ import annotations

import json
import os

import pytest

from sentspace.app.annotations.edits import EditError, MarkReviewed
from sentspace.app.annotations.journal import EditJournal
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.jobs import run_job
from sentspace.app.workspace.format import corpus_entry, load_workspace, save_workspace
from sentspace.app.workspace.model import Workspace
from sentspace.app.workspace.restore import restore_session

NOT_JOURNALS = {
    "a one-line note": b"call Ann about the groups",
    "a note ending in a newline": b"call Ann about the groups\n",
    "a note of two lines": b"call Ann\nabout the groups\n",
    "binary, no newline": bytes(range(256)) * 8 + b"\x00\xff",
    "JSON, not a journal": b'{"format": "something else"}\n{"op": "move"}\n',
}


@pytest.mark.parametrize("kind", NOT_JOURNALS)
def test_a_file_that_is_not_a_journal_is_refused_and_left_byte_for_byte(corpus, tmp_path, kind):
    path = tmp_path / "notes.txt"
    path.write_bytes(NOT_JOURNALS[kind])
    with pytest.raises(EditError) as caught:
        AnnotationSession.open(corpus, path, author="ann")
    assert str(caught.value) == f"{path}: not a sentspace journal"
    assert path.read_bytes() == NOT_JOURNALS[kind]
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]  # not even a lock beside it


def test_a_workspace_whose_journal_names_a_note_is_refused_and_the_note_kept(corpus, tmp_path):
    note = tmp_path / "todo.txt"
    note.write_bytes(b"call Ann about the groups")
    path = save_workspace(
        Workspace(corpora=(corpus_entry("msrp-grouped", corpus, note),)),
        tmp_path / "study",
        remember=False,
    )
    with pytest.raises(EditError, match="not a sentspace journal"):
        run_job(restore_session(load_workspace(path), path))
    assert note.read_bytes() == b"call Ann about the groups"


def test_an_empty_file_becomes_a_journal_with_an_id(corpus, tmp_path):
    path = tmp_path / "edits.jsonl"
    path.touch()
    with EditJournal(path, corpus.fingerprint) as journal:
        first = json.loads(path.read_text())
        assert first["format"] == "sentspace-edit-journal" and journal.id == first["id"]
    other = tmp_path / "other.jsonl"
    with EditJournal(other, corpus.fingerprint) as journal:
        assert journal.id != first["id"]


def test_a_torn_last_line_is_cut_and_kept_beside_the_journal(corpus, tmp_path):
    path = tmp_path / "edits.jsonl"
    with EditJournal(path, corpus.fingerprint) as journal:
        journal.append(MarkReviewed(item="sentence:L1"))
    intact = path.read_bytes()
    torn = b'{"op": "reviewed", "item": "sentence:L2", "auth'
    with path.open("ab") as handle:
        handle.write(torn)
    with pytest.warns(UserWarning, match="cut a torn last line"):
        journal = EditJournal(path, corpus.fingerprint)
    (kept,) = tmp_path.glob("edits.jsonl.torn-*")
    assert kept.read_bytes() == torn and path.read_bytes() == intact
    assert str(kept) in journal.warnings[0]
    journal.append(MarkReviewed(item="sentence:L3"))
    journal.close()
    assert [r.item for r in EditJournal(path, corpus.fingerprint).records] == [
        "sentence:L1",
        "sentence:L3",
    ]


def test_a_torn_line_that_cannot_be_set_aside_is_not_cut_nor_written_after(
    corpus, tmp_path, monkeypatch
):
    from sentspace.app.annotations import journal as journal_module
    from sentspace.app.annotations.journal import JournalUnavailable

    path = tmp_path / "edits.jsonl"
    session = AnnotationSession.open(corpus, path, author="ann")
    with path.open("ab") as handle:
        handle.write(b'{"op": "rev')
    before = path.read_bytes()
    real_open = os.open

    def no_new_files(name, flags, *args):
        if flags & os.O_EXCL:
            raise OSError(28, "No space left on device")
        return real_open(name, flags, *args)

    monkeypatch.setattr(journal_module.os, "open", no_new_files)
    with pytest.warns(UserWarning, match="could not be set aside"):
        with pytest.raises(JournalUnavailable, match="could not be set aside"):
            session.mark_reviewed("sentence:L1")
    assert path.read_bytes() == before and len(session.pending) == 1
    monkeypatch.undo()
    with pytest.warns(UserWarning, match="cut a torn last line"):
        assert session.save_pending().error is None
    assert session.reviewed == {"sentence:L1"}
    (kept,) = tmp_path.glob("edits.jsonl.torn-*")
    assert kept.read_bytes() == b'{"op": "rev'
    session.close()


def test_a_complete_line_that_does_not_parse_is_an_error_naming_it_never_deleted(corpus, tmp_path):
    path = tmp_path / "edits.jsonl"
    with EditJournal(path, corpus.fingerprint) as journal:
        journal.append(MarkReviewed(item="sentence:L1"))
    with path.open("ab") as handle:
        handle.write(b"this line is not JSON\n")
    before = path.read_bytes()
    with pytest.raises(EditError) as caught:
        AnnotationSession.open(corpus, path, author="ann")
    assert str(caught.value) == f"{path}, line 3: not a JSON line; the journal is corrupt"
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("edits.jsonl.torn-*"))
