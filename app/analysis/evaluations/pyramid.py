"""Pyramid (SCU) paraphrase tests (EVALUATIONS.md section 4).

Do fragments that human annotators put in one Summary Content Unit lie closer together
than lexically similar fragments of other SCUs? Two tests on the items that
:func:`sentspace.app.corpora.pyramid.pyramid_tests` derives:

- binary: a pair is called a paraphrase when its cosine reaches a threshold; the
  threshold maximising F1 is chosen on a random ``tune_fraction`` of the pairs (seeded),
  and F1, precision and recall are reported on the other pairs.
- ranking: each question's answer competes with its distractors by cosine; success rate
  (answer ranked first) and mean reciprocal rank. Ties rank the answer below the tied
  distractors, and a zero or non-finite embedding gives cosine -inf, so neither helps.

Two cosines within :data:`TIE_TOLERANCE` of each other are a tie, in the ranking and at
the threshold alike: equal cosines reached by different float64 sums (a question's
answer and a distractor both at cos² = 1/20 of count vectors) differ in the last bits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.evaluations import statistics
from sentspace.app.analysis.results import Provenance, Result, Score, item_rows
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.model import Corpus
from sentspace.app.corpora.pyramid import PyramidTests, pyramid_tests
from sentspace.models.base import Embeddings, Encoder

NAME = "pyramid"
#: Cosines closer than this are equal: float64 rounding of a cosine of unit rows is
#: within ~1e-15; two distinct cosines of count vectors of summary-sized fragments
#: (a/sqrt(b*c), counts under 1,000) lie more than 1e-9 apart.
TIE_TOLERANCE = 1e-9


@dataclass(frozen=True, eq=False)
class BinaryOutcome:
    """The binary test: per-pair cosine, whether it tuned the threshold, and the call.

    Attributes
    ----------
    cosine : ndarray of shape (n_pairs,)
        Cosine of each pair of ``PyramidTests.pairs`` (-inf for a degenerate vector).
    in_tune : ndarray of bool, shape (n_pairs,)
        The pairs the threshold was chosen on; metrics are on the others.
    predicted : ndarray of bool, shape (n_pairs,)
        ``cosine >= threshold``, a tie within ``TIE_TOLERANCE`` reaching it.
    f1_ci : 95% bootstrap interval of the test pairs' F1 (threshold held fixed).
    """

    cosine: np.ndarray
    in_tune: np.ndarray
    predicted: np.ndarray
    threshold: float
    tune_f1: float
    precision: float
    recall: float
    f1: float
    f1_ci: tuple[float, float] | None = None

    @property
    def at_edge(self) -> bool:
        """The threshold is the lowest or highest cut the tune pairs allow: they do not
        separate the classes, so the test F1 says little."""
        tune = np.unique(self.cosine[self.in_tune])
        return len(tune) < 3 or self.threshold in (tune[1], tune[-1])


@dataclass(frozen=True, eq=False)
class RankingOutcome:
    """The ranking test: cosines of each question to its answer and distractors.

    Attributes
    ----------
    answer_cosine : ndarray of shape (n_questions,)
    distractor_cosine : ndarray of shape (n_questions, n_distractors)
    rank : ndarray of shape (n_questions,)
        1 + the number of distractors at least as similar as the answer (a tie within
        ``TIE_TOLERANCE`` counting against it).
    """

    answer_cosine: np.ndarray
    distractor_cosine: np.ndarray
    rank: np.ndarray

    @property
    def success_rate(self) -> float:
        return float(np.mean(self.rank == 1))

    @property
    def mrr(self) -> float:
        return float(np.mean(1.0 / self.rank))


@dataclass(frozen=True, eq=False)
class PyramidResult(Result):
    """Both pyramid tests, the items they ran on and the constraint counts;
    ``sentence_ids`` (the corpus's, then the SCU labels' when the binary test pairs them) name
    the items the tests index."""

    evaluation = NAME
    tests: PyramidTests
    binary: BinaryOutcome
    ranking: RankingOutcome
    n_degenerate: int
    sentence_ids: tuple[str, ...]

    def summary(self) -> list[tuple[str, str]]:
        """The rows both the CLI and the GUI's metric panel show."""
        labels = self.tests.pairs.label
        tune = self.binary.in_tune
        rows = [
            ("binary F1", f"{self.binary.f1:.4f} {statistics.format_ci(self.binary.f1_ci)}"),
            ("binary precision", f"{self.binary.precision:.4f}"),
            ("binary recall", f"{self.binary.recall:.4f}"),
            (
                "binary threshold",
                f"{self.binary.threshold:.4f} (tune F1 {self.binary.tune_f1:.4f})",
            ),
            (
                "binary pairs",
                f"{int((labels == 1).sum())} positive, "
                f"{int((labels == 0).sum())} negative; {int(tune.sum())} tune, "
                f"{int((~tune).sum())} test",
            ),
            ("ranking success rate", f"{self.ranking.success_rate:.4f}"),
            ("ranking MRR", f"{self.ranking.mrr:.4f}"),
            ("ranking questions", str(self.tests.n_questions)),
        ]
        if self.binary.at_edge:
            rows.append(
                (
                    "binary threshold warning",
                    "at the edge: the tune pairs do not separate the classes",
                )
            )
        if self.n_degenerate:
            rows.append(("zero or non-finite embeddings", str(self.n_degenerate)))
        return rows + self.tests.summary()

    def scores(self) -> list[Score]:
        n_test, n_questions = int((~self.binary.in_tune).sum()), self.tests.n_questions
        return [
            Score("binary F1", self.binary.f1, self.binary.f1_ci, n_test),
            Score("binary precision", self.binary.precision, None, n_test),
            Score("binary recall", self.binary.recall, None, n_test),
            Score("binary threshold", self.binary.threshold, None, int(self.binary.in_tune.sum())),
            Score("ranking success rate", self.ranking.success_rate, None, n_questions),
            Score("ranking MRR", self.ranking.mrr, None, n_questions),
        ]

    def body(self) -> dict[str, Any]:
        pairs, tests = self.tests.pairs, self.tests
        # Sentences by the dataset's ids.
        ids = np.asarray(self.sentence_ids, dtype=str)
        return {
            "constraints": tests.parameters,
            "funnels": [
                {
                    "what": f.what,
                    "candidates": f.candidates,
                    "removed": dict(f.removed),
                    "kept": f.kept,
                }
                for f in tests.funnels
            ],
            "n_degenerate": self.n_degenerate,
            "binary": {
                "f1": self.binary.f1,
                "f1_ci": self.binary.f1_ci,
                "precision": self.binary.precision,
                "recall": self.binary.recall,
                "threshold": self.binary.threshold,
                "tune_f1": self.binary.tune_f1,
                "at_edge": self.binary.at_edge,
                "pairs": item_rows(
                    self.binary,
                    "first, second, label, cosine, tune=in_tune, predicted",
                    first=ids[pairs.first],
                    second=ids[pairs.second],
                    label=pairs.label,
                ),
            },
            "ranking": {
                "success_rate": self.ranking.success_rate,
                "mrr": self.ranking.mrr,
                "questions": item_rows(
                    self.ranking,
                    "question, answer, distractors, answer_cosine, "
                    "distractor_cosines=distractor_cosine, rank",
                    question=ids[tests.question],
                    answer=ids[tests.answer],
                    distractors=ids[tests.distractors],
                ),
            },
        }


