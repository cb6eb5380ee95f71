"""The Classification tab: what the run's classification evaluation measured."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout,
    QWidget,
)


class ClassificationPanel(QWidget):
    """``misclassified_clicked`` when the "misclassified" row is clicked."""

    misclassified_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = QLabel("No result yet.")
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
        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(self.metrics)

    def clear(self, caption: str = "No result yet.") -> None:
        self.metrics.setRowCount(0)
        self.caption.setText(caption)

    def show_exploration(self, exploration) -> None:
        """The run's classification result, or why there is none."""
        result = exploration.classification
        if result is None:
            self.clear(" ".join(exploration.notes) or "No evaluation.")
            return
        params = result.provenance.parameters
        self.caption.setText(
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

    def _clicked(self, row: int, _column: int) -> None:
        if self.metrics.item(row, 0).text() == "misclassified":
            self.misclassified_clicked.emit()
