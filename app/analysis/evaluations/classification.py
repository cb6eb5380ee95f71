"""Semantic classification of paraphrase groups (EVALUATIONS.md section 1).

Are sentences with the same meaning co-located, so that a *linear* classifier recovers
which paraphrase group a sentence belongs to? A linear SVM (LIBLINEAR, balanced class
weights) is scored by stratified k-fold cross-validation; encoders that learn from data
are refitted on each training fold only.

The mean accuracy's interval is a cluster bootstrap: whole groups are resampled, since
the sentences of one group are not independent (one group's paraphrases are right or
wrong together), and each resample's accuracy is the mean of its folds', as the value is.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

# scikit-learn is imported inside run_classification: importing it pulls scipy.stats
# and pandas (about 1 s), too slow for the GUI's start, which imports every evaluation.
from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.evaluations import passing, statistics
from sentspace.app.analysis.evaluations.statistics import format_ci
from sentspace.app.analysis.neighbours import fitted_on_training_side
from sentspace.app.analysis.results import Provenance, Result, Score, item_rows, names_at
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.model import Corpus, Grouping
from sentspace.models.base import Embeddings, Encoder

NAME = "classification"


@dataclass(frozen=True, eq=False)
class ClassificationResult(Result):
    """Per-fold and mean accuracy, and the prediction for every evaluated sentence.

    Attributes
    ----------
    sentence_index : ndarray of shape (n_evaluated,)
        The sentences that took part (members of groups of at least ``min_group_size``).
    sentence_id : str ndarray of shape (n_evaluated,)
        Their ids in the dataset.
    true_group, predicted_group : ndarray of shape (n_evaluated,)
        Group indices into ``group_names``.
    fold : ndarray of shape (n_evaluated,)
        The fold in which each sentence was a test sentence.
    ci : the mean accuracy's bootstrap interval over whole groups; None when not
        computed (no resamples, or a result saved before intervals were).
    """

    evaluation = NAME
    MAIN_SCORE = "mean accuracy"
    group_names: tuple[str, ...]
    sentence_index: np.ndarray
    sentence_id: np.ndarray
    true_group: np.ndarray
    predicted_group: np.ndarray
    fold: np.ndarray
    fold_accuracy: tuple[float, ...]
    ci: tuple[float, float] | None = None

    @property
    def mean_accuracy(self) -> float:
        return float(np.mean(self.fold_accuracy))

    @property
    def n_groups(self) -> int:
        return len(self.group_names)

    @property
    def misclassified(self) -> np.ndarray:
        """Sentence indices (into the corpus) whose group was predicted wrong."""
        return self.sentence_index[self.predicted_group != self.true_group]

    def group_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """(evaluated members, misclassified members) of each group, by group index."""
        wrong = self.predicted_group != self.true_group
        return (
            np.bincount(self.true_group, minlength=self.n_groups),
            np.bincount(self.true_group[wrong], minlength=self.n_groups),
        )

    def worst_groups(self) -> np.ndarray:
        """Indices of the groups with a misclassified member: most misclassified first,
        then the larger share of the group, then the group's name."""
        members, wrong = self.group_counts()
        erring = np.flatnonzero(wrong)
        names = np.asarray(self.group_names, dtype=str)[erring]
        return erring[np.lexsort((names, -wrong[erring] / members[erring], -wrong[erring]))]

    def group_sentences(self, group: int) -> np.ndarray:
        """The evaluated members of ``group`` (corpus indices)."""
        return self.sentence_index[self.true_group == group]

    def summary(self) -> list[tuple[str, str]]:
        """The rows both the CLI and the GUI's metric panel show."""
        rows = [
            (f"fold {k + 1} accuracy", f"{acc:.4f}") for k, acc in enumerate(self.fold_accuracy)
        ]
        rows.append(("mean accuracy", f"{self.mean_accuracy:.4f} {format_ci(self.ci)}".rstrip()))
        rows.append(("misclassified", f"{len(self.misclassified)} of {len(self.sentence_index)}"))
        return rows

    def scores(self) -> list[Score]:
        n = len(self.sentence_index)
        return [
            Score("mean accuracy", self.mean_accuracy, self.ci, n),
            Score("misclassified", len(self.misclassified), None, n),
        ]

    def body(self) -> dict[str, Any]:
        return {
            "n_sentences": int(len(self.sentence_index)),
            "n_groups": self.n_groups,
            "fold_accuracy": list(self.fold_accuracy),
            "mean_accuracy": self.mean_accuracy,
            "mean_accuracy_ci": None if self.ci is None else list(self.ci),
            "groups": [
                {"group": name, "sentences": int(size), "misclassified": int(k)}
                for name, size, k in zip(self.group_names, *self.group_counts())
            ],
            # "sentence" is the dataset's id; "row" indexes the corpus's sentences.
            "predictions": item_rows(
                self,
                "sentence=sentence_id, row=sentence_index, true, predicted, fold",
                true=names_at(self.group_names, self.true_group),
                predicted=names_at(self.group_names, self.predicted_group),
            ),
        }


