"""Sentences nearer another group than their own (paraphrase groups, SCUs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypeVar

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.ann import Search, iter_knn
from sentspace.app.analysis.neighbours import Normalised
from sentspace.app.analysis.suspicious.base import (
    DEFAULT_K,
    Column,
    EmbeddingsByEncoder,
    ReviewList,
    _check_embeddings,
    _group_label,
    _GroupGeometry,
    _member_of,
    _membership_matrix,
    _require_groups,
)
from sentspace.app.base.jobs import Job, run_job
from sentspace.app.corpora.model import Corpus

_Misgrouped = TypeVar("_Misgrouped", bound="MisgroupedSentences")


@dataclass(frozen=True, eq=False)
class MisgroupedSentences(ReviewList):
    """Group members whose nearest neighbours are mostly outside their group.

    A membership (sentence, group) is scored on its ``k`` nearest grouped sentences,
    ``k = min(k_max, group size - 1)`` so that a member of a small group is not flagged
    merely because its group cannot fill ``k_max`` places. Rows: memberships of groups
    with two or more members, highest ``share_outside`` first (ties: the larger gap
    ``likely_cosine - own_cosine`` first).

    Attributes
    ----------
    sentence, group : ndarray of shape (n,)
        The membership.
    k : ndarray of shape (n,)
        Neighbours looked at.
    share_outside : ndarray of shape (n,)
        Mean over encoders of the share of those neighbours not in ``group``.
    share_outside_by_encoder : ndarray of shape (n, n_encoders)
    likely_group : ndarray of shape (n,)
        The other group the most neighbours belong to, counted over all encoders; -1 when
        every neighbour is in ``group`` or in no group.
    likely_share : ndarray of shape (n,)
        Mean share of the neighbours in ``likely_group``.
    own_cosine, likely_cosine : ndarray of shape (n,)
        Mean cosine to the other members of ``group`` / to the members of
        ``likely_group`` (NaN when there is none), averaged over encoders.
    own_cosine_by_encoder, likely_cosine_by_encoder : ndarray of shape (n, n_encoders)
    """

    kind: ClassVar[str] = "misgrouped"
    title: ClassVar[str] = "Sentences nearer another group"

    corpus: Corpus
    encoder_names: tuple[str, ...]
    sentence: np.ndarray
    group: np.ndarray
    k: np.ndarray
    share_outside: np.ndarray
    share_outside_by_encoder: np.ndarray
    likely_group: np.ndarray
    likely_share: np.ndarray
    own_cosine: np.ndarray
    own_cosine_by_encoder: np.ndarray
    likely_cosine: np.ndarray
    likely_cosine_by_encoder: np.ndarray
    #: How each encoder's neighbours were found (approximate ones carry their recall).
    searches: tuple[Search, ...] = ()

    def __len__(self) -> int:
        return len(self.sentence)

    def flagged(self, threshold: float = 0.5) -> np.ndarray:
        """Rows whose ``share_outside`` exceeds ``threshold`` (most neighbours outside)."""
        return np.flatnonzero(self.share_outside > threshold)

    def columns(self) -> list[Column]:
        groups = self.corpus.checked_groups
        return [
            ("sentence", [self.corpus.texts[s] for s in self.sentence.tolist()]),
            ("id", [self.corpus.ids[s] for s in self.sentence.tolist()]),
            (groups.kind, _group_label(groups, self.group)),
            ("share outside", self.share_outside),
            *self._per_encoder("share outside", self.share_outside_by_encoder),
            ("neighbours", self.k),
            ("likely group", _group_label(groups, self.likely_group)),
            ("share in likely", self.likely_share),
            ("cos own group", self.own_cosine),
            ("cos likely group", self.likely_cosine),
        ]

    def sentences_of(self, row: int) -> list[int]:
        return [int(self.sentence[row])]

    def key(self, row: int) -> str:
        return f"sentence:{self.corpus.ids[self.sentence[row]]}"

    def why(self, row: int) -> str:
        groups = self.corpus.checked_groups
        text = (
            f"{self.share_outside[row]:.0%} of its {self.k[row]} nearest neighbours lie "
            f"outside {groups.kind} {groups.names[self.group[row]]} (mean cosine to its "
            f"members {self.own_cosine[row]:.3f})"
        )
        if self.likely_group[row] >= 0:
            text += (
                f"; {self.likely_share[row]:.0%} are in {groups.kind} "
                f"{groups.names[self.likely_group[row]]} (mean cosine "
                f"{self.likely_cosine[row]:.3f})"
            )
        return text


@dataclass(frozen=True, eq=False)
class ScuOutliers(MisgroupedSentences):
    """SCU contributors whose nearest contributors are mostly in other SCUs (the
    :class:`MisgroupedSentences` measure on a pyramid corpus)."""

    kind: ClassVar[str] = "scu"
    title: ClassVar[str] = "SCU contributors far from their SCU"


def misgrouped(
    corpus: Corpus, embeddings: EmbeddingsByEncoder, *, k: int = DEFAULT_K, search: str = "auto"
) -> MisgroupedSentences:
    """Rank the group members whose ``k`` nearest grouped sentences are mostly elsewhere.

    Parameters
    ----------
    corpus : Corpus with groups (a sentence may belong to several).
    embeddings : encoder name -> matrix of shape (len(corpus), dim).
    k : most neighbours looked at per sentence (capped at its group size - 1).
    search : how neighbours are found (:func:`sentspace.app.analysis.ann.iter_knn`).

    Raises
    ------
    EvaluationError
        No groups, or embeddings of the wrong shape.
    """
    return run_job(iter_misgrouped(corpus, embeddings, k=k, search=search))


def iter_misgrouped(
    corpus: Corpus, embeddings: EmbeddingsByEncoder, *, k: int = DEFAULT_K, search: str = "auto"
) -> Job[MisgroupedSentences]:
    """:func:`misgrouped` as a job (progress and cancel while neighbours are found)."""
    return _iter_misgrouped(MisgroupedSentences, corpus, embeddings, k, search)


def scu_outliers(
    corpus: Corpus, embeddings: EmbeddingsByEncoder, *, k: int = DEFAULT_K, search: str = "auto"
) -> ScuOutliers:
    """:func:`misgrouped` for the SCUs of a pyramid corpus (groups of kind "SCU")."""
    return run_job(iter_scu_outliers(corpus, embeddings, k=k, search=search))


def iter_scu_outliers(
    corpus: Corpus, embeddings: EmbeddingsByEncoder, *, k: int = DEFAULT_K, search: str = "auto"
) -> Job[ScuOutliers]:
    """:func:`scu_outliers` as a job."""
    _require_groups(corpus, "SCU")
    return _iter_misgrouped(ScuOutliers, corpus, embeddings, k, search)


def _iter_misgrouped(
    table: type[_Misgrouped],
    corpus: Corpus,
    embeddings: EmbeddingsByEncoder,
    k_max: int,
    search: str,
) -> Job[_Misgrouped]:
    groups = _require_groups(corpus)
    _check_embeddings(corpus, embeddings)
    n, sizes = len(corpus), groups.sizes
    keep = sizes[groups.group_index] >= 2
    sentence, group = groups.sentence_index[keep], groups.group_index[keep]
    k = np.minimum(k_max, sizes[group] - 1)
    # Neighbours are drawn from grouped sentences only: an ungrouped neighbour says
    # nothing about which group a sentence belongs in.
    pool = np.unique(groups.sentence_index)
    position = np.full(n, -1, dtype=np.int64)
    position[pool] = np.arange(len(pool))
    queries, query_of_row = np.unique(sentence, return_inverse=True)
    membership = _membership_matrix(groups, n)
    k_top = int(k.max(initial=0))
    rows = len(sentence)
    share_by_encoder = np.zeros((rows, len(embeddings)))
    own_by_encoder = np.zeros((rows, len(embeddings)))
    counts_total = sp.csr_array((rows, groups.n_groups), dtype=np.float32)
    counts_by_encoder = []
    geometries = []
    searches = []
    for e, matrix in enumerate(embeddings.values()):
        geometry = _GroupGeometry.of(matrix, groups)
        geometries.append(geometry)
        unit = geometry.unit
        # Sorted unique rows: as many as the whole is the whole (no copy of a million
        # rows, and queries that are the pool search it as such).
        subset = lambda index, whole: (
            whole
            if len(index) == whole.shape[0]
            # noqa: E731
            else Normalised(whole.matrix[index], whole.degenerate[index])
        )
        pooled = subset(pool, unit)
        neighbours, _, how = yield from iter_knn(
            subset(np.searchsorted(pool, queries), pooled),
            pooled,
            k_top,
            exclude=position[queries],
            search=search,
        )
        searches.append(how)
        neighbours = pool[neighbours[query_of_row]]
        # Row i keeps its first k[i] neighbours; counts[i, g] = how many are in group g.
        taken = np.arange(neighbours.shape[1]) < k[:, None]
        indicator = sp.csr_array(
            (
                np.ones(int(taken.sum()), dtype=np.float32),
                (np.nonzero(taken)[0], neighbours[taken]),
            ),
            shape=(rows, n),
        )
        counts = sp.csr_array(indicator @ membership)
        own_count = counts[np.arange(rows), group]
        share_by_encoder[:, e] = 1.0 - np.asarray(own_count).ravel() / k
        own_by_encoder[:, e] = geometry.cosine_to_group(sentence, group, sizes, np.ones(rows))
        counts_by_encoder.append(counts)
        counts_total = counts_total + counts
    # Most frequent other group over all encoders: zero the own group, take the argmax.
    others = sp.csr_array(
        counts_total
        - sp.csr_array(
            (np.asarray(counts_total[np.arange(rows), group]).ravel(), (np.arange(rows), group)),
            shape=counts_total.shape,
        )
    )
    others.eliminate_zeros()
    likely = np.asarray(others.argmax(axis=1)).ravel() if rows else np.empty(0, np.int64)
    has_likely = np.asarray(others.max(axis=1).toarray()).ravel() > 0 if rows else likely > 0
    likely = np.where(has_likely, likely, -1)
    safe_likely = np.maximum(likely, 0)
    likely_share = (
        np.mean(
            [np.asarray(c[np.arange(rows), safe_likely]).ravel() / k for c in counts_by_encoder],
            axis=0,
        )
        * has_likely
    )
    likely_by_encoder = np.stack(
        [
            np.where(
                has_likely,
                g.cosine_to_group(
                    sentence, safe_likely, sizes, _member_of(groups, sentence, safe_likely)
                ),
                np.nan,
            )
            for g in geometries
        ],
        axis=1,
    )
    share = share_by_encoder.mean(axis=1)
    own = own_by_encoder.mean(axis=1)
    likely_cos = likely_by_encoder.mean(axis=1)
    order = np.lexsort((-np.nan_to_num(likely_cos - own, nan=-np.inf), -share))
    return table(
        corpus=corpus,
        encoder_names=tuple(embeddings),
        sentence=sentence[order],
        group=group[order],
        k=k[order],
        share_outside=share[order],
        share_outside_by_encoder=share_by_encoder[order],
        likely_group=likely[order],
        likely_share=likely_share[order],
        own_cosine=own[order],
        own_cosine_by_encoder=own_by_encoder[order],
        likely_cosine=likely_cos[order],
        likely_cosine_by_encoder=likely_by_encoder[order],
        searches=tuple(searches),
    )
