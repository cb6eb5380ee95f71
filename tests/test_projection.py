import numpy as np
import pytest

from sentspace.app.analysis.projection import faithfulness, iter_faithfulness, project
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.models.bow import BagOfWords, TfIdf


@pytest.fixture(scope="module")
def tfidf_embeddings():
    corpus = load_corpus("msrp-grouped")
    return TfIdf().fit(corpus.texts).encode(corpus.texts, sparse=True)


def test_pca_of_sparse_embeddings_is_deterministic(tfidf_embeddings):
    a = run_job(project(tfidf_embeddings, "pca"))
    b = run_job(project(tfidf_embeddings, "pca"))
    assert a.coordinates.shape == (859, 2) and a.coordinates.dtype == np.float32
    assert np.array_equal(a.coordinates, b.coordinates)
    assert 0 < a.explained_variance_ratio[1] <= a.explained_variance_ratio[0] < 1


def test_neighbour_methods_keep_more_neighbours_than_pca(tfidf_embeddings):
    """t-SNE and UMAP preserve local neighbourhoods that a linear 2D PCA loses."""
    pca = run_job(project(tfidf_embeddings, "pca"))
    pca_kept = faithfulness(tfidf_embeddings, pca.coordinates).mean_overlap
    for method in ("tsne", "umap"):
        layout = run_job(project(tfidf_embeddings, method, seed=1))
        assert layout.coordinates.shape == (859, 2)
        assert np.isfinite(layout.coordinates).all()
        assert layout.parameters["seed"] == 1 and layout.parameters["pca_dims"] == 50
        kept = faithfulness(tfidf_embeddings, layout.coordinates).mean_overlap
        assert kept > 2 * pca_kept, (method, kept, pca_kept)


def test_faithfulness_of_a_perfect_and_a_scrambled_layout():
    # Points on the unit circle: cosine order in the embedding equals distance order in
    # the plane, so the identity layout keeps every neighbour.
    rng = np.random.default_rng(0)
    angles = rng.uniform(0, 2 * np.pi, 300)
    circle = np.c_[np.cos(angles), np.sin(angles)].astype(np.float32)
    exact = faithfulness(circle, circle, k=5)
    assert exact.overlap.shape == (300,)
    assert exact.mean_overlap == 1.0
    scrambled = faithfulness(circle, rng.permutation(circle), k=5)
    assert scrambled.mean_overlap < 0.1


def test_a_small_faithfulness_reads_with_its_digits_not_as_zero():
    """A scrambled layout of 5,000 points keeps about 10 in 5,000 neighbours, as a UMAP of
    a million points keeps a few thousandths: "0.00" would read as broken."""
    from sentspace.app.corpora.listing import describe_sentence

    rng = np.random.default_rng(0)
    angles = rng.uniform(0, 2 * np.pi, 5000)
    circle = np.c_[np.cos(angles), np.sin(angles)].astype(np.float32)
    scrambled = faithfulness(circle, rng.permutation(circle), k=10)
    mean = scrambled.mean_overlap
    assert 0 < mean < 0.005
    assert scrambled.share(mean) == f"{mean:.3g}" and scrambled.share(mean) != "0.00"
    assert float(scrambled.share(mean)) == pytest.approx(mean, rel=5e-3)
    assert scrambled.share(0.123456) == "0.123" and scrambled.share(1.0) == "1"
    # Per point, a share of k = 15 neighbours is said to three digits too.
    fifteen = faithfulness(circle[:859], rng.permutation(circle[:859]), k=15)
    index = int(np.flatnonzero(fifteen.overlap == 1 / 15)[0])
    msrp = load_corpus("msrp-grouped")
    groups = np.full(len(msrp), -1)
    assert describe_sentence(msrp, index, groups, fifteen).endswith(
        ", no group, faithfulness 0.0667]"
    )


