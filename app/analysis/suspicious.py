"""Annotations the embedding space disagrees with, ranked for a linguist to review.

Each finder takes a corpus and one embedding matrix per encoder (float32, dense or CSR,
shape (len(corpus), dim)), and returns a frozen table of items, most suspicious first,
with the numbers that explain each flag: the mean over encoders, and the per-encoder
values (one column per encoder) so that a flag only one encoder raises is visible.

Everything is computed from unit rows (:func:`sentspace.app.analysis.neighbours.normalise`) and group sums
of them, so within- and between-group mean cosines cost one product per membership
instead of one per pair: for a group with unit-row sum ``S`` and ``m`` members, the mean
cosine over its ``m (m - 1)`` ordered member pairs is ``(|S|^2 - m) / (m (m - 1))``.
Nearest neighbours come from :func:`sentspace.app.analysis.ann.iter_knn` with the finders' ``search``
("auto", "exact", "ann"): the exact scan, blocked to a memory budget, or an index above
its size limit (the tables then carry the measured recall).
Degenerate rows (zero or non-finite) have cosine 0 with everything, as elsewhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.ann import Search, iter_knn
from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.evaluations.costra import evaluate_costra
from sentspace.app.analysis.neighbours import Normalised, normalise, pair_cosines
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress, run_job
from sentspace.app.corpora.costra import RULES
from sentspace.app.corpora.model import Corpus, Grouping
from sentspace.models.base import Embeddings, Encoder

#: Memberships per block when gathering rows for row-wise products.
ROW_BLOCK = 8192
#: Default neighbours looked at per sentence (fewer when its group is smaller).
DEFAULT_K = 10
#: Default candidate groups per group for merge candidates.
DEFAULT_MERGE_K = 5


def rankdata(*args, **kwargs):
    """``scipy.stats.rankdata``, imported on first use: scipy.stats takes about 0.4 s to
    import, too slow for the GUI's start."""
    from scipy.stats import rankdata as scipy_rankdata  # noqa: PLC0415

    return scipy_rankdata(*args, **kwargs)


# --- geometry shared by the finders ---------------------------------------------------


def _row_dots(a: Embeddings, rows_a: np.ndarray, b: Embeddings, rows_b: np.ndarray) -> np.ndarray:
    """``a[rows_a[i]] . b[rows_b[i]]`` for every i, shape (n,), float64."""
    out = np.empty(len(rows_a))
    for start in range(0, len(rows_a), ROW_BLOCK):
        block = slice(start, start + ROW_BLOCK)
        x, y = a[rows_a[block]], b[rows_b[block]]
        if sp.issparse(x):
            out[block] = np.asarray(sp.csr_array(x).multiply(y).sum(axis=1)).ravel()
        else:
            out[block] = np.einsum("ij,ij->i", x, np.asarray(y), dtype=np.float64)
    return out


def _membership_matrix(groups: Grouping, n_sentences: int) -> sp.csr_array:
    """1 where sentence i belongs to group g; float32, shape (n_sentences, n_groups)."""
    return sp.csr_array(
        (
            np.ones(len(groups.sentence_index), dtype=np.float32),
            (groups.sentence_index, groups.group_index),
        ),
        shape=(n_sentences, groups.n_groups),
    )


