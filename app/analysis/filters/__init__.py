"""The filter every view follows: conditions on the columns of ``app/analysis/columns.py`` (a
numeric range, a set of categories) and a typed expression, combined into one pass mask.

A :class:`Filter` is plain data (saved with the workspace); a :class:`FilterTable` holds
one corpus's columns and evaluates filters on them with numpy. As in the web map
(``resources/web_map.html``), each condition keeps its own pass mask and ``fails``
counts the conditions a sentence fails, so a chart counts "all the other conditions" in
one pass: the rows failing nothing, plus those failing only its own condition.

The expression is pandas/duckdb-like (``length > 30 and split == "test"``,
``label in ["entailment", "neutral"]``, ``not 5 <= words < 10``), parsed with Python's
``ast`` into a whitelist of nodes and evaluated on whole columns; it is never ``eval``'d."""

from __future__ import annotations

import ast
import json
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.analysis.columns import TOP, Categories, Column, Numbers, sentence_columns
from sentspace.app.analysis.filters.charts import (
    ALIASES,
    BINS,
    OTHER,
    Chart,
    column_names,
    exact_text,
    expression_name,
    identifier,
    make_chart,
    number_text,
)
from sentspace.app.analysis.filters.expressions import (
    MAX_DEPTH,
    MAX_LENGTH,
    PairRows,
    condition_of,
    name_numbers,
    parse_expression,
)
from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.base.errors import InputError
from sentspace.app.base.tables import csv_text


@dataclass(frozen=True)
class Range:
    """Values from ``low`` to ``high``, both included (no value: never in)."""

    column: str
    low: float
    high: float

    def label(self) -> str:
        return f"{self.column} {number_text(self.low)}–{number_text(self.high)}"


@dataclass(frozen=True)
class Chosen:
    """Sentences whose category is one of ``names`` (:data:`OTHER`: any beyond those
    its chart names; the column's ``none``: no category)."""

    column: str
    names: tuple[str, ...]

    def label(self) -> str:
        return f"{self.column}: {', '.join(self.names)}"


#: The column name of a kept selection's condition (its chip).
KEPT = "Selection"


@dataclass(frozen=True)
class Kept:
    """The sentences named by ``ids``: a selection kept as a condition."""

    ids: tuple[str, ...]
    column: str = KEPT

    def label(self) -> str:
        return f"kept selection: {len(self.ids):,} sentences"


Condition = Range | Chosen | Kept


