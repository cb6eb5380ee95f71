"""Deciding a paper's claims on the re-run's values: each helper takes the lookup
``value(table, row, column)`` and returns (supported, the numbers that decide), with
None for supported when a value it needs was not re-run."""

from __future__ import annotations

from collections.abc import Callable, Sequence

Lookup = Callable[[str, str, str], float | None]
Decision = tuple[bool | None, str]


def _values(value: Lookup, table: str, column: str, rows: Sequence[str]
            ) -> tuple[dict[str, float], list[str]]:
    found = {row: value(table, row, column) for row in rows}
    return ({row: v for row, v in found.items() if v is not None},
            [row for row, v in found.items() if v is None])


def _shown(values: dict[str, float]) -> str:
    return ", ".join(f"{row} {v:.4g}" for row, v in values.items())


def _missing(rows: Sequence[str]) -> Decision:
    return None, f"not re-run: {', '.join(rows)} (run with --full, or see the rows' marks)"


def beats(value: Lookup, table: str, column: str, winners: Sequence[str],
          losers: Sequence[str]) -> Decision:
    """Every one of ``winners`` is above every one of ``losers`` in ``column``."""
    high, missing_high = _values(value, table, column, winners)
    low, missing_low = _values(value, table, column, losers)
    if missing_high or missing_low:
        return _missing(missing_high + missing_low)
    return min(high.values()) > max(low.values()), f"{_shown(high)} vs {_shown(low)}"


def best_of(value: Lookup, table: str, column: str, best: str, rows: Sequence[str]
            ) -> Decision:
    """``best`` has the highest value of ``rows`` that were re-run (at least two)."""
    found, missing = _values(value, table, column, rows)
    if best not in found or len(found) < 2:
        return _missing([best, *missing] if best not in found else missing)
    top = max(found, key=found.__getitem__)
    note = f" (not re-run: {', '.join(missing)})" if missing else ""
    return top == best, f"{_shown(found)}{note}"


def every_lower(value: Lookup, table: str, rows: Sequence[str], lower: str, higher: str
                ) -> Decision:
    """For every row re-run in both columns, ``lower`` < ``higher``."""
    a, _ = _values(value, table, lower, rows)
    b, _ = _values(value, table, higher, rows)
    both = [row for row in rows if row in a and row in b]
    if not both:
        return _missing(list(rows))
    return (all(a[row] < b[row] for row in both),
            "; ".join(f"{row} {a[row]:.4g} vs {b[row]:.4g}" for row in both))


def within(value: Lookup, table: str, column: str, first: str, second: str, band: float
           ) -> Decision:
    """``second`` is at most ``band`` below ``first``."""
    found, missing = _values(value, table, column, (first, second))
    if missing:
        return _missing(missing)
    gap = found[first] - found[second]
    return gap <= band, f"{_shown(found)}: gap {gap:.4f} (band {band})"


def all_below(value: Lookup, table: str, rows: Sequence[str], columns: Sequence[str],
              bound: float) -> Decision:
    """Every re-run value of ``rows`` in ``columns`` is below ``bound``."""
    found = {f"{row} {column}": v for column in columns
             for row, v in _values(value, table, column, rows)[0].items()}
    if not found:
        return _missing(list(rows))
    return all(v < bound for v in found.values()), f"{_shown(found)} (bound {bound})"
