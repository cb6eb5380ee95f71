"""The columns the views chart, filter and colour by: what each sentence of a corpus
is (its group and the group's size, region, misclassified or not, words, faithfulness,
what its pairs say of it, each metadata column) as categories, numbers or free text.

The web map (``app/web_map.py``) and the window's Filter panel and *Colour by* read the
same columns, so a column means the same thing in each."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.annotations.edits import Edit
from sentspace.app.corpora.model import Corpus
from sentspace.app.explore import Exploration
from sentspace.app.palette import CATEGORICAL, MISCLASSIFIED
from sentspace.app.regions import NOISE, Regions


@dataclass(frozen=True, eq=False)
class Categories:
    """One way to colour the points: ``codes`` (n,) index ``names`` (-1: ``none``)."""

    title: str
    names: tuple[str, ...]
    codes: np.ndarray
    colours: tuple[str, ...] = ()
    none: str = "none"

    @classmethod
    def of_values(cls, title: str, values: Sequence[Any], none: str = "none") -> Categories:
        """A colouring by per-point values (strings, numbers); "" or None is ``none``.
        Categories come most frequent first (ties in natural order: "2" before "10"), so
        the top ten get the palette's first, most distinct colours."""
        text = np.array(["" if v is None else str(v) for v in values], dtype=object)
        names, codes, counts = np.unique(text, return_inverse=True, return_counts=True)
        if len(names) and names[0] == "":
            names, codes, counts = names[1:], codes - 1, counts[1:]
        order = sorted(range(len(names)), key=lambda k: (-counts[k], _natural(str(names[k]))))
        rank = np.empty(len(names) + 1, dtype=np.int64)
        rank[order], rank[-1] = np.arange(len(names)), -1
        return cls(title, tuple(names[order]), rank[codes.ravel()], none=none)

    def palette(self) -> tuple[str, ...]:
        return self.colours or tuple(CATEGORICAL[k % len(CATEGORICAL)]
                                     for k in range(len(self.names)))


@dataclass(frozen=True, eq=False)
class Numbers:
    """A numeric column: ``values`` (n,), NaN where a point has none. The page draws it
    as a histogram and colours by it on a continuous scale."""

    title: str
    values: np.ndarray


@dataclass(frozen=True, eq=False)
class Texts:
    """A column of free text (an id of the source, a note): shown in the table and the
    point's fields, exported, neither charted nor a colouring."""

    title: str
    values: tuple[str, ...]


Column = Categories | Numbers | Texts


_DIGITS = re.compile(r"(\d+)")   # compiled: 29,000 group names are keyed in half the time


def _natural(text: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part.lower()
                 for part in _DIGITS.split(text))


def exploration_columns(exploration: Exploration, *, groups: np.ndarray | None = None,
                           regions: Regions | None = None,
                           labels: dict[str, Sequence[Any]] | None = None
                           ) -> list[Column]:
    """The columns of an exploration: group and its size, region, misclassified or not,
    words, faithfulness, each given label, what its pairs say of each sentence and each
    metadata column."""
    return sentence_columns(exploration.corpus, groups=groups, regions=regions,
                            classification=exploration.classification,
                            faithfulness=exploration.faithfulness, labels=labels)


def sentence_columns(corpus: Corpus, *, groups: np.ndarray | None = None,
                     regions: Regions | None = None, classification: Any = None,
                     faithfulness: Any = None,
                     labels: dict[str, Sequence[Any]] | None = None,
                     edits: Sequence[Edit] = ()) -> list[Column]:
    """:func:`exploration_columns` of a corpus with what is known of it so far (no run
    yet: no region, classification or faithfulness), and, from its annotation
    session's ``edits``, which sentences were edited or reviewed."""
    columns: list[Column] = []
    if corpus.groups is not None:
        codes = np.asarray(corpus.groups.first_group(len(corpus)) if groups is None
                           else groups)
        columns.append(Categories(corpus.groups.kind.capitalize() or "Group",
                                    tuple(corpus.groups.names), codes, none="no group"))
        sizes = np.bincount(codes[codes >= 0], minlength=len(corpus.groups.names))
        columns.append(Numbers("Group size", np.where(codes >= 0, sizes[codes], np.nan)))
    if regions is not None:
        columns.append(Categories("Region", tuple(regions.label(c) for c in
                                                    range(regions.n_clusters)),
                                    np.where(regions.labels == NOISE, -1, regions.labels),
                                    none="in no region"))
    result = classification
    if result is not None:
        codes = np.full(len(corpus), -1)
        codes[result.sentence_index] = 0
        codes[result.misclassified] = 1
        columns.append(Categories("Misclassified or not", ("right", "misclassified"),
                                    codes, ("#4a90d9", MISCLASSIFIED), "not evaluated"))
    columns.append(Numbers("Words", np.array([len(t.split()) for t in corpus.texts],
                                                dtype=np.float64)))
    faithful = faithfulness
    if faithful is not None:
        columns.append(Numbers(f"Faithfulness ({faithful.k} neighbours kept)",
                                  faithful.overlap))
    if edits:
        columns.append(review_column(corpus, edits))
    for title, values in (labels or {}).items():
        columns.append(Categories.of_values(title, values))
    return columns + pair_columns(corpus) + metadata_columns(corpus)


