"""Timing helper shared by the bench scripts (run as ``python bench/NAME.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(function: Callable[[], object], repeats: int = 3) -> float:
    """Best wall time of ``repeats`` calls, in seconds: the least disturbed by other load."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)
