"""Paraphrase detection (EVALUATIONS.md section 3): zero-shot and the learning curve.

*Zero-shot*: no training; a pair is predicted positive when its cosine passes a
threshold. The precision-recall curve over all thresholds
(``sklearn.metrics.precision_recall_curve``) and the average precision summarise it.

*Learning curve*: test accuracy of the supervised pair classifier (logistic regression
on [|u - v|, u * v], as in ``transfer.py``) trained on growing shares of the training
split. The training subsets are nested and stratified: one seeded shuffle per class, and
each share takes the first ceil(share x class size) pairs of every class.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

# scikit-learn is imported inside the functions: importing it pulls scipy.stats and
# pandas (about 1 s), too slow for the GUI's start, which imports every evaluation.
from sentspace.app.analysis.cache import encode_corpus, encode_rows
from sentspace.app.analysis.evaluations import passing, statistics
from sentspace.app.analysis.evaluations.statistics import format_ci
from sentspace.app.analysis.evaluations.transfer import fit_logistic, pair_features
from sentspace.app.analysis.neighbours import (
    degenerate_pairs,
    fitted_on_training_side,
    held_out_pairs,
    normalise,
    pair_cosines,
)
from sentspace.app.analysis.results import Provenance, Result, Score, item_rows, provenance
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder

NAME = "detection"
LEARNING_CURVE = "learning-curve"
DEFAULT_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


def binary_pairs(
    corpus: Corpus, splits: tuple[str, ...] | None = None, where: str = ""
) -> np.ndarray:
    """Indices of the pairs labelled 0 or 1 in ``splits`` (None: all) that pass
    ``where`` (:func:`passing.pair_passing`). Raises EvaluationError, before any work, unless both
    labels occur; InputError for a bad ``where``."""
    pairs = corpus.pairs
    if pairs is None:
        raise EvaluationError(
            f"paraphrase detection needs labelled pairs, and corpus {corpus.name!r} has no pairs"
        )
    keep = np.isin(pairs.label, (0, 1)) & passing.in_splits(corpus, splits)
    mask = passing.pair_passing(corpus, where)
    if mask is not None:
        keep &= mask
    if (
        pairs.label_names
        or np.any(pairs.label > 1)
        or not (np.any(pairs.label[keep] == 1) and np.any(pairs.label[keep] == 0))
    ):
        raise EvaluationError(
            f"paraphrase detection needs pairs labelled 1 (paraphrase) "
            f"and 0 (not), and corpus {corpus.name!r} has no such mix"
            + (f" of pairs that pass {where.strip()!r}" if mask is not None else "")
        )
    return np.flatnonzero(keep)


@dataclass(frozen=True, eq=False)
class DetectionResult(Result):
    """Zero-shot detection by cosine threshold: the PR curve and average precision.

    Attributes
    ----------
    pair_index : ndarray of shape (n_pairs,)
        Evaluated pairs (index into ``corpus.pairs``).
    pair_id : str ndarray of shape (n_pairs,)
        Each evaluated pair as its dataset names it (:meth:`PairTable.names`).
    cosine, label : ndarray of shape (n_pairs,)
    degenerate : bool ndarray of shape (n_pairs,)
        Pairs with a zero (or non-finite) vector; their cosine is 0.
    precision, recall : ndarray of shape (n_thresholds + 1,)
    thresholds : ndarray of shape (n_thresholds,)
        As returned by ``sklearn.metrics.precision_recall_curve``.
    """

    evaluation = NAME
    MAIN_SCORE = "average precision"  # MTEB's pair classification: max_ap
    pair_index: np.ndarray
    pair_id: np.ndarray
    cosine: np.ndarray
    label: np.ndarray
    degenerate: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    thresholds: np.ndarray
    average_precision: float
    ci: dict[str, tuple[float, float]]

    @property
    def best_f1(self) -> tuple[float, float]:
        """(F1, threshold) of the curve's point with the highest F1."""
        p, r = self.precision[:-1], self.recall[:-1]
        with np.errstate(invalid="ignore", divide="ignore"):
            f1 = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
        best = int(np.argmax(f1))
        return float(f1[best]), float(self.thresholds[best])

    def summary(self) -> list[tuple[str, str]]:
        f1, threshold = self.best_f1
        return [
            ("pairs", f"{len(self.label)} ({int(self.label.sum())} positive)"),
            (
                "average precision",
                f"{self.average_precision:.4f} "
                f"{format_ci(self.ci.get('average precision'))}".rstrip(),
            ),
            ("best F1 (threshold)", f"{f1:.4f} ({threshold:.4f})"),
            ("positive-rate baseline", f"{self.label.mean():.4f}"),
            ("pairs with a zero vector (cosine 0)", str(int(self.degenerate.sum()))),
        ]

    def scores(self) -> list[Score]:
        f1, _ = self.best_f1
        n = len(self.label)
        return [
            Score("average precision", self.average_precision, self.ci.get("average precision"), n),
            Score("best F1", f1, None, n),
            Score("positive-rate baseline", float(self.label.mean()), None, n),
        ]

    def body(self) -> dict[str, Any]:
        f1, threshold = self.best_f1
        return {
            "average_precision": self.average_precision,
            "ci": {name: list(bounds) for name, bounds in self.ci.items()},
            "best_f1": f1,
            "best_f1_threshold": threshold,
            "n_degenerate_pairs": int(self.degenerate.sum()),
            "curve": {
                "precision": self.precision.tolist(),
                "recall": self.recall.tolist(),
                "thresholds": self.thresholds.tolist(),
            },
            # "pair" is the dataset's name; "row" indexes corpus.pairs.
            "pairs": item_rows(self, "pair=pair_id, row=pair_index, cosine, label"),
        }