@dataclass(frozen=True)
class Filter:
    """One condition per column, ANDed, and an ``expression`` ("" for none)."""

    conditions: tuple[Condition, ...] = ()
    expression: str = ""

    def __bool__(self) -> bool:
        return bool(self.conditions or self.expression.strip())

    def condition(self, column: str) -> Condition | None:
        return next((c for c in self.conditions if c.column == column), None)

    def with_condition(self, condition: Condition) -> Filter:
        """This filter with ``condition`` in place of any other on its column."""
        kept = tuple(c for c in self.conditions if c.column != condition.column)
        return replace(self, conditions=(*kept, condition))

    def without(self, column: str) -> Filter:
        return replace(self, conditions=tuple(c for c in self.conditions if c.column != column))

    def with_expression(self, expression: str) -> Filter:
        return replace(self, expression=expression.strip())

    def as_expression(self, table: FilterTable) -> str:
        """This filter as one expression of ``table``'s column names, which
        ``sentspace eval --where`` takes: each range as ``low <= name <= high``, each
        choice as ``name in [...]``, and the typed expression, joined by ``and``.
        Raises InputError for a kept selection or an "(other)" bar, which name sentences
        no expression of the columns can."""
        parts = []
        for condition in self.conditions:
            if isinstance(condition, Kept):
                raise InputError(
                    "the filter keeps a selection, which names sentences by id: no "
                    "expression of the columns gives it (drop the selection's chip)"
                )
            name = expression_name(condition.column, table.names)
            if isinstance(condition, Range):
                parts.append(
                    f"{exact_text(condition.low)} <= {name} <= {exact_text(condition.high)}"
                )
            elif OTHER in condition.names:
                raise InputError(
                    f"the filter's {condition.label()!r} chooses the categories beyond the "
                    f"top {TOP}, which an expression names one by one: choose them by name"
                )
            else:
                names = ", ".join(json.dumps(n, ensure_ascii=False) for n in condition.names)
                parts.append(f"{name} in [{names}]")
        if self.expression:
            parts.append(f"({self.expression})" if parts else self.expression)
        return " and ".join(parts)

    def chips(self) -> list[tuple[str, str]]:
        """(column, or "" for the expression; its label), one per active condition."""
        chips = [(c.column, c.label()) for c in self.conditions]
        return chips + ([("", f"where {self.expression}")] if self.expression else [])

    def to_dict(self) -> dict[str, Any]:
        return {
            "ranges": [[c.column, c.low, c.high] for c in self.conditions if isinstance(c, Range)],
            "categories": [
                [c.column, list(c.names)] for c in self.conditions if isinstance(c, Chosen)
            ],
            "kept": [list(c.ids) for c in self.conditions if isinstance(c, Kept)],
            "expression": self.expression,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Filter:
        """The filter :meth:`to_dict` wrote; ValueError for anything else."""
        try:
            ranges = [
                Range(str(column), float(low), float(high))
                for column, low, high in data.get("ranges", [])
            ]
            chosen = [
                Chosen(str(column), tuple(map(str, names)))
                for column, names in data.get("categories", [])
            ]
            kept = [Kept(tuple(map(str, ids))) for ids in data.get("kept", [])[:1]]
            expression = data.get("expression", "")
            if not isinstance(expression, str):
                raise TypeError("the expression is not text")
        except (TypeError, ValueError, AttributeError) as error:
            raise ValueError(f"not a filter ({error})") from None
        return cls((*ranges, *chosen, *kept), expression)


@dataclass(eq=False)
class Evaluated:
    """A filter evaluated: ``mask`` (True: passes everything), each condition's pass
    mask by key (column title; "" the expression) and ``fails``, the number of
    conditions each sentence fails."""

    mask: np.ndarray
    passes: dict[str, np.ndarray]
    fails: np.ndarray
    #: Of a table with pair charts, each condition's pass mask of the pairs (a pair
    #: chart's condition on the pair's own value, any other at both its sentences) and
    #: the number each pair fails; a pair passes the filter when it fails none.
    pair_passes: dict[str, np.ndarray] = field(default_factory=dict)
    pair_fails: np.ndarray | None = None

    @property
    def count(self) -> int:
        return int(np.count_nonzero(self.mask))

    @property
    def pair_mask(self) -> np.ndarray | None:
        """Whether each pair passes (None: the table has no pair charts)."""
        return None if self.pair_fails is None else self.pair_fails == 0

    def pairs_without(self, key: str) -> np.ndarray:
        """The pairs passing every condition but ``key``'s (a table with pairs)."""
        assert self.pair_fails is not None
        own = self.pair_passes.get(key)
        if own is None:
            return self.pair_fails == 0
        return (self.pair_fails == 0) | ((self.pair_fails == 1) & ~own)

    def without(self, key: str) -> np.ndarray:
        """The sentences passing every condition but ``key``'s."""
        own = self.passes.get(key)
        if own is None:
            return self.mask
        return (self.fails == 0) | ((self.fails == 1) & ~own)

    def without_at(self, key: str, rows: np.ndarray) -> np.ndarray:
        """:meth:`without` at ``rows`` only."""
        fails = self.fails[rows]
        own = self.passes.get(key)
        return fails == 0 if own is None else fails == (~own[rows]).astype(np.uint8)

    def changed_since(self, earlier: Evaluated) -> np.ndarray:
        """The rows where any condition's pass differs from ``earlier``'s (a brush
        moved: the rows between its old and new edges)."""
        changed = np.zeros(len(self.fails), dtype=bool)
        for key in self.passes.keys() | earlier.passes.keys():
            now, then = self.passes.get(key), earlier.passes.get(key)
            if now is not then:  # a cached mask is the same object
                changed |= (now if now is not None else True) ^ (then if then is not None else True)
        return np.flatnonzero(changed)


@dataclass(eq=False)
class FilterTable:
    """One corpus's chartable columns, by title, and what filters make of them."""

    columns: Sequence[Column]
    #: The corpus's sentence ids, which a kept selection names.
    ids: Sequence[str] = ()
    n: int = field(init=False)
    charts: dict[str, Chart] = field(init=False)
    names: dict[str, str] = field(init=False)
    #: Pass masks of conditions evaluated before, so a brush recomputes only its own.
    _cache: dict[Any, np.ndarray] = field(init=False, default_factory=dict)
    #: Each chart's last counts and the evaluation they were counted under, so the next
    #: brush counts only the rows it changed.
    _counted: dict[str, tuple[Evaluated, np.ndarray]] = field(init=False, default_factory=dict)
    #: The rows changed between the last two evaluations counted: (earlier, later, rows).
    _changed: tuple[Evaluated, Evaluated, np.ndarray] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        charted = [c for c in self.columns if isinstance(c, (Categories, Numbers))]
        self.charts = {c.title: make_chart(c) for c in charted}
        self.n = next((len(c.slot) for c in self.charts.values() if not c.of_pairs), 0)
        #: The two sentences of each pair, where the table has a chart of pairs.
        self.pair_ends = next((c.ends for c in self.charts.values() if c.ends is not None), None)
        self.names = column_names([column.title for column in charted])

    # --- conditions ---------------------------------------------------------------

    def passes(self, condition: Condition) -> np.ndarray:
        """The pass mask of one condition (cached); of a pair chart's, the sentences
        of the pairs it keeps. Raises InputError for a column this corpus does not
        have."""
        cached = self._cache.get(condition)
        if cached is not None:
            return cached
        if isinstance(condition, Kept):
            mask = np.isin(
                np.asarray(self.ids, dtype=object), np.asarray(condition.ids, dtype=object)
            )
            self._cache[condition] = mask
            return mask
        chart = self.charts.get(condition.column)
        if chart is None:
            raise InputError(
                f"the filter names a column this corpus does not have: {condition.column!r}"
            )
        mask = self.pair_passes(condition) if chart.of_pairs else self._own(condition, chart)
        mask = self._sentences_of(mask) if chart.of_pairs else mask
        self._keep(condition, mask)
        return mask

    def _keep(self, key: Any, mask: np.ndarray) -> None:
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[key] = mask

    def pair_passes(self, condition: Condition) -> np.ndarray:
        """Which pairs pass one condition (a table with pairs): a pair chart's on the
        pair's own value, any other's where both its sentences pass it."""
        cached = self._cache.get(("pairs", condition))
        if cached is not None:
            return cached
        chart = self.charts.get(condition.column)
        if chart is not None and chart.of_pairs and not isinstance(condition, Kept):
            mask = self._own(condition, chart)
        else:
            mask = self._at_pairs(self.passes(condition))
        self._keep(("pairs", condition), mask)
        return mask

    def _at_pairs(self, mask: np.ndarray) -> np.ndarray:
        """Whether both sentences of each pair pass ``mask``."""
        assert self.pair_ends is not None
        first, second = self.pair_ends
        return mask[first] & mask[second]

    def _sentences_of(self, pair_mask: np.ndarray) -> np.ndarray:
        """The sentences of the pairs ``pair_mask`` keeps."""
        assert self.pair_ends is not None
        mask = np.zeros(self.n, dtype=bool)
        for end in self.pair_ends:
            mask[end[pair_mask]] = True
        return mask

    def _own(self, condition: Range | Chosen, chart: Chart) -> np.ndarray:
        """The pass mask of ``condition`` over ``chart``'s own rows (sentences or
        pairs)."""
        column = chart.column
        numbers = name_numbers(column) if isinstance(column, Categories) else None
        if isinstance(condition, Range) and (isinstance(column, Numbers) or numbers is not None):
            if isinstance(column, Numbers):
                values = column.values
            else:  # categories named by numbers (Costra's seed groups)
                assert numbers is not None
                values = numbers[column.codes]
            with np.errstate(invalid="ignore"):
                mask = (values >= condition.low) & (values <= condition.high)
        elif (
            isinstance(condition, Chosen)
            and isinstance(column, Categories)
            and chart.bar_of is not None
        ):
            chosen = set(condition.names)
            lut = np.zeros(len(column.names) + 1, dtype=bool)
            for code, name in enumerate(column.names):
                if name in chosen or (OTHER in chosen and chart.bar_of[code] == chart.other_slot):
                    lut[code] = True
            lut[-1] = column.none in chosen
            mask = lut[column.codes]
        else:
            raise InputError(
                f"the filter's {condition.label()!r} does not fit "
                f"{column.title}, which holds "
                f"{'numbers' if chart.numeric else 'categories'}"
            )
        return mask

    def evaluate(self, chosen: Filter) -> Evaluated:
        """Every condition's mask, and their AND. Raises InputError for a bad
        expression or a column this corpus lacks."""
        passes = {c.column: self.passes(c) for c in chosen.conditions}
        pairs = self.pair_ends is not None
        pair_passes = {c.column: self.pair_passes(c) for c in chosen.conditions} if pairs else {}
        if chosen.expression:
            key, pair_key = ("expression", chosen.expression), ("pairs", chosen.expression)
            mask, pair_mask = self._cache.get(key), self._cache.get(pair_key)
            if mask is None or (pairs and pair_mask is None):
                mask, pair_mask = self.expression_masks(chosen.expression)
                self._keep(key, mask)
                if pair_mask is not None:
                    self._keep(pair_key, pair_mask)
            passes[""] = mask
            if pair_mask is not None:
                pair_passes[""] = pair_mask
        fails = np.zeros(self.n, dtype=np.uint8)
        for mask in passes.values():
            fails += ~mask
        pair_fails = None
        if self.pair_ends is not None:
            pair_fails = np.zeros(len(self.pair_ends[0]), dtype=np.uint8)
            for mask in pair_passes.values():
                pair_fails += ~mask
        return Evaluated(fails == 0, passes, fails, pair_passes, pair_fails)

    def counts(self, evaluated: Evaluated, title: str) -> np.ndarray:
        """Chart ``title``'s count per slot among the sentences that pass every other
        condition (its own brush leaves its bars drawn, as in the web map)."""
        chart = self.charts[title]
        kept = self._counted.get(title)
        if kept is not None and kept[0] is evaluated:
            return kept[1]
        if chart.of_pairs:  # pairs under every other condition, as the pairs pass it
            counts = np.bincount(
                chart.slot[evaluated.pairs_without(title)], minlength=len(chart.labels)
            )
            if kept is not None and np.array_equal(counts, kept[1]):
                counts = kept[1]
            self._counted[title] = (evaluated, counts)
            return counts
        if kept is not None:
            rows = self._rows_changed(kept[0], evaluated)
            if len(rows) <= len(chart.slot) // 8:
                # Only the rows a brush moved across can change a count: at a million
                # rows a brush moved by a bin counts thousands, not all.
                delta = evaluated.without_at(title, rows).astype(np.int64) - kept[0].without_at(
                    title, rows
                )
                changes = np.bincount(
                    chart.slot[rows], weights=delta, minlength=len(chart.labels)
                ).astype(np.int64)
                # The same array when nothing changed: its chart is not redrawn.
                counts = kept[1] + changes if changes.any() else kept[1]
                self._counted[title] = (evaluated, counts)
                return counts
        counted = evaluated.without(title)
        # One bincount of slot * 2 + counted, odd entries kept: 8x faster at a million
        # rows than counting slot[counted], whose scattered gather dominates. The keys
        # in uint16 made in place (slots are uint8): a quarter less time than intp ones.
        keys = chart.slot.astype(np.uint16)
        keys *= 2
        keys += counted
        counts = np.bincount(keys, minlength=2 * len(chart.labels))[1::2]
        if kept is not None and np.array_equal(counts, kept[1]):
            counts = kept[1]
        self._counted[title] = (evaluated, counts)
        return counts

    def _rows_changed(self, earlier: Evaluated, later: Evaluated) -> np.ndarray:
        if self._changed is None or self._changed[:2] != (earlier, later):
            self._changed = (earlier, later, later.changed_since(earlier))
        return self._changed[2]

    def totals(self, title: str) -> np.ndarray:
        chart = self.charts[title]
        if chart.totals is None:
            chart.totals = np.bincount(chart.slot, minlength=len(chart.labels))
        return chart.totals

    # --- the expression ------------------------------------------------------------

    def expression_mask(self, source: str) -> np.ndarray:
        """The sentences ``source`` holds for. Raises InputError naming the column
        (1-based) and the problem."""
        return self.expression_masks(source)[0]

    def expression_masks(self, source: str) -> tuple[np.ndarray, np.ndarray | None]:
        """(the sentences ``source`` holds for, the pairs it holds for; None where the
        table has no pair charts). Where it names a pair column, it is read at each
        end of each pair, a pair column giving the pair's own value and the others
        the sentence's: a pair passes when it holds at both ends, a sentence when it
        holds at any of its ends (or at itself, in no pair). Else a pair passes when
        both its sentences do. Raises InputError naming the column (1-based) and the
        problem."""
        tree = parse_expression(source)
        if self.pair_ends is None or not self._names_pair_column(tree):
            mask = condition_of(tree, source, self)
            return mask, None if self.pair_ends is None else self._at_pairs(mask)
        rows = PairRows(self)
        at_rows = condition_of(tree, source, rows)
        count = len(self.pair_ends[0])
        pair_mask = at_rows[:count] & at_rows[count : 2 * count]
        mask = np.zeros(self.n, dtype=bool)
        mask[rows.sentence[at_rows]] = True
        return mask, pair_mask

    def _names_pair_column(self, tree: ast.Expression) -> bool:
        return "pairs" in self._named(tree)

    def _named(self, tree: ast.Expression) -> set[str]:
        named = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                title = self.names.get(node.id) or self.names.get(node.id.lower())
                if title is not None:
                    named.add(self.charts[title].noun)
        return named

    def columns_named(self, source: str) -> set[str]:
        """What the columns ``source`` names are of: "pairs", "sentences" or both."""
        return self._named(parse_expression(source))


_tables: weakref.WeakKeyDictionary[Any, tuple[tuple, FilterTable]] = weakref.WeakKeyDictionary()


def state_columns(state: Any) -> list[Column]:
    """The columns of an open corpus (a ``session.CorpusState``) as it is now: its
    groups as edited, what the run shown found of this version (regions,
    classification, faithfulness), what its annotation session edited or reviewed."""
    corpus, exploration = state.corpus, state.exploration
    current = exploration is not None and exploration.corpus.fingerprint == corpus.fingerprint
    regions = state.regions
    if regions is not None and len(regions.labels) != len(corpus):
        regions = None
    annotations = state.annotations
    return sentence_columns(
        corpus,
        regions=regions,
        classification=exploration.classification if current else None,
        faithfulness=exploration.faithfulness if exploration is not None else None,
        edits=annotations.edits if annotations is not None else (),
    )


_corpus_tables: weakref.WeakKeyDictionary[Any, FilterTable] = weakref.WeakKeyDictionary()


def corpus_table(corpus: Any) -> FilterTable:
    """The columns of ``corpus`` alone (:func:`sentence_columns`: its groups as they
    are, words, what its pairs say, its metadata; no run's regions, classification or
    faithfulness), kept while the corpus lives. An evaluation's ``where`` reads these,
    so ``sentspace eval --where`` computes the mask the window did."""
    table = _corpus_tables.get(corpus)
    if table is None:
        table = _corpus_tables[corpus] = FilterTable(sentence_columns(corpus), corpus.ids)
    return table


def passing(corpus: Any, expression: str) -> np.ndarray:
    """Whether each sentence of ``corpus`` passes ``expression`` on its own columns
    (:func:`corpus_table`), read-only. Raises InputError naming the column (1-based)
    and the problem of a bad expression."""
    mask = corpus_table(corpus).evaluate(Filter(expression=expression.strip())).mask
    mask.flags.writeable = False
    return mask


def pair_passing(corpus: Any, expression: str) -> np.ndarray:
    """Whether each pair of ``corpus`` passes ``expression`` (:meth:`FilterTable.
    expression_masks`: a pair column read of the pair itself, the others at both its
    sentences), read-only."""
    table = corpus_table(corpus)
    evaluated = table.evaluate(Filter(expression=expression.strip()))
    mask = evaluated.pair_mask
    if mask is None:  # pairs whose split, label and score say nothing: no pair columns
        pairs = corpus.pairs
        mask = evaluated.mask[pairs.first] & evaluated.mask[pairs.second]
    mask.flags.writeable = False
    return mask


def table_of(state: Any) -> FilterTable:
    """:func:`state_columns` as a :class:`FilterTable`, kept on ``state`` until what
    its columns read changes (an edit, a run, regions)."""
    key = (
        state.corpus.fingerprint,
        id(state.exploration),
        id(state.regions),
        len(state.annotations.edits) if state.annotations is not None else 0,
    )
    kept = _tables.get(state)
    if kept is None or kept[0] != key:
        kept = _tables[state] = (key, FilterTable(state_columns(state), state.corpus.ids))
    return kept[1]


def usable(chosen: Filter, table: FilterTable) -> Filter:
    """``chosen`` without conditions on columns ``table`` lacks (regions of an earlier
    layout), so what remains still applies."""
    kept = tuple(c for c in chosen.conditions if c.column in table.charts or isinstance(c, Kept))
    return chosen if len(kept) == len(chosen.conditions) else replace(chosen, conditions=kept)


#: Formats :func:`export_rows` writes, by file suffix.
EXPORT_FORMATS = {".csv": "CSV", ".jsonl": "JSON lines"}


def export_rows(path: str | Path, corpus: Any, columns: Sequence[Column], rows: np.ndarray) -> Path:
    """Write the sentences ``rows`` (corpus order) to ``path``: id, text and every
    column (categories by name, numbers as numbers, empty where a sentence has none),
    as CSV or JSON lines by the suffix, each column under the name an expression
    (``--where``) calls it, which the file keeps when it is opened as a corpus.
    Raises InputError for another suffix and for a file that cannot be written."""

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in EXPORT_FORMATS:
        raise InputError("name the export *.csv or *.jsonl", target)
    rows = np.asarray(rows, dtype=np.int64)
    called = column_names([column.title for column in columns])
    header = ["id", "text"]
    for column in columns:
        name = expression_name(column.title, called)
        header.append(name if name not in header else f"{name}_column")
    cells = [[corpus.ids[k] for k in rows], [corpus.texts[k] for k in rows]]
    for column in columns:
        if isinstance(column, Categories):
            names = np.array([*column.names, None], dtype=object)
            cells.append(names[np.asarray(column.codes)[rows]].tolist())
        elif isinstance(column, Numbers):
            values = np.asarray(column.values, dtype=np.float64)[rows]
            cells.append(
                [
                    None if np.isnan(v) else (int(v) if v.is_integer() else v)
                    for v in values.tolist()
                ]
            )
        else:
            cells.append([column.values[k] for k in rows])
    records = list(zip(*cells))
    if suffix == ".csv":
        text = csv_text(header, (["" if v is None else v for v in record] for record in records))
    else:
        text = "".join(
            json.dumps(dict(zip(header, record)), ensure_ascii=False) + "\n" for record in records
        )
    try:
        write_text_atomic(target, text)
    except OSError as error:
        raise InputError(f"cannot write the export: {error.strerror or error}", target) from None
    return target


__all__ = [
    "ALIASES",
    "BINS",
    "Chart",
    "Chosen",
    "Condition",
    "EXPORT_FORMATS",
    "Evaluated",
    "Filter",
    "FilterTable",
    "KEPT",
    "Kept",
    "MAX_DEPTH",
    "MAX_LENGTH",
    "OTHER",
    "Range",
    "column_names",
    "corpus_table",
    "export_rows",
    "expression_name",
    "identifier",
    "make_chart",
    "pair_passing",
    "passing",
    "state_columns",
    "table_of",
    "usable",
]
