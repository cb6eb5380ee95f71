"""The Classification tab: what the run's classification evaluation measured, its
interval, and the groups with the most misclassified members as a chart whose bars
select their sentences."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.corpora.model import Corpus
from sentspace.app.state.session import CorpusState, Session, version_note
from sentspace.app.ui.charts.base import FollowsFilter
from sentspace.app.ui.charts.classification import GroupErrorBars
from sentspace.app.ui.charts.figures import save_chart, save_chart_or_say
from sentspace.app.ui.kit.file_dialogs import save_file, say_written
from sentspace.app.ui.kit.widgets import keep_room

#: Charts of results shown lately, kept to show again on a switch back.
CHARTS_KEPT = 8


class ClassificationPanel(FollowsFilter, QWidget):
    """``misclassified_clicked`` when the "misclassified" row is clicked;
    ``run_requested`` when a result of an earlier version is to be run again;
    ``sentences_selected`` with the sentences of a clicked bar of the chart and the
    result whose marks (✓ classified into their group, ✗ not) they are listed with;
    ``across_encoders_requested`` to compare the result with the corpus's other
    classifications (the Evaluations tab's *Across encoders*)."""

    misclassified_clicked = Signal()
    run_requested = Signal()
    sentences_selected = Signal(list, object)
    across_encoders_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel("No result yet.")
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setWordWrap(True)
        self.metrics = QTableWidget(0, 2)
        self.metrics.setAccessibleName("metrics")
        self.metrics.setHorizontalHeaderLabels(["Metric", "Value"])
        self.metrics.verticalHeader().setVisible(False)
        header = self.metrics.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        # Empty, ResizeToContents sizes the column to nothing; the header still needs room.
        header.setMinimumSectionSize(header.fontMetrics().horizontalAdvance("Value") + 24)
        self.metrics.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.metrics.setToolTip(
            "Click 'misclassified' to list those sentences. The mean "
            "accuracy's [interval]: 95% bootstrap resampling whole "
            "groups"
        )
        self.metrics.cellClicked.connect(self._clicked)
        self.rerun_button = QPushButton()
        self.rerun_button.setToolTip("Run the encoder again on the corpus as it is now")
        self.rerun_button.setVisible(False)
        keep_room(self.rerun_button)
        self.rerun_button.clicked.connect(self.run_requested)
        #: The chart of the result shown (none: no result).
        self.chart: GroupErrorBars | None = None
        #: The charts of the results shown last (hidden but the one shown, the last).
        self._charts: list[GroupErrorBars] = []
        #: How many charts were made (not shown again from the kept).
        self.charts_made = 0
        self.chart_box = QWidget()
        QVBoxLayout(self.chart_box).setContentsMargins(0, 0, 0, 0)
        # The table and the chart share the room; the user moves the line between them.
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.addWidget(self.metrics)
        self.split.addWidget(self.chart_box)
        self.split.setChildrenCollapsible(False)
        self.split.setStretchFactor(1, 1)
        self.picked_caption = QLabel()
        self.picked_caption.setWordWrap(True)
        self.picked_caption.setStyleSheet("color: #555")
        self.save_chart_button = QPushButton("Save chart…")
        self.save_chart_button.setToolTip(
            "The chart of misclassified sentences per group, as PNG or SVG"
        )
        self.save_chart_button.clicked.connect(self._choose_chart_target)
        self.across_button = QPushButton("Across encoders…")
        self.across_button.setToolTip(
            "Mean accuracy with its interval for each encoder "
            "classified on this corpus (Evaluations tab)"
        )
        self.across_button.clicked.connect(self.across_encoders_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_chart_button)
        buttons.addWidget(self.across_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(self.rerun_button)
        layout.addWidget(self.split, stretch=1)
        layout.addWidget(self.picked_caption)
        layout.addLayout(buttons)
        #: The corpus shown, as it is now: a bar selects in it.
        self.corpus: Corpus | None = None
        self._show_chart(None)

    def _filtered_result(self):
        return self.chart.result if self.chart is not None else None

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._passing_due:
            self._show_passing()

    def follow(self, session: Session) -> None:
        """Show the classification of the run shown on the corpus shown (the session's
        record, which the rings and the Evaluations panel show too); an edit says
        whether it still describes the corpus."""
        session.current_changed.connect(self._show_state)
        for event in (session.ran, session.edited, session.evaluated):
            session.on_current(event, lambda state, *_: self._show_state(state))

    def _show_state(self, state: CorpusState | None) -> None:
        if state is None or state.exploration is None:
            self.clear()
        else:
            record = state.classification
            self.show_exploration(
                state.exploration, state.corpus, record.result if record is not None else None
            )

    def clear(self, caption: str = "No result yet.") -> None:
        self.metrics.setRowCount(0)
        self.caption.setText(caption)
        self.rerun_button.setVisible(False)
        self._show_chart(None)

    def show_exploration(self, exploration, corpus: Corpus | None = None, result=None) -> None:
        """The run's classification ``result`` (default: the run's own), or why there
        is none; one computed before later edits of ``corpus`` (the corpus as it is
        now) says so."""
        result = result if result is not None else exploration.classification
        corpus = corpus if corpus is not None else exploration.corpus
        self.corpus = corpus
        trained = _training_line(exploration.encoder)
        if result is None:
            self.clear((html.escape(" ".join(exploration.notes)) or _why_none(corpus)) + trained)
            return
        params = result.provenance.parameters
        used = len(result.sentence_index)
        left_out = (
            f" (of {len(corpus):,}: {len(corpus) - used:,} in groups of fewer than "
            f"{params['min_group_size']} left out)"
            if used < len(corpus)
            else ""
        )
        self.caption.setText(
            f"<b>{html.escape(result.provenance.encoder_name)}</b> on "
            f"<b>{html.escape(result.provenance.corpus_name)}</b>"
            f": linear SVM, {params['n_folds']}-fold stratified CV, seed {params['seed']}, "
            f"{used:,} sentences{left_out} in {result.n_groups:,} groups"
            f"{_interval_note(result)}.{trained}"
        )
        note = version_note(result, corpus)
        self.rerun_button.setVisible(bool(note))
        self.rerun_button.setText(f"Computed {note}: run again on the corpus as it is")
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
        self._show_chart(result)

    def _show_chart(self, result) -> None:
        """The misclassified per group of ``result``; none for no result. The chart of
        a result shown lately is shown again, not made again (0.1-0.2 s a switch)."""
        if self.chart is not None:
            self.chart.hide()
        kept = [chart for chart in self._charts if chart.result is result]
        self.picked_caption.clear()
        if kept:
            self.chart = kept[0]
            self._charts.remove(self.chart)
        elif result is not None:
            self.chart = GroupErrorBars(result)
            self.chart.picked.connect(self._chart_picked)
            self.chart_box.layout().addWidget(self.chart)
            self.charts_made += 1
        else:
            self.chart = None
        if self.chart is not None:
            self._charts.append(self.chart)
            while len(self._charts) > CHARTS_KEPT:
                self._charts.pop(0).deleteLater()
            self._show_passing()
            self.chart.show()
        self.chart_box.setVisible(self.chart is not None)
        self.save_chart_button.setEnabled(self.chart is not None)
        self.across_button.setEnabled(self.chart is not None)

    def _chart_picked(self, _kind: str, indices, description: str) -> None:
        """Select a bar's sentences, where the corpus shown still has them where the
        result found them (an edit moves groups, never sentences)."""
        result, corpus = self.chart.result, self.corpus
        ids = np.asarray(corpus.ids, dtype=str) if corpus is not None else np.empty(0, str)
        if len(ids) <= int(result.sentence_index.max(initial=-1)) or not np.array_equal(
            ids[result.sentence_index], result.sentence_id
        ):
            self.picked_caption.setText(f"{description} (in another corpus)")
            return
        self.picked_caption.setText(
            f"{description}: {len(indices):,} sentence{'' if len(indices) == 1 else 's'} selected"
        )
        self.sentences_selected.emit(np.asarray(indices, dtype=np.int64).tolist(), result)

    def save_chart(self, path: str | Path) -> None:
        """The chart as PNG, or SVG by the extension; raises OSError when the file
        cannot be written."""
        save_chart(self.chart, path, self.chart_title())

    def chart_title(self) -> str:
        """The chart's title in a saved file: accuracy per group, whose, of which corpus."""
        provenance = self.chart.result.provenance
        return (
            f"classification accuracy per group: {provenance.encoder_name} "
            f"on {provenance.corpus_name}"
        )

    def _choose_chart_target(self) -> None:
        if self.chart is not None:
            path = save_file(self, "Save chart", "PNG image (*.png);;SVG drawing (*.svg)")
            if path and save_chart_or_say(self, self.chart, path, self.chart_title()):
                say_written(self, path)

    def _clicked(self, row: int, _column: int) -> None:
        if self.metrics.item(row, 0).text() == "misclassified":
            self.misclassified_clicked.emit()


def _interval_note(result) -> str:
    """How the mean accuracy's interval was made, for the caption."""
    if result.ci is None:
        return ""
    parameters = result.provenance.parameters
    return (
        f"; the mean accuracy's [{parameters['confidence']:.0%} interval] from "
        f"{parameters['n_resamples']:,} bootstrap resamples of whole groups"
    )


def _why_none(corpus: Corpus) -> str:
    if corpus.groups is None:
        return (
            f"Classification needs paraphrase groups, and {html.escape(corpus.name)} "
            "has none: its own evaluations are in the Evaluations tab."
        )
    return "No evaluation."


def _training_line(encoder) -> str:
    """The run's encoder's training report (an NMT encoder's translation score) as a
    line of the caption, or nothing."""
    report = encoder.training_report
    return f"<br><span style='color:#444'>{html.escape(report)}</span>" if report else ""