def review_column(corpus: Corpus, edits: Sequence[Edit]) -> Categories:
    """Each sentence edited (moved, split off, in a merged group or a re-scored pair),
    else reviewed (marked, noted, a conflict about it settled), else neither."""
    from sentspace.app.annotations.session import item_keys

    row_of = {sentence_id: row for row, sentence_id in enumerate(corpus.ids)}
    groups, pairs = corpus.groups, corpus.pairs
    codes = np.full(len(corpus), -1)
    for edit in edits:
        code = 0 if edit.changes_corpus else 1
        for key in item_keys(edit):
            kind, _, name = key.partition(":")
            if kind == "sentence" and name in row_of:
                rows = np.array([row_of[name]])
            elif kind == "pair" and pairs is not None and name.isdigit() \
                    and int(name) < len(pairs):
                rows = np.array([pairs.first[int(name)], pairs.second[int(name)]])
            elif kind == "group" and groups is not None and name in groups.names:
                rows = groups.sentence_index[groups.group_index == groups.names.index(name)]
            else:
                continue
            codes[rows] = np.where(codes[rows] == 0, 0, code)
    return Categories("Edited or reviewed", ("edited", "reviewed"), codes,
                      ("#d62728", "#2ca02c"), "neither")


def pair_columns(corpus: Corpus) -> list[Column]:
    """What a corpus's pairs say of each sentence: its number of pairs, their splits,
    subsets and labels (several joined by " + "), and their mean gold score."""
    pairs = corpus.pairs
    if pairs is None or not len(pairs):
        return []
    n = len(corpus)
    ends = np.concatenate([pairs.first, pairs.second])
    columns: list[Column] = [Numbers("Pairs", np.bincount(ends, minlength=n).astype(float))]
    labelled = [pairs.label_text(int(label)) if label >= 0 else None
                for label in pairs.label]
    for title, values in (("Split", pairs.split), ("Subset", pairs.subset),
                          ("Pair label", labelled)):
        if len({v for v in values if v is not None}) > 1:
            columns.append(Categories.of_values(title, _joined(n, ends, [*values, *values]),
                                               none="in no pair"))
    scores = np.concatenate([pairs.score, pairs.score])
    scored = np.isfinite(scores)
    if scored.any():
        total = np.bincount(ends[scored], weights=scores[scored], minlength=n)
        count = np.bincount(ends[scored], minlength=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            columns.append(Numbers("Gold score (mean of its pairs)", total / count))
    return columns


def _joined(n: int, ends: np.ndarray, values: Sequence[str | None]) -> list[str]:
    seen: list[set[str]] = [set() for _ in range(n)]
    for sentence, value in zip(ends.tolist(), values):
        if value is not None:
            seen[sentence].add(value)
    return [" + ".join(sorted(names, key=_natural)) for names in seen]


def metadata_columns(corpus: Corpus) -> list[Column]:
    """Each metadata column: numbers when every value is one, else categories when
    values repeat (at most half as many as sentences), else free text."""
    columns: list[Column] = []
    for name, values in corpus.metadata.items():
        title = name[:1].upper() + name[1:]
        numbers = _as_numbers(values)
        if numbers is not None:
            columns.append(Numbers(title, numbers))
        elif 1 < len(set(map(str, values))) <= len(corpus) // 2:
            columns.append(Categories.of_values(title, values))
        else:
            columns.append(Texts(title, tuple("" if v is None else str(v) for v in values)))
    return columns


def _as_numbers(values: Sequence[Any]) -> np.ndarray | None:
    if any(isinstance(v, bool) for v in values):   # yes/no: two categories, not 0 and 1
        return None
    try:
        numbers = np.array([np.nan if v is None or v == "" else float(v) for v in values])
    except (TypeError, ValueError):
        return None
    return numbers if np.isfinite(numbers).any() else None
