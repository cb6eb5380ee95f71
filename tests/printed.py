"""The CLI run in a process of its own, and numbers read back from what it prints, to
compare within a stated band.

"Same seed, same numbers" holds on one machine; another CPU's BLAS kernel may move the
last digits of an iterative fit (lbfgs, SVD, k-means), so a test compares a printed
metric as a number within a band, and counts exactly, never a metric as text.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*words: str) -> subprocess.CompletedProcess:
    """``python -m sentspace WORDS`` from the repository, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "sentspace", *words], cwd=ROOT, capture_output=True, text=True
    )


def printed_number(out: str, label: str) -> float:
    """The first number after ``label`` at the start of a printed table row."""
    found = re.search(rf"^\s*{re.escape(label)}\s+(-?\d+(?:\.\d+)?)", out, re.MULTILINE)
    assert found, f"no row {label!r} in:\n{out}"
    return float(found.group(1))
