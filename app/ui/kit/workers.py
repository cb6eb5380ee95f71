"""The only place sentspace starts threads.

Core jobs are plain generators (see :mod:`sentspace.app.base.jobs`); here they run in superqt workers
on Qt's global thread pool. Progress, results and errors come back as queued signals,
so every callback runs on the GUI thread. ``cancel`` stops a job at its next ``yield``.
"""

from __future__ import annotations

import gc
import inspect
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from superqt.utils import WorkerBase, create_worker

from sentspace.app.base.jobs import Job, Progress


def _drive(job: Job[Any]) -> Job[Any]:
    return (yield from job)


class _CollectorHold:
    """While any job runs, the objects that existed when the first one started are
    frozen out of the cyclic garbage collector. A full collection, set off by a job's
    allocations in its worker thread, would otherwise walk every object of the app
    holding the GIL (about 0.1 s in a window holding a million sentences) and stall the
    window. When the last job ends they are unfrozen, so nothing is kept for good."""

    running = 0

    @classmethod
    def job_started(cls) -> None:
        if cls.running == 0:
            gc.freeze()
        cls.running += 1

    @classmethod
    def job_ended(cls) -> None:
        cls.running -= 1
        if cls.running == 0:
            gc.unfreeze()


class JobHandle(QObject):
    """A job's worker and what the jobs panel shows of it.

    ``state`` is "queued" (until :meth:`start`) or "running", then "done", "failed" or
    "cancelled"; ``changed`` fires on every progress report and state change.
    """

    changed = Signal()

    def __init__(self, worker: WorkerBase, label: str, state: str = "running") -> None:
        super().__init__()
        self.worker = worker
        self.label = label
        self.state = state
        self.progress: Progress | None = None
        self.error: Exception | None = None
        self.started = time.monotonic()
        self.finished_at: float | None = None
        self.cancelled = False
        if hasattr(worker, "yielded"):
            worker.yielded.connect(self._on_progress)
        worker.errored.connect(self._on_error)
        # superqt types the argumentless ``finished`` as SigInst[None], as if it sent a None.
        worker.finished.connect(self._on_finished)  # type: ignore[arg-type]

    @property
    def done(self) -> bool:
        return self.state not in ("queued", "running")

    def start(self) -> None:
        """Start a queued job; its elapsed time counts from here."""
        if self.state == "queued":
            self.state = "running"
            self.started = time.monotonic()
            self.run_worker()
            self.changed.emit()

    def run_worker(self) -> None:
        _CollectorHold.job_started()
        self.worker.start()

    @property
    def elapsed(self) -> float:
        return (self.finished_at or time.monotonic()) - self.started

    def _on_progress(self, progress: Progress) -> None:
        self.progress = progress
        self.changed.emit()

    def _on_error(self, error: Exception) -> None:
        self.error = error

    def _on_finished(self) -> None:
        _CollectorHold.job_ended()
        self.finished_at = time.monotonic()
        if self.error is not None:
            self.state = "failed"
        else:
            self.state = "cancelled" if self.cancelled else "done"
        self.changed.emit()

    def cancel(self) -> None:
        """Ask the job to stop at its next progress report; ``finished`` still fires.
        A queued job is dropped at once, and none of its callbacks is called."""
        if self.state == "queued":
            self.cancelled = True
            self.state = "cancelled"
            self.finished_at = self.started = time.monotonic()
            self.changed.emit()
        elif not self.done:
            self.cancelled = True
            self.worker.quit()


def start_job(
    work: Job[Any] | Callable[[], Any],
    label: str,
    *,
    on_error: Callable[[Exception], Any],
    on_progress: Callable[[Progress], Any] | None = None,
    on_result: Callable[[Any], Any] | None = None,
    on_finished: Callable[[], Any] | None = None,
    owner: QObject | None = None,
    queued: bool = False,
) -> JobHandle:
    """Run ``work`` (a job generator, or a plain callable) in a worker thread; with
    ``queued``, only when the handle's :meth:`~JobHandle.start` is called.

    ``on_error`` receives any exception the job raises (a worker must never fail
    silently); ``on_result`` is not called for a cancelled job; ``on_finished`` always
    is, last, with the handle's final state already set. When ``owner`` (the widget the
    callbacks belong to) is destroyed first, the job is cancelled and its callbacks are
    no longer called: a closed view never receives a late result.
    """
    generator = inspect.isgenerator(work)
    # The handle connects first so its state is current when the callbacks run.
    # A generator is never callable: asking callable() tells mypy which ``work`` is.
    worker = (
        create_worker(work, _start_thread=False, _ignore_errors=True)
        if callable(work)
        else create_worker(_drive, work, _start_thread=False, _ignore_errors=True)
    )
    handle = JobHandle(worker, label, "queued" if queued else "running")
    alive = [True]
    if owner is not None:

        def orphan() -> None:
            alive[0] = False
            handle.cancel()

        owner.destroyed.connect(orphan)

    def guarded(callback: Callable[..., Any]) -> Callable[..., Any]:
        return lambda *args: callback(*args) if alive[0] else None

    worker.errored.connect(guarded(on_error))
    if on_progress is not None and generator:
        worker.yielded.connect(guarded(on_progress))
    if on_result is not None:
        worker.returned.connect(guarded(on_result))
    if on_finished is not None:
        worker.finished.connect(guarded(on_finished))
    if not queued:
        handle.run_worker()
    return handle
