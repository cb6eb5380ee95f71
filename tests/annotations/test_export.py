"""Exports carry the dataset's ids and label words, and get the user's file mode."""

import csv
import json
import os

import pytest

from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.corpora import load_corpus


@pytest.fixture(scope="module")
def sick(shared_data):
    return load_corpus(shared_data / "sick")


def test_sick_export_writes_pair_ids_label_names_and_the_reason(sick, tmp_path):
    session = AnnotationSession.open(sick, tmp_path / "journal.jsonl")
    # Internal pair 6321 is SICK's pair_ID 2617 (the test file follows train and trial).
    assert sick.pairs.ids[6321] == "2617"
    session.edit_pair(6321, label=2, reason="both say the same")
    written = session.export(tmp_path / "out", formats=("csv", "json"))
    session.close()
    assert {path.name for path in written} >= {"pairs.csv", "corpus.json", "changes.csv"}
    with (tmp_path / "out" / "pairs.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 9927 and list(rows[0])[:4] == ["pair", "first", "second", "label"]
    edited = rows[6321]
    assert edited["pair"] == "2617" and edited["first"] == sick.ids[int(sick.pairs.first[6321])]
    assert edited["label"] == "ENTAILMENT" and edited["split"] == "test"
    assert sorted({row["pair"] for row in rows}, key=int)[:3] == ["1", "2", "3"]
    assert {row["label"] for row in rows} == {"CONTRADICTION", "NEUTRAL", "ENTAILMENT"}
    pairs = json.loads((tmp_path / "out" / "corpus.json").read_text())["pairs"]
    assert pairs[6321]["id"] == "2617" and pairs[6321]["label"] == "ENTAILMENT"
    with (tmp_path / "out" / "changes.csv").open() as handle:
        (change,) = list(csv.DictReader(handle))
    old = sick.pairs.label_text(int(sick.pairs.label[6321]))
    assert change["what"] == f"pair 2617: label {old} -> ENTAILMENT"
    assert change["reason"] == "both say the same"


def test_msrp_export_has_no_invented_pair_ids(shared_data, tmp_path):
    msrp = load_corpus(shared_data / "msrp")
    session = AnnotationSession.open(msrp, tmp_path / "journal.jsonl")
    session.export(tmp_path / "out", formats=("csv",))
    session.close()
    with (tmp_path / "out" / "pairs.csv").open() as handle:
        header = next(csv.reader(handle))
    assert header == ["first", "second", "label", "score", "split", "subset"]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_get_the_users_umask_mode(tmp_path, umask, mode):
    previous = os.umask(umask)
    try:
        target = tmp_path / "file.csv"
        write_text_atomic(target, "a\n")
        assert os.stat(target).st_mode & 0o777 == mode
        os.chmod(target, 0o640)  # replacing a file keeps its mode
        write_text_atomic(target, "b\n")
        assert os.stat(target).st_mode & 0o777 == 0o640 and target.read_text() == "b\n"
    finally:
        os.umask(previous)
    assert [p.name for p in tmp_path.iterdir()] == ["file.csv"]
