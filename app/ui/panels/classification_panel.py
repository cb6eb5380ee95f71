"""The Classification tab: what the run's classification evaluation measured."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.corpora.model import Corpus
from sentspace.app.session import CorpusState, Session, version_note


class ClassificationPanel(QWidget):
    """``misclassified_clicked`` when the "misclassified" row is clicked;
    ``run_requested`` when a result of an earlier version is to be run again."""

    misclassified_clicked = Signal()
    run_requested = Signal()

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
        self.metrics.setToolTip("Click 'misclassified' to list those sentences")
        self.metrics.cellClicked.connect(self._clicked)
        self.rerun_button = QPushButton()
        self.rerun_button.setToolTip("Run the encoder again on the corpus as it is now")
        self.rerun_button.setVisible(False)
        self.rerun_button.clicked.connect(self.run_requested)
        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(self.rerun_button)
        layout.addWidget(self.metrics)

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
            self.show_exploration(state.exploration, state.corpus,
                                  record.result if record is not None else None)

    def clear(self, caption: str = "No result yet.") -> None:
        self.metrics.setRowCount(0)
        self.caption.setText(caption)
        self.rerun_button.setVisible(False)

    def show_exploration(self, exploration, corpus: Corpus | None = None,
                         result=None) -> None:
        """The run's classification ``result`` (default: the run's own), or why there
        is none; one computed before later edits of ``corpus`` (the corpus as it is
        now) says so."""
        result = result if result is not None else exploration.classification
        corpus = corpus if corpus is not None else exploration.corpus
        trained = _training_line(exploration.encoder)
        if result is None:
            self.clear((html.escape(" ".join(exploration.notes)) or _why_none(corpus))
                       + trained)
            return
        params = result.provenance.parameters
        used = len(result.sentence_index)
        left_out = (f" (of {len(corpus):,}: {len(corpus) - used:,} in groups of fewer than "
                    f"{params['min_group_size']} left out)" if used < len(corpus) else "")
        self.caption.setText(
            f"<b>{html.escape(result.provenance.encoder_name)}</b> on "
            f"<b>{html.escape(result.provenance.corpus_name)}</b>"
            f": linear SVM, {params['n_folds']}-fold stratified CV, seed {params['seed']}, "
            f"{used:,} sentences{left_out} in {result.n_groups:,} groups.{trained}")
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

    def _clicked(self, row: int, _column: int) -> None:
        if self.metrics.item(row, 0).text() == "misclassified":
            self.misclassified_clicked.emit()


def _why_none(corpus: Corpus) -> str:
    if corpus.groups is None:
        return (f"Classification needs paraphrase groups, and {html.escape(corpus.name)} "
                "has none: its own evaluations are in the Evaluations tab.")
    return "No evaluation."


def _training_line(encoder) -> str:
    """The run's encoder's training report (an NMT encoder's translation score) as a
    line of the caption, or nothing."""
    report = encoder.training_report
    return f"<br><span style='color:#444'>{html.escape(report)}</span>" if report else ""