def _unit_rows(embeddings: Embeddings) -> tuple[np.ndarray | sp.csr_array, np.ndarray]:
    """(rows scaled to unit length in float64, mask of zero or non-finite rows)."""
    if sp.issparse(embeddings):
        X = sp.csr_array(embeddings, dtype=np.float64)
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    else:
        X = np.asarray(embeddings, dtype=np.float64)
        norms = np.linalg.norm(X, axis=1)
    bad = ~np.isfinite(norms) | (norms == 0)
    scale = np.where(bad, 0.0, 1.0 / np.where(bad, 1.0, norms))
    if sp.issparse(X):
        return sp.csr_array(sp.diags_array(scale) @ X), bad
    return X * scale[:, None], bad


def _cosines(
    X: np.ndarray | sp.csr_array, bad: np.ndarray, first: np.ndarray, second: np.ndarray
) -> np.ndarray:
    """Cosine of each (first[k], second[k]); -inf where either vector is degenerate."""
    if sp.issparse(X):
        dots = np.asarray(X[first].multiply(X[second]).sum(axis=1)).ravel()
    else:
        dots = np.einsum("ij,ij->i", X[first], X[second])
    return np.where(bad[first] | bad[second], -np.inf, dots)


def best_f1_threshold(cosine: np.ndarray, label: np.ndarray) -> tuple[float, float]:
    """(threshold, F1) maximising F1 of ``cosine >= threshold`` against ``label``.

    Every distinct cosine is a candidate but the lowest, which calls every pair a
    paraphrase: with few positives that degenerate cut still has some F1 and could win,
    telling nothing about the encoder. Ties in F1 go to the highest threshold.
    """
    order = np.argsort(-cosine, kind="stable")
    ranked, positive = cosine[order], label[order] == 1
    # A cut is valid after the last of a run of equal cosines (within TIE_TOLERANCE).
    with np.errstate(invalid="ignore"):  # -inf - -inf
        apart = ~(ranked[:-1] - ranked[1:] <= TIE_TOLERANCE)
    cut = np.flatnonzero(np.append(apart & (ranked[1:] != ranked[:-1]), True))
    if len(cut) > 1:
        cut = cut[:-1]
    true_positives = np.cumsum(positive)[cut]
    f1 = 2 * true_positives / (cut + 1 + positive.sum())
    best = int(np.argmax(f1))
    return float(ranked[cut[best]]), float(f1[best])


