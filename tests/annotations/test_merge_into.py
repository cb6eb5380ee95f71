"""`sentspace annotations merge --out` takes the output journal's lock and never replaces
what it did not read (issue 34, item 5): an existing output is refused unless it is one
of the journals merged, and then only what it lacks is appended, so a window writing to
it meanwhile loses nothing and goes on saving."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sentspace.app.annotations.journal import read_journal
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.cli import main

ROOT = Path(__file__).resolve().parents[2]
#: A window marking sentences L1..L300 reviewed one by one on the journal argv[1],
#: printing each edit's id once the session returned it (saved) or "kept" when the
#: journal refused it; at the end, how many edits it holds unsaved. After every 60 edits
#: it prints "paused" and waits for a line, so that the test can start a merge and let
#: the next 60 be written while it runs, however fast or slow the machine is.
WRITER = """
import sys
from sentspace.app.annotations.journal import JournalUnavailable
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus

session = AnnotationSession.open(load_corpus("msrp-grouped"), sys.argv[1], author="writer")
for number in range(1, 301):
    try:
        print("saved", session.mark_reviewed(f"sentence:L{number}").id, flush=True)
    except JournalUnavailable as error:
        print("kept", error.reason.replace(" ", "_"), flush=True)
    if number % 60 == 0 and number < 300:
        print("paused", flush=True)
        sys.stdin.readline()
