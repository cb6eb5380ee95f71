"""Resolving conflicts: a journaled decision, with its author and reason, of which of two
competing edits stands; replayed, undone and redone like any edit, seen by every writer
(two real processes), and gone from the conflicts once made."""

import json

import pytest

from sentspace.app.annotations.agreement import agreement
from sentspace.app.annotations.edits import EditError, ResolveConflict
from sentspace.app.annotations.journal import read_journal
from sentspace.app.annotations.session import (
    AnnotationSession,
    conflict_items,
    decisions_of,
    same_conflict,
)
from sentspace.app.corpora import load_corpus
from tests.annotations.conftest import Writer, reopened


def two_moves(corpus, journal):
    """ann moves L1 from 0 to 5; ben, who had not seen it, moves it from 0 to 7."""
    ann = AnnotationSession.open(corpus, journal, author="ann")
    ben = AnnotationSession.open(corpus, journal, author="ben")
    ann.move(0, "5", reason="about the same event")
    ben.move(0, "7", source="0", reason="same company")
    ann.refresh()
    return ann, ben


def test_a_resolution_keeps_one_move_and_is_journaled_with_its_reason(corpus, tmp_path):
    journal = tmp_path / "edits.jsonl"
    ann, ben = two_moves(corpus, journal)
    [conflict] = ann.conflicts
    first, second = decisions_of(conflict)
    assert (first.author, second.author) == ("ann", "ben")
    assert conflict_items(conflict) == ("sentence:L1",)
    assert ann.group_names_of(0) == ["7"]  # the later edit is in effect
    with pytest.raises(EditError, match="needs a reason"):
        ann.resolve(conflict, first, "  ")
    resolution = ann.resolve(conflict, first, "the event, not the company")
    assert ann.conflicts == [] and ann.group_names_of(0) == ["5"]
    assert [e.describe() for e in ann.edits] == [
        "move L1 from 0 to 5",
        (
            "resolve the conflict on sentence:L1: ann's move L1 from 0 to 5 stands over ben's "
            "move L1 from 0 to 7"
        ),
    ]
    last = json.loads(journal.read_text().splitlines()[-1])
    assert last["op"] == "resolve" and last["author"] == "ann"
    assert last["reason"] == "the event, not the company"
    assert set(last["settles"]) == {first.id, second.id} and last["stands"] == first.id
    assert ann.history.overruled == {second.id: resolution.id}
    # The other writer sees it; ben's own undo no longer finds the overruled move.
    changes = ben.refresh()
    assert [r.op for r in changes.records] == ["move", "resolve"]
    assert ben.group_names_of(0) == ["5"] and ben.conflicts == [] and not ben.can_undo
    final = reopened(corpus, journal)
    assert final.corpus.fingerprint == ann.corpus.fingerprint == ben.corpus.fingerprint
    assert final.conflicts == []
    # The decisions as each made them: resolving changes no one's agreement.
    _, records = read_journal(journal)
    group = next(k for k in agreement(corpus, records).kinds if k.kind == "group")
    assert group.decisions == {"sentence:L1": {"ann": "5", "ben": "7"}}


def test_undoing_a_resolution_brings_the_conflict_back_and_redo_settles_it(corpus, tmp_path):
    journal = tmp_path / "edits.jsonl"
    ann, ben = two_moves(corpus, journal)
    [conflict] = ann.conflicts
    ben.refresh()
    # ben lets ann's move stand... no: ben keeps his own, and says why.
    ben.resolve(ben.conflicts[0], decisions_of(ben.conflicts[0])[1], "same company")
    assert ben.group_names_of(0) == ["7"] and ben.conflicts == []
    # ann's move is overruled: her undo has nothing to take back.
    ann.refresh()
    assert ann.group_names_of(0) == ["7"] and not ann.can_undo
    undone = ben.undo()
    assert isinstance(undone, ResolveConflict)
    assert [c.describe() for c in ben.conflicts] == [c.describe() for c in [conflict]]
    assert ben.group_names_of(0) == ["7"]
    changes = ann.refresh()  # the conflict is back, and said to be
    assert [c.describe() for c in changes.conflicts] == [conflict.describe()]
    assert ann.group_names_of(0) == ["7"] and ann.can_undo
    assert ben.redo() == undone and ben.conflicts == []
    ann.refresh()
    assert ann.conflicts == [] and not ann.can_undo
    assert reopened(corpus, journal).corpus.fingerprint == ben.corpus.fingerprint
    ops = [json.loads(line)["op"] for line in journal.read_text().splitlines()[1:]]
    assert ops == ["move", "move", "resolve", "undo", "redo"]