#: Largest groups x sentences classified: one-vs-rest fits one SVM per group over every
#: training sentence, so the cost grows with their product (Opinosis: 51 x 7,086;
#: a million sentences in 290,000 groups: about 6e10, days).
SVM_LIMIT = 200_000_000


def evaluable_groups(
    corpus: Corpus, min_group_size: int, where: str = ""
) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """(sentence indices, group labels, group names) of groups with enough members
    that pass ``where`` (a filter expression; the others are left out).

    Raises EvaluationError, before any work, when the corpus has no groups or too few
    groups remain; InputError for a bad ``where``.
    """
    if corpus.groups is None:
        raise EvaluationError(
            f"classification needs paraphrase groups, and corpus {corpus.name!r} has none"
        )
    groups = corpus.groups
    mask = passing.passing(corpus, where)
    if mask is not None:
        kept = mask[groups.sentence_index]
        groups = Grouping(
            groups.kind, groups.sentence_index[kept], groups.group_index[kept], groups.names
        )
    groups = groups.restricted(min_group_size)
    if groups.n_groups < 2:
        raise EvaluationError(
            f"classification needs at least 2 groups of {min_group_size} "
            f"or more sentences; corpus {corpus.name!r} has "
            f"{groups.n_groups}"
            + (f" of sentences that pass {where.strip()!r}" if mask is not None else "")
        )
    size = groups.n_groups * len(groups.sentence_index)
    if size > SVM_LIMIT:
        raise EvaluationError(
            f"classification fits one linear SVM per group: {groups.n_groups:,} groups of "
            f"{len(groups.sentence_index):,} sentences would take hours (it is offered up "
            f"to {SVM_LIMIT:,} groups x sentences); evaluate a subset of the groups"
        )
    order = np.argsort(groups.sentence_index, kind="stable")
    return groups.sentence_index[order], groups.group_index[order], groups.names


def _pairs_within(corpus: Corpus, sentences: np.ndarray) -> np.ndarray:
    """The corpus's pairs whose two sentences are both among ``sentences``."""
    pairs = corpus.pairs
    if pairs is None:
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.isin(pairs.first, sentences) & np.isin(pairs.second, sentences))


