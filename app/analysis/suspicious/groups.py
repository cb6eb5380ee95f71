"""Groups spread wider than the others, and groups closer to another than to
themselves: candidates to split or to merge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from sentspace.app.analysis.ann import Search, iter_knn
from sentspace.app.analysis.suspicious.base import (
    DEFAULT_MERGE_K,
    Column,
    EmbeddingsByEncoder,
    ReviewList,
    _check_embeddings,
    _group_label,
    _GroupGeometry,
    _require_groups,
    _row_dots,
    rankdata,
)
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, run_job
from sentspace.app.corpora.model import Corpus


@dataclass(frozen=True, eq=False)
class SpreadGroups(ReviewList):
    """Groups whose members are far apart compared with the corpus's other groups:
    candidates for a split. Rows: groups of two or more members, lowest ``z`` first.

    Attributes
    ----------
    group, size : ndarray of shape (n,)
    cohesion : ndarray of shape (n,)
        Mean cosine over member pairs, averaged over encoders.
    cohesion_by_encoder : ndarray of shape (n, n_encoders)
    z : ndarray of shape (n,)
        Mean over encoders of ``(cohesion - mean cohesion) / std cohesion`` across the
        corpus's groups; negative is looser than usual.
    z_by_encoder : ndarray of shape (n, n_encoders)
    percentile : ndarray of shape (n,)
        Mean over encoders of the share of groups at most as cohesive (0-100).
    outlier : ndarray of shape (n,)
        The member with the lowest mean cosine to the other members (over encoders):
        the first to split off.
    outlier_cosine : ndarray of shape (n,)
    corpus_cosine : ndarray of shape (n_encoders,)
        Mean cosine of all pairs of distinct sentences, for reference.
    """

    kind: ClassVar[str] = "split"
    title: ClassVar[str] = "Loose groups (split?)"
    not_per_row: ClassVar[frozenset[str]] = frozenset({"corpus_cosine"})

    corpus: Corpus
    encoder_names: tuple[str, ...]
    group: np.ndarray
    size: np.ndarray
    cohesion: np.ndarray
    cohesion_by_encoder: np.ndarray
    z: np.ndarray
    z_by_encoder: np.ndarray
    percentile: np.ndarray
    outlier: np.ndarray
    outlier_cosine: np.ndarray
    corpus_cosine: np.ndarray

    def __len__(self) -> int:
        return len(self.group)

    def columns(self) -> list[Column]:
        groups = self.corpus.checked_groups
        return [
            (groups.kind, _group_label(groups, self.group)),
            ("members", self.size),
            ("z", self.z),
            *self._per_encoder("z", self.z_by_encoder),
            ("percentile", self.percentile),
            ("mean cos", self.cohesion),
            *self._per_encoder("mean cos", self.cohesion_by_encoder),
            ("farthest member", [self.corpus.texts[s] for s in self.outlier.tolist()]),
            ("its cos to the rest", self.outlier_cosine),
        ]

    def sentences_of(self, row: int) -> list[int]:
        members = self.corpus.checked_groups.members(int(self.group[row]))
        return [int(self.outlier[row]), *(int(m) for m in members if m != self.outlier[row])]

    def key(self, row: int) -> str:
        return f"group:{self.corpus.checked_groups.names[self.group[row]]}"

    def why(self, row: int) -> str:
        groups = self.corpus.checked_groups
        return (
            f"mean cosine between the {self.size[row]} members of {groups.kind} "
            f"{groups.names[self.group[row]]} is {self.cohesion[row]:.3f}, z = "
            f"{self.z[row]:+.2f} against the other groups (percentile "
            f"{self.percentile[row]:.0f}; any two sentences: "
            f"{float(np.mean(self.corpus_cosine)):.3f}); farthest member "
            f"{self.corpus.ids[self.outlier[row]]} ({self.outlier_cosine[row]:.3f})"
        )


def spread_groups(corpus: Corpus, embeddings: EmbeddingsByEncoder) -> SpreadGroups:
    """Rank the groups by how loose they are compared with the corpus's other groups.

    Raises
    ------
    EvaluationError
        No groups of two or more members, or embeddings of the wrong shape.
    """
    groups = _require_groups(corpus)
    _check_embeddings(corpus, embeddings)
    sizes = groups.sizes
    eligible = np.flatnonzero(sizes >= 2)
    if len(eligible) == 0:
        raise EvaluationError(f"{corpus.name} has no {groups.kind} with two or more members")
    n = len(corpus)
    ones = np.ones(len(groups.sentence_index))
    cohesion_each: list[np.ndarray] = []
    z_each: list[np.ndarray] = []
    percentile, member_cos, corpus_cos = [], [], []
    for matrix in embeddings.values():
        geometry = _GroupGeometry.of(matrix, groups)
        c = geometry.cohesion(sizes)[eligible]
        spread = c.std()
        cohesion_each.append(c)
        z_each.append((c - c.mean()) / spread if spread > 0 else np.zeros_like(c))
        percentile.append(100.0 * rankdata(c, method="max") / len(c))
        member_cos.append(
            geometry.cosine_to_group(groups.sentence_index, groups.group_index, sizes, ones)
        )
        total = np.asarray(geometry.unit.matrix.sum(axis=0), dtype=np.float64).ravel()
        corpus_cos.append((total @ total - (~geometry.unit.degenerate).sum()) / max(n * (n - 1), 1))
    cohesion, z = np.stack(cohesion_each, axis=1), np.stack(z_each, axis=1)
    member_mean = np.mean(member_cos, axis=0)
    # The farthest member of each group: lowest mean cosine to the rest, first in
    # membership order on ties (lexsort puts it first within its group).
    by_group = np.lexsort((member_mean, groups.group_index))
    first = np.searchsorted(groups.group_index[by_group], eligible)
    outlier_row = by_group[first]
    z_mean = z.mean(axis=1)
    order = np.argsort(z_mean, kind="stable")
    return SpreadGroups(
        corpus=corpus,
        encoder_names=tuple(embeddings),
        group=eligible[order],
        size=sizes[eligible][order],
        cohesion=cohesion.mean(axis=1)[order],
        cohesion_by_encoder=cohesion[order],
        z=z_mean[order],
        z_by_encoder=z[order],
        percentile=np.mean(percentile, axis=0)[order],
        outlier=groups.sentence_index[outlier_row][order],
        outlier_cosine=member_mean[outlier_row][order],
        corpus_cosine=np.asarray(corpus_cos),
    )


@dataclass(frozen=True, eq=False)
class CloseGroups(ReviewList):
    """Pairs of groups whose members are about as close across the two groups as within
    them: candidates for a merge. Rows: candidate pairs, highest ``margin`` first.

    Candidates are each group's ``k`` nearest groups by centroid cosine (for any
    encoder), so the cost grows with n_groups x k, not n_groups squared.

    Attributes
    ----------
    first, second : ndarray of shape (n,)
        The two groups, ``first < second``.
    cross_cosine : ndarray of shape (n,)
        Mean cosine between a member of one and a member of the other (over encoders).
    cross_cosine_by_encoder : ndarray of shape (n, n_encoders)
    cohesion_first, cohesion_second : ndarray of shape (n,)
        Mean within-group cosine of each; a one-member group takes the median cohesion
        of the corpus's groups, the closeness a group is expected to have.
    margin : ndarray of shape (n,)
        ``cross_cosine - (cohesion_first + cohesion_second) / 2``, over encoders;
        positive when the two groups are closer to each other than to themselves.
    margin_by_encoder : ndarray of shape (n, n_encoders)
    centroid_cosine : ndarray of shape (n,)
        Cosine between the two groups' mean directions.
    """

    kind: ClassVar[str] = "merge"
    title: ClassVar[str] = "Close groups (merge?)"

    corpus: Corpus
    encoder_names: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    cross_cosine: np.ndarray
    cross_cosine_by_encoder: np.ndarray
    cohesion_first: np.ndarray
    cohesion_second: np.ndarray
    margin: np.ndarray
    margin_by_encoder: np.ndarray
    centroid_cosine: np.ndarray
    #: How each encoder's nearest groups were found.
    searches: tuple[Search, ...] = ()

    def __len__(self) -> int:
        return len(self.first)

    def columns(self) -> list[Column]:
        groups = self.corpus.checked_groups
        return [
            (f"{groups.kind} A", _group_label(groups, self.first)),
            (f"{groups.kind} B", _group_label(groups, self.second)),
            ("margin", self.margin),
            *self._per_encoder("margin", self.margin_by_encoder),
            ("cos A-B", self.cross_cosine),
            ("cos within A", self.cohesion_first),
            ("cos within B", self.cohesion_second),
            ("centroid cos", self.centroid_cosine),
            ("A", [self.corpus.texts[groups.members(g)[0]] for g in self.first.tolist()]),
            ("B", [self.corpus.texts[groups.members(g)[0]] for g in self.second.tolist()]),
        ]

    def sentences_of(self, row: int) -> list[int]:
        groups = self.corpus.checked_groups
        return [
            *map(int, groups.members(int(self.first[row]))),
            *map(int, groups.members(int(self.second[row]))),
        ]

    def key(self, row: int) -> str:
        names = self.corpus.checked_groups.names
        return f"groups:{names[self.first[row]]}+{names[self.second[row]]}"

    def why(self, row: int) -> str:
        groups = self.corpus.checked_groups
        a, b = groups.names[self.first[row]], groups.names[self.second[row]]
        return (
            f"members of {groups.kind}s {a} and {b} have mean cosine "
            f"{self.cross_cosine[row]:.3f} across the two, against "
            f"{self.cohesion_first[row]:.3f} within {a} and "
            f"{self.cohesion_second[row]:.3f} within {b} (margin "
            f"{self.margin[row]:+.3f})"
        )


def close_groups(
    corpus: Corpus,
    embeddings: EmbeddingsByEncoder,
    *,
    k: int = DEFAULT_MERGE_K,
    search: str = "auto",
) -> CloseGroups:
    """Rank candidate pairs of groups by how much closer they are to each other than to
    themselves.

    Parameters
    ----------
    corpus : Corpus with two or more groups.
    embeddings : encoder name -> matrix of shape (len(corpus), dim).
    k : nearest groups (by centroid cosine) considered per group and encoder.
    search : how nearest groups are found (:func:`sentspace.app.analysis.ann.iter_knn`).

    Raises
    ------
    EvaluationError
        Fewer than two groups, or embeddings of the wrong shape.
    """
    return run_job(iter_close_groups(corpus, embeddings, k=k, search=search))


def iter_close_groups(
    corpus: Corpus,
    embeddings: EmbeddingsByEncoder,
    *,
    k: int = DEFAULT_MERGE_K,
    search: str = "auto",
) -> Job[CloseGroups]:
    """:func:`close_groups` as a job (progress and cancel while neighbours are found)."""
    groups = _require_groups(corpus)
    _check_embeddings(corpus, embeddings)
    n_groups, sizes = groups.n_groups, groups.sizes
    if n_groups < 2:
        raise EvaluationError(f"{corpus.name} has fewer than two {groups.kind}s")
    geometries = [_GroupGeometry.of(matrix, groups) for matrix in embeddings.values()]
    candidates, searches = [], []
    for geometry in geometries:
        nearest, _, how = yield from iter_knn(
            geometry.sums, geometry.sums, k, exclude=np.arange(n_groups), search=search
        )
        searches.append(how)
        a = np.repeat(np.arange(n_groups), nearest.shape[1])
        b = nearest.ravel()
        candidates.append(np.minimum(a, b) * n_groups + np.maximum(a, b))
    pair = np.unique(np.concatenate(candidates))
    first, second = pair // n_groups, pair % n_groups
    cross_each: list[np.ndarray] = []
    margin_each: list[np.ndarray] = []
    cohesion_a, cohesion_b, centroid = [], [], []
    for geometry in geometries:
        cohesion = geometry.cohesion(sizes)
        # A one-member group has no cohesion of its own; expect the corpus's typical one.
        cohesion = np.where(np.isnan(cohesion), np.nanmedian(cohesion), cohesion)
        dots = _row_dots(geometry.sums, first, geometry.sums, second)
        c = dots / (sizes[first] * sizes[second])
        norms = np.sqrt(geometry.squared_sums)
        with np.errstate(divide="ignore", invalid="ignore"):
            centroid.append(np.nan_to_num(dots / (norms[first] * norms[second])))
        cross_each.append(c)
        cohesion_a.append(cohesion[first])
        cohesion_b.append(cohesion[second])
        margin_each.append(c - (cohesion[first] + cohesion[second]) / 2)
    cross, margin = np.stack(cross_each, axis=1), np.stack(margin_each, axis=1)
    margin_mean = margin.mean(axis=1)
    order = np.argsort(-margin_mean, kind="stable")
    return CloseGroups(
        corpus=corpus,
        encoder_names=tuple(embeddings),
        first=first[order],
        second=second[order],
        cross_cosine=cross.mean(axis=1)[order],
        cross_cosine_by_encoder=cross[order],
        cohesion_first=np.mean(cohesion_a, axis=0)[order],
        cohesion_second=np.mean(cohesion_b, axis=0)[order],
        margin=margin_mean[order],
        margin_by_encoder=margin[order],
        centroid_cosine=np.mean(centroid, axis=0)[order],
        searches=tuple(searches),
    )
