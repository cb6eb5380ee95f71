"""Run any evaluation on the current corpus and encoder; read its numbers.

The table shows exactly the rows ``sentspace eval`` prints (``result.summary()``), so a
number seen here can be reproduced from a shell with the command shown under it.
"""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView, QComboBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel, QListWidget,
    QListWidgetItem, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from app.atomic import write_text_atomic
from app.corpora.model import Corpus
from app.evaluations import EVALUATIONS, applicable_evaluations


class EvaluationPanel(QWidget):
    """Choose an evaluation, run it, and browse the results of this session.

    Signals
    -------
    run_requested(str) : the user asked to run the named evaluation.
    """

    run_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.choice = QComboBox()
        self.choice.setToolTip("Evaluations this corpus has the structure for")
        self.run_button = QPushButton("Evaluate")
        self.run_button.setToolTip("Run the chosen evaluation with the chosen encoder")
        self.run_button.clicked.connect(
            lambda: self.run_requested.emit(self.choice.currentData()))
        self.about = QLabel()
        self.about.setWordWrap(True)
        self.about.setStyleSheet("color: #555")
        self.choice.currentIndexChanged.connect(self._describe_choice)
        self.history = QListWidget()
        self.history.setAccessibleName("results")
        self.history.setMaximumHeight(110)
        self.history.currentRowChanged.connect(self._show_row)
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.caption.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, 2)
        self.table.setAccessibleName("evaluation metrics")
        self.table.setHorizontalHeaderLabels(["Metric", "Value"])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(
            1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.copy_button = QPushButton("Copy table")
        self.copy_button.clicked.connect(self.copy_table)
        self.save_button = QPushButton("Save JSON…")
        self.save_button.setToolTip("Every number with its provenance and per-item outcomes")
        self.save_button.clicked.connect(self._choose_json_target)

        top = QHBoxLayout()
        top.addWidget(self.choice, stretch=1)
        top.addWidget(self.run_button)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.about)
        layout.addWidget(self.history)
        layout.addWidget(self.caption)
        layout.addWidget(self.table, stretch=1)
        layout.addLayout(buttons)
        self.results: list = []
        self.set_corpus(None)

    def set_corpus(self, corpus: Corpus | None) -> None:
        """Offer the evaluations ``corpus`` can take."""
        self.choice.clear()
        names = applicable_evaluations(corpus) if corpus is not None else []
        for name in names:
            self.choice.addItem(name, name)
        self.run_button.setEnabled(bool(names))
        self._describe_choice()

    def set_busy(self, busy: bool) -> None:
        self.run_button.setEnabled(not busy and self.choice.count() > 0)

    def add_result(self, evaluation: str, result, command: str) -> None:
        """Keep ``result`` of ``evaluation`` (reproducible with the shell ``command``)."""
        self.results.append((evaluation, result, command))
        provenance = result.provenance
        item = QListWidgetItem(f"{evaluation} · {provenance.encoder_name} on "
                               f"{provenance.corpus_name}")
        self.history.addItem(item)
        self.history.setCurrentItem(item)

    @property
    def current(self):
        row = self.history.currentRow()
        return self.results[row] if 0 <= row < len(self.results) else None

    def rows(self) -> list[tuple[str, str]]:
        return [(self.table.item(r, 0).text(), self.table.item(r, 1).text())
                for r in range(self.table.rowCount())]

    def copy_table(self) -> None:
        """Put the table on the clipboard as tab-separated text (pastes into a sheet)."""
        QGuiApplication.clipboard().setText("\n".join("\t".join(row) for row in self.rows()))

    def save_json(self, path: str | Path) -> None:
        _, result, _ = self.current
        write_text_atomic(path, json.dumps(result.to_dict(), indent=2) + "\n")

    def _choose_json_target(self) -> None:
        if self.current is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Save result", "", "JSON (*.json)")
        if path:
            self.save_json(path)

    def _describe_choice(self) -> None:
        name = self.choice.currentData()
        self.about.setText(EVALUATIONS[name][1] if name else
                           "This corpus has no structure an evaluation needs.")

    def _show_row(self, row: int) -> None:
        self.table.setRowCount(0)
        if not 0 <= row < len(self.results):
            self.caption.clear()
            return
        evaluation, result, command = self.results[row]
        provenance = result.provenance
        self.caption.setText(f"<b>{evaluation}</b>: {provenance.encoder_name} on "
                             f"{provenance.corpus_name}<br><span style='color:#555'>"
                             f"<code>{command}</code></span>")
        summary = result.summary()
        self.table.setRowCount(len(summary))
        for r, (label, value) in enumerate(summary):
            self.table.setItem(r, 0, QTableWidgetItem(label))
            cell = QTableWidgetItem(value)
            cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(r, 1, cell)
