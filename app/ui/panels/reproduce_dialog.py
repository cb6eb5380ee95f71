"""*Help > Reproduce a paper…*: a paper's published tables re-run with what is here
(``sentspace.app.reproduce``), each published cell beside sentspace's number with its
interval and mark (same setting, substitute, needs), the counts the paper states and
its findings; clicking a row shows the evaluation result behind it and the command that
gives it. The same rows as ``sentspace reproduce PAPER``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)


class ReproduceDialog(QDialog):
    """Choose a paper and how much of it to run; the report when it is done.

    ``papers``: name -> title. Signals: ``run_requested(paper, variant)`` (the window
    runs :func:`~sentspace.app.reproduce.run_reproduction` as a job and calls
    :meth:`show_report`), ``save_requested()``.
    """

    run_requested = Signal(str, str)
    save_requested = Signal()

    def __init__(
        self,
        papers: dict[str, str],
        cells: Callable[[Any], list[str]],
        columns: tuple[str, ...],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.setWindowTitle("Reproduce a paper")
        self.cells, self.columns = cells, columns
        self.report = None
        self.paper = QComboBox()
        self.paper.setAccessibleName("paper")
        for name, title in papers.items():
            self.paper.addItem(title, name)
        self.quick = QRadioButton("Quick (minutes: the cells a finding rests on)")
        self.quick.setChecked(True)
        self.full = QRadioButton("Full (every cell this machine can re-run; can take hours)")
        self.run_button = QPushButton("Run")
        self.run_button.clicked.connect(
            lambda: self.run_requested.emit(
                self.paper.currentData(), "quick" if self.quick.isChecked() else "full"
            )
        )
        self.save_button = QPushButton("Save report…")
        self.save_button.setToolTip("Markdown, a self-contained HTML page and JSON")
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self.save_requested)
        self.caption = QLabel(
            "Choose a paper and press Run; the evaluations run in the "
            "background, encodings cached, so a second run is quick."
        )
        self.caption.setWordWrap(True)
        self.rows = QTreeWidget()
        self.rows.setAccessibleName("published cells")
        self.rows.setHeaderLabels(list(columns))
        self.rows.itemSelectionChanged.connect(self._show_row)
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result = QTableWidget(0, 2)
        self.result.setAccessibleName("result behind the row")
        self.result.setHorizontalHeaderLabels(["Metric", "Value"])
        self.result.verticalHeader().setVisible(False)
        self.result.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.findings = QLabel()
        self.findings.setWordWrap(True)
        self.findings.setTextFormat(Qt.TextFormat.RichText)
        controls = QHBoxLayout()
        controls.addWidget(self.paper, stretch=1)
        controls.addWidget(self.run_button)
        controls.addWidget(self.save_button)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.detail)
        lower_layout.addWidget(self.result, stretch=1)
        # A paper's counts and findings run to a dozen lines: they scroll in a pane of
        # their own instead of squeezing the result table.
        findings = QScrollArea()
        findings.setWidgetResizable(True)
        findings.setFrameShape(QFrame.Shape.NoFrame)
        findings.setWidget(self.findings)
        split = QSplitter(Qt.Orientation.Vertical)
        for pane, stretch in ((self.rows, 3), (lower, 2), (findings, 2)):
            split.addWidget(pane)
            split.setStretchFactor(split.count() - 1, stretch)
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.quick)
        layout.addWidget(self.full)
        layout.addWidget(self.caption)
        layout.addWidget(split, stretch=1)
        room = (parent.screen() if parent is not None else self.screen()).availableGeometry()
        self.resize(min(1100, int(room.width() * 0.9)), min(900, int(room.height() * 0.9)))

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        if running:
            self.caption.setText("Running… (progress and Cancel in the Jobs panel)")

    def show_report(self, report, header: list[str], tables) -> None:
        """``tables``: (id, title, rows) as ``report.by_table`` gives them."""
        self.report = report
        self.set_running(False)
        self.save_button.setEnabled(True)
        self.caption.setText("<br>".join(header))
        self.rows.clear()
        for table_id, title, rows in tables:
            parent = QTreeWidgetItem([f"{table_id}: {title}"])
            parent.setFirstColumnSpanned(True)
            self.rows.addTopLevelItem(parent)
            for row in rows:
                item = QTreeWidgetItem(self.cells(row))
                item.setData(0, Qt.ItemDataRole.UserRole, row)
                item.setToolTip(0, row.cell.note or "")
                parent.addChild(item)
            parent.setExpanded(True)
        for column in range(len(self.columns)):
            self.rows.resizeColumnToContents(column)
        counts = "".join(
            f"<li>{c.what}: paper {c.paper}, here {c.ours}{f' ({c.note})' if c.note else ''}</li>"
            for c in report.counts
        )
        findings = "".join(
            f"<li><b>{f.verdict}</b>: {f.claim} ({f.evidence})</li>" for f in report.findings
        )
        self.findings.setText(f"<b>Counts</b><ul>{counts}</ul><b>Findings</b><ul>{findings}</ul>")

    def _show_row(self) -> None:
        selected = self.rows.selectedItems()
        row = selected[0].data(0, Qt.ItemDataRole.UserRole) if selected else None
        self.result.setRowCount(0)
        if row is None:
            self.detail.clear()
            return
        note = f"<br>{row.cell.note}" if row.cell.note else ""
        command = f"<br><code>{row.command}</code>" if row.command else ""
        self.detail.setText(
            f"<b>{row.cell.row}, {row.cell.column}</b> ({row.cell.mark}){note}{command}"
        )
        result = self.report.result_of(row) if self.report is not None else None
        summary = result.summary() if result is not None else []
        self.result.setRowCount(len(summary))
        for r, (label, value) in enumerate(summary):
            self.result.setItem(r, 0, QTableWidgetItem(label))
            self.result.setItem(r, 1, QTableWidgetItem(value))
        self.result.resizeColumnsToContents()
