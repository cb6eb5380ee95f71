"""Paraphrase ranking (EVALUATIONS.md section 3).

Pool = every sentence of the corpus (for MSRP, the distinct sentences of train+test). For
each sentence S1 of a positive pair, in both directions, all other pool sentences are
ranked by cosine to S1; the outcome is the rank of S1's partner. Metrics: accuracy@k
(share of queries whose partner has rank <= k), mean rank of the correct paraphrase
(MRC) and mean reciprocal rank (MRR).

Ties are explicit: by default *pessimistic* (every other sentence exactly as similar as
the partner ranks before it), so an encoder earns a rank only by separating the partner;
"mid" (fractional ranking) and "optimistic" are parameters. A query whose vector is zero
is as similar to everything, so it gets the worst rank under pessimistic ties.

Above :data:`sentspace.app.ann.EXACT_LIMIT` sentences (``search="auto"``, or always with
``search="ann"``) the ranks come from each query's ``max(ks)`` + 1 nearest neighbours in
an approximate index (:func:`sentspace.app.ann.iter_knn`) instead of a scan of the whole pool: a
partner's rank is counted among those neighbours, the same way, when they reach past
its similarity (and its ties); otherwise it is beyond ``max(ks)`` (rank inf). So
accuracy@k is measured for every k asked, MRR counts ranks beyond ``max(ks)`` as 0 (it
is at most 1/``max(ks)`` lower than the exact MRR, per such query), and MRC, which
needs every rank, is left out. The result says so, with the index's measured recall.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.ann import Search, choose, iter_knn
from sentspace.app.cache import encode_corpus
from sentspace.app.corpora.model import Corpus
from sentspace.app.errors import EvaluationError
from sentspace.app.evaluations import statistics
from sentspace.app.evaluations.statistics import format_ci
from sentspace.app.jobs import Job
from sentspace.app.neighbours import (DEFAULT_MEMORY_MB, TIE_TOLERANCE, TIES, Normalised,
                            iter_target_ranks, normalise)
from sentspace.app.results import Result, Score, provenance
from sentspace.models.base import Embeddings, Encoder

NAME = "ranking"
DEFAULT_KS = (1, 10, 100)


@dataclass(frozen=True, eq=False)
class RankingResult(Result):
    """Per-query ranks of the paraphrase partner, and the metrics over them.

    Attributes
    ----------
    pair_index : ndarray of shape (n_queries,)
        The positive pair (index into ``corpus.pairs``) each query comes from.
    query, target : ndarray of shape (n_queries,)
        Sentence indices of S1 and of its partner.
    pair_id, query_id, target_id : str ndarray of shape (n_queries,)
        The pair as its dataset names it (:meth:`PairTable.names`), and the ids of S1 and
        of its partner.
    rank : float ndarray of shape (n_queries,)
        Rank of the partner among the other ``pool_size - 1`` sentences (1 = best).
    similarity : ndarray of shape (n_queries,)
        Cosine of S1 and its partner.
    degenerate_query : bool ndarray of shape (n_queries,)
        Queries whose S1 had a zero (or non-finite) vector.
    ci : {metric name: (low, high)} bootstrap intervals over queries; empty when off.
    search : how the ranks were found; when approximate, ranks beyond ``max(ks)`` are
        inf (see the module docstring).
    """

    evaluation = NAME
    pool_size: int
    ks: tuple[int, ...]
    ties: str
    pair_index: np.ndarray
    query: np.ndarray
    target: np.ndarray
    pair_id: np.ndarray
    query_id: np.ndarray
    target_id: np.ndarray
    rank: np.ndarray
    similarity: np.ndarray
    degenerate_query: np.ndarray
    n_degenerate_sentences: int
    n_self_pairs: int
    ci: dict[str, tuple[float, float]]
    search: Search | None = None

    @property
    def approximate(self) -> bool:
        return self.search is not None and self.search.approximate

    def accuracy_at(self, k: int) -> float:
        return float(np.mean(self.rank <= k))

    @property
    def mean_rank(self) -> float:
        return float(np.mean(self.rank))

    @property
    def mrr(self) -> float:
        return float(np.mean(1.0 / self.rank))

    def metrics(self) -> dict[str, float]:
        values = {f"accuracy@{k}": self.accuracy_at(k) for k in self.ks}
        if not self.approximate:
            values["MRC"] = self.mean_rank
        values["MRR"] = self.mrr
        return values

    def summary(self) -> list[tuple[str, str]]:
        rows = [("queries", str(len(self.rank))), ("pool", str(self.pool_size)),
                ("ties", self.ties)]
        for name, value in self.metrics().items():
            shown = f"{value:.2f}" if name == "MRC" else f"{value:.4f}"
            rows.append((name, f"{shown} {format_ci(self.ci.get(name))}".rstrip()))
        rows.append(("queries with a zero vector", str(int(self.degenerate_query.sum()))))
        rows.append(("pool sentences with a zero vector", str(self.n_degenerate_sentences)))
        if self.approximate:
            beyond = int(np.isinf(self.rank).sum())
            rows.append((f"partners beyond rank {max(self.ks)}",
                         f"{beyond} (0 in MRR; MRC needs exact search)"))
            rows += self.search.summary()
        return rows

    def scores(self) -> list[Score]:
        return [Score(name, value, self.ci.get(name), len(self.rank))
                for name, value in self.metrics().items()]

    def body(self) -> dict[str, Any]:
        return {
            "pool_size": self.pool_size,
            "n_queries": int(len(self.rank)),
            "ties": self.ties,
            "metrics": self.metrics(),
            "ci": {name: list(bounds) for name, bounds in self.ci.items()},
            "n_degenerate_queries": int(self.degenerate_query.sum()),
            "n_degenerate_sentences": self.n_degenerate_sentences,
            "n_self_pairs_skipped": self.n_self_pairs,
            "search": None if self.search is None else self.search.to_dict(),
            # "pair", "query", "target": the dataset's names; "row" indexes corpus.pairs.
            # A rank of None: beyond max(ks), in an approximate search.
            "queries": [{"pair": p, "row": row, "query": q, "target": t,
                         "rank": r if math.isfinite(r) else None, "similarity": s}
                        for p, row, q, t, r, s in zip(
                            self.pair_id.tolist(), self.pair_index.tolist(),
                            self.query_id.tolist(), self.target_id.tolist(),
                            self.rank.tolist(), self.similarity.tolist())],
        }


def ranking_queries(corpus: Corpus, splits: tuple[str, ...] | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(pair index, query sentence, target sentence, pairs skipped as self-pairs).

    Each positive pair (a, b) gives the queries a -> b and b -> a. Raises EvaluationError,
    before any work, when the corpus has no positive pairs or a split is unknown.
    """
    pairs = corpus.pairs
    if pairs is None or not pairs.has_paraphrase_labels:
        raise EvaluationError(f"{NAME} needs positive (paraphrase) pairs, and corpus "
                              f"{corpus.name!r} has none")
    positive = pairs.label == 1
    if splits is not None:
        unknown = set(splits) - set(pairs.split)
        if unknown:
            raise EvaluationError(f"corpus {corpus.name!r} has no split "
                                  f"{', '.join(sorted(unknown))}")
        positive &= np.isin(np.asarray(pairs.split, dtype=object), list(splits))
    # A pair of one sentence with itself has no partner to rank.
    self_pair = positive & (pairs.first == pairs.second)
    keep = np.flatnonzero(positive & ~self_pair)
    if len(corpus) < 2 or len(keep) == 0:
        raise EvaluationError(f"{NAME} needs positive pairs of two distinct sentences")
    pair_index = np.concatenate([keep, keep])
    query = np.concatenate([pairs.first[keep], pairs.second[keep]])
    target = np.concatenate([pairs.second[keep], pairs.first[keep]])
    return pair_index, query, target, int(self_pair.sum())


