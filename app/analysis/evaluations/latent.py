"""Latent-relatedness probe (EVALUATIONS.md section 3).

Sentences come in groups that contradict each other while sharing most words (``My soup
is very cold`` / ``There is steam coming out of my soup``). Each sentence should rank the
other members of its own group above every member of the other groups, by cosine. For
every sentence (the *anchor*): the rank and similarity of every other sentence, the
average precision of its own group among the others (``sklearn``'s definition), and the
gap between its lowest same-group and highest other-group similarity (positive when the
groups are perfectly separated). Ranks are pessimistic under ties, as in ranking.py.

The full similarity matrix is built, so the probe is meant for small sets (a bound is a
parameter).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.evaluations import statistics
from sentspace.app.analysis.neighbours import normalise
from sentspace.app.analysis.results import Result, Score, provenance
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder

NAME = "latent"


def probe_members(corpus: Corpus, max_sentences: int) -> tuple[np.ndarray, np.ndarray]:
    """(sentence indices, group per sentence) of the grouped sentences; raises
    EvaluationError, before any work, unless there are two groups of two or more."""
    if corpus.groups is None:
        raise EvaluationError(
            f"the {NAME} probe needs groups of sentences, and corpus {corpus.name!r} has none"
        )
    try:
        labels = corpus.groups.labels(len(corpus))
    except ValueError as error:
        raise EvaluationError(f"the {NAME} probe: {error}") from None
    sentences = np.flatnonzero(labels >= 0)
    group = labels[sentences]
    if np.sum(np.bincount(group) >= 2) < 2:
        raise EvaluationError(
            f"the {NAME} probe needs at least two groups of two or more sentences"
        )
    if len(sentences) > max_sentences:
        raise EvaluationError(
            f"the {NAME} probe compares every pair of sentences and is "
            f"bounded to {max_sentences}; corpus {corpus.name!r} has "
            f"{len(sentences)} grouped sentences"
        )
    return sentences, group


@dataclass(frozen=True, eq=False)
class LatentResult(Result):
    """Per-anchor ranks, similarities, average precision and separation gap.

    Attributes
    ----------
    sentence_index : ndarray of shape (n,)
        The probe's sentences (index into the corpus), in corpus order.
    sentence_id : str ndarray of shape (n,)
        Their ids in the dataset.
    group : ndarray of shape (n,)
        Group of each sentence, index into ``group_names``.
    similarity : ndarray of shape (n, n)
        Cosine of every two sentences (the diagonal is NaN: an anchor is not its own
        candidate).
    rank : ndarray of shape (n, n)
        Rank of sentence j for anchor i among the other n - 1 (1 = most similar); 0 on
        the diagonal.
    average_precision : ndarray of shape (n,)
        Of the anchor's own group among the others.
    gap : ndarray of shape (n,)
        Lowest same-group similarity minus highest other-group similarity.
    degenerate : bool ndarray of shape (n,)
        Sentences with a zero (or non-finite) vector (cosine 0 with everything).
    """

    evaluation = NAME
    group_names: tuple[str, ...]
    sentence_index: np.ndarray
    sentence_id: np.ndarray
    group: np.ndarray
    similarity: np.ndarray
    rank: np.ndarray
    average_precision: np.ndarray
    gap: np.ndarray
    degenerate: np.ndarray

    @property
    def mean_average_precision(self) -> float:
        return float(np.mean(self.average_precision))

    @property
    def separated(self) -> np.ndarray:
        """Anchors whose own group ranks strictly above every other sentence."""
        return self.gap > 0

    def summary(self) -> list[tuple[str, str]]:
        return [
            ("sentences", f"{len(self.sentence_index)} in {len(self.group_names)} groups"),
            ("mean average precision", f"{self.mean_average_precision:.4f}"),
            ("anchors separating their group", f"{int(self.separated.sum())} of {len(self.gap)}"),
            ("smallest gap", f"{self.gap.min():+.4f}"),
            ("mean gap", f"{self.gap.mean():+.4f}"),
            ("sentences with a zero vector", str(int(self.degenerate.sum()))),
        ]

    def scores(self) -> list[Score]:
        n = len(self.sentence_index)
        return [
            Score("mean average precision", self.mean_average_precision, None, n),
            Score("anchors separating their group", int(self.separated.sum()), None, n),
            Score("smallest gap", float(self.gap.min()), None, n),
            Score("mean gap", float(self.gap.mean()), None, n),
        ]

    def body(self) -> dict[str, Any]:
        # NaN (no similarity) written as null.
        similarity = self.similarity.astype(object)
        similarity[np.isnan(self.similarity)] = None
        return {
            "groups": list(self.group_names),
            "mean_average_precision": self.mean_average_precision,
            "n_degenerate": int(self.degenerate.sum()),
            # "sentence" is the dataset's id, "row" indexes the corpus's sentences; ranks
            # and similarities are in the order of "anchors".
            "anchors": [
                {
                    "sentence": s,
                    "row": int(row),
                    "group": self.group_names[g],
                    "average_precision": float(ap),
                    "gap": float(gap),
                    "ranks": self.rank[k].tolist(),
                    "similarities": similarity[k].tolist(),
                }
                for k, (s, row, g, ap, gap) in enumerate(
                    zip(
                        self.sentence_id.tolist(),
                        self.sentence_index,
                        self.group,
                        self.average_precision,
                        self.gap,
                    )
                )
            ],
        }


def evaluate_latent(
    corpus: Corpus,
    embeddings: Embeddings,
    *,
    encoder: Encoder | None = None,
    max_sentences: int = 2000,
    seed: int = 0,
) -> LatentResult:
    """The probe on precomputed embeddings (shape (len(corpus), dim)); ``seed`` is unused
    (nothing is random) and accepted so every evaluation is called alike."""
    sentences, group = probe_members(corpus, max_sentences)
    unit = normalise(embeddings[sentences])
    product = unit.matrix @ unit.matrix.T
    similarity = np.asarray(
        product.toarray() if hasattr(product, "toarray") else product, dtype=np.float64
    )
    n = len(sentences)
    diagonal = np.eye(n, dtype=bool)
    same = (group[:, None] == group[None, :]) & ~diagonal
    other = group[:, None] != group[None, :]
    candidates = np.where(diagonal, -np.inf, similarity)
    # Pessimistic rank of j for anchor i: the candidates at least as similar as j, j
    # included; counted on each sorted row.
    ordered = np.sort(candidates, axis=1)
    rank = np.stack([n - np.searchsorted(ordered[i], candidates[i], side="left") for i in range(n)])
    rank[diagonal] = 0
    off = ~diagonal
    average_precision = statistics.average_precision(
        similarity[off].reshape(n, n - 1), same[off].reshape(n, n - 1).astype(np.float64)
    )
    gap = np.where(same, similarity, np.inf).min(axis=1) - np.where(other, similarity, -np.inf).max(
        axis=1
    )
    return LatentResult(
        provenance=provenance(
            corpus, encoder, embeddings, max_sentences=max_sentences, ties="pessimistic", seed=seed
        ),
        group_names=corpus.checked_groups.names,
        sentence_index=sentences,
        sentence_id=np.asarray(corpus.ids, dtype=str)[sentences],
        group=group,
        similarity=np.where(diagonal, np.nan, similarity),
        rank=rank,
        average_precision=average_precision,
        gap=gap,
        degenerate=unit.degenerate,
    )


def run_latent(
    corpus: Corpus, encoder: Encoder, *, seed: int = 0, max_sentences: int = 2000
) -> Job[LatentResult]:
    """Encode the corpus and run :func:`evaluate_latent` (same parameters)."""
    probe_members(corpus, max_sentences)
    embeddings = yield from encode_corpus(corpus, encoder)
    return evaluate_latent(
        corpus, embeddings, encoder=encoder, max_sentences=max_sentences, seed=seed
    )
