"""Approximate neighbours on the full MSRP pool (10,944 sentences) with GloVe means."""

import numpy as np
import pytest

from sentspace.app.analysis import ann, dense_index
from sentspace.app.analysis.neighbours import top_k
from sentspace.app.base.jobs import run_job


@pytest.fixture(scope="module")
def msrp_glove(shared_data):
    from sentspace.app.corpora import load_corpus
    from sentspace.models import make_encoder

    corpus = load_corpus(shared_data / "msrp")
    assert len(corpus) == 10_944
    return corpus, make_encoder("glove-mean").encode(corpus.texts)


def test_the_index_finds_the_exact_neighbours_and_says_how_well(msrp_glove):
    _, embeddings = msrp_glove
    n = len(embeddings)
    itself = np.arange(n)
    indices, similarities, search = ann.knn(
        embeddings, embeddings, 10, exclude=itself, search="ann", cache=False
    )
    assert search.method == "ivf-sq8" and search.approximate
    assert search.recall_queries == ann.RECALL_QUERIES
    assert search.recall >= 0.95
    assert "approximate (IVF-SQ8, recall@10" in search.describe()
    assert indices.shape == (n, 10) and not (indices == itself[:, None]).any()
    assert (np.diff(similarities, axis=1) <= 1e-6).all()
    # The recall on 1,000 sampled queries is what all 10,944 queries get.
    _, exact = top_k(embeddings, embeddings, 10, exclude=itself)
    everyone = (similarities >= exact[:, -1:] - ann.RECALL_TOLERANCE).mean()
    assert abs(everyone - search.recall) < 0.01
    # Its cosines are the exact ones of the pairs it found, not the 8-bit rows' ones.
    unit = ann.normalise(embeddings).matrix
    rows = np.arange(0, n, 97)
    exact_cosines = np.einsum("ijk,ik->ij", unit[indices[rows]], unit[rows])
    assert np.allclose(similarities[rows], exact_cosines, atol=1e-6)


def test_searching_many_queries_in_list_order_gives_the_same_answers(msrp_glove, monkeypatch):
    _, embeddings = msrp_glove
    unit = ann.normalise(embeddings).matrix
    index = run_job(ann.iter_build_index(unit, cache=False))
    one_pass = run_job(
        ann.iter_search_index(index, unit, 10, pool=unit, exclude=np.arange(len(unit)))
    )
    monkeypatch.setattr(ann, "SEARCH_CHUNK", 1_000)  # 11 chunks, searched by nearest list
    ordered = run_job(
        ann.iter_search_index(index, unit, 10, pool=unit, exclude=np.arange(len(unit)))
    )
    assert np.array_equal(one_pass[0], ordered[0])
    assert np.array_equal(one_pass[1], ordered[1])


def test_rows_are_padded_to_the_simd_width_without_changing_a_cosine():
    rows = np.random.default_rng(0).standard_normal((5, 50)).astype(np.float32)
    wide = dense_index.padded(rows)
    assert wide.shape == (5, 56) and not wide[:, 50:].any()
    assert np.array_equal(wide @ wide.T, rows @ rows.T)
    assert dense_index.padded(wide) is wide
    assert [dense_index.index_width(d) for d in (8, 48, 50, 64, 300, 384)] == [
        8,
        48,
        56,
        72,
        304,
        392,
    ]


def test_an_index_holds_the_leading_directions_of_rows_that_leave_some_empty(msrp_glove):
    _, embeddings = msrp_glove
    unit = ann.normalise(embeddings).matrix
    index = run_job(ann.iter_build_index(unit, cache=False))
    rows = dense_index.index_rows(index, unit[:500])
    # glove's 50 dimensions keep 99.99% of MSRP's energy in 48, an eighth narrower than 56.
    assert rows.shape[1] == dense_index.ivf(index).d == 48
    assert np.abs(rows @ rows.T - unit[:500] @ unit[:500].T).max() < 1e-3
    # Rows that fill every direction are padded instead.
    spread = ann.normalise(np.random.default_rng(0).standard_normal((3_000, 50))).matrix
    assert dense_index.ivf(run_job(ann.iter_build_index(spread, cache=False))).d == 56


