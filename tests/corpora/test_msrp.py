import collections
from functools import partial

import numpy as np
import pytest

from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.grouped import load_grouped
from sentspace.app.corpora.msrp import load_msrp
from tests.corpora.conftest import refused


@pytest.fixture(scope="module")
def msrp(shared_data):
    return load_msrp(shared_data / "msrp")


def test_pair_counts_by_split_and_label(msrp):
    pairs = msrp.pairs
    counts = collections.Counter(zip(pairs.split, pairs.label.tolist()))
    assert counts == {("train", 1): 2753, ("train", 0): 1323, ("test", 1): 1147, ("test", 0): 578}
    assert np.isnan(pairs.score).all()
    assert set(pairs.subset) == {"MSRP"}


def test_pool_is_every_distinct_sentence_of_the_data_file(msrp):
    # 10,948 ids in msr_paraphrase_data.txt = the ids of the pairs; 4 texts have two ids.
    assert len(msrp) == 10944
    assert len(set(msrp.texts)) == 10944
    assert sum(len(ids.split()) for ids in msrp.metadata["msrp_ids"]) == 10948
    merged = [ids for ids in msrp.metadata["msrp_ids"] if " " in ids]
    assert sorted(merged) == sorted(
        ["747968 698611", "2706249 2637178", "2526952 2565144", "1091267 1040202"]
    )
    assert len(msrp.warnings) == 1 and "4 texts occur under several ids" in msrp.warnings[0]
    assert collections.Counter(msrp.metadata["split"]) == {
        "train": 7551,
        "test": 3128,
        "train+test": 265,
    }
    first = msrp.ids.index("702876")
    assert msrp.texts[first].startswith("Amrozi accused his brother")
    assert msrp.metadata["author"][first] == "Darren Goodsir"


def test_groups_are_components_of_positive_pairs(msrp):
    groups = msrp.groups
    assert groups.kind == "paraphrase group"
    assert groups.n_groups == 275
    assert np.bincount(groups.sizes).tolist() == [0, 0, 0, 241, 31, 3]
    positive = msrp.pairs.label == 1
    labels = groups.labels(len(msrp))
    # Every positive pair lies inside one group or outside all groups.
    first, second = msrp.pairs.first[positive], msrp.pairs.second[positive]
    assert np.array_equal(labels[first], labels[second])


def test_keeping_ids_apart_reproduces_white_2015(shared_data):
    by_id = load_msrp(shared_data / "msrp", merge_identical=False)
    assert (len(by_id), by_id.groups.n_groups, by_id.groups.sizes.sum()) == (10948, 274, 859)
    white = load_grouped(shared_data / "white2015-paraphrase-grouped" / "msrp_distribute")
    ours = {
        frozenset(by_id.texts[i] for i in by_id.groups.members(g))
        for g in range(by_id.groups.n_groups)
    }
    theirs = {
        frozenset(white.texts[i] for i in white.groups.members(g))
        for g in range(white.groups.n_groups)
    }
    assert ours == theirs


def test_min_group_size_is_a_parameter(shared_data):
    corpus = load_msrp(shared_data / "msrp", min_group_size=2)
    assert corpus.groups.sizes.min() == 2
    assert corpus.groups.n_groups > 275


def test_one_pair_file_loads_alone(shared_data):
    test = load_msrp(shared_data / "msrp" / "msr_paraphrase_test.txt")
    assert len(test.pairs) == 1725 and set(test.pairs.split) == {"test"}
    assert int(test.pairs.label.sum()) == 1147


def test_detected_from_folder_and_data_file(shared_data, msrp):
    assert load_corpus(shared_data / "msrp").fingerprint == msrp.fingerprint
    assert (
        load_corpus(shared_data / "msrp" / "msr_paraphrase_data.txt").fingerprint
        == msrp.fingerprint
    )


@pytest.fixture
def msrp_copy(shared_data, tmp_path):
    """A writable MSRP folder with the first lines of each file."""
    source = shared_data / "msrp"
    for name, n in (("msr_paraphrase_train.txt", 40), ("msr_paraphrase_test.txt", 20)):
        lines = (source / name).read_bytes().split(b"\n")[:n]
        (tmp_path / name).write_bytes(b"\n".join(lines) + b"\n")
    return tmp_path


expect_error = partial(refused, load_msrp)


def test_wrong_column_count_names_file_and_line(msrp_copy):
    train = msrp_copy / "msr_paraphrase_train.txt"
    lines = train.read_text(encoding="utf-8-sig").split("\n")
    lines[6] = lines[6].rsplit("\t", 1)[0]
    train.write_text("\n".join(lines), encoding="utf-8")
    error = expect_error(
        msrp_copy,
        "msr_paraphrase_train.txt",
        "line 7",
        "expected 5 tab-separated columns",
        "found 4",
    )
    assert error.line == 7


def test_bad_quality_and_conflicting_id(msrp_copy):
    train = msrp_copy / "msr_paraphrase_train.txt"
    original = train.read_text(encoding="utf-8-sig")
    lines = original.split("\n")
    lines[3] = "2" + lines[3][1:]
    train.write_text("\n".join(lines), encoding="utf-8")
    expect_error(msrp_copy, "line 4", "Quality must be 0 or 1")
    lines = original.split("\n")
    fields = lines[5].split("\t")
    fields[1] = lines[2].split("\t")[1]  # an id of line 3, with another text
    lines[5] = "\t".join(fields)
    train.write_text("\n".join(lines), encoding="utf-8")
    expect_error(msrp_copy, "line 6", "has another text than on msr_paraphrase_train.txt line 3")


def test_id_missing_from_data_file(msrp_copy, shared_data):
    data = (shared_data / "msrp" / "msr_paraphrase_data.txt").read_text(encoding="utf-8-sig")
    lines = data.split("\n")
    (msrp_copy / "msr_paraphrase_data.txt").write_text("\n".join(lines[:1] + lines[2:]))
    expect_error(
        msrp_copy,
        "msr_paraphrase_train.txt",
        "line 2",
        "sentence id 702876 is not in msr_paraphrase_data.txt",
    )


def test_header_only_file_is_an_error(msrp_copy):
    (msrp_copy / "msr_paraphrase_test.txt").write_text(
        "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
    )
    expect_error(msrp_copy / "msr_paraphrase_test.txt", "no pairs")
