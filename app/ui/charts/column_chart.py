"""One column of the Filter panel: a histogram with a draggable range brush (numbers) or
clickable bars of its top categories, "other" and none (categories). Every bar is drawn
faint at its whole count and solid at its count under the other conditions."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QWidget

from sentspace.app.analysis.filters import OTHER, Chart, Chosen, Condition, Range

ALL_BRUSH, SHOWN_BRUSH, CHOSEN_BRUSH = "#d5dbe5", "#4a78b5", "#e69500"
#: Pixels per category bar, and around the plot; of the labels beside the bars, and of
#: those the ticks and gaps take.
BAR_PX, FRAME_PX = 16, 24
LABEL_PX, LABEL_MARGIN_PX = 130, 12
HISTOGRAM_PX = 92


class _BrushBox(pg.ViewBox):
    """A view box that neither pans nor zooms: a drag brushes, a click picks a bar."""

    def __init__(self, chart: ColumnChart) -> None:
        super().__init__(enableMenu=False)
        self.setMouseEnabled(False, False)
        self._chart = chart

    def mouseDragEvent(self, ev, axis=None) -> None:
        if ev.button() != Qt.MouseButton.LeftButton or not self._chart.chart.numeric:
            ev.ignore()
            return
        ev.accept()
        start = self.mapSceneToView(ev.buttonDownScenePos()).x()
        now = self.mapSceneToView(ev.scenePos()).x()
        self._chart.brush(min(start, now), max(start, now))

    def mouseClickEvent(self, ev) -> None:
        if ev.button() != Qt.MouseButton.LeftButton:
            ev.ignore()
            return
        ev.accept()
        point = self.mapSceneToView(ev.scenePos())
        self._chart.clicked_at(point.x(), point.y())


class ColumnChart(pg.PlotWidget):
    """The chart of one :class:`~sentspace.app.analysis.filters.Chart`.

    Signals
    -------
    brushed(str, float, float) : the column's title and the values brushed (both in).
    toggled(str, str) : the column's title and the category clicked (``OTHER`` for the
        "other" bar, the column's ``none`` for the sentences without one).
    cleared(str) : a click on a histogram outside its brush.
    """

    brushed = Signal(str, float, float)
    toggled = Signal(str, str)
    cleared = Signal(str)

    def __init__(self, chart: Chart, parent: QWidget | None = None) -> None:
        super().__init__(parent, background="w", viewBox=_BrushBox(self))
        self.chart = chart
        self.setAccessibleName(f"filter chart {chart.title}")
        item = self.getPlotItem()
        item.hideButtons()
        item.setMenuEnabled(False)
        font = self.font()
        font.setPointSizeF(font.pointSizeF() * 0.85)
        for side in ("left", "bottom"):
            item.getAxis(side).enableAutoSIPrefix(False)
            item.getAxis(side).setStyle(tickFont=font)
        self._brushed: tuple[float, float] | None = None
        self._totals: np.ndarray | None = None
        self._counts: np.ndarray | None = None
        self._condition: Condition | None = None
        self._shown_brush, self._chosen_brush = pg.mkBrush(SHOWN_BRUSH), pg.mkBrush(CHOSEN_BRUSH)
        self.region: pg.LinearRegionItem | None = None
        if chart.numeric:
            self._build_histogram()
        else:
            self._build_bars()

    # --- building ----------------------------------------------------------------

    def _build_histogram(self) -> None:
        edges = self.chart.edges
        width = float(edges[1] - edges[0])
        # Integer bins one wide are centred on their value; wider ones span their edges.
        self._offset = -0.5 if self.chart.integer and width == 1 else 0.0
        self._x = edges[:-1] + width / 2 + self._offset
        self._width = width * 0.9
        self.all_bars = pg.BarGraphItem(
            x=self._x, height=np.zeros(len(self._x)), width=self._width, brush=ALL_BRUSH, pen=None
        )
        self.shown_bars = pg.BarGraphItem(
            x=self._x, height=np.zeros(len(self._x)), width=self._width, brush=SHOWN_BRUSH, pen=None
        )
        self.addItem(self.all_bars)
        self.addItem(self.shown_bars)
        self.region = pg.LinearRegionItem(
            brush=pg.mkBrush(230, 149, 0, 50), pen=pg.mkPen(CHOSEN_BRUSH, width=2)
        )
        self.region.setZValue(10)
        self.region.hide()
        self.region.sigRegionChanged.connect(self._region_moved)
        self.addItem(self.region)
        self.getPlotItem().hideAxis("left")
        self.setFixedHeight(HISTOGRAM_PX)
        low, high = float(edges[0]) + self._offset, float(edges[-1]) + self._offset
        self.setXRange(low, high, padding=0.02)
        self.setToolTip(
            "Drag across the bars to keep a range; drag its edges to change "
            "it; click outside it to clear"
        )

    def _build_bars(self) -> None:
        labels = self.chart.labels
        self._rows = [slot for slot, label in enumerate(labels) if label]
        y = np.arange(len(self._rows))
        self.all_bars = pg.BarGraphItem(
            x0=0, y=y, height=0.8, width=np.zeros(len(y)), brush=ALL_BRUSH, pen=None
        )
        self.shown_bars = pg.BarGraphItem(
            x0=0, y=y, height=0.8, width=np.zeros(len(y)), brush=SHOWN_BRUSH, pen=None
        )
        self.addItem(self.all_bars)
        self.addItem(self.shown_bars)
        item = self.getPlotItem()
        item.invertY(True)
        axis = item.getAxis("left")
        # Elided to the axis's pixels: pyqtgraph leaves out a label wider than its axis
        # (SICK's "CONTRADICTION + NEUTRAL", 20 capitals, was left out whole).
        metrics, room = QFontMetrics(axis.style["tickFont"]), LABEL_PX - LABEL_MARGIN_PX
        axis.setTicks(
            [list(enumerate(_elided([labels[slot] for slot in self._rows], metrics, room))), []]
        )
        # Every bar keeps its label: none dropped as overlapping or too wide.
        axis.setStyle(hideOverlappingLabels=False, autoExpandTextSpace=False)
        axis.setWidth(LABEL_PX)
        self.setFixedHeight(BAR_PX * max(len(self._rows), 1) + FRAME_PX)
        self.setYRange(-0.6, len(self._rows) - 0.4, padding=0)
        self.setToolTip("Click bars to keep those categories; click again to let go")

    # --- drawing -----------------------------------------------------------------

    def show_counts(
        self, totals: np.ndarray, counts: np.ndarray, condition: Condition | None
    ) -> None:
        """Bars at ``totals`` (faint) and ``counts`` (solid), ``condition`` marked; a
        chart shown the same counts (the same array) and condition is left alone."""
        if self._totals is totals and self._counts is counts and self._condition == condition:
            return
        self._counts, self._condition = counts, condition
        if self._totals is not totals:
            # The whole counts (and so the axes) change with the table only, not per brush.
            self._totals = totals
            if self.chart.numeric:
                bins = len(self._x)
                self.all_bars.setOpts(height=totals[:bins])
                self.setYRange(0, max(float(totals[:bins].max()), 1.0), padding=0.05)
            else:
                self.all_bars.setOpts(width=totals[self._rows])
                self.setXRange(0, max(float(totals[self._rows].max()), 1.0), padding=0.02)
        if self.chart.numeric:
            self.shown_bars.setOpts(height=counts[: len(self._x)])
            self._show_range(condition if isinstance(condition, Range) else None)
            return
        chosen = set(condition.names) if isinstance(condition, Chosen) else set()
        self.shown_bars.setOpts(
            width=counts[self._rows],
            brushes=[
                self._chosen_brush if self.name_of(slot) in chosen else self._shown_brush
                for slot in self._rows
            ],
        )

    def _show_range(self, condition: Range | None) -> None:
        if condition is None:
            self._brushed = None
            self.region.hide()
            return
        if self._brushed == (condition.low, condition.high) and self.region.isVisible():
            return  # the user's own drag: leave the edges under it
        self._brushed = (condition.low, condition.high)
        pad = 0.5 if self.chart.integer else 0.0
        self.region.blockSignals(True)
        self.region.setRegion((condition.low - pad, condition.high + pad))
        self.region.blockSignals(False)
        self.region.show()

    # --- the user ------------------------------------------------------------------

    def name_of(self, slot: int) -> str:
        """The category a bar stands for."""
        if slot == self.chart.other_slot:
            return OTHER
        if slot == self.chart.other_slot + 1:
            return self.chart.column.none
        return self.chart.labels[slot]

    def brush(self, low: float, high: float) -> None:
        """Keep the values from ``low`` to ``high`` (an integer column: the whole
        numbers whose bars they reach)."""
        if self.chart.integer:
            low, high = float(np.ceil(low - 0.5)), float(np.floor(high + 0.5))
            if high < low:
                return
        self.region.blockSignals(True)
        pad = 0.5 if self.chart.integer else 0.0
        self.region.setRegion((low - pad, high + pad))
        self.region.blockSignals(False)
        self.region.show()
        self._emit(low, high)

    def _region_moved(self) -> None:
        low, high = self.region.getRegion()
        if self.chart.integer:
            low, high = float(np.ceil(low)), float(np.floor(high))
        if high >= low:
            self._emit(low, high)

    def _emit(self, low: float, high: float) -> None:
        if self._brushed != (low, high):
            self._brushed = (low, high)
            self.brushed.emit(self.chart.title, low, high)

    def clicked_at(self, x: float, y: float) -> None:
        if self.chart.numeric:
            if self.region.isVisible():
                low, high = self.region.getRegion()
                if not low <= x <= high:
                    self.cleared.emit(self.chart.title)
            return
        row = int(round(y))
        if 0 <= row < len(self._rows):
            self.toggled.emit(self.chart.title, self.name_of(self._rows[row]))


def _elided(labels: list[str], metrics: QFontMetrics, room: int) -> list[str]:
    """Each label elided to ``room`` pixels at its end, or in its middle where two would
    read alike ("CONTRADICTION + E…" for both "... + ENTAILMENT" and "... + ENTAILMENT +
    NEUTRAL"): the middle goes, both ends stay."""
    right = [metrics.elidedText(label, Qt.TextElideMode.ElideRight, room) for label in labels]
    seen = Counter(right)
    return [
        metrics.elidedText(label, Qt.TextElideMode.ElideMiddle, room)
        if seen[short] > 1 and short != label
        else short
        for label, short in zip(labels, right)
    ]
