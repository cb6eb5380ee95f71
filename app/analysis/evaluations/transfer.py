"""Supervised transfer (EVALUATIONS.md section 2): logistic regression on embeddings.

Two kinds of task:

- *sentence* tasks (MR, CR, SUBJ, MPQA, TREC): a corpus whose :class:`Grouping` of kind
  "class" labels each sentence; the classifier sees one embedding per sentence;
- *pair* tasks (MSRP paraphrase detection, SICK entailment): labelled pairs; the
  classifier sees the concatenation [|u - v|, u * v] of the two embeddings.

Protocol: the given train/test split when the corpus has one (sentence metadata column
"split" for sentence tasks, ``PairTable.split`` for pairs, both holding "train" and
"test"), otherwise stratified k-fold cross-validation (10 folds). Encoders that learn
from data are fitted on the training side only (each training fold under
cross-validation); encoders that only collect a vocabulary are fitted on all evaluated
sentences, as in ``classification.py``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

# scikit-learn is imported inside the functions: importing it pulls scipy.stats and
# pandas (about 1 s), too slow for the GUI's start, which imports every evaluation.
if TYPE_CHECKING:
    from sklearn.linear_model import LogisticRegression

from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.evaluations import statistics
from sentspace.app.analysis.evaluations.statistics import format_ci
from sentspace.app.analysis.neighbours import fitted_on_training_side
from sentspace.app.analysis.results import Provenance, Result, Score, item_rows
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder

NAME = "transfer"
TASKS = ("auto", "sentence", "pair")


def pair_features(embeddings: Embeddings, first: np.ndarray, second: np.ndarray) -> Embeddings:
    """[|u - v|, u * v] for each pair; shape (n_pairs, 2 * dim), sparse if the input is."""
    u, v = embeddings[np.asarray(first)], embeddings[np.asarray(second)]
    if sp.issparse(u):
        return sp.csr_array(sp.hstack([abs(u - v), u.multiply(v)], format="csr"), dtype=np.float32)
    return np.hstack([np.abs(u - v), u * v]).astype(np.float32, copy=False)


def fit_logistic(
    X: Embeddings, y: np.ndarray, *, C: float, seed: int, max_iter: int
) -> LogisticRegression:
    """L2 logistic regression (lbfgs; multinomial for more than two classes)."""
    from sklearn.exceptions import ConvergenceWarning  # noqa: PLC0415 (lazy: slow)
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 (lazy: slow)

    classifier = LogisticRegression(C=C, max_iter=max_iter, random_state=seed)
    with warnings.catch_warnings():
        # The iteration cap is a speed/precision trade-off, recorded in provenance.
        warnings.simplefilter("ignore", ConvergenceWarning)
        classifier.fit(X, y)
    return classifier


@dataclass(frozen=True)
class _Task:
    """What the classifier sees: sentences to encode and how items are built from them."""

    kind: str
    texts: list[str]
    item_index: np.ndarray  # sentence or pair index into the corpus, per item
    first: np.ndarray  # row into ``texts`` of each item (its S1 for pairs)
    second: np.ndarray | None  # row of each pair's S2; None for sentence tasks
    labels: np.ndarray
    class_names: tuple[str, ...]
    split: np.ndarray | None  # "train"/"test" per item, or None: cross-validate


def _given_split(values: np.ndarray) -> np.ndarray | None:
    present = set(values.tolist())
    return values if {"train", "test"} <= present else None


def transfer_task(corpus: Corpus, task: str = "auto") -> _Task:
    """The items, labels and protocol of ``corpus``; raises EvaluationError, before any
    work, when the corpus has neither labelled pairs nor a class grouping."""
    if task not in TASKS:
        raise EvaluationError(f"task must be one of {', '.join(TASKS)}, not {task!r}")
    pairs = corpus.pairs
    has_pairs = pairs is not None and np.any(pairs.label >= 0)
    classes = corpus.groups if corpus.groups is not None and corpus.groups.kind == "class" else None
    if task == "auto":
        task = "pair" if has_pairs else "sentence"
    if task == "pair":
        if pairs is None or not has_pairs:
            raise EvaluationError(
                f"{NAME} on pairs needs labelled pairs, and corpus {corpus.name!r} has none"
            )
        keep = np.flatnonzero(pairs.label >= 0)
        sentences, rows = np.unique(
            np.concatenate([pairs.first[keep], pairs.second[keep]]), return_inverse=True
        )
        labels = pairs.label[keep]
        split = _given_split(np.asarray(pairs.split, dtype=object)[keep])
        return _Task(
            "pair",
            [corpus.texts[i] for i in sentences],
            keep,
            rows[: len(keep)],
            rows[len(keep) :],
            labels,
            tuple(pairs.label_text(int(c)) for c in np.unique(labels)),
            split,
        )
    if classes is None:
        raise EvaluationError(
            f"{NAME} on sentences needs a grouping of kind 'class', and "
            f"corpus {corpus.name!r} has none"
        )
    try:
        all_labels = classes.labels(len(corpus))
    except ValueError as error:
        raise EvaluationError(f"{NAME}: {error}") from None
    sentences = np.flatnonzero(all_labels >= 0)
    split = None
    if "split" in corpus.metadata:
        split = _given_split(np.asarray(corpus.metadata["split"], dtype=object)[sentences])
    return _Task(
        "sentence",
        [corpus.texts[i] for i in sentences],
        sentences,
        np.arange(len(sentences)),
        None,
        all_labels[sentences],
        classes.names,
        split,
    )


@dataclass(frozen=True, eq=False)
class TransferResult(Result):
    """Test predictions of every evaluated item and the accuracy (and F1) over them.

    Attributes
    ----------
    task : "sentence" or "pair".
    protocol : "given split" or "k-fold CV".
    item_index : ndarray of shape (n_test,)
        Tested sentences (sentence task) or pairs (pair task), indices into the corpus.
    item_id : str ndarray of shape (n_test,)
        Their names in the dataset: sentence ids, or pairs as :meth:`PairTable.names`.
    true_label, predicted_label : ndarray of shape (n_test,)
        Class indices (into ``class_names``; for pairs, the ``PairTable.label`` values).
    fold : ndarray of shape (n_test,)
        The fold in which each item was tested (0 for a given split).
    fold_accuracy : accuracy of each fold (one value for a given split).
    f1 : F1 of class 1 on binary tasks, else None.
    ci : {"accuracy": (low, high)} bootstrap interval over tested items; empty when off.
    """

    evaluation = NAME
    MAIN_SCORE = "accuracy"
    task: str
    protocol: str
    class_names: tuple[str, ...]
    item_index: np.ndarray
    item_id: np.ndarray
    true_label: np.ndarray
    predicted_label: np.ndarray
    fold: np.ndarray
    fold_accuracy: tuple[float, ...]
    n_train: int
    f1: float | None
    ci: dict[str, tuple[float, float]]

    @property
    def accuracy(self) -> float:
        """Mean of the fold accuracies (the test accuracy for a given split)."""
        return float(np.mean(self.fold_accuracy))

    @property
    def correct(self) -> np.ndarray:
        return self.true_label == self.predicted_label

    def summary(self) -> list[tuple[str, str]]:
        rows = [
            ("task", f"{self.task} ({len(self.class_names)} classes)"),
            ("protocol", self.protocol),
            ("tested items", str(len(self.item_index))),
            ("accuracy", f"{self.accuracy:.4f} {format_ci(self.ci.get('accuracy'))}".rstrip()),
        ]
        if self.f1 is not None:
            rows.append(("F1", f"{self.f1:.4f}"))
        if len(self.fold_accuracy) > 1:
            rows.append(("fold accuracies", " ".join(f"{a:.3f}" for a in self.fold_accuracy)))
        return rows

    def scores(self) -> list[Score]:
        n = len(self.item_index)
        scores = [Score("accuracy", self.accuracy, self.ci.get("accuracy"), n)]
        if self.f1 is not None:
            scores.append(Score("F1", self.f1, None, n))
        return scores

    def body(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "protocol": self.protocol,
            "classes": list(self.class_names),
            "accuracy": self.accuracy,
            "f1": self.f1,
            "fold_accuracy": list(self.fold_accuracy),
            "n_train": self.n_train,
            "ci": {name: list(bounds) for name, bounds in self.ci.items()},
            # "item" is the dataset's name of the sentence or pair; "row" indexes the
            # corpus's sentences or pairs.
            "predictions": item_rows(
                self,
                "item=item_id, row=item_index, true=true_label, predicted=predicted_label, fold",
            ),
        }


def _item_names(corpus: Corpus, kind: str, items: np.ndarray) -> np.ndarray:
    """The dataset's names of tested sentences or pairs (``kind``)."""
    if kind == "pair":
        assert corpus.pairs is not None, "pair tasks are of corpora with pairs"
        return corpus.pairs.names(corpus.ids, items)
    return np.asarray(corpus.ids, dtype=str)[items]


