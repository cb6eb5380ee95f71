"""The charts the Filter panel draws of each column (bars of categories, a histogram of
numbers) and the names an expression calls the columns by."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sentspace.app.analysis.columns import (
    Categories,
    Numbers,
    named_count,
)

#: Other names a column answers to in an expression, beside its own.
ALIASES = {
    "length": "Words",
    "score": "Gold score (mean of its pairs)",
    "label": "Pair label",
    "misclassified": "Misclassified or not",
}

#: Bins of a numeric histogram (an integer column: at most this many, one value wide or
#: wider).
BINS = 40


#: The bar of the categories beyond those a chart names (``columns.named_count``), as a
#: chosen name.
OTHER = "(other)"


def number_text(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"


def exact_text(value: float) -> str:
    """A number as an expression writes it back exactly (no thousands separator)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def identifier(title: str) -> str:
    """A column's name in an expression, as the web map names it ("Gold score (mean of
    its pairs)": ``gold_score_mean_of_its_pairs``)."""
    return re.sub(r"^_+|_+$", "", re.sub(r"[^a-z0-9]+", "_", title.lower())) or "column"


def column_names(titles: Sequence[str]) -> dict[str, str]:
    """The names an expression calls the columns ``titles`` by, each name's title: the
    web map's identifier, that of the title's part before " (", and :data:`ALIASES`."""
    names: dict[str, str] = {}
    for title in titles:
        for name in (identifier(title), identifier(title.split(" (")[0])):
            names.setdefault(name, title)
    for alias, title in ALIASES.items():
        if title in titles:
            names.setdefault(alias, title)
    return names


def expression_name(title: str, names: dict[str, str]) -> str:
    """The shortest of ``names`` (:func:`column_names`) for the column ``title`` (its
    identifier where another column took every name it has)."""
    return min(
        (name for name, named in names.items() if named == title),
        key=len,
        default=identifier(title),
    )


@dataclass(eq=False)
class Chart:
    """A column as drawn: each sentence's ``slot`` (bar or bin; the last: no value)
    and the ``labels`` of the slots; ``edges`` (nBins + 1) for a histogram. A category
    chart's slots are its named categories, "other" (:attr:`other_slot`) and none."""

    column: Categories | Numbers
    slot: np.ndarray
    labels: tuple[str, ...]
    edges: np.ndarray | None = None
    integer: bool = False
    #: A category chart's slot of each category code, and of "no category" last.
    bar_of: np.ndarray | None = None
    #: Sentences per slot, unfiltered (computed when first asked).
    totals: np.ndarray | None = None
    #: A chart of pairs (a pair column's own values: ``slot`` per pair): each pair's
    #: two sentences. None for a chart of sentences.
    ends: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def title(self) -> str:
        return self.column.title

    @property
    def numeric(self) -> bool:
        return isinstance(self.column, Numbers)

    @property
    def of_pairs(self) -> bool:
        return self.ends is not None

    @property
    def noun(self) -> str:
        """What its bars count."""
        return "pairs" if self.of_pairs else "sentences"

    @property
    def other_slot(self) -> int:
        """A category chart's slot of the categories beyond those it names."""
        return len(self.labels) - 2

    @property
    def informative(self) -> bool:
        """Whether drawing it says anything: sentences in two bars or more, and a
        category chart's named bars holding at least 1% of them (a column of 29,000
        values of 5 sentences does not). The corpus's groups and their sizes are always
        drawn: a user of a grouped corpus looks for them (on Multi30K's captions, ten
        groups of 5 beside "(other 28,990)", and every group of 5). Every column stays
        usable in an expression."""
        if self.column.grouping:
            return True
        filled = np.bincount(self.slot, minlength=len(self.labels))
        if np.count_nonzero(filled) < 2:
            return False
        return self.numeric or filled[: self.other_slot].sum() >= 0.01 * len(self.slot)


def make_chart(column: Categories | Numbers) -> Chart:
    """The chart of ``column``: of its pairs' own values for a pair column."""
    if column.of_pairs is not None:
        chart = make_chart(column.of_pairs.column)
        chart.ends = (column.of_pairs.first, column.of_pairs.second)
        return chart
    if isinstance(column, Numbers):
        return _histogram(column)
    codes = np.asarray(column.codes)
    # Categories come most frequent first (Categories.of_values), but groups and regions
    # are in their own order: rank them by count here.
    counts = np.bincount(codes[codes >= 0], minlength=len(column.names))
    ranked = np.argsort(-counts, kind="stable")
    top = ranked[: named_count(len(column.names))]
    # Slots in uint8: at most the palette's 18 named bars, "other" and none.
    bar_of = np.full(len(column.names) + 1, len(top), dtype=np.uint8)
    bar_of[top] = np.arange(len(top))
    bar_of[-1] = len(top) + 1  # codes of -1 read the last entry
    labels = [column.names[k] for k in top]
    others = len(column.names) - len(top)
    # An empty none bar says nothing: left out ("" slots are not drawn), as the page does.
    none = column.none if (codes < 0).any() else ""
    labels += [f"{OTHER[:-1]} {others:,})" if others else "", none]
    return Chart(column, bar_of[codes], tuple(labels), bar_of=bar_of)


def _histogram(column: Numbers) -> Chart:
    values = np.asarray(column.values, dtype=np.float64)
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 0.0)
    integer = bool(len(finite)) and bool(np.all(finite == np.round(finite)))
    if integer:
        width = max(1.0, float(np.ceil((high - low + 1) / BINS)))
        bins = int(np.ceil((high - low + 1) / width))
    else:
        bins = BINS if high > low else 1
        width = (high - low) / BINS if high > low else 1.0
    edges = low + width * np.arange(bins + 1)
    with np.errstate(invalid="ignore"):
        slot = np.minimum(np.floor((values - low) / width), bins - 1)
    slot = np.where(np.isfinite(values), slot, bins).astype(np.uint8)
    labels = tuple(number_text(e) for e in edges[:-1]) + ("no value",)
    return Chart(column, slot, labels, edges, integer)