def iter_evaluate_ranking(corpus: Corpus, embeddings: Embeddings, *,
                          encoder: Encoder | None = None,
                          splits: tuple[str, ...] | None = None,
                          ks: tuple[int, ...] = DEFAULT_KS, ties: str = "pessimistic",
                          tie_tolerance: float = TIE_TOLERANCE,
                          memory_mb: float = DEFAULT_MEMORY_MB,
                          n_resamples: int = statistics.DEFAULT_RESAMPLES,
                          confidence: float = 0.95, seed: int = 0,
                          search: str = "auto") -> Job[RankingResult]:
    """Paraphrase ranking of precomputed embeddings (shape (len(corpus), dim)).

    Parameters
    ----------
    encoder : the encoder the embeddings came from, for provenance only.
    splits : pair splits whose positive pairs give queries; None for all. The pool is
        always every sentence of the corpus.
    ks : the k of accuracy@k.
    ties : "pessimistic", "mid" or "optimistic" (see the module docstring).
    tie_tolerance : cosines this close to the partner's count as ties (float32 rounding).
    memory_mb : budget for one block of query-by-pool similarities.
    n_resamples, confidence : bootstrap intervals over queries; 0 turns them off.
    seed : seeds the bootstrap and the queries an approximate search's recall is
        measured on.
    search : "auto", "exact" or "ann" (:func:`sentspace.app.ann.iter_knn`; see the module
        docstring for what an approximate ranking measures).
    """
    if ties not in TIES:
        raise EvaluationError(f"ties must be one of {', '.join(TIES)}, not {ties!r}")
    pair_index, query, target, n_self = ranking_queries(corpus, splits)
    unit = normalise(embeddings)
    queries = Normalised(unit.matrix[query], unit.degenerate[query])
    # The query's own row is not a candidate: ranks are among the other pool sentences.
    if choose(unit, search) == "exact":
        rank, similarity = yield from iter_target_ranks(
            queries, unit, target, exclude=query, ties=ties, tie_tolerance=tie_tolerance,
            memory_mb=memory_mb)
        how = Search("exact", max(ks))
    else:
        rank, similarity, how = yield from _approximate_ranks(
            queries, unit, query, target, max(ks), ties, tie_tolerance, search, seed)
    metrics = {f"accuracy@{k}": (statistics.mean, (rank <= k).astype(np.float64), None)
               for k in ks}
    if not how.approximate:
        metrics["MRC"] = (statistics.mean, rank, None)
    metrics["MRR"] = (statistics.mean, 1.0 / rank, None)
    ids = np.asarray(corpus.ids, dtype=str)
    return RankingResult(
        provenance=provenance(corpus, encoder, embeddings, splits=splits, ks=list(ks),
                              ties=ties, tie_tolerance=tie_tolerance, memory_mb=memory_mb,
                              n_resamples=n_resamples,
                              confidence=confidence, seed=seed,
                              pool="every corpus sentence except the query"),
        pool_size=len(corpus), ks=tuple(ks), ties=ties, pair_index=pair_index, query=query,
        target=target, pair_id=corpus.pairs.names(corpus.ids, pair_index),
        query_id=ids[query], target_id=ids[target], rank=rank, similarity=similarity.astype(np.float64),
        degenerate_query=unit.degenerate[query],
        n_degenerate_sentences=unit.n_degenerate, n_self_pairs=n_self,
        ci=statistics.cis(metrics, n_resamples=n_resamples, confidence=confidence, seed=seed),
        search=how)