def _features(task: _Task, embeddings: Embeddings, items: np.ndarray) -> Embeddings:
    if task.second is None:
        return embeddings[task.first[items]]
    return pair_features(embeddings, task.first[items], task.second[items])


def _encode_for(
    corpus: Corpus, task: _Task, encoder: Encoder, train: np.ndarray
) -> Job[Embeddings]:
    """Embeddings of all the task's sentences, the encoder fitted on the sentences (or,
    when it learns from pairs, the pairs) of the ``train`` items when it learns from
    data, else on all of them."""
    if encoder.learns_from_data:
        rows = (
            task.first[train]
            if task.second is None
            else np.unique(np.concatenate([task.first[train], task.second[train]]))
        )
        fitted = yield from fitted_on_training_side(
            encoder,
            corpus,
            [task.texts[i] for i in rows],
            task.item_index[train] if task.kind == "pair" else np.zeros(0, np.int64),
        )
    elif encoder.requires_fit:
        fitted = yield from encoder.clone().iter_fit(task.texts)
    else:
        fitted = encoder
    return (yield from fitted.iter_encode(task.texts))


def run_transfer(
    corpus: Corpus,
    encoder: Encoder,
    *,
    seed: int = 0,
    task: str = "auto",
    n_folds: int = 10,
    C: float = 1.0,
    max_iter: int = 1000,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
) -> Job[TransferResult]:
    """Logistic-regression transfer accuracy of ``encoder`` on ``corpus``.

    Parameters
    ----------
    corpus : labelled pairs (pair task) or a grouping of kind "class" (sentence task).
    encoder : an unfitted encoder; fitted on training items only when it learns from data.
    seed : shuffles the folds, seeds the classifier and the bootstrap.
    task : "pair", "sentence", or "auto" (pairs when the corpus has labelled pairs).
    n_folds : folds of the stratified cross-validation used when there is no split.
    C, max_iter : logistic-regression regularisation and iteration cap.
    n_resamples, confidence : bootstrap interval of the accuracy; 0 turns it off.
    """
    spec = transfer_task(corpus, task)
    from sklearn.metrics import f1_score  # noqa: PLC0415 (lazy: slow)
    from sklearn.model_selection import StratifiedKFold  # noqa: PLC0415 (lazy: slow)

    labels = spec.labels
    if spec.split is not None:
        folds = [(np.flatnonzero(spec.split == "train"), np.flatnonzero(spec.split == "test"))]
        protocol = "given split"
    else:
        if np.bincount(np.unique(labels, return_inverse=True)[1]).min() < n_folds:
            raise EvaluationError(
                f"every class needs at least {n_folds} items for {n_folds}-fold cross-validation"
            )
        folds = list(
            StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed).split(
                np.zeros(len(labels)), labels
            )
        )
        protocol = f"{n_folds}-fold CV"

    shared = None
    if not encoder.learns_from_data:
        # Encoders that only collect a vocabulary are fitted on all evaluated sentences.
        shared = yield from encode_corpus(corpus, encoder, texts=spec.texts)
    tested, predicted, fold_of, accuracies = [], [], [], []
    for k, (train, test) in enumerate(folds):
        embeddings = (
            shared if shared is not None else (yield from _encode_for(corpus, spec, encoder, train))
        )
        classifier = fit_logistic(
            _features(spec, embeddings, train), labels[train], C=C, seed=seed, max_iter=max_iter
        )
        prediction = classifier.predict(_features(spec, embeddings, test))
        tested.append(test)
        predicted.append(prediction)
        fold_of.append(np.full(len(test), k))
        accuracies.append(float(np.mean(prediction == labels[test])))
        yield Progress("training classifiers", k + 1, len(folds))

    test = np.concatenate(tested)
    prediction = np.concatenate(predicted)
    binary = set(np.unique(labels).tolist()) == {0, 1}
    correct = (prediction == labels[test]).astype(np.float64)
    return TransferResult(
        provenance=Provenance.of(
            corpus,
            encoder,
            task=spec.kind,
            protocol=protocol,
            n_folds=n_folds if spec.split is None else None,
            seed=seed,
            C=C,
            max_iter=max_iter,
            classifier="LogisticRegression(lbfgs)",
            pair_features="[|u-v|, u*v]" if spec.kind == "pair" else None,
            refit_on_training_side=encoder.learns_from_data,
            n_resamples=n_resamples,
            confidence=confidence,
        ),
        task=spec.kind,
        protocol=protocol,
        class_names=spec.class_names,
        item_index=spec.item_index[test],
        item_id=_item_names(corpus, spec.kind, spec.item_index[test]),
        true_label=labels[test],
        predicted_label=prediction,
        fold=np.concatenate(fold_of),
        fold_accuracy=tuple(accuracies),
        n_train=int(np.mean([len(f[0]) for f in folds])),
        f1=float(f1_score(labels[test], prediction)) if binary else None,
        ci=statistics.cis(
            {"accuracy": (statistics.mean, correct, None)},
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        ),
    )
