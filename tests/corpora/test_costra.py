import shutil
from functools import partial

import numpy as np
import pytest

from sentspace.app.base.errors import EvaluationError
from sentspace.app.corpora.costra import costra_comparisons, is_costra, load_costra
from sentspace.app.corpora.grouped import load_grouped
from tests.corpora.conftest import refused


@pytest.fixture
def rows(shared_data):
    """The real file's rows, for writing corrupted copies."""
    return (shared_data / "costra" / "data.tsv").read_text(encoding="utf-8").split("\n")[:-1]


def write(tmp_path, lines, name="data.tsv"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


expect_error = partial(refused, load_costra)


def test_counts_of_the_real_file(costra):
    assert len(costra) == 6968
    assert costra.language == "cs"
    assert costra.ids == tuple(str(i) for i in range(6968))
    assert costra.groups.kind == "seed group"
    assert costra.groups.n_groups == 126
    assert costra.groups.names[:3] == ("1", "10", "100")
    sizes = costra.groups.sizes
    assert (sizes.min(), sizes.max(), sizes.sum()) == (21, 97, 6968)
    types = costra.metadata["type"]
    assert (
        types.count("seed"),
        types.count("paraphrase"),
        types.count("nonstandard sentence"),
        types.count("simple sentence"),
    ) == (126, 585, 1081, 275)
    assert len(set(types)) == 14
    assert costra.warnings == ()


def test_rows_keep_file_order_and_duplicate_texts(costra):
    assert len(costra.texts) - len(set(costra.texts)) == 27
    # Rows 1063 and 1113 share a text but keep their own id and role.
    assert costra.texts[1063] == costra.texts[1113]
    assert (costra.metadata["type"][1063], costra.metadata["type"][1113]) == (
        "formal sentence",
        "paraphrase",
    )
    assert costra.texts[0] == "V bulváru je zakázáno psát dobrý příběhy a dost podrobně."
    assert costra.metadata["tokenized"][0].endswith("podrobně .")
    assert costra.metadata["line"][:3] == (1, 2, 3)
    # Quotes are literal characters (the reference's pandas reader strips a few).
    assert costra.texts[6365].startswith('"Tenhle')


def test_id_lists_are_kept_per_row(costra):
    refs = [sum(len(r) for r in costra.metadata[c]) for c in ("r1", "r2", "r3", "r4")]
    assert sum(refs) == 32754
    seed_group = costra.metadata["seed group"]
    assert all(
        seed_group[int(ref)] == seed_group[row]
        for c in ("r1", "r2", "r3", "r4")
        for row, refs in enumerate(costra.metadata[c])
        for ref in refs
    )


def test_comparisons_per_class(costra):
    comparisons = costra_comparisons(costra)
    assert comparisons.class_sizes == {
        "basic": 4406,
        "modality": 2748,
        "time": 10403,
        "style": 38248,
        "generalization": 10129,
        "opposite meaning": 14864,
    }
    assert len(comparisons) == 80798 and comparisons.n_unscored == 25845
    assert np.bincount(comparisons.rule).tolist() == [7154, 73048, 596]
    # Every comparison stays inside the seed group of the sentence it is about.
    labels = costra.groups.labels(len(costra))
    for pairs in (comparisons.more_similar, comparisons.less_similar):
        assert np.all(labels[pairs] == comparisons.group[:, None])


def test_installed_package_data_is_the_same_corpus(costra):
    pytest.importorskip("costra")
    assert load_costra().fingerprint == costra.fingerprint


def test_detection(shared_data, tmp_path):
    folder = shared_data / "costra"
    assert is_costra(folder) and is_costra(folder / "data.tsv")
    assert not is_costra(shared_data / "pyramid-sample" / "T0001.pyr")
    assert not is_costra(folder / "README.data.txt")
    assert not is_costra(tmp_path / "missing.tsv")


def test_folder_loads_its_data_file(shared_data, tmp_path):
    shutil.copy(shared_data / "costra" / "data.tsv", tmp_path / "data.tsv")
    assert len(load_costra(tmp_path)) == 6968


def test_wrong_column_count_names_the_line(tmp_path, rows):
    rows[41] = "\t".join(rows[41].split("\t")[:8])
    error = expect_error(write(tmp_path, rows), "expected 9 tab-separated columns", "found 8")
    assert error.line == 42


def test_reference_to_a_missing_id(tmp_path, rows):
    fields = rows[79].split("\t")
    fields[5] = fields[5] + ",99999" if fields[5] else "99999"
    rows[79] = "\t".join(fields)
    error = expect_error(write(tmp_path, rows), "r1 refers to id 99999, which no row has")
    assert error.line == 80


def test_bad_encoding_names_the_line(tmp_path, rows):
    path = tmp_path / "data.tsv"
    path.write_bytes("\n".join(rows[:10]).encode("utf-8") + b"\n99\t1\tseed\tp\xf8\xedklad")
    error = expect_error(path, "not valid UTF-8")
    assert error.line == 11


def test_empty_file(tmp_path):
    expect_error(write(tmp_path, [""]), "file is empty")


def test_duplicate_and_malformed_ids(tmp_path, rows):
    expect_error(write(tmp_path, rows[:5] + [rows[2]]), "id 2 already used on line 3")
    bad = rows[:5]
    bad[1] = "x" + bad[1]
    expect_error(write(tmp_path, bad), "the id must be a non-negative integer")
    bad = rows[:5]
    bad[3] = bad[3].replace("\t\t\t\t", "\t1;2\t\t\t")
    expect_error(write(tmp_path, bad), "every id in r1 must be")


def test_group_without_its_seed(tmp_path, rows):
    seed_line = next(k for k, row in enumerate(rows) if row.split("\t")[2] == "seed")
    group = rows[seed_line].split("\t")[1]
    rows[seed_line] = rows[seed_line].replace("\tseed\t", "\tparaphrase\t")
    error = expect_error(write(tmp_path, rows), f"seed group {group} has 0 rows of type 'seed'")
    assert error.line == 1


def test_blank_lines_are_skipped_with_a_warning(tmp_path, rows):
    corpus = load_costra(write(tmp_path, rows[:100] + ["", ""] + rows[100:]))
    assert len(corpus) == 6968
    assert corpus.warnings == ("skipped 2 blank lines: 101, 102",)
    assert corpus.metadata["line"][100] == 103


def test_comparisons_need_a_costra_corpus(shared_data):
    grouped = load_grouped(shared_data / "white2015-paraphrase-grouped" / "msrp_distribute")
    with pytest.raises(EvaluationError, match="Costra"):
        costra_comparisons(grouped)


def test_distinct_pairs_index_every_comparison(costra):
    comparisons = costra_comparisons(costra)
    assert costra_comparisons(costra) is comparisons  # derived once per corpus
    assert len(comparisons.pairs) == 29346
    for pairs, which in (
        (comparisons.more_similar, comparisons.more_pair),
        (comparisons.less_similar, comparisons.less_pair),
    ):
        assert np.array_equal(np.sort(pairs, axis=1), comparisons.pairs[which])
