"""The base of every result chart (white, exportable, ``picked`` when clicked) and
the colours and helpers the charts share."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from pyqtgraph.GraphicsScene.mouseEvents import MouseClickEvent
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QWidget

from sentspace.app.analysis.result_items import passing_shown
from sentspace.app.base.palette import CATEGORICAL

POSITIVE, NEGATIVE = CATEGORICAL[0], CATEGORICAL[1]
#: Items whose sentences the filter leaves out, as the projection fades its points.
FILTERED_OUT = (190, 190, 190, 70)
#: The interval of a metric that has none; MetricBars draws no error bar for it.
NO_INTERVAL = (math.nan, math.nan)


def shortened(text: str, limit: int = 20) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def padded(low: float, high: float, share: float = 0.05) -> tuple[float, float]:
    span = (high - low) or 1.0
    return low - share * span, high + share * span


#: Room for a title, the plot, its tick labels and axis titles (a chart squeezed
#: below it would be cut, not shrunk).
MIN_HEIGHT = 150


class FollowsFilter:
    """A panel whose result chart draws faint the items a filter leaves out, redrawn
    when next in view. Panels give :meth:`_filtered_result` and call
    :meth:`_show_passing` when their chart changes and from ``showEvent`` when due."""

    chart: ResultChart | None
    corpus: Any
    isVisible: Callable[[], bool]  # a QWidget's: the panels are widgets
    #: The filter's pass mask of the corpus shown (None: nothing filtered), and whether
    #: the chart is yet to follow it (it changed while the panel was hidden).
    passing_mask: np.ndarray | None = None
    _passing_due = False

    def set_passing(self, mask: np.ndarray | None) -> None:
        """Draw faint the chart's items whose sentences fail the filter (``mask``: the
        corpus's pass mask; None: nothing filtered), once in view."""
        self.passing_mask = mask
        self._passing_due = True
        if self.isVisible():
            self._show_passing()

    def _filtered_result(self) -> Any:
        raise NotImplementedError

    def _show_passing(self) -> None:
        self._passing_due = False
        result = self._filtered_result()
        if self.chart is not None and result is not None:
            self.chart.show_passing(*passing_shown(result, self.corpus, self.passing_mask))


class ResultChart(pg.GraphicsLayoutWidget):
    """Base of the charts: white background, PNG export, and the ``picked`` signal.

    Signals
    -------
    picked(str, object, str) : ``"sentences"`` or ``"pairs"``, an int ndarray of indices
        (into the corpus or its pairs), and a one-line description of what they are.
    """

    picked = Signal(str, object, str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent, show=False, size=None, title=None)
        self.setBackground("w")
        self.setMinimumHeight(MIN_HEIGHT)
        self.scene().sigMouseClicked.connect(self._scene_clicked)
        #: Whether each item passes the corpus's filter (None: nothing filtered).
        self.passing: np.ndarray | None = None
        #: The line saying how many items pass, under the plots (None: not shown).
        self.filter_note: pg.LabelItem | None = None

    def show_passing(self, passing: np.ndarray | None, note: str = "", rule: str = "") -> None:
        """Draw faint the items that fail the filter (``passing``: a bool per item in
        the result's order; None: nothing filtered) and say ``note`` under the plots,
        with ``rule`` as its tooltip."""
        self.passing = passing
        self._show_note(note if passing is not None else "", rule)
        self.draw_passing(passing)

    def draw_passing(self, passing: np.ndarray | None) -> None:
        """Redraw for ``passing``; a chart that shows no items draws nothing more."""

    def _show_note(self, note: str, rule: str) -> None:
        if not note:
            if self.filter_note is not None:
                self.ci.removeItem(self.filter_note)
                self.filter_note = None
            return
        if self.filter_note is None:
            layout = self.ci.layout
            self.filter_note = pg.LabelItem(size="8pt", color="#555")
            self.ci.addItem(
                self.filter_note, row=layout.rowCount(), col=0, colspan=max(layout.columnCount(), 1)
            )
        self.filter_note.setText(note)
        self.filter_note.setToolTip(rule)

    def export_png(self, path: str, width: int | None = None) -> None:
        """Render the whole chart to a PNG file (``width`` pixels; default: on screen)."""
        # Lazy: only saving a figure needs the exporters (tests/test_lazy_imports.py).
        from pyqtgraph.exporters import ImageExporter  # noqa: PLC0415

        exporter = ImageExporter(self.scene())
        if width is not None:
            exporter.parameters()["width"] = width
        exporter.export(str(path))

    def _scene_clicked(self, event: MouseClickEvent) -> None:
        """Charts whose items are not clickable themselves (bars, image cells) map the
        click's scene position here."""
        if not event.isAccepted() and event.button() == Qt.MouseButton.LeftButton:
            self.click_at(event.scenePos())

    def click_at(self, scene_position: QPointF) -> None:
        """Handle a left click at a scene position; nothing by default."""

    def _plot(self, title: str | None, x_label: str, y_label: str, **where: int) -> pg.PlotItem:
        plot = self.addPlot(title=title, **where)
        plot.setLabel("bottom", x_label)
        plot.setLabel("left", y_label)
        plot.showGrid(x=True, y=True, alpha=0.2)
        plot.setMenuEnabled(False)
        for axis in ("bottom", "left"):
            plot.getAxis(axis).enableAutoSIPrefix(False)  # accuracy is no "x0.001"
        return plot