def _approximate_ranks(queries: Normalised, unit: Normalised, query: np.ndarray,
                       target: np.ndarray, depth: int, ties: str, tie_tolerance: float,
                       search: str, seed: int) -> Job[tuple[np.ndarray, np.ndarray, Search]]:
    """Partner ranks counted among each query's ``depth`` + 1 approximate neighbours,
    inf where those do not reach below the partner's similarity and its ties."""
    indices, found, how = yield from iter_knn(queries, unit, depth + 1, exclude=query,
                                              search=search, seed=seed)
    similarity = np.einsum("ij,ij->i", queries.matrix, unit.matrix[target])
    greater = np.count_nonzero(found > (similarity + tie_tolerance)[:, None], axis=1)
    # The partner, where the index found it, is within tolerance of itself: not a tie.
    at_least = np.count_nonzero(found >= (similarity - tie_tolerance)[:, None], axis=1)
    equal = at_least - greater - (indices == target[:, None]).any(axis=1)
    share = {"pessimistic": 1.0, "mid": 0.5, "optimistic": 0.0}[ties]
    rank = 1.0 + greater + share * equal
    # Counted only when the last neighbour found is below the partner's tie band.
    rank[found[:, -1] >= similarity - tie_tolerance] = np.inf
    return rank, similarity, how


def run_ranking(corpus: Corpus, encoder: Encoder, *, seed: int = 0,
                splits: tuple[str, ...] | None = None, ks: tuple[int, ...] = DEFAULT_KS,
                ties: str = "pessimistic", tie_tolerance: float = TIE_TOLERANCE,
                memory_mb: float = DEFAULT_MEMORY_MB, n_resamples: int = statistics.DEFAULT_RESAMPLES,
                confidence: float = 0.95, search: str = "auto") -> Job[RankingResult]:
    """Encode the corpus and run :func:`iter_evaluate_ranking` (same parameters)."""
    if ties not in TIES:
        raise EvaluationError(f"ties must be one of {', '.join(TIES)}, not {ties!r}")
    ranking_queries(corpus, splits)
    embeddings = yield from encode_corpus(corpus, encoder)
    return (yield from iter_evaluate_ranking(
        corpus, embeddings, encoder=encoder, splits=splits, ks=ks, ties=ties,
        tie_tolerance=tie_tolerance, memory_mb=memory_mb, n_resamples=n_resamples,
        confidence=confidence, seed=seed, search=search))
