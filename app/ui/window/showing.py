"""Which corpus the window shows: opening one (in a job, its edit journal replayed),
switching between those open, closing one, and showing the current corpus's state in
every view when it is switched to or when a result reaches it."""

from __future__ import annotations

from pathlib import Path

from app.annotations.edits import EditError
from app.annotations.session import AnnotationSession
from app.corpora import ColumnMapping, load_corpus
from app.corpora.model import Corpus
from app.listing import first_groups
from app.session import CorpusState


class Showing:
    """The session's corpora as ``window`` shows them."""

    def __init__(self, window) -> None:
        self.window, self.session = window, window.session
        self.session.current_changed.connect(self.show_state)
        self._subscribe()

    @property
    def spec(self) -> str:
        current = self.session.current
        return current.spec if current is not None else ""

    def open_corpus(self, spec: str | Path, run_when_loaded: bool = False,
                    mapping: ColumnMapping | None = None, journal: str | None = None
                    ) -> None:
        """Load a corpus (built-in name or path; a table with ``mapping``) in the
        background, after the running job if there is one; a file that cannot be read
        leaves the current corpus in place and says why."""
        window = self.window
        if not window.jobs.is_running:
            window.corpus_panel.corpus_name.setText("Loading…")

        def loaded(corpus: Corpus) -> None:
            self.set_corpus(corpus, journal, spec=str(spec))
            if run_when_loaded:
                window.jobs.when_idle(window.analyses.run)

        window.jobs.start(lambda: load_corpus(spec, mapping), f"loading {spec}",
                          on_result=loaded, queue=True, quiet=True)

    def set_corpus(self, corpus: Corpus, journal: str | Path | None = None,
                   spec: str | None = None) -> None:
        """Show ``corpus``, opened from ``spec`` (default: its name); its edit journal is
        replayed, so the corrections of an earlier session (even one that was killed)
        are back. The corpus shown before stays open, to switch back to; one opened
        again from the same spec is replaced."""
        spec = spec or corpus.name
        status = self.window.statusBar()
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
            self.window.warn("The edit journal cannot be used", str(error))
        self.remember_view()
        self.session.open(spec, corpus, annotations)
        messages = [f"{corpus.name}: {warning}" for warning in corpus.warnings]
        if annotations is not None:
            messages += annotations.journal.warnings
            if annotations.edits:
                count = len(annotations.edits)
                messages.append(f"{count} edit{'s' if count > 1 else ''} replayed from "
                                f"{annotations.journal.path}")
        if messages:
            status.showMessage(" · ".join(messages))

    def switch_corpus(self, spec: str) -> None:
        """Show a corpus open in this window as it was left (projection, encoders,
        results, Costra drawing, review lists, selection); one not open is opened from
        ``spec``."""
        if spec == self.spec:
            return
        status = self.window.statusBar()
        if self.window.jobs.is_running:
            status.showMessage("Switch when the running job is done (or cancel it): its "
                               "result belongs to this corpus")
            return
        if spec not in self.session.states:
            self.open_corpus(spec)
            return
        self._switch_to(spec)
        status.showMessage(f"Switched to {self.session.current.corpus.name}")

    def _switch_to(self, spec: str) -> None:
        if spec != self.spec:
            self.remember_view()
            self.session.switch(spec)

    def remember_view(self) -> None:
        self.window.corpus_panel.remember_view(self.session.current,
                                               self.window.projection.search.text())

    def close_corpus(self, spec: str) -> None:
        """Forget an open corpus: its results leave the workspace; its edit journal
        stays on disk. The one shown gives way to the first other one left, once no job
        runs (its result would belong to it); the last one open stays."""
        if spec == self.spec:
            if len(self.session.states) < 2:
                self.window.statusBar().showMessage("The only corpus open stays open: "
                                                    "open another one first")
                return
            if self.window.jobs.is_running:
                self.window.statusBar().showMessage("Close it when the running job is "
                                                    "done (or cancel it)")
                return
        self.session.close(spec)

    def show_state(self, state: CorpusState | None) -> None:
        """Show the current corpus and what was made of it in the panels this
        controller owns (the centre's tabs follow the session themselves)."""
        w = self.window
        w.statusBar().clearMessage()   # a hovered sentence of the corpus shown before
        w.corpus_panel.show_corpus(state)
        w.projection.clear("Press Run to encode, project and evaluate the corpus.")
        w.regioning.show()
        w.classification.clear()
        w.selecting.set_corpus(state.corpus if state is not None else None)
        w.inspecting.inspector.clear()
        w.review_panel.set_session(state.annotations if state is not None else None)
        w.review_panel.set_lists(state.review_lists if state is not None else {})
        self._show_evaluations(state)
        w.jobs.show_status(state.status if state is not None else "")
        if state is not None:
            w.workspace_panel.set_current_corpus(state.spec)
            w.corpus_panel.apply_view(state)
            w.selecting.show_search(state.view.get("search", ""))
            if state.exploration is not None:
                self.show_exploration(state.exploration)
        self._list_spaces(state)
        w.enable_actions(w.jobs.is_running)

    def _show_evaluations(self, state: CorpusState | None) -> None:
        w = self.window
        evaluations = state.evaluations if state is not None else []
        w.evaluation_panel.show_results(state.corpus if state is not None else None,
                                [(run.label, run.result, run.command) for run in evaluations])
        w.workspace_panel.set_results([w.evaluation_panel.describe(run.result, run.label,
                                                                   state.corpus)
                                       for run in evaluations])

    def _list_spaces(self, state: CorpusState | None) -> None:
        self.window.workspace_panel.set_encoders(
            [name for name, _, _ in state.spaces.values()] if state is not None else [])

    def _subscribe(self) -> None:
        """Draw what reaches the corpus shown; another corpus's is drawn when it is
        switched to."""
        session, w = self.session, self.window
        on = session.on_current
        session.modified.connect(lambda _: setattr(w, "unsaved", True))
        on(session.ran, self._ran)
        on(session.evaluated, lambda state, run: self._evaluated(state))
        on(session.spaces, lambda state: (self._list_spaces(state),
                                          w.inspecting.show_focus()))
        on(session.compared, lambda state: (self._list_spaces(state),
                                            w.inspecting.show_focus()))
        on(session.reviewed, self._reviewed)
        on(session.edited, self._edited)
        on(session.regions, lambda state: (w.regioning.show(), w.selecting.recolour()))
        on(session.precomputed, w.corpus_panel.offer_precomputed)
        on(session.status, lambda state: w.jobs.show_status(state.status))
        for event in (session.ran, session.evaluated, session.edited):
            on(event, lambda *_: w.enable_actions(w.jobs.is_running))

    def _ran(self, state: CorpusState) -> None:
        self.window.corpus_panel.choose(state.encoder)
        self.show_exploration(state.exploration)

    def _evaluated(self, state: CorpusState) -> None:
        self._show_evaluations(state)

    def _reviewed(self, state: CorpusState) -> None:
        w = self.window
        w.review_panel.set_lists(state.review_lists)
        w.tasks.setCurrentWidget(w.review_panel)

    def _edited(self, state: CorpusState) -> None:
        """An edit, undo or redo: the same sentences in new groups, so the embeddings
        and projection stay; colours, lists, marks and result notes follow the new
        version."""
        w = self.window
        w.selecting.sentence_groups = first_groups(state.corpus)
        w.selecting.recolour()
        self._show_evaluations(state)
        if state.exploration is not None:
            w.classification.show_exploration(state.exploration, state.corpus)
        w.inspecting.show_focus()

    def show_exploration(self, exploration) -> None:
        """Draw the shown run of the current corpus, with the selection on it."""
        w = self.window
        self._list_spaces(self.session.current)
        w.selecting.draw(exploration)
        w.regioning.show()
        w.classification.show_exploration(exploration, self.session.current.corpus)
        if exploration.classification is not None:
            w.projection.mark(exploration.classification.misclassified)
