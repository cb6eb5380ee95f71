"""Every journal record is checked against its schema (field types, ops) when read, and
against the corpus (sentences and pairs it has, its labels, its score range) when it is
applied or replayed: a wrong value is one error naming the file, line and field (CLI
exit 2, the window's dialog), an impossible one is refused or skipped, never applied."""

import csv
import json

import pytest

from sentspace.app.annotations.agreement import agreement
from sentspace.app.annotations.edits import EditError, EditPair, MarkReviewed, apply
from sentspace.app.annotations.history import History
from sentspace.app.annotations.journal import merge_journals, read_journal
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus


@pytest.fixture(scope="module")
def sick(shared_data):
    return load_corpus(str(shared_data / "sick"))


def journal_lines(corpus, path, edit):
    """The lines of a real journal of ``corpus`` holding one edit made by ``edit``."""
    session = AnnotationSession.open(corpus, path, author="ann")
    edit(session)
    session.close()
    return path.read_text().splitlines()


def with_record(path, lines, **changes):
    """The journal ``lines`` with the first record's fields changed (None: removed)."""
    record = json.loads(lines[1])
    record.update(changes)
    path.write_text("\n".join([lines[0], json.dumps(record), *lines[2:]]) + "\n")
    return path


@pytest.mark.parametrize(
    "field, value, problem",
    [
        ("target", ["1", "2"], "target: should be a string, found ['1', '2']"),
        ("sentence", 7, "sentence: should be a string, found 7"),
        ("time", 1764000000, "time: should be a string, found 1764000000"),
        ("author", None, "author: should be a string, found None"),
        ("op", "teleport", "op: unknown edit 'teleport'"),
        ("members", ["L1"], "unknown field 'members'"),
    ],
)
def test_a_move_with_a_wrong_field_is_an_error_naming_file_line_and_field(
    corpus, tmp_path, field, value, problem
):
    lines = journal_lines(corpus, tmp_path / "good.jsonl", lambda s: s.move(0, "1"))
    bad = with_record(tmp_path / "bad.jsonl", lines, **{field: value})
    with pytest.raises(EditError) as caught:
        read_journal(bad)
    assert str(caught.value).startswith(f"{bad}, line 2: ")
    assert problem in str(caught.value)
    # The window opens journals through the session and shows an EditError in a dialog.
    with pytest.raises(EditError, match="line 2"):
        AnnotationSession.open(corpus, bad)


@pytest.mark.parametrize(
    "changes, problem",
    [
        ({"score": "high"}, "score: should be a number or null, found 'high'"),
        ({"pair": "3"}, "pair: should be an integer, found '3'"),
        ({"pair": True}, "pair: should be an integer, found True"),
        ({"label": 1.5}, "label: should be an integer or null, found 1.5"),
        ({"score": float("nan")}, "score: should be a finite number, found nan"),
        ({"label_names": "CONTRADICTION"}, "label_names: should be a list"),
    ],
)
def test_pair_edits_of_the_wrong_type_exit_2_in_merge_and_agreement(
    sick, shared_data, tmp_path, capsys, changes, problem
):
    lines = journal_lines(
        sick, tmp_path / "good.jsonl", lambda s: s.edit_pair(3, score=4.0, label=2)
    )
    bad = with_record(tmp_path / "bad.jsonl", lines, **changes)
    for command in (
        ["merge", str(bad), "--out", str(tmp_path / "merged.jsonl")],
        ["agreement", str(bad)],
    ):
        assert main(["annotations", *command, "--corpus", str(shared_data / "sick")]) == 2
        error = capsys.readouterr().err
        assert error.startswith(f"sentspace: error: {bad}, line 2: malformed pair edit: ")
        assert problem in error and error.count("\n") == 1
    assert not (tmp_path / "merged.jsonl").exists()