def reaches(cosine: np.ndarray, bound: np.ndarray | float) -> np.ndarray:
    """``cosine >= bound``, a tie within :data:`TIE_TOLERANCE` counting as reaching it (a
    distractor tied with the answer ranks above it; a pair tied with the threshold is
    called a paraphrase); -inf reaches only -inf."""
    return (cosine >= bound) | np.isclose(cosine, bound, rtol=0, atol=TIE_TOLERANCE)


def _scores(predicted: np.ndarray, label: np.ndarray) -> tuple[float, float, float]:
    """(precision, recall, F1), 0 where undefined."""
    tp = int((predicted & (label == 1)).sum())
    n_predicted, n_positive = int(predicted.sum()), int((label == 1).sum())
    precision = tp / n_predicted if n_predicted else 0.0
    recall = tp / n_positive if n_positive else 0.0
    f1 = 2 * tp / (n_predicted + n_positive) if n_predicted + n_positive else 0.0
    return precision, recall, f1


def _check(tests: PyramidTests, corpus: Corpus) -> None:
    if len(tests.pairs) < 2 or tests.n_questions == 0:
        raise EvaluationError(
            f"corpus {corpus.name!r} yields {len(tests.pairs)} binary pairs "
            f"and {tests.n_questions} ranking questions after the "
            f"constraints; the pyramid tests need at least 2 and 1"
        )


