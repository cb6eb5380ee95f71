"""Paraphrase ranking (EVALUATIONS.md section 3).

Pool = every sentence of the corpus (for MSRP, the distinct sentences of train+test). For
each sentence S1 of a positive pair, in both directions, all other pool sentences are
ranked by cosine to S1; the outcome is the rank of S1's partner. Metrics: accuracy@k
(share of queries whose partner has rank <= k), mean rank of the correct paraphrase
(MRC) and mean reciprocal rank (MRR).

A corpus without labelled paraphrase pairs but with paraphrase groups (White et al.'s
MSRP groups, Multi30K's five descriptions of an image) gives a query for every ordered
pair of two members of a group (a group of k gives k(k-1)); the pool is the same. The
query's other group members stay in the pool, so a query sentence with m partners can
rank at most one of them first: a perfect ranking scores accuracy@1 1/m and MRR
H(m)/m for it, and the result states what a perfect ranking would score.

Ties are explicit: by default *pessimistic* (every other sentence exactly as similar as
the partner ranks before it), so an encoder earns a rank only by separating the partner;
"mid" (fractional ranking) and "optimistic" are parameters. A query whose vector is zero
is as similar to everything, so it gets the worst rank under pessimistic ties.

Above :data:`sentspace.app.analysis.ann.EXACT_LIMIT` sentences (``search="auto"``, or always with
``search="ann"``) the ranks come from each query's ``max(ks)`` + 1 nearest neighbours in
an approximate index (:func:`sentspace.app.analysis.ann.iter_knn`) instead of a scan of the whole pool: a
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

from sentspace.app.analysis.ann import Search, choose, iter_knn
from sentspace.app.analysis.cache import encode_corpus, encode_rows
from sentspace.app.analysis.evaluations import passing, statistics
from sentspace.app.analysis.evaluations.statistics import format_ci
from sentspace.app.analysis.neighbours import (
    DEFAULT_MEMORY_MB,
    TIE_TOLERANCE,
    TIES,
    Normalised,
    iter_target_ranks,
    normalise,
    row_dots,
)
from sentspace.app.analysis.results import Result, Score, item_rows, provenance
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder

NAME = "ranking"
DEFAULT_KS = (1, 10, 100)


@dataclass(frozen=True, eq=False)
class RankingResult(Result):
    """Per-query ranks of the paraphrase partner, and the metrics over them.

    Attributes
    ----------
    pair_index : ndarray of shape (n_queries,)
        The positive pair (index into ``corpus.pairs``) each query comes from; -1 for a
        query from a paraphrase group, which has no row there.
    query, target : ndarray of shape (n_queries,)
        Sentence indices of S1 and of its partner.
    pair_id, query_id, target_id : str ndarray of shape (n_queries,)
        The pair as its dataset names it (:meth:`PairTable.names`), or for a query from a
        paraphrase group the group's name; and the ids of S1 and of its partner.
    rank : float ndarray of shape (n_queries,)
        Rank of the partner among the other ``pool_size - 1`` sentences (1 = best).
    similarity : ndarray of shape (n_queries,)
        Cosine of S1 and its partner.
    degenerate_query : bool ndarray of shape (n_queries,)
        Queries whose S1 had a zero (or non-finite) vector.
    ci : {metric name: (low, high)} bootstrap intervals, resampling whole pairs (both
        directions) or whole paraphrase groups; empty when off.
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

    @property
    def from_groups(self) -> bool:
        """Whether the queries are ordered pairs within paraphrase groups (no pair rows)."""
        return bool(len(self.pair_index)) and bool(self.pair_index[0] < 0)

    def perfect_metrics(self) -> dict[str, float]:
        """What a ranking with every partner above every other sentence scores: a query
        sentence with m partners ranks them 1..m (accuracy@k min(k, m)/m, MRR H(m)/m)."""
        m = np.unique(self.query, return_counts=True)[1]
        harmonic = np.cumsum(1.0 / np.arange(1, m.max() + 1))
        values = {f"accuracy@{k}": float(np.minimum(k, m).sum() / m.sum()) for k in self.ks}
        if not self.approximate:
            values["MRC"] = float((m * (m + 1) / 2).sum() / m.sum())
        values["MRR"] = float(harmonic[m - 1].sum() / m.sum())
        return values

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
        rows = [
            ("queries", str(len(self.rank))),
            ("pool", str(self.pool_size)),
            ("ties", self.ties),
        ]
        if self.from_groups:
            rows.append(("queries from", "ordered pairs within paraphrase groups"))
        for name, value in self.metrics().items():
            decimals = 2 if name == "MRC" else 4  # a mean rank, not a share
            rows.append(
                (name, f"{value:.{decimals}f} {format_ci(self.ci.get(name), decimals)}".rstrip())
            )
        if self.from_groups:
            # Partners compete with each other for rank 1: the numbers read against this.
            perfect = self.perfect_metrics()
            first = f"accuracy@{min(self.ks)}"
            rows.append(
                (
                    "a perfect ranking scores",
                    f"{first} {perfect[first]:.4f}, MRR {perfect['MRR']:.4f}",
                )
            )
        rows.append(("queries with a zero vector", str(int(self.degenerate_query.sum()))))
        rows.append(("pool sentences with a zero vector", str(self.n_degenerate_sentences)))
        if self.search is not None and self.search.approximate:
            beyond = int(np.isinf(self.rank).sum())
            rows.append(
                (
                    f"partners beyond rank {max(self.ks)}",
                    f"{beyond} (0 in MRR; MRC needs exact search)",
                )
            )
            rows += self.search.summary()
        return rows

    def scores(self) -> list[Score]:
        return [
            Score(name, value, self.ci.get(name), len(self.rank))
            for name, value in self.metrics().items()
        ]

    def body(self) -> dict[str, Any]:
        if self.from_groups:
            # "group": the dataset's name of the paraphrase group the two come from.
            named = {"queries_from": "paraphrase groups", "perfect": self.perfect_metrics()}
            source = "group=pair_id"
        else:
            # "pair", "query", "target": the dataset's names; "row" indexes corpus.pairs.
            named = {}
            source = "pair=pair_id, row=pair_index"
        queries = item_rows(
            self,
            f"{source}, query=query_id, target=target_id, rank, similarity",
            # A rank beyond an approximate search's reach is unknown (inf): null in JSON.
            rank=[r if math.isfinite(r) else None for r in self.rank.tolist()],
        )
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
            **named,
            # A rank of None: beyond max(ks), in an approximate search.
            "queries": queries,
        }


