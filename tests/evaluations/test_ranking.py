import numpy as np
import pytest

from sentspace.app.analysis.chart_data import rank_bands
from sentspace.app.analysis.evaluations import applicable_evaluations
from sentspace.app.analysis.evaluations.detection import run_detection
from sentspace.app.analysis.evaluations.ranking import iter_evaluate_ranking, run_ranking
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus, PairTable
from sentspace.models.bow import BagOfWords

from ._pairs import msrp


@pytest.fixture(scope="module")
def msrp600(shared_data):
    return msrp(shared_data, n_per_file=300)


def test_ranks_equal_a_full_float64_sort(msrp600):
    result = run_job(run_ranking(msrp600, BagOfWords(), memory_mb=0.05, n_resamples=200))
    X = BagOfWords().fit(msrp600.texts).encode(msrp600.texts).astype(np.float64)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    full = X @ X.T
    positive = np.flatnonzero(msrp600.pairs.label == 1)
    assert len(result.rank) == 2 * len(positive) and result.pool_size == len(msrp600)
    for q, t, rank in zip(result.query, result.target, result.rank):
        row = np.delete(full[q], q)
        target = full[q, t]
        assert rank == 1 + np.sum(row >= target - 1e-9) - 1  # pessimistic ties
    metrics = result.metrics()
    assert metrics["accuracy@1"] == np.mean(result.rank <= 1)
    assert metrics["MRR"] == pytest.approx(np.mean(1 / result.rank))
    assert metrics["MRC"] == pytest.approx(np.mean(result.rank))
    for name, (low, high) in result.ci.items():
        assert low <= metrics[name] <= high
    mid = run_job(run_ranking(msrp600, BagOfWords(), ties="mid", n_resamples=0))
    assert np.all(mid.rank <= result.rank)


def test_dense_and_sparse_agree_and_are_deterministic(msrp600):
    sparse = BagOfWords().fit(msrp600.texts).encode(msrp600.texts, sparse=True)
    a = run_job(iter_evaluate_ranking(msrp600, sparse, seed=3))
    b = run_job(iter_evaluate_ranking(msrp600, sparse.toarray(), seed=3))
    np.testing.assert_array_equal(a.rank, b.rank)
    assert a.ci == b.ci


def test_zero_vector_queries_are_counted_and_ranked_last(msrp600):
    X = BagOfWords().fit(msrp600.texts).encode(msrp600.texts)
    q = msrp600.pairs.first[msrp600.pairs.label == 1][0]
    X[q] = 0
    result = run_job(iter_evaluate_ranking(msrp600, X, n_resamples=0))
    zero = result.degenerate_query
    assert zero.sum() == np.sum(result.query == q) >= 1
    assert np.all(result.rank[zero] == len(msrp600) - 1)
    assert result.n_degenerate_sentences == 1


def test_refuses_corpus_without_positive_pairs():
    pairs = PairTable([0], [1], [0], [np.nan], ("train",), ("s",))
    corpus = Corpus("x", ("a", "b"), ("1", "2"), pairs=pairs)
    with pytest.raises(EvaluationError, match="positive"):
        next(run_ranking(corpus, BagOfWords()))
    with pytest.raises(EvaluationError, match="ties"):
        next(run_ranking(corpus, BagOfWords(), ties="random"))


def test_class_labels_are_not_paraphrase_judgements(shared_data):
    """SICK's labels name entailment classes; ranking and detection must refuse them."""
    sick = load_corpus(shared_data / "sick" / "SICK_trial.txt")
    assert sick.pairs.label_names and not sick.pairs.has_paraphrase_labels
    assert "ranking" not in applicable_evaluations(sick)
    for run in (run_ranking, run_detection):
        with pytest.raises(EvaluationError):
            next(run(sick, BagOfWords()))


def test_rank_bands_are_the_ranks_accuracy_at_k_tells_apart():
    # Each band's edges, a mid-rank tie (1.5) and an approximate search's rank beyond
    # max(ks) (inf); ks in any order and repeated band the same.
    rank = np.array([1, 1.5, 2, 10, 11, 100, 101, np.inf])
    bands = rank_bands((100, 1, 10, 10), rank)
    assert bands.labels == ("1", "2–10", "11–100", "> 100")
    assert bands.band.tolist() == [0, 1, 1, 1, 2, 2, 3, 3]
    assert bands.counts.tolist() == [1, 3, 2, 2]
    # Empty bands are bars of height 0; thousands are written with commas.
    wide = rank_bands((1, 2, 1000, 5000), np.array([1.0, 1.0]))
    assert wide.labels == ("1", "2", "3–1,000", "1,001–5,000", "> 5,000")
    assert wide.counts.tolist() == [2, 0, 0, 0, 0]
