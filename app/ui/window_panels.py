"""The window's panels, docks and their layout."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QMenu,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from app.ui.compare_view import CompareView
from app.ui.corpus_browser import CorpusBrowser
from app.ui.costra_view import CostraView
from app.ui.projection_controls import ProjectionControls
from app.ui.window_helpers import (
    fill_encoder_choice,
    narrow_choice,
)
from models import DEFAULT_ENCODER


class PanelsMixin:
    """Part of :class:`app.ui.main_window.MainWindow`: the window's panels, docks and
    their layout."""

    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(title)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        return dock

    def layout_state(self) -> dict[str, QByteArray]:
        """Where the docks are and how the splitters are set."""
        return {"docks": self.saveState(), "main-split": self.main_split.saveState()}

    def set_layout_state(self, state: dict) -> None:
        if state.get("docks") is not None:
            self.restoreState(state["docks"])
        if state.get("main-split") is not None:
            self.main_split.restoreState(state["main-split"])

    def reset_layout(self) -> None:
        """The layout as first built (View > Reset layout)."""
        self.set_layout_state(self.default_layout)
        for dock in self.findChildren(QDockWidget):
            dock.show()

    @staticmethod
    def layout_settings() -> QSettings:
        from app.workspace import config_dir

        return QSettings(str(config_dir() / "layout.ini"), QSettings.Format.IniFormat)

    def restore_layout(self) -> None:
        """Bring back the layout the user left (the app calls this; tests keep the
        built one), and remember it on quit."""
        settings = self.layout_settings()
        self.set_layout_state({key: settings.value(key) for key in self.default_layout})
        self._layout_remembered = True

    def _remember_layout(self) -> None:
        if self._layout_remembered:
            settings = self.layout_settings()
            for key, value in self.layout_state().items():
                settings.setValue(key, value)
            settings.sync()

    def _build_compare_page(self) -> QWidget:
        page = QWidget()
        self.compare_choice = QComboBox()
        fill_encoder_choice(self.compare_choice)
        narrow_choice(self.compare_choice)
        self.compare_choice.setCurrentIndex(self.compare_choice.findData("tfidf"))
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip("Encode with both, project both, align the second "
                                       "layout to the first, and list the sentences whose "
                                       "neighbours changed most")
        self.compare_button.clicked.connect(self.compare_spaces)
        row = QHBoxLayout()
        row.addWidget(QLabel("Compare with"))
        row.addWidget(self.compare_choice)
        row.addWidget(self.compare_button)
        row.addStretch(1)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.compare_page, stretch=1)
        return page

    def _build_costra_view(self) -> CostraView:
        view = CostraView()
        # Seed sentences are long: the choices must not widen the window.
        narrow_choice(view.group_choice, 10)
        narrow_choice(view.type_choice, 6)
        view.sentence_selected.connect(lambda index: self._select_later(index, "costra"))
        view.sentences_selected.connect(lambda indices: self.select_items(indices, "costra"))
        view.projection.hovered.connect(self._show_hovered)
        return view

    def _build_compare_view(self) -> CompareView:
        view = CompareView()
        view.sentence_selected.connect(lambda index: self._select_later(index, "compare"))
        for side in view.views:
            side.hovered.connect(self._show_hovered)
        if self.current is not None and self.current.comparison is not None:
            view.show_comparison(self.current.comparison)
        return view

    def _build_corpus_browser(self) -> CorpusBrowser:
        browser = CorpusBrowser()
        browser.sentence_selected.connect(lambda index: self._select_later(index, "corpus"))
        if self.corpus is not None:
            browser.set_corpus(self.corpus)
        return browser

    @property
    def costra_view(self) -> CostraView:
        return self.costra_page.widget

    @property
    def compare_view(self) -> CompareView:
        return self.compare_page.widget

    @property
    def corpus_browser(self) -> CorpusBrowser:
        return self.corpus_page.widget

    def _build_corpus_panel(self) -> None:
        panel = QWidget()
        layout = QVBoxLayout(panel)
        self.corpus_name = QLabel("Loading…")
        self.corpus_name.setStyleSheet("font-weight: bold; font-size: 14px")
        self.corpus_counts = QLabel()
        self.corpus_source = QLabel()
        self.corpus_source.setWordWrap(True)
        self.corpus_source.setStyleSheet("color: #666")
        self.encoder_choice = QComboBox()
        fill_encoder_choice(self.encoder_choice)
        self.encoder_choice.setCurrentIndex(self.encoder_choice.findData(DEFAULT_ENCODER))
        self.encoder_choice.setToolTip("The sentence encoder (the papers call it a model)")
        narrow_choice(self.encoder_choice)
        # The Inspector's neighbours come from the encoder chosen.
        self.encoder_choice.currentIndexChanged.connect(lambda _: self._inspect_focus())
        self.load_embeddings_button = QPushButton("Add encoder…")
        self.load_embeddings_button.setToolTip("Embeddings computed elsewhere, your word "
                                               "vectors, or a local sentence-transformers model")
        add_menu = QMenu(self.load_embeddings_button)
        add_menu.addAction("Load embeddings… (.npy, .npz, vectors.tsv, .parquet)",
                           self._choose_embeddings)
        add_menu.addAction("Word vectors, mean… (word2vec, GloVe, fastText file)",
                           lambda: self._choose_encoder_file("path:"))
        add_menu.addAction("Word vectors, sum…", lambda: self._choose_encoder_file("path-sum:"))
        add_menu.addAction("Sentence-transformers model folder…",
                           lambda: self._choose_encoder_file("st:"))
        self.load_embeddings_button.setMenu(add_menu)
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Encode the corpus, project it with PCA and run the "
                                   "classification evaluation (Ctrl+R)")
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running job (Esc)")
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.stage = QLabel()
        self.stage.setWordWrap(True)
        self.stage.setStyleSheet("color: #444")
        self.projection_controls = ProjectionControls()
        self.projection_controls.project_requested.connect(self.project_again)
        self.projection_controls.colour_changed.connect(lambda _: self.recolour())
        form = QFormLayout()
        form.addRow("Encoder", self.encoder_choice)
        form.addRow("", self.load_embeddings_button)
        self.training_text = QComboBox()
        self.training_text.addItem("this corpus", None)
        self.training_text.addItem("a text file…", "choose")
        self.training_text.setToolTip("What encoders that are trained (Doc2Vec, Word2Vec, "
                                      "fastText, TF-IDF...) learn from: the corpus's own "
                                      "sentences, or a plain text file, one sentence a line "
                                      "(FastSent, SkipThought: in reading order, a blank "
                                      "line ending a document; DictRep: word<TAB>definition)")
        self.training_text.activated.connect(self._training_text_chosen)
        #: Sentences of each training text file read, by path.
        self.training_sets: dict[str, list[str]] = {}
        form.addRow("Train on", self.training_text)
        for widget in (self.corpus_name, self.corpus_counts, self.corpus_source):
            layout.addWidget(widget)
        layout.addSpacing(12)
        layout.addLayout(form)
        layout.addWidget(self.run_button)
        layout.addWidget(self.cancel_button)
        layout.addWidget(self.progress)
        layout.addWidget(self.stage)
        layout.addSpacing(12)
        heading = QLabel("Projection")
        heading.setStyleSheet("font-weight: bold")
        layout.addWidget(heading)
        layout.addWidget(self.projection_controls)
        layout.addStretch(1)
        panel.setMinimumWidth(240)
        self._dock("Corpus", panel, Qt.DockWidgetArea.LeftDockWidgetArea)

    def _build_metrics_panel(self) -> QWidget:
        panel = QWidget()
        layout = QVBoxLayout(panel)
        self.metrics_caption = QLabel("No result yet.")
        self.metrics_caption.setWordWrap(True)
        self.metrics = QTableWidget(0, 2)
        self.metrics.setAccessibleName("metrics")
        self.metrics.setHorizontalHeaderLabels(["Metric", "Value"])
        self.metrics.verticalHeader().setVisible(False)
        self.metrics.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.metrics.horizontalHeader().setSectionResizeMode(
            1, QHeaderView.ResizeMode.ResizeToContents)
        self.metrics.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.metrics.setToolTip("Click 'misclassified' to list those sentences")
        self.metrics.cellClicked.connect(self._metric_clicked)
        layout.addWidget(self.metrics_caption)
        layout.addWidget(self.metrics)
        return panel

    def _build_group_panel(self) -> None:
        panel = QWidget()
        layout = QVBoxLayout(panel)
        self.group_caption = QLabel("Click a point to list its paraphrase group.")
        self.group_caption.setWordWrap(True)
        self.group_list = QListWidget()
        self.group_list.setWordWrap(True)
        self.group_list.setAccessibleName("group sentences")
        # Deferred: selecting rebuilds the list, which must not delete the clicked item
        # while Qt is still delivering the click.
        self.group_list.itemClicked.connect(lambda item: self._select_later(
            item.data(Qt.ItemDataRole.UserRole)))
        self.group_alone = QCheckBox("Show this group alone")
        self.group_alone.setToolTip("Grey out every other sentence of the projection and "
                                    "draw lines from the group's sentences to its centre")
        self.group_alone.toggled.connect(lambda _: self._show_group_alone())
        self.export_selection_button = QPushButton("Export to CSV…")
        self.export_selection_button.setToolTip("The listed sentences: index, id, text, group")
        self.export_selection_button.clicked.connect(self._choose_selection_target)
        layout.addWidget(self.group_caption)
        layout.addWidget(self.group_alone)
        layout.addWidget(self.group_list)
        layout.addWidget(self.export_selection_button)
        self.group_dock = self._dock("Selected sentences", panel,
                                     Qt.DockWidgetArea.RightDockWidgetArea)