@dataclass(frozen=True, eq=False)
class _GroupGeometry:
    """One encoder's unit rows and the sums the group statistics derive from.

    Attributes
    ----------
    unit : Normalised, rows of shape (n_sentences, dim).
    sums : ndarray or csr_array of shape (n_groups, dim)
        Sum of each group's unit rows.
    squared_sums : ndarray of shape (n_groups,)
        ``|sums[g]|^2``.
    self_dots : ndarray of shape (n_groups,)
        Sum of the members' ``|u|^2`` (the member count, less degenerate members).
    """

    unit: Normalised
    sums: Embeddings
    squared_sums: np.ndarray
    self_dots: np.ndarray

    @classmethod
    def of(cls, embeddings: Embeddings, groups: Grouping) -> _GroupGeometry:
        unit = normalise(embeddings)
        membership = _membership_matrix(groups, unit.matrix.shape[0])
        sums = membership.T @ unit.matrix
        sums = sp.csr_array(sums) if sp.issparse(sums) else np.asarray(sums)
        every = np.arange(groups.n_groups)
        self_dots = np.bincount(
            groups.group_index,
            minlength=groups.n_groups,
            weights=(~unit.degenerate[groups.sentence_index]).astype(float),
        )
        return cls(unit, sums, _row_dots(sums, every, sums, every), self_dots)

    def cohesion(self, sizes: np.ndarray) -> np.ndarray:
        """Mean cosine over ordered member pairs of each group; NaN below 2 members."""
        pairs = sizes * (sizes - 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(pairs > 0, (self.squared_sums - self.self_dots) / pairs, np.nan)

    def cosine_to_group(
        self, sentences: np.ndarray, groups: np.ndarray, sizes: np.ndarray, member: np.ndarray
    ) -> np.ndarray:
        """Mean cosine of each sentence to the members of a group, itself excluded when
        it is a ``member``; NaN when no other member is left. Shape (n,)."""
        dots = _row_dots(self.unit.matrix, sentences, self.sums, groups)
        own = (~self.unit.degenerate[sentences]).astype(float)
        others = sizes[groups] - member
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(others > 0, (dots - member * own) / others, np.nan)


def _check_embeddings(corpus: Corpus, embeddings: Mapping[str, Embeddings]) -> None:
    if not embeddings:
        raise EvaluationError("no embeddings given: pass one matrix per encoder")
    for name, matrix in embeddings.items():
        if matrix.ndim != 2 or matrix.shape[0] != len(corpus):
            raise EvaluationError(
                f"embeddings of {name!r} have shape {matrix.shape}; expected ({len(corpus)}, dim)"
            )


def _require_groups(corpus: Corpus, kind: str | None = None) -> Grouping:
    if corpus.groups is None or corpus.groups.n_groups == 0:
        raise EvaluationError(f"{corpus.name} has no groups")
    if kind is not None and corpus.groups.kind != kind:
        raise EvaluationError(f"{corpus.name} has {corpus.groups.kind}s, not {kind}s")
    return corpus.groups


# --- the tables ----------------------------------------------------------------------

#: Fields of every table that are not one value per row.
_NOT_PER_ROW = frozenset({"corpus", "encoder_names", "searches"})

#: A display column: its header and one value per row (a list, tuple or array).
Column = tuple[str, Sequence[Any] | np.ndarray]


class ReviewList:
    """What every finder's table shows: rows, display columns, and what a row is about.

    Subclasses are frozen dataclasses with a ``corpus`` and ``encoder_names`` field and
    per-row arrays, most suspicious first.
    """

    kind: ClassVar[str]
    title: ClassVar[str]
    #: Array fields that are not one value per row (:meth:`take` keeps them whole).
    not_per_row: ClassVar[frozenset[str]] = frozenset()
    #: Declared so that a type checker lets :meth:`take` call ``dataclasses.fields`` and
    #: ``replace`` on ``self`` (every subclass is a dataclass).
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    corpus: Corpus
    encoder_names: tuple[str, ...]
    #: How the nearest neighbours behind the table were found, one per encoder; empty
    #: for tables that look at no neighbours.
    searches: tuple[Search, ...] = ()

    def __len__(self) -> int:
        raise NotImplementedError

    def columns(self) -> list[Column]:
        """Display columns ``(header, values)``, each with one value per row; numbers
        stay numbers so a view can sort them."""
        raise NotImplementedError

    def sentences_of(self, row: int) -> list[int]:
        """Sentences (indices into ``corpus.texts``) a row is about, the main one first."""
        raise NotImplementedError

    def key(self, row: int) -> str:
        """A stable name of the item ("sentence:L12", "group:57"...), for review marks
        and notes."""
        raise NotImplementedError

    def why(self, row: int) -> str:
        """One sentence explaining the flag with its numbers."""
        raise NotImplementedError

    def take(self, rows: Sequence[int] | np.ndarray) -> ReviewList:
        """The same table with only ``rows`` (indices, in the order given): every
        per-row array and tuple is indexed, the rest kept (a batch of a list for one
        reviewer)."""
        rows = np.asarray(rows, dtype=np.int64)
        n, changes = len(self), {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if (
                f.name in _NOT_PER_ROW
                or f.name in self.not_per_row
                or not isinstance(value, (np.ndarray, tuple))
            ):
                continue
            if len(value) != n:
                raise ValueError(
                    f"{type(self).__name__}.{f.name} has {len(value)} values for {n} rows"
                )
            changes[f.name] = (
                value[rows]
                if isinstance(value, np.ndarray)
                else tuple(value[r] for r in rows.tolist())
            )
        return dataclasses.replace(self, **changes)

    def _per_encoder(self, header: str, values: np.ndarray) -> list[tuple[str, np.ndarray]]:
        """One column per encoder, when there is more than one."""
        if len(self.encoder_names) < 2:
            return []
        return [(f"{header} [{name}]", values[:, e]) for e, name in enumerate(self.encoder_names)]


def _group_label(groups: Grouping, index: np.ndarray) -> list[str]:
    return [groups.names[g] if g >= 0 else "" for g in index.tolist()]


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
    corpus: Corpus,
    embeddings: Mapping[str, Embeddings],
    *,
    k: int = DEFAULT_K,
    search: str = "auto",
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
    corpus: Corpus,
    embeddings: Mapping[str, Embeddings],
    *,
    k: int = DEFAULT_K,
    search: str = "auto",
) -> Job[MisgroupedSentences]:
    """:func:`misgrouped` as a job (progress and cancel while neighbours are found)."""
    return _iter_misgrouped(MisgroupedSentences, corpus, embeddings, k, search)


def scu_outliers(
    corpus: Corpus,
    embeddings: Mapping[str, Embeddings],
    *,
    k: int = DEFAULT_K,
    search: str = "auto",
) -> ScuOutliers:
    """:func:`misgrouped` for the SCUs of a pyramid corpus (groups of kind "SCU")."""
    return run_job(iter_scu_outliers(corpus, embeddings, k=k, search=search))


def iter_scu_outliers(
    corpus: Corpus,
    embeddings: Mapping[str, Embeddings],
    *,
    k: int = DEFAULT_K,
    search: str = "auto",
) -> Job[ScuOutliers]:
    """:func:`scu_outliers` as a job."""
    _require_groups(corpus, "SCU")
    return _iter_misgrouped(ScuOutliers, corpus, embeddings, k, search)


_Misgrouped = TypeVar("_Misgrouped", bound=MisgroupedSentences)


def _iter_misgrouped(
    table: type[_Misgrouped],
    corpus: Corpus,
    embeddings: Mapping[str, Embeddings],
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


def _member_of(groups: Grouping, sentences: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Whether ``sentences[i]`` is a member of ``group[i]``; float 0/1, shape (n,)."""
    keys = groups.sentence_index * groups.n_groups + groups.group_index
    return np.isin(sentences * groups.n_groups + group, keys).astype(float)


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


def spread_groups(corpus: Corpus, embeddings: Mapping[str, Embeddings]) -> SpreadGroups:
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
    embeddings: Mapping[str, Embeddings],
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
    embeddings: Mapping[str, Embeddings],
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


def gold_disagreements(corpus: Corpus, embeddings: Mapping[str, Embeddings]) -> GoldDisagreements:
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
    corpus: Corpus, embeddings: Mapping[str, Embeddings]
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


# --- all of them ---------------------------------------------------------------------


def _at_once(find):
    """A finder that needs no neighbour search, as a job like the others."""

    def job(corpus: Corpus, embeddings: Mapping[str, Embeddings]) -> Job[ReviewList]:
        yield from ()
        return find(corpus, embeddings)

    return job


#: Every finder, as a job, by the kind its table reports, with whether a corpus has
#: what it needs.
FINDERS = {
    "misgrouped": (iter_misgrouped, lambda c: c.groups is not None and c.groups.kind != "SCU"),
    "split": (
        _at_once(spread_groups),
        lambda c: c.groups is not None and bool((c.groups.sizes >= 2).any()),
    ),
    "merge": (iter_close_groups, lambda c: c.groups is not None and c.groups.n_groups >= 2),
    "gold": (
        _at_once(gold_disagreements),
        lambda c: c.pairs is not None and bool(np.isfinite(c.pairs.score).any()),
    ),
    "scu": (iter_scu_outliers, lambda c: c.groups is not None and c.groups.kind == "SCU"),
    "costra": (_at_once(costra_consensus_errors), lambda c: "r1" in c.metadata),
}
#: The finders that look for nearest neighbours, and so take ``search``.
SEARCHING = frozenset({"misgrouped", "merge", "scu"})
#: What the progress says while each table is made.
STAGES = {
    "misgrouped": "sentences that may be in the wrong group",
    "split": "groups that may need splitting",
    "merge": "groups that may need merging",
    "gold": "gold scores the space disagrees with",
    "scu": "SCU contributors that may not belong",
    "costra": "Costra comparisons every encoder gets wrong",
}


def find_suspicious(
    corpus: Corpus, embeddings: Mapping[str, Embeddings], *, search: str = "auto"
) -> dict[str, ReviewList]:
    """Every table the corpus has the structure for, by kind, in :data:`FINDERS` order;
    neighbours found as ``search`` says (:func:`sentspace.app.analysis.ann.iter_knn`)."""
    return run_job(iter_suspicious_tables(corpus, embeddings, search=search))


def iter_suspicious_tables(
    corpus: Corpus, embeddings: Mapping[str, Embeddings], *, search: str = "auto"
) -> Job[dict[str, ReviewList]]:
    """:func:`find_suspicious` as a job: a stage per table, with the neighbour
    searches' own progress inside (minutes at a million sentences), cancellable at
    each step."""
    kinds = [kind for kind, (_, applies) in FINDERS.items() if applies(corpus)]
    tables: dict[str, ReviewList] = {}
    for done, kind in enumerate(kinds):
        yield Progress(f"finding {STAGES[kind]}", done, len(kinds))
        find = FINDERS[kind][0]
        tables[kind] = yield from find(
            corpus, embeddings, **({"search": search} if kind in SEARCHING else {})
        )
    return tables


def iter_find_suspicious(
    corpus: Corpus, encoders: Sequence[Encoder], *, search: str = "auto"
) -> Job[dict[str, ReviewList]]:
    """Encode the corpus with every encoder (fitting those that need it on the corpus),
    then :func:`find_suspicious`; a job for the GUI and CLI."""
    embeddings: dict[str, Embeddings] = {}
    for encoder in encoders:
        name = encoder.name
        while name in embeddings:  # two encoders of one family with default names
            name += "'"
        embeddings[name] = yield from encode_corpus(corpus, encoder)
    return (yield from iter_suspicious_tables(corpus, embeddings, search=search))