@pytest.fixture
def small_blocks(monkeypatch):
    """Exact neighbour searches in blocks of 100 query rows, so a job over the bundled
    corpus yields several times; returns the list of blocks computed."""
    import sentspace.app.analysis.neighbours

    computed = []
    similarity_block = sentspace.app.analysis.neighbours._similarity_block
    monkeypatch.setattr(
        sentspace.app.analysis.neighbours, "block_rows", lambda n_pool, memory_mb: 100
    )
    monkeypatch.setattr(
        sentspace.app.analysis.neighbours,
        "_similarity_block",
        lambda *args: computed.append(1) or similarity_block(*args),
    )
    return computed


@pytest.mark.parametrize(
    "encoder, mean, shared, histogram",
    [
        (BagOfWords, 0.11746216530849828, 1009, [327, 288, 135, 50, 23, 19, 9, 5, 2, 1, 0]),
        (TfIdf, 0.10989522700814902, 944, [347, 268, 137, 59, 25, 14, 8, 1, 0, 0, 0]),
    ],
)
def test_faithfulness_of_the_bundled_corpus_as_measured_before_it_was_a_job(
    encoder, mean, shared, histogram
):
    corpus = load_corpus("msrp-grouped")
    embeddings = encoder().fit(corpus.texts).encode(corpus.texts, sparse=True)
    pca = run_job(project(embeddings, "pca"))
    measured = run_job(iter_faithfulness(embeddings, pca.coordinates))
    # Neighbours kept, summed over the 859 sentences, and how many keep 0, 1, ... 10.
    # Bag-of-words cosines tie exactly, and which of the tied sentences is the 10th
    # neighbour depends on the order the sparse product sums them (scipy's version): a
    # band of 2 shared neighbours, and of 4 sentences moved between bars.
    assert measured.k == 10 and abs(round(measured.overlap.sum() * 10) - shared) <= 2
    bars = np.bincount(np.round(measured.overlap * 10).astype(int), minlength=11)
    assert np.abs(bars - np.array(histogram)).sum() <= 4
    assert measured.mean_overlap == pytest.approx(mean, abs=2 / 8590)
    assert np.array_equal(faithfulness(embeddings, pca.coordinates).overlap, measured.overlap)


def test_faithfulness_reports_progress_and_cancels_at_a_yield(tfidf_embeddings, small_blocks):
    coordinates = run_job(project(tfidf_embeddings, "pca")).coordinates
    steps = []
    whole = run_job(iter_faithfulness(tfidf_embeddings, coordinates), steps.append)
    searched = [(s.done, s.total) for s in steps if s.stage == "nearest neighbours"]
    assert searched == [(min(stop, 859), 859) for stop in range(100, 1000, 100)]
    # A count (neighbours shared), exactly: 944 of 859 x 10.
    assert len(small_blocks) == 9 and round(whole.mean_overlap * 8590) == 944
    small_blocks.clear()
    job = iter_faithfulness(tfidf_embeddings, coordinates)
    while next(job).stage != "nearest neighbours":
        pass
    job.close()  # what the GUI's Cancel does
    with pytest.raises(StopIteration):
        next(job)
    assert len(small_blocks) == 1  # no block was computed after the cancel


def test_unknown_method_or_parameter_is_refused(tfidf_embeddings):
    with pytest.raises(ValueError, match="unknown projection"):
        next(project(tfidf_embeddings, "mds"))
    with pytest.raises(ValueError, match="perplexity"):
        next(project(tfidf_embeddings, "umap", perplexity=5))


def test_points_in_polygon_even_odd():
    from sentspace.app.analysis.projection import points_in_polygon

    grid = np.stack(np.meshgrid(np.arange(10), np.arange(10)), -1).reshape(-1, 2) + 0.5
    square = np.array([(0, 0), (5, 0), (5, 5), (0, 5)])
    assert len(points_in_polygon(grid, square)) == 25
    triangle = np.array([(0, 0), (10, 0), (0, 10)])
    inside = points_in_polygon(grid, triangle)
    assert np.all(grid[inside].sum(axis=1) < 10) and len(inside) == 45
    assert len(points_in_polygon(grid, square[:2])) == 0


