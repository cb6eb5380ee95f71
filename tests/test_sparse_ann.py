"""Approximate neighbours of sparse rows (bag of words) by NN-descent, on the 5,070
Multi30K validation captions: recall against the exact scan, the same neighbours from
the same seed, ``auto`` above its limit, cancelling, and the CLI's ``--search ann``."""

import numpy as np
import pytest
import scipy.sparse as sp

from sentspace.app.analysis import ann
from sentspace.app.analysis.neighbours import normalise, row_dots, top_k
from sentspace.app.base.jobs import Progress, run_job
from sentspace.app.cli import main

CAPTIONS = "multi30k-captions:en:val"


@pytest.fixture(scope="module")
def captions_bow():
    from sentspace.app.corpora import load_corpus
    from sentspace.models import make_encoder

    corpus = load_corpus(CAPTIONS)
    rows = make_encoder("bow").fit(corpus.texts).encode(corpus.texts, sparse=True)
    assert len(corpus) == 5_070 and sp.issparse(rows)
    return corpus, rows


def test_auto_above_the_limit_finds_the_exact_neighbours_and_says_how_well(captions_bow):
    _, rows = captions_bow
    n = rows.shape[0]
    itself = np.arange(n)
    assert ann.choose(rows, limit=1_000) == "nn-descent" and ann.choose(rows) == "exact"
    indices, similarities, search = ann.knn(rows, rows, 10, exclude=itself, limit=1_000)
    assert search.method == "nn-descent" and search.approximate
    assert search.recall >= 0.95 and search.recall_queries == ann.RECALL_QUERIES
    assert "approximate (NN-DESCENT, recall@10" in search.describe()
    assert search.summary() == [("neighbour search", search.describe())]
    assert indices.shape == (n, 10) and not (indices == itself[:, None]).any()
    assert (np.diff(similarities, axis=1) <= 1e-6).all()
    # The recall on 1,000 sampled queries is what every caption gets.
    _, exact = top_k(rows, rows, 10, exclude=itself)
    everyone = (similarities >= exact[:, -1:] - ann.RECALL_TOLERANCE).mean()
    assert everyone >= 0.95 and abs(everyone - search.recall) < 0.01
    # Its cosines are the exact ones of the pairs it found.
    unit = normalise(rows).matrix
    sample = np.arange(0, n, 97)
    for column in range(10):
        cosines = row_dots(unit[sample], unit[indices[sample, column]])
        assert np.allclose(similarities[sample, column], cosines, atol=1e-6)


def test_the_same_seed_gives_the_same_neighbours(captions_bow):
    rows = captions_bow[1][:2_000]
    itself = np.arange(rows.shape[0])
    first = ann.knn(rows, rows, 10, exclude=itself, search="ann", seed=3)
    ann._graphs.clear()  # a graph is shared by equal rows: the second run builds its own
    again = ann.knn(rows, rows, 10, exclude=itself, search="ann", seed=3)
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
    assert first[2] == again[2]


def test_equal_rows_normalised_again_share_their_graph(captions_bow):
    """Faithfulness, then a page's neighbour lists, each normalise the embeddings: the
    second finds the first's graph, though the first's rows are gone."""
    import gc

    rows = captions_bow[1][:1_500]
    graph = run_job(ann.iter_build_graph(normalise(rows.copy()).matrix))
    gc.collect()
    assert run_job(ann.iter_build_graph(normalise(rows.copy()).matrix)) is graph
    assert run_job(ann.iter_build_graph(normalise(rows.copy()).matrix, seed=1)) is not graph


def test_a_few_queries_descend_the_graph_and_get_its_recall(captions_bow):
    _, rows = captions_bow
    unit = normalise(rows)
    # Sentences of no caption: two captions' words each.
    queries = rows[[0, 5, 2_500]] + rows[[1, 6, 2_501]]
    indices, similarities, search = ann.knn(queries, unit, 5, search="ann", seed=0)
    # A query's own recall would be 0 or 1: it gets the graph's, on its own rows.
    assert search.method == "nn-descent" and search.k == 5
    assert search.recall >= 0.95 and search.recall_queries == ann.RECALL_QUERIES
    _, exact = top_k(queries, unit, 5)
    assert (similarities >= exact[:, -1:] - ann.RECALL_TOLERANCE).mean() >= 0.8


def test_pool_rows_asked_apart_take_their_rows_of_the_graph(captions_bow, monkeypatch):
    """Faithfulness's sample (pool rows, each excluding itself) gets the neighbours the
    graph holds for those rows, as every point does, without descending it."""
    from pynndescent import NNDescent

    _, rows = captions_bow
    unit = normalise(rows)
    n = rows.shape[0]
    everyone = ann.knn(unit, unit, 10, exclude=np.arange(n), search="ann")
    sample = np.sort(np.random.default_rng(0).choice(n, 1_500, replace=False))

    def no_descent(*args, **kwargs):
        raise AssertionError("descended the graph")

    monkeypatch.setattr(NNDescent, "query", no_descent)
    queries = normalise(rows[sample])
    indices, similarities, search = ann.knn(queries, unit, 10, exclude=sample, search="ann")
    assert np.array_equal(indices, everyone[0][sample])
    assert np.array_equal(similarities, everyone[1][sample])
    assert search.method == "nn-descent" and search.recall >= 0.95


def test_a_search_cancelled_before_the_graph_is_built_keeps_none(captions_bow):
    _, rows = captions_bow
    pool = rows[np.arange(rows.shape[0])[::-1]]  # rows no other test indexes
    job = ann.iter_knn(pool, pool, 10, search="ann")
    assert isinstance(next(job), Progress)
    job.close()
    assert (ann._sparse_digest(normalise(pool).matrix), 0) not in ann._graphs


def test_the_cli_searches_sparse_rows_with_ann(capsys):
    query = "A dog runs across the grass."
    assert (
        main(["neighbours", "--corpus", CAPTIONS, "--encoder", "bow", "--search", "ann", query])
        == 0
    )
    out = capsys.readouterr().out
    assert "Found approximate (NN-DESCENT, recall@" in out and "on 1,000 queries" in out
