"""A checkable list of encoders, for an analysis that compares several (Agreement):
those given first (this corpus's runs and loaded embeddings), then every family."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.models import ENCODERS


class EncoderChecklist(QDialog):
    """Pick two or more encoders: ``named`` (spec -> label, listed first) and every
    registered family, those in ``checked`` ticked. After ``accepted``,
    :meth:`checked` gives the specs ticked, in list order."""

    def __init__(
        self,
        title: str,
        named: Mapping[str, str],
        checked: list[str],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.list = QListWidget()
        self.list.setAccessibleName("encoders")
        labels = {
            **named,
            **{
                family: f"{cls.title} ({family})"
                for family, cls in ENCODERS.items()
                if family not in named
            },
        }
        for spec, label in labels.items():
            item = QListWidgetItem(label)
            item.setData(Qt.ItemDataRole.UserRole, spec)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            cls = ENCODERS.get(spec)
            if cls is not None and not cls.available():
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
                item.setToolTip(f"not installed: {cls.install_hint}")
            item.setCheckState(
                Qt.CheckState.Checked if spec in checked else Qt.CheckState.Unchecked
            )
            self.list.addItem(item)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.list.itemChanged.connect(lambda _: self._enable_ok())
        self._enable_ok()
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel(
                "Encoders to compare (two or more). Those not run on this "
                "corpus yet are encoded, and trained if they learn, first."
            )
        )
        layout.addWidget(self.list, 1)
        layout.addWidget(self.buttons)

    def checked(self) -> list[str]:
        return [
            item.data(Qt.ItemDataRole.UserRole)
            for item in map(self.list.item, range(self.list.count()))
            if item.checkState() == Qt.CheckState.Checked
        ]

    def _enable_ok(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(len(self.checked()) >= 2)
