"""What every finder shares: the review list a finder returns, the checks of its
inputs, and the geometry of a corpus's groups computed once."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.ann import Search
from sentspace.app.analysis.neighbours import Normalised, normalise
from sentspace.app.base.errors import EvaluationError
from sentspace.app.corpora.model import Corpus, Grouping
from sentspace.models.base import Embeddings

#: What the finders read: each encoder's matrix, shape (len(corpus), dim), by its name.
EmbeddingsByEncoder = Mapping[str, Embeddings]

#: A display column: its header and one value per row (a list, tuple or array).
Column = tuple[str, Sequence[Any] | np.ndarray]

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


def _check_embeddings(corpus: Corpus, embeddings: EmbeddingsByEncoder) -> None:
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


#: Fields of every table that are not one value per row.
_NOT_PER_ROW = frozenset({"corpus", "encoder_names", "searches"})


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


def _member_of(groups: Grouping, sentences: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Whether ``sentences[i]`` is a member of ``group[i]``; float 0/1, shape (n,)."""
    keys = groups.sentence_index * groups.n_groups + groups.group_index
    return np.isin(sentences * groups.n_groups + group, keys).astype(float)
