"""The Review panel's table: each suspicious item a row with its numbers, sorted and
filtered by what the reviewer chose."""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QTableView,
)

from sentspace.app.analysis.suspicious import (
    ReviewList,
)
from sentspace.app.base.palette import CATEGORICAL

#: The column naming who decided each item; the author filter reads it.
DECIDED_BY = "decided by"


#: The author filter's choices besides each author.
EVERYONE, UNDECIDED = "Everyone", "Nobody yet"


#: The sorted column's arrow, as Qt's Fusion style draws it (ascending: pointing down).
SORT_ARROWS = {Qt.SortOrder.AscendingOrder: "▾", Qt.SortOrder.DescendingOrder: "▴"}


#: Role that carries a cell's raw value (number or text), which the proxy sorts by.
SORT_ROLE = Qt.ItemDataRole.UserRole


REVIEWED_COLOUR = QColor("#9a9a9a")


#: How much of an author's colour tints the rows they decided (the rest is white).
TINT_SHARE = 0.22


def author_tint(colour: str) -> QColor:
    """A pale tint of ``colour`` for the rows an author decided: ``colour`` mixed with
    white, as pale for every hue. ``QColor.lighter`` left blue (#1f77b4, the first
    author's) a mid blue (#7ac9ff) that read as the selection, with the greyed text of
    reviewed rows faint on it, and orange almost white."""
    base = QColor(colour)
    return QColor(
        *(
            round(255 - TINT_SHARE * (255 - channel))
            for channel in (base.red(), base.green(), base.blue())
        )
    )


#: The widest a column of numbers or names is sized (its heading elided, whole in its
#: tooltip): headings such as "paraphrase group" took 150 px over values of 4 digits.
NUMBER_WIDTH = 80


#: Columns of sentences: they share the width the columns beside them leave, and wrap.
TEXT_COLUMNS = ("sentence", "first", "second", "farthest member", "A", "B")

#: Headings longer than this (in characters) are written on two lines, so a column of
#: numbers is not widened by its heading nor its heading cut ("paraphras…").
ONE_LINE_HEADING = 10


def shown_heading(header: str) -> str:
    """``header`` as its column shows it: a long heading of several words on two lines,
    broken at the space nearest its middle ("paraphrase" over "group")."""
    if len(header) <= ONE_LINE_HEADING or " " not in header or header in TEXT_COLUMNS:
        return header
    spaces = [at for at, char in enumerate(header) if char == " "]
    at = min(spaces, key=lambda space: abs(len(header) - 2 * space))
    return header[:at] + "\n" + header[at + 1 :]


_Index = QModelIndex | QPersistentModelIndex


class ReviewTableModel(QAbstractTableModel):
    """One :class:`ReviewList` as a table, after a "rank" column (the list's own order,
    1 = most suspicious) and before a "decided by" column (the authors of the edits and
    marks on each item, tinted by its first author); rows marked reviewed are greyed."""

    def __init__(
        self,
        items: ReviewList,
        reviewed: set[str],
        deciders: dict[str, tuple[str, ...]] | None = None,
    ):
        super().__init__()
        self.items = items
        self.keys = [items.key(row) for row in range(len(items))]
        # Who decided beside the rank, in view however wide the sentences are.
        columns = [
            ("rank", range(1, len(items) + 1)),
            (DECIDED_BY, [""] * len(self.keys)),
            *items.columns(),
        ]
        self.headers = [header for header, _ in columns]
        self.values = [
            values.tolist() if isinstance(values, np.ndarray) else list(values)
            for _, values in columns
        ]
        self.set_reviewed(reviewed, deciders or {})

    def rowCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.keys)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.headers)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return shown_heading(self.headers[section])
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.headers[section]  # on one line, whole where elided
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        value = self.values[index.column()][index.row()]
        if role == SORT_ROLE:
            # NaN sorts as the lowest number, not as an incomparable value.
            return -np.inf if isinstance(value, float) and value != value else value
        if role == Qt.ItemDataRole.DisplayRole:
            if isinstance(value, float):
                return "" if value != value else f"{value:.3f}"
            return str(value)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.items.why(index.row())
        if role == Qt.ItemDataRole.ForegroundRole and self.keys[index.row()] in self.reviewed:
            return REVIEWED_COLOUR
        if role == Qt.ItemDataRole.BackgroundRole:
            authors = self.deciders.get(self.keys[index.row()])
            return self.tints[authors[0]] if authors else None
        if role == Qt.ItemDataRole.TextAlignmentRole and isinstance(value, (int, float)):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def set_reviewed(self, reviewed: set[str], deciders: dict[str, tuple[str, ...]]) -> None:
        """Items marked reviewed, and who decided each item (by key)."""
        self.reviewed, self.deciders = reviewed, deciders
        self.values[self.headers.index(DECIDED_BY)] = [
            ", ".join(deciders.get(key, ())) for key in self.keys
        ]
        authors = sorted({author for names in deciders.values() for author in names})
        self.tints = {
            author: author_tint(CATEGORICAL[k % len(CATEGORICAL)])
            for k, author in enumerate(authors)
        }
        if self.keys:
            self.dataChanged.emit(
                self.index(0, 0), self.index(len(self.keys) - 1, len(self.headers) - 1)
            )


