"""Parquet corpora, and the plain-text fast path, on real files."""

import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora import ColumnMapping, load_corpus
from sentspace.app.corpora.tabular import load_tabular


def test_parquet_with_text_id_and_group_is_the_grouped_corpus(tmp_path):
    """The bundled grouped MSRP (859 sentences, 274 groups) written as Parquet loads back
    with the same sentences, ids and groups."""
    grouped = load_corpus("msrp-grouped")
    groups = grouped.groups
    path = tmp_path / "msrp.parquet"
    pq.write_table(
        pa.table(
            {
                "sentence_id": [grouped.ids[s] for s in groups.sentence_index.tolist()],
                "Sentence": [grouped.texts[s] for s in groups.sentence_index.tolist()],
                "cluster": [groups.names[g] for g in groups.group_index.tolist()],
                "extra": np.arange(len(groups.sentence_index)),
            }
        ),
        path,
    )
    corpus = load_corpus(path)
    assert len(corpus) == 859 and corpus.groups.n_groups == 274
    assert corpus.groups.kind == "group"
    assert set(corpus.texts) == set(grouped.texts)
    as_sets = lambda c: {
        frozenset(c.texts[s] for s in c.groups.sentence_index[c.groups.group_index == g].tolist())
        for g in range(c.groups.n_groups)
    }
    assert as_sets(corpus) == as_sets(grouped)
    assert dict(zip(corpus.texts, corpus.ids)) == dict(zip(grouped.texts, grouped.ids))


def test_parquet_text_only_and_integer_labels(tmp_path, shared_data):
    texts = (
        (shared_data / "senteval-transfer" / "MR" / "rt-polarity.pos")
        .read_text(encoding="utf-8", errors="replace")
        .splitlines()
    )
    path = tmp_path / "mr.parquet"
    pq.write_table(pa.table({"text": texts, "label": [1] * len(texts)}), path)
    corpus = load_corpus(path)
    assert len(corpus) == len(dict.fromkeys(t.strip() for t in texts))
    assert corpus.groups.kind == "class" and corpus.groups.names == ("1",)
    assert corpus.ids[0] == "R1" and corpus.metadata["row"][:2] == (1, 2)


@pytest.mark.parametrize(
    "table, fragment",
    [
        ({"words": ["a b"]}, "no text column (columns: words)"),
        ({"text": pa.array([], pa.string())}, "no rows"),
        ({"text": ["fine", None]}, "row 2: empty or missing text"),
        ({"text": ["fine", "  "]}, "row 2: empty or missing text"),
        ({"text": [1.5, 2.5]}, "holds double, expected text"),
        ({"text": ["a", "b"], "id": ["x", "x"]}, "row 2: id 'x' has another text than on row 1"),
    ],
)
def test_bad_parquet_names_file_and_problem(tmp_path, table, fragment):
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table(table), path)
    with pytest.raises(CorpusError, match="bad.parquet") as caught:
        load_corpus(path)
    assert fragment in str(caught.value)


def test_a_text_file_named_parquet_is_refused(tmp_path, shared_data):
    path = tmp_path / "sentences.parquet"
    shutil.copy(shared_data / "state-union" / "sentences.txt", path)
    with pytest.raises(CorpusError, match="sentences.parquet: not a readable Parquet file"):
        load_corpus(path)
    path.write_bytes(path.read_bytes()[:0] + b"PAR1" + b"\0" * 20)
    with pytest.raises(CorpusError, match="not a readable Parquet file"):
        load_corpus(path)


def test_plain_text_fast_path_equals_the_table_reader(shared_data):
    """State of the Union, 17,186 lines: the same sentences, ids and lines as reading it
    row by row as a one-column table."""
    path = shared_data / "state-union" / "sentences.txt"
    fast = load_corpus(path)
    table = load_tabular(path, ColumnMapping(header=False))
    assert fast.texts == table.texts and fast.ids == table.ids
    assert fast.metadata == table.metadata and fast.warnings == table.warnings
    assert fast.fingerprint == table.fingerprint


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_columnar_table_reader_equals_the_row_reader(tmp_path, suffix):
    """Grouped MSRP as a table with ids and groups (sentences with commas and quotes),
    read column by column by pyarrow and row by row: the same corpus; a blank line or a
    bad row falls back to the row reader, which names the line."""
    import csv

    grouped = load_corpus("msrp-grouped")
    groups = grouped.groups
    path = tmp_path / f"msrp{suffix}"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(
            handle,
            delimiter="," if suffix == ".csv" else "\t",
            quoting=csv.QUOTE_MINIMAL if suffix == ".csv" else csv.QUOTE_NONE,
            escapechar=None if suffix == ".csv" else "\\",
            lineterminator="\n",
        )
        writer.writerow(["id", "sentence", "group"])
        for s, g in zip(groups.sentence_index.tolist(), groups.group_index.tolist()):
            writer.writerow([grouped.ids[s], grouped.texts[s], groups.names[g]])
    from sentspace.app.corpora.tabular import _columnar_sentences

    assert _columnar_sentences(path, None) is not None
    row_by_row = lambda: load_tabular(path, ColumnMapping(header=True))
    for corpus in (load_corpus(path), row_by_row()):
        assert len(corpus) == 859 and corpus.groups.n_groups == 274
    fast, slow = load_corpus(path), row_by_row()
    assert fast.texts == slow.texts and fast.ids == slow.ids
    assert fast.metadata == slow.metadata and fast.fingerprint == slow.fingerprint
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(lines[:5] + [""] + lines[5:]) + "\n", encoding="utf-8")
    assert _columnar_sentences(path, None) is None
    assert load_corpus(path).metadata == row_by_row().metadata
    path.write_text("\n".join(lines[:5] + ["only one cell"] + lines[5:]) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=f"msrp{suffix}, line 6: expected 3 columns"):
        load_corpus(path)
