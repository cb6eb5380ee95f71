"""Aligning two layouts and measuring neighbourhood change between two spaces."""

import numpy as np
import pytest

from app.compare import (DEFAULT_K, align_layouts, compare_encoders,
                         iter_neighbourhood_change, jaccard_change)
from app.corpora import load_corpus
from app.jobs import run_job
from app.neighbours import encode_corpus, top_k
from models import make_encoder


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
