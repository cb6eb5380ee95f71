import csv
import json

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, precision_recall_curve

from sentspace.app.analysis.evaluations.detection import (
    evaluate_detection,
    nested_subsets,
    run_detection,
    run_learning_curve,
)
from sentspace.app.analysis.evaluations.transfer import run_transfer
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus, PairTable
from sentspace.models.bow import BagOfWords, TfIdf

from ._pairs import msrp


@pytest.fixture(scope="module")
def msrp_small(shared_data):
    return msrp(shared_data, n_per_file=400)


def test_zero_shot_pr_curve_and_average_precision(msrp_small):
    result = run_job(run_detection(msrp_small, BagOfWords(), n_resamples=200))
    label = msrp_small.pairs.label
    precision, recall, _ = precision_recall_curve(label, result.cosine)
    np.testing.assert_array_equal(result.precision, precision)
    np.testing.assert_array_equal(result.recall, recall)
    assert result.average_precision == average_precision_score(label, result.cosine)
    low, high = result.ci["average precision"]
    assert low < result.average_precision < high
    again = run_job(run_detection(msrp_small, BagOfWords(), n_resamples=200))
    assert again.ci == result.ci


def test_learning_curve_is_nested_and_ends_at_the_transfer_accuracy(msrp_small):
    curve = run_job(
        run_learning_curve(msrp_small, TfIdf(), fractions=(0.05, 0.5, 1.0), n_resamples=0)
    )
    full = run_job(run_transfer(msrp_small, TfIdf(), n_resamples=0))
    assert curve.accuracy[-1] == pytest.approx(full.accuracy)
    assert curve.n_train[-1] == 400 and list(curve.n_train) == sorted(curve.n_train)
    labels = np.array([0] * 30 + [1] * 70)
    small, large = nested_subsets(labels, (0.1, 0.5), seed=0)
    assert set(small) <= set(large) and np.sum(labels[small] == 0) == 3


def test_refuses_unlabelled_or_unsplit_pairs():
    corpus = Corpus(
        "x", ("a", "b"), ("1", "2"), pairs=PairTable([0], [1], [-1], [3.0], ("train",), ("s",))
    )
    with pytest.raises(EvaluationError, match="labelled 1"):
        next(run_detection(corpus, BagOfWords()))
    labelled = Corpus(
        "y",
        ("a", "b", "c"),
        ("1", "2", "3"),
        pairs=PairTable([0, 0], [1, 2], [1, 0], [np.nan] * 2, ("train",) * 2, ("s",) * 2),
    )
    with pytest.raises(EvaluationError, match="no split test"):
        next(run_learning_curve(labelled, BagOfWords()))
    X = np.zeros((2, 3), dtype=np.float32)
    with pytest.raises(EvaluationError):
        evaluate_detection(corpus, X)


def test_json_names_msrp_pairs_by_their_two_sentence_ids(shared_data):
    """MSRP gives no pair ids: a pair is named "#1 ID/#2 ID" by its sentences' ids,
    beside its row; the release files name the same pairs, except where a sentence is one
    of the 4 texts that occur under two ids (the corpus keeps one id for each)."""
    corpus = load_corpus(shared_data / "msrp")
    released = []
    for name in ("msr_paraphrase_train.txt", "msr_paraphrase_test.txt"):
        with (shared_data / "msrp" / name).open(encoding="utf-8-sig", newline="") as handle:
            released += [
                f"{row['#1 ID']}/{row['#2 ID']}"
                for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            ]
    result = run_job(run_detection(corpus, BagOfWords(), n_resamples=0))
    pairs = json.loads(json.dumps(result.to_dict()))["pairs"]
    assert len(pairs) == len(released) == 5801
    for entry in pairs:
        row = entry["row"]
        assert entry["pair"] == (
            f"{corpus.ids[corpus.pairs.first[row]]}/{corpus.ids[corpus.pairs.second[row]]}"
        )
    renamed = [entry["pair"] for entry in pairs if entry["pair"] != released[entry["row"]]]
    assert len(renamed) == 4
