"""What this session holds: the corpora opened, the encoders run, the results made."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

SECTIONS = ("Corpora", "Encoders", "Results")


class WorkspacePanel(QWidget):
    """A tree of the session's corpora, encoders (of the current corpus) and results.

    Signals
    -------
    corpus_chosen(str) : a corpus (its spec) was double-clicked, to open it again.
    result_chosen(int) : a result (its index in the session's runs) was clicked.
    """

    corpus_chosen = Signal(str)
    result_chosen = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setAccessibleName("workspace")
        self.tree.setToolTip("Double-click a corpus to open it again; click a result to "
                             "show it in the Evaluations panel")
        self.sections = {}
        for title in SECTIONS:
            section = QTreeWidgetItem([title])
            section.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.tree.addTopLevelItem(section)
            section.setExpanded(True)
            self.sections[title] = section
        self.tree.itemDoubleClicked.connect(self._double_clicked)
        self.tree.itemClicked.connect(self._clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree)

    def entries(self, section: str) -> list[str]:
        parent = self.sections[section]
        return [parent.child(i).text(0) for i in range(parent.childCount())]

    def add_corpus(self, spec: str, description: str) -> None:
        """Remember an opened corpus (once per spec; the newest description wins)."""
        parent = self.sections["Corpora"]
        for i in range(parent.childCount()):
            if parent.child(i).data(0, Qt.ItemDataRole.UserRole) == spec:
                parent.child(i).setText(0, description)
                return
        item = QTreeWidgetItem([description])
        item.setData(0, Qt.ItemDataRole.UserRole, spec)
        item.setToolTip(0, spec)
        parent.addChild(item)

    def set_encoders(self, names: list[str]) -> None:
        """The encoders explored on the current corpus."""
        parent = self.sections["Encoders"]
        parent.takeChildren()
        for name in names:
            parent.addChild(QTreeWidgetItem([name]))

    def add_result(self, index: int, description: str) -> None:
        item = QTreeWidgetItem([description])
        item.setData(0, Qt.ItemDataRole.UserRole, index)
        self.sections["Results"].addChild(item)

    def _double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if item.parent() is self.sections["Corpora"]:
            self.corpus_chosen.emit(item.data(0, Qt.ItemDataRole.UserRole))

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if item.parent() is self.sections["Results"]:
            self.result_chosen.emit(item.data(0, Qt.ItemDataRole.UserRole))
