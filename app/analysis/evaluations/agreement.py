"""Misclassification agreement between encoders (EVALUATIONS.md section 1).

When two encoders m1, m2 both misclassify a sentence x of true group y, do they make the
*same* mistake? Over the test sentences of the same cross-validation folds,

    agreement(m1, m2) = P(m1(x) = m2(x) | m1(x) != y and m2(x) != y)
                      = #{both wrong, same group} / #{both wrong}.

For N encoders on n sentences all N x N cells come from two (N, n) boolean matrices: the
denominators are the matrix product W @ W.T of the mistake matrix W, the numerators the
row sums of (P_i == P_j) & W_i & W_j over the prediction matrix P. The diagonal holds
each encoder's total mistakes in both (a mistake agrees with itself), so its agreement
is 1 whenever the encoder made a mistake. McNemar's test compares any two encoders'
per-sentence correctness (``sentspace.app.analysis.evaluations.statistics.mcnemar``).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.analysis.evaluations import statistics
from sentspace.app.analysis.evaluations.classification import (
    ClassificationResult,
    evaluable_groups,
    run_classification,
)
from sentspace.app.analysis.results import Provenance, Result, Score, item_rows, names_at
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Encoder

NAME = "agreement"
#: Classification parameters that must be equal for results to share their folds.
SHARED_PARAMETERS = ("seed", "n_folds", "min_group_size")


def _labels(names: Sequence[str]) -> tuple[str, ...]:
    """Encoder names, numbered where two would read the same (``bow #1``, ``bow #2``)."""
    counts = {name: names.count(name) for name in names}
    seen: dict[str, int] = {}
    labels = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        labels.append(f"{name} #{seen[name]}" if counts[name] > 1 else name)
    return tuple(labels)


@dataclass(frozen=True, eq=False)
class AgreementResult(Result):
    """The N x N misclassification-agreement matrix of N encoders on the same folds.

    Attributes
    ----------
    provenance : the corpus, the encoders together (names joined, fingerprint of their
        fingerprints) and the shared classification parameters.
    encoders : the provenance of each encoder's classification, in matrix order.
    names : one label per encoder (row and column names).
    group_names : the paraphrase groups, as in ``ClassificationResult``.
    sentence_index : ndarray of shape (n,)
        The evaluated sentences (index into the corpus).
    sentence_id : str ndarray of shape (n,)
        Their ids in the dataset.
    true_group : ndarray of shape (n,)
    fold : ndarray of shape (n,)
        The fold in which each sentence was tested, shared by every encoder.
    predicted_group : ndarray of shape (N, n)
        Each encoder's prediction for each sentence.
    numerator : int ndarray of shape (N, N)
        Sentences both encoders got wrong with the same predicted group.
    denominator : int ndarray of shape (N, N)
        Sentences both encoders got wrong; the diagonal is each encoder's mistakes.
    """

    evaluation = NAME
    encoders: tuple[Provenance, ...]
    names: tuple[str, ...]
    group_names: tuple[str, ...]
    sentence_index: np.ndarray
    sentence_id: np.ndarray
    true_group: np.ndarray
    fold: np.ndarray
    predicted_group: np.ndarray
    numerator: np.ndarray
    denominator: np.ndarray

    @property
    def n_encoders(self) -> int:
        return len(self.names)

    @property
    def wrong(self) -> np.ndarray:
        """Bool ndarray of shape (N, n): which sentences each encoder misclassified."""
        return self.predicted_group != self.true_group

    @property
    def mistakes(self) -> np.ndarray:
        """Int ndarray of shape (N,): each encoder's total mistakes."""
        return np.diagonal(self.denominator).copy()

    @property
    def agreement(self) -> np.ndarray:
        """Float ndarray of shape (N, N): numerator / denominator, NaN where no sentence
        was misclassified by both."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(
                self.denominator > 0, self.numerator / np.maximum(self.denominator, 1), np.nan
            )

    def both_wrong(self, i: int, j: int) -> np.ndarray:
        """Sentence indices (into the corpus) behind cell (i, j)'s denominator."""
        wrong = self.wrong
        return self.sentence_index[wrong[i] & wrong[j]]

    def same_mistake(self, i: int, j: int) -> np.ndarray:
        """Sentence indices (into the corpus) behind cell (i, j)'s numerator: both
        encoders wrong, with the same predicted group."""
        wrong = self.wrong
        same = self.predicted_group[i] == self.predicted_group[j]
        return self.sentence_index[wrong[i] & wrong[j] & same]

    def mcnemar(self, i: int, j: int) -> statistics.PairedTest:
        """McNemar's test of encoder i against encoder j on per-sentence correctness."""
        wrong = self.wrong
        return statistics.mcnemar(~wrong[i], ~wrong[j])

    def pairs(self) -> list[tuple[int, int]]:
        """The cells above the diagonal, row by row."""
        n = self.n_encoders
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def summary(self) -> list[tuple[str, str]]:
        """The rows both the CLI and the GUI's metric panel show."""
        n = len(self.sentence_index)
        rows = [("sentences", f"{n} in {len(self.group_names)} groups")]
        rows += [
            (f"{name}: mistakes", f"{int(m)} of {n}") for name, m in zip(self.names, self.mistakes)
        ]
        agreement = self.agreement
        for i, j in self.pairs():
            pair = f"{self.names[i]} vs {self.names[j]}"
            shown = "n/a" if np.isnan(agreement[i, j]) else f"{agreement[i, j]:.4f}"
            rows.append(
                (
                    f"{pair}: same wrong group",
                    f"{self.numerator[i, j]}/{self.denominator[i, j]} ({shown})",
                )
            )
            rows.append((f"{pair}: McNemar p", f"{self.mcnemar(i, j).p_value:.4g}"))
        return rows

    def scores(self) -> list[Score]:
        n = len(self.sentence_index)
        agreement = self.agreement
        scores = [
            Score(f"{name}: mistakes", int(m), None, n)
            for name, m in zip(self.names, self.mistakes)
        ]
        for i, j in self.pairs():
            pair = f"{self.names[i]} vs {self.names[j]}"
            scores += [
                Score(
                    f"{pair}: same wrong group",
                    float(agreement[i, j]),
                    None,
                    int(self.denominator[i, j]),
                ),
                Score(f"{pair}: McNemar p", self.mcnemar(i, j).p_value, None, n),
            ]
        return scores

    def body(self) -> dict[str, Any]:
        agreement = self.agreement
        return {
            "encoders": [dataclasses.asdict(p) for p in self.encoders],
            "names": list(self.names),
            "n_sentences": int(len(self.sentence_index)),
            "mistakes": self.mistakes.tolist(),
            "numerator": self.numerator.tolist(),
            "denominator": self.denominator.tolist(),
            "agreement": [[None if np.isnan(v) else float(v) for v in row] for row in agreement],
            "mcnemar": [
                {"a": self.names[i], "b": self.names[j], **self.mcnemar(i, j).__dict__}
                for i, j in self.pairs()
            ],
            # "sentence" is the dataset's id; "row" indexes the corpus's sentences.
            "predictions": item_rows(
                self,
                "sentence=sentence_id, row=sentence_index, true, fold, predicted",
                true=names_at(self.group_names, self.true_group),
                predicted=names_at(self.group_names, self.predicted_group.T),
            ),
        }


def check_same_folds(results: Sequence[ClassificationResult]) -> None:
    """Raise EvaluationError unless every result is of the same corpus, seed, folds and
    sentences as the first, so that their predictions can be compared sentence by
    sentence."""
    first = results[0]
    for k, other in enumerate(results[1:], start=2):
        who = f"result {k} ({other.provenance.encoder_name})"
        if other.provenance.corpus_fingerprint != first.provenance.corpus_fingerprint:
            raise EvaluationError(
                f"{who} is of corpus {other.provenance.corpus_name!r}, "
                f"result 1 of {first.provenance.corpus_name!r}"
            )
        for name in SHARED_PARAMETERS:
            mine = other.provenance.parameters.get(name)
            theirs = first.provenance.parameters.get(name)
            if mine != theirs:
                raise EvaluationError(
                    f"{who} has {name}={mine}, result 1 {name}={theirs}: "
                    f"agreement needs the same folds"
                )
        if not (
            np.array_equal(other.sentence_index, first.sentence_index)
            and np.array_equal(other.true_group, first.true_group)
            and np.array_equal(other.fold, first.fold)
        ):
            raise EvaluationError(f"{who} was tested on other sentences or folds than result 1")


def agreement_counts(predicted: np.ndarray, true: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(numerator, denominator), int ndarrays of shape (N, N), from predictions of shape
    (N, n) and true groups of shape (n,)."""
    wrong = predicted != true
    as_int = wrong.astype(np.int64)
    denominator = as_int @ as_int.T
    # (N, N, n) booleans: a few MB even for tens of encoders on tens of thousands of
    # sentences, and one pass instead of N^2.
    same_mistake = (
        (predicted[:, None, :] == predicted[None, :, :]) & wrong[:, None, :] & wrong[None, :, :]
    )
    return same_mistake.sum(axis=-1), denominator


def misclassification_agreement(
    results: Sequence[ClassificationResult], names: Sequence[str] | None = None
) -> AgreementResult:
    """The agreement matrix of classification results on the same corpus and folds.

    Parameters
    ----------
    results : two or more ``ClassificationResult`` of the same corpus, seed, number of
        folds and minimum group size (checked; EvaluationError otherwise).
    names : row labels; by default the encoders' names (numbered when repeated).
    """
    if len(results) < 2:
        raise EvaluationError(
            "misclassification agreement needs at least 2 classification "
            f"results, got {len(results)}"
        )
    check_same_folds(results)
    first = results[0]
    if names is None:
        names = _labels([r.provenance.encoder_name for r in results])
    labels = tuple(names)
    if len(labels) != len(results):
        raise EvaluationError(f"{len(labels)} names for {len(results)} results")
    predicted = np.stack([r.predicted_group for r in results])
    numerator, denominator = agreement_counts(predicted, first.true_group)
    encoders = tuple(r.provenance for r in results)
    fingerprint = hashlib.sha256(
        " ".join(p.encoder_fingerprint for p in encoders).encode()
    ).hexdigest()[:16]
    parameters = {name: first.provenance.parameters.get(name) for name in SHARED_PARAMETERS}
    provenance = Provenance(
        corpus_name=first.provenance.corpus_name,
        corpus_fingerprint=first.provenance.corpus_fingerprint,
        corpus_edits=first.provenance.corpus_edits,
        encoder_name=", ".join(labels),
        encoder_family=NAME,
        encoder_params={label: p.encoder_params for label, p in zip(labels, encoders)},
        encoder_fingerprint=fingerprint,
        parameters={
            **parameters,
            "condition": "both wrong",
            "statistic": "P(m1(x) = m2(x) | m1(x) != y and m2(x) != y)",
            "paired_test": "McNemar on per-sentence correctness",
        },
    )
    return AgreementResult(
        provenance=provenance,
        encoders=encoders,
        names=labels,
        group_names=first.group_names,
        sentence_index=first.sentence_index,
        sentence_id=first.sentence_id,
        true_group=first.true_group,
        fold=first.fold,
        predicted_group=predicted,
        numerator=numerator,
        denominator=denominator,
    )


def compare_classifications(
    a: ClassificationResult, b: ClassificationResult
) -> statistics.PairedTest:
    """McNemar's test of two classification results on the same folds (checked)."""
    check_same_folds([a, b])
    return statistics.mcnemar(a.predicted_group == a.true_group, b.predicted_group == b.true_group)


def run_agreement(
    corpus: Corpus,
    encoders: Sequence[Encoder],
    *,
    seed: int = 0,
    n_folds: int = 3,
    min_group_size: int = 3,
    C: float = 1.0,
) -> Job[AgreementResult]:
    """Classify with each encoder on the same folds, then compute the agreement matrix.

    Parameters are those of :func:`sentspace.app.analysis.evaluations.classification.run_classification`,
    shared by every encoder so that the folds are the same.
    """
    if len(encoders) < 2:
        raise EvaluationError(
            f"misclassification agreement needs at least 2 encoders, got {len(encoders)}"
        )
    evaluable_groups(corpus, min_group_size)
    results = []
    for k, encoder in enumerate(encoders):
        results.append(
            (
                yield from run_classification(
                    corpus, encoder, n_folds=n_folds, seed=seed, min_group_size=min_group_size, C=C
                )
            )
        )
        yield Progress("agreement: encoders classified", k + 1, len(encoders))
    return misclassification_agreement(results)


def default_encoders(run: Sequence[str], loaded: Sequence[str], chosen: str | None) -> list[str]:
    """The encoders an agreement on a corpus starts from: those already run on it and the
    embeddings loaded for it (their spaces exist; other families may need training);
    with fewer than two, the chosen encoder, then TF-IDF and bag of words, make up two."""
    picked = list(dict.fromkeys([*run, *loaded]))
    for spec in (chosen, "tfidf", "bow"):
        if len(picked) < 2 and spec and spec not in picked:
            picked.append(spec)
    return picked
