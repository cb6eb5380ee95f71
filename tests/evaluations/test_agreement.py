import json
from dataclasses import replace

import numpy as np
import pytest

from sentspace.app.analysis.evaluations import statistics
from sentspace.app.analysis.evaluations.agreement import (
    compare_classifications,
    misclassification_agreement,
    run_agreement,
)
from sentspace.app.analysis.evaluations.classification import run_classification
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Progress, run_job
from sentspace.app.corpora import load_corpus
from sentspace.models import RandomBagOfWords, make_encoder

ENCODERS = ("bow", "tfidf", "random-bow")


@pytest.fixture(scope="module")
def corpus():
    return load_corpus("msrp-grouped")


@pytest.fixture(scope="module")
def classifications(corpus):
    return [run_job(run_classification(corpus, make_encoder(name))) for name in ENCODERS]


@pytest.fixture(scope="module")
def result(classifications):
    return misclassification_agreement(classifications)


@pytest.fixture(scope="module")
def weak_result(corpus):
    """Small random projections make many, mostly different, mistakes."""
    encoders = [
        RandomBagOfWords(dimension=10, seed=0),
        RandomBagOfWords(dimension=10, seed=1),
        RandomBagOfWords(dimension=20, seed=0),
    ]
    return run_job(run_agreement(corpus, encoders))


def naive_counts(classifications):
    """Cell by cell and sentence by sentence, as the definition reads."""
    n = len(classifications)
    numerator = np.zeros((n, n), dtype=int)
    denominator = np.zeros((n, n), dtype=int)
    truth = classifications[0].true_group
    for i, a in enumerate(classifications):
        for j, b in enumerate(classifications):
            for k, y in enumerate(truth):
                if a.predicted_group[k] != y and b.predicted_group[k] != y:
                    denominator[i, j] += 1
                    numerator[i, j] += int(a.predicted_group[k] == b.predicted_group[k])
    return numerator, denominator


def test_counts_match_a_naive_loop(result, classifications):
    numerator, denominator = naive_counts(classifications)
    np.testing.assert_array_equal(result.numerator, numerator)
    np.testing.assert_array_equal(result.denominator, denominator)
    assert result.names == ENCODERS
    assert [len(c.misclassified) for c in classifications] == result.mistakes.tolist()
    # bow, tfidf and random-bow fail on the same few sentences, always the same way.
    assert result.mistakes.tolist() == [14, 9, 15]
    np.testing.assert_array_equal(result.numerator, [[14, 9, 14], [9, 9, 9], [14, 9, 15]])


def test_weak_encoders_disagree_and_match_a_naive_loop(weak_result, corpus):
    classifications = [
        run_job(run_classification(corpus, RandomBagOfWords(dimension=d, seed=s)))
        for d, s in ((10, 0), (10, 1), (20, 0))
    ]
    numerator, denominator = naive_counts(classifications)
    np.testing.assert_array_equal(weak_result.numerator, numerator)
    np.testing.assert_array_equal(weak_result.denominator, denominator)
    off_diagonal = ~np.eye(3, dtype=bool)
    assert np.all(weak_result.numerator[off_diagonal] < weak_result.denominator[off_diagonal])
    assert np.all(weak_result.agreement[off_diagonal] < 0.2)


@pytest.mark.parametrize("which", ["result", "weak_result"])
def test_matrix_properties(which, request):
    r = request.getfixturevalue(which)
    # Diagonal: an encoder agrees with itself on each of its mistakes.
    np.testing.assert_array_equal(np.diagonal(r.numerator), r.mistakes)
    np.testing.assert_array_equal(r.mistakes, r.wrong.sum(axis=1))
    assert np.all(np.diagonal(r.agreement) == 1.0)
    np.testing.assert_array_equal(r.numerator, r.numerator.T)
    np.testing.assert_array_equal(r.denominator, r.denominator.T)
    assert np.all(r.numerator <= r.denominator)
    assert np.all(r.denominator <= np.minimum.outer(r.mistakes, r.mistakes))
    for i in range(r.n_encoders):
        for j in range(r.n_encoders):
            same, both = r.same_mistake(i, j), r.both_wrong(i, j)
            assert len(same) == r.numerator[i, j] and len(both) == r.denominator[i, j]
            assert set(same) <= set(both) <= set(r.sentence_index)


