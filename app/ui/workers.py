"""The only place sentspace starts threads.

Core jobs are plain generators (see :mod:`app.jobs`); here they run in superqt workers
on Qt's global thread pool. Progress, results and errors come back as queued signals,
so every callback runs on the GUI thread. ``cancel`` stops a job at its next ``yield``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from superqt.utils import WorkerBase, create_worker

from app.jobs import Job, Progress


def _drive(job: Job[Any]) -> Job[Any]:
    return (yield from job)


class JobHandle:
    """A running job: its worker, and whether the user cancelled it."""

    def __init__(self, worker: WorkerBase, label: str):
        self.worker = worker
        self.label = label
        self.cancelled = False
        self.done = False
        worker.finished.connect(self._on_finished)

    def _on_finished(self) -> None:
        self.done = True

    def cancel(self) -> None:
        """Ask the job to stop at its next progress report; ``finished`` still fires."""
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
) -> JobHandle:
    """Run ``work`` (a job generator, or a plain callable) in a worker thread.

    ``on_error`` receives any exception the job raises (a worker must never fail
    silently); ``on_result`` is not called for a cancelled job; ``on_finished`` always
    is, last.
    """
    connections = {"errored": on_error}
    if on_progress is not None and inspect.isgenerator(work):
        connections["yielded"] = on_progress
    if on_result is not None:
        connections["returned"] = on_result
    if inspect.isgenerator(work):
        worker = create_worker(_drive, work, _start_thread=False, _connect=connections)
    else:
        worker = create_worker(work, _start_thread=False, _connect=connections)
    handle = JobHandle(worker, label)  # connected first: `done` is set before on_finished
    if on_finished is not None:
        worker.finished.connect(on_finished)
    worker.start()
    return handle
