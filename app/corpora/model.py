"""The one data model every corpus loads into and every evaluation and view reads.

A :class:`Corpus` holds distinct sentences (the units that get encoded) plus whatever
structure its dataset carries: a :class:`Grouping` (paraphrase groups, SCUs, topics,
classes) and a :class:`PairTable` (labelled or scored sentence pairs). Structure refers to
sentences by index into ``Corpus.texts``. Everything here is immutable and Qt-free.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from html import escape

import numpy as np


def _hash_arrays(h: hashlib._Hash, *arrays: np.ndarray) -> None:
    for array in arrays:
        contiguous = np.ascontiguousarray(array)
        h.update(str((contiguous.dtype.str, contiguous.shape)).encode())
        h.update(contiguous.tobytes())


@dataclass(frozen=True, eq=False)
class Grouping:
    """A partition of sentences into groups, stored as membership arrays.

    Parameters
    ----------
    kind : str
        What a group is, for display: "paraphrase group", "SCU", "topic", "class".
    sentence_index : ndarray of shape (n_memberships,)
        Sentence of each membership (index into ``Corpus.texts``).
    group_index : ndarray of shape (n_memberships,)
        Group of each membership, in ``range(len(names))``.
    names : tuple of str
        The dataset's own identifier of each group.
    """

    kind: str
    sentence_index: np.ndarray
    group_index: np.ndarray
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        for name in ("sentence_index", "group_index"):
            array = np.asarray(getattr(self, name), dtype=np.int64)
            array.flags.writeable = False
            object.__setattr__(self, name, array)

    @property
    def n_groups(self) -> int:
        return len(self.names)

    @cached_property
    def sizes(self) -> np.ndarray:
        """Number of members of each group, shape (n_groups,)."""
        return np.bincount(self.group_index, minlength=self.n_groups)

    def members(self, group: int) -> np.ndarray:
        """Sentence indices of one group, in membership order."""
        return self.sentence_index[self.group_index == group]

    def labels(self, n_sentences: int) -> np.ndarray:
        """Group of every sentence, -1 for none, shape (n_sentences,).

        Raises ValueError when a sentence belongs to several groups, since a single label
        is then not defined.
        """
        if len(np.unique(self.sentence_index)) != len(self.sentence_index):
            raise ValueError(f"some sentences belong to several groups of kind {self.kind!r}")
        labels = np.full(n_sentences, -1, dtype=np.int64)
        labels[self.sentence_index] = self.group_index
        return labels

    def first_group(self, n_sentences: int) -> np.ndarray:
        """Each sentence's first group in membership order, -1 for none; shape (n_sentences,).

        Unlike :meth:`labels` this is defined when sentences belong to several groups,
        which is what views need to colour and describe every sentence.
        """
        first = np.full(n_sentences, -1, dtype=np.int64)
        # Assigning in reverse leaves each sentence's earliest membership in place.
        first[self.sentence_index[::-1]] = self.group_index[::-1]
        return first

    def restricted(self, min_size: int) -> Grouping:
        """The groups with at least ``min_size`` members, renumbered densely in order."""
        keep = self.sizes >= min_size
        new_index = np.cumsum(keep) - 1
        member_kept = keep[self.group_index]
        return Grouping(
            kind=self.kind,
            sentence_index=self.sentence_index[member_kept],
            group_index=new_index[self.group_index[member_kept]],
            names=tuple(name for name, k in zip(self.names, keep) if k),
        )


def label_text(label: int, names: tuple[str, ...] = ()) -> str:
    """A pair label as words: its name in ``names`` (a :attr:`PairTable.label_names`),
    else the paraphrase judgement "paraphrase" (1) or "not paraphrase" (0);
    "unlabelled" for -1."""
    if label < 0:
        return "unlabelled"
    if names:
        return names[label] if label < len(names) else str(label)
    return {1: "paraphrase", 0: "not paraphrase"}.get(label, str(label))


@dataclass(frozen=True, eq=False)
class PairTable:
    """Sentence pairs with an optional label, score, split and subset per pair.

    ``label`` is -1 when unlabelled. With no ``label_names`` it is a paraphrase judgement,
    1 (paraphrase, positive) or 0 (not); with ``label_names`` it indexes named classes
    (SICK's CONTRADICTION / NEUTRAL / ENTAILMENT), and evaluations that need paraphrase
    judgements refuse it. ``score`` is a gold similarity or NaN when unscored. ``ids`` are
    the dataset's own pair ids (SICK's pair_ID), empty when it gives none; views and
    exports show them, never the index.
    """

    first: np.ndarray
    second: np.ndarray
    label: np.ndarray
    score: np.ndarray
    split: tuple[str, ...]
    subset: tuple[str, ...]
    label_names: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name, dtype in (
            ("first", np.int64),
            ("second", np.int64),
            ("label", np.int64),
            ("score", np.float64),
        ):
            array = np.asarray(getattr(self, name), dtype=dtype)
            array.flags.writeable = False
            object.__setattr__(self, name, array)
        n = len(self.first)
        if not (
            len(self.second)
            == len(self.label)
            == len(self.score)
            == len(self.split)
            == len(self.subset)
            == n
        ) or len(self.ids) not in (0, n):
            raise ValueError("pair columns differ in length")

    def __len__(self) -> int:
        return len(self.first)

    def label_text(self, label: int) -> str:
        """What a label value means, wherever one is shown (:func:`label_text`)."""
        return label_text(label, self.label_names)

    def names(self, sentence_ids: tuple[str, ...], pairs: np.ndarray) -> np.ndarray:
        """How the dataset names each of ``pairs`` (indices into this table), as a str
        array: its own pair id (SICK's pair_ID), else its sentences' ids "first/second"
        (MSRP names a pair by its two sentence ids)."""
        pairs = np.asarray(pairs, dtype=np.int64)
        if self.ids:
            return np.asarray(self.ids, dtype=str)[pairs]
        ids = np.asarray(sentence_ids, dtype=str)
        return np.char.add(np.char.add(ids[self.first[pairs]], "/"), ids[self.second[pairs]])

    @property
    def has_paraphrase_labels(self) -> bool:
        """Whether labels are paraphrase judgements with at least one positive pair."""
        return (
            not self.label_names
            and bool(np.any(self.label == 1))
            and not bool(np.any(self.label > 1))
        )


@dataclass(frozen=True, eq=False)
class Corpus:
    """Distinct sentences plus the structure their dataset carries.

    Parameters
    ----------
    name : str
        Short display name ("msrp-grouped").
    texts : tuple of str
        The distinct sentences; what encoders encode, in a stable order.
    ids : tuple of str
        A stable identifier per sentence (the dataset's own where it has one).
    language : str
        ISO 639-1 code of the sentences' language.
    groups, pairs : optional structure over the sentences.
    metadata : mapping of column name to a tuple with one value per sentence
        (source file and line, split, topic, transformation type...).
    sources : tuple of str
        The files the corpus was read from.
    warnings : tuple of str
        Lines the loader skipped or repaired, for the user to see.
    edits : int
        How many edits that change it were applied to the corpus as loaded (0: as
        loaded); with :attr:`fingerprint` it names the version a result describes.
    """

    name: str
    texts: tuple[str, ...]
    ids: tuple[str, ...]
    language: str = "en"
    groups: Grouping | None = None
    pairs: PairTable | None = None
    metadata: Mapping[str, tuple] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    edits: int = 0

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.texts):
            raise ValueError("ids and texts differ in length")
        for column, values in self.metadata.items():
            if len(values) != len(self.texts):
                raise ValueError(f"metadata column {column!r} differs in length from texts")

    def __len__(self) -> int:
        return len(self.texts)

    def __repr__(self) -> str:
        # Short: a notebook cell ending in a corpus must not print every sentence.
        counts = [
            f"{value:,} {key}"
            for key, value in self.describe().items()
            if key not in ("name", "language")
        ]
        return f"<Corpus {self.name!r}: {', '.join(counts)}, language {self.language}>"

    #: Sentences a notebook shows of a corpus.
    SHOWN = 5

    def _repr_html_(self) -> str:
        """The counts and the first sentences, for a notebook."""

        rows = "".join(
            f"<tr><td>{escape(self.ids[i])}</td><td>{escape(self.texts[i])}</td></tr>"
            for i in range(min(self.SHOWN, len(self)))
        )
        more = (
            f"<tr><td></td><td>... {len(self) - self.SHOWN:,} more</td></tr>"
            if len(self) > self.SHOWN
            else ""
        )
        return (
            f"<p>{escape(repr(self)[1:-1])}</p><table><tr><th>id</th><th>text</th>"
            f"</tr>{rows}{more}</table>"
        )

    @property
    def checked_groups(self) -> Grouping:
        """``groups``, read where the caller has made sure the corpus has them."""
        assert self.groups is not None, f"corpus {self.name!r} has no groups"
        return self.groups

    @property
    def checked_pairs(self) -> PairTable:
        """``pairs``, read where the caller has made sure the corpus has them."""
        assert self.pairs is not None, f"corpus {self.name!r} has no pairs"
        return self.pairs

    @cached_property
    def fingerprint(self) -> str:
        """Content hash of the sentences and their structure (not the name or paths)."""
        h = hashlib.sha256()
        # Each text followed by a NUL, hashed in one call (a million calls took a second).
        h.update("".join(f"{text}\0" for text in self.texts).encode("utf-8"))
        if self.groups is not None:
            h.update(b"groups")
            _hash_arrays(h, self.groups.sentence_index, self.groups.group_index)
        if self.pairs is not None:
            h.update(b"pairs")
            _hash_arrays(h, self.pairs.first, self.pairs.second, self.pairs.label, self.pairs.score)
            h.update("\0".join(self.pairs.split).encode())
        return h.hexdigest()[:16]

    def describe(self) -> dict[str, int | str]:
        """Headline counts for panels and ``corpus info``."""
        counts: dict[str, int | str] = {
            "name": self.name,
            "language": self.language,
            "sentences": len(self),
        }
        if self.groups is not None:
            counts["groups"] = self.groups.n_groups
        if self.pairs is not None:
            counts["pairs"] = len(self.pairs)
        return counts
