"""Timing helper shared by the bench scripts (run as ``python bench/NAME.py``)."""

from __future__ import annotations

import gc
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


def spread(function: Callable[[], object], repeats: int = 15) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of this thread for each of ``repeats`` calls: on a shared
    machine the wall times' spread is mostly other load, the CPU times' much less."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.thread_time()
        function()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.thread_time() - cpu)
    return walls, cpus


class Collections:
    """The garbage collections run while it is entered: count per generation, longest."""

    def __enter__(self) -> Collections:
        self.counts, self.longest, self._started = [0, 0, 0], 0.0, 0.0
        gc.callbacks.append(self._called)
        return self

    def __exit__(self, *_) -> None:
        gc.callbacks.remove(self._called)

    def _called(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.counts[info["generation"]] += 1
            self.longest = max(self.longest, time.perf_counter() - self._started)