PARAPHRASE_GROUP = "paraphrase group"


def has_paraphrase_groups(corpus: Corpus) -> bool:
    """Whether the corpus has paraphrase groups with two members or more to rank."""
    groups = corpus.groups
    return (
        groups is not None and groups.kind == PARAPHRASE_GROUP and bool(np.any(groups.sizes >= 2))
    )


def ranking_queries(
    corpus: Corpus, splits: tuple[str, ...] | None = None, where: str = ""
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(pair index, query sentence, target sentence, pairs skipped as self-pairs).

    Each positive pair (a, b) gives the queries a -> b and b -> a. A corpus without
    labelled paraphrase pairs gives :func:`group_queries` instead, pair index -1.
    With ``where`` (a filter expression), only the queries whose two sentences pass it.
    Raises EvaluationError, before any work, when the corpus has neither or a split is
    unknown; InputError for a bad ``where``.
    """
    pair_index, _, query, target, n_self = _named_queries(corpus, splits, where)
    return pair_index, query, target, n_self


def _named_queries(
    corpus: Corpus, splits: tuple[str, ...] | None, where: str = ""
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """:func:`ranking_queries` with, second, how the dataset names each query's pair (or
    group)."""
    mask = passing.passing(corpus, where)
    pair_index, pair_id, query, target, self_paired = _all_queries(corpus, splits)
    if mask is None:
        return pair_index, pair_id, query, target, len(self_paired)
    kept = mask[query] & mask[target]
    pair_mask = passing.pair_passing(corpus, where) if corpus.pairs is not None else None
    if pair_mask is not None:  # a query of a pair: the pair's own label and split too
        kept &= np.append(pair_mask, True)[pair_index]
    if not kept.any():
        raise EvaluationError(
            f"{NAME} where {where.strip()}: no query and its partner both pass the filter"
        )
    # Only the self-pairs of a passing sentence would have been queries here.
    n_self = int(mask[self_paired].sum())
    return pair_index[kept], pair_id[kept], query[kept], target[kept], n_self


def _all_queries(
    corpus: Corpus, splits: tuple[str, ...] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_named_queries` of every sentence, last the sentence of each pair skipped
    as a self-pair."""
    pairs = corpus.pairs
    if pairs is None or not pairs.has_paraphrase_labels:
        if not has_paraphrase_groups(corpus):
            raise EvaluationError(
                f"{NAME} needs positive (paraphrase) pairs or paraphrase "
                f"groups, and corpus {corpus.name!r} has neither"
            )
        group, query, target, self_paired = group_queries(corpus, splits)
        assert corpus.groups is not None, "has_paraphrase_groups checked"
        return (
            np.full(len(query), -1, dtype=np.int64),
            np.asarray(corpus.groups.names, dtype=str)[group],
            query,
            target,
            self_paired,
        )
    positive = (pairs.label == 1) & passing.in_splits(corpus, splits)
    # A pair of one sentence with itself has no partner to rank.
    self_pair = positive & (pairs.first == pairs.second)
    keep = np.flatnonzero(positive & ~self_pair)
    if len(corpus) < 2 or len(keep) == 0:
        raise EvaluationError(f"{NAME} needs positive pairs of two distinct sentences")
    pair_index = np.concatenate([keep, keep])
    query = np.concatenate([pairs.first[keep], pairs.second[keep]])
    target = np.concatenate([pairs.second[keep], pairs.first[keep]])
    return (
        pair_index,
        pairs.names(corpus.ids, pair_index),
        query,
        target,
        pairs.first[self_pair],
    )


