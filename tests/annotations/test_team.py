"""Several writers on one journal, in real processes, on the bundled MSRP grouped corpus:
the interleaving of issue 25, undo/redo across writers, a writer killed with SIGKILL,
and reopening. Every session must end up seeing what a fresh open of the journal gives."""

import json
import os
import signal
import subprocess
import sys

import pytest

from sentspace.app.annotations.history import History
from sentspace.app.annotations.journal import EditJournal, legacy_id, merge_journals, read_journal
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus
from tests.annotations.conftest import ROOT, Writer, reopened

#: A writer driven line by line on stdin, so the test sets the exact interleaving; it
#: answers each command with the edit's id and what its session sees.
WRITER = """
import json, sys
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus
corpus = load_corpus(sys.argv[1])
session = AnnotationSession.open(corpus, sys.argv[2], author=sys.argv[3])
for line in sys.stdin:
    command, *args = line.split()
    if command == "move":
        reply = session.move(int(args[0]), args[1]).id
    elif command == "score":
        reply = session.edit_pair(int(args[0]), score=float(args[1])).id
    elif command in ("undo", "redo"):
        reply = getattr(session, command)().id
    else:
        changes = session.refresh()
        reply = {"authors": changes.authors, "ops": [r.op for r in changes.records]}
    groups = session.corpus.groups
    print(json.dumps({
        "reply": reply, "fingerprint": session.corpus.fingerprint,
        "groups": [session.group_names_of(i) for i in range(3)] if groups else [],
        "scores": session.corpus.pairs.score[:3].tolist() if session.corpus.pairs else [],
        "conflicts": [c.describe() for c in session.conflicts]}), flush=True)
"""


def test_the_interleaving_of_issue_25(corpus, tmp_path):
    journal = tmp_path / "edits.jsonl"
    names = corpus.groups.names
    a, b = Writer(WRITER, journal, "A"), Writer(WRITER, journal, "B")
    a("refresh"), b("refresh")  # both open before anyone edits
    moved = a(f"move 0 {names[5]}")["reply"]
    assert b(f"move 1 {names[7]}")["groups"][:2] == [["5"], ["7"]]  # B read A's move
    undo = a("undo")
    assert undo["reply"] == moved  # A's own move, not B's
    seen = [a("refresh"), b("refresh")]
    a.close(), b.close()
    assert seen[0]["reply"] == {"authors": ["B"], "ops": ["move"]}
    # B read A's move while journaling its own; its first refresh still reports it.
    assert seen[1]["reply"] == {"authors": ["A"], "ops": ["move", "undo"]}
    final = reopened(corpus, journal)
    for state in (undo, *seen):
        assert state["groups"][:2] == [["0"], ["7"]]
        assert state["fingerprint"] == final.corpus.fingerprint
        assert state["conflicts"] == []
    assert [(e.author, e.describe()) for e in final.edits] == [("B", "move L2 from 0 to 7")]
    assert json.loads(journal.read_text().splitlines()[-1]) | {"time": "", "id": ""} == {
        "op": "undo",
        "edit": moved,
        "author": "A",
        "time": "",
        "id": "",
    }


def test_undo_and_redo_across_writers_with_a_conflict(corpus, tmp_path):
    journal = tmp_path / "edits.jsonl"
    a, b = Writer(WRITER, journal, "A"), Writer(WRITER, journal, "B")
    b("refresh")  # B shows L1 in group 0 ...
    a("move 0 5")
    # ... and moves it to 7 without having seen A's move: journaled, applied, listed.
    conflict = (
        "B's move L1 from 0 to 7: L1 was in 0 and is now in 5 (after A's move L1 "
        "from 0 to 5); applied anyway"
    )
    assert b("move 0 7")["conflicts"] == [conflict]
    undone = a("undo")  # A takes back its own move; B's now fits: no conflict
    assert undone["groups"][0] == ["7"] and undone["conflicts"] == []
    redone = a("redo")  # A's move again, onto L1 in 7: the later edit wins, listed
    assert redone["groups"][0] == ["5"]
    assert redone["conflicts"] == [
        "A's move L1 from 0 to 5: L1 was in 0 and is now in 7 (after B's move L1 from 0 "
        "to 7); applied anyway"
    ]
    last = b("undo")  # B's own move, although A's is later
    seen = [a("refresh"), last]
    a.close(), b.close()
    final = reopened(corpus, journal)
    assert [e.author for e in final.edits] == ["A"] and final.group_names_of(0) == ["5"]
    for state in seen:
        assert state["groups"][0] == ["5"] and state["conflicts"] == []
        assert state["fingerprint"] == final.corpus.fingerprint
    ops = [json.loads(line)["op"] for line in journal.read_text().splitlines()[1:]]
    assert ops == ["move", "move", "undo", "redo", "undo"]


