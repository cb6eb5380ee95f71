"""The window's job queue: one job runs at a time, those asked for meanwhile wait
in order."""

from __future__ import annotations

from app.corpora.tabular import ColumnsUnclear
from app.errors import InputError
from app.evaluations import APPLICABLE
from app.jobs import Progress
from app.ui.workers import JobHandle, start_job


class JobsMixin:
    """Part of :class:`app.ui.main_window.MainWindow`: the job queue; one job runs at a
    time, those asked for meanwhile wait in order."""

    def _start(self, work, label: str, on_result, queue: bool = False,
               quiet: bool = False) -> JobHandle:
        """Run ``work`` now, or with ``queue`` after the jobs before it when one runs;
        a ``quiet`` one (loading) leaves nothing in the progress area when it is done."""
        waiting = queue and self.is_running
        job = start_job(work, label, on_progress=self._show_progress, on_result=on_result,
                        on_error=self._job_failed, on_finished=self._job_finished,
                        owner=self, queued=waiting)
        if quiet:
            self._quiet_jobs.add(id(job))
        self.jobs_panel.add(job)
        if waiting:
            self.queued.append(job)
            self.statusBar().showMessage(f"Queued: {label}")
        else:
            self._make_current(job)
        return job

    def _make_current(self, job: JobHandle) -> None:
        self.job = job
        self.progress.setRange(0, 0)
        self.stage.setText(job.label)
        self._set_running(True)

    def _start_next_queued(self) -> None:
        while self.queued and not self.is_running:
            job = self.queued.pop(0)
            if job.state != "queued":        # cancelled in the jobs panel
                continue
            self._make_current(job)
            job.start()

    def cancel(self) -> None:
        if self.job is not None and not self.job.done:
            self.stage.setText("Cancelling…")
            self.job.cancel()

    @property
    def is_running(self) -> bool:
        return self.job is not None and not self.job.done

    def _set_running(self, running: bool) -> None:
        idle = not running and self.corpus is not None
        # Idle, the bar would only repeat the last job's end (or say 100% of nothing).
        self.progress.setVisible(running)
        # Runs queue behind a running job, so the encoder can be changed for the next.
        self.run_button.setEnabled(self.corpus is not None)
        self.run_button.setText("Queue run" if running else "Run")
        self.run_action.setEnabled(self.corpus is not None)
        self.projection_controls.project_button.setEnabled(
            not running and self.exploration is not None)
        self.compare_button.setEnabled(idle)
        self.load_embeddings_button.setEnabled(idle)
        self.evaluation_panel.set_busy(running)
        self.suspicious_action.setEnabled(idle and self.annotations is not None)
        self.agreement_action.setEnabled(idle and APPLICABLE["classification"](self.corpus))
        for action in self.export_actions:
            action.setEnabled(not running and self.exploration is not None)
        self.cancel_button.setEnabled(running)
        self.cancel_action.setEnabled(running)

    def _show_progress(self, progress: Progress) -> None:
        self.progress.setRange(0, max(progress.total, 1))
        self.progress.setValue(progress.done)
        self.stage.setText(f"{progress.stage}: {progress.done:,} / {progress.total:,}")

    def _job_failed(self, error: Exception) -> None:
        self.corpus_name.setText(self.corpus.name if self.corpus else "No corpus")
        if isinstance(error, ColumnsUnclear):
            self.ask_columns(error)
            return
        if isinstance(error, InputError):
            self._warn("Cannot use this input", str(error))
        else:
            self._warn("The job failed", f"{type(error).__name__}: {error}")

    def _job_finished(self) -> None:
        state = self.job.state
        self.progress.setRange(0, 1)
        self.progress.setValue(1 if state == "done" else 0)
        quiet = id(self.job) in self._quiet_jobs and state == "done"
        self._quiet_jobs.discard(id(self.job))
        self.stage.setText("" if quiet else {
            "done": f"Done in {self.job.elapsed:.1f} s.", "cancelled": "Cancelled.",
            "failed": f"Failed: {self.job.error}"}[state])
        self.stage.setToolTip(self.stage.text())
        self._set_running(False)
        if self._run_when_idle:
            self._run_when_idle = False
            self.run()
        self._start_next_queued()