def run_classification(
    corpus: Corpus,
    encoder: Encoder,
    *,
    n_folds: int = 3,
    seed: int = 0,
    min_group_size: int = 3,
    C: float = 1.0,
    embeddings: Embeddings | None = None,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    where: str = "",
) -> Job[ClassificationResult]:
    """Cross-validated linear-SVM accuracy at recovering paraphrase groups.

    Parameters
    ----------
    corpus : Corpus with a grouping; groups smaller than ``min_group_size`` are dropped.
    encoder : an unfitted encoder; it is cloned and fitted on each training fold when it
        learns from data, otherwise fitted once on all evaluated sentences.
    n_folds : folds of the stratified cross-validation (a group of 3 with 3 folds gives
        2 training sentences and 1 test sentence).
    seed : shuffles the folds and seeds the SVM and the bootstrap.
    C : SVM regularisation.
    embeddings : (n_sentences, dim) matrix of every corpus sentence, already encoded by
        ``encoder`` fitted on the corpus; used instead of encoding again when the encoder
        does not learn from data (its vocabulary's extra words get no SVM weight).
    n_resamples, confidence : the mean accuracy's bootstrap interval over whole groups;
        0 resamples turns it off.
    where : a filter expression: only the sentences that pass it are classified (and,
        as any evaluated sentences, fit an encoder that does not learn from data).
    """
    sentences, labels, names = evaluable_groups(corpus, min_group_size, where)
    kept = passing.described(
        corpus,
        where,
        len(sentences),
        lambda: len(evaluable_groups(corpus, min_group_size)[0]),
        "sentences",
    )
    if np.bincount(labels).min() < n_folds:
        raise EvaluationError(
            f"every group needs at least {n_folds} sentences for {n_folds}-fold cross-validation"
        )
    texts = [corpus.texts[i] for i in sentences]
    from sklearn.exceptions import ConvergenceWarning  # noqa: PLC0415 (lazy: slow)
    from sklearn.model_selection import StratifiedKFold  # noqa: PLC0415 (lazy: slow)
    from sklearn.svm import LinearSVC  # noqa: PLC0415 (lazy: slow)

    folds = list(
        StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed).split(
            np.zeros(len(labels)), labels
        )
    )

    shared_embeddings = None
    if not encoder.learns_from_data:
        if embeddings is not None:
            shared_embeddings = embeddings[sentences]
        else:
            shared_embeddings = yield from encode_corpus(corpus, encoder, texts=texts)

    predicted = np.empty_like(labels)
    fold_of = np.empty_like(labels)
    accuracies = []
    for k, (train, test) in enumerate(folds):
        if shared_embeddings is None:
            fold_encoder = yield from fitted_on_training_side(
                encoder,
                corpus,
                [texts[i] for i in train],
                _pairs_within(corpus, sentences[train]) if encoder.learns_from_pairs else None,
            )
            X_train = yield from fold_encoder.iter_encode([texts[i] for i in train])
            X_test = yield from fold_encoder.iter_encode([texts[i] for i in test])
        else:
            X_train, X_test = shared_embeddings[train], shared_embeddings[test]
        classifier = LinearSVC(C=C, class_weight="balanced", random_state=seed)
        with warnings.catch_warnings():
            # LIBLINEAR's iteration cap is a speed/precision trade-off, not an error.
            warnings.simplefilter("ignore", ConvergenceWarning)
            classifier.fit(X_train, labels[train])
        predicted[test] = classifier.predict(X_test)
        fold_of[test] = k
        accuracies.append(float(np.mean(predicted[test] == labels[test])))
        yield Progress("classifying folds", k + 1, n_folds)

    intervals = statistics.cis(
        {
            "mean accuracy": (
                statistics.fold_mean,
                (predicted == labels).astype(np.float64),
                fold_of,
            )
        },
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        clusters=labels,
    )
    return ClassificationResult(
        provenance=Provenance.of(
            corpus,
            encoder,
            n_folds=n_folds,
            seed=seed,
            min_group_size=min_group_size,
            C=C,
            n_resamples=n_resamples,
            confidence=confidence,
            classifier="LinearSVC(class_weight='balanced')",
            refit_per_fold=shared_embeddings is None,
            **passing.parameters(where, kept),
        ),
        group_names=names,
        sentence_index=sentences,
        sentence_id=np.asarray(corpus.ids, dtype=str)[sentences],
        true_group=labels,
        predicted_group=predicted,
        fold=fold_of,
        fold_accuracy=tuple(accuracies),
        ci=intervals.get("mean accuracy"),
    )
