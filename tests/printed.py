"""Numbers read back from what the CLI prints, to compare within a stated band.

"Same seed, same numbers" holds on one machine; another CPU's BLAS kernel may move the
last digits of an iterative fit (lbfgs, SVD, k-means), so a test compares a printed
metric as a number within a band, and counts exactly, never a metric as text.
"""

from __future__ import annotations

import re


def printed_number(out: str, label: str) -> float:
    """The first number after ``label`` at the start of a printed table row."""
    found = re.search(rf"^\s*{re.escape(label)}\s+(-?\d+(?:\.\d+)?)", out, re.MULTILINE)
    assert found, f"no row {label!r} in:\n{out}"
    return float(found.group(1))