def test_a_conflict_resolved_meanwhile_is_refused_with_who_did(corpus, tmp_path):
    journal = tmp_path / "edits.jsonl"
    ann, ben = two_moves(corpus, journal)
    ben.refresh()
    mine, theirs = ann.conflicts[0], ben.conflicts[0]
    assert same_conflict(mine, theirs) and mine is not theirs
    ann.resolve(mine, None, "neither: L1 belongs where it was")
    assert ann.group_names_of(0) == ["0"]
    with pytest.raises(EditError, match="resolved meanwhile by ann"):
        ben.resolve(theirs, decisions_of(theirs)[1], "mine")
    assert [r.op for r in read_journal(journal)[1]] == ["move", "move", "resolve"]
    with pytest.raises(EditError, match="not a decision of this conflict"):
        ann.resolve(mine, ann.edits[0], "a resolution is no decision of it")


def test_a_pair_rescored_twice_is_resolved(shared_data, tmp_path):
    sick = load_corpus(str(shared_data / "sick"))
    journal = tmp_path / "edits.jsonl"
    ann = AnnotationSession.open(sick, journal, author="ann")
    ben = AnnotationSession.open(sick, journal, author="ben")
    ben.refresh()
    ann.edit_pair(0, score=1.0)
    ben.edit_pair(0, score=2.0)
    [conflict] = ben.conflicts
    assert conflict_items(conflict) == ("pair:0",)
    ben.resolve(conflict, decisions_of(conflict)[0], "ann read the guideline right")
    assert ben.corpus.pairs.score[0] == 1.0 and ben.conflicts == []
    ann.refresh()
    assert ann.corpus.pairs.score[0] == 1.0
    assert reopened(sick, journal).corpus.pairs.score[0] == 1.0


def test_records_taken_in_once(corpus, tmp_path):
    """Another person's journal brought into this one: appended once, by id, with its
    conflicts listed."""
    ours, theirs = tmp_path / "ours.jsonl", tmp_path / "theirs.jsonl"
    ann = AnnotationSession.open(corpus, ours, author="ann")
    ben = AnnotationSession.open(corpus, theirs, author="ben")
    ann.move(0, "5")
    ben.move(0, "7"), ben.move(1, "7")
    records = read_journal(theirs)[1]
    changes = ann.take_in(records)
    assert changes.authors == ["ben"] and len(changes.conflicts) == 1
    assert not ann.take_in(records)  # nothing new the second time
    assert len(read_journal(ours)[1]) == 3 and len(ann.conflicts) == 1


#: A writer driven line by line on stdin (as tests/annotations/test_team.py's), which
#: also resolves: "resolve N WHO REASON..." settles its N-th conflict, WHO being
#: "first" (the earlier decision), "second" or "neither".
WRITER = """
import json, sys
from sentspace.app.annotations.edits import EditError
from sentspace.app.annotations.session import AnnotationSession, decisions_of
from sentspace.app.corpora import load_corpus
corpus = load_corpus(sys.argv[1])
session = AnnotationSession.open(corpus, sys.argv[2], author=sys.argv[3])
for line in sys.stdin:
    command, *args = line.split()
    try:
        if command == "move":
            reply = session.move(int(args[0]), args[1]).id
        elif command == "resolve":
            conflict = session.conflicts[int(args[0])]
            choices = {"first": 0, "second": 1}
            stands = (decisions_of(conflict)[choices[args[1]]] if args[1] in choices
                      else None)
            reply = session.resolve(conflict, stands, " ".join(args[2:])).id
        elif command in ("undo", "redo"):
            reply = getattr(session, command)().id
        else:
            reply = session.refresh().authors
    except EditError as error:
        reply = "refused: " + error.problem
    print(json.dumps({
        "reply": reply, "fingerprint": session.corpus.fingerprint,
        "groups": [session.group_names_of(i) for i in range(3)],
        "conflicts": [c.describe() for c in session.conflicts]}), flush=True)
"""