def test_an_undo_naming_no_string_is_an_error(corpus, tmp_path):
    def edit_and_undo(session):
        session.move(0, "1")
        session.undo()

    lines = journal_lines(corpus, tmp_path / "good.jsonl", edit_and_undo)
    undo = json.loads(lines[2])
    for changes, problem in (
        ({"edit": ["x"]}, "edit: should be a string"),
        ({"author": 3}, "author: should be a string, found 3"),
        ({"id": {"a": 1}}, "id: should be a string"),
        ({"when": "now"}, "unknown field 'when'"),
    ):
        path = tmp_path / "bad.jsonl"
        path.write_text("\n".join([lines[0], lines[1], json.dumps({**undo, **changes})]) + "\n")
        with pytest.raises(EditError, match=f"line 3: .*{problem}"):
            read_journal(path)


def test_a_label_the_corpus_does_not_have_is_never_applied_nor_exported(
    sick, shared_data, tmp_path, capsys
):
    """A SICK journal line with label 99 used to be applied and exported as 99."""
    lines = journal_lines(sick, tmp_path / "good.jsonl", lambda s: s.edit_pair(3, label=2))
    bad = with_record(tmp_path / "bad.jsonl", lines, label=99, id="label99")
    records = read_journal(bad, sick.fingerprint)[1]
    history = History(sick)
    history.feed(records)
    assert history.corpus.pairs.label[3] == sick.pairs.label[3]
    [conflict] = history.conflicts
    assert not conflict.applied
    assert conflict.problem == (
        "label 99 is not a label of this corpus (0 CONTRADICTION, 1 NEUTRAL, 2 ENTAILMENT)"
    )
    # The window's session shows it as skipped, and its export keeps SICK's label.
    session = AnnotationSession.open(sick, bad, author="ben")
    session.export(tmp_path / "export", formats=("csv",))
    session.close()
    with (tmp_path / "export" / "pairs.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {row["label"] for row in rows} == {"CONTRADICTION", "NEUTRAL", "ENTAILMENT"}
    assert rows[3]["label"] == sick.pairs.label_text(int(sick.pairs.label[3]))
    # merge lists it; agreement counts no decision for it.
    assert (
        main(
            [
                "annotations",
                "merge",
                str(bad),
                "--out",
                str(tmp_path / "m.jsonl"),
                "--corpus",
                str(shared_data / "sick"),
            ]
        )
        == 0
    )
    assert "label 99 is not a label of this corpus" in capsys.readouterr().out
    other = with_record(tmp_path / "other.jsonl", lines, label=1, author="ben", id="b")
    kinds = agreement(sick, merge_journals([bad, other], sick.fingerprint)[1]).kinds
    assert all("pair:3" not in kind.decisions for kind in kinds)


def test_values_outside_the_corpus_are_refused_when_edited(sick, corpus, tmp_path):
    with pytest.raises(EditError, match="label 99 is not a label of this corpus"):
        apply(sick, [EditPair(pair=3, label=99)])
    with pytest.raises(EditError, match=r"score 7 is outside this corpus's scores \(1 to 5\)"):
        apply(sick, [EditPair(pair=3, score=7.0)])
    with pytest.raises(EditError, match="no pair 9927"):
        apply(sick, [EditPair(pair=len(sick.pairs), score=3.0)])
    with pytest.raises(EditError, match="no sentence has the id 'L99999'"):
        apply(corpus, [MarkReviewed(item="sentence:L99999")])
    session = AnnotationSession.open(sick, tmp_path / "edits.jsonl", author="ann")
    with pytest.raises(EditError, match="outside this corpus's scores"):
        session.edit_pair(0, score=5.5)
    with pytest.raises(EditError, match="no pair 20000"):
        session.mark_reviewed("pair:20000")
    session.edit_pair(0, score=5.0, label=0)  # the ends of the range and the labels fit
    session.close()
    assert [record.op for record in read_journal(tmp_path / "edits.jsonl")[1]] == ["pair"]