def test_a_pair_rescored_twice_concurrently(shared_data, tmp_path):
    sick = str(shared_data / "sick")
    journal = tmp_path / "edits.jsonl"
    a, b = Writer(WRITER, journal, "A", sick), Writer(WRITER, journal, "B", sick)
    assert b("refresh")["scores"][0] == 4.5
    a("score 0 1.0")
    scored = b("score 0 2.0")  # B saw 4.5, A had made it 1.0
    assert scored["scores"][0] == 2.0
    assert scored["conflicts"] == [
        "B's pair 1: score 4.5 -> 2.0: score was 4.5, is 1.0 (after A's pair 1: score "
        "4.5 -> 1.0); applied anyway"
    ]
    assert a("refresh")["conflicts"] == scored["conflicts"]
    a.close(), b.close()
    final = reopened(load_corpus(sick), journal)
    assert final.corpus.pairs.score[0] == 2.0 and len(final.conflicts) == 1


#: Once the file ``go`` exists, writes ``count`` moves from sentence ``start`` on, each
#: into the next group; with "undo", takes each back at once. Prints every edit and undo
#: after it returned; then waits for a line on stdin, refreshes and prints what it sees.
LOOP = """
import os, sys, time
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus
_, journal, go, author, start, count, undo = sys.argv
session = AnnotationSession.open(load_corpus("msrp-grouped"), journal, author=author)
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.01)
for i in range(int(start), int(start) + int(count)):
    edit = session.move(i, str(int(session.group_names_of(i)[0]) + 1))
    print("did", edit.id, flush=True)
    if undo == "undo":
        print("undid", session.undo().id, flush=True)
sys.stdin.readline()
session.refresh()
print("sees", session.corpus.fingerprint, len(session.edits), flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_writer_killed_mid_stream_loses_and_resurrects_nothing(corpus, tmp_path):
    journal = tmp_path / "edits.jsonl"
    EditJournal(journal, corpus.fingerprint).close()
    go_survivor, go_killed = tmp_path / "go-survivor", tmp_path / "go-killed"
    killed = subprocess.Popen(
        [sys.executable, "-c", LOOP, str(journal), str(go_killed), "K", "0", "300", "undo"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    survivor = subprocess.Popen(
        [sys.executable, "-c", LOOP, str(journal), str(go_survivor), "S", "400", "300", "keep"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert killed.stdout.readline() == survivor.stdout.readline() == "ready\n"
    go_survivor.touch()
    first = survivor.stdout.readline().split()
    go_killed.touch()  # while the survivor writes
    reported = []
    for line in killed.stdout:
        reported.append(line.split())
        if len(reported) == 60:
            os.kill(killed.pid, signal.SIGKILL)
            break
    killed.wait(timeout=60)
    assert killed.returncode == -signal.SIGKILL
    out, _ = survivor.communicate("go\n", timeout=120)
    assert survivor.returncode == 0
    *kept, sees = [first, *(line.split() for line in out.splitlines())]

    lines = journal.read_bytes().split(b"\n")
    assert lines[-1] == b""  # no partial record
    records = [json.loads(line) for line in lines[1:-1]]
    assert len({r["id"] for r in records}) == len(records)
    authors = [r["author"] for r in records]
    assert authors.count("S") == 300 and authors.count("K") >= 60
    # The two wrote at the same time: their records interleave.
    assert authors.index("S") < len(authors) - 1 - authors[::-1].index("K")

    final = reopened(corpus, journal)
    assert not final.journal.warnings and not final.conflicts
    assert sees == ["sees", final.corpus.fingerprint, str(len(final.edits))]
    in_effect = {edit.id for edit in final.edits}
    assert {edit_id for _, edit_id in kept} <= in_effect
    assert not {edit_id for what, edit_id in reported if what == "undid"} & in_effect
    # At most the killed writer's last move, made but not yet undone, is in effect.
    assert len(final.edits) - 300 <= 1
    labels, original = final.corpus.groups.labels(len(corpus)), corpus.groups.labels(len(corpus))
    names, before = final.corpus.groups.names, corpus.groups.names
    for i in range(400, 700):
        assert int(names[labels[i]]) == int(before[original[i]]) + 1


def test_refresh_cuts_a_dead_writers_torn_line(corpus, tmp_path):
    journal = tmp_path / "edits.jsonl"
    a = AnnotationSession.open(corpus, journal, author="A")
    b = AnnotationSession.open(corpus, journal, author="B")
    a.move(0, "5")
    intact = journal.read_bytes()
    with journal.open("ab") as handle:
        handle.write(b'{"op": "move", "sentence": "L2", "sou')
    with pytest.warns(UserWarning, match="torn last line"):
        b.move(1, "7")
    assert journal.read_bytes().startswith(intact) and len(a.refresh().records) == 1
    assert (
        a.corpus.fingerprint == b.corpus.fingerprint == reopened(corpus, journal).corpus.fingerprint
    )


def test_journals_written_before_ids_replay_with_stable_ids(corpus, tmp_path):
    journal = tmp_path / "edits.jsonl"
    old = [
        {
            "format": "sentspace-edit-journal",
            "version": 1,
            "corpus": corpus.fingerprint,
            "created": "2026-01-01T00:00:00+00:00",
        },
        {
            "op": "move",
            "author": "ann",
            "time": "t",
            "reason": "",
            "sentence": "L1",
            "source": "0",
            "target": "1",
        },
        {
            "op": "move",
            "author": "ann",
            "time": "t",
            "reason": "",
            "sentence": "L2",
            "source": "0",
            "target": "1",
        },
        {"op": "undo", "author": "ann", "time": "t"},
    ]
    journal.write_text("".join(json.dumps(line) + "\n" for line in old))
    session = AnnotationSession.open(corpus, journal, author="ann")
    first, second = read_journal(journal)[1][:2]
    assert first.id == legacy_id(2, json.dumps(old[1]).encode())
    assert session.edits == [first] and session.can_redo  # the undo was of L2's move
    assert session.redo() == second
    assert [e.id for e in reopened(corpus, journal).edits] == [first.id, second.id]


def test_merge_keeps_every_record_once_and_lists_conflicts(corpus, tmp_path):
    """Two people start from one journal, each edits their own copy; the merge holds
    the shared start once, both people's edits, and their conflict."""
    shared = tmp_path / "shared.jsonl"
    start = AnnotationSession.open(corpus, shared, author="A")
    start.move(2, "9")
    start.close()
    mine, theirs = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    mine.write_bytes(shared.read_bytes()), theirs.write_bytes(shared.read_bytes())
    a = AnnotationSession.open(corpus, mine, author="A")
    b = AnnotationSession.open(corpus, theirs, author="B")
    a.move(0, "5"), b.move(0, "7"), b.move(1, "7")
    fingerprint, records = merge_journals([mine, theirs])
    assert fingerprint == corpus.fingerprint
    ids = [r.id for r in records]
    assert len(ids) == len(set(ids)) == 4
    assert set(ids) == {r.id for r in a.journal.records} | {r.id for r in b.journal.records}
    history = History(corpus)
    history.feed(records)
    assert [c.describe() for c in history.conflicts] == [
        "B's move L1 from 0 to 7: L1 was in 0 and is now in 5 (after A's move L1 from 0 "
        "to 5); applied anyway"
    ]
