"""Which column of a user's table holds what: the GUI face of ``ColumnMapping``."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.corpora.tabular import ROLES, ColumnMapping, preview_table

ROLE_TITLES = {
    "text": "Sentence",
    "sentence1": "First sentence of a pair",
    "sentence2": "Second sentence of a pair",
    "group": "Group (paraphrase group, topic)",
    "label": "Label",
    "score": "Gold score",
    "split": "Split (train/test)",
    "id": "Sentence id",
}


class MappingDialog(QDialog):
    """Shows the first rows of a table and lets the user pick each role's column.

    ``mapping()`` gives the chosen :class:`ColumnMapping` (columns by 0-based index).
    """

    def __init__(self, path: str | Path, problem: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.path = Path(path)
        self.setWindowTitle(f"Columns of {self.path.name}")
        self.resize(760, 480)
        explanation = QLabel(problem or "Choose what each column holds.")
        explanation.setWordWrap(True)
        self.header = QCheckBox("The first row names the columns")
        self.header.toggled.connect(self._refresh)
        self.preview = QTableWidget()
        self.preview.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.roles: dict[str, QComboBox] = {role: QComboBox() for role in ROLES}
        form = QFormLayout()
        for role, combo in self.roles.items():
            form.addRow(ROLE_TITLES.get(role, role), combo)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        layout = QVBoxLayout(self)
        layout.addWidget(explanation)
        layout.addWidget(self.header)
        layout.addWidget(self.preview, stretch=1)
        layout.addLayout(form)
        layout.addWidget(buttons)
        for combo in self.roles.values():
            combo.currentIndexChanged.connect(self._validate)
        self._refresh()

    def _refresh(self) -> None:
        names, rows = preview_table(self.path, ColumnMapping(header=self.header.isChecked()))
        self.preview.setColumnCount(len(names))
        self.preview.setHorizontalHeaderLabels(names)
        self.preview.setRowCount(len(rows))
        for r, cells in enumerate(rows):
            for c, cell in enumerate(cells):
                self.preview.setItem(r, c, QTableWidgetItem(cell))
        for combo in self.roles.values():
            combo.blockSignals(True)
            combo.clear()
            combo.addItem("(none)", None)
            for index, name in enumerate(names):
                combo.addItem(f"{index + 1}: {name}", index)
            combo.blockSignals(False)
        self._validate()

    def _validate(self) -> None:
        chosen = self.mapping().roles()
        enough = "text" in chosen or {"sentence1", "sentence2"} <= chosen.keys()
        self.ok_button.setEnabled(enough)

    def choose(self, role: str, column: int | None) -> None:
        combo = self.roles[role]
        combo.setCurrentIndex(combo.findData(column))

    def mapping(self) -> ColumnMapping:
        chosen = {role: combo.currentData() for role, combo in self.roles.items()}
        return ColumnMapping(
            header=self.header.isChecked(),
            **{role: column for role, column in chosen.items() if column is not None},
        )