def test_layouts_run_in_a_helper_process_that_cancel_kills():
    from sentspace.app.analysis import layout_process

    rng = np.random.default_rng(0)
    points = rng.normal(size=(300, 10)).astype(np.float32)
    first = run_job(project(points, "tsne", seed=2))
    helper = layout_process._process
    assert helper is not None and helper.poll() is None and helper.pid != __import__("os").getpid()
    job = project(points, "tsne", seed=2)
    next(job), next(job), next(job)  # the fit is under way in the helper
    job.close()
    assert layout_process._process is None and helper.poll() is not None
    again = run_job(project(points, "tsne", seed=2))
    assert np.array_equal(first.coordinates, again.coordinates)


def test_a_helper_process_that_dies_is_reported_and_replaced():
    import os

    from sentspace.app.analysis.layout_process import run_elsewhere

    with pytest.raises(RuntimeError, match="ended unexpectedly"):
        run_job(run_elsewhere(os._exit, (3,), "dying"))
    assert run_job(run_elsewhere(divmod, (17, 5), "arithmetic")) == (3, 2)


def test_umap_fitted_on_a_stratified_sample_places_the_rest(shared_data):
    """MSRP's 10,944 sentences, fitted on about 1,000: every one of its 275 paraphrase
    groups is in the fit, and the placed points keep their neighbours far better than a
    shuffled placement would."""
    from sentspace.app.analysis.projection import stratified_sample
    from sentspace.models import make_encoder

    corpus = load_corpus(shared_data / "msrp")
    embeddings = make_encoder("glove-mean").encode(corpus.texts)
    strata = corpus.groups.first_group(len(corpus))
    n = len(corpus)
    layout = run_job(project(embeddings, "umap", sample=1_000, strata=strata))
    fitted = layout.fitted_on
    assert np.array_equal(fitted, stratified_sample(n, 1_000, strata, 0))
    assert abs(len(fitted) - 1_000) <= corpus.groups.n_groups
    assert set(strata[fitted]) == set(strata)
    assert layout.describe() == f"fitted on {len(fitted):,} of {n:,} points"
    assert np.isfinite(layout.coordinates).all()
    placed = np.setdiff1d(np.arange(n), fitted)
    kept = faithfulness(embeddings, layout.coordinates).overlap[placed].mean()
    shuffled = layout.coordinates.copy()
    shuffled[placed] = np.random.default_rng(0).permutation(shuffled[placed])
    baseline = faithfulness(embeddings, shuffled).overlap[placed].mean()
    assert kept > 5 * baseline, (kept, baseline)
    again = run_job(project(embeddings, "umap", sample=1_000, strata=strata))
    assert np.array_equal(again.coordinates, layout.coordinates)


def test_tsne_reports_each_iteration_and_places_the_rest_of_a_sample():
    """openTSNE fitted on 400 of 600 points (two separated blobs), the other 200 placed
    by its ``transform``: progress comes every 10 iterations of the fit and of the
    placement,
    the placed points land beside their neighbours, and a rerun gives the same layout."""
    rng = np.random.default_rng(0)
    points = rng.normal(size=(600, 10)).astype(np.float32)
    points[::2, 0] += 8
    steps = []
    layout = run_job(project(points, "tsne", seed=3, sample=400), steps.append)
    assert layout.describe() == "fitted on 400 of 600 points"
    assert layout.coordinates.shape == (600, 2) and np.isfinite(layout.coordinates).all()
    fit = [s.done for s in steps if s.stage == "t-SNE of 400 points: iterations"]
    placing = [s.done for s in steps if s.stage == "placing 200 points on the t-SNE layout"]
    assert sorted(set(fit)) == list(range(10, 751, 10)) and steps[-1].done == steps[-1].total
    assert sorted(set(placing)) == list(range(10, 251, 10))
    placed = np.setdiff1d(np.arange(600), layout.fitted_on)
    kept = faithfulness(points, layout.coordinates).overlap[placed].mean()
    shuffled = layout.coordinates.copy()
    shuffled[placed] = rng.permutation(shuffled[placed])
    assert kept > 3 * faithfulness(points, shuffled).overlap[placed].mean()
    again = run_job(project(points, "tsne", seed=3, sample=400))
    assert np.array_equal(again.coordinates, layout.coordinates)