@pytest.mark.parametrize("dim", [50, 384])
def test_scanning_the_codes_as_numbers_finds_what_decoding_them_finds(dim):
    import faiss

    rows = np.random.default_rng(dim).standard_normal((6_000, dim)).astype(np.float32)
    unit = ann.normalise(rows).matrix
    index = run_job(ann.iter_build_index(unit, cache=False))
    scan = dense_index.code_scan(index)
    assert scan is not None  # widths that are not multiples of 16 keep faiss's float kernel
    queries = dense_index.padded(unit[:300])
    params = faiss.SearchParametersIVF(nprobe=8)
    _, decoded = index.search(queries, 40, params=params)
    # The same candidates (their order is the exact rescoring's to set).
    found = dense_index.candidates(index, scan, queries, 40, params)
    assert np.array_equal(np.sort(found, axis=1), np.sort(decoded, axis=1))


def test_an_index_whose_codes_faiss_reads_as_bytes_is_searched_by_decoding_them():
    import faiss

    rows = ann.normalise(np.random.default_rng(1).standard_normal((4_000, 64))).matrix
    quantizer = faiss.IndexFlatIP(64)
    index = faiss.IndexIVFScalarQuantizer(
        quantizer, 64, 32, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
    )
    index.train(rows)
    index.add(rows)
    params = faiss.SearchParametersIVF(nprobe=4)
    _, decoded = index.search(rows[:200], 30, params=params)
    # Where this CPU's faiss reads even-width codes as bytes, the check sends the search
    # to the index itself; elsewhere the scan is right: the same candidates either way.
    found = dense_index.candidates(index, dense_index.code_scan(index), rows[:200], 30, params)
    assert np.array_equal(np.sort(found, axis=1), np.sort(decoded, axis=1))


def test_same_neighbours_whatever_the_thread_count(msrp_glove):
    import faiss

    _, embeddings = msrp_glove
    answers = []
    for threads in (1, 2):
        faiss.omp_set_num_threads(threads)
        answers.append(ann.knn(embeddings, embeddings, 10, search="ann", cache=False))
    assert np.array_equal(answers[0][0], answers[1][0])
    assert np.array_equal(answers[0][1], answers[1][1])
    assert answers[0][2] == answers[1][2]


def test_a_new_index_keeps_the_narrowest_search_breadth_reaching_the_target(
    msrp_glove, monkeypatch
):
    _, embeddings = msrp_glove
    unit = ann.normalise(embeddings).matrix
    monkeypatch.setattr(ann, "BREADTHS", (1, 16, 32, 64))
    # One list of 280 finds too few; 16 reach 0.95 on MSRP.
    index = run_job(ann.iter_build_index(unit, cache=False))
    assert dense_index.ivf(index).nlist == 280 and run_job(ann.tuned(index, unit, 10))[0] == 16
    # More neighbours need more lists (a ranking asks for 101).
    nprobe, search = run_job(ann.tuned(index, unit, 101))
    assert nprobe > 16 and search.k == 101 and search.recall >= 0.95
    monkeypatch.setattr(ann, "TARGET_RECALL", -1.0)
    index = run_job(ann.iter_build_index(unit.copy(), cache=False))
    assert run_job(ann.tuned(index, unit, 10))[0] == 1
    # A search asking for more candidates than one list holds fills what it can.
    indices, similarities = run_job(
        ann.iter_search_index(index, unit[:5], 200, pool=unit, nprobe=1)
    )
    assert (indices >= 0).any(axis=1).all()
    assert (similarities[indices < 0] == -np.inf).all()


def test_the_tuned_recall_is_kept_with_the_cached_index(msrp_glove):
    _, embeddings = msrp_glove
    pool = embeddings[:4_000]
    query = embeddings[4_000:4_001]
    first = ann.knn(query, pool, 10, search="ann")[2]
    ann._recent.clear()  # as after reopening the app: only the disk cache is left
    measured = []
    original = ann.measure_recall

    def counted(*args, **kwargs):
        measured.append(1)
        return (yield from original(*args, **kwargs))

    try:
        ann.measure_recall = counted
        again = ann.knn(query, pool, 10, search="ann")[2]
    finally:
        ann.measure_recall = original
    assert again == first and first.recall >= 0.95 and not measured