def test_two_processes_resolve_and_decide_and_end_seeing_the_same(corpus, tmp_path):
    journal = tmp_path / "edits.jsonl"
    ann, ben = Writer(WRITER, journal, "ann"), Writer(WRITER, journal, "ben")
    ann("refresh"), ben("refresh")
    ann("move 0 5")
    ben("move 0 7")  # ben had not seen ann's move: a conflict on L1
    ben("move 1 8")
    conflicts = ann("move 1 9")["conflicts"]  # nor ann ben's: one on L2
    assert conflicts == [
        (
            "ben's move L1 from 0 to 7: L1 was in 0 and is now in 5 (after ann's move L1 from "
            "0 to 5); applied anyway"
        ),
        (
            "ann's move L2 from 0 to 9: L2 was in 0 and is now in 8 (after ben's move L2 from "
            "0 to 8); applied anyway"
        ),
    ]
    assert ben("refresh")["conflicts"] == conflicts
    # Both resolve the conflict on L1 at once: the first to take the lock wins, the
    # other is refused and says who resolved it.
    won = ann("resolve 0 first L1 is about the event")
    lost = ben("resolve 0 second L1 is about the company")
    assert won["groups"][0] == ["5"] and won["conflicts"] == conflicts[1:]
    assert lost["reply"] == (
        "refused: resolved meanwhile by ann (ann's move L1 from 0 to 5 "
        "stands over ben's move L1 from 0 to 7)"
    )
    # ben resolves the other one his way; ann takes her resolution back (her move of
    # L2 is overruled: the resolution is her latest edit in effect), then moves L1
    # anew, from where she now sees it.
    settled = ben("resolve 0 first L2 is about the company")
    assert settled["groups"][:2] == [["5"], ["8"]] and settled["conflicts"] == []
    back = ann("undo")
    assert back["groups"][:2] == [["7"], ["8"]] and back["conflicts"] == conflicts[:1]
    seen = [ann("move 0 12"), ben("refresh"), ann("refresh")]
    ann.close(), ben.close()
    final = reopened(corpus, journal)
    assert [final.group_names_of(i) for i in range(2)] == [["12"], ["8"]]
    for state in seen:
        assert state["fingerprint"] == final.corpus.fingerprint
        assert state["conflicts"] == [c.describe() for c in final.conflicts] == conflicts[:1]
    ops = [(r.author, r.op) for r in read_journal(journal)[1]]
    assert ops == [
        ("ann", "move"),
        ("ben", "move"),
        ("ben", "move"),
        ("ann", "move"),
        ("ann", "resolve"),
        ("ben", "resolve"),
        ("ann", "undo"),
        ("ann", "move"),
    ]


def test_a_sentence_marked_reviewed_where_another_writer_had_moved_it_is_a_conflict(
    corpus, tmp_path
):
    """ann moves L1 from 0 to 5; ben, who had not seen it, marks L1 reviewed in group 0:
    his mark affirms a group L1 has left, which is a conflict; kept, the mark puts L1
    back. A mark on what the reviewer saw is none."""
    journal = tmp_path / "edits.jsonl"
    ann = AnnotationSession.open(corpus, journal, author="ann")
    ben = AnnotationSession.open(corpus, journal, author="ben")
    ann.move(0, "5", reason="about the same event")
    mark = ben.mark_reviewed("sentence:L1")
    assert mark.group == "0"
    [conflict] = ben.conflicts
    assert conflict.problem == "L1 was in 0 when reviewed and is now in 5"
    assert conflict.applied and conflict.against.author == "ann"
    assert decisions_of(conflict) == [conflict.against, mark]
    ben.resolve(conflict, mark, "the company, as annotated")
    assert ben.conflicts == [] and ben.group_names_of(0) == ["0"]

    ben.mark_reviewed("sentence:L2")  # seen as it is: no conflict
    assert ben.conflicts == []
    ann.refresh()
    assert ann.group_names_of(0) == ["0"] and ann.conflicts == []
