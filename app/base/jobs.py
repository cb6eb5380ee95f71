"""Long work as plain generators.

A job is a generator that yields :class:`Progress` and returns its result. It imports no
Qt: the GUI wraps it in a worker thread (closing the generator at a ``yield`` cancels
it), the CLI drives it with :func:`run_job`. Jobs compose with ``yield from``::

    def explore(corpus, encoder):
        embeddings = yield from encode(corpus, encoder)
        ...
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


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


class ProgressPrinter:
    """One self-overwriting progress line on stderr when it is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, progress: Progress) -> None:
        if self.enabled:
            print(
                f"\r{progress.stage}: {progress.done}/{progress.total}\033[K",
                end="",
                file=sys.stderr,
                flush=True,
            )

    def clear(self) -> None:
        if self.enabled:
            print("\r\033[K", end="", file=sys.stderr, flush=True)

    def __enter__(self) -> ProgressPrinter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.clear()


def run_with_bar(job: Job[T]) -> T:
    """:func:`run_job` with a progress bar: tqdm's (a notebook's widget) when tqdm is
    installed, else :class:`ProgressPrinter`'s line on a terminal."""
    try:
        from tqdm.auto import tqdm  # noqa: PLC0415 (optional)
    except ImportError:
        with ProgressPrinter() as printer:
            return run_job(job, printer)
    with tqdm(total=1, leave=False) as bar:

        def show(step: Progress) -> None:
            bar.set_description(step.stage, refresh=False)
            bar.total, bar.n = max(step.total, 1), step.done
            bar.refresh()

        return run_job(job, show)


def synchronous(job: Callable[P, Job[T]]) -> Callable[P, T]:
    """``job``'s function run to the end in the calling thread (:func:`run_job`), named
    without its ``iter_`` prefix: ``top_k = synchronous(iter_top_k)``."""

    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_job(job(*args, **kwargs))

    run.__name__ = run.__qualname__ = job.__name__.removeprefix("iter_")
    run.__module__, run.__wrapped__ = job.__module__, job  # type: ignore[attr-defined]
    run.__doc__ = f":func:`{job.__name__}` run to the end in this thread."
    return run
