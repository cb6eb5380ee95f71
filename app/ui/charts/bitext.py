"""Chart of a bitext retrieval result: the rank of each query's translation against the
query's length in tokens.

A point per query, coloured by direction (A -> B, B -> A), at its length (spread a
little sideways so queries of one length do not hide each other) and the rank of its
translation among the other language, on a log scale where 1 is found; a black step line
is the median rank of each length bin (:func:`sentspace.app.analysis.evaluations.bitext.length_bins`,
both directions). Hovering a point names the query by the dataset's id; clicking it
picks that sentence.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Signal
from PySide6.QtWidgets import QWidget

from sentspace.app.analysis.evaluations.bitext import BitextResult, length_bins
from sentspace.app.base.palette import CATEGORICAL, SELECTED
from sentspace.app.ui.charts.base import FILTERED_OUT, ResultChart, padded

#: Colour of each direction's points.
DIRECTION_COLOURS = (CATEGORICAL[0], CATEGORICAL[1])
#: How far (in tokens) points of one length spread sideways, each way.
SPREAD = 0.3
#: The chart's least height, in pixels.
MIN_CHART_HEIGHT = 260


def _spread(n: int) -> np.ndarray:
    """Sideways offsets of ``n`` points, the same on every draw (layout only)."""
    return np.random.default_rng(0).uniform(-SPREAD, SPREAD, n)


class BitextLengthChart(ResultChart):
    """Rank of the true translation (log, 1 = found) against query length, a point per
    query and direction, with the median rank per length bin.

    Attributes
    ----------
    x, y : float ndarrays (n_queries,): where each query of the result is drawn (its
        length with a sideways spread, and log10 of its rank).
    points : the ScatterPlotItem of every query; each point's data is the query's
        position in the result.

    Signals
    -------
    query_clicked(int) : position of the clicked query in the result.
    """

    query_clicked = Signal(int)

    def __init__(self, result: BitextResult, parent: QWidget | None = None):
        super().__init__(parent)
        self.result = result
        self.bins = length_bins(result)
        # Tall enough for a plot of ~170 px under its legend and axes: at 1280x800 the
        # Evaluations panel gave it ~60 px beside 8 rows of metrics (the table scrolls).
        self.setMinimumHeight(MIN_CHART_HEIGHT)
        # Above the plot, not in it: inside, it would cover the points it names. No
        # title: the table above gives the metrics, and a title took the plot's height.
        self.legend = pg.LegendItem(colCount=3)
        self.legend.layout.setContentsMargins(0, 0, 0, 0)
        self.addItem(self.legend, row=0, col=0)
        self.plot = self._plot(None, "query length (tokens)", "rank of translation", row=1, col=0)
        lengths = result.query_length.astype(np.float64)
        self.x = lengths + _spread(len(lengths))
        self.y = np.log10(result.rank.astype(np.float64))
        # One item for both directions, drawn in a shuffled order, so neither direction's
        # points cover the other's; each point's data is its position in the result.
        self.order = np.random.default_rng(0).permutation(len(lengths))
        order = self.order
        #: Each direction's brush, and last the faint one of queries the filter leaves out.
        self.brushes = np.array(
            [
                *(pg.mkBrush(colour + "99") for colour in DIRECTION_COLOURS),
                pg.mkBrush(*FILTERED_OUT),
            ],
            dtype=object,
        )
        self.points = pg.ScatterPlotItem(
            x=self.x[order],
            y=self.y[order],
            data=order,
            size=5,
            pen=None,
            brush=self.brushes[result.direction[order]],
            hoverable=True,
            hoverBrush=pg.mkBrush(SELECTED),
            tip=lambda x, y, data: self.describe(data),
        )
        self.points.sigClicked.connect(self._points_clicked)
        self.plot.addItem(self.points)
        for d, name in enumerate(result.directions):
            # Short, so the three fit in one row of a ~320 px panel; the table counts.
            sample = pg.ScatterPlotItem(size=7, pen=None, brush=pg.mkBrush(DIRECTION_COLOURS[d]))
            self.legend.addItem(sample, html.escape(name.replace("->", "→")))
        bins = self.bins
        edges = np.concatenate([bins.low - 0.5, [bins.high[-1] + 0.5]])
        self.median_line = pg.PlotDataItem(
            edges, np.log10(bins.median_rank), stepMode="center", pen=pg.mkPen(SELECTED, width=2.5)
        )
        self.plot.addItem(self.median_line)
        self.legend.addItem(self.median_line, "median rank")
        self.plot.setToolTip(
            "Median rank and accuracy@1 by query length (both directions):\n"
            + "\n".join(
                f"{bins.label(k)} tokens: median {bins.median_rank[k]:g}, "
                f"accuracy {bins.accuracy[k]:.3f}, {int(bins.count[k])} queries"
                for k in range(len(bins))
            )
            + "\nClick a point to select its sentence."
        )
        # Ticks at powers of ten, labelled as ranks: 1 (found), 10, 100, 1,000.
        top = math.log10(max(max(result.pool_sizes), 10))
        self.plot.getAxis("left").setTicks(
            [
                [(float(p), f"{10**p:,}") for p in range(math.floor(top) + 1)],
                [
                    (math.log10(m * 10**p), "")
                    for p in range(math.floor(top) + 1)
                    for m in (2, 5)
                    if m * 10**p <= 10**top
                ],
            ]
        )
        self.plot.setXRange(
            *padded(float(lengths.min()) - 0.5, float(lengths.max()) + 0.5, 0.02), padding=0
        )
        # Room for the end ticks' labels, which the axis hides when they overflow it.
        self.plot.setYRange(*padded(0.0, top, 0.07), padding=0)

    @property
    def point_count(self) -> int:
        return len(self.points.data)

    def draw_passing(self, passing: np.ndarray | None) -> None:
        order = self.order
        if passing is not None:
            order = order[np.argsort(passing[order], kind="stable")]  # failing drawn first
        brush = np.where(
            passing[order] if passing is not None else True,
            self.result.direction[order],
            len(self.brushes) - 1,
        )
        self.points.setData(x=self.x[order], y=self.y[order], data=order, brush=self.brushes[brush])

    def describe(self, k: int) -> str:
        """One line naming query ``k`` (its position in the result) by the dataset's id."""
        result = self.result
        k = int(k)
        rank = int(result.rank[k])
        found = (
            "found"
            if result.prediction[k] == result.target[k]
            else f"retrieved {result.prediction_id[k]}"
        )
        return (
            f"{result.query_id[k]} ({result.directions[result.direction[k]]}), "
            f"{int(result.query_length[k])} tokens: translation {result.target_id[k]} "
            f"at rank {rank:,}, {found}"
        )

    def scene_position_of(self, k: int) -> QPointF:
        """Scene position of query ``k``'s point."""
        return self.plot.vb.mapViewToScene(QPointF(self.x[k], self.y[k]))

    def pick_query(self, k: int) -> None:
        """Emit query ``k``'s sentence."""
        self.query_clicked.emit(int(k))
        self.picked.emit(
            "sentences", np.array([self.result.query[k]], dtype=np.int64), self.describe(k)
        )

    def _points_clicked(self, _item, points, _event) -> None:
        if len(points):
            self.pick_query(int(points[0].data()))
