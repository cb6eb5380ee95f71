"""Costra orderings: one seed group's transformations drawn as ordered paths in the
projection, and its comparisons with pass/fail for the current encoder."""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableView,
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
#: Drawings of seed groups kept to show again (a group's items, all types or one).
DRAWINGS_KEPT = 8
#: The background of a failing comparison's row.
FAIL_BRUSH = QBrush(QColor("#fde0e0"))


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

    def entries(self) -> tuple[list[str], list[str]]:
        """The names and entries added, to :meth:`restore` with a kept drawing."""
        return list(self.names), list(self._entries)

    def restore(self, names: list[str], entries: list[str]) -> None:
        self.names, self._entries = list(names), list(entries)

    def show_entries(self) -> None:
        self.label.setText(" &nbsp; ".join(self._entries))

    def clear(self) -> None:
        self.names, self._entries = [], []
        self.label.clear()


class ComparisonsModel(QAbstractTableModel):
    """The comparisons of the seed group drawn, one a row (``Qt.UserRole``: its index in
    ``result.comparisons``). A model, not a table of items: the largest groups have
    thousands of comparisons, and making seven items with tooltips a row took 0.2 s of
    every switch back to Costra."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.corpus: Corpus | None = None
        self.result: CostraResult | None = None
        #: The comparison shown in each row.
        self.rows = np.empty(0, dtype=np.int64)
        self._cells: dict[int, tuple[str, ...]] = {}

    def set_rows(self, corpus: Corpus | None, result: CostraResult | None, rows) -> None:
        self.beginResetModel()
        self.corpus, self.result = corpus, result
        self.rows = np.asarray(rows, dtype=np.int64)
        self._cells = {}
        self.endResetModel()

    def cells(self, k: int) -> tuple[str, ...]:
        """Comparison ``k``'s row, made when first painted or sorted by."""
        if k not in self._cells:
            self._cells[k] = self._made(k)
        return self._cells[k]

    def _made(self, k: int) -> tuple[str, ...]:
        result, comparisons, ids = self.result, self.result.comparisons, self.corpus.ids
        more, less = comparisons.more_similar[k], comparisons.less_similar[k]
        return (
            "✓" if result.passed[k] else "✗",
            comparisons.transformation_names[comparisons.transformation[k]],
            f"{ids[more[0]]} – {ids[more[1]]}",
            f"{result.more_similar_cosine[k]:.3f}",
            f"{ids[less[0]]} – {ids[less[1]]}",
            f"{result.less_similar_cosine[k]:.3f}",
            RULE_NAMES[comparisons.rule[k]],
        )

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        k = int(self.rows[row])
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cells(k)[column]
        if role == Qt.ItemDataRole.UserRole:
            return k
        passed = bool(self.result.passed[k])
        if role == Qt.ItemDataRole.BackgroundRole:
            return None if passed else FAIL_BRUSH
        if role == Qt.ItemDataRole.ForegroundRole and column == 0:
            return QColor(PASSED if passed else MISCLASSIFIED)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(k, column, passed)
        return None

    def _tooltip(self, k: int, column: int, passed: bool) -> str:
        comparisons, corpus = self.result.comparisons, self.corpus
        if column == 0:
            return "holds" if passed else "fails: the less similar pair is at least as close"
        if column == 1:
            return (
                f"{comparisons.transformation_names[comparisons.transformation[k]]}, of the "
                f"class {comparisons.CLASS_NAMES[comparisons.class_index[k]]}"
            )
        if column in (2, 4):
            pair = comparisons.more_similar[k] if column == 2 else comparisons.less_similar[k]
            return "\n".join(f"{corpus.ids[row]}: {corpus.texts[row]}" for row in pair)
        if column == 6:
            return RULE_NAMES[comparisons.rule[k]]
        return ""

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        """Sort by a column's text (the cosines by value), stably."""
        if column < 0 or not len(self.rows):
            return
        rows, result = self.rows, self.result
        if column in (3, 5):
            cosines = result.more_similar_cosine if column == 3 else result.less_similar_cosine
            keys = np.round(cosines[rows], 3)
        elif column == 0:
            keys = ~result.passed[rows]  # as the marks' text sorts: "✓" before "✗"
        else:
            keys = np.array([self.cells(k)[column] for k in rows.tolist()])
        order_of = np.argsort(keys, kind="stable")
        if order == Qt.SortOrder.DescendingOrder:
            order_of = order_of[::-1]
        self.layoutAboutToBeChanged.emit()
        self.rows = rows[order_of]
        self.layoutChanged.emit()


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
        # Path lines and arrows of the group drawn. Made once per group and type for a
        # layout (each arrow is a graphics item, 50 of them 0.2 s), hidden when another
        # is drawn or the view is cleared, and shown again when it comes back.
        self.drawn: list[pg.GraphicsObject] = []
        #: The layout the kept drawings are of, and the drawings by (group, type):
        #: their items and their key's entries, most recently drawn last.
        self._drawings_of: np.ndarray | None = None
        self._drawings: dict[tuple[int, str], tuple[list, list, list]] = {}
        #: How many times a group's paths were made (not shown again from the kept).
        self.paths_made = 0

        self.model = ComparisonsModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName("costra comparisons")
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setSortingEnabled(True)
        # One line a comparison; the rule takes the width the other columns leave.
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(
            len(COLUMNS) - 1, QHeaderView.ResizeMode.Stretch
        )
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._comparison_chosen())

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
        self._hide_drawn()
        self.key.clear()
        for choice in (self.group_choice, self.type_choice):
            choice.blockSignals(True)
            choice.clear()
            choice.blockSignals(False)
        self.model.set_rows(None, None, [])
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
        self.key.clear()
        chosen = self.type_choice.currentData() or ALL_TYPES
        xy = self.projection.coordinates
        self._show_paths(chosen, xy)
        shown = [self.seed]
        for name, rows in self.paths.items():
            if chosen in (ALL_TYPES, name):
                shown += rows[1:]
        for name, rows in self.spokes.items():
            if chosen in (ALL_TYPES, name):
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

    def _hide_drawn(self) -> None:
        for item in self.drawn:
            item.hide()
        self.drawn = []

    def _show_paths(self, chosen: str, xy: np.ndarray) -> None:
        """The paths and spokes of the group drawn, of type ``chosen``: the kept ones
        when this layout drew them before, else made (and kept, the last
        ``DRAWINGS_KEPT``)."""
        self._hide_drawn()
        plot = self.projection.plot
        if self._drawings_of is not xy:
            for items, _, _ in self._drawings.values():
                for item in items:
                    plot.removeItem(item)
            self._drawings, self._drawings_of = {}, xy
        key = (self.group, chosen)
        drawing = self._drawings.pop(key, None)
        if drawing is None:
            self.paths_made += 1
            for name, rows in self.paths.items():
                if chosen in (ALL_TYPES, name):
                    self._draw_path(name, rows, xy)
            for name, rows in self.spokes.items():
                if chosen in (ALL_TYPES, name):
                    self._draw_spokes(name, rows, xy)
            drawing = (self.drawn, *self.key.entries())
        else:
            for item in drawing[0]:
                item.show()
            self.drawn = drawing[0]
            self.key.restore(drawing[1], drawing[2])
        self._drawings[key] = drawing
        while len(self._drawings) > DRAWINGS_KEPT:
            oldest = next(iter(self._drawings))
            for item in self._drawings.pop(oldest)[0]:
                plot.removeItem(item)

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
        self.model.set_rows(self.corpus, result, rows)
        header = self.table.horizontalHeader()
        self.model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
        self._size_columns()
        n_failing = int((~result.passed[rows]).sum())
        self.summary.setText(
            f"{len(rows)} comparisons of seed group {self.corpus.groups.names[self.group]}"
            f"{'' if chosen == ALL_TYPES else f' ({chosen})'}; <b>{n_failing} fail</b> for "
            f"{result.provenance.encoder_name} (highlighted). Each holds when the pair in "
            f"‘more similar’ has the higher cosine. Click a row to draw its pairs."
        )

    def _size_columns(self) -> None:
        """Each column but the rule as wide as its widest text, measured here: sizing to
        contents asks the model every cell's data, roles and all."""
        header, metrics = self.table.horizontalHeader(), self.table.fontMetrics()
        model, comparisons, rows = self.model, self.result.comparisons, self.model.rows
        # A column's widest cells are among its longest texts: the rows whose pairs'
        # ids are longest, and one of each type.
        id_lengths = np.array([len(i) for i in self.corpus.ids])
        sample = {int(rows[i]) for i in np.unique(comparisons.transformation[rows], True)[1]}
        for pair in (comparisons.more_pair, comparisons.less_pair):
            lengths = id_lengths[comparisons.pairs[pair[rows]]].sum(axis=1)
            sample |= {int(rows[i]) for i in np.argsort(-lengths, kind="stable")[:5]}
        for column in range(len(COLUMNS) - 1):
            widest = max([0] + [metrics.horizontalAdvance(model.cells(k)[column]) for k in sample])
            header.resizeSection(column, max(widest + 12, header.sectionSizeHint(column)))

    def _comparison_chosen(self) -> None:
        selected = self.table.selectionModel().selectedRows()
        if not selected:
            return
        k = int(self.model.rows[selected[0].row()])
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
