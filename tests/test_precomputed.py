"""Bring your own embeddings: export, re-import as a precomputed encoder, same numbers."""

import json

import numpy as np
import pytest

from sentspace.app.analysis.evaluations.classification import run_classification
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.exporters.export import export_matrix, metadata_columns
from sentspace.models.bow import BagOfWords
from sentspace.models.precomputed import EmbeddingsFileError, Precomputed, read_embeddings


@pytest.fixture(scope="module")
def corpus():
    return load_corpus("msrp-grouped")


@pytest.fixture(scope="module")
def bow(corpus):
    encoder = BagOfWords().fit(corpus.texts)
    return encoder, encoder.encode(corpus.texts, sparse=True)


@pytest.fixture(scope="module")
def bow_result(corpus):
    return run_job(run_classification(corpus, BagOfWords()))


@pytest.mark.parametrize("name", ["bow.npy", "vectors.tsv", "bow.parquet"])
def test_round_trip_gives_the_same_evaluation(tmp_path, corpus, bow, bow_result, name):
    encoder, matrix = bow
    written = export_matrix(
        corpus,
        matrix,
        tmp_path / name,
        {"encoder": encoder.name, "fingerprint": encoder.fingerprint()},
    )
    assert all(path.stat().st_size > 0 for path in written)
    precomputed = Precomputed(tmp_path / name, corpus)
    assert precomputed.dim == matrix.shape[1]
    np.testing.assert_array_equal(precomputed.encode(corpus.texts), matrix.toarray())
    result = run_job(run_classification(corpus, precomputed))
    assert result.fold_accuracy == bow_result.fold_accuracy
    assert np.array_equal(result.predicted_group, bow_result.predicted_group)
    assert result.provenance.encoder_family == "precomputed"


def test_npy_is_memory_mapped_and_has_a_sidecar(tmp_path, corpus, bow):
    encoder, matrix = bow
    export_matrix(corpus, matrix, tmp_path / "e.npy", {"encoder": encoder.name})
    sidecar = json.loads((tmp_path / "e.json").read_text())
    assert sidecar["rows"] == 859 and sidecar["dim"] == matrix.shape[1]
    assert sidecar["corpus"]["fingerprint"] == corpus.fingerprint
    precomputed = Precomputed(tmp_path / "e.npy", corpus)
    assert precomputed.aligned_by == "row"
    assert isinstance(precomputed.aligned(), np.memmap)


def test_projector_pair_has_the_projector_layout(tmp_path, corpus, bow):
    _, matrix = bow
    export_matrix(corpus, matrix, tmp_path, {})
    vectors = (tmp_path / "vectors.tsv").read_text().splitlines()
    metadata = (tmp_path / "metadata.tsv").read_text().splitlines()
    assert len(vectors) == 859 and len(metadata) == 860  # a header: several columns
    assert {len(line.split("\t")) for line in vectors} == {matrix.shape[1]}
    assert metadata[0].split("\t") == list(metadata_columns(corpus))
    assert {len(line.split("\t")) for line in metadata} == {len(metadata_columns(corpus))}


def test_alignment_by_id_and_by_text_reorders_rows(tmp_path, corpus, bow):
    _, matrix = bow
    dense = matrix.toarray()
    order = np.random.default_rng(0).permutation(len(corpus))
    for key, values in (("id", corpus.ids), ("text", corpus.texts)):
        folder = tmp_path / key
        folder.mkdir()
        np.savetxt(folder / "vectors.tsv", dense[order], delimiter="\t", fmt="%g")
        (folder / "metadata.tsv").write_text(
            f"{key}\tother\n" + "".join(f"{values[i]}\tx\n" for i in order)
        )
        precomputed = Precomputed(folder / "vectors.tsv", corpus)
        assert precomputed.aligned_by == key
        np.testing.assert_array_equal(precomputed.aligned(), dense)


@pytest.mark.parametrize(
    "make, problem",
    [
        (lambda d: np.save(d / "x.npy", np.ones((858, 4), np.float32)), "858 rows for 859"),
        (lambda d: np.save(d / "x.npy", np.ones(859, np.float32)), "2-D"),
        (lambda d: np.save(d / "x.npy", np.full((859, 4), np.nan, np.float32)), "row 1 holds NaN"),
        (lambda d: (d / "x.npy").write_bytes(b""), "empty"),
        (lambda d: (d / "x.npy").write_bytes(b"garbage" * 10), "not a readable .npy"),
        (lambda d: (d / "vectors.tsv").write_text("1\t2\n3\n"), "line 2: 1 values"),
        (lambda d: np.savez(d / "x.npz", a=np.ones((3, 2)), b=np.ones((3, 2))), "exactly one"),
    ],
)
def test_bad_files_give_one_clear_error(tmp_path, corpus, make, problem):
    make(tmp_path)
    path = next(p for p in tmp_path.iterdir())
    with pytest.raises(EmbeddingsFileError) as caught:
        Precomputed(path, corpus)
    assert problem in str(caught.value) and path.name in str(caught.value)