class ReviewFilter(QSortFilterProxyModel):
    """Sorts by raw values; keeps rows whose text matches the filter (any column,
    case-insensitive), decided by ``author`` (or by nobody yet) and, when asked, hides
    reviewed rows."""

    def __init__(self) -> None:
        super().__init__()
        self.setSortRole(SORT_ROLE)
        self.setFilterKeyColumn(-1)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.hide_reviewed = False
        self.author = EVERYONE

    def sorted_by(self) -> tuple[int, Qt.SortOrder]:
        """The column the rows are sorted by and how: unsorted, they are in the list's
        own order, by rank (column 0) ascending."""
        column = self.sortColumn()
        return (column, self.sortOrder()) if column >= 0 else (0, Qt.SortOrder.AscendingOrder)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """The heading of the sorted column carries its arrow: Qt's own sort indicator
        keeps room for an arrow in every heading, 34 px that cut "paraphrase" to
        "paraphras…" in a column of 3-digit numbers."""
        heading = super().headerData(section, orientation, role)
        column, order = self.sorted_by()
        if role != Qt.ItemDataRole.DisplayRole or section != column or heading is None:
            return heading
        first, *rest = str(heading).split("\n")
        return "\n".join([f"{first} {SORT_ARROWS[order]}", *rest])

    def set_author(self, author: str) -> None:
        if author != self.author:  # a pass over every row, a tenth of a corpus switch
            self.author = author
            self.refilter()

    def set_hide_reviewed(self, hide: bool) -> None:
        self.hide_reviewed = hide
        self.refilter()

    def refilter(self) -> None:
        """Filter again after the review marks or ``hide_reviewed`` changed."""
        if hasattr(self, "beginFilterChange"):  # Qt 6.9+, where invalidateFilter is deprecated
            self.beginFilterChange()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.invalidateFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: _Index) -> bool:
        model = self.sourceModel()
        assert isinstance(model, ReviewTableModel)
        key = model.keys[source_row]
        if self.hide_reviewed and key in model.reviewed:
            return False
        if self.author != EVERYONE:
            authors = model.deciders.get(key, ())
            if authors if self.author == UNDECIDED else self.author not in authors:
                return False
        return super().filterAcceptsRow(source_row, source_parent)


class _RowTable(QTableView):
    """A table whose rows are chosen whole: going to a row keeps the columns where they
    are, where Qt would scroll a clicked wide cell (the sentence) into view and push the
    rank and author columns out of it."""

    def scrollTo(self, index, hint=QAbstractItemView.ScrollHint.EnsureVisible) -> None:
        columns_at = self.horizontalScrollBar().value()
        super().scrollTo(index, hint)
        self.horizontalScrollBar().setValue(columns_at)