def group_queries(
    corpus: Corpus, splits: tuple[str, ...] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(group, query sentence, target sentence, the sentence of each pair skipped as a
    self-pair) for every
    ordered pair of two members of a paraphrase group, group by group in membership
    order: a group of k members gives k(k-1) queries, a group of one none.

    Raises EvaluationError when ``splits`` are given: they select labelled pairs, and
    groups have none (a corpus of one split, such as ``multi30k-captions:en:val``, is
    loaded as such).
    """
    if splits is not None:
        raise EvaluationError(
            f"{NAME} on corpus {corpus.name!r} ranks within its paraphrase groups, which "
            "have no pair splits: load the split wanted as a corpus of its own"
        )
    groups = corpus.groups
    assert groups is not None, "called for corpora with paraphrase groups"
    order = np.argsort(groups.group_index, kind="stable")
    member, group = groups.sentence_index[order], groups.group_index[order]
    sizes = groups.sizes[group]
    # Each membership meets every membership of its group (itself too, dropped below):
    # the j-th copy of membership i is paired with its group's j-th membership.
    first = np.repeat(np.arange(len(member)), sizes)
    copy = np.arange(len(first)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    group_start = np.cumsum(groups.sizes) - groups.sizes
    second = group_start[group[first]] + copy
    distinct = first != second
    first, second = first[distinct], second[distinct]
    query, target = member[first], member[second]
    # A sentence listed twice in one group has no partner in itself; both orders drop.
    self_pair = query == target
    keep = ~self_pair
    if len(corpus) < 2 or not keep.any():
        raise EvaluationError(f"{NAME} needs a paraphrase group of two distinct sentences")
    # Each such pair once, not in both orders.
    return group[first[keep]], query[keep], target[keep], query[self_pair & (first < second)]


def iter_evaluate_ranking(
    corpus: Corpus,
    embeddings: Embeddings,
    *,
    encoder: Encoder | None = None,
    splits: tuple[str, ...] | None = None,
    ks: tuple[int, ...] = DEFAULT_KS,
    ties: str = "pessimistic",
    tie_tolerance: float = TIE_TOLERANCE,
    memory_mb: float = DEFAULT_MEMORY_MB,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    search: str = "auto",
    where: str = "",
) -> Job[RankingResult]:
    """Paraphrase ranking of precomputed embeddings (shape (len(corpus), dim)).

    Parameters
    ----------
    encoder : the encoder the embeddings came from, for provenance only.
    splits : pair splits whose positive pairs give queries; None for all. The pool is
        always every sentence of the corpus. Queries from paraphrase groups take none
        (:func:`group_queries`).
    ks : the k of accuracy@k.
    ties : "pessimistic", "mid" or "optimistic" (see the module docstring).
    tie_tolerance : cosines this close to the partner's count as ties (float32 rounding).
    memory_mb : budget for one block of query-by-pool similarities.
    n_resamples, confidence : bootstrap intervals over whole pairs or groups of queries;
        0 turns them off.
    seed : seeds the bootstrap and the queries an approximate search's recall is
        measured on.
    search : "auto", "exact" or "ann" (:func:`sentspace.app.analysis.ann.iter_knn`; see the module
        docstring for what an approximate ranking measures).
    where : a filter expression: the pool is the sentences that pass it, and the
        queries those whose two sentences do (only those rows of ``embeddings`` are read).
    """
    if ties not in TIES:
        raise EvaluationError(f"ties must be one of {', '.join(TIES)}, not {ties!r}")
    pair_index, pair_id, query, target, n_self = _named_queries(corpus, splits, where)
    kept = passing.described(
        corpus, where, len(query), lambda: len(_all_queries(corpus, splits)[2]), "queries"
    )
    unit = normalise(embeddings)
    # ``at``: the query and its partner as rows of the pool.
    query_at, target_at = query, target
    mask = passing.passing(corpus, where)
    if mask is not None:
        pool = np.flatnonzero(mask)
        unit = Normalised(unit.matrix[pool], unit.degenerate[pool])
        query_at, target_at = np.searchsorted(pool, query), np.searchsorted(pool, target)
    # The query's own row is not a candidate: ranks are among the other pool sentences.
    if choose(unit, search) == "exact":
        queries = Normalised(unit.matrix[query_at], unit.degenerate[query_at])
        rank, similarity = yield from iter_target_ranks(
            queries,
            unit,
            target_at,
            exclude=query_at,
            ties=ties,
            tie_tolerance=tie_tolerance,
            memory_mb=memory_mb,
        )
        how = Search("exact", max(ks))
    else:
        rank, similarity, how = yield from _approximate_ranks(
            unit, query_at, target_at, max(ks), ties, tie_tolerance, search, seed
        )
    metrics: dict[str, statistics.MetricInputs] = {
        f"accuracy@{k}": (statistics.mean, (rank <= k).astype(np.float64), None) for k in ks
    }
    if not how.approximate:
        metrics["MRC"] = (statistics.mean, rank, None)
    metrics["MRR"] = (statistics.mean, 1.0 / rank, None)
    ids = np.asarray(corpus.ids, dtype=str)
    return RankingResult(
        provenance=provenance(
            corpus,
            encoder,
            embeddings,
            splits=splits,
            ks=list(ks),
            ties=ties,
            tie_tolerance=tie_tolerance,
            memory_mb=memory_mb,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            pool="every corpus sentence"
            + (" that passes the filter" if mask is not None else "")
            + " except the query",
            **passing.parameters(where, kept),
        ),
        pool_size=unit.shape[0],
        ks=tuple(ks),
        ties=ties,
        pair_index=pair_index,
        query=query,
        target=target,
        pair_id=pair_id,
        query_id=ids[query],
        target_id=ids[target],
        rank=rank,
        similarity=similarity.astype(np.float64),
        degenerate_query=unit.degenerate[query_at],
        n_degenerate_sentences=unit.n_degenerate,
        n_self_pairs=n_self,
        ci=statistics.cis(
            metrics,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            clusters=_clusters(pair_index, pair_id),
        ),
        search=how,
    )


def _clusters(pair_index: np.ndarray, pair_id: np.ndarray) -> np.ndarray:
    """The bootstrap's clusters: queries that are not independent are resampled
    together, a pair's two directions, or a paraphrase group's queries (20 from five
    descriptions of one image)."""
    if len(pair_index) and pair_index[0] < 0:
        return np.unique(pair_id, return_inverse=True)[1]
    return np.unique(pair_index, return_inverse=True)[1]


#: Queries counted at once against their neighbours (bounds the gathered rows).
_COUNT_BLOCK = 65_536


def _approximate_ranks(
    unit: Normalised,
    query: np.ndarray,
    target: np.ndarray,
    depth: int,
    ties: str,
    tie_tolerance: float,
    search: str,
    seed: int,
) -> Job[tuple[np.ndarray, np.ndarray, Search]]:
    """Partner ranks counted among each query's ``depth`` + 1 approximate neighbours,
    inf where those do not reach below the partner's similarity and its ties."""
    # A sentence is searched once however many partners it has (four in a group of five).
    sentences, row_of = np.unique(query, return_inverse=True)
    indices, found, how = yield from iter_knn(
        Normalised(unit.matrix[sentences], unit.degenerate[sentences]),
        unit,
        depth + 1,
        exclude=sentences,
        search=search,
        seed=seed,
    )
    share = {"pessimistic": 1.0, "mid": 0.5, "optimistic": 0.0}[ties]
    rank = np.empty(len(query))
    similarity = np.empty(len(query), dtype=np.float32)
    for start in range(0, len(query), _COUNT_BLOCK):
        block = slice(start, start + _COUNT_BLOCK)
        rows, partner = row_of[block], target[block]
        near = found[rows]
        t = row_dots(unit.matrix[query[block]], unit.matrix[partner])
        greater = np.count_nonzero(near > (t + tie_tolerance)[:, None], axis=1)
        # The partner, where the index found it, is within tolerance of itself: not a tie.
        at_least = np.count_nonzero(near >= (t - tie_tolerance)[:, None], axis=1)
        equal = at_least - greater - (indices[rows] == partner[:, None]).any(axis=1)
        counted = 1.0 + greater + share * equal
        # Counted only when the last neighbour found is below the partner's tie band.
        rank[block] = np.where(near[:, -1] >= t - tie_tolerance, np.inf, counted)
        similarity[block] = t
    return rank, similarity, how


def run_ranking(
    corpus: Corpus,
    encoder: Encoder,
    *,
    seed: int = 0,
    splits: tuple[str, ...] | None = None,
    ks: tuple[int, ...] = DEFAULT_KS,
    ties: str = "pessimistic",
    tie_tolerance: float = TIE_TOLERANCE,
    memory_mb: float = DEFAULT_MEMORY_MB,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    search: str = "auto",
    where: str = "",
) -> Job[RankingResult]:
    """Encode the corpus (with ``where``, the sentences that pass it) and run
    :func:`iter_evaluate_ranking` (same parameters)."""
    if ties not in TIES:
        raise EvaluationError(f"ties must be one of {', '.join(TIES)}, not {ties!r}")
    ranking_queries(corpus, splits, where)
    mask = passing.passing(corpus, where)
    embeddings = yield from (
        encode_corpus(corpus, encoder)
        if mask is None
        else encode_rows(corpus, encoder, np.flatnonzero(mask))
    )
    return (
        yield from iter_evaluate_ranking(
            corpus,
            embeddings,
            encoder=encoder,
            splits=splits,
            ks=ks,
            ties=ties,
            tie_tolerance=tie_tolerance,
            memory_mb=memory_mb,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            search=search,
            where=where,
        )
    )
