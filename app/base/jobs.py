"""Long work as plain generators.

A job is a generator that yields :class:`Progress` and returns its result. It imports no
Qt: the GUI wraps it in a worker thread (closing the generator at a ``yield`` cancels
it), the CLI drives it with :func:`run_job`. Jobs compose with ``yield from``::

    def explore(corpus, encoder):
        embeddings = yield from encode(corpus, encoder)
        ...
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Progress:
    """How far a job has come: ``done`` of ``total`` units of the named stage."""

    stage: str
    done: int
    total: int

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 0.0


Job = Generator[Progress, None, T]


def run_job(job: Job[T], on_progress: Callable[[Progress], Any] | None = None) -> T:
    """Drive ``job`` to completion in this thread and return its result."""
    while True:
        try:
            progress = next(job)
        except StopIteration as stop:
            return stop.value
        if on_progress is not None:
            on_progress(progress)
