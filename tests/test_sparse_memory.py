"""A sparse encoder's rows stay sparse through the window's run: bag of words on the
5,070 Multi30K validation captions is encoded, projected (PCA, and UMAP without the
reduction, fitted on a sample with the rest placed), measured, grouped into regions,
classified, searched for neighbours and for suspicious annotations without any
(rows, vocabulary) matrix made dense. At 145,000 captions such a matrix was 145,000 x
17,731 float32 (10 GB)."""

import contextlib
import traceback

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import _base, _compressed, _coo

from sentspace.app.analysis.explore import explore
from sentspace.app.analysis.neighbour_search import Query, search_neighbours
from sentspace.app.analysis.neighbours import normalise
from sentspace.app.analysis.projection import (
    _fit_tsne,
    _marked,
    place_by_neighbours,
    stratified_sample,
)
from sentspace.app.analysis.regions import find_regions
from sentspace.app.analysis.suspicious import iter_find_suspicious
from sentspace.app.base.jobs import run_job
from sentspace.models import make_encoder

CAPTIONS = "multi30k-captions:en:val"


@contextlib.contextmanager
def dense_copies(width: int, min_rows: int = 100):
    """Records ``(shape, stack)`` of every sparse matrix or array at least ``min_rows``
    by ``width`` made dense (``toarray``, ``todense``) inside the block."""
    made = []
    inside = [False]  # todense and the generic toarray go through another toarray
    patch = pytest.MonkeyPatch()

    def watched(original):
        def densify(self, *args, **kwargs):
            shape, outer = self.shape, not inside[0]
            if outer and len(shape) == 2 and shape[1] == width and shape[0] >= min_rows:
                made.append((shape, "".join(traceback.format_stack(limit=8)[:-1])))
            inside[0] = True
            try:
                return original(self, *args, **kwargs)
            finally:
                inside[0] = not outer

        return densify

    for cls in (_base._spbase, _compressed._cs_matrix, _coo._coo_base):
        for name in ("toarray", "todense"):
            if name in vars(cls):
                patch.setattr(cls, name, watched(getattr(cls, name)))
    try:
        yield made
    finally:
        patch.undo()


@pytest.fixture(scope="module")
def captions():
    from sentspace.app.corpora import load_corpus

    corpus = load_corpus(CAPTIONS)
    assert len(corpus) == 5_070
    return corpus


@pytest.fixture(scope="module")
def rows(captions):
    matrix = make_encoder("bow").fit(captions.texts).encode(captions.texts, sparse=True)
    assert sp.issparse(matrix) and matrix.shape == (5_070, 4_283)
    return matrix


def test_the_watch_sees_a_dense_copy(rows):
    with dense_copies(rows.shape[1]) as made:
        rows[:10].toarray()
        sp.csr_array(rows).toarray()
        rows.tocsc().todense()
    assert [shape for shape, _ in made] == [rows.shape, rows.shape]


def test_the_windows_run_keeps_bag_of_words_sparse(captions, rows):
    width = rows.shape[1]
    with dense_copies(width) as made:
        exploration = run_job(explore(captions, make_encoder("bow")))
        embeddings = exploration.embeddings
        coordinates = exploration.projection.coordinates
        run_job(find_regions(captions, coordinates, embeddings=embeddings))
        run_job(find_regions(captions, coordinates, embeddings=embeddings, on="embeddings"))
        run_job(
            search_neighbours(
                captions, [("", None, embeddings)], [normalise(embeddings)], Query("", 0), 10
            )
        )
        lists = run_job(iter_find_suspicious(captions, [make_encoder("bow")]))
    assert sp.issparse(embeddings) and embeddings.shape == rows.shape
    assert exploration.classification is not None and exploration.faithfulness is not None
    assert lists
    assert not made, made[0][1]


def test_umap_without_the_reduction_places_sparse_rows_sparse(captions, rows):
    # The window's UMAP with "PCA first" unchecked, fitted on a sample: the rest placed.
    with dense_copies(rows.shape[1]) as made:
        exploration = run_job(
            explore(
                captions,
                make_encoder("bow"),
                method="umap",
                projection_parameters={"pca_dims": None, "sample": 2_000},
            )
        )
    projection = exploration.projection
    assert projection.fitted_on is not None and 1_900 < len(projection.fitted_on) < 2_100
    assert np.isfinite(projection.coordinates).all()
    assert not made, made[0][1]


@pytest.mark.parametrize("size", [1_000, 2_500])
def test_sparse_rows_are_placed_by_their_exact_neighbours(captions, rows, size):
    """The placement of sparse rows against the brute force over their dense unit rows,
    float64: each row's k best cosines agree, and where the k-th is not tied with the
    next (so the neighbours are one set) its position is the same weighted mean."""
    k = 10
    fitted = stratified_sample(len(captions), size, captions.groups.first_group(len(captions)), 0)
    layout = np.random.default_rng(0).normal(size=(len(fitted), 2)).astype(np.float32)
    with dense_copies(rows.shape[1]) as made:
        placed = run_job(place_by_neighbours(rows, fitted, layout, k))
    assert not made
    assert np.array_equal(placed[fitted], layout)

    unit = normalise(rows.toarray()).matrix.astype(np.float64)
    rest = np.flatnonzero(~_marked(len(captions), fitted))
    cosines = unit[rest] @ unit[fitted].T
    order = np.argsort(-cosines, axis=1, kind="stable")
    best = np.take_along_axis(cosines, order[:, : k + 1], axis=1)
    nearest = order[:, :k]
    weights = 1.0 / np.maximum(1.0 - best[:, :k], 1e-3)
    expected = np.einsum("ij,ijd->id", weights, layout[nearest]) / weights.sum(1, keepdims=True)
    one_set = best[:, k - 1] - best[:, k] > 1e-5
    assert one_set.mean() > 0.3
    np.testing.assert_allclose(placed[rest][one_set], expected[one_set], rtol=0, atol=1e-4)
    # The same seed, the same layout.
    assert np.array_equal(run_job(place_by_neighbours(rows, fitted, layout, k)), placed)


def test_tsne_takes_sparse_rows_as_they_are(rows):
    # In the layout process the watch cannot see; here it can. Fitted on 1,000 of 1,500
    # rows, the other 500 placed by openTSNE's transform.
    some = rows[:1_500]
    fitted = np.sort(np.random.default_rng(0).choice(1_500, 1_000, replace=False))
    with dense_copies(rows.shape[1]) as made:
        layout = _fit_tsne(some, fitted, 0, {"perplexity": 30.0})
    assert not made, made[0][1]
    assert layout.shape == (1_500, 2) and layout.dtype == np.float32
    assert np.isfinite(layout).all() and len(np.unique(layout, axis=0)) > 1_400
