import json

import numpy as np
import pytest

from sentspace.app.analysis.evaluations.pyramid import (
    best_f1_threshold,
    evaluate_pyramid,
    run_pyramid,
)
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora.pyramid import load_pyramid
from sentspace.models.bow import BagOfWords


@pytest.fixture(scope="module")
def pyramid(shared_data):
    return load_pyramid(shared_data / "pyramid-sample" / "T0001.pyr")


@pytest.fixture(scope="module")
def bow_result(pyramid):
    return run_job(run_pyramid(pyramid, BagOfWords()))


def test_bag_of_words_numbers(bow_result):
    binary, ranking = bow_result.binary, bow_result.ranking
    assert binary.in_tune.sum() == 1 and binary.in_tune.tolist()[2]
    assert binary.threshold == pytest.approx(0.36927447)
    assert (binary.precision, binary.recall, binary.f1, binary.tune_f1) == pytest.approx(
        (2 / 3, 4 / 5, 8 / 11, 1.0)
    )
    assert np.array_equal(binary.predicted, binary.cosine >= binary.threshold)
    assert ranking.rank.tolist() == [1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1]
    assert ranking.success_rate == pytest.approx(11 / 12)
    assert ranking.mrr == pytest.approx((11 + 1 / 2) / 12)
    rows = dict(bow_result.summary())
    assert rows["binary F1"] == "0.7273 [0.4444, 1.0000]" and rows["ranking MRR"] == "0.9583"
    assert rows["binary pairs"] == "6 positive, 2 negative; 1 tune, 7 test"
    assert rows["ranking questions: kept"] == "12 (paper, DUC 2005-2007: 8,755)"
    # One tune pair cannot separate anything, and the result says so.
    assert binary.at_edge and "binary threshold warning" in rows
    assert bow_result.provenance.parameters == {
        "seed": 0,
        "tune_fraction": 0.1,
        "min_words": 3,
        "min_shared_negative": 4,
        "n_distractors": 3,
        "distractors": "answer",
        "negative_overlap": "tokens",
        "items": "contributors",
        "negatives": "across-pyramids",
    }


def test_distractors_resembling_the_question_are_harder_for_bag_of_words(pyramid, bow_result):
    adversarial = run_job(run_pyramid(pyramid, BagOfWords(), distractors="question"))
    assert adversarial.ranking.rank.tolist() == [1, 1, 1, 1, 4, 2, 1, 1, 1, 1, 1, 1]
    assert adversarial.ranking.success_rate < bow_result.ranking.success_rate
    assert adversarial.provenance.parameters["distractors"] == "question"


def test_cosines_are_cosines(pyramid, bow_result):
    X = BagOfWords().fit(pyramid.texts).encode(pyramid.texts).astype(np.float64)
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    pairs = pyramid.pairs
    expected = np.sum(unit[pairs.first] * unit[pairs.second], axis=1)
    assert np.allclose(bow_result.binary.cosine, expected, atol=1e-12)
    # Dense input gives the same result as the encoder's sparse matrix.
    dense = evaluate_pyramid(pyramid, X)
    assert np.allclose(dense.ranking.answer_cosine, bow_result.ranking.answer_cosine)
    assert np.array_equal(dense.ranking.rank, bow_result.ranking.rank)


def test_best_threshold_matches_brute_force():
    rng = np.random.default_rng(4)
    for _ in range(20):
        cosine = np.round(rng.random(60), 1)  # many ties
        label = (rng.random(60) < 0.4).astype(int)
        threshold, f1 = best_f1_threshold(cosine, label)
        # Every cut but the lowest, which calls every pair positive.
        candidates = np.unique(cosine)[1:]
        scores = [
            2 * ((cosine >= t) & (label == 1)).sum() / ((cosine >= t).sum() + label.sum())
            for t in candidates
        ]
        assert f1 == pytest.approx(max(scores))
        assert threshold == candidates[::-1][int(np.argmax(scores[::-1]))]


