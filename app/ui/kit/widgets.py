"""Small helpers for the window's combo boxes and labels."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QLabel,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QWidget,
)

from sentspace.models import ENCODERS


def narrow_choice(choice: QComboBox, length: int = 14) -> None:
    """Long titles (file names of precomputed embeddings) must not widen a panel."""
    choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    choice.setMinimumContentsLength(length)


def keep_room(widget: QWidget) -> None:
    """Hidden, ``widget`` keeps its place, so what is below does not jump when it shows
    (a result's "computed before N edits" moved the table and chart ~30-100 px)."""
    policy = widget.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    widget.setSizePolicy(policy)


def fill_encoder_choice(choice: QComboBox) -> None:
    """Every registered encoder; those whose optional packages are missing are listed,
    greyed out, with the command that installs them."""
    for family, cls in ENCODERS.items():
        choice.addItem(f"{cls.title} ({family})", family)
        if not cls.available():
            model = choice.model()
            # A combo box's own model: none of those given here is set another.
            assert isinstance(model, QStandardItemModel)
            item = model.item(choice.count() - 1)
            item.setEnabled(False)
            item.setToolTip(f"not installed: {cls.install_hint}")


def row_table(headers: Sequence[str], name: str) -> QTableWidget:
    """A read-only table of ``headers`` (its accessible ``name``) chosen by whole rows,
    without row numbers: each column as wide as its contents but the last, which takes
    the rest."""
    table = QTableWidget(0, len(headers))
    table.setAccessibleName(name)
    table.setHorizontalHeaderLabels(list(headers))
    table.verticalHeader().setVisible(False)
    header = table.horizontalHeader()
    for column in range(len(headers) - 1):
        header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(len(headers) - 1, QHeaderView.ResizeMode.Stretch)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    return table


class ElidedLabel(QLabel):
    """One line, elided (``mode``) to its width, whole in its tooltip: a long job name or
    message neither widens nor heightens the panel it is in."""

    def __init__(
        self,
        text: str = "",
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
        parent: QWidget | None = None,
    ):
        super().__init__(text, parent)
        self.mode = mode

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        return QSize(0, super().sizeHint().height())

    def paintEvent(self, _event: QPaintEvent) -> None:
        self.style().drawItemText(
            QPainter(self),
            self.contentsRect(),
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            self.shown_text(),
            self.foregroundRole(),
        )

    def shown_text(self) -> str:
        """The text as painted at the label's width."""
        return self.fontMetrics().elidedText(self.text(), self.mode, self.contentsRect().width())


class OneLineDelegate(QStyledItemDelegate):
    """Rows as wide as their list, so long text is elided instead of widening every row
    past the viewport (a list sizes its rows to the widest text)."""

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        return QSize(0, super().sizeHint(option, index).height())
