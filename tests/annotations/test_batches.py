"""Review in batches: grouped MSRP's suspicious lists split among reviewers (stratified by
list, items whole), each batch a workspace that opens with its rows, the reviewers'
decisions brought back into the team's journal with their conflicts, and the CLI."""

import json
from collections import Counter

import numpy as np
import pytest

from sentspace.app.analysis.suspicious import iter_find_suspicious
from sentspace.app.annotations.journal import read_journal
from sentspace.app.annotations.session import AnnotationSession, decisions_of
from sentspace.app.base.errors import InputError
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.app.workspace.batches import (
    INDEX,
    MANIFEST,
    batch_journals,
    bring_back,
    export_batches,
    split_batches,
)
from sentspace.app.workspace.format import open_workspace
from sentspace.app.workspace.restore import restore_session
from sentspace.models import make_encoder


@pytest.fixture(scope="module")
def msrp(grouped):
    return grouped, run_job(iter_find_suspicious(grouped, [make_encoder("bow")]))


def keys_of(lists, batch):
    return [key for keys in batch.keys(lists).values() for key in keys]


def test_batches_are_stratified_by_list_and_hold_whole_items(msrp):
    _, lists = msrp
    assert {kind: len(items) for kind, items in lists.items()} == {
        "misgrouped": 859,
        "split": 274,
        "merge": len(lists["merge"]),
    }
    batches = split_batches(lists, 3)
    for kind, items in lists.items():
        counts = [batch.counts()[kind] for batch in batches]
        assert sum(counts) == len(items) and max(counts) - min(counts) <= 1
        # Dealt in rank order: each batch has its share of the most suspicious rows.
        assert sorted(batch.rows[kind][0] for batch in batches) == [0, 1, 2]
    every = [key for batch in batches for key in keys_of(lists, batch)]
    assert len(every) == len(set(every))  # no item in two batches
    assert [b.person for b in batches] == ["person 1", "person 2", "person 3"]

    # A double review of the 10 first rows of each list: each item to two people.
    double = split_batches(lists, 3, copies=2, top=10, names=["ann", "ben", "cy"])
    seen = Counter(key for batch in double for key in keys_of(lists, batch))
    assert len(seen) == 30 and set(seen.values()) == {2}
    assert [batch.size for batch in double] == [20, 20, 20]
    for args in ((0,), (2, 3), (2, 1, 0)):
        with pytest.raises(InputError):
            split_batches(
                lists,
                *args[:1],
                copies=args[1] if len(args) > 1 else 1,
                top=args[2] if len(args) > 2 else None,
            )
    with pytest.raises(InputError, match="give 2 names"):
        split_batches(lists, 2, names=["ann"])


def test_a_sentence_in_two_rows_stays_in_one_batch(msrp):
    _, lists = msrp
    items = lists["misgrouped"]
    # The same key twice in a list (a sentence listed in two of its groups).
    doubled = items.take([0, 1, 0, 2, 3])
    batches = split_batches({"misgrouped": doubled}, 2)
    assert [batch.rows["misgrouped"] for batch in batches] == [(0, 2, 3), (1, 4)]


def test_take_keeps_each_list_row_for_row(msrp):
    _, lists = msrp
    for items in lists.values():
        rows = [5, 0, 3]
        part = items.take(rows)
        assert len(part) == 3 and [part.key(r) for r in range(3)] == [items.key(r) for r in rows]
        assert [part.why(r) for r in range(3)] == [items.why(r) for r in rows]
        for (header, values), (_, whole) in zip(part.columns(), items.columns()):
            assert list(values) == [whole[r] for r in rows], header
    spread = lists["split"].take([1])
    assert np.array_equal(spread.corpus_cosine, lists["split"].corpus_cosine)