def test_calling_everything_a_paraphrase_cannot_win():
    # 4% positives, all at the lowest cosines: calling every pair positive would have the
    # best F1 (0.077), and says nothing about the encoder.
    cosine = np.random.default_rng(0).permutation(1000) / 1000
    label = (cosine < 0.04).astype(int)
    all_positive = 2 * label.sum() / (len(label) + label.sum())
    threshold, f1 = best_f1_threshold(cosine, label)
    assert threshold > cosine.min() and f1 < all_positive


def test_seed_draws_the_tune_pairs(pyramid):
    embeddings = np.random.default_rng(0).standard_normal((len(pyramid), 16))
    first = evaluate_pyramid(pyramid, embeddings, seed=1)
    again = evaluate_pyramid(pyramid, embeddings, seed=1)
    other = evaluate_pyramid(pyramid, embeddings, seed=2, tune_fraction=0.5)
    assert np.array_equal(first.binary.in_tune, again.binary.in_tune)
    assert first.binary.f1 == again.binary.f1
    assert other.binary.in_tune.sum() == 4
    assert not np.array_equal(first.binary.in_tune, other.binary.in_tune)


def test_zero_vectors_never_win(pyramid):
    embeddings = np.ones((len(pyramid), 4))
    zero = 2
    embeddings[zero] = 0
    result = evaluate_pyramid(pyramid, embeddings)
    tests = result.tests
    assert result.n_degenerate == 1
    touched = (tests.question == zero) | (tests.answer == zero)
    assert np.all(result.ranking.answer_cosine[touched] == -np.inf)
    # Every other cosine is 1: ties rank the answer last, a zero distractor does not count.
    expected = np.where(touched, 4, 4 - (tests.distractors == zero).sum(axis=1))
    assert np.array_equal(result.ranking.rank, expected) and touched.sum() == 2
    assert ("zero or non-finite embeddings", "1") in result.summary()


def test_result_serialises(bow_result):
    record = json.loads(json.dumps(bow_result.to_dict()))
    assert record["evaluation"] == "pyramid"
    assert len(record["binary"]["pairs"]) == 8 and len(record["ranking"]["questions"]) == 12
    assert (
        record["funnels"][2]["removed"]["share fewer than 4 words (counted with repetition)"] == 47
    )
    assert record["binary"]["at_edge"] is True
    assert record["ranking"]["questions"][4]["rank"] == 2


def test_refused_before_work(pyramid, shared_data):
    with pytest.raises(EvaluationError, match="0 binary pairs and 0 ranking questions"):
        next(run_pyramid(pyramid, BagOfWords(), min_words=50))
    with pytest.raises(EvaluationError, match="one embedding per sentence"):
        evaluate_pyramid(pyramid, np.zeros((3, 4)))
    from sentspace.app.corpora.costra import load_costra

    with pytest.raises(EvaluationError, match="no SCUs"):
        next(run_pyramid(load_costra(shared_data / "costra" / "data.tsv"), BagOfWords()))


def test_scu_labels_are_encoded_after_the_sentences(pyramid):
    """With labels among the binary items, they are encoded after the sentences and named
    in the JSON; the ranking test is the contributors' own."""
    contributors = run_job(run_pyramid(pyramid, BagOfWords()))
    both = run_job(run_pyramid(pyramid, BagOfWords(), items="both"))
    assert len(both.tests.pairs) == 17 and len(both.sentence_ids) == len(pyramid) + 6
    assert np.array_equal(both.ranking.rank, contributors.ranking.rank)
    named = {
        name
        for pair in json.loads(json.dumps(both.to_dict()))["binary"]["pairs"]
        for name in (pair["first"], pair["second"])
    }
    assert "T0001/1/label" in named


