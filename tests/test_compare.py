"""Aligning two layouts and measuring neighbourhood change between two spaces."""

import numpy as np
import pytest

from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.compare import (
    DEFAULT_K,
    align_layouts,
    compare_encoders,
    iter_neighbourhood_change,
    jaccard_change,
    layout_disparity,
)
from sentspace.app.analysis.neighbours import top_k
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus
from sentspace.models import make_encoder


@pytest.fixture(scope="module")
def msrp():
    return load_corpus("msrp-grouped")


def test_procrustes_undoes_rotation_reflection_scale_and_shift():
    rng = np.random.default_rng(0)
    reference = rng.normal(size=(200, 2))
    angle = 0.7
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    mirrored = (reference @ rotation) * [-1, 1]
    moving = 3.5 * mirrored + [10.0, -4.0]
    alignment = align_layouts(reference, moving)
    assert np.allclose(alignment.coordinates, reference, atol=1e-5)
    assert alignment.scale == pytest.approx(1 / 3.5)
    assert alignment.disparity == pytest.approx(0.0, abs=1e-12)
    assert np.allclose(alignment.rotation @ alignment.rotation.T, np.eye(2))


def test_procrustes_disparity_matches_scipy_and_collapsed_layouts():
    from scipy.spatial import procrustes

    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(50, 2)), rng.normal(size=(50, 2))
    assert align_layouts(a, b).disparity == pytest.approx(procrustes(a, b)[2])
    collapsed = align_layouts(a, np.zeros((50, 2)))
    assert np.allclose(collapsed.coordinates, a.mean(axis=0)) and collapsed.disparity == 1
    with pytest.raises(ValueError, match="same"):
        align_layouts(a, b[:10])


def test_jaccard_change_counts_shared_neighbours():
    first = np.array([[1, 2, 3], [1, 2, 3], [1, 2, 3]])
    second = np.array([[3, 2, 1], [1, 2, 9], [7, 8, 9]])
    # Same set; 2 shared of 4 in the union; none shared.
    assert np.allclose(jaccard_change(first, second), [0.0, 0.5, 1.0])


def test_identical_spaces_do_not_change(msrp):
    embeddings = run_job(encode_corpus(msrp, make_encoder("bow")))
    change = run_job(iter_neighbourhood_change(embeddings, embeddings, k=5))
    assert change.k == 5 and (change.change == 0).all() and change.mean == 0


def test_bow_against_tfidf_on_msrp(msrp):
    comparison = run_job(compare_encoders(msrp, make_encoder("bow"), make_encoder("tfidf")))
    change = comparison.change
    n = len(msrp)
    assert comparison.names == ("bow", "tfidf")
    assert change.neighbours_a.shape == change.neighbours_b.shape == (n, DEFAULT_K)
    # The neighbour lists are exactly the top-k of each space, without the sentence itself.
    bow = run_job(encode_corpus(msrp, make_encoder("bow")))
    tfidf = run_job(encode_corpus(msrp, make_encoder("tfidf")))
    expected_a, _ = top_k(bow, bow, DEFAULT_K, exclude=np.arange(n))
    expected_b, _ = top_k(tfidf, tfidf, DEFAULT_K, exclude=np.arange(n))
    assert np.array_equal(change.neighbours_a, expected_a)
    assert np.array_equal(change.neighbours_b, expected_b)
    assert not (change.neighbours_a == np.arange(n)[:, None]).any()
    # Per sentence, 1 - Jaccard of the two sets, checked with Python sets.
    for i in (0, 100, 500):
        a, b = set(expected_a[i]), set(expected_b[i])
        assert change.change[i] == pytest.approx(1 - len(a & b) / len(a | b))
    # TF-IDF reweights words, so neighbourhoods move, but paraphrases stay close.
    assert 0.5 < change.mean < 0.8
    order = change.most_changed()
    assert np.all(np.diff(change.change[order]) <= 0)
    assert change.most_changed(5).tolist() == order[:5].tolist()
    alignment = comparison.alignment
    assert alignment.coordinates.shape == (n, 2) and 0 <= alignment.disparity < 1


def test_layout_disparity_is_the_procrustes_disparity():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(80, 2)), rng.normal(size=(80, 2))
    assert layout_disparity(a, b) == pytest.approx(align_layouts(a, b).disparity)
    turned = 2.0 * a @ np.array([[0.0, -1.0], [1.0, 0.0]]) + 5.0
    assert layout_disparity(a, turned) == pytest.approx(0.0, abs=1e-12)


