"""The main window: corpus and encoder on the left, the projection in the middle,
metrics and the selected group on the right. It renders the :class:`app.session.Session`
(the open corpora, what was made of each, and the one selection) and starts jobs whose
results it hands to the session; it computes nothing itself."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QListWidgetItem, QMainWindow, QMessageBox, QSplitter,
    QTabWidget, QTableWidgetItem,
)

from app.corpora import DEFAULT_CORPUS, ColumnMapping, load_corpus
from app.corpora.browse import match_sentences
from app.corpora.model import Corpus
from app.explore import Exploration, explore, reproject
from app.annotations.edits import EditError
from app.annotations.session import AnnotationSession
from app.evaluations import APPLICABLE, EVALUATIONS
from app.cache import EmbeddingCache
from app.ui.evaluation_panel import EvaluationPanel
from app.ui.explaining import Explaining
from app.ui.regioning import Regioning
from app.ui.inspector import Inspector
from app.ui.jobs_panel import JobsPanel
from app.ui.lazy_page import LazyPage
from app.ui.neighbours_view import NeighboursView
from app.ui.review_panel import ReviewPanel
from app.ui.colouring import categorical_columns, point_colours
from app.ui.projection_view import ProjectionView
from app.ui.workers import JobHandle
from app.ui.workspace_panel import WorkspacePanel
from models import DEFAULT_ENCODER, TRAINED_ON_FILE, make_encoder
from models.base import Embeddings, Encoder
from models.precomputed import Precomputed
from app.commands import eval_command
from app.session import (
    CorpusState, EvaluationRun, Session, encoded_space,
)
from app.ui.window_analyses import AnalysesMixin
from app.ui.window_files import FilesMixin
from app.ui.window_jobs import JobsMixin
from app.ui.window_menus import MenusMixin
from app.ui.window_panels import PanelsMixin
from app.ui.window_helpers import (
    SOURCES, first_groups,
)


class MainWindow(PanelsMixin, MenusMixin, JobsMixin, FilesMixin, AnalysesMixin,
                 QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("sentspace")
        self.setAcceptDrops(True)
        self.resize(1400, 860)
        #: The open corpora, what was made of each, and the selection: what views show.
        self.session = Session()
        self.selection = self.session.selection
        self.sentence_groups = np.empty(0, dtype=np.int64)
        self.selected_group = -1
        #: Whether the session changed since it was last saved or opened.
        self.unsaved = False
        #: Jobs (by id) whose end the progress area does not announce: loading.
        self._quiet_jobs: set[int] = set()
        self._alone_shown = False
        self.job: JobHandle | None = None
        #: Jobs asked for while another ran, started in order as each one finishes.
        self.queued: list[JobHandle] = []
        self._run_when_idle = False
        #: (corpus spec, encoder spec) being encoded for the Inspector.
        self._encoding_for_inspector: set[tuple[str, str]] = set()
        #: The job building a neighbour index for the Inspector, and for which embeddings.
        self._indexing_for_inspector: tuple[int, JobHandle] | None = None

        self.projection = ProjectionView()
        self.projection.hovered.connect(self._show_hovered)
        self.projection.clicked.connect(self.select_sentence)
        self.projection.search.textChanged.connect(self.search)
        self.projection.selected.connect(
            lambda indices: self.selection.select(indices, source="region"))
        # Hidden tabs are built when first shown (or used), not before the window shows.
        self.costra_page = LazyPage(self._build_costra_view)
        self.compare_page = LazyPage(self._build_compare_view)
        self.corpus_page = LazyPage(self._build_corpus_browser)
        self.views = QTabWidget()
        self.views.setDocumentMode(True)
        self.views.addTab(self.projection, "Projection")
        self.views.addTab(self.costra_page, "Costra orderings")
        self.views.addTab(self._build_compare_page(), "Compare encoders")
        self.views.addTab(self.corpus_page, "Corpus")
        self.neighbours_view = NeighboursView()
        self.neighbours_view.sentence_selected.connect(
            lambda index: self._select_later(index, "neighbours"))
        # Queries made in the neighbours tab ring their neighbours in the projection; a
        # click in the projection keeps ringing the clicked sentence's group there.
        self.neighbours_view.neighbours_found.connect(
            lambda found: self.projection.highlight(found)
            if self.views.currentWidget() is self.neighbours_view else None)
        self.views.addTab(self.neighbours_view, "Nearest neighbours")
        self.views.setTabToolTip(1, "Open Costra 1.1 to see the seed groups' orderings")
        self.views.currentChanged.connect(lambda _: self._costra_shown())

        # The tasks with tables and charts (evaluations, review, classification) share
        # the main area with the views, in a splitter the user can move.
        self.evaluation_panel = EvaluationPanel()
        self.evaluation_panel.run_requested.connect(
            lambda name, options: self.evaluate(name, options=options))
        self.review_panel = ReviewPanel()
        self.review_panel.sentences_selected.connect(
            lambda indices: self.select_items(indices, "review"))
        self.review_panel.corpus_changed.connect(
            lambda: self.session.corpus_edited(self.corpus_spec))
        self.review_panel.recompute_requested.connect(self.find_suspicious)
        self.tasks = QTabWidget()
        self.tasks.setObjectName("tasks")
        self.tasks.setDocumentMode(True)
        self.tasks.addTab(self._build_metrics_panel(), "Classification")
        self.tasks.addTab(self.evaluation_panel, "Evaluations")
        self.tasks.addTab(self.review_panel, "Review")
        self.explaining = Explaining(self)
        self.regioning = Regioning(self)
        self.tasks.addTab(self.explaining.page, "Explain")
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.setObjectName("main-split")
        self.main_split.addWidget(self.views)
        self.main_split.addWidget(self.tasks)
        self.main_split.setStretchFactor(0, 3)
        self.main_split.setStretchFactor(1, 2)
        self.main_split.setChildrenCollapsible(False)
        self.setCentralWidget(self.main_split)

        self._build_corpus_panel()
        self.workspace_panel = WorkspacePanel()
        self.workspace_panel.corpus_chosen.connect(self.switch_corpus)
        self.workspace_panel.corpus_closed.connect(self.close_corpus)
        workspace_dock = self._dock("Workspace", self.workspace_panel,
                                    Qt.DockWidgetArea.LeftDockWidgetArea)
        self.jobs_panel = JobsPanel()
        jobs_dock = self._dock("Jobs", self.jobs_panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(workspace_dock, jobs_dock)
        workspace_dock.raise_()
        self._build_group_panel()
        self.inspector = Inspector()
        self.inspector.sentence_chosen.connect(self._select_later)
        inspector_dock = self._dock("Inspector", self.inspector,
                                    Qt.DockWidgetArea.RightDockWidgetArea)
        self.tabifyDockWidget(self.group_dock, inspector_dock)
        self.group_dock.raise_()
        self.evaluation_panel.items_selected.connect(
            lambda indices: self.select_items(indices, "chart"))
        self.evaluation_panel.result_added.connect(self.workspace_panel.add_result)
        self.workspace_panel.result_chosen.connect(self._show_result)
        self.workspace_path: Path | None = None
        self.resizeDocks([self.group_dock], [230], Qt.Orientation.Horizontal)
        self.main_split.setSizes([560, 440])
        #: The layout as built, for View > Reset layout.
        self.default_layout = self.layout_state()
        self._layout_remembered = False
        self._build_menus()
        self.statusBar().showMessage("Hover a point to read its sentence.")
        self.session.current_changed.connect(self._show_state)
        self.session.corpus_opened.connect(lambda state: self.workspace_panel.add_corpus(
            state.spec, f"{state.corpus.name} ({len(state.corpus):,} sentences)"))
        self.session.corpus_closed.connect(self.workspace_panel.remove_corpus)
        self.session.changed.connect(self._state_changed)
        self.selection.changed.connect(self._show_selection)
        self._set_running(False)

    # --- what the session holds, for the corpus shown ------------------------------

    @property
    def current(self) -> CorpusState | None:
        return self.session.current

    @property
    def corpus(self) -> Corpus | None:
        return self.current.corpus if self.current is not None else None

    @property
    def corpus_spec(self) -> str:
        return self.current.spec if self.current is not None else ""

    @property
    def annotations(self) -> AnnotationSession | None:
        return self.current.annotations if self.current is not None else None

    @property
    def exploration(self) -> Exploration | None:
        return self.current.exploration if self.current is not None else None

    @property
    def spaces(self) -> dict[str, tuple[str, Encoder, Embeddings]]:
        return self.current.spaces if self.current is not None else {}

    @property
    def costra_result(self):
        return self.current.costra_result if self.current is not None else None

    @property
    def precomputed(self) -> dict[str, Precomputed]:
        return self.current.precomputed if self.current is not None else {}

    @property
    def held(self) -> dict[str, CorpusState]:
        """The open corpora not shown, by spec."""
        return {spec: state for spec, state in self.session.states.items()
                if state is not self.current}

    # --- construction -------------------------------------------------------------

    # --- layout -------------------------------------------------------------------

    # --- corpus -------------------------------------------------------------------

    def open_corpus(self, spec: str | Path, run_when_loaded: bool = False,
                    mapping: ColumnMapping | None = None, journal: str | None = None
                    ) -> None:
        """Load a corpus (built-in name or path; a table with ``mapping``) in the
        background, after the running job if there is one; a file that cannot be read
        leaves the current corpus in place and says why."""
        if not self.is_running:
            self.corpus_name.setText("Loading…")

        def loaded(corpus: Corpus) -> None:
            self.set_corpus(corpus, journal, spec=str(spec))
            if run_when_loaded:
                self._run_when_idle = True

        self._start(lambda: load_corpus(spec, mapping), f"loading {spec}", on_result=loaded,
                    queue=True, quiet=True)

    def set_corpus(self, corpus: Corpus, journal: str | Path | None = None,
                   spec: str | None = None) -> None:
        """Show ``corpus``, opened from ``spec`` (default: its name); its edit journal is
        replayed, so the corrections of an earlier session (even one that was killed)
        are back. The corpus shown before stays open, to switch back to; one opened
        again from the same spec is replaced."""
        spec = spec or corpus.name
        twin = self.session.twin_of(corpus, journal)
        if twin is not None and twin != spec:
            # The same corpus under another name (a built-in and its folder): two
            # sessions appending to one journal would not see each other's edits.
            self._switch_to(twin)
            self.statusBar().showMessage(f"{spec} is the corpus already open as {twin}")
            return
        if spec in self.session.states:
            # Opened again from the same spec: the old session lets go of its journal
            # before the new one opens it.
            self.session.close(spec)
        try:
            annotations = AnnotationSession.open(corpus, journal)
        except (EditError, OSError) as error:
            annotations = None
            self._warn("The edit journal cannot be used", str(error))
        self._remember_view()
        self.session.open(spec, corpus, annotations)
        messages = [f"{corpus.name}: {warning}" for warning in corpus.warnings]
        if annotations is not None:
            messages += annotations.journal.warnings
            if annotations.edits:
                messages.append(f"{len(annotations.edits)} edits replayed from "
                                f"{annotations.journal.path}")
        if messages:
            self.statusBar().showMessage(" · ".join(messages))

    def switch_corpus(self, spec: str) -> None:
        """Show a corpus open in this window as it was left (projection, encoders,
        results, Costra drawing, review lists, selection); one not open is opened from
        ``spec``."""
        if spec == self.corpus_spec:
            return
        if self.is_running:
            self.statusBar().showMessage("Switch when the running job is done (or cancel "
                                         "it): its result belongs to this corpus")
            return
        if spec not in self.session.states:
            self.open_corpus(spec)
            return
        self._switch_to(spec)
        self.statusBar().showMessage(f"Switched to {self.corpus.name}")

    def _switch_to(self, spec: str) -> None:
        if spec != self.corpus_spec:
            self._remember_view()
            self.session.switch(spec)

    def _remember_view(self) -> None:
        """Keep the shown corpus's encoder choice and view settings, to restore them
        when it is shown again."""
        state = self.current
        if state is None:
            return
        controls = self.projection_controls
        state.encoder = self.encoder_choice.currentData()
        state.view = {"method": controls.selected_method(), "seed": controls.seed.value(),
                      "parameters": controls.parameters(),
                      "colour": controls.colour_scheme(),
                      "search": self.projection.search.text()}

    def _apply_view(self, state: CorpusState) -> None:
        controls, view = self.projection_controls, state.view
        if "method" in view:
            controls.method.setCurrentIndex(max(0, controls.method.findData(view["method"])))
            controls.seed.setValue(view.get("seed", 0))
        if "colour" in view:
            controls.colour.setCurrentIndex(max(0, controls.colour.findData(view["colour"])))
        self.projection.search.blockSignals(True)
        self.projection.search.setText(view.get("search", ""))
        self.projection.search.blockSignals(False)
        index = self.encoder_choice.findData(state.encoder)
        if index >= 0:
            self.encoder_choice.setCurrentIndex(index)

    def close_corpus(self, spec: str) -> None:
        """Forget an open corpus that is not shown: its results leave the workspace;
        its edit journal stays on disk."""
        if spec != self.corpus_spec:
            self.session.close(spec)

    def _show_state(self, state: CorpusState | None) -> None:
        """Show the current corpus and everything made of it: every view switches."""
        for key in [self.encoder_choice.itemData(i) for i in range(self.encoder_choice.count())]:
            if isinstance(key, str) and key.startswith("precomputed:"):
                # Precomputed embeddings are aligned to their own corpus.
                self.encoder_choice.removeItem(self.encoder_choice.findData(key))
        self.projection.clear("Press Run to encode, project and evaluate the corpus.")
        self.regioning.show()
        self.metrics.setRowCount(0)
        self.metrics_caption.setText("No result yet.")
        self.group_list.clear()
        self.inspector.clear()
        if self.compare_page.is_built:
            self.compare_view.clear()
        if state is None:
            self.corpus_name.setText("No corpus")
            self.evaluation_panel.set_corpus(None)
            self.evaluation_panel.set_results([])
            self.review_panel.set_session(None)
            self.review_panel.set_lists({})
            self.workspace_panel.set_encoders([])
            self.workspace_panel.set_results([])
            self._set_running(self.is_running)
            return
        corpus = state.corpus
        self.review_panel.set_session(state.annotations)
        self.review_panel.set_lists(state.review_lists)
        self.sentence_groups = first_groups(corpus)
        self.corpus_name.setText(corpus.name)
        counts = f"{len(corpus):,} sentences"
        if corpus.groups is not None:
            counts += f"\n{corpus.groups.n_groups:,} {corpus.groups.kind}s"
        if corpus.pairs is not None:
            counts += f"\n{len(corpus.pairs):,} sentence pairs"
        self.corpus_counts.setText(counts)
        self.corpus_source.setText(Path(corpus.sources[0]).parent.as_posix()
                                   if corpus.sources else "")
        self.corpus_source.setToolTip("\n".join(corpus.sources))
        self.views.setTabEnabled(1, APPLICABLE["costra"](corpus))
        self.projection_controls.set_metadata_columns(categorical_columns(corpus))
        self.evaluation_panel.set_corpus(corpus)
        self.evaluation_panel.set_results([(run.label, run.result, run.command)
                                           for run in state.evaluations])
        self.workspace_panel.set_results([self.evaluation_panel.describe(run.result, run.label)
                                          for run in state.evaluations])
        if self.corpus_page.is_built:
            self.corpus_browser.set_corpus(corpus)
        self.workspace_panel.set_current_corpus(state.spec)
        for key, encoder in state.precomputed.items():
            self._offer_precomputed(key, encoder)
        self._apply_view(state)
        self.workspace_panel.set_encoders([name for name, _, _ in state.spaces.values()])
        self.neighbours_view.set_spaces(corpus, list(state.spaces.values()))
        if state.exploration is not None:
            self.show_exploration(state.exploration)
        if state.comparison is not None and self.compare_page.is_built:
            self.compare_view.show_comparison(state.comparison)
        self._set_running(self.is_running)

    def _state_changed(self, state: CorpusState, what: str) -> None:
        """A result reached ``state``'s corpus: drawn now when it is the one shown (else
        when it is switched to)."""
        if what != "precomputed":
            self.unsaved = True
        if state is not self.current:
            return
        if what == "run":
            index = self.encoder_choice.findData(state.encoder)
            if index >= 0:
                self.encoder_choice.setCurrentIndex(index)
            self.show_exploration(state.exploration)
        elif what == "evaluation":
            run = state.evaluations[-1]
            self.evaluation_panel.add_result(run.label, run.result, run.command)
            if run.result is state.costra_result:
                self._show_costra()
        elif what == "spaces":
            self.neighbours_view.set_spaces(state.corpus, list(state.spaces.values()))
            self.workspace_panel.set_encoders([name for name, _, _ in state.spaces.values()])
            self._inspect_focus()
        elif what == "comparison":
            self.compare_view.show_comparison(state.comparison)
            self.neighbours_view.set_spaces(state.corpus, list(state.spaces.values()))
            self.workspace_panel.set_encoders([name for name, _, _ in state.spaces.values()])
        elif what == "review":
            self.review_panel.set_lists(state.review_lists)
            self.tasks.setCurrentWidget(self.review_panel)
        elif what == "corpus":
            self._annotations_changed()
        elif what == "regions":
            self.regioning.show()
            self.recolour()
        elif what == "precomputed":
            for key, encoder in state.precomputed.items():
                self._offer_precomputed(key, encoder)
        self._set_running(self.is_running)

    # --- embeddings in and out ---------------------------------------------------

    # --- jobs ---------------------------------------------------------------------

    def run(self) -> None:
        """Encode, project and evaluate the current corpus with the chosen encoder; asked
        for while a job runs, after it (so several encoders can be lined up)."""
        if self.corpus is None:
            return
        self._choose_file_trained_encoder()
        key, encoder = self.chosen_encoder()
        corpus_spec = self.corpus_spec
        controls = self.projection_controls
        training = self.training_text.currentData()
        job = explore(self.corpus, encoder, method=controls.selected_method(),
                      seed=controls.seed.value(), projection_parameters=controls.parameters(),
                      training_texts=self.training_sets.get(training))
        # The session routes the result to the corpus it was run on, shown or not (a
        # queued run may finish after another corpus was opened).
        self._start(job, f"{encoder.name} on {self.corpus.name}",
                    on_result=lambda exploration: self.session.add_run(
                        corpus_spec, key, exploration, training), queue=True)

    def _show_result(self, index: int) -> None:
        self.evaluation_panel.history.setCurrentRow(index)
        self._show_evaluations()

    def _show_evaluations(self) -> None:
        self.tasks.setCurrentWidget(self.evaluation_panel)

    def clear_embedding_cache(self) -> int:
        freed = EmbeddingCache().clear()
        self.statusBar().showMessage(f"Cleared the embedding cache ({freed / 2**20:.1f} MiB)")
        return freed

    def _choose_file_trained_encoder(self) -> None:
        """A PyTorch family chosen with a *Train on* file becomes ``family:file`` (its own
        entry), so evaluations train on that file too and their command says so."""
        family, training = self.encoder_choice.currentData(), self.training_text.currentData()
        if family in TRAINED_ON_FILE and training not in (None, "choose"):
            self.add_encoder(f"{family}:{training}")

    def chosen_encoder(self):
        choice = self.encoder_choice.currentData()
        return choice, self.precomputed.get(choice) or make_encoder(choice)

    def evaluate(self, name: str, show: bool = True,
                 options: dict[str, str] | None = None) -> None:
        """Run evaluation ``name`` on the corpus with the chosen encoder and ``options``
        (``app.evaluations.OPTIONS``), in the background; asked for while another job
        runs, it is queued after it. With ``show``, the Evaluations tab comes forward."""
        if self.corpus is None:
            return
        self._choose_file_trained_encoder()
        spec, encoder = self.chosen_encoder()
        seed = self.projection_controls.seed.value()
        corpus_spec = self.corpus_spec
        options = dict(options or {})
        command = eval_command(name, corpus_spec, [spec], seed, options)
        run, _ = EVALUATIONS[name]
        if show:
            self._show_evaluations()
        self._start(run(self.corpus, encoder, seed=seed, **options), f"{name}: {encoder.name}",
                    on_result=lambda result: self.session.add_evaluation(
                        corpus_spec, EvaluationRun(name, spec, seed, result, command,
                                                   options=options)),
                    queue=True)

    def project_again(self) -> None:
        """Recompute only the projection of the current embeddings."""
        if self.exploration is None or self.is_running:
            return
        controls = self.projection_controls
        state = self.current
        job = reproject(state.exploration, controls.selected_method(),
                        seed=controls.seed.value(), **controls.parameters())
        shown, training = state.shown, state.runs[state.shown].training_text
        self._start(job, f"projecting with {controls.method.currentText()}",
                    on_result=lambda exploration: self.session.add_run(
                        state.spec, shown, exploration, training))

    # --- results ------------------------------------------------------------------

    def show_exploration(self, exploration: Exploration) -> None:
        """Draw the shown run of the current corpus, with the selection on it."""
        # Side by side in the neighbours view: every encoder explored on this corpus.
        self.neighbours_view.set_spaces(self.corpus, list(self.spaces.values()))
        self.workspace_panel.set_encoders([name for name, _, _ in self.spaces.values()])
        colours, legend = self._colouring()
        self._alone_shown = False
        self.projection.set_points(exploration.projection.coordinates, colours,
                                   self.describe_sentence,
                                   exploration.projection.axis_labels, legend)
        self.projection.show_found(self._found(self.projection.search.text()))
        self.regioning.show()
        self._draw_selection()
        self._show_costra()
        result = exploration.classification
        if result is None:
            self.metrics.setRowCount(0)
            self.metrics_caption.setText(" ".join(exploration.notes) or "No evaluation.")
            return
        self.projection.mark(result.misclassified)
        params = result.provenance.parameters
        self.metrics_caption.setText(
            f"<b>{result.provenance.encoder_name}</b> on <b>{result.provenance.corpus_name}</b>"
            f": linear SVM, {params['n_folds']}-fold stratified CV, seed {params['seed']}, "
            f"{len(result.sentence_index):,} sentences in {result.n_groups:,} groups.")
        rows = result.summary()
        self.metrics.setRowCount(len(rows))
        for row, (label, value) in enumerate(rows):
            self.metrics.setItem(row, 0, QTableWidgetItem(label))
            item = QTableWidgetItem(value)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if label == "mean accuracy":
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.metrics.setItem(row, 1, item)

    def _colouring(self) -> tuple[np.ndarray, str]:
        """Point colours for the chosen scheme, and the legend that explains them."""
        return point_colours(self.exploration, self.projection_controls.colour_scheme(),
                             self.sentence_groups, self.current.regions)

    def recolour(self) -> None:
        if self.exploration is not None:
            self.projection.set_colours(*self._colouring())
            self._alone_shown = False
            self._show_group_alone()

    def _show_group_alone(self) -> None:
        """With "group alone" on, grey out all but the selected group and draw its
        members' lines to their centroid; otherwise the normal colours."""
        if self.exploration is None:
            return
        group = self.selected_group if self.group_alone.isChecked() else -1
        members = (self.corpus.groups.members(group) if group >= 0
                   else np.empty(0, dtype=np.int64))
        if not len(members) and not self._alone_shown:
            return  # the normal colours are on show: a click need not repaint every point
        self._alone_shown = bool(len(members))
        colours, legend = self._colouring()
        if len(members):
            alone = np.full(len(colours), "#e4e4e4", dtype=object)
            alone[members] = colours[members]
            colours, legend = alone, legend + " Other sentences greyed out."
        self.projection.set_colours(colours, legend)
        self.projection.show_spokes(members)

    def search(self, pattern: str) -> np.ndarray:
        """Select the sentences matching ``pattern`` (a case-insensitive regular
        expression) and mark them in the projection; returns their indices."""
        found = self._found(pattern)
        if self.exploration is not None:
            self.projection.show_found(found)
        if len(found) or self.selection.source == "search":
            self.selection.select(found, source="search")
        return found

    def _found(self, pattern: str) -> np.ndarray:
        """The sentences matching ``pattern``, said beside the search box."""
        box, result = self.projection.search, self.projection.search_result
        found = np.empty(0, dtype=np.int64)
        box.setStyleSheet("")
        result.clear()
        if pattern and self.corpus is not None:
            try:
                expression = re.compile(pattern, re.IGNORECASE)
            except re.error as error:
                box.setStyleSheet("border: 1px solid #d00000")
                result.setText(f"invalid: {error.msg}")
            else:
                found = np.flatnonzero(match_sentences(self.corpus.texts, expression))
                result.setText(f"{len(found):,} of {len(self.corpus):,}")
        return found

    def _show_selection(self, selection) -> None:
        """Every view shows the one selection: the projection rings it, Selected
        sentences lists it (a clicked point: its group), the Inspector shows its focus
        with its neighbours, the corpus table, Compare and the neighbours tab follow."""
        focus, indices = selection.focus, selection.indices
        self._draw_selection()
        if self.compare_page.is_built:
            self.compare_view.show_selected(focus)
        self._inspect_focus()
        if focus >= 0 and self.corpus is not None:
            if self.corpus_page.is_built:
                self.corpus_browser.select(focus)
            if self.spaces and selection.source != "neighbours":
                self.neighbours_view.query_sentence(focus)
        self.group_list.clear()
        self.selected_group = -1
        if selection.source == "point" and self.group_of(focus) >= 0:
            self._list_group(focus)
        elif selection.source == "misclassified":
            self._list_misclassified()
        elif len(indices):
            self.group_caption.setText(
                f"{len(indices):,} selected sentence{'s' if len(indices) != 1 else ''} "
                f"({SOURCES.get(selection.source, '')}"
                "Shift+drag: rectangle, Ctrl+drag: lasso; click one to see its group)")
            for sentence in indices[:5000]:  # a list of more would only be scrolled past
                item = QListWidgetItem(self.describe_sentence(int(sentence)))
                item.setData(Qt.ItemDataRole.UserRole, int(sentence))
                self.group_list.addItem(item)
            if selection.source in ("region", "chart", "costra", "search", "review", "cluster"):
                self.group_dock.raise_()
        else:
            self.group_caption.setText("Click a point to list its paraphrase group.")
        self._show_group_alone()

    def _inspect_focus(self) -> None:
        """The Inspector shows the focus sentence, its neighbours from the current
        encoder's run."""
        focus = self.selection.focus
        if focus < 0 or self.corpus is None:
            self.inspector.clear()
            return
        embeddings = self._inspected_embeddings()
        self.inspector.show_sentence(self.corpus, focus, self.sentence_groups, embeddings)
        if embeddings is None:
            self._encode_for_inspector()
        elif not self.inspector.searchable(embeddings):
            self._index_for_inspector(embeddings)

    def _index_for_inspector(self, embeddings) -> None:
        """A space above app.ann.EXACT_LIMIT: its neighbour index is built by a job,
        then the Inspector shows the focus's neighbours."""
        building = self._indexing_for_inspector
        if building is not None and building[0] == id(embeddings) and not building[1].done:
            return

        def indexed(space) -> None:
            self.inspector.mark_indexed(space)
            self._inspect_focus()

        # A cancelled or failed build is started again by the next click.
        self._indexing_for_inspector = (id(embeddings), self._start(
            self.inspector.index_job(embeddings), "building the neighbour index for the "
            "Inspector", on_result=indexed, queue=True, quiet=True))

    def _encode_for_inspector(self) -> None:
        """A corpus not run yet: its neighbours come from the chosen encoder, encoded
        (through the cache) by a job."""
        spec, encoder = self.chosen_encoder()
        key = (self.corpus_spec, spec)
        self.inspector.note.setText(f"Encoding the corpus with {encoder.name} for the "
                                    "neighbours… (Run also projects and evaluates it)")
        if key in self._encoding_for_inspector:
            return
        self._encoding_for_inspector.add(key)

        def encoded(space) -> None:
            self._encoding_for_inspector.discard(key)
            self.session.add_space(key[0], spec, space)

        self._start(encoded_space(self.corpus, encoder), f"encoding for the Inspector: "
                    f"{encoder.name}", on_result=encoded, queue=True)

    def _draw_selection(self) -> None:
        if self.exploration is not None:
            self.projection.highlight(self.selection.indices)

    def _inspected_embeddings(self):
        """The embeddings the Inspector's neighbours come from: the current encoder's
        space on this corpus (a run's or Compare's), else the run shown."""
        spaces, state = self.spaces, self.current
        space = spaces.get(self.encoder_choice.currentData()) or spaces.get(state.shown)
        return space[2] if space is not None else None

    def listed_sentences(self) -> list[int]:
        """Sentences in the selected-sentences list, in its order."""
        return [self.group_list.item(i).data(Qt.ItemDataRole.UserRole)
                for i in range(self.group_list.count())]

    def _metric_clicked(self, row: int, _column: int) -> None:
        if self.metrics.item(row, 0).text() == "misclassified":
            self.show_misclassified()

    def show_misclassified(self) -> None:
        """Select the misclassified sentences; they are listed with their true and
        predicted groups."""
        result = self.exploration.classification
        self.selection.select(result.misclassified, focus=-1, source="misclassified")

    def _list_misclassified(self) -> None:
        result = self.exploration.classification
        corpus = self.exploration.corpus
        wrong = result.predicted_group != result.true_group
        self.group_caption.setText(f"{int(wrong.sum())} misclassified sentences "
                                   "(click one to see its group)")
        for sentence, true, guess in zip(result.sentence_index[wrong],
                                         result.true_group[wrong],
                                         result.predicted_group[wrong]):
            item = QListWidgetItem(f"✗ {corpus.texts[sentence]}\n    (group "
                                   f"{result.group_names[true]}, classified as "
                                   f"{result.group_names[guess]})")
            item.setData(Qt.ItemDataRole.UserRole, int(sentence))
            self.group_list.addItem(item)

    def group_of(self, index: int) -> int:
        """The (first) group of sentence ``index``, -1 for none or no selection."""
        return int(self.sentence_groups[index]) if index >= 0 else -1

    def describe_sentence(self, index: int) -> str:
        corpus = self.corpus
        group = self.group_of(index)
        where = (f"{corpus.groups.kind} {corpus.groups.names[group]}" if group >= 0
                 else "no group")
        faithful = self.exploration.faithfulness if self.exploration else None
        if faithful is not None:
            overlap = faithful.overlap[index]
            where += (", faithfulness not measured" if np.isnan(overlap)
                      else f", faithfulness {overlap:.1f}")
        return f"{corpus.texts[index]}\n[{corpus.ids[index]}, {where}]"

    def _show_hovered(self, index: int) -> None:
        if index >= 0:
            self.statusBar().showMessage(self.describe_sentence(index).replace("\n", "  "))
        else:
            self.statusBar().clearMessage()

    def _select_later(self, index: int, source: str = "point") -> None:
        # Deferred: selecting rebuilds lists, which must not delete the clicked item
        # while Qt is still delivering the click.
        QTimer.singleShot(0, lambda: self.select_sentence(index, source))

    def select_sentence(self, index: int, source: str = "point") -> None:
        """Select sentence ``index`` (-1: nothing); clicked in the projection or the
        Selected sentences list, with its group."""
        if index < 0:
            self.selection.clear()
            return
        group = self.group_of(index)
        members = (self.corpus.groups.members(group) if source == "point" and group >= 0
                   else [index])
        self.selection.select(members, focus=index, source=source)

    def _list_group(self, index: int) -> None:
        """List the group of sentence ``index``, with how each member was classified."""
        corpus = self.corpus
        group = self.group_of(index)
        members = corpus.groups.members(group)
        self.selected_group = group
        result = self.exploration.classification if self.exploration else None
        predicted = {}
        if result is not None:
            predicted = dict(zip(result.sentence_index.tolist(),
                                 result.predicted_group.tolist()))
        self.group_caption.setText(
            f"{corpus.groups.kind.capitalize()} {corpus.groups.names[group]}: "
            f"{len(members)} sentences")
        for member in members:
            text = corpus.texts[member]
            if member in predicted:
                guess = predicted[member]
                if corpus.groups.names[guess] == corpus.groups.names[group]:
                    text = "✓ " + text
                else:
                    text = f"✗ {text}\n    (classified as group {corpus.groups.names[guess]})"
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, int(member))
            if member == index:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.group_list.addItem(item)

    # --- selection shared by the panels ---------------------------------------------

    def select_items(self, indices: list[int], source: str = "chart") -> None:
        """Select the sentences behind a clicked number, chart element, review row or
        Costra comparison; the first is the focus."""
        if len(indices):
            self.selection.select(indices, source=source)

    # --- comparing encoders -------------------------------------------------------

    # --- annotations --------------------------------------------------------------

    # --- workspaces ---------------------------------------------------------------

    # --- messages -----------------------------------------------------------------

    def _warn(self, title: str, text: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok,
                          self)
        box.setObjectName("error-dialog")
        box.open()

    def _inform(self, title: str, html: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, title, html,
                          QMessageBox.StandardButton.Ok, self)
        box.open()

    def open_startup(self, corpus: str | None = None, encoder: str | None = None,
                     run: bool = False) -> None:
        """Open ``corpus`` with ``encoder`` chosen (None: the bundled defaults); with
        ``run``, start the evaluation once loaded."""
        self.encoder_choice.setCurrentIndex(
            self.encoder_choice.findData(encoder or DEFAULT_ENCODER))
        self.open_corpus(corpus or DEFAULT_CORPUS, run_when_loaded=run)