def evaluate_detection(
    corpus: Corpus,
    embeddings: Embeddings,
    *,
    encoder: Encoder | None = None,
    splits: tuple[str, ...] | None = None,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    where: str = "",
) -> DetectionResult:
    """Zero-shot detection on precomputed embeddings (shape (len(corpus), dim)).

    ``splits`` selects pairs (None: every labelled pair; nothing is trained, so the test
    split alone is not required), ``where`` (a filter expression) those that pass it.
    ``n_resamples`` 0 turns the bootstrap interval off.
    """
    pair_index = binary_pairs(corpus, splits, where)
    kept = passing.described(
        corpus,
        where,
        len(pair_index),
        lambda: len(binary_pairs(corpus, splits)),
        f"{' + '.join(splits)} pairs" if splits else "labelled pairs",
    )
    pairs = corpus.pairs
    assert pairs is not None, "binary_pairs checked"
    first, second = pairs.first[pair_index], pairs.second[pair_index]
    label = pairs.label[pair_index]
    unit = normalise(embeddings)
    cosine = pair_cosines(embeddings, first, second)
    from sklearn.metrics import average_precision_score, precision_recall_curve  # noqa: PLC0415 (lazy: slow)

    precision, recall, thresholds = precision_recall_curve(label, cosine)
    return DetectionResult(
        provenance=provenance(
            corpus,
            encoder,
            embeddings,
            splits=splits,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            score="cosine",
            zero_vectors="cosine 0, counted",
            **passing.parameters(where, kept),
        ),
        pair_index=pair_index,
        pair_id=pairs.names(corpus.ids, pair_index),
        cosine=cosine,
        label=label,
        degenerate=degenerate_pairs(unit, first, second),
        precision=precision,
        recall=recall,
        thresholds=thresholds,
        average_precision=float(average_precision_score(label, cosine)),
        ci=statistics.cis(
            {"average precision": (statistics.average_precision, cosine, label.astype(np.float64))},
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        ),
    )


def run_detection(
    corpus: Corpus,
    encoder: Encoder,
    *,
    seed: int = 0,
    splits: tuple[str, ...] | None = None,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    where: str = "",
) -> Job[DetectionResult]:
    """Encode the corpus and run :func:`evaluate_detection` (same parameters); an encoder
    that learns from labelled pairs trains on the pairs outside ``splits`` (default: on
    "train", the other splits evaluated), whatever ``where`` keeps of them."""
    binary_pairs(corpus, splits, where)
    splits, training = held_out_pairs(corpus, encoder, splits, NAME)
    evaluated = binary_pairs(corpus, splits, where)
    # Only the sentences the evaluated pairs read are encoded.
    embeddings = yield from encode_rows(
        corpus,
        encoder,
        np.concatenate(
            [corpus.checked_pairs.first[evaluated], corpus.checked_pairs.second[evaluated]]
        ),
        training_pairs=training,
    )
    return evaluate_detection(
        corpus,
        embeddings,
        encoder=encoder,
        splits=splits,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        where=where,
    )


@dataclass(frozen=True, eq=False)
class LearningCurveResult(Result):
    """Test accuracy of the pair classifier per share of the training split.

    Attributes
    ----------
    fractions : the shares of the training split asked for.
    n_train : ndarray of shape (n_fractions,)
        Training pairs actually used at each share.
    accuracy : ndarray of shape (n_fractions,)
    test_pair_index : ndarray of shape (n_test,)
        Test pairs (index into ``corpus.pairs``).
    test_pair_id : str ndarray of shape (n_test,)
        Each test pair as its dataset names it (:meth:`PairTable.names`).
    correct : bool ndarray of shape (n_fractions, n_test)
        Whether each test pair was classified right at each share.
    ci : one (low, high) bootstrap interval of the accuracy per share; empty when off.
    """

    evaluation = LEARNING_CURVE
    fractions: tuple[float, ...]
    n_train: np.ndarray
    accuracy: np.ndarray
    test_pair_index: np.ndarray
    test_pair_id: np.ndarray
    correct: np.ndarray
    ci: tuple[tuple[float, float], ...]

    def summary(self) -> list[tuple[str, str]]:
        rows = []
        for k, fraction in enumerate(self.fractions):
            interval = format_ci(self.ci[k]) if self.ci else ""
            rows.append(
                (
                    f"{fraction:.0%} of train ({self.n_train[k]} pairs)",
                    f"{self.accuracy[k]:.4f} {interval}".rstrip(),
                )
            )
        rows.append(("test pairs", str(len(self.test_pair_index))))
        return rows

    def scores(self) -> list[Score]:
        n_test = len(self.test_pair_index)
        return [
            Score(
                f"accuracy at {f:.0%} of train", float(a), self.ci[k] if self.ci else None, n_test
            )
            for k, (f, a) in enumerate(zip(self.fractions, self.accuracy))
        ]

    def body(self) -> dict[str, Any]:
        return {
            "points": [
                {
                    "fraction": f,
                    "n_train": int(n),
                    "accuracy": float(a),
                    "ci": list(self.ci[k]) if self.ci else None,
                }
                for k, (f, n, a) in enumerate(zip(self.fractions, self.n_train, self.accuracy))
            ],
            "test_pairs": self.test_pair_id.tolist(),
            "test_pair_rows": self.test_pair_index.tolist(),
            "correct": self.correct.astype(int).tolist(),
        }