def test_a_build_holds_only_its_own_thread_to_one_openmp_thread(msrp_glove):
    """Another thread's faiss keeps its thread count while an index builds, and the
    building thread keeps its own between steps (another job may set it there) and
    gets it back after a build and after a cancelled one."""
    import threading

    import faiss

    _, embeddings = msrp_glove
    unit = ann.normalise(embeddings).matrix
    faiss.omp_set_num_threads(2)
    seen_here, seen_there, building = [], [], threading.Event()

    def build():
        faiss.omp_set_num_threads(2)
        job = ann.iter_build_index(unit, cache=False)
        next(job), next(job)
        building.set()
        seen_there.append(faiss.omp_get_max_threads())
        faiss.omp_set_num_threads(3)  # as another job in this thread might
        run_job(job)
        seen_there.append(faiss.omp_get_max_threads())
        faiss.omp_set_num_threads(2)
        job = ann.iter_build_index(unit[::-1], cache=False)
        next(job), next(job)
        job.close()
        seen_there.append(faiss.omp_get_max_threads())

    worker = threading.Thread(target=build)
    worker.start()
    building.wait()
    while worker.is_alive():
        seen_here.append(faiss.omp_get_max_threads())
    worker.join()
    assert seen_here and set(seen_here) == {2}
    assert seen_there == [2, 3, 2]


def test_auto_is_exact_below_the_limit_and_sparse_rows_get_a_graph_above_it(msrp_glove):
    _, embeddings = msrp_glove
    assert ann.choose(embeddings) == "exact"
    assert ann.choose(embeddings, limit=1_000) == "ivf-sq8"
    import scipy.sparse as sp

    sparse = sp.csr_array(embeddings[:100])
    assert ann.choose(sparse) == "exact"
    assert ann.choose(sparse, limit=10) == ann.choose(sparse, "ann") == "nn-descent"
    with pytest.raises(ValueError, match="unknown"):
        ann.choose(embeddings, "annoy")
    _, _, search = ann.knn(embeddings[:500], embeddings, 5)
    assert search == ann.Search("exact", 5) and search.describe() == "exact"