@pytest.fixture(scope="module")
def msrp_start(msrp):
    """The first 150 sentences of the bundled corpus: enough for UMAP's neighbourhoods,
    small enough to fit in a second once numba has compiled."""
    return Corpus("msrp-grouped[:150]", msrp.texts[:150], msrp.ids[:150])


@pytest.fixture(scope="module")
def umap_comparisons(msrp_start):
    """bow vs tfidf, UMAP with non-default parameters and seed 0, aligned both ways."""
    parameters = {"n_neighbors": 10, "min_dist": 0.2}
    return {
        alignment: run_job(
            compare_encoders(
                msrp_start,
                make_encoder("bow"),
                make_encoder("tfidf"),
                method="umap",
                alignment=alignment,
                seed=0,
                **parameters,
            )
        )
        for alignment in ("procrustes", "aligned-umap")
    }


def _mean_distance_after_centring(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm((a - a.mean(axis=0)) - (b - b.mean(axis=0)), axis=1).mean())


def test_aligned_umap_keeps_b_near_a_where_procrustes_cannot(umap_comparisons):
    procrustes = umap_comparisons["procrustes"]
    aligned = umap_comparisons["aligned-umap"]
    assert aligned.alignment.method == "aligned-umap"
    assert procrustes.alignment.method == "procrustes"
    layout = aligned.alignment.coordinates
    assert layout.shape == (150, 2) and layout.dtype == np.float32
    assert np.isfinite(layout).all()
    assert np.array_equal(layout, aligned.projection_b.coordinates)
    assert np.array_equal(aligned.alignment.rotation, np.eye(2))
    assert aligned.alignment.scale == 1.0
    assert 0 <= aligned.alignment.disparity <= 1
    assert aligned.alignment.disparity == pytest.approx(
        layout_disparity(aligned.projection_a.coordinates, layout)
    )
    # Two UMAP layouts fitted apart differ by far more than a rotation (measured: 0.75);
    # fitted together, B stays near A (0.32). Over seeds 0-4 the ratio was 0.33-0.71.
    assert aligned.alignment.disparity < 0.75 * procrustes.alignment.disparity
    # And in plain distance between the centred layouts (measured: 2.02 against 1.32).
    assert _mean_distance_after_centring(
        aligned.projection_a.coordinates, layout
    ) < _mean_distance_after_centring(
        procrustes.projection_a.coordinates, procrustes.alignment.coordinates
    )
    # The neighbourhoods compared are the spaces', whatever the layout.
    assert np.array_equal(aligned.change.change, procrustes.change.change)


def test_the_seed_reaches_the_aligned_layout(umap_comparisons, msrp_start):
    # AlignedUMAP draws its joint layout from transform_seed; random_state alone left
    # every seed's layout the same.
    reseeded = run_job(
        compare_encoders(
            msrp_start,
            make_encoder("bow"),
            make_encoder("tfidf"),
            method="umap",
            alignment="aligned-umap",
            seed=1,
            n_neighbors=10,
            min_dist=0.2,
        )
    )
    first = umap_comparisons["aligned-umap"].alignment.coordinates
    assert not np.allclose(reseeded.alignment.coordinates, first)
    assert reseeded.projection_a.parameters["seed"] == 1


def test_projection_parameters_reach_both_alignments(umap_comparisons):
    for alignment, comparison in umap_comparisons.items():
        for projection in (comparison.projection_a, comparison.projection_b):
            assert projection.method == "umap"
            assert projection.parameters["n_neighbors"] == 10
            assert projection.parameters["min_dist"] == 0.2
            assert projection.parameters.get("alignment", "procrustes") == alignment


def test_alignment_is_checked_before_any_work(msrp):
    bow, tfidf = make_encoder("bow"), make_encoder("tfidf")
    with pytest.raises(ValueError, match="unknown alignment 'cca'"):
        next(compare_encoders(msrp, bow, tfidf, alignment="cca"))
    with pytest.raises(ValueError, match="method must be 'umap', not 'pca'"):
        next(compare_encoders(msrp, bow, tfidf, method="pca", alignment="aligned-umap"))
