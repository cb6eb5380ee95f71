"""The main window: corpus and encoder on the left, the views and the tasks (tables and
charts) in the middle, the selection and the Inspector on the right. It renders the
:class:`sentspace.app.state.session.Session` (the open corpora, what was made of each, and the one
selection) and only assembles: each concern is a controller built here and wired to
the others' signals.

- :class:`~sentspace.app.ui.window.job_queue.JobQueue` runs one job at a time, the rest queued;
- :class:`~sentspace.app.ui.panels.corpus_panel.CorpusPanel` chooses the encoder and what it trains on;
- :class:`~sentspace.app.ui.window.showing.Showing` opens, switches and shows corpora;
- :class:`~sentspace.app.ui.window.selecting.Selecting` shows the selection (projection, Selected
  sentences, search, colours); :class:`~sentspace.app.ui.window.inspecting.Inspecting` its focus;
- :class:`~sentspace.app.ui.window.analyses.Analyses` runs, evaluates and compares;
- :class:`~sentspace.app.ui.window.files.Files` reads and writes files and workspaces;
- :class:`~sentspace.app.ui.window.enabling.Enabling` enables what can be asked for now;
- :class:`~sentspace.app.ui.window.docking.Docks` keeps the layout; ``Explaining`` and ``Regioning``
  the Explain tab and the regions.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMainWindow, QMessageBox, QSplitter, QTabWidget

from sentspace.app.base.errors import InputError
from sentspace.app.corpora import DEFAULT_CORPUS
from sentspace.app.corpora.tabular import ColumnsUnclear
from sentspace.app.state.session import CorpusState, Session
from sentspace.app.ui.panels.classification_panel import ClassificationPanel
from sentspace.app.ui.panels.corpus_panel import CorpusPanel
from sentspace.app.ui.panels.evaluation_panel import EvaluationPanel
from sentspace.app.ui.panels.filter_panel import FilterPanel
from sentspace.app.ui.panels.review_panel import ReviewPanel
from sentspace.app.ui.panels.workspace_panel import WorkspacePanel
from sentspace.app.ui.views.projection_view import ProjectionView
from sentspace.app.ui.window.analyses import Analyses
from sentspace.app.ui.window.docking import Docks, small_screen
from sentspace.app.ui.window.enabling import Enabling
from sentspace.app.ui.window.explaining import Explaining
from sentspace.app.ui.window.files import Files
from sentspace.app.ui.window.filtering import Filtering
from sentspace.app.ui.window.following import Following
from sentspace.app.ui.window.inspecting import Inspecting
from sentspace.app.ui.window.job_queue import JobQueue
from sentspace.app.ui.window.menus import build_menus
from sentspace.app.ui.window.regioning import Regioning
from sentspace.app.ui.window.selecting import Selecting
from sentspace.app.ui.window.showing import Showing
from sentspace.app.ui.window.tabs import Views
from sentspace.app.ui.window.teamwork import Teamwork
from sentspace.models import DEFAULT_ENCODER

LEFT, RIGHT = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea


class MainWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle("sentspace")
        self.setAcceptDrops(True)
        self.resize(1400, 860)
        #: The open corpora, what was made of each, and the selection: what views show.
        self.session = Session()
        self.selection = self.session.selection
        self.jobs = JobQueue(self, self.statusBar(), self.session)
        self.corpus_panel = CorpusPanel(self.session, self.jobs, self.warn)
        self.projection = ProjectionView()
        self.selecting = Selecting(
            self.session, self.projection, self.corpus_panel.projection_controls, self.statusBar()
        )
        self.inspecting = Inspecting(self.session, self.jobs, self.corpus_panel)
        # The tasks with tables and charts share the main area with the views, in a
        # splitter the user can move.
        self.classification = ClassificationPanel()
        self.evaluation_panel = EvaluationPanel()
        self.review_panel = ReviewPanel()
        self.analyses = Analyses(
            self.session,
            self.jobs,
            self.corpus_panel,
            self.evaluation_panel,
            self.show_evaluations,
            self.statusBar(),
            self.warn,
            self,
        )
        self.showing = Showing(
            self.session,
            self.jobs,
            self.corpus_panel,
            self.statusBar(),
            self.projection.search,
            self.warn,
            self.analyses.run,
        )
        self.files = Files(
            self.session,
            self.jobs,
            self.showing,
            self.projection,
            self.statusBar().showMessage,
            self.warn,
            self,
        )
        self.teamwork = Teamwork(self.session, self.statusBar(), self.warn, self)

        self.views = Views(
            self.session, self.projection, self.selecting, self.analyses.compare_page
        )
        self.analyses.tabs = self.views
        self.neighbours_view = self.views.neighbours_view
        self.tasks = QTabWidget()
        self.tasks.setObjectName("tasks")
        self.tasks.setDocumentMode(True)
        self.explaining = Explaining(
            self.session,
            self.jobs,
            self.corpus_panel,
            self.views,
            self.tasks,
            self.projection.search,
            self,
        )
        self.regioning = Regioning(
            self.session,
            self.jobs,
            self.projection,
            self.corpus_panel.projection_controls,
            self.statusBar(),
            self,
        )
        for page, title in (
            (self.classification, "Classification"),
            (self.evaluation_panel, "Evaluations"),
            (self.review_panel, "Review"),
            (self.explaining.page, "Explain"),
        ):
            self.tasks.addTab(page, title)
        self.filter_panel = FilterPanel()
        self.tasks.setTabToolTip(
            self.tasks.addTab(self.filter_panel, "Filter"),
            "Charts of every column: brush or click them to filter "
            "the projection, the Corpus table and the neighbours",
        )
        self.filtering = Filtering(
            self.session,
            self.filter_panel,
            self.projection,
            self.views,
            self.neighbours_view,
            (self.evaluation_panel, self.classification),
        )
        self.main_split = QSplitter(Qt.Orientation.Horizontal)
        self.main_split.setObjectName("main-split")
        self.main_split.addWidget(self.views)
        self.main_split.addWidget(self.tasks)
        self.main_split.setStretchFactor(0, 3)
        self.main_split.setStretchFactor(1, 2)
        self.main_split.setChildrenCollapsible(False)
        self.setCentralWidget(self.main_split)

        self.docks = Docks(self, self.main_split)
        corpus_dock = self.docks.add("Corpus", self.corpus_panel.widget, LEFT)
        self.workspace_panel = WorkspacePanel(self.session)
        workspace_dock = self.docks.add("Workspace", self.workspace_panel, LEFT)
        self.tabifyDockWidget(workspace_dock, self.docks.add("Jobs", self.jobs.panel, LEFT))
        workspace_dock.raise_()
        self.group_dock = self.selecting.dock = self.docks.add(
            "Selected sentences", self.selecting.widget, RIGHT
        )
        inspector_dock = self.docks.add("Inspector", self.inspecting.inspector, RIGHT)
        if small_screen():
            # At 1280 px two dock columns leave the views ~420 px: one column instead.
            self.docks.one_column(
                corpus_dock,
                workspace_dock,
                {self.group_dock: "Selected", inspector_dock: "Inspector"},
                roomy=inspector_dock,
            )
            self.selecting.raised_by += ("point", "misclassified")
        else:
            self.tabifyDockWidget(self.group_dock, inspector_dock)
            self.group_dock.raise_()
            self.resizeDocks([self.group_dock], [230], Qt.Orientation.Horizontal)
        self.main_split.setSizes([640, 400])
        self.docks.built()
        self.actions = build_menus(self)
        self.enabling = Enabling(
            self.session,
            self.jobs,
            self.corpus_panel,
            self.analyses.compare_button,
            self.evaluation_panel,
            self.actions,
        )
        self.following = Following(self.session, self.statusBar().showMessage, self)
        self._wire()
        self.statusBar().showMessage("Hover a point to read its sentence.")

    def _wire(self) -> None:
        """Views tell the session; the session's events reach the views. The panels
        follow it in this order: the settings of the corpus shown are back before the
        projection is drawn with them, and the regions' labels go over the drawing."""
        session, selecting = self.session, self.selecting
        self.corpus_panel.follow(session)
        selecting.follow()
        self.regioning.follow()
        self.filtering.follow()
        for panel in (self.classification, self.evaluation_panel, self.review_panel):
            panel.follow(session)
        session.on_current(
            session.reviewed, lambda _: self.tasks.setCurrentWidget(self.review_panel)
        )
        self.enabling.follow()
        self.jobs.failed.connect(self._job_failed)
        self.views.currentChanged.connect(lambda _: self.analyses.costra_shown())
        self.classification.misclassified_clicked.connect(selecting.show_misclassified)
        self.classification.run_requested.connect(self.analyses.run_shown)
        self.classification.sentences_selected.connect(selecting.select_classified)
        self.classification.across_encoders_requested.connect(self._classification_across)
        self.evaluation_panel.run_requested.connect(
            lambda name, options: self.evaluate(name, options=options)
        )
        self.evaluation_panel.items_selected.connect(
            lambda indices: selecting.select_items(indices, "chart")
        )
        self.evaluation_panel.classified_selected.connect(selecting.select_classified)
        self.evaluation_panel.rerun_requested.connect(self.analyses.rerun)
        self.review_panel.sentences_selected.connect(
            lambda indices: selecting.select_items(indices, "review")
        )
        self.review_panel.corpus_changed.connect(
            lambda: self.session.corpus_edited(self.corpus_spec)
        )
        self.review_panel.recompute_requested.connect(self.analyses.find_suspicious)
        self.review_panel.agreement_requested.connect(self.analyses.annotator_agreement)
        self.review_panel.conflicts_requested.connect(self.teamwork.resolve_conflicts)
        self.review_panel.batches_requested.connect(
            lambda: self.teamwork.split_into_batches(self.review_panel.kind.currentData())
        )
        self.review_panel.bring_back_requested.connect(lambda: self.teamwork.bring_back())
        self.inspecting.inspector.sentence_chosen.connect(selecting.select_later)
        self.workspace_panel.corpus_chosen.connect(self.showing.switch_corpus)
        self.workspace_panel.corpus_closed.connect(self.showing.close_corpus)
        self.workspace_panel.result_chosen.connect(self._show_result)
        self.selection.changed.connect(selecting.show)
        self.selection.changed.connect(lambda _: self.inspecting.show_focus())
        self.selection.changed.connect(self.views.follow)
        # The right-hand tab each corpus was left on, kept in its view (and workspace).
        self.tasks.currentChanged.connect(
            lambda index: (
                self.current is not None
                and index >= 0
                and session.set_view(self.current.spec, "task", self.tasks.tabText(index))
            )
        )
        session.current_changed.connect(self._show_task)

    def _classification_across(self) -> None:
        """The Classification tab's result beside the other encoders' (Evaluations)."""
        record = self.current.classification if self.current is not None else None
        if record is not None:
            self.tasks.setCurrentWidget(self.evaluation_panel)
            self.evaluation_panel.show_across_encoders(record.result)

    # --- what the session holds, for the corpus shown ------------------------------

    @property
    def current(self) -> CorpusState | None:
        return self.session.current

    @property
    def unsaved(self) -> bool:
        """Whether the session changed since it was last saved or opened (Files')."""
        return self.files.unsaved

    @unsaved.setter
    def unsaved(self, value: bool) -> None:
        self.files.unsaved = value

    def _current(self, name: str, empty=None):
        return getattr(self.current, name) if self.current is not None else empty

    corpus = property(lambda self: self._current("corpus"))
    corpus_spec = property(lambda self: self._current("spec", ""))
    annotations = property(lambda self: self._current("annotations"))
    exploration = property(lambda self: self._current("exploration"))
    costra_result = property(lambda self: self._current("costra_result"))
    spaces = property(lambda self: self._current("spaces", {}))
    precomputed = property(lambda self: self._current("precomputed", {}))

    @property
    def held(self) -> dict[str, CorpusState]:
        """The open corpora not shown, by spec."""
        return {
            spec: state for spec, state in self.session.states.items() if state is not self.current
        }

    # --- what tests, scripts and the menus ask of the window -----------------------

    @property
    def is_running(self) -> bool:
        return self.jobs.is_running

    def open_corpus(self, spec: str | Path, run_when_loaded: bool = False, **options) -> None:
        self.showing.open_corpus(spec, run_when_loaded, **options)

    def run(self) -> None:
        self.analyses.run()

    def evaluate(self, name: str, show: bool = True, options: dict | None = None) -> None:
        self.analyses.evaluate(name, show, options)

    def select_sentence(self, index: int, source: str = "point") -> None:
        self.selecting.select_sentence(index, source)

    def cancel(self) -> None:
        self.jobs.cancel()

    def open_startup(
        self, corpus: str | None = None, encoder: str | None = None, run: bool = False
    ) -> None:
        """Open ``corpus`` with ``encoder`` chosen (None: the bundled defaults); with
        ``run``, start the evaluation once loaded."""
        self.corpus_panel.choose(encoder or DEFAULT_ENCODER)
        self.open_corpus(corpus or DEFAULT_CORPUS, run_when_loaded=run)

    def show_evaluations(self) -> None:
        self.tasks.setCurrentWidget(self.evaluation_panel)

    def _show_task(self, state: CorpusState | None) -> None:
        titles = [self.tasks.tabText(i) for i in range(self.tasks.count())]
        left_on = state.view.get("task") if state is not None else None
        if left_on in titles:
            self.tasks.setCurrentIndex(titles.index(left_on))

    def _show_result(self, index: int) -> None:
        self.evaluation_panel.history.setCurrentRow(index)
        self.show_evaluations()

    # --- messages -----------------------------------------------------------------

    def _job_failed(self, error: Exception) -> None:
        self.corpus_panel.corpus_name.setText(self.corpus.name if self.corpus else "No corpus")
        if isinstance(error, ColumnsUnclear):
            self.files.ask_columns(error)
        elif isinstance(error, InputError):
            self.warn("Cannot use this input", str(error))
        else:
            self.warn("The job failed", f"{type(error).__name__}: {error}")

    def warn(self, title: str, text: str) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self
        )
        box.setObjectName("error-dialog")
        box.open()

    def inform(self, title: str, html: str) -> None:
        QMessageBox(
            QMessageBox.Icon.Information, title, html, QMessageBox.StandardButton.Ok, self
        ).open()

    # --- window events ------------------------------------------------------------

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        paths = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if paths:
            self.open_corpus(paths[0])
            event.acceptProposedAction()

    def closeEvent(self, event) -> None:
        if self.files.unsaved_edits():
            # Edits their journal could not take (a full disk) live only in memory.
            event.ignore()
            self.files.offer_to_save_edits()
            return
        if self.unsaved:
            # Results not in a workspace would be lost (edits are in their journals).
            event.ignore()
            self.files.offer_to_save()
            return
        self.jobs.cancel()
        self.docks.remember()
        self.session.close_all()
        super().closeEvent(event)
