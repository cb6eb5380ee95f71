"""Which corpus the window shows: opening one (in a job, its edit journal replayed),
switching between those open, and closing one. What the corpus shown holds is drawn by
each view and panel, which follow the session themselves."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QLineEdit

from sentspace.app.annotations.edits import EditError
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import ColumnMapping, load_corpus
from sentspace.app.corpora.model import Corpus
from sentspace.app.state.session import Session
from sentspace.app.ui.kit.file_dialogs import work_near
from sentspace.app.ui.panels.corpus_panel import CorpusPanel
from sentspace.app.ui.window.job_queue import JobQueue


class Showing:
    """Opens, switches and closes the corpora of ``session``; jobs run on ``jobs``,
    ``panel`` says a corpus is loading and keeps the settings of the one left,
    ``status`` is the status bar, ``warn(title, text)`` says what went wrong and
    ``run`` runs the corpus just opened when asked to."""

    def __init__(
        self,
        session: Session,
        jobs: JobQueue,
        panel: CorpusPanel,
        status,
        search: QLineEdit,
        warn: Callable[[str, str], None],
        run: Callable[[], None],
    ) -> None:
        self.session, self.jobs, self.panel, self.status = session, jobs, panel, status
        self.search, self.warn, self.run = search, warn, run
        #: The corpus asked for while a job ran, switched to when none runs.
        self._waiting_to_switch: str | None = None

    @property
    def spec(self) -> str:
        current = self.session.current
        return current.spec if current is not None else ""

    def open_corpus(
        self,
        spec: str | Path,
        run_when_loaded: bool = False,
        mapping: ColumnMapping | None = None,
        journal: str | None = None,
    ) -> None:
        """Load a corpus (built-in name or path; a table with ``mapping``) in the
        background, after the running job if there is one; a file that cannot be read
        leaves the current corpus in place and says why."""
        self.say_loading()

        def loaded(corpus: Corpus) -> None:
            self.set_corpus(corpus, journal, spec=str(spec))
            work_near(spec)
            if run_when_loaded:
                self.jobs.when_idle(self.run)

        self.jobs.start(
            lambda: load_corpus(spec, mapping),
            f"loading {spec}",
            on_result=loaded,
            queue=True,
            quiet=True,
        )

    def say_loading(self) -> None:
        """Name the corpus "Loading…" unless a job runs first (it still belongs there)."""
        if not self.jobs.is_running:
            self.panel.corpus_name.setText("Loading…")

    def set_corpus(
        self, corpus: Corpus, journal: str | Path | None = None, spec: str | None = None
    ) -> None:
        """Show ``corpus``, opened from ``spec`` (default: its name); its edit journal is
        replayed, so the corrections of an earlier session (even one that was killed)
        are back. The corpus shown before stays open, to switch back to; one opened
        again from the same spec is replaced."""
        spec = spec or corpus.name
        status = self.status
        twin = self.session.twin_of(corpus, journal)
        if twin is not None and twin != spec:
            # The same corpus under another name (a built-in and its folder): two
            # sessions appending to one journal would not see each other's edits.
            self._switch_to(twin)
            status.showMessage(f"{spec} is the corpus already open as {twin}")
            return
        if spec in self.session.states:
            # Opened again from the same spec: the old session lets go of its journal
            # before the new one opens it.
            self.session.close(spec)
        try:
            annotations = AnnotationSession.open(corpus, journal)
        except (EditError, OSError) as error:
            annotations = None
            self.warn("The edit journal cannot be used", str(error))
        self.remember_view()
        self.session.open(spec, corpus, annotations)
        messages = [f"{corpus.name}: {warning}" for warning in corpus.warnings]
        if annotations is not None:
            messages += annotations.warnings
            if annotations.edits:
                count = len(annotations.edits)
                messages.append(
                    f"{count} edit{'s' if count > 1 else ''} replayed from "
                    f"{annotations.journal.path}"
                )
        if messages:
            status.showMessage(" · ".join(messages))

    def switch_corpus(self, spec: str) -> None:
        """Show a corpus open in this window as it was left (projection, encoders,
        results, Costra drawing, review lists, selection); one not open is opened from
        ``spec``."""
        if spec == self.spec:
            return
        status = self.status
        if self.jobs.is_running:
            # A double-click while a job ran (one the Costra tab starts by itself, say)
            # only selected the row; it switches once the job is done, the last asked
            # for winning.
            if self._waiting_to_switch is None:
                self.jobs.when_idle(self._switch_when_idle)
            self._waiting_to_switch = spec
            status.showMessage(f"Switching to {spec} once the running job is done")
            return
        if spec not in self.session.states:
            self.open_corpus(spec)
            return
        self._switch_to(spec)
        status.showMessage(f"Switched to {self.session.current.corpus.name}")

    def _switch_when_idle(self) -> None:
        spec, self._waiting_to_switch = self._waiting_to_switch, None
        if spec is not None and spec in self.session.states:
            self.switch_corpus(spec)

    def _switch_to(self, spec: str) -> None:
        if spec != self.spec:
            self.remember_view()
            self.session.switch(spec)

    def remember_view(self) -> None:
        self.panel.remember_view(self.session.current, self.search.text())

    def close_corpus(self, spec: str) -> None:
        """Forget an open corpus: its results leave the workspace; its edit journal
        stays on disk. The one shown gives way to the first other one left, once no job
        runs (its result would belong to it); the last one open stays, and so does one
        holding edits its journal could not take yet."""
        state = self.session.states.get(spec)
        if state is not None and state.annotations is not None and state.annotations.pending:
            self.status.showMessage(
                f"{state.corpus.name} has edits not saved (the journal "
                "could not be written): Retry saving or Discard them in "
                "the Review tab first"
            )
            return
        if spec == self.spec:
            if len(self.session.states) < 2:
                self.status.showMessage("The only corpus open stays open: open another one first")
                return
            if self.jobs.is_running:
                self.status.showMessage("Close it when the running job is done (or cancel it)")
                return
        self.session.close(spec)