print("unsaved", len(session.pending), flush=True)
session.close()
"""


def record_ids(path: Path) -> list[str]:
    return [record.id for record in read_journal(path)[1]]


def test_merge_onto_a_journal_a_window_is_writing_loses_none_of_its_edits(corpus, tmp_path, capsys):
    theirs = tmp_path / "theirs.jsonl"
    other = AnnotationSession.open(corpus, theirs, author="other")
    for number in range(400, 600):
        other.move(number, "5")
    other.close()
    journal = tmp_path / "team.jsonl"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(journal)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    answers = []
    merges = 0
    for line in writer.stdout:
        if line.strip() != "paused":
            answers.append(line.split())
            continue
        writer.stdin.write("go\n")  # the window writes its next 60 edits while we merge
        writer.stdin.flush()
        merge = ["annotations", "merge", str(journal), str(theirs), "--corpus", "msrp-grouped"]
        assert main([*merge, "--out", str(journal)]) == 0
        merges += 1
        if merges == 4:
            break
    answers += [line.split() for line in writer.stdout]
    assert writer.wait() == 0 and merges == 4
    assert answers[-1] == ["unsaved", "0"]  # the writer saved every edit
    saved = [edit_id for what, edit_id in answers[:-1] if what == "saved"]
    assert len(saved) == 300
    held = record_ids(journal)
    assert set(saved) <= set(held) and len(held) == len(set(held)) == 500
    # The writer's edits in the order it saved them.
    assert [edit_id for edit_id in held if edit_id in set(saved)] == saved
    assert "(0 appended)" in capsys.readouterr().out.splitlines()[-2]  # the last merge


@pytest.mark.parametrize("existing", ["a note", "a journal not merged"])
def test_merge_out_onto_an_existing_file_not_merged_is_refused(corpus, tmp_path, capsys, existing):
    mine = tmp_path / "mine.jsonl"
    session = AnnotationSession.open(corpus, mine, author="ann")
    session.move(0, "5")
    session.close()
    out = tmp_path / "out.jsonl"
    if existing == "a note":
        out.write_bytes(b"my notes, not a journal\n")
    else:
        AnnotationSession.open(corpus, out, author="ben").close()
    before = out.read_bytes()
    assert (
        main(["annotations", "merge", str(mine), "--corpus", "msrp-grouped", "--out", str(out)])
        == 2
    )
    assert capsys.readouterr().err == (
        f"sentspace: error: {out}: exists and is not one of the journals merged: give a "
        "new file, or name it among the journals to merge into it\n"
    )
    assert out.read_bytes() == before


def test_merge_into_one_of_its_journals_appends_only_what_it_lacks(corpus, tmp_path, capsys):
    mine, theirs = tmp_path / "mine.jsonl", tmp_path / "theirs.jsonl"
    for path, author, sentence in ((mine, "ann", 0), (theirs, "ben", 1)):
        session = AnnotationSession.open(corpus, path, author=author)
        session.move(sentence, "5")
        session.close()
    before, own = mine.read_bytes(), record_ids(mine)
    assert (
        main(
            [
                "annotations",
                "merge",
                str(mine),
                str(theirs),
                "--corpus",
                "msrp-grouped",
                "--out",
                str(mine),
            ]
        )
        == 0
    )
    assert f"2 records (2 edits in effect) from 2 journals in {mine} (1 appended)" in (
        capsys.readouterr().out
    )
    after = mine.read_bytes()
    assert after.startswith(before)  # appended, nothing rewritten
    assert record_ids(mine) == [*own, *record_ids(theirs)]


def two_journals(corpus, folder):
    mine, theirs = folder / "mine.jsonl", folder / "theirs.jsonl"
    for path, author, sentence in ((mine, "ann", 0), (theirs, "ben", 1)):
        session = AnnotationSession.open(corpus, path, author=author)
        session.move(sentence, "5", reason="same story")
        session.close()
    return mine, theirs


def merge(*paths, out):
    return main(
        ["annotations", "merge", *map(str, paths), "--corpus", "msrp-grouped", "--out", str(out)]
    )


def test_a_lone_surrogate_in_a_journal_is_refused_by_line_and_the_retry_is_not_blocked(
    corpus, tmp_path, capsys
):
    import json

    from sentspace.app.annotations.edits import EditError

    mine, theirs = two_journals(corpus, tmp_path)
    good = theirs.read_text()
    header, line = good.splitlines()
    # Valid JSON ("\udcff" escaped), but no text: Python reads it as a lone surrogate.
    damaged = json.dumps({**json.loads(line), "reason": "x\udcff"})
    theirs.write_text(f"{header}\n{damaged}\n")
    assert "\\udcff" in theirs.read_text()
    problem = f"{theirs}, line 2: holds \\udcff, half of a UTF-16 pair alone, which is not text"
    with pytest.raises(EditError) as caught:
        read_journal(theirs)
    assert str(caught.value).startswith(problem)
    with pytest.raises(EditError, match="line 2: holds"):  # the window opens none
        AnnotationSession.open(corpus, theirs)
    out = tmp_path / "team.jsonl"
    assert merge(mine, theirs, out=out) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"sentspace: error: {problem}") and error.count("\n") == 1
    assert not out.exists()  # no header-only file in the way of the retry
    theirs.write_text(good)
    assert merge(mine, theirs, out=out) == 0
    assert record_ids(out) == [*record_ids(mine), *record_ids(theirs)]


def test_a_new_merged_journal_is_written_whole_or_not_at_all(corpus, tmp_path, capsys, monkeypatch):
    import errno
    import os

    from sentspace.app.base import atomic

    mine, theirs = two_journals(corpus, tmp_path)
    out = tmp_path / "team.jsonl"

    def full(handle):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "fsync", full)
    assert merge(mine, theirs, out=out) == 2
    monkeypatch.undo()
    assert capsys.readouterr().err == (
        f"sentspace: error: {out}: not saved: No space left on device\n"
    )
    # Nothing left: no journal, no part of one (the locks are the sessions').
    assert sorted(os.listdir(tmp_path)) == [
        "mine.jsonl",
        "mine.jsonl.lock",
        "theirs.jsonl",
        "theirs.jsonl.lock",
    ]
    assert merge(mine, theirs, out=out) == 0


def test_text_that_is_not_utf8_is_refused_before_it_is_written(corpus, tmp_path):
    from sentspace.app.annotations.edits import EditError

    path = tmp_path / "edits.jsonl"
    # A user name with a byte that is not UTF-8, as Python reads it from the system.
    session = AnnotationSession.open(corpus, path, author="ann\udcff")
    before = path.read_bytes()
    with pytest.raises(EditError, match="not written: the record holds \\\\udcff"):
        session.move(0, "5")
    assert path.read_bytes() == before and not session.pending and not session.edits
    session.close()