def evaluate_pyramid(
    corpus: Corpus,
    embeddings: Embeddings,
    *,
    seed: int = 0,
    tune_fraction: float = 0.1,
    tests: PyramidTests | None = None,
    provenance: Provenance | None = None,
) -> PyramidResult:
    """Run both pyramid tests on precomputed embeddings.

    Parameters
    ----------
    corpus : Corpus loaded by :func:`sentspace.app.corpora.pyramid.load_pyramid`.
    embeddings : ndarray or sparse matrix of shape (len(corpus) + len(tests.label_texts),
        dim): the sentences, then the SCU labels when the binary test pairs them.
    seed : draws the tune pairs.
    tune_fraction : share of pairs (at least one, and one left for testing) on which the
        threshold is chosen.
    tests : the derived tests; by default :func:`pyramid_tests` with its default
        constraints.
    provenance : what produced the embeddings; by default "precomputed", with a hash of
        the matrix as encoder fingerprint.
    """
    tests = tests if tests is not None else pyramid_tests(corpus)
    _check(tests, corpus)
    n_items = len(corpus) + len(tests.label_texts)
    if embeddings.ndim != 2 or embeddings.shape[0] != n_items:
        raise EvaluationError(
            f"expected one embedding per sentence (and SCU label), "
            f"{n_items} rows; got shape {embeddings.shape}"
        )
    X, bad = _unit_rows(embeddings)
    pairs = tests.pairs

    cosine = _cosines(X, bad, pairs.first, pairs.second)
    n_tune = min(max(1, round(tune_fraction * len(pairs))), len(pairs) - 1)
    in_tune = np.zeros(len(pairs), dtype=bool)
    in_tune[np.random.default_rng(seed).permutation(len(pairs))[:n_tune]] = True
    threshold, tune_f1 = best_f1_threshold(cosine[in_tune], pairs.label[in_tune])
    predicted = reaches(cosine, threshold)
    precision, recall, f1 = _scores(predicted[~in_tune], pairs.label[~in_tune])
    f1_ci = statistics.bootstrap_ci(
        statistics.f1, predicted[~in_tune], pairs.label[~in_tune], seed=seed
    )

    answer_cosine = _cosines(X, bad, tests.question, tests.answer)
    n_distractors = tests.distractors.shape[1]
    distractor_cosine = _cosines(
        X, bad, np.repeat(tests.question, n_distractors), tests.distractors.ravel()
    ).reshape(-1, n_distractors)
    rank = 1 + reaches(distractor_cosine, answer_cosine[:, None]).sum(axis=1)

    used = np.unique(
        np.concatenate([pairs.first, pairs.second, tests.question, tests.distractors.ravel()])
    )
    if provenance is None:
        provenance = Provenance.of_embeddings(
            corpus, embeddings, seed=seed, tune_fraction=tune_fraction, **tests.parameters
        )
    return PyramidResult(
        provenance=provenance,
        tests=tests,
        binary=BinaryOutcome(
            cosine=cosine,
            in_tune=in_tune,
            predicted=predicted,
            threshold=threshold,
            tune_f1=tune_f1,
            precision=precision,
            recall=recall,
            f1=f1,
            f1_ci=f1_ci,
        ),
        ranking=RankingOutcome(
            answer_cosine=answer_cosine, distractor_cosine=distractor_cosine, rank=rank
        ),
        n_degenerate=int(bad[used].sum()),
        sentence_ids=corpus.ids + tests.label_ids,
    )


def run_pyramid(
    corpus: Corpus,
    encoder: Encoder,
    *,
    seed: int = 0,
    tune_fraction: float = 0.1,
    min_words: int = 3,
    min_shared_negative: int = 4,
    n_distractors: int = 3,
    distractors: str = "answer",
    negative_overlap: str = "tokens",
    items: str = "contributors",
    negatives: str = "across-pyramids",
) -> Job[PyramidResult]:
    """Encode the contributors of a pyramid corpus and run both tests.

    Parameters
    ----------
    corpus : Corpus loaded by :func:`sentspace.app.corpora.pyramid.load_pyramid`.
    encoder : fitted on all contributors first when it requires fitting (no labels are
        learnt, so nothing leaks).
    seed, tune_fraction : see :func:`evaluate_pyramid`.
    min_words, min_shared_negative, n_distractors, distractors, negative_overlap, items,
    negatives :
        how :func:`sentspace.app.corpora.pyramid.pyramid_tests` builds the tests; with SCU labels
        among the binary items, the labels are encoded after the sentences.
    """
    tests = pyramid_tests(
        corpus,
        min_words=min_words,
        min_shared_negative=min_shared_negative,
        n_distractors=n_distractors,
        distractors=distractors,
        negative_overlap=negative_overlap,
        items=items,
        negatives=negatives,
    )
    _check(tests, corpus)
    embeddings = yield from encode_corpus(
        corpus, encoder, texts=corpus.texts + tests.label_texts if tests.label_texts else None
    )
    result = evaluate_pyramid(
        corpus,
        embeddings,
        seed=seed,
        tune_fraction=tune_fraction,
        tests=tests,
        provenance=Provenance.of(
            corpus, encoder, seed=seed, tune_fraction=tune_fraction, **tests.parameters
        ),
    )
    yield Progress("scoring pyramid tests", 1, 1)
    return result
