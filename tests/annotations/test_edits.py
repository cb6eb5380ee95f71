"""Edits, the journal, the session and the export, on the bundled MSRP grouped corpus."""

import csv
import json

import numpy as np
import pytest

from sentspace.app.annotations.edits import (
    AddNote,
    EditError,
    EditPair,
    MarkReviewed,
    MergeGroups,
    MoveSentence,
    SplitGroup,
    apply,
    edit_from_dict,
    new_group_name,
)
from sentspace.app.annotations.export import export_corpus, has_grouped_format
from sentspace.app.annotations.journal import EditJournal, journal_path
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import BUILTIN
from sentspace.app.corpora.grouped import load_grouped
from sentspace.app.corpora.sick import load_sick


def membership(corpus):
    """Sentence id -> sorted group names."""
    groups = corpus.groups
    result = {}
    for s, g in zip(groups.sentence_index.tolist(), groups.group_index.tolist()):
        result.setdefault(corpus.ids[s], []).append(groups.names[g])
    return {key: sorted(value) for key, value in result.items()}


def test_move_split_merge_change_only_what_they_say(corpus):
    before = membership(corpus)
    assert before["L1"] == ["0"] and before["L4"] == ["1"]
    moved = apply(corpus, [MoveSentence(sentence="L1", source="0", target="1")])
    after = membership(moved)
    assert after["L1"] == ["1"]
    assert {k: v for k, v in after.items() if k != "L1"} == {
        k: v for k, v in before.items() if k != "L1"
    }
    assert moved.groups.n_groups == 274 and moved.fingerprint != corpus.fingerprint
    assert corpus.groups.names[corpus.groups.labels(859)[0]] == "0"  # original untouched

    fresh = new_group_name(corpus)
    assert fresh == "274"
    split = apply(corpus, [SplitGroup(group="0", members=("L1", "L2"), target=fresh)])
    assert membership(split)["L1"] == membership(split)["L2"] == ["274"]
    assert split.groups.sizes[split.groups.names.index("0")] == 1

    merged = apply(corpus, [MergeGroups(groups=("0", "1"), target="0")])
    assert merged.groups.n_groups == 273 and "1" not in merged.groups.names
    assert merged.groups.sizes[merged.groups.names.index("0")] == 6

    # Emptying a group removes it; moving a sentence back restores the corpus exactly.
    emptied = apply(
        corpus, [MoveSentence(sentence=s, source="0", target="1") for s in ("L1", "L2", "L3")]
    )
    assert "0" not in emptied.groups.names
    there_and_back = apply(
        corpus,
        [
            MoveSentence(sentence="L1", source="0", target="1"),
            MoveSentence(sentence="L1", source="1", target="0"),
        ],
    )
    assert membership(there_and_back) == before


def test_bad_edits_are_rejected_with_reasons(corpus):
    with pytest.raises(EditError, match="edit 2 .*L1 is not in paraphrase group 0"):
        apply(
            corpus,
            [
                MoveSentence(sentence="L1", source="0", target="1"),
                MoveSentence(sentence="L1", source="0", target="2"),
            ],
        )
    with pytest.raises(EditError, match="no sentence has the id 'L9999'"):
        apply(corpus, [MoveSentence(sentence="L9999", source="0", target="1")])
    with pytest.raises(EditError, match="not every sentence"):
        apply(corpus, [SplitGroup(group="0", members=("L4",), target="900")])
    with pytest.raises(EditError, match="no paraphrase group is named 'x'"):
        apply(corpus, [MergeGroups(groups=("0", "x"), target="0")])
    with pytest.raises(EditError, match="no pair"):
        apply(corpus, [EditPair(pair=0, score=1.0)])


def test_pair_edits_and_records_round_trip_through_json(shared_data):
    sick = load_sick(shared_data / "sick")
    edit = EditPair(
        pair=3,
        score=1.5,
        label=0,
        old_score=float(sick.pairs.score[3]),
        old_label=int(sick.pairs.label[3]),
        reason="typo in the score",
    )
    edited = apply(sick, [edit])
    assert edited.pairs.score[3] == 1.5 and edited.pairs.label[3] == 0
    assert np.array_equal(np.delete(edited.pairs.score, 3), np.delete(sick.pairs.score, 3))
    assert sick.pairs.score[3] == 3.4
    for record in (
        edit,
        MoveSentence(sentence="L1", source=None, target="7"),
        SplitGroup(group="0", members=("L1", "L2"), target="9"),
        MarkReviewed(item="group:3"),
        AddNote(item="pair:3", text="héllo"),
    ):
        assert edit_from_dict(json.loads(json.dumps(record.to_dict()))) == record
    assert "score 3.4 -> 1.5" in edit.describe()


