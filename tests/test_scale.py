"""A large corpus's map needs no neighbours of every point: the window's job
(``explore``) searches only faithfulness's sample, and every point's neighbours, asked
for afterwards, reuse its index and the exact scan its tuning made. MSRP (10,944
sentences, glove-mean) stands for a large corpus with the exact limit lowered."""

import numpy as np
import pytest

from sentspace.app.analysis import ann, dense_index
from sentspace.app.base.jobs import run_job


@pytest.fixture
def searches(monkeypatch, tmp_path):
    """The number of queries of every index search and exact scan ann makes, with a
    cache of its own: an index another test built and tuned over the same rows would
    come from disk with its tuning, and this test's job would scan nothing to keep."""
    from sentspace.app.analysis.cache import CACHE_DIR_ENV

    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(ann, "_references", {})
    made: dict[str, list[int]] = {"index": [], "exact": []}
    search, scan = ann.iter_search_index, ann.iter_top_k

    def counted_search(index, queries, *args, **kwargs):
        made["index"].append(len(queries))
        return (yield from search(index, queries, *args, **kwargs))

    def counted_scan(queries, *args, **kwargs):
        made["exact"].append(queries.shape[0])
        return (yield from scan(queries, *args, **kwargs))

    monkeypatch.setattr(ann, "iter_search_index", counted_search)
    monkeypatch.setattr(ann, "iter_top_k", counted_scan)
    monkeypatch.setattr(ann, "EXACT_LIMIT", 1_000)
    return made


def test_the_windows_job_finds_no_neighbours_of_every_point(shared_data, searches):
    from sentspace.app.analysis.explore import explore
    from sentspace.app.corpora import load_corpus
    from sentspace.models import make_encoder

    corpus = load_corpus(shared_data / "msrp")
    n = len(corpus)
    exploration = run_job(explore(corpus, make_encoder("glove-mean"), method="pca"))
    faithful = exploration.faithfulness
    assert faithful.search.approximate and len(faithful.measured) == 10_000
    # Tuning's 1,000 rows at each breadth tried, then faithfulness's 10,000 points.
    assert searches["index"][-1] == 10_000 and max(searches["index"]) < n
    assert searches["exact"] and max(searches["exact"]) == ann.RECALL_QUERIES

    # On demand, after: every point's neighbours from the same index, as tuned, and
    # their recall measured against the tuning's own exact scan, not a second one.
    searches["index"].clear(), searches["exact"].clear()
    unit = ann.normalise(exploration.embeddings)
    itself = np.arange(n)
    indices, similarities, search = ann.knn(unit, unit, 10, exclude=itself, search="ann")
    assert searches == {"index": [n], "exact": []}
    assert search.approximate and search.recall >= 0.95
    assert not (indices == itself[:, None]).any()
    # The same recall as a fresh scan of those rows gives.
    copy = ann.Normalised(unit.matrix.copy(), unit.degenerate)
    fresh = run_job(ann.measure_recall(copy, unit, similarities, 10, exclude=itself))
    assert searches["exact"] == [ann.RECALL_QUERIES] and fresh == search


def test_every_point_searched_in_the_order_of_its_own_list(shared_data, monkeypatch):
    """Above a chunk the pool's own rows are searched list by list, read from the
    index, with the answers of one pass whatever the thread count."""
    import faiss

    from sentspace.app.corpora import load_corpus
    from sentspace.models import make_encoder

    embeddings = make_encoder("glove-mean").encode(load_corpus(shared_data / "msrp").texts)
    unit = ann.normalise(embeddings).matrix
    index = run_job(ann.iter_build_index(unit, cache=False))
    order = ann._by_own_list(index)
    assert np.array_equal(np.sort(order), np.arange(len(unit)))
    _, nearest = dense_index.ivf(index).quantizer.search(
        dense_index.index_rows(index, unit[order]), 1
    )
    assert (np.diff(nearest[:, 0]) >= 0).all()
    itself = np.arange(len(unit))
    one_pass = run_job(ann.iter_search_index(index, unit, 10, pool=unit, exclude=itself))
    monkeypatch.setattr(ann, "SEARCH_CHUNK", 1_000)
    for threads in (1, 2):
        faiss.omp_set_num_threads(threads)
        chunked = run_job(ann.iter_search_index(index, unit, 10, pool=unit, exclude=itself))
        assert np.array_equal(one_pass[0], chunked[0])
        assert np.array_equal(one_pass[1], chunked[1])