def test_batches_open_as_workspaces_and_come_back_with_their_conflicts(msrp, tmp_path):
    corpus, lists = msrp
    team = AnnotationSession.open(corpus, tmp_path / "team.jsonl", author="lead")
    team.move(100, "3", reason="before the batches")
    top = lists["misgrouped"]
    batches = split_batches(lists, 2, copies=2, top=4, names=["Ann Lee", "ben"])
    out = tmp_path / "batches"
    written = export_batches(
        "msrp-grouped", corpus, lists, batches, out, records=team.journal.records, named=True
    )
    assert [path.parent.name for path in written] == ["batch-1-ann-lee", "batch-2-ben"]
    index = json.loads((out / INDEX).read_text())
    assert [entry["person"] for entry in index["batches"]] == ["Ann Lee", "ben"]
    manifest = json.loads((written[0].parent / MANIFEST).read_text())
    assert manifest["items"]["misgrouped"] == [top.key(r) for r in range(4)]
    with pytest.raises(InputError, match="holds review batches already"):
        export_batches("msrp-grouped", corpus, lists, batches, out, named=True)

    # Each reviewer opens their workspace: their rows, the team's edit, their journal.
    sessions = []
    for batch, path in zip(batches, written):
        workspace, changes = open_workspace(path)
        assert changes == []
        state = run_job(restore_session(workspace, path)).current
        assert {kind: len(items) for kind, items in state.review_lists.items()} == batch.counts()
        assert state.annotations.journal.path.parent == path.parent
        assert state.annotations.group_names_of(100) == ["3"]
        state.annotations.author = batch.person
        sessions.append(state.annotations)
    ann, ben = sessions
    sentence = int(top.sentence[0])
    ann.move(sentence, "5", reason="ann's view")
    ben.move(sentence, "7", reason="ben's view")
    ben.mark_reviewed(top.key(1))

    assert batch_journals([out]) == [ann.journal.path, ben.journal.path]
    assert batch_journals([written[1].parent]) == [ben.journal.path]
    assert batch_journals([written[0]]) == [ann.journal.path]
    changes = bring_back(team, [out])
    assert changes.authors == ["Ann Lee", "ben"] and len(changes.conflicts) == 1
    [conflict] = team.conflicts
    assert [d.author for d in decisions_of(conflict)] == ["Ann Lee", "ben"]
    assert not bring_back(team, [out])  # nothing new the second time
    team.resolve(conflict, decisions_of(conflict)[0], "the lead agrees with Ann")
    assert team.conflicts == [] and team.group_names_of(sentence) == ["5"]
    records = read_journal(team.journal.path)[1]
    assert [r.op for r in records] == ["move", "move", "move", "reviewed", "resolve"]


def test_cli_batches_and_merge_of_their_folder(msrp, tmp_path, capsys):
    corpus, _ = msrp
    out = tmp_path / "out"
    batches = ["annotations", "batches", "msrp-grouped", "--encoder", "bow", "--people", "2"]
    assert main([*batches, "--top", "3", "--names", "ann,ben", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    rows = [line.split() for line in printed.splitlines()]
    # Dealt on from list to list: ann has 2 + 1 + 2 rows, ben 1 + 2 + 1.
    assert ["1", "ann", "2", "1", "2", str(out / "batch-1-ann" / "batch-1.sentspace")] in rows
    assert ["2", "ben", "1", "2", "1", str(out / "batch-2-ben" / "batch-2.sentspace")] in rows
    journals = batch_journals([out])
    for number, journal in enumerate(journals):
        session = AnnotationSession.open(corpus, journal, author=["ann", "ben"][number])
        session.move(0, str(10 + number))
        session.close()
    merged = tmp_path / "team.jsonl"
    assert main(["annotations", "merge", str(out), "--out", str(merged)]) == 0
    printed = capsys.readouterr().out
    assert "2 records" in printed and "conflicts: 1" in printed
    assert "ben's move L1 from 0 to 11" in printed
    assert main(["annotations", "agreement", str(out)]) == 0
    assert "group decisions: Cohen's kappa" in capsys.readouterr().out
    # Again into the same folder: refused, nothing overwritten.
    assert main([*batches, "--out", str(out)]) == 2
    assert "holds review batches already" in capsys.readouterr().err
    # From a workspace's saved lists.
    workspace = out / "batch-1-ann" / "batch-1.sentspace"
    assert (
        main(
            [
                "annotations",
                "batches",
                str(workspace),
                "--people",
                "3",
                "--out",
                str(tmp_path / "again"),
            ]
        )
        == 0
    )
    assert "misgrouped" in capsys.readouterr().out
    assert len(batch_journals([tmp_path / "again"])) == 3