def test_parquet_without_vector_column_and_ragged_rows(tmp_path, corpus):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({"id": ["a"], "x": [1.0]}), tmp_path / "novec.parquet")
    with pytest.raises(EmbeddingsFileError, match="no vector column"):
        read_embeddings(tmp_path / "novec.parquet")
    pq.write_table(pa.table({"vector": [[1.0, 2.0], [1.0]]}), tmp_path / "ragged.parquet")
    with pytest.raises(EmbeddingsFileError, match="row 2 has 1 values"):
        read_embeddings(tmp_path / "ragged.parquet")


def test_text_column_matching_nothing_falls_back_and_fails_clearly(tmp_path, corpus):
    folder = tmp_path / "t"
    folder.mkdir()
    np.savetxt(folder / "vectors.tsv", np.ones((5, 3)), delimiter="\t")
    (folder / "metadata.tsv").write_text("text\tlabel\n" + "nothing\tx\n" * 5)
    with pytest.raises(EmbeddingsFileError, match="5 rows for 859 corpus sentences"):
        Precomputed(folder / "vectors.tsv", corpus)


def test_costra_export_matches_the_reference_evaluator(tmp_path, shared_data, capsys):
    """Issue 10: bag-of-words embeddings of Costra in row order, scored three ways."""
    import warnings

    pytest.importorskip("costra")
    from sentspace.app.cli import main

    data = shared_data / "costra" / "data.tsv"
    target = tmp_path / "costra-bow.npy"
    assert main(["encode", "--corpus", str(data), "--encoder", "bow", "--out", str(target)]) == 0
    capsys.readouterr()
    embeddings = np.load(target)
    assert embeddings.shape[0] == 6968
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from costra.costra import CostraEvaluator

        with np.errstate(divide="ignore", invalid="ignore"):
            reference = CostraEvaluator(str(data)).evaluate(embeddings)
    printed = {}
    for spec in (f"precomputed:{target}", "bow"):
        assert (
            main(["eval", "costra", "--corpus", str(data), "--encoder", spec, "--json", "-"]) == 0
        )
        result = json.loads(capsys.readouterr().out)["results"][0]
        printed[spec] = result["scores"]
    assert printed["bow"] == printed[f"precomputed:{target}"] == reference


def test_projector_vectors_are_parsed_by_pyarrow_and_agree_with_the_careful_reader(tmp_path, bow):
    from sentspace.app.corpora.build import read_lines
    from sentspace.models.precomputed import _parse_tsv_by_line, _parse_tsv_fast

    counts = bow[1][:200].toarray()
    # Real-valued: the bundled corpus's bag of words scaled to unit length.
    dense = (counts / np.linalg.norm(counts, axis=1, keepdims=True))[:, :50]
    path = tmp_path / "vectors.tsv"
    np.savetxt(path, dense, delimiter="\t", fmt="%.7g")
    fast = _parse_tsv_fast(path)
    assert fast is not None and fast.dtype == np.float32 and fast.shape == (200, 50)
    assert np.array_equal(fast, _parse_tsv_by_line(path, read_lines(path)))


@pytest.mark.parametrize(
    "content, problem",
    [
        ("1\t2\n\n3\t4\n", "line 2: 1 values"),
        ("1\t2\n3\t4\n5\tabc\n", "line 3: a value is not a number"),
        ("1\t2\n3\t\n", "line 2: a value is not a number"),
        ("1\t2\n3\t4\t5\n", "line 2: 3 values"),
    ],
)
def test_projector_problems_name_their_line(tmp_path, content, problem):
    from sentspace.models.precomputed import _parse_tsv_fast

    path = tmp_path / "vectors.tsv"
    path.write_text(content)
    assert _parse_tsv_fast(path) is None  # left to the careful reader
    with pytest.raises(EmbeddingsFileError, match=problem):
        read_embeddings(path)


def test_projector_file_with_bom_and_crlf_reads(tmp_path):
    path = tmp_path / "vectors.tsv"
    path.write_bytes(b"\xef\xbb\xbf1.5\t2\r\n3\t-4e-3\r\n")
    vectors = read_embeddings(path).vectors
    assert np.array_equal(vectors, np.array([[1.5, 2], [3, -4e-3]], dtype=np.float32))