def test_session_journals_undo_redo_and_replays_exactly(corpus, tmp_path):
    path = tmp_path / "edits.jsonl"
    session = AnnotationSession.open(corpus, path, author="ann")
    session.move(0, "1", reason="same event as group 1")
    session.move(3)  # into a new group
    session.mark_reviewed("sentence:L5")
    session.note("group:2", "check the dates")
    assert membership(session.corpus)["L4"] == ["274"]
    assert session.undo().op == "note"
    assert session.undo().op == "reviewed"
    assert session.redo().op == "reviewed"
    assert session.can_redo and session.reviewed == {"sentence:L5"} and not session.notes
    state = membership(session.corpus)
    session.close()

    reopened = AnnotationSession.open(corpus, path, author="ann")
    assert membership(reopened.corpus) == state
    assert [e.op for e in reopened.edits] == ["move", "move", "reviewed"]
    assert reopened.can_redo and reopened.redo().op == "note"
    assert reopened.notes == {"group:2": ["check the dates"]}
    reopened.undo(), reopened.undo(), reopened.undo()
    assert membership(reopened.corpus) == {
        "L1": ["1"],
        **{k: v for k, v in membership(corpus).items() if k != "L1"},
    }
    reopened.move(1, "1")  # a new edit clears the redo stack
    assert not reopened.can_redo
    with pytest.raises(EditError):
        reopened.move(1, "2", source="0")  # L2 has left group 0
    assert len(reopened.journal.records) == 12  # the rejected edit was not journaled
    reopened.close()
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["corpus"] == corpus.fingerprint
    assert [json.loads(line)["op"] for line in lines[1:]] == [
        "move",
        "move",
        "reviewed",
        "note",
        "undo",
        "undo",
        "redo",
        "redo",
        "undo",
        "undo",
        "undo",
        "move",
    ]


def test_a_torn_last_line_is_ignored_with_a_warning(corpus, tmp_path):
    path = tmp_path / "edits.jsonl"
    with EditJournal(path, corpus.fingerprint) as journal:
        journal.append(MoveSentence(sentence="L1", source="0", target="1"))
    intact = path.read_bytes()
    with path.open("ab") as handle:
        handle.write(b'{"op": "move", "sentence": "L2", "sou')
    with pytest.warns(UserWarning, match="torn last line"):
        journal = EditJournal(path, corpus.fingerprint)
    assert len(journal.records) == 1 and path.read_bytes() == intact
    journal.append(MoveSentence(sentence="L2", source="0", target="1"))
    journal.close()
    assert len(EditJournal(path, corpus.fingerprint).records) == 2


def test_corrupt_or_foreign_journals_are_refused(corpus, tmp_path):
    path = tmp_path / "edits.jsonl"
    with EditJournal(path, corpus.fingerprint) as journal:
        journal.append(MarkReviewed(item="a"))
        journal.append(MarkReviewed(item="b"))
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0], "garbage", lines[2]]) + "\n")
    with pytest.raises(EditError, match="line 2: not a JSON line"):
        EditJournal(path, corpus.fingerprint)
    path.write_text("\n".join([lines[0], lines[1]]) + "\n")
    with pytest.raises(EditError, match="is for corpus"):
        EditJournal(path, "0123456789abcdef")


def test_journal_location(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("SENTSPACE_DATA_DIR", str(tmp_path))
    assert journal_path(corpus) == tmp_path / "journals" / f"{corpus.fingerprint}.jsonl"
    assert journal_path(corpus, tmp_path / "w" / "study.json") == (
        tmp_path / "w" / f"study.{corpus.fingerprint}.edits.jsonl"
    )


def test_round_trip_move_one_sentence_export_reload(corpus, tmp_path):
    """Load MSRP grouped, move one sentence, export, reload: exactly that change."""
    session = AnnotationSession.open(corpus, tmp_path / "edits.jsonl", author="ann")
    session.move(100, "200", reason="belongs with 200")
    written = session.export(tmp_path / "out")
    assert {p.name for p in written} == {
        "phrases.txt",
        "phrase_groups.csv",
        "corpus.json",
        "sentences.csv",
        "changes.csv",
        "changes.json",
    }
    reloaded = load_grouped(tmp_path / "out")
    assert reloaded.texts == corpus.texts and reloaded.ids == corpus.ids
    before, after = membership(corpus), membership(reloaded)
    changed = {key for key in before if before[key] != after[key]}
    assert changed == {"L101"} and after["L101"] == ["200"] and before["L101"] == ["33"]
    assert reloaded.groups.names == corpus.groups.names
    assert reloaded.fingerprint == session.corpus.fingerprint

    original = BUILTIN["msrp-grouped"]
    exported_csv = (tmp_path / "out" / "phrase_groups.csv").read_text().splitlines()
    original_csv = (original / "phrase_groups.csv").read_text().splitlines()
    assert [i for i, (a, b) in enumerate(zip(exported_csv, original_csv)) if a != b] == [101]
    assert (tmp_path / "out" / "phrases.txt").read_bytes() == (
        original / "phrases.txt"
    ).read_bytes()

    with (tmp_path / "out" / "changes.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert rows == [
        {
            "number": "1",
            "time": session.edits[0].time,
            "author": "ann",
            "op": "move",
            "what": "move L101 from 33 to 200",
            "reason": "belongs with 200",
        }
    ]
    log = json.loads((tmp_path / "out" / "changes.json").read_text())
    assert log[0]["edit"]["sentence"] == "L101"
    data = json.loads((tmp_path / "out" / "corpus.json").read_text())
    assert ["L101", "200"] in data["groups"]["members"] and len(data["sentences"]) == 859


def test_unedited_export_is_byte_identical(corpus, tmp_path):
    assert has_grouped_format(corpus)
    export_corpus(corpus, tmp_path, formats=("original",))
    for name in ("phrases.txt", "phrase_groups.csv"):
        assert (tmp_path / name).read_bytes() == (BUILTIN["msrp-grouped"] / name).read_bytes()