def test_index_is_cached_and_a_damaged_file_is_rebuilt(msrp_glove):
    _, embeddings = msrp_glove
    pool = embeddings[:3_000]
    first = ann.knn(pool, pool, 10, search="ann")
    [stored] = ann.index_dir().glob(f"{ann.index_key(ann.normalise(pool).matrix)}.faiss")
    assert stored.with_suffix(".json").is_file()
    assert np.array_equal(ann.knn(pool, pool, 10, search="ann")[0], first[0])
    data = bytearray(stored.read_bytes())
    data[len(data) // 2] ^= 0xFF
    stored.write_bytes(bytes(data))
    again = ann.knn(pool, pool, 10, search="ann")
    assert np.array_equal(again[0], first[0])
    assert stored.read_bytes() != bytes(data)


def test_cancelled_build_leaves_no_index(msrp_glove):
    _, embeddings = msrp_glove
    unit = ann.normalise(embeddings[::-1]).matrix  # rows no other test indexes
    job = ann.iter_build_index(unit)
    next(job), next(job)  # the first chunk is in
    job.close()
    assert not list(ann.index_dir().glob(f"{ann.index_key(unit)}*"))
    index = run_job(ann.iter_build_index(unit, cache=False))
    assert index.ntotal == len(unit)


# --- consumers forced to the index by a low limit give the exact answers, and say so ----------


def test_faithfulness_on_a_sample_with_the_index_matches_exact(msrp_glove, monkeypatch):
    from sentspace.app.analysis.projection import faithfulness, project

    _, embeddings = msrp_glove
    layout = run_job(project(embeddings, "pca")).coordinates
    exact = faithfulness(embeddings, layout)
    assert exact.measured is None and not exact.search.approximate
    assert not np.isnan(exact.overlap).any()
    monkeypatch.setattr(ann, "EXACT_LIMIT", 1_000)
    sampled = faithfulness(embeddings, layout, sample=2_000)
    assert sampled.search.approximate and sampled.search.recall >= 0.95
    assert len(sampled.measured) == 2_000 and np.isnan(sampled.overlap).sum() == 8_944
    assert "a sample of 2,000 of 10,944 points" in sampled.describe()
    same_points = exact.overlap[sampled.measured]
    assert np.abs(sampled.overlap[sampled.measured] - same_points).mean() < 0.01
    assert abs(sampled.mean_overlap - exact.mean_overlap) < 0.02


def test_suspicious_tables_with_the_index_match_exact(msrp_glove, monkeypatch):
    from sentspace.app.analysis.suspicious import close_groups, misgrouped

    corpus, embeddings = msrp_glove
    spaces = {"glove-mean": embeddings}
    exact_sentences = misgrouped(corpus, spaces)
    exact_groups = close_groups(corpus, spaces)
    assert [s.method for s in exact_sentences.searches] == ["exact"]
    # MSRP's 275 paraphrase groups hold 862 sentences.
    monkeypatch.setattr(ann, "EXACT_LIMIT", 100)
    approximate = misgrouped(corpus, spaces)
    [search] = approximate.searches
    assert search.approximate and search.recall >= 0.95
    by_row = lambda t: dict(
        zip(zip(t.sentence.tolist(), t.group.tolist()), t.share_outside.tolist())
    )
    exact_share, approximate_share = by_row(exact_sentences), by_row(approximate)
    differing = sum(exact_share[key] != approximate_share[key] for key in exact_share)
    assert differing / len(exact_share) < 0.02
    groups = close_groups(corpus, spaces)
    assert groups.searches[0].approximate
    top = lambda t: set(zip(t.first[:50].tolist(), t.second[:50].tolist()))
    assert len(top(groups) & top(exact_groups)) >= 48


def test_the_same_rows_normalised_again_share_the_index_in_memory(msrp_glove):
    _, embeddings = msrp_glove
    pool = embeddings[:2_500]
    held = ann.normalise(pool).matrix  # as the Inspector keeps its pool
    first = run_job(ann.iter_build_index(held))
    again = ann.normalise(pool).matrix  # another array, equal to the first
    assert run_job(ann.iter_build_index(again)) is first


def test_a_pool_asked_again_gets_its_index_back_until_it_is_gone(msrp_glove):
    import gc

    _, embeddings = msrp_glove
    unit = ann.normalise(embeddings[:2_000]).matrix
    first = run_job(ann.iter_build_index(unit, cache=False))
    assert run_job(ann.iter_build_index(unit, cache=False)) is first
    held = len(ann._recent)
    del unit, first
    gc.collect()
    assert len(ann._recent) == held - 1


def test_one_matrix_normalised_twice_shares_its_unit_rows_while_they_are_used(msrp_glove):
    import gc

    _, embeddings = msrp_glove
    held = ann.normalise(embeddings)  # as the Inspector keeps its pool
    assert ann.normalise(embeddings) is held
    assert ann.normalise(embeddings.copy()) is not held
    matrix = held.matrix.copy()
    del held
    gc.collect()
    again = ann.normalise(embeddings)  # nobody held the first: made anew, equal
    assert np.array_equal(again.matrix, matrix)


def test_the_exact_scan_gives_the_same_neighbours_and_cosines_on_any_thread_count(msrp_glove):
    """BLAS's block product moves its last bits with the thread count (on MSRP's glove
    rows, in millions of cells); the neighbours and cosines a scan returns must not."""
    from threadpoolctl import threadpool_limits

    _, embeddings = msrp_glove
    unit = ann.normalise(embeddings)
    itself = np.arange(len(embeddings))
    answers, blocks = [], []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            blocks.append(unit.matrix[:2000] @ unit.matrix.T)
            answers.append(top_k(unit, unit, 10, exclude=itself))
    assert answers[0][0].shape == (len(embeddings), 10)
    assert np.array_equal(answers[0][0], answers[1][0])
    assert np.array_equal(answers[0][1], answers[1][1])
    # What the scan guards against, where BLAS runs on two threads here.
    if not np.array_equal(*blocks):
        assert np.abs(blocks[0] - blocks[1]).max() < 1e-6
