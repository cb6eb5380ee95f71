"""Costra orderings: one seed group's transformations drawn as ordered paths in the
projection, and its comparisons with pass/fail for the current encoder."""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.evaluations.costra import CostraResult, seed_group_paths
from sentspace.app.base.palette import CATEGORICAL, MISCLASSIFIED, SELECTED, PointColours
from sentspace.app.corpora.model import Corpus
from sentspace.app.ui.views.projection_view import ProjectionView

#: Sentences of other seed groups, drawn as context.
BACKGROUND = "#dddddd"
PASSED = "#2ca02c"
ALL_TYPES = ""
#: Short names of ``sentspace.app.corpora.costra.RULES`` for the table.
RULE_NAMES = (
    "seed: paraphrase vs transformation",
    "r1/r2 ordering",
    "r3/r4 too similar / dissimilar",
)
#: The rule last, taking the width left (elided, whole in its tooltip), and the class in
#: the type's tooltip: at 1280x800 the pairs' headers were cut off at the right.
COLUMNS = ("", "type", "more similar", "cos", "less similar", "cos", "rule")


#: Type colours: the categorical palette without its reds, which mark failures here.
TYPE_PALETTE = tuple(c for c in CATEGORICAL if c not in ("#d62728", "#ff9896"))


def type_colour(name: str) -> str:
    """Colour of a transformation type: the seed black, the others ``TYPE_PALETTE`` in
    Costra's type order (unknown types grey)."""
    from sentspace.app.corpora.costra import TRANSFORMATIONS  # noqa: PLC0415 (lazy: start path)

    if name == "seed":
        return SELECTED
    if name not in TRANSFORMATIONS:
        return "#7f7f7f"
    return TYPE_PALETTE[(TRANSFORMATIONS.index(name) - 1) % len(TYPE_PALETTE)]


class PathKey:
    """The key of the paths drawn, as a line of text in ``label`` under the plot: a
    legend inside the plot covered half the group, and beside it took a third of the
    width at 1280x800."""

    def __init__(self, label: QLabel) -> None:
        self.label = label
        #: Each entry's name, in the order drawn.
        self.names: list[str] = []
        self._entries: list[str] = []

    def add(self, name: str, colour: str, line: str) -> None:
        self.names.append(name)
        # Non-breaking spaces: the line wraps between entries, not inside one.
        self._entries.append(
            f'<span style="color:{colour}">{line}</span>&nbsp;'
            + html.escape(name).replace(" ", "&nbsp;")
        )

    def show_entries(self) -> None:
        self.label.setText(" &nbsp; ".join(self._entries))

    def clear(self) -> None:
        self.names, self._entries = [], []
        self.label.clear()