def test_binary_f1_interval_is_the_bootstrap_of_scikit_learns_f1(bow_result):
    """The interval resamples the test pairs (threshold fixed): the same draws scored by
    scikit-learn give the same percentiles."""
    from sklearn.metrics import f1_score

    test = ~bow_result.binary.in_tune
    predicted = bow_result.binary.predicted[test]
    label = bow_result.tests.pairs.label[test]
    draws = np.random.default_rng(0).integers(0, len(label), size=(1000, len(label)))
    reference = [f1_score(label[d], predicted[d], zero_division=0) for d in draws]
    f1 = next(s for s in bow_result.scores() if s.name == "binary F1")
    assert f1.ci == pytest.approx(tuple(np.percentile(reference, [2.5, 97.5])))
    assert f1.ci[0] < f1.value < f1.ci[1]


#: Count vectors over 13 words, as D0601/65/2 has them: a 5-word question, an answer
#: sharing 1 of its words (4 words in all) and a distractor sharing 3 (36 = 3 + 1 + 16
#: + 16 squared counts): both at cos² = 1/20 exactly, yet float64 puts the answer's
#: cosine one unit in the last place above the distractor's.
QUESTION = [1, 1, 1, 1, 1] + [0] * 8
ANSWER = [1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0]
DISTRACTOR = [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 4, 4]


def d0601_like(pyramid, question, answer, distractor):
    """Embeddings of the sample with the three count vectors at the given sentences,
    every other sentence a distinct word of its own (cosine 0 to everything)."""
    embeddings = np.zeros((len(pyramid), 13 + len(pyramid)))
    embeddings[np.arange(len(pyramid)), 13 + np.arange(len(pyramid))] = 1
    for sentence, counts in ((question, QUESTION), (answer, ANSWER), (distractor, DISTRACTOR)):
        embeddings[sentence] = 0
        embeddings[sentence, :13] = counts
    return embeddings


def test_equal_cosines_tie_in_the_ranking_against_the_answer(pyramid):
    tests = run_job(run_pyramid(pyramid, BagOfWords())).tests
    k = 0
    q, a, d = int(tests.question[k]), int(tests.answer[k]), int(tests.distractors[k, 0])
    result = evaluate_pyramid(pyramid, d0601_like(pyramid, q, a, d), tests=tests)
    answer, distractor = result.ranking.answer_cosine[k], result.ranking.distractor_cosine[k, 0]
    assert answer**2 == pytest.approx(1 / 20) and distractor**2 == pytest.approx(1 / 20)
    assert answer > distractor  # float64's last bit: before, a success
    assert result.ranking.rank[k] == 2


def test_a_pair_tied_with_the_threshold_reaches_it(pyramid):
    """The threshold is the tune pair's cosine (cos² = 1/20 by one sum); a test pair at
    the same cosine by another sum, one unit in the last place below, is called a
    paraphrase as the tune pair is."""
    tune = evaluate_pyramid(pyramid, np.eye(len(pyramid))).binary.in_tune
    pairs = pyramid.pairs
    (t,) = np.flatnonzero(tune)
    tested = next(
        k
        for k in np.flatnonzero(~tune)
        if not {pairs.first[k], pairs.second[k]} & {pairs.first[t], pairs.second[t]}
    )
    embeddings = d0601_like(pyramid, pairs.first[t], pairs.second[t], pairs.second[tested])
    embeddings[pairs.first[tested]] = embeddings[pairs.first[t]]
    result = evaluate_pyramid(pyramid, embeddings)
    cosine = result.binary.cosine
    assert result.binary.threshold == cosine[t] > cosine[tested]
    assert cosine[tested] ** 2 == pytest.approx(1 / 20)
    assert result.binary.predicted[tested]


def test_the_best_threshold_treats_equal_cosines_as_one():
    """Tune cosines equal but for rounding are one run: no cut falls between them."""
    tied = 1 / (2 * np.sqrt(5))
    cosine = np.array([0.9, tied, np.nextafter(tied, 0), 0.1])
    threshold, f1 = best_f1_threshold(cosine, np.array([1, 1, 0, 0]))
    assert threshold == np.nextafter(tied, 0) and f1 == pytest.approx(2 * 2 / (3 + 2))