def test_cell_sentences_are_wrong_the_same_way(weak_result):
    r = weak_result
    position = {s: k for k, s in enumerate(r.sentence_index)}
    for sentence in r.same_mistake(0, 2):
        k = position[sentence]
        assert r.predicted_group[0, k] == r.predicted_group[2, k] != r.true_group[k]
    for sentence in set(r.both_wrong(0, 2)) - set(r.same_mistake(0, 2)):
        k = position[sentence]
        assert r.predicted_group[0, k] != r.predicted_group[2, k]


def test_mcnemar_on_per_sentence_correctness(result, classifications):
    test = compare_classifications(classifications[0], classifications[1])
    assert test.detail == {"A right, B wrong": 0, "A wrong, B right": 5}
    assert test.p_value == pytest.approx(2 * 0.5**5)
    assert result.mcnemar(0, 1) == test
    direct = statistics.mcnemar(
        classifications[2].predicted_group == classifications[2].true_group,
        classifications[0].predicted_group == classifications[0].true_group,
    )
    assert result.mcnemar(2, 0) == direct


def test_summary_and_json(result):
    rows = dict(result.summary())
    assert rows["bow: mistakes"] == "14 of 859"
    assert rows["bow vs tfidf: same wrong group"] == "9/9 (1.0000)"
    assert rows["bow vs tfidf: McNemar p"] == "0.0625"
    data = json.loads(json.dumps(result.to_dict()))
    assert data["numerator"] == result.numerator.tolist()
    assert [e["encoder_family"] for e in data["encoders"]] == list(ENCODERS)
    assert len(data["predictions"]) == 859 and len(data["mcnemar"]) == 3
    assert result.provenance.encoder_name == "bow, tfidf, random-bow"
    assert result.provenance.parameters["seed"] == 0


def test_run_agreement_reports_progress_and_matches(corpus, result):
    job = run_agreement(corpus, [make_encoder(name) for name in ENCODERS])
    stages = []
    agreed = run_job(job, stages.append)
    assert Progress("agreement: encoders classified", 3, 3) in stages
    np.testing.assert_array_equal(agreed.numerator, result.numerator)
    np.testing.assert_array_equal(agreed.predicted_group, result.predicted_group)


def test_results_of_different_seeds_are_refused(corpus, classifications):
    other_seed = run_job(run_classification(corpus, make_encoder("tfidf"), seed=1))
    with pytest.raises(EvaluationError, match="seed=1, result 1 seed=0"):
        misclassification_agreement([classifications[0], other_seed])
    with pytest.raises(EvaluationError, match="same folds"):
        compare_classifications(classifications[0], other_seed)


def test_results_of_different_corpora_are_refused(classifications):
    bow = classifications[0]
    elsewhere = replace(
        bow, provenance=replace(bow.provenance, corpus_name="other", corpus_fingerprint="0" * 16)
    )
    with pytest.raises(EvaluationError, match="of corpus 'other'"):
        misclassification_agreement([bow, elsewhere])


def test_too_few_encoders_is_an_error_before_work(corpus, classifications):
    with pytest.raises(EvaluationError, match="at least 2"):
        run_job(run_agreement(corpus, [make_encoder("bow")]))
    with pytest.raises(EvaluationError, match="at least 2"):
        misclassification_agreement(classifications[:1])


def test_no_shared_mistake_is_nan_not_zero(classifications):
    bow = classifications[0]
    perfect = replace(bow, predicted_group=bow.true_group.copy())
    r = misclassification_agreement([bow, perfect])
    assert r.names == ("bow #1", "bow #2")
    assert r.mistakes.tolist() == [14, 0]
    assert r.agreement[0, 0] == 1.0 and np.isnan(r.agreement[[0, 1, 1], [1, 0, 1]]).all()
    assert dict(r.summary())["bow #1 vs bow #2: same wrong group"] == "0/0 (n/a)"
    assert r.to_dict()["agreement"] == [[1.0, None], [None, None]]
    assert r.mcnemar(0, 1).detail == {"A right, B wrong": 0, "A wrong, B right": 14}


def test_default_encoders_are_those_run_then_the_chosen_and_tfidf():
    from sentspace.app.analysis.evaluations.agreement import default_encoders

    assert default_encoders(["bow", "glove:/v.txt"], ["precomputed:/e.npy"], "sbert") == [
        "bow",
        "glove:/v.txt",
        "precomputed:/e.npy",
    ]
    assert default_encoders(["sbert"], [], "sbert") == ["sbert", "tfidf"]
    assert default_encoders([], [], "fasttext") == ["fasttext", "tfidf"]
    assert default_encoders([], [], "tfidf") == ["tfidf", "bow"]