class CostraView(QWidget):
    """One seed group of Costra at a time, in the corpus's projection.

    Ordered types are drawn as arrowed paths from the seed through the interpolations
    to the transformation and its extrapolations; unordered types as dotted spokes from
    the seed. Red dashed lines join the pairs that a failing comparison expected to be
    less similar than another pair. A row of the table draws its two pairs (green: the
    pair expected to be more similar, red: the other).

    Signals
    -------
    sentence_selected(int) : a sentence was clicked in the drawing, -1 for none.
    sentences_selected(object) : the sentences of the comparison chosen in the table
        (int ndarray).
    """

    sentence_selected = Signal(int)
    sentences_selected = Signal(object)
    #: The seed group drawn (index into the corpus's groups), kept with the corpus.
    group_shown = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.corpus: Corpus | None = None
        self.result: CostraResult | None = None
        #: The comparison last clicked (drawn), if any.
        self.chosen_comparison: int | None = None
        self.group = -1
        self.comparison_rows = np.empty(0, dtype=np.int64)

        self.group_choice = QComboBox()
        self.group_choice.setAccessibleName("seed group")
        self.group_choice.setToolTip(
            "The seed group to draw (its number in Costra, its "
            "seed sentence, and how many comparisons fail)"
        )
        self.group_choice.currentIndexChanged.connect(
            lambda _: self.show_group(self.group_choice.currentData())
        )
        self.type_choice = QComboBox()
        self.type_choice.setAccessibleName("transformation type")
        self.type_choice.currentIndexChanged.connect(lambda _: self._redraw())
        # As wide as its longest entry ("All transformation types" was "All transforr"); the
        # seed group's choice, whose entries are sentences, gives up the width.
        self.type_choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.group_choice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.group_choice.setMinimumContentsLength(8)
        self.show_failing = QCheckBox("Failing comparisons")
        self.show_failing.setChecked(True)
        self.show_failing.setToolTip(
            "Red dashed lines between the pairs the encoder put "
            "at least as close as a pair expected to be closer"
        )
        self.show_failing.toggled.connect(lambda _: self._redraw())
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        controls = QHBoxLayout()
        controls.addWidget(QLabel("Seed group"))
        controls.addWidget(self.group_choice, stretch=1)
        controls.addWidget(self.type_choice)
        controls.addWidget(self.show_failing)

        self.projection = ProjectionView()
        self.projection.search.hide()
        self.projection.search_result.hide()
        self.projection.hint.setText("Run the Costra evaluation to draw its orderings.")
        self.projection.clicked.connect(self.sentence_selected)
        plot = self.projection.plot
        plot.setAspectLocked(True)
        self.key = PathKey(self.projection.legend)
        # Faint: a group can have hundreds, and the paths must stay readable.
        faint_red = QColor(MISCLASSIFIED)
        faint_red.setAlpha(70)
        self.failing_lines = pg.PlotDataItem(
            connect="pairs", pen=pg.mkPen(faint_red, width=1, style=Qt.PenStyle.DashLine)
        )
        self.chosen_more = pg.PlotDataItem(pen=pg.mkPen(PASSED, width=3))
        self.chosen_less = pg.PlotDataItem(
            pen=pg.mkPen(MISCLASSIFIED, width=3, style=Qt.PenStyle.DashLine)
        )
        self.group_points = pg.ScatterPlotItem(
            size=11, pxMode=True, pen=pg.mkPen("#333333", width=1)
        )
        for z, item in enumerate(
            (self.failing_lines, self.chosen_more, self.chosen_less, self.group_points), start=10
        ):
            item.setZValue(z)
            plot.addItem(item)
        # Path lines and arrows of the current group, removed on every redraw.
        self.drawn: list[pg.GraphicsObject] = []

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setAccessibleName("costra comparisons")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSortingEnabled(True)
        # One line a comparison; the rule takes the width the other columns leave.
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(
            len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch
        )
        # Columns are sized once per fill: sizing to contents on every inserted item
        # is quadratic in the rows (thousands in the largest groups).
        self.table.itemSelectionChanged.connect(self._comparison_chosen)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.projection)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.summary)
        lower_layout.addWidget(self.table)
        split.addWidget(lower)
        # Half and half: the comparison table keeps 8 rows or more at 1280x800.
        split.setSizes([1000, 1000])
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(split, stretch=1)

    # --- data ---------------------------------------------------------------------

    def clear(self) -> None:
        """Nothing drawn: the corpus shown has no Costra orderings (yet)."""
        self.corpus = self.result = None
        self.chosen_comparison = None
        self.group = -1
        self.comparison_rows = np.empty(0, dtype=np.int64)
        self.projection.clear("Run the Costra evaluation to draw its orderings.")
        for item in (self.failing_lines, self.chosen_more, self.chosen_less, self.group_points):
            item.setData([], [])
        for item in self.drawn:
            self.projection.plot.removeItem(item)
        self.drawn = []
        self.key.clear()
        for choice in (self.group_choice, self.type_choice):
            choice.blockSignals(True)
            choice.clear()
            choice.blockSignals(False)
        self.table.setRowCount(0)
        self.summary.clear()

    def set_data(
        self,
        corpus: Corpus,
        coordinates: np.ndarray,
        result: CostraResult,
        axis_labels: tuple[str, str] = ("PC 1", "PC 2"),
        group: int | None = None,
    ) -> None:
        """Show ``corpus`` (loaded by :func:`sentspace.app.corpora.costra.load_costra`) at
        ``coordinates`` (n, 2) with the comparisons of ``result`` (same corpus), seed
        group ``group`` drawn (default: the first)."""
        self.corpus, self.result = corpus, result
        self.chosen_comparison = None
        self.projection.set_points(
            coordinates,
            PointColours.uniform(len(corpus), BACKGROUND),
            self.describe,
            axis_labels,
            f"{result.provenance.encoder_name}: Costra mean "
            f"{result.mean:.3f}. Grey: the other seed groups.",
        )
        comparisons = result.comparisons
        n_groups = corpus.groups.n_groups
        total = np.bincount(comparisons.group, minlength=n_groups)
        failing = np.bincount(comparisons.group[~result.passed], minlength=n_groups)
        types = corpus.metadata["type"]
        self.group_choice.blockSignals(True)
        self.group_choice.clear()
        names = corpus.groups.names
        # By number, as Costra numbers them: 1, 2, ... 10, not 1, 10, 100.
        order = sorted(
            range(len(names)),
            key=lambda g: (
                not names[g].isdigit(),
                int(names[g]) if names[g].isdigit() else 0,
                names[g],
            ),
        )
        for entry in order:
            seed = next(row for row in corpus.groups.members(entry) if types[row] == "seed")
            text = corpus.texts[seed]
            text = text if len(text) <= 60 else text[:57] + "…"
            self.group_choice.addItem(
                f"{names[entry]}: {text} ({failing[entry]} of {total[entry]} fail)", entry
            )
        self.group_choice.blockSignals(False)
        self.show_group(group if group is not None and 0 <= group < n_groups else order[0])

    def show_group(self, group: int) -> None:
        """Draw seed group ``group`` (index into ``corpus.groups.names``) and list its
        comparisons."""
        if self.corpus is None or group is None:
            return
        self.group = group
        if self.group_choice.currentData() != group:
            self.group_choice.setCurrentIndex(self.group_choice.findData(group))
        self.seed, self.paths, self.spokes = seed_group_paths(self.corpus, group)
        from sentspace.app.corpora.costra import TRANSFORMATIONS  # noqa: PLC0415 (lazy: start path)

        present = [name for name in TRANSFORMATIONS if name in self.paths or name in self.spokes]
        self.type_choice.blockSignals(True)
        self.type_choice.clear()
        self.type_choice.addItem("All transformation types", ALL_TYPES)
        for name in present:
            self.type_choice.addItem(name, name)
        self.type_choice.blockSignals(False)
        self._redraw()
        members = self.corpus.groups.members(group)
        x, y = self.projection.coordinates[members].T
        self.projection.view_box.setRange(
            xRange=(float(x.min()), float(x.max())),
            yRange=(float(y.min()), float(y.max())),
            padding=0.15,
        )
        self.group_shown.emit(group)

    def describe(self, index: int) -> str:
        corpus = self.corpus
        return (
            f"{corpus.texts[index]}\n[id {corpus.ids[index]}, "
            f"{corpus.metadata['type'][index]}, seed group "
            f"{corpus.metadata['seed group'][index]}]"
        )

    # --- drawing ------------------------------------------------------------------

    def _redraw(self) -> None:
        if self.corpus is None or self.group < 0:
            return
        plot = self.projection.plot
        for item in self.drawn:
            plot.removeItem(item)
        self.drawn.clear()
        self.key.clear()
        chosen = self.type_choice.currentData() or ALL_TYPES
        xy = self.projection.coordinates
        shown = [self.seed]
        for name, rows in self.paths.items():
            if chosen in (ALL_TYPES, name):
                self._draw_path(name, rows, xy)
                shown += rows[1:]
        for name, rows in self.spokes.items():
            if chosen in (ALL_TYPES, name):
                self._draw_spokes(name, rows, xy)
                shown += rows
        shown = np.array(shown)
        types = self.corpus.metadata["type"]
        self.group_points.setData(
            pos=xy[shown],
            data=shown,
            brush=[pg.mkBrush(type_colour(types[row])) for row in shown],
            size=[15 if row == self.seed else 11 for row in shown],
        )
        self.key.show_entries()
        self._fill_table(chosen)
        self._draw_failing()
        self.chosen_more.clear()
        self.chosen_less.clear()

    def _draw_path(self, name: str, rows: list[int], xy: np.ndarray) -> None:
        colour = type_colour(name)
        line = pg.PlotDataItem(xy[rows], pen=pg.mkPen(colour, width=2))
        self._add(line, 5)
        self.key.add(name, colour, "━━")
        for start, end in zip(rows, rows[1:]):
            (x0, y0), (x1, y1) = xy[start].tolist(), xy[end].tolist()
            if (x0, y0) == (x1, y1):
                continue
            # The arrow ignores the view's transform, so its angle is on screen (y down);
            # at angle 0 it points left. The aspect is locked, so data angles hold.
            angle = math.degrees(math.atan2(-(y1 - y0), x1 - x0)) + 180
            arrow = pg.ArrowItem(
                pos=(x0 + 0.6 * (x1 - x0), y0 + 0.6 * (y1 - y0)),
                angle=angle,
                headLen=11,
                tipAngle=35,
                tailLen=0,
                pen=pg.mkPen(colour),
                brush=pg.mkBrush(colour),
            )
            self._add(arrow, 6)

    def _draw_spokes(self, name: str, rows: list[int], xy: np.ndarray) -> None:
        pairs = np.array([[self.seed, row] for row in rows]).ravel()
        spokes = pg.PlotDataItem(
            xy[pairs],
            connect="pairs",
            pen=pg.mkPen(type_colour(name), width=1.5, style=Qt.PenStyle.DotLine),
        )
        self._add(spokes, 4)
        self.key.add(f"{name} (unordered)", type_colour(name), "┅┅")

    def _add(self, item: pg.GraphicsObject, z: int) -> None:
        item.setZValue(z)
        self.projection.plot.addItem(item)
        self.drawn.append(item)

    def _draw_failing(self) -> None:
        rows = self.comparison_rows
        if not self.show_failing.isChecked() or not len(rows):
            self.failing_lines.clear()
            return
        failing = rows[~self.result.passed[rows]]
        pairs = self.result.comparisons.pairs[np.unique(self.result.comparisons.less_pair[failing])]
        self.failing_lines.setData(self.projection.coordinates[pairs.ravel()])

    # --- comparisons table ----------------------------------------------------------

    def _fill_table(self, chosen: str) -> None:
        result, comparisons = self.result, self.result.comparisons
        rows = np.flatnonzero(comparisons.group == self.group)
        if chosen != ALL_TYPES:
            names = comparisons.transformation_names
            rows = rows[[names[t] == chosen for t in comparisons.transformation[rows]]]
        self.comparison_rows = rows
        ids = self.corpus.ids
        self.table.setSortingEnabled(False)
        self.table.clearContents()
        self.table.setRowCount(len(rows))
        fail_brush = QBrush(QColor("#fde0e0"))
        for row, k in enumerate(rows.tolist()):
            passed = bool(result.passed[k])
            more, less = comparisons.more_similar[k], comparisons.less_similar[k]
            transformation = comparisons.transformation_names[comparisons.transformation[k]]
            rule = RULE_NAMES[comparisons.rule[k]]
            cells = (
                "✓" if passed else "✗",
                transformation,
                f"{ids[more[0]]} – {ids[more[1]]}",
                f"{result.more_similar_cosine[k]:.3f}",
                f"{ids[less[0]]} – {ids[less[1]]}",
                f"{result.less_similar_cosine[k]:.3f}",
                rule,
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, k)
                if column in (2, 4):
                    pair = more if column == 2 else less
                    item.setToolTip(
                        "\n".join(f"{ids[row]}: {self.corpus.texts[row]}" for row in pair)
                    )
                elif column == 1:
                    item.setToolTip(
                        f"{transformation}, of the class "
                        f"{comparisons.CLASS_NAMES[comparisons.class_index[k]]}"
                    )
                elif column == 6:
                    item.setToolTip(rule)
                if column == 0:
                    item.setForeground(QColor(PASSED if passed else MISCLASSIFIED))
                    item.setToolTip(
                        "holds" if passed else "fails: the less similar pair is at least as close"
                    )
                if not passed:
                    item.setBackground(fail_brush)
                self.table.setItem(row, column, item)
        self.table.setSortingEnabled(True)
        self.table.resizeColumnsToContents()
        n_failing = int((~result.passed[rows]).sum())
        self.summary.setText(
            f"{len(rows)} comparisons of seed group {self.corpus.groups.names[self.group]}"
            f"{'' if chosen == ALL_TYPES else f' ({chosen})'}; <b>{n_failing} fail</b> for "
            f"{result.provenance.encoder_name} (highlighted). Each holds when the pair in "
            f"‘more similar’ has the higher cosine. Click a row to draw its pairs."
        )

    def _comparison_chosen(self) -> None:
        selected = self.table.selectedItems()
        if not selected:
            return
        k = int(selected[0].data(Qt.ItemDataRole.UserRole))
        self.choose_comparison(k)

    def choose_comparison(self, k: int) -> None:
        """Draw comparison ``k``'s two pairs and ring its sentences."""
        self.chosen_comparison = k
        comparisons = self.result.comparisons
        more, less = comparisons.more_similar[k], comparisons.less_similar[k]
        xy = self.projection.coordinates
        self.chosen_more.setData(xy[more])
        self.chosen_less.setData(xy[less])
        sentences = np.unique(np.concatenate([more, less]))
        self.projection.highlight(sentences)
        self.sentences_selected.emit(sentences)