def nested_subsets(labels: np.ndarray, fractions: tuple[float, ...], seed: int) -> list[np.ndarray]:
    """Nested, stratified training subsets (positions into ``labels``), one per fraction:
    ceil(fraction x class size) of each class, at least one per class."""
    rng = np.random.default_rng(seed)
    shuffled = {c: rng.permutation(np.flatnonzero(labels == c)) for c in np.unique(labels)}
    return [
        np.sort(
            np.concatenate(
                [members[: max(1, math.ceil(f * len(members)))] for members in shuffled.values()]
            )
        )
        for f in fractions
    ]


def run_learning_curve(
    corpus: Corpus,
    encoder: Encoder,
    *,
    seed: int = 0,
    fractions: tuple[float, ...] = DEFAULT_FRACTIONS,
    train_split: str = "train",
    test_split: str = "test",
    C: float = 1.0,
    max_iter: int = 1000,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
) -> Job[LearningCurveResult]:
    """Learning curve of the supervised pair classifier.

    Parameters
    ----------
    corpus : pairs labelled 0/1 with a ``train_split`` and a ``test_split``.
    encoder : fitted on each training subset's sentences when it learns from data, else
        (if it needs fitting) once on every corpus sentence.
    seed : draws the subsets, seeds the classifier and the bootstrap.
    fractions : shares of the training split, each in (0, 1].
    C, max_iter : logistic-regression regularisation and iteration cap.
    n_resamples, confidence : bootstrap interval of each accuracy; 0 turns them off.
    """
    train_pairs = binary_pairs(corpus, (train_split,))
    test_pairs = binary_pairs(corpus, (test_split,))
    if not fractions or not all(0 < f <= 1 for f in fractions):
        raise EvaluationError(f"fractions must lie in (0, 1], got {fractions}")
    pairs = corpus.pairs
    assert pairs is not None, "binary_pairs checked"
    train_labels, test_labels = pairs.label[train_pairs], pairs.label[test_pairs]
    subsets = nested_subsets(train_labels, tuple(fractions), seed)

    shared = None
    if not encoder.learns_from_data:
        shared = yield from encode_corpus(corpus, encoder, training_pairs=train_pairs)
    accuracy, correct = [], []
    for k, subset in enumerate(subsets):
        chosen = train_pairs[subset]
        embeddings = shared
        if embeddings is None:
            sentences = np.unique(np.concatenate([pairs.first[chosen], pairs.second[chosen]]))
            fitted = yield from fitted_on_training_side(
                encoder, corpus, [corpus.texts[i] for i in sentences], chosen
            )
            embeddings = yield from fitted.iter_encode(corpus.texts)
        classifier = fit_logistic(
            pair_features(embeddings, pairs.first[chosen], pairs.second[chosen]),
            train_labels[subset],
            C=C,
            seed=seed,
            max_iter=max_iter,
        )
        prediction = classifier.predict(
            pair_features(embeddings, pairs.first[test_pairs], pairs.second[test_pairs])
        )
        correct.append(prediction == test_labels)
        accuracy.append(float(np.mean(correct[-1])))
        yield Progress("learning curve", k + 1, len(subsets))
    correct_matrix = np.array(correct)
    intervals = (
        tuple(
            statistics.bootstrap_ci(
                statistics.mean,
                row.astype(np.float64),
                n_resamples=n_resamples,
                confidence=confidence,
                seed=seed,
            )
            for row in correct_matrix
        )
        if n_resamples > 0
        else ()
    )
    return LearningCurveResult(
        provenance=Provenance.of(
            corpus,
            encoder,
            seed=seed,
            fractions=list(fractions),
            train_split=train_split,
            test_split=test_split,
            C=C,
            max_iter=max_iter,
            classifier="LogisticRegression(lbfgs)",
            pair_features="[|u-v|, u*v]",
            subsets="nested, stratified by label",
            refit_on_training_side=encoder.learns_from_data,
            n_resamples=n_resamples,
            confidence=confidence,
        ),
        fractions=tuple(fractions),
        n_train=np.array([len(s) for s in subsets]),
        accuracy=np.array(accuracy),
        test_pair_index=test_pairs,
        test_pair_id=pairs.names(corpus.ids, test_pairs),
        correct=correct_matrix,
        ci=intervals,
    )
