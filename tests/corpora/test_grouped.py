import shutil
from functools import partial

import numpy as np
import pytest

from sentspace.app.corpora import BUILTIN, load_corpus
from sentspace.app.corpora.grouped import load_grouped
from tests.corpora.conftest import refused


@pytest.fixture
def grouped_copy(tmp_path):
    """A writable copy of the bundled grouped MSRP corpus."""
    folder = tmp_path / "grouped"
    shutil.copytree(BUILTIN["msrp-grouped"], folder)
    return folder


def test_bundled_corpus_has_859_sentences_in_274_groups():
    corpus = load_corpus("msrp-grouped")
    assert len(corpus) == 859
    assert corpus.groups.n_groups == 274
    sizes = corpus.groups.sizes
    assert sizes.min() == 3 and sizes.max() == 5 and sizes.sum() == 859
    assert corpus.texts[0].startswith("A new feature dubbed FileVault")
    assert corpus.warnings == ()


def test_bundled_copy_equals_shared_original(shared_data):
    bundled = load_corpus("msrp-grouped")
    original = load_grouped(shared_data / "white2015-paraphrase-grouped" / "msrp_distribute")
    assert bundled.fingerprint == original.fingerprint


def test_opinosis_grouped_counts(shared_data):
    corpus = load_grouped(shared_data / "white2015-paraphrase-grouped" / "opinosis_distribute")
    assert (len(corpus), corpus.groups.n_groups) == (669, 163)
    restricted = corpus.groups.restricted(3)
    assert (restricted.sizes.sum(), restricted.n_groups) == (521, 89)


def test_labels_follow_the_csv(grouped_copy):
    corpus = load_grouped(grouped_copy)
    labels = corpus.groups.labels(len(corpus))
    assert list(labels[:6]) == [0, 0, 0, 1, 1, 1]
    assert np.all(labels >= 0)


def test_loading_a_file_inside_the_folder_loads_the_folder(grouped_copy):
    assert len(load_grouped(grouped_copy / "phrases.txt")) == 859


expect_error = partial(refused, load_grouped)


def test_missing_file_is_named(grouped_copy):
    (grouped_copy / "phrase_groups.csv").unlink()
    expect_error(grouped_copy, "phrase_groups.csv", "missing")


def test_index_beyond_phrases_names_line(grouped_copy):
    csv = grouped_copy / "phrase_groups.csv"
    csv.write_text(csv.read_text() + "900,12\n")
    error = expect_error(grouped_copy, "phrase_groups.csv", "line 861", "900", "859 lines")
    assert error.line == 861


def test_non_utf8_names_line(grouped_copy):
    phrases = grouped_copy / "phrases.txt"
    lines = phrases.read_bytes().split(b"\n")
    lines[41] = lines[41] + b" caf\xe9"
    phrases.write_bytes(b"\n".join(lines))
    expect_error(grouped_copy, "phrases.txt", "line 42", "UTF-8")


@pytest.mark.parametrize("name", ["phrases.txt", "phrase_groups.csv"])
def test_empty_file(grouped_copy, name):
    (grouped_copy / name).write_text("")
    expect_error(grouped_copy, name, "empty")


def test_bad_header_and_bad_row(grouped_copy):
    csv = grouped_copy / "phrase_groups.csv"
    original = csv.read_text()
    csv.write_text("index,group\n" + original.split("\n", 1)[1])
    expect_error(grouped_copy, "line 1", "header")
    csv.write_text(original.replace("\n5,1\n", "\n5;1\n"))
    expect_error(grouped_copy, "line 7", "two integers")


def test_sentence_listed_twice(grouped_copy):
    csv = grouped_copy / "phrase_groups.csv"
    csv.write_text(csv.read_text() + "3,7\n")
    expect_error(grouped_copy, "listed twice", "line 5")


def test_ungrouped_sentences_are_reported_not_dropped(grouped_copy):
    csv = grouped_copy / "phrase_groups.csv"
    rows = csv.read_text().splitlines()
    csv.write_text("\n".join(rows[:-1]) + "\n")
    corpus = load_grouped(grouped_copy)
    assert len(corpus) == 859
    assert corpus.groups.labels(859)[858] == -1
    assert corpus.warnings == ("1 sentences of phrases.txt are in no group",)
