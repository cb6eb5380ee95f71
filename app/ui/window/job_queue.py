"""The window's job queue: one job runs at a time, those asked for meanwhile wait in
order. It owns the progress bar and stage line, and fills the Jobs panel. How a job
ended is kept with the corpus it was asked for on (``Session.set_status``), naming the
job ("Done in 14.9 s: tfidf on msrp."), so the line under Run never speaks of another
corpus's job: it says how that corpus's last job ended, whatever its kind (a quick
Explain after a long run says it was the Explain). A job of no corpus (reproducing a
paper) leaves every corpus's line alone and says how it ended in the status bar. What
the status bar announces for jobs (``announce``) goes when the last job ends."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QProgressBar, QStatusBar

from sentspace.app.base.jobs import Progress
from sentspace.app.state.session import Session
from sentspace.app.ui.kit.widgets import ElidedLabel
from sentspace.app.ui.kit.workers import JobHandle, start_job
from sentspace.app.ui.panels.jobs_panel import JobsPanel


class JobQueue(QObject):
    """``running_changed(bool)`` after a job starts or ends; ``failed(error)`` when one
    raises (the window says why)."""

    running_changed = Signal(bool)
    failed = Signal(object)

    def __init__(self, owner: QObject, status: QStatusBar, session: Session) -> None:
        super().__init__(owner)
        self.owner, self.status, self.session = owner, status, session
        self.panel = JobsPanel()
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        # Idle, the bar would only repeat the last job's end (or say 100% of nothing).
        self.progress.setVisible(False)
        self.stage = ElidedLabel()
        self.stage.setStyleSheet("color: #444")
        self.job: JobHandle | None = None
        #: Jobs asked for while another ran, started in order as each one finishes.
        self.queued: list[JobHandle] = []
        #: Jobs (by id) whose end the progress area does not announce: loading.
        self._quiet: set[int] = set()
        #: Called once when the running job ends (a run asked for while loading).
        self._when_idle: list[Callable[[], None]] = []
        #: The spec of the corpus shown when each job (by id) was asked for; None for
        #: a job of no corpus.
        self._corpus_of: dict[int, str | None] = {}
        #: The status bar's message about the jobs running, cleared when they end.
        self._announced = ""
        session.current_changed.connect(
            lambda state: self.show_status(state.status if state is not None else "")
        )
        session.on_current(session.status, lambda state: self.show_status(state.status))

    @property
    def is_running(self) -> bool:
        return self.job is not None and not self.job.done

    def start(
        self,
        work,
        label: str,
        on_result,
        queue: bool = False,
        quiet: bool = False,
        of_corpus: bool = True,
    ) -> JobHandle:
        """Run ``work`` now, or with ``queue`` after the jobs before it when one runs;
        a ``quiet`` one (loading) leaves nothing in the progress area when it is done;
        one not ``of_corpus`` (a paper reproduced) leaves the corpus's line alone."""
        waiting = queue and self.is_running
        # Qt delivers the worker's end through the event loop, after this returns.
        started: list[JobHandle] = []
        job = start_job(
            work,
            label,
            on_progress=self._show_progress,
            on_result=on_result,
            on_error=self.failed.emit,
            on_finished=lambda: self._finished(started[0]),
            owner=self.owner,
            queued=waiting,
        )
        started.append(job)
        if quiet:
            self._quiet.add(id(job))
        current = self.session.current
        self._corpus_of[id(job)] = (
            (current.spec if current is not None else "") if of_corpus else None
        )
        self.panel.add(job)
        if waiting:
            self.queued.append(job)
            self.status.showMessage(f"Queued: {label}")
        else:
            self._make_current(job)
        return job

    def announce(self, message: str) -> None:
        """Say ``message`` in the status bar until the last job has ended."""
        self._announced = message
        self.status.showMessage(message)

    def when_idle(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the running job has ended."""
        self._when_idle.append(callback)

    def cancel(self) -> None:
        if self.is_running:
            self.stage.setText("Cancelling…")
            self.job.cancel()

    def _make_current(self, job: JobHandle) -> None:
        self.job = job
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self.stage.setText(job.label)
        self.running_changed.emit(True)

    def show_status(self, status: str) -> None:
        """The line under Run when no job runs: how the shown corpus's last job ended."""
        if not self.is_running:
            self.stage.setText(status)
            self.stage.setToolTip(status)

    def _show_progress(self, progress: Progress) -> None:
        self.progress.setRange(0, max(progress.total, 1))
        self.progress.setValue(progress.done)
        self.stage.setText(f"{progress.stage}: {progress.done:,} / {progress.total:,}")

    def _finished(self, job: JobHandle) -> None:
        state = job.state
        quiet = id(job) in self._quiet and state == "done"
        self._quiet.discard(id(job))
        ended = (
            ""
            if quiet
            else {
                "done": f"Done in {job.elapsed:.1f} s: {job.label}.",
                "cancelled": f"Cancelled: {job.label}.",
                "failed": f"Failed: {job.label}: {job.error}",
            }[state]
        )
        spec = self._corpus_of.pop(id(job), "")
        # A corpus loaded quietly leaves the corpus shown before it as it was.
        if spec in self.session.states and not quiet:
            self.session.set_status(spec, ended)
        elif spec is None:
            self.status.showMessage(ended)
        if job is not self.job:
            return  # a job started beside it is the one the progress bar follows
        self.progress.setVisible(False)
        self.show_status(self.session.current.status if self.session.current is not None else ended)
        self.running_changed.emit(False)
        callbacks, self._when_idle = self._when_idle, []
        for callback in callbacks:
            callback()
        while self.queued and not self.is_running:
            job = self.queued.pop(0)
            if job.state != "queued":  # cancelled in the jobs panel
                continue
            self._make_current(job)
            job.start()
        # The status bar says what still waits, not what has started since.
        waiting = [job.label for job in self.queued if job.state == "queued"]
        if waiting:
            self.status.showMessage(f"Queued: {', '.join(waiting)}")
        elif self.status.currentMessage().startswith("Queued: "):
            self.status.clearMessage()
        if not self.is_running and self._announced:
            # Every job has ended: what was announced for them is over.
            if self.status.currentMessage() == self._announced:
                self.status.clearMessage()
            self._announced = ""
