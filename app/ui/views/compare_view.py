"""Compare two encoders: their projections side by side, B aligned to A, with linked
hover and selection, and the sentences whose neighbourhoods changed most."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSplitter,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.compare import SpaceComparison
from sentspace.app.base.palette import PointColours, category_colours, sequential_colours
from sentspace.app.ui.kit.widgets import row_table
from sentspace.app.ui.views.projection_view import ProjectionView

#: Rows of the most-changed list.
LISTED = 200
COLOURINGS = {"change": "neighbourhood change", "group": "group"}
ALIGNMENT_TITLES = {"procrustes": "Procrustes", "aligned-umap": "AlignedUMAP"}


class CompareView(QWidget):
    """Two projections of one corpus, B's layout rotated and scaled onto A's.

    Hovering a sentence in one view rings it in the other; clicking one (in a view or
    in the list) selects it in both and marks its k nearest neighbours in each space
    with orange diamonds, so a changed neighbourhood is seen moving.

    Signals
    -------
    sentence_selected(int) : a sentence was selected, -1 for none.
    """

    sentence_selected = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.comparison: SpaceComparison | None = None
        self.selected = -1
        self.caption = QLabel("Choose two encoders and press Compare.")
        self.caption.setWordWrap(True)
        self.colour = QComboBox()
        for key, title in COLOURINGS.items():
            self.colour.addItem(f"Colour: {title}", key)
        self.colour.setToolTip("Colour both projections by neighbourhood change or by group")
        self.colour.currentIndexChanged.connect(lambda _: self._recolour())
        self.alignment = QComboBox()
        self.alignment.setAccessibleName("alignment")
        for key, title in ALIGNMENT_TITLES.items():
            self.alignment.addItem(f"Align: {title}", key)
        self.alignment.setToolTip(
            "Procrustes: each space is projected on its own, then B's layout is rotated "
            "and scaled onto A's.\nAlignedUMAP: UMAP is fitted on both spaces together "
            "(slower), so each sentence stays near its place in A unless its "
            "neighbourhood differs; uses the UMAP parameters of the Projection panel."
        )
        self.views = (ProjectionView(), ProjectionView())
        self.titles = (QLabel(), QLabel())
        panes = QSplitter(Qt.Orientation.Horizontal)
        for view, title, other in zip(self.views, self.titles, reversed(self.views)):
            # The side-by-side views share the window's search elsewhere.
            view.search.hide()
            view.search_result.hide()
            view.hint.setText("")
            view.hovered.connect(other.ring)
            view.clicked.connect(self.select)
            title.setStyleSheet("font-weight: bold")
            pane = QWidget()
            column = QVBoxLayout(pane)
            column.setContentsMargins(0, 0, 0, 0)
            column.addWidget(title)
            column.addWidget(view, stretch=1)
            panes.addWidget(pane)
        self.view_a, self.view_b = self.views
        # B is drawn in A's frame, so both pan and zoom together.
        self.view_b.plot.setXLink(self.view_a.plot)
        self.view_b.plot.setYLink(self.view_a.plot)
        self.view_b.legend.hide()
        self.view_a.plot.setAccessibleName("projection A")
        self.view_b.plot.setAccessibleName("projection B")

        self.selection = QLabel()
        self.selection.setWordWrap(True)
        self.changed = row_table(["change", "shared", "sentence"], "most changed neighbourhoods")
        self.changed.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.changed.setToolTip(
            "1 - Jaccard similarity of the sentence's k nearest "
            "neighbours (cosine) in the two spaces; click to select"
        )
        self.changed.cellClicked.connect(
            lambda row, _: self.select(
                int(self.changed.item(row, 0).data(Qt.ItemDataRole.UserRole))
            )
        )
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.selection)
        lower_layout.addWidget(self.changed)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(panes)
        split.addWidget(lower)
        # The list keeps about a third: 8 rows or more at 1280x800.
        split.setSizes([2000, 1000])
        # The choices get a row of their own, whole; the caption the width below them.
        choices = QHBoxLayout()
        choices.addWidget(self.alignment)
        choices.addWidget(self.colour)
        choices.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(choices)
        layout.addWidget(self.caption)
        layout.addWidget(split, stretch=1)

    def selected_alignment(self) -> str:
        """The alignment to ask :func:`sentspace.app.analysis.compare.compare_encoders` for."""
        return self.alignment.currentData()

    def show_comparison(self, comparison: SpaceComparison) -> None:
        """Show a :func:`sentspace.app.analysis.compare.compare_encoders` result."""
        self.comparison = comparison
        self.selected = -1
        name_a, name_b = comparison.names
        change, alignment = comparison.change, comparison.alignment
        how = (
            f"{name_b}'s layout is rotated and scaled onto {name_a}'s"
            if alignment.method == "procrustes"
            else "Both UMAP layouts are fitted together (AlignedUMAP)"
        )
        self.caption.setText(
            f"<b>{name_a}</b> vs <b>{name_b}</b> on {comparison.corpus.name}: mean "
            f"neighbourhood change {change.mean:.2f} ({change.k} nearest neighbours by "
            f"cosine; 0 = the same, 1 = none shared). {how}; disparity "
            f"{alignment.disparity:.2f} (0 = the layouts match)."
        )
        self.titles[0].setText(f"A: {name_a}")
        self.titles[1].setText(f"B: {name_b}, aligned to A")
        colours, legend = self._colouring()
        self.view_a.set_points(
            comparison.projection_a.coordinates,
            colours,
            self.describe,
            comparison.projection_a.axis_labels,
            legend,
        )
        self.view_b.set_points(
            alignment.coordinates,
            colours,
            self.describe,
            (
                f"{comparison.projection_a.axis_labels[0]} of A",
                f"{comparison.projection_a.axis_labels[1]} of A",
            ),
            legend,
        )
        # The linked views share one range: it must hold both layouts.
        both = np.concatenate([comparison.projection_a.coordinates, alignment.coordinates])
        (x0, y0), (x1, y1) = both.min(axis=0).tolist(), both.max(axis=0).tolist()
        self.view_a.view_box.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0.05)
        self._fill_list()
        self.selection.setText(
            "Click a point or a row to see its neighbours in both spaces (orange diamonds)."
        )

    def _colouring(self) -> tuple[PointColours, str]:
        comparison = self.comparison
        n = len(comparison.corpus)
        groups = comparison.corpus.groups
        if self.colour.currentData() == "group" and groups is not None:
            return (category_colours(groups.first_group(n)), f"Colour: {groups.kind}.")
        return (
            sequential_colours(comparison.change.change),
            "Colour: neighbourhood change (dark: same neighbours in both spaces, "
            "yellow: none shared).",
        )

    def _recolour(self) -> None:
        if self.comparison is not None:
            colours, legend = self._colouring()
            for view in self.views:
                view.set_colours(colours, legend)

    def _fill_list(self) -> None:
        change = self.comparison.change
        texts = self.comparison.corpus.texts
        rows = change.most_changed(LISTED)
        self.changed.setRowCount(len(rows))
        for row, index in enumerate(rows.tolist()):
            score = QTableWidgetItem(f"{change.change[index]:.2f}")
            score.setData(Qt.ItemDataRole.UserRole, index)
            shared = QTableWidgetItem(f"{self.shared(index)} of {change.k}")
            for item in (score, shared):
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            sentence = QTableWidgetItem(texts[index])
            sentence.setToolTip(texts[index])
            self.changed.setItem(row, 0, score)
            self.changed.setItem(row, 1, shared)
            self.changed.setItem(row, 2, sentence)

    def shared(self, index: int) -> int:
        """How many of sentence ``index``'s k neighbours the two spaces share."""
        change = self.comparison.change
        return len(np.intersect1d(change.neighbours_a[index], change.neighbours_b[index]))

    def describe(self, index: int) -> str:
        corpus, change = self.comparison.corpus, self.comparison.change
        return (
            f"{corpus.texts[index]}\n[{corpus.ids[index]}, neighbourhood change "
            f"{change.change[index]:.2f}: {self.shared(index)} of {change.k} "
            f"neighbours shared]"
        )

    def clear(self) -> None:
        """Show nothing: the corpus shown has no comparison yet."""
        self.comparison = None
        self.selected = -1
        for view, title in zip(self.views, self.titles):
            view.clear("")
            title.clear()
        self.changed.setRowCount(0)
        self.selection.clear()
        self.caption.setText("Choose two encoders and press Compare.")

    def select(self, index: int) -> None:
        """Select sentence ``index`` (-1: none): shown here, and said to the window."""
        if self.comparison is None:
            return
        self.show_selected(index)
        self.sentence_selected.emit(index)

    def show_selected(self, index: int) -> None:
        """Show sentence ``index`` (-1: none) selected in both views and the list."""
        if self.comparison is None or index == self.selected:
            return
        self.selected = index
        change = self.comparison.change
        empty = np.empty(0, dtype=np.int64)
        for view, neighbours in zip(self.views, (change.neighbours_a, change.neighbours_b)):
            view.highlight([index] if index >= 0 else empty)
            view.show_found(neighbours[index] if index >= 0 else empty)
        row = next(
            (
                r
                for r in range(self.changed.rowCount())
                if self.changed.item(r, 0).data(Qt.ItemDataRole.UserRole) == index
            ),
            -1,
        )
        if row >= 0:
            self.changed.selectRow(row)
        else:
            self.changed.clearSelection()
        if index >= 0:
            self.selection.setText(
                f"<b>{self.comparison.corpus.texts[index]}</b> — change "
                f"{change.change[index]:.2f}, {self.shared(index)} of {change.k} nearest "
                f"neighbours shared. Orange diamonds: its neighbours in each space."
            )
