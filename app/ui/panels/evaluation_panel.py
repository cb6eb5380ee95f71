"""Run any evaluation on the current corpus and encoder; read its numbers.

The table shows exactly the rows ``sentspace eval`` prints (``result.summary()``), so a
number seen here can be reproduced from a shell with the command shown under it. Under
it, the result's chart (``sentspace.app.ui.charts.chart_for``) and, for metrics with confidence
intervals, bars across the encoders evaluated the same way on the same corpus, with the
MTEB scores imported on the corpus (``sentspace.app.analysis.mteb_results``) of the same pairs
beside them. Clicking a chart element emits ``items_selected`` with the sentences behind
it.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.evaluations import EVALUATIONS, OPTIONS, applicable_evaluations
from sentspace.app.analysis.evaluations.classification import ClassificationResult
from sentspace.app.analysis.evaluations.passing import FILTERABLE
from sentspace.app.analysis.filters import table_of, usable
from sentspace.app.analysis.mteb_results import arrange
from sentspace.app.analysis.results import SCORE_COLUMNS
from sentspace.app.base.commands import comparison_command
from sentspace.app.base.errors import InputError
from sentspace.app.base.tables import write_csv, write_json
from sentspace.app.corpora.model import Corpus
from sentspace.app.state.session import CorpusState, Session, describe_result, version_note
from sentspace.app.ui.charts import ResultChart, chart_for, comparison_chart
from sentspace.app.ui.charts.base import FollowsFilter
from sentspace.app.ui.charts.figures import save_chart, save_chart_or_say
from sentspace.app.ui.kit.file_dialogs import (
    RESULTS,
    open_file,
    open_folder,
    save_file,
    say_written,
)
from sentspace.app.ui.kit.widgets import ElidedLabel
from sentspace.app.ui.panels.paired_tests_view import PairedTestsView
from sentspace.app.workspace.model import SavedResult

#: Rows of the metrics table kept in view (at most) when a chart shares the panel.
TABLE_ROWS = 8


def _discard(chart: QWidget | None) -> None:
    """Take a chart out of view now; Qt deletes it once its events are handled."""
    if chart is not None:
        chart.hide()
        chart.setParent(None)
        chart.deleteLater()


class EvaluationPanel(FollowsFilter, QWidget):
    """Choose an evaluation, run it, and browse the results of this session.

    Signals
    -------
    run_requested(str, dict) : the user asked to run the named evaluation with these
        options (keyword: value, ``sentspace.app.analysis.evaluations.OPTIONS``, and ``where``:
        the corpus's filter as an expression, when only what passes it is wanted).
    items_selected(list) : sentence indices (into the current corpus) behind a clicked
        chart element; a pair stands for both its sentences.
    import_requested(str) : read the MTEB result file or results folder at this path
        and keep its scores with the corpus shown.
    """

    run_requested = Signal(str, dict)
    items_selected = Signal(list)
    #: The sentences of a bar of a classification's chart, and that result: listed
    #: with its marks (✓ classified into their group, ✗ not).
    classified_selected = Signal(list, object)
    import_requested = Signal(str)
    #: The result shown was computed before edits: run it again (its row).
    rerun_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.choice = QComboBox()
        self.choice.setToolTip("Evaluations this corpus has the structure for")
        self.run_button = QPushButton("Evaluate")
        self.run_button.setToolTip(
            "Run the chosen evaluation with the chosen encoder (after the running job, if one runs)"
        )
        self.run_button.clicked.connect(
            lambda: self.run_requested.emit(self.choice.currentData(), self.option_values())
        )
        #: Evaluate only the items whose sentences pass the corpus's filter, written
        #: as the expression ``--where`` takes (``filter_expression``; "" for none).
        self.only_passing = QCheckBox("Only passing the filter")
        self.filter_expression = ""
        #: Why it is not offered ("" when it can be).
        self._no_expression = "The corpus has no filter"
        #: One combo per option of the chosen evaluation, by keyword.
        self.option_choices: dict[str, QComboBox] = {}
        #: The evaluation the option combos were built for.
        self._options_for: str | None = None
        self.options_row = QHBoxLayout()
        self.about = QLabel()
        self.about.setWordWrap(True)
        self.about.setStyleSheet("color: #555")
        self.choice.currentIndexChanged.connect(self._describe_choice)
        self.choice.currentIndexChanged.connect(self._offer_options)
        self.history = QListWidget()
        self.history.setAccessibleName("results")
        self.history.setMaximumHeight(56)
        self.history.currentRowChanged.connect(self._show_row)
        #: The result shown in a line: what ran on what, and, when it describes an
        #: earlier version of the corpus, the offer to re-run it at the line's end, so
        #: nothing under it moves when a result goes stale (a line of its own took the
        #: table ~28 px, or a row's room kept for it).
        self.title = ElidedLabel()
        title_font = self.title.font()
        title_font.setBold(True)
        self.title.setFont(title_font)
        self.rerun_button = QPushButton()
        self.rerun_button.setToolTip(
            "This result describes the corpus before later edits: "
            "run the same evaluation again on it as it is now"
        )
        # Flat, a line of text high: the line keeps its height when it shows.
        self.rerun_button.setStyleSheet(
            "QPushButton { border: none; padding: 0 2px; color: #a15c00;"
            " text-decoration: underline; }"
        )
        self.rerun_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.rerun_button.setVisible(False)
        self.rerun_button.clicked.connect(
            lambda: self.rerun_requested.emit(self.history.currentRow())
        )
        title_line = QHBoxLayout()
        title_line.addWidget(self.title, stretch=1)
        title_line.addWidget(self.rerun_button)
        #: The command that makes the result shown again.
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 2)
        self.table.setAccessibleName("evaluation metrics")
        self.table.setHorizontalHeaderLabels(["Metric", "Value"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # Sized in _fit_values: a long value (a warning) wraps instead of pushing the
        # column out of view.
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        self.table.setWordWrap(True)
        self.table.viewport().installEventFilter(self)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.charts = QTabWidget()
        self.charts.setDocumentMode(True)
        self.charts.setVisible(False)
        # The paired tests are made when their page is first in view.
        self.charts.currentChanged.connect(lambda _: self._show_paired_tests())
        self.charts.currentChanged.connect(lambda _: self._size_by_page_shown())
        self.chart: ResultChart | None = None
        #: The result whose charts are drawn when the panel is next shown.
        self._charts_due: tuple[str, object] | None = None
        self.metric_choice = QComboBox()
        self.metric_choice.setToolTip("Metric compared across encoders")
        self.metric_choice.currentIndexChanged.connect(self._show_comparison)
        self.import_button = QPushButton("Import MTEB…")
        self.import_button.setToolTip(
            "Published MTEB scores (STSBenchmark, SICK-R, STS12-16) "
            "beside this corpus's runs of the same pairs, "
            "labelled imported"
        )
        self.import_menu = QMenu(self.import_button)
        self.import_file_action = self.import_menu.addAction(
            "Result file (<Task>.json)…", self.choose_mteb_file
        )
        self.import_folder_action = self.import_menu.addAction(
            "Results folder (<model>/<revision>/)…", self.choose_mteb_folder
        )
        self.import_button.setMenu(self.import_menu)
        self.imported_note = QLabel()
        self.imported_note.setWordWrap(True)
        self.imported_note.setStyleSheet("color: #555")
        self.imported_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        #: The sentspace eval command(s) that make the bars (an --encoder each), on one
        #: line under the choices, elided in the middle so that what runs and on which
        #: encoders both show (beside the metric it was cut to "sentspace eval clas"),
        #: whole in its tooltip and copied by its button: wrapped, it took the rows
        #: of the metrics table at 1280x800.
        self.comparison_command = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle)
        self.comparison_command.setStyleSheet("color: #555")
        self.copy_command_button = QPushButton("Copy")
        self.copy_command_button.setToolTip("Copy the whole command, to run in a shell")
        self.copy_command_button.clicked.connect(
            lambda: QGuiApplication.clipboard().setText(self.comparison_command.text())
        )
        choices = QHBoxLayout()
        choices.addWidget(self.metric_choice, stretch=1)
        choices.addWidget(self.import_button)
        command_line = QHBoxLayout()
        command_line.addWidget(self.comparison_command, stretch=1)
        command_line.addWidget(self.copy_command_button)
        #: Where the comparison chart goes, between the choices and the note.
        self.comparison_chart_box = QVBoxLayout()
        self.comparison_box = QVBoxLayout()
        self.comparison_box.setContentsMargins(0, 4, 0, 0)
        self.comparison_box.addLayout(choices)
        self.comparison_box.addLayout(command_line)
        self.comparison_box.addLayout(self.comparison_chart_box, stretch=1)
        #: The paired tests of the bars, as their command prints them.
        self.paired_tests = PairedTestsView()
        self.comparison_box.addWidget(self.paired_tests)
        self.comparison_box.addWidget(self.imported_note)
        self.comparison_page = QWidget()
        self.comparison_page.setLayout(self.comparison_box)
        self.comparison: ResultChart | None = None
        #: The MTEB scores imported on the corpus shown (its state's ``imported``), as
        #: last drawn.
        self.imported: tuple = ()
        self.picked_caption = QLabel()
        self.picked_caption.setWordWrap(True)
        self.picked_caption.setStyleSheet("color: #555")
        self.copy_button = QPushButton("Copy table")
        self.copy_button.clicked.connect(self.copy_table)
        self.save_button = QPushButton("Save JSON…")
        self.save_button.setToolTip("Every number with its provenance and per-item outcomes")
        self.save_button.clicked.connect(self._choose_json_target)
        self.save_table_button = QPushButton("Save CSV…")
        self.save_table_button.clicked.connect(self._choose_csv_target)
        self.save_chart_button = QPushButton("Save chart…")
        self.save_chart_button.setToolTip("The chart shown, as PNG or SVG")
        self.save_chart_button.clicked.connect(self._choose_chart_target)

        top = QHBoxLayout()
        top.addWidget(self.choice, stretch=1)
        top.addWidget(self.only_passing)
        top.addWidget(self.run_button)
        # Two a row, so the panel stays narrow beside the views.
        buttons = QGridLayout()
        for position, button in enumerate(
            (self.copy_button, self.save_table_button, self.save_button, self.save_chart_button)
        ):
            buttons.addWidget(button, position // 2, position % 2)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(self.options_row)
        layout.addWidget(self.about)
        layout.addWidget(self.history)
        # The two lines of the result shown read as one caption.
        described = QVBoxLayout()
        described.setSpacing(0)
        described.addLayout(title_line)
        described.addWidget(self.caption)
        layout.addLayout(described)
        # The table and its chart share the rest; the user moves the line between them.
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setObjectName("evaluation-split")
        self.split.addWidget(self.table)
        self.split.addWidget(self.charts)
        self.split.setChildrenCollapsible(False)
        #: Whether the user moved the line between table and chart (then it stays).
        self._split_moved = False
        self.split.splitterMoved.connect(lambda *_: setattr(self, "_split_moved", True))
        layout.addWidget(self.split, stretch=1)
        layout.addWidget(self.picked_caption)
        layout.addLayout(buttons)
        self.results: list = []
        self.corpus: Corpus | None = None
        self.set_corpus(None)

    def show_results(
        self, corpus: Corpus | None, results: list[tuple[str, object, str]], row: int = -1
    ) -> None:
        """Show ``corpus`` (as edited) and its results, row ``row`` selected (-1: the
        last)."""
        self.history.blockSignals(True)
        self.history.clear()
        self.history.blockSignals(False)
        self.results = []
        self.set_corpus(corpus)
        self.set_results(results, row)

    def set_corpus(self, corpus: Corpus | None) -> None:
        """Offer the evaluations ``corpus`` can take (the one chosen stays chosen);
        chart clicks select in it, and results of other versions of it say so."""
        self.corpus = corpus
        chosen = self.choice.currentData()
        self.choice.blockSignals(True)
        self.choice.clear()
        names = applicable_evaluations(corpus) if corpus is not None else []
        for name in names:
            self.choice.addItem(name, name)
        self.choice.setCurrentIndex(max(0, self.choice.findData(chosen)))
        self.choice.blockSignals(False)
        self.run_button.setEnabled(bool(names))
        self._describe_choice()
        self._offer_options()
        for row, (evaluation, result, _) in enumerate(self.results):
            self.history.item(row).setText(describe_result(result, evaluation, corpus))
        self._show_version(self.history.currentRow())

    def _filtered_result(self):
        return self.current[1] if self.current is not None else None

    def set_busy(self, busy: bool) -> None:
        """While another job runs, an evaluation asked for is queued after it."""
        self.run_button.setEnabled(self.choice.count() > 0)
        self.run_button.setText("Queue" if busy else "Evaluate")

    def set_results(self, results: list[tuple[str, object, str]], row: int = -1) -> None:
        """Show the results of the corpus shown: ``(evaluation, result, command)`` each,
        row ``row`` selected (-1: the last); none clears the table and chart."""
        self.history.blockSignals(True)
        self.history.clear()
        self.results = []
        for evaluation, result, command in results:
            self.results.append((evaluation, result, command))
            self.history.addItem(describe_result(result, evaluation, self.corpus))
        row = row if 0 <= row < len(self.results) else len(self.results) - 1
        self.history.setCurrentRow(row)  # its signal would draw the charts twice
        self.history.blockSignals(False)
        self._show_row(row)

    def follow(self, session: Session) -> None:
        """Show the results of the corpus shown, as they come and as it is edited."""
        session.current_changed.connect(self._show_state)
        session.on_current(session.evaluated, lambda state, *_: self._show_state(state))
        session.on_current(session.edited, self._follow_edit)
        session.on_current(session.imported, lambda state, *_: self.show_imported(state.imported))
        session.on_current(session.filtered, self.offer_filter)

    def show_imported(self, imported) -> None:
        """Draw ``imported`` (MTEB scores) beside the runs of the same pairs."""
        self.imported = tuple(imported)
        if self.comparison is not None:
            self._show_comparison()
            QTimer.singleShot(0, self._place_split)  # room for the note under the chart

    def choose_mteb_file(self) -> None:
        path = open_file(
            self, "Import an MTEB result file", "MTEB result (*.json)", purpose=RESULTS
        )
        if path:
            self.import_requested.emit(path)

    def choose_mteb_folder(self) -> None:
        path = open_folder(self, "Import an MTEB results folder", purpose=RESULTS)
        if path:
            self.import_requested.emit(path)

    def offer_filter(self, state: CorpusState | None) -> None:
        """Offer to evaluate only the sentences passing ``state``'s filter, written as
        the expression ``sentspace eval --where`` takes; a filter no expression writes
        (a kept selection) says why in the tooltip."""
        self.filter_expression, self._no_expression = "", "The corpus has no filter"
        if state is not None and state.filter:
            table = table_of(state)
            try:
                self.filter_expression = usable(state.filter, table).as_expression(table)
                self._no_expression = ""
            except InputError as error:
                self._no_expression = f"Cannot evaluate with this filter: {error}"
        self._enable_only_passing()

    def _enable_only_passing(self) -> None:
        name = self.choice.currentData()
        why = (
            self._no_expression
            or (name not in FILTERABLE and f"{name or 'Nothing'} evaluates no items a filter keeps")
            or "Evaluate the items that pass (a pair by its own split, label and score, "
            f"and both its sentences' other columns): where {self.filter_expression}"
        )
        self.only_passing.setEnabled(bool(self.filter_expression) and name in FILTERABLE)
        self.only_passing.setToolTip(why)

    def _show_state(self, state: CorpusState | None, row: int = -1) -> None:
        """``state``'s results, row ``row`` selected; by default the last, unless it is a
        classification of the run shown other than the one its views show (of a version
        undone: the list kept the stale one selected after a switch)."""
        if row < 0 and state is not None and state.evaluations:
            last, record = state.evaluations[-1], state.classification
            if record is not None and (last.name, last.encoder) == (record.name, record.encoder):
                row = state.evaluations.index(record)
        self.offer_filter(state)
        self.imported = tuple(state.imported) if state is not None else ()
        # Tests made of its bars are kept with its results (and saved with them).
        self.paired_tests.kept = state.paired_tests if state is not None else []
        self.show_results(
            state.corpus if state is not None else None,
            [
                (run.label, run.result, run.command)
                for run in (state.evaluations if state is not None else [])
            ],
            row,
        )

    def _follow_edit(self, state: CorpusState) -> None:
        """A new version: the row shown stays, except a classification of the run
        shown, which follows the one the projection and Classification tab now show
        (the version undone to has its own)."""
        row, record = self.history.currentRow(), state.classification
        shown = state.evaluations[row] if 0 <= row < len(state.evaluations) else None
        if (
            record is not None
            and shown is not None
            and shown.name == record.name
            and shown.encoder == record.encoder
        ):
            row = state.evaluations.index(record)
        self._show_state(state, row)

    def add_result(self, evaluation: str, result, command: str) -> None:
        """Show ``result`` of ``evaluation`` (reproducible with the shell ``command``)
        after those shown: a panel used on its own, outside a window's session."""
        self.set_results([*self.results, (evaluation, result, command)])

    @property
    def current(self):
        row = self.history.currentRow()
        return self.results[row] if 0 <= row < len(self.results) else None

    def rows(self) -> list[tuple[str, str]]:
        return [
            (self.table.item(r, 0).text(), self.table.item(r, 1).text())
            for r in range(self.table.rowCount())
        ]

    def copy_table(self) -> None:
        """Put the table on the clipboard as tab-separated text (pastes into a sheet)."""
        QGuiApplication.clipboard().setText("\n".join("\t".join(row) for row in self.rows()))

    def save_json(self, path: str | Path) -> None:
        _, result, _ = self.current
        write_json(path, result.to_dict())

    def save_csv(self, path: str | Path) -> None:
        """The result's metrics as numbers (``sentspace.app.analysis.results.SCORE_COLUMNS``: metric, value,
        interval bounds, items), empty where it has none."""
        _, result, _ = self.current
        write_csv(path, SCORE_COLUMNS, result.score_rows())

    @property
    def chart_shown(self) -> ResultChart | None:
        """The chart on show: the result's own or the bars across encoders."""
        chart = self.charts.currentWidget()
        return self.comparison if chart is self.comparison_page else chart

    def save_chart(self, path: str | Path) -> None:
        """The chart on show (PNG, or SVG by the extension) under its title; raises
        OSError when the file cannot be written."""
        save_chart(self.chart_shown, path, self.chart_title())

    def chart_title(self) -> str:
        """What the chart on show is of: the evaluation, encoder and corpus, or the metric
        across encoders."""
        if self.current is None:
            return ""
        if self.chart_shown is self.comparison:
            corpus = self.current[1].provenance.corpus_name
            return f"{self.metric_choice.currentText()} across encoders on {corpus}"
        return self.title.text()

    def _choose_csv_target(self) -> None:
        if self.current is not None:
            path = save_file(self, "Save table", "CSV (*.csv)")
            if path:
                self.save_csv(path)
                say_written(self, path)

    def _choose_chart_target(self) -> None:
        if self.chart_shown is not None:
            path = save_file(self, "Save chart", "PNG image (*.png);;SVG drawing (*.svg)")
            if path and save_chart_or_say(self, self.chart_shown, path, self.chart_title()):
                say_written(self, path)

    def _choose_json_target(self) -> None:
        if self.current is None:
            return
        path = save_file(self, "Save result", "JSON (*.json)")
        if path:
            self.save_json(path)
            say_written(self, path)

    def _describe_choice(self) -> None:
        name = self.choice.currentData()
        self.about.setText(
            EVALUATIONS[name][1] if name else "This corpus has no structure an evaluation needs."
        )

    def _offer_options(self) -> None:
        """A combo per option of the chosen evaluation, its default first; each value's
        meaning is its tooltip. Rebuilt for the same evaluation (a result came, the
        corpus was edited), the combos keep what was chosen."""
        name = self.choice.currentData()
        kept = (
            {keyword: combo.currentData() for keyword, combo in self.option_choices.items()}
            if name == self._options_for
            else {}
        )
        self._options_for = name
        while self.options_row.count():
            widget = self.options_row.takeAt(0).widget()
            widget.setParent(None)
            widget.deleteLater()
        self.option_choices = {}
        for keyword, option in OPTIONS.get(name, {}).items():
            label = QLabel(keyword.replace("_", " ") + ":")
            combo = QComboBox()
            combo.setAccessibleName(keyword)
            combo.setToolTip(option.help)
            for value, meaning in option.choices.items():
                combo.addItem(value, value)
                combo.setItemData(combo.count() - 1, meaning, Qt.ItemDataRole.ToolTipRole)
            if keyword in kept:
                combo.setCurrentIndex(max(0, combo.findData(kept[keyword])))
            label.setBuddy(combo)
            self.options_row.addWidget(label)
            self.options_row.addWidget(combo, stretch=1)
            self.option_choices[keyword] = combo
        self._enable_only_passing()

    def option_values(self) -> dict[str, str]:
        """The chosen evaluation's options as chosen (keyword: value), and ``where``
        when only the sentences passing the filter are to be evaluated."""
        values = {keyword: combo.currentData() for keyword, combo in self.option_choices.items()}
        if self.only_passing.isEnabled() and self.only_passing.isChecked():
            values["where"] = self.filter_expression
        return values

    def _show_row(self, row: int) -> None:
        self.table.setRowCount(0)
        if not 0 <= row < len(self.results):
            self.title.setText("")
            self.caption.clear()
            self._show_version(row)
            self._show_charts(None, None)
            return
        evaluation, result, command = self.results[row]
        provenance = result.provenance
        where = provenance.parameters.get("where")
        kept = provenance.parameters.get("evaluated") or (where and f"sentences where {where}")
        passing = f", {kept}" if kept else ""
        # One line (whole in its tooltip), so a long filter does not move the table.
        self.title.setText(
            f"{evaluation}: {provenance.encoder_name} on {provenance.corpus_name}{passing}"
        )
        self.caption.setText(
            f"<span style='color:#555'><code>{html.escape(command)}</code></span>"
            if command
            else ""
        )
        self._show_version(row)
        # The selector names the kind of result shown, to run it again or another way.
        kind = self.choice.findData(evaluation.split(" (")[0])
        if kind >= 0:
            self.choice.setCurrentIndex(kind)
        summary = result.summary()
        self.table.setRowCount(len(summary))
        for r, (label, value) in enumerate(summary):
            self.table.setItem(r, 0, QTableWidgetItem(label))
            cell = QTableWidgetItem(value)
            cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            cell.setToolTip(value)
            self.table.setItem(r, 1, cell)
        self._fit_values()
        self._show_charts(evaluation, result)

    def _show_version(self, row: int) -> None:
        """Offer to re-run a result shown that describes another version."""
        note = (
            version_note(self.results[row][1], self.corpus)
            if 0 <= row < len(self.results) and self.corpus is not None
            else ""
        )
        self.rerun_button.setVisible(bool(note))
        if note:
            self.rerun_button.setText(f"{note}: re-run")

    def _fit_values(self) -> None:
        """The value column as wide as its values and its heading (the heading alone
        when empty), at most half the table; longer values wrap onto more lines."""
        width = self.table.viewport().width()
        wanted = max(
            self.table.sizeHintForColumn(1), self.table.horizontalHeader().sectionSizeHint(1)
        )
        self.table.setColumnWidth(1, min(wanted + 8, max(80, width // 2)))
        self.table.resizeRowsToContents()

    def eventFilter(self, watched, event) -> bool:
        # The table's viewport takes its width when the panel is first shown or resized.
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_values()
        return super().eventFilter(watched, event)

    # --- charts -------------------------------------------------------------------

    def _show_charts(self, evaluation: str, result) -> None:
        """The result's own chart, and bars of its interval metrics across encoders;
        none for no result."""
        self.charts.clear()
        for old in (self.chart, self.comparison):
            _discard(old)
        self.chart = self.comparison = None
        self.picked_caption.clear()
        self.imported_note.clear()
        self.comparison_command.clear()
        self.charts.setVisible(False)
        self.save_chart_button.setEnabled(False)
        self._charts_due = None
        if result is None or isinstance(result, SavedResult):
            self.paired_tests.show_runs(None, None, [])  # cancels its job
            return  # a saved result keeps its numbers, not the arrays charts draw
        if self.window().isVisible() and not self.isVisible():
            # Drawn when the tab is shown: drawing them behind another tab took a
            # third of switching to a corpus.
            self._charts_due = (evaluation, result)
            return
        self.chart = chart_for(evaluation, result)
        if self.chart is not None:
            self.chart.picked.connect(self._chart_picked)
            self._show_passing()
            self.charts.addTab(self.chart, "Chart")
        shown = self.metric_choice.currentData()
        self.metric_choice.blockSignals(True)
        self.metric_choice.clear()
        for name in result.intervals():
            self.metric_choice.addItem(name, name)
        # Moving between results of one evaluation keeps the metric being compared.
        self.metric_choice.setCurrentIndex(max(0, self.metric_choice.findData(shown)))
        self.metric_choice.blockSignals(False)
        if self.metric_choice.count():
            self.charts.addTab(self.comparison_page, "Across encoders")
            self._show_comparison()
        else:
            self.paired_tests.show_runs(None, None, [])
        self.charts.setVisible(self.charts.count() > 0)
        self.save_chart_button.setEnabled(self.charts.count() > 0)
        if self.charts.count() and not self._split_moved:
            # Once the panel has its size with the chart in it.
            QTimer.singleShot(0, self._place_split)

    def _size_by_page_shown(self) -> None:
        """The Across encoders page (its command's line too) sets the charts' least
        height only when shown: behind the Chart tab it took a row of the metrics table."""
        policy = (
            QSizePolicy.Policy.Preferred
            if self.charts.currentWidget() is self.comparison_page
            else QSizePolicy.Policy.Ignored
        )
        self.comparison_page.setSizePolicy(QSizePolicy.Policy.Preferred, policy)
        self.charts.updateGeometry()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._charts_due is not None:
            self._show_charts(*self._charts_due)
        elif self._passing_due:
            self._show_passing()
        # A result shown while the panel was hidden (a workspace opened) is placed now.
        QTimer.singleShot(0, self._place_split)

    def _place_split(self) -> None:
        """The table keeps room for its rows (``TABLE_ROWS`` at most) and the chart
        takes the rest, until the user moves the line between them."""
        if self._split_moved or not self.charts.isVisible():
            return
        total = sum(self.split.sizes())
        rows = min(max(self.table.rowCount(), 1), TABLE_ROWS)
        table = (
            self.table.horizontalHeader().sizeHint().height()
            + 2 * self.table.frameWidth()
            # One row more: a horizontal scroll bar may take its place.
            + (rows + 1) * self.table.verticalHeader().defaultSectionSize()
        )
        # The chart keeps the height it needs to show its axes whole.
        table = min(table, total - self.charts.minimumSizeHint().height())
        if total > table:
            self.split.blockSignals(True)
            self.split.setSizes([table, total - table])
            self.split.blockSignals(False)

    def show_across_encoders(self, result) -> None:
        """Show ``result`` (one of the results listed) beside the corpus's other results
        of its evaluation: its *Across encoders* bars."""
        row = next((r for r, (_, listed, _) in enumerate(self.results) if listed is result), -1)
        if row >= 0:
            self.history.setCurrentRow(row)
            if self.charts.indexOf(self.comparison_page) >= 0:
                self.charts.setCurrentWidget(self.comparison_page)

    def comparable_rows(self) -> list[int]:
        """History rows of the current evaluation on the current result's corpus and
        its sentences (those passing its filter, or all), in order: the bars of the
        comparison chart."""
        evaluation, result, _ = self.current
        fingerprint = result.provenance.corpus_fingerprint
        where = result.provenance.parameters.get("where")
        return [
            row
            for row, (name, other, _) in enumerate(self.results)
            if name == evaluation
            and other.provenance.corpus_fingerprint == fingerprint
            and other.provenance.parameters.get("where") == where
            and not isinstance(other, SavedResult)
        ]

    def _show_comparison(self) -> None:
        metric = self.metric_choice.currentData()
        if metric is None or self.current is None:
            return
        _discard(self.comparison)
        self.comparison = None
        rows = self.comparable_rows()
        runs = [self.results[r][1] for r in rows]
        # Imported MTEB scores of exactly the pairs of this metric, beside their model's run.
        placed = arrange(metric, self.current[1], runs, self.imported)
        bars = [runs[k] if kind == "run" else self.imported[k] for kind, k in placed.order]
        targets = [rows[k] if kind == "run" else None for kind, k in placed.order]
        commands = comparison_command([self.results[r][1:] for r in rows])
        # Several commands (bars of other options) run one after another in a shell.
        self.comparison_command.setText(commands.replace("\n", "; "))
        self.comparison_command.setToolTip(commands)
        self.imported_note.setText("\n".join(placed.notes))
        self.imported_note.setVisible(bool(placed.notes))
        # Its lines at the width it has, so the splitter leaves them room under the chart.
        self.imported_note.setMinimumHeight(
            self.imported_note.heightForWidth(max(self.imported_note.width(), 200))
            if placed.notes
            else 0
        )
        self.comparison = comparison_chart(metric, bars)
        # A bar stands for a result: clicking it opens that result (once this click's
        # handling is over, since opening it rebuilds the charts); an imported one has
        # no row.
        self.comparison.bar_clicked.connect(
            lambda k: (
                targets[k] is not None
                and QTimer.singleShot(0, lambda: self.history.setCurrentRow(targets[k]))
            )
        )
        self.comparison_chart_box.addWidget(self.comparison, stretch=1)
        self._show_paired_tests()

    def _show_paired_tests(self) -> None:
        """The paired tests of the bars shown, made once their page is in view."""
        if self.comparison is None or self.current is None:
            return
        self.paired_tests.show_runs(
            self.current[0],
            self.metric_choice.currentData(),
            [tuple(self.results[r][1:]) for r in self.comparable_rows()],
            start=self.charts.currentWidget() is self.comparison_page,
        )

    def _chart_picked(self, kind: str, indices, description: str) -> None:
        """Re-emit a chart's items as sentence indices of the current corpus."""
        _, result, _ = self.current
        corpus = self.corpus
        if corpus is None or corpus.fingerprint != result.provenance.corpus_fingerprint:
            self.picked_caption.setText(
                f"{description} (in corpus {result.provenance.corpus_name}, not loaded)"
            )
            return
        indices = np.asarray(indices, dtype=np.int64)
        if kind == "pairs":
            indices = np.unique(
                np.concatenate([corpus.pairs.first[indices], corpus.pairs.second[indices]])
            )
        self.picked_caption.setText(
            f"{description}: {len(indices):,} sentence{'' if len(indices) == 1 else 's'} selected"
        )
        if isinstance(result, ClassificationResult):
            self.classified_selected.emit(indices.tolist(), result)
        else:
            self.items_selected.emit(indices.tolist())
