"""Pairs whose gold score the cosines rank far away, and Costra orderings that the
encoders agree against."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from sentspace.app.analysis.evaluations.costra import evaluate_costra
from sentspace.app.analysis.neighbours import pair_cosines
from sentspace.app.analysis.suspicious.base import (
    Column,
    EmbeddingsByEncoder,
    ReviewList,
    _check_embeddings,
    rankdata,
)
from sentspace.app.base.errors import EvaluationError
from sentspace.app.corpora.costra import RULES
from sentspace.app.corpora.model import Corpus


@dataclass(frozen=True, eq=False)
class GoldDisagreements(ReviewList):
    """Scored pairs whose gold score and cosine disagree most, by rank.

    Ranks are percentiles in (0, 1] (``rankdata(..., "average") / n``) over the scored
    pairs, so the measure is free of the two scales. Rows: highest ``disagreement``
    first.

    Attributes
    ----------
    pair : ndarray of shape (n,)
        Index into ``corpus.pairs``.
    gold, gold_rank : ndarray of shape (n,)
    cosine, cosine_rank : ndarray of shape (n,)
        Means over encoders.
    cosine_by_encoder, cosine_rank_by_encoder : ndarray of shape (n, n_encoders)
    disagreement : ndarray of shape (n,)
        Mean over encoders of ``|gold_rank - cosine_rank|``.
    disagreement_by_encoder : ndarray of shape (n, n_encoders)
    """

    kind: ClassVar[str] = "gold"
    title: ClassVar[str] = "Scores that disagree with cosine"

    corpus: Corpus
    encoder_names: tuple[str, ...]
    pair: np.ndarray
    gold: np.ndarray
    gold_rank: np.ndarray
    cosine: np.ndarray
    cosine_by_encoder: np.ndarray
    cosine_rank: np.ndarray
    cosine_rank_by_encoder: np.ndarray
    disagreement: np.ndarray
    disagreement_by_encoder: np.ndarray

    def __len__(self) -> int:
        return len(self.pair)

    def columns(self) -> list[Column]:
        pairs, texts = self.corpus.checked_pairs, self.corpus.texts
        return [
            ("pair", pairs.names(self.corpus.ids, self.pair)),
            ("first", [texts[s] for s in pairs.first[self.pair].tolist()]),
            ("second", [texts[s] for s in pairs.second[self.pair].tolist()]),
            ("gold", self.gold),
            ("cos", self.cosine),
            *self._per_encoder("cos", self.cosine_by_encoder),
            ("gold rank", self.gold_rank),
            ("cos rank", self.cosine_rank),
            ("rank gap", self.disagreement),
            *self._per_encoder("rank gap", self.disagreement_by_encoder),
            ("split", [pairs.split[p] for p in self.pair.tolist()]),
        ]

    def sentences_of(self, row: int) -> list[int]:
        pairs = self.corpus.checked_pairs
        return [int(pairs.first[self.pair[row]]), int(pairs.second[self.pair[row]])]

    def key(self, row: int) -> str:
        return f"pair:{self.pair[row]}"

    def why(self, row: int) -> str:
        return (
            f"gold {self.gold[row]:g} ranks at {self.gold_rank[row]:.0%} of the scored "
            f"pairs, cosine {self.cosine[row]:.3f} at {self.cosine_rank[row]:.0%}"
        )


def gold_disagreements(corpus: Corpus, embeddings: EmbeddingsByEncoder) -> GoldDisagreements:
    """Rank the scored pairs by ``|rank(gold) - rank(cosine)|``.

    Raises
    ------
    EvaluationError
        No pairs with a finite gold score, or embeddings of the wrong shape.
    """
    pairs = corpus.pairs
    scored = (
        np.flatnonzero(np.isfinite(pairs.score))
        if pairs is not None
        else np.empty(0, dtype=np.int64)
    )
    if pairs is None or len(scored) == 0:
        raise EvaluationError(f"{corpus.name} has no pairs with a gold score")
    _check_embeddings(corpus, embeddings)
    gold = pairs.score[scored]
    gold_rank = rankdata(gold, method="average") / len(scored)
    cosine = np.stack(
        [
            pair_cosines(matrix, pairs.first[scored], pairs.second[scored])
            for matrix in embeddings.values()
        ],
        axis=1,
    )
    cosine_rank = rankdata(cosine, method="average", axis=0) / len(scored)
    gap = np.abs(cosine_rank - gold_rank[:, None])
    mean_gap = gap.mean(axis=1)
    order = np.argsort(-mean_gap, kind="stable")
    return GoldDisagreements(
        corpus=corpus,
        encoder_names=tuple(embeddings),
        pair=scored[order],
        gold=gold[order],
        gold_rank=gold_rank[order],
        cosine=cosine.mean(axis=1)[order],
        cosine_by_encoder=cosine[order],
        cosine_rank=cosine_rank.mean(axis=1)[order],
        cosine_rank_by_encoder=cosine_rank[order],
        disagreement=mean_gap[order],
        disagreement_by_encoder=gap[order],
    )


@dataclass(frozen=True, eq=False)
class CostraConsensusErrors(ReviewList):
    """Costra comparisons that fail for every encoder: ordering judgements the spaces
    agree against, more likely annotation errors than encoder errors. Rows: lowest
    ``best_margin`` first (even the encoder closest to agreeing is far off).

    Attributes
    ----------
    comparison : ndarray of shape (n,)
        Index into :func:`sentspace.app.corpora.costra.costra_comparisons`'s comparisons.
    margin : ndarray of shape (n,)
        Mean over encoders of ``cos(more similar pair) - cos(less similar pair)``
        (negative: the comparison fails); NaN for a degenerate embedding.
    margin_by_encoder : ndarray of shape (n, n_encoders)
    best_margin : ndarray of shape (n,)
        The largest margin of any encoder.
    """

    kind: ClassVar[str] = "costra"
    title: ClassVar[str] = "Costra orderings every encoder rejects"

    corpus: Corpus
    encoder_names: tuple[str, ...]
    comparison: np.ndarray
    margin: np.ndarray
    margin_by_encoder: np.ndarray
    best_margin: np.ndarray
    more_similar: np.ndarray
    less_similar: np.ndarray
    class_name: tuple[str, ...]
    transformation: tuple[str, ...]
    rule: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.comparison)

    def _pair_text(self, pairs: np.ndarray) -> list[str]:
        ids = self.corpus.ids
        return [f"{ids[a]} ~ {ids[b]}" for a, b in pairs.tolist()]

    def columns(self) -> list[Column]:
        return [
            ("comparison", self.comparison),
            ("class", self.class_name),
            ("type", self.transformation),
            ("best margin", self.best_margin),
            ("mean margin", self.margin),
            *self._per_encoder("margin", self.margin_by_encoder),
            ("more similar", self._pair_text(self.more_similar)),
            ("less similar", self._pair_text(self.less_similar)),
            ("sentence", [self.corpus.texts[s] for s in self.more_similar[:, 0].tolist()]),
            ("rule", self.rule),
        ]

    def sentences_of(self, row: int) -> list[int]:
        both = [*self.more_similar[row].tolist(), *self.less_similar[row].tolist()]
        return list(dict.fromkeys(both))

    def key(self, row: int) -> str:
        return f"comparison:{self.comparison[row]}"

    def why(self, row: int) -> str:
        (a, b), (c, d) = self.more_similar[row], self.less_similar[row]
        ids = self.corpus.ids
        return (
            f"annotated cos({ids[a]}, {ids[b]}) > cos({ids[c]}, {ids[d]}) "
            f"({self.class_name[row]}, {self.transformation[row]}); every encoder "
            f"says otherwise, best margin {self.best_margin[row]:+.3f}"
        )


def costra_consensus_errors(
    corpus: Corpus, embeddings: EmbeddingsByEncoder
) -> CostraConsensusErrors:
    """The Costra comparisons that fail for every encoder, most decisively first.

    Raises
    ------
    EvaluationError
        The corpus is not Costra, or embeddings of the wrong shape.
    """
    _check_embeddings(corpus, embeddings)
    results = [evaluate_costra(corpus, matrix) for matrix in embeddings.values()]
    comparisons = results[0].comparisons
    failing = np.flatnonzero(np.logical_and.reduce([~r.passed for r in results]))
    margin = np.stack(
        [(r.more_similar_cosine - r.less_similar_cosine)[failing] for r in results], axis=1
    ).astype(np.float64)
    # A degenerate embedding fails without a margin; it should not hide the others'.
    with np.errstate(all="ignore"):
        best = np.where(
            np.isnan(margin).all(axis=1),
            np.nan,
            np.nanmax(np.where(np.isnan(margin), -np.inf, margin), axis=1),
        )
    order = np.argsort(np.nan_to_num(best, nan=np.inf), kind="stable")
    rows = failing[order]
    names = results[0].class_names
    with np.errstate(all="ignore"):
        mean = np.nanmean(margin, axis=1) if len(rows) else np.empty(0)

    return CostraConsensusErrors(
        corpus=corpus,
        encoder_names=tuple(embeddings),
        comparison=rows,
        margin=mean[order],
        margin_by_encoder=margin[order],
        best_margin=best[order],
        more_similar=comparisons.more_similar[rows],
        less_similar=comparisons.less_similar[rows],
        class_name=tuple(names[c] for c in comparisons.class_index[rows].tolist()),
        transformation=tuple(
            comparisons.transformation_names[t] for t in comparisons.transformation[rows].tolist()
        ),
        rule=tuple(RULES[r] for r in comparisons.rule[rows].tolist()),
    )
