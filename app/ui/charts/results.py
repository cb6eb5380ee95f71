"""pyqtgraph charts of evaluation results, each a click away from the items behind it.

Every chart renders a finished core result (no computation beyond layout and picking the
items under a click) and emits :attr:`ResultChart.picked` with the items behind what was
clicked: ``("sentences", indices into the corpus, description)`` or ``("pairs", indices
into corpus.pairs, description)``. The evaluation panel turns pairs into their sentences
and re-emits them for the other views.

:func:`chart_for` picks the chart of a result; :func:`comparison_chart` draws one of
its metrics with a bootstrap interval (``Result.intervals``) across encoders. Text names
pairs and sentences by the dataset's ids, never by row.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics
from PySide6.QtWidgets import QWidget

from sentspace.app.analysis.chart_data import data_bins, rank_bands
from sentspace.app.analysis.mteb_results import same_model
from sentspace.app.analysis.result_items import accuracy_among, histogram_counts, precision_recall
from sentspace.app.base.palette import SELECTED
from sentspace.app.ui.charts.base import (
    FILTERED_OUT,
    MIN_HEIGHT,
    NEGATIVE,
    NO_INTERVAL,
    POSITIVE,
    ResultChart,
    padded,
    shortened,
)


def _faint(colour: str) -> QBrush:
    """``colour`` as the faint whole behind the passing items' solid part."""
    faint = pg.mkColor(colour)
    faint.setAlpha(60)
    return QBrush(faint)


def _fade_curve(curve: pg.PlotDataItem, faded: bool) -> None:
    """A result's whole curve grey behind the passing items' (or in colour, unfiltered):
    grey, since its points overlap and faint blue ones add up to blue again."""
    colour = pg.mkColor(*FILTERED_OUT[:3], 160) if faded else pg.mkColor(POSITIVE)
    curve.setPen(pg.mkPen(colour, width=2))
    curve.setSymbolBrush(pg.mkBrush(*FILTERED_OUT) if faded else pg.mkBrush(POSITIVE))


class PrecisionRecallChart(ResultChart):
    """Zero-shot detection: precision against recall over every cosine threshold.

    Clicking a point of the curve picks the pairs predicted paraphrase at its threshold
    (the pairs its precision is computed over).

    Signals
    -------
    point_clicked(int) : index of the clicked point into ``result.precision``.
    """

    point_clicked = Signal(int)

    def __init__(self, result, parent: QWidget | None = None):
        super().__init__(parent)
        self.result = result
        f1, threshold = result.best_f1
        self.plot = self._plot(
            f"PR curve, AP {result.average_precision:.4f}", "recall", "precision"
        )
        dashed = pg.mkPen("#888888", style=Qt.PenStyle.DashLine)
        self.baseline = pg.InfiniteLine(pos=float(result.label.mean()), angle=0, pen=dashed)
        self.plot.addItem(self.baseline)
        self.curve = pg.PlotDataItem(
            result.recall,
            result.precision,
            pen=pg.mkPen(POSITIVE, width=2),
            symbol="o",
            symbolSize=5,
            symbolPen=None,
            symbolBrush=POSITIVE,
        )
        self.curve.sigPointsClicked.connect(self._points_clicked)
        self.plot.addItem(self.curve)
        best = int(np.flatnonzero(result.thresholds == threshold)[0])
        self.best = pg.ScatterPlotItem(
            [result.recall[best]],
            [result.precision[best]],
            size=12,
            brush=None,
            pen=pg.mkPen(SELECTED, width=2),
        )
        self.plot.addItem(self.best)
        #: The curve of the pairs passing the filter, over the whole curve drawn faint.
        self.passing_curve = pg.PlotDataItem(pen=pg.mkPen(POSITIVE, width=2))
        self.passing_curve.hide()
        self.plot.addItem(self.passing_curve)
        self.plot.setToolTip(
            f"best F1 {f1:.4f} at cosine >= {threshold:.4f} (ringed); "
            "dashed: positive rate. Click a point for its predicted pairs. "
            "With a filter: the passing pairs' curve solid, all pairs' faint."
        )
        self.plot.setXRange(*padded(0.0, 1.0, 0.02), padding=0)
        self.plot.setYRange(*padded(0.0, 1.0, 0.02), padding=0)

    @property
    def point_count(self) -> int:
        return len(self.curve.xData)

    def draw_passing(self, passing: np.ndarray | None) -> None:
        curve = precision_recall(self.result, passing) if passing is not None else None
        _fade_curve(self.curve, passing is not None)
        if curve is None:
            self.passing_curve.hide()
            return
        self.passing_curve.setData(*curve)
        self.passing_curve.show()

    def pick_point(self, k: int) -> None:
        """Emit the pairs predicted positive at point ``k``'s threshold."""
        self.point_clicked.emit(k)
        result = self.result
        if k >= len(result.thresholds):  # the curve's end point (recall 0) has none
            self.picked.emit("pairs", np.empty(0, dtype=np.int64), "no pair (end point)")
            return
        chosen = result.cosine >= result.thresholds[k]
        hits = int(result.label[chosen].sum())
        self.picked.emit(
            "pairs",
            result.pair_index[chosen],
            f"{int(chosen.sum())} pairs with cosine >= "
            f"{result.thresholds[k]:.4f} ({hits} paraphrases)",
        )

    def _points_clicked(self, _item, points, _event) -> None:
        if len(points):
            self.pick_point(int(points[0].index()))


class LearningCurveChart(ResultChart):
    """Test accuracy against training pairs (log scale), with bootstrap intervals.

    Clicking a point picks the test pairs classified wrong at that training size.

    Signals
    -------
    point_clicked(int) : index of the clicked training share.
    """

    point_clicked = Signal(int)

    def __init__(self, result, parent: QWidget | None = None):
        super().__init__(parent)
        self.result = result
        self.plot = self._plot("learning curve", "training pairs", "test accuracy")
        x = np.log10(result.n_train.astype(np.float64))
        accuracy = np.asarray(result.accuracy, dtype=np.float64)
        # With intervals turned off none is drawn (a zero-length one reads as certainty).
        drawn = slice(None) if result.ci else slice(0)
        low, high = np.array(result.ci, dtype=np.float64).T if result.ci else (accuracy, accuracy)
        self.error_bars = pg.ErrorBarItem(
            x=x[drawn],
            y=accuracy[drawn],
            top=(high - accuracy)[drawn],
            bottom=(accuracy - low)[drawn],
            beam=0.03,
            pen=pg.mkPen("#555555"),
        )
        self.plot.addItem(self.error_bars)
        self.curve = pg.PlotDataItem(
            x,
            accuracy,
            pen=pg.mkPen(POSITIVE, width=2),
            symbol="o",
            symbolSize=8,
            symbolBrush=POSITIVE,
        )
        self.curve.sigPointsClicked.connect(self._points_clicked)
        self.plot.addItem(self.curve)
        self.x = x
        #: Accuracy over the test pairs passing the filter, over the whole faint.
        self.passing_curve = pg.PlotDataItem(
            pen=pg.mkPen(POSITIVE, width=2), symbol="o", symbolSize=6, symbolBrush=POSITIVE
        )
        self.passing_curve.hide()
        self.plot.addItem(self.passing_curve)
        # Ticks at the sizes actually trained on: log-spaced, labelled in pairs.
        self.plot.getAxis("bottom").setTicks(
            [[(float(v), f"{n:,}") for v, n in zip(x, result.n_train)]]
        )
        self.plot.setXRange(*padded(float(x.min()), float(x.max())), padding=0)
        self.plot.setYRange(*padded(float(np.nanmin(low)), float(np.nanmax(high))), padding=0)

    @property
    def point_count(self) -> int:
        return len(self.curve.xData)

    def draw_passing(self, passing: np.ndarray | None) -> None:
        _fade_curve(self.curve, passing is not None)
        if passing is None or not passing.any():
            self.passing_curve.hide()
            return
        self.passing_curve.setData(self.x, accuracy_among(self.result, passing))
        self.passing_curve.show()

    def pick_point(self, k: int) -> None:
        """Emit the test pairs misclassified at training share ``k``."""
        self.point_clicked.emit(k)
        result = self.result
        wrong = result.test_pair_index[~result.correct[k]]
        self.picked.emit(
            "pairs",
            wrong,
            f"{len(wrong)} test pairs misclassified after training on {result.n_train[k]:,} pairs",
        )

    def _points_clicked(self, _item, points, _event) -> None:
        if len(points):
            self.pick_point(int(points[0].index()))


class HistogramChart(ResultChart):
    """Cosine and word-overlap histograms, the two sides of the pairs overlaid.

    Clicking inside a bar picks the pairs of that bin on the side(s) whose bar is under
    the cursor.

    Signals
    -------
    bin_clicked(str, int) : ``"cosine"`` or ``"overlap"``, and the bin index.
    """

    bin_clicked = Signal(str, int)

    def __init__(self, result, parent: QWidget | None = None):
        super().__init__(parent)
        self.result = result
        self.plots: dict[str, pg.PlotItem] = {}
        self.bars: dict[str, list[pg.BarGraphItem]] = {}
        #: Each side's whole counts, drawn faint behind the passing pairs' under a filter.
        self.faint: dict[str, list[pg.BarGraphItem]] = {}
        #: Edges and counts drawn, by histogram: bins over the values' own range.
        self.edges: dict[str, np.ndarray] = {}
        self.counts: dict[str, np.ndarray] = {}
        # Above the plots, not in one: inside, it covered half of a ~160 px plot and was
        # cut at its edge.
        self.legend = pg.LegendItem(colCount=2)
        self.addItem(self.legend, row=0, col=0, colspan=2)
        for column, (name, label) in enumerate(
            (("cosine", "cosine similarity"), ("overlap", "word overlap (Jaccard)"))
        ):
            edges, counts = data_bins(result, name)
            # No title: it would repeat the axis title and widen the plot past the panel.
            plot = self._plot(None, label, "pairs", row=1, col=column)
            legend = self.legend if column == 0 else None
            bars, faint = [], []
            for side, colour in enumerate((POSITIVE, NEGATIVE)):
                light = pg.mkColor(colour)
                light.setAlpha(35)
                behind = pg.BarGraphItem(
                    x0=edges[:-1], x1=edges[1:], height=counts[side], brush=light, pen=None
                )
                behind.hide()
                plot.addItem(behind)
                faint.append(behind)
                brush = pg.mkColor(colour)
                brush.setAlpha(120)
                item = pg.BarGraphItem(
                    x0=edges[:-1],
                    x1=edges[1:],
                    height=counts[side],
                    brush=brush,
                    pen=pg.mkPen(colour),
                )
                plot.addItem(item)
                if legend is not None:
                    # Labels are HTML: "score < 3" lost all after its "<".
                    legend.addItem(
                        item, html.escape(f"{result.side_names[side]} ({int(counts[side].sum())})")
                    )
                bars.append(item)
            plot.setXRange(float(edges[0]), float(edges[-1]), padding=0.02)
            plot.setYRange(0, max(1, int(counts.max())) * 1.05, padding=0)
            self.plots[name], self.bars[name], self.faint[name] = plot, bars, faint
            self.edges[name], self.counts[name] = edges, counts

    def bar_count(self, name: str) -> int:
        """Bars drawn in histogram ``name`` over both sides."""
        return sum(len(item.opts["height"]) for item in self.bars[name])

    def draw_passing(self, passing: np.ndarray | None) -> None:
        for name, bars in self.bars.items():
            counts = (
                self.counts[name]
                if passing is None
                else histogram_counts(self.result, name, passing)
            )
            for side, (item, behind) in enumerate(zip(bars, self.faint[name])):
                item.setOpts(height=counts[side])
                behind.setVisible(passing is not None)

    def pick_bin(self, name: str, bin_index: int, y: float | None = None) -> None:
        """Emit the pairs in bin ``bin_index`` of histogram ``name``: of the sides whose
        bar reaches height ``y`` (both sides when None)."""
        result = self.result
        edges, counts = self.edges[name], self.counts[name]
        values = getattr(result, name)
        # As np.histogram bins: [edge_b, edge_b+1), the last bin closed.
        bins = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, len(edges) - 2)
        rows = [row for row in (0, 1) if y is None or counts[row, bin_index] >= y]
        sides = [1 - row for row in rows]  # row 0 counts side 1 (positive / high)
        chosen = (bins == bin_index) & np.isin(result.side, sides)
        self.bin_clicked.emit(name, bin_index)
        names = " and ".join(result.side_names[row] for row in rows) or "no side"
        self.picked.emit(
            "pairs",
            result.pair_index[chosen],
            f"{int(chosen.sum())} {names} pairs with {name} in "
            f"[{edges[bin_index]:.3f}, {edges[bin_index + 1]:.3f}]",
        )

    def click_at(self, scene_position: QPointF) -> None:
        for name, plot in self.plots.items():
            if not plot.vb.sceneBoundingRect().contains(scene_position):
                continue
            point = plot.vb.mapSceneToView(scene_position)
            edges = self.edges[name]
            if edges[0] <= point.x() <= edges[-1] and point.y() > 0:
                bin_index = min(
                    int(np.searchsorted(edges, point.x(), side="right")) - 1, len(edges) - 2
                )
                self.pick_bin(name, bin_index, point.y())


class RelatednessScatter(ResultChart):
    """Cosine against gold score, one point per pair; clicking a point picks its pair.

    Signals
    -------
    pair_clicked(int) : index of the clicked pair into ``corpus.pairs``.
    """

    pair_clicked = Signal(int)

    def __init__(self, result, parent: QWidget | None = None):
        super().__init__(parent)
        self.result = result
        pooled = result.pooled
        # Short: the panel beside the views is ~320 px wide at 1280x800; the axes
        # already say what is plotted, and the table gives the digits.
        # The y axis: the cosine, or the score learned on other pairs.
        self.measure = "cosine" if result.similarity == "cosine" else "learned score"
        self.plot = self._plot(
            f"Spearman {pooled.spearman:.3f}, Pearson {pooled.pearson:.3f}",
            "gold score",
            self.measure,
        )
        # Each point's data is its position in the result, so its text names the pair
        # by the dataset's id.
        self.points = pg.ScatterPlotItem(
            x=result.gold,
            y=result.cosine,
            data=np.arange(len(result.pair_index)),
            size=6,
            pen=None,
            brush=pg.mkBrush(POSITIVE + "99"),
            hoverable=True,
            tip=lambda x, y, data: (
                f"pair {result.pair_id[data]}: gold {x:.2f}, {self.measure} {y:.3f}"
            ),
        )
        self.points.sigClicked.connect(self._points_clicked)
        self.plot.addItem(self.points)
        self.brushes = np.array(
            [pg.mkBrush(*FILTERED_OUT), pg.mkBrush(POSITIVE + "99")], dtype=object
        )
        low, high = result.gold_range
        self.plot.setXRange(
            *padded(min(low, float(result.gold.min())), max(high, float(result.gold.max()))),
            padding=0,
        )
        self.plot.setYRange(
            *padded(float(result.cosine.min()), float(result.cosine.max())), padding=0
        )

    @property
    def point_count(self) -> int:
        return len(self.points.data)

    def draw_passing(self, passing: np.ndarray | None) -> None:
        result = self.result
        if passing is None:
            order, brush = np.arange(len(result.pair_index)), self.brushes[1]
        else:
            order = np.argsort(passing, kind="stable")  # the filtered-out drawn first
            brush = self.brushes[passing[order].astype(np.intp)]
        self.points.setData(x=result.gold[order], y=result.cosine[order], data=order, brush=brush)

    def pick_pair(self, pair: int) -> None:
        self.pair_clicked.emit(pair)
        k = int(np.flatnonzero(self.result.pair_index == pair)[0])
        self.picked.emit(
            "pairs",
            np.array([pair]),
            f"pair {self.result.pair_id[k]}: gold {self.result.gold[k]:.2f}, "
            f"{self.measure} {self.result.cosine[k]:.4f}",
        )

    def _points_clicked(self, _item, points, _event) -> None:
        if len(points):
            self.pick_pair(int(self.result.pair_index[points[0].data()]))


class RankBands(ResultChart):
    """Paraphrase ranking: queries by the rank of their partner, a bar per band of ranks
    that accuracy@k tells apart (for ks 1, 10, 100: 1, 2-10, 11-100, beyond 100; the
    core's :func:`~sentspace.app.analysis.chart_data.rank_bands`, as ``result.plot()``).

    Clicking a bar picks the sentences of its queries, each query with its partner: as
    sentences, since a query from a paraphrase group has no row in ``corpus.pairs``.

    Signals
    -------
    band_clicked(int) : index of the clicked band (into ``labels``).
    """

    band_clicked = Signal(int)

    def __init__(self, result, parent: QWidget | None = None):
        super().__init__(parent)
        self.result = result
        self.bands = rank_bands(result.ks, result.rank)
        # The bars' names and heights, as every bar chart here names them.
        self.labels, self.counts = self.bands.labels, self.bands.counts
        self.plot = self._plot(None, "rank of the partner", "queries")
        x = np.arange(len(self.counts), dtype=np.float64)
        self.bars = pg.BarGraphItem(
            x=x, height=self.counts, width=0.7, brush=pg.mkBrush(POSITIVE), pen=pg.mkPen(None)
        )
        self.plot.addItem(self.bars)
        #: The queries passing the filter per band, over all drawn faint.
        self.passing_bars = pg.BarGraphItem(
            x=x, height=self.counts, width=0.7, brush=pg.mkBrush(POSITIVE), pen=pg.mkPen(None)
        )
        self.passing_bars.hide()
        self.plot.addItem(self.passing_bars)
        self.plot.getAxis("bottom").setTicks([list(zip(x.tolist(), self.labels))])
        self.plot.setXRange(-0.5, len(x) - 0.5, padding=0.02)
        self.plot.setYRange(0, max(1, int(self.counts.max())) * 1.05, padding=0)
        self.plot.setToolTip(
            "Queries by the rank of their partner among the other pool "
            "sentences. Click a bar to select its queries' sentences."
        )

    def draw_passing(self, passing: np.ndarray | None) -> None:
        self.bars.setOpts(brush=_faint(POSITIVE) if passing is not None else pg.mkBrush(POSITIVE))
        if passing is None:
            self.passing_bars.hide()
            return
        self.passing_bars.setOpts(
            height=np.bincount(self.bands.band[passing], minlength=len(self.counts))
        )
        self.passing_bars.show()

    def pick_band(self, b: int) -> None:
        """Emit the sentences of the queries in band ``b``: each query and its partner."""
        self.band_clicked.emit(b)
        result = self.result
        chosen = self.bands.band == b
        sentences = np.unique(np.concatenate([result.query[chosen], result.target[chosen]]))
        where = (
            f"beyond rank {self.bands.bounds[-1]:,}"
            if b == len(self.bands.bounds)
            else f"at rank {self.labels[b]}"
        )
        self.picked.emit(
            "sentences", sentences, f"{int(chosen.sum()):,} queries with the partner {where}"
        )

    def click_at(self, scene_position: QPointF) -> None:
        if not self.plot.vb.sceneBoundingRect().contains(scene_position):
            return
        point = self.plot.vb.mapSceneToView(scene_position)
        b = round(point.x())
        # Anywhere in a bar's column: a band of few queries is a bar too low to hit.
        if 0 <= b < len(self.counts) and abs(point.x() - b) <= 0.35 and point.y() >= 0:
            self.pick_band(b)


class AgreementHeatmap(ResultChart):
    """The misclassification-agreement matrix: colour is the agreement, each cell reads
    "numerator/denominator", each axis label carries the encoder's mistakes.

    Clicking cell (i, j) picks the sentences both encoders got wrong the same way (on the
    diagonal: the encoder's mistakes).

    Signals
    -------
    cell_clicked(int, int) : row and column of the clicked cell.
    """

    cell_clicked = Signal(int, int)

    def __init__(self, result, parent: QWidget | None = None):
        super().__init__(parent)
        self.result = result
        n = result.n_encoders
        # The colour bar names the quantity: a title would widen the chart past narrow
        # docks.
        self.plot = self.addPlot()
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.invertY(True)  # row 0 at the top, as in a table
        colour_map = pg.colormap.get("viridis")
        self.image = pg.ImageItem(result.agreement, axisOrder="row-major", levels=(0.0, 1.0))
        self.image.setRect(0, 0, n, n)
        self.plot.addItem(self.image)
        self.colour_bar = pg.ColorBarItem(
            values=(0.0, 1.0),
            colorMap=colour_map,
            interactive=False,
            label="P(same wrong group | both wrong)",
        )
        self.colour_bar.setImageItem(self.image, insert_in=self.plot)
        self.cell_text: list[list[pg.TextItem]] = []
        agreement = result.agreement
        for i in range(n):
            row = []
            for j in range(n):
                # Light text on the dark (low) end of viridis, dark text on the bright end.
                dark = np.isnan(agreement[i, j]) or agreement[i, j] > 0.6
                text = pg.TextItem(
                    f"{result.numerator[i, j]}/{result.denominator[i, j]}",
                    color="#000000" if dark else "#ffffff",
                    anchor=(0.5, 0.5),
                )
                text.setPos(j + 0.5, i + 0.5)
                self.plot.addItem(text)
                row.append(text)
            self.cell_text.append(row)
        # Rows carry the (shortened) names and mistake totals, columns just the numbers,
        # so long encoder names neither collide under the matrix nor squeeze it.
        self.plot.getAxis("left").setTicks(
            [
                [
                    (k + 0.5, f"{k + 1}. {shortened(name)} ({int(m)})")
                    for k, (name, m) in enumerate(zip(result.names, result.mistakes))
                ]
            ]
        )
        self.plot.getAxis("bottom").setTicks([[(k + 0.5, str(k + 1)) for k in range(n)]])
        self.plot.setLabel("left", "encoder (mistakes)")
        self.plot.setToolTip(
            "\n".join(
                f"{k + 1}. {name}: {int(m)} mistakes"
                for k, (name, m) in enumerate(zip(result.names, result.mistakes))
            )
        )
        self.plot.setXRange(0, n, padding=0.02)
        self.plot.setYRange(0, n, padding=0.02)

    def cell_at(self, scene_position: QPointF) -> tuple[int, int] | None:
        """(row, column) of the cell under a scene position, or None outside the matrix."""
        point = self.plot.vb.mapSceneToView(scene_position)
        n = self.result.n_encoders
        if not (0 <= point.x() < n and 0 <= point.y() < n):
            return None
        return int(point.y()), int(point.x())

    def scene_position_of(self, i: int, j: int) -> QPointF:
        """Scene position of the centre of cell (i, j)."""
        return self.plot.vb.mapViewToScene(QPointF(j + 0.5, i + 0.5))

    def pick_cell(self, i: int, j: int) -> None:
        """Emit the sentences behind cell (i, j)'s numerator."""
        self.cell_clicked.emit(i, j)
        result = self.result
        names = result.names
        what = (
            f"{names[i]}'s {result.denominator[i, j]} mistakes"
            if i == j
            else f"{result.numerator[i, j]} of {result.denominator[i, j]} sentences both "
            f"{names[i]} and {names[j]} got wrong, in the same wrong group"
        )
        self.picked.emit("sentences", result.same_mistake(i, j), what)

    def click_at(self, scene_position: QPointF) -> None:
        cell = self.cell_at(scene_position)
        if cell is not None:
            self.pick_cell(*cell)


#: Imported scores (MTEB's, published elsewhere): grey and hatched, no interval.
IMPORTED_COLOUR = "#6f6f6f"


class MetricBars(ResultChart):
    """One metric across encoders: a bar each, with its confidence interval.

    ``imported`` marks bars of scores read from elsewhere (grey, hatched, no interval);
    ``labelled`` bars carry their value above them (imported ones and the runs of the
    same model beside them).

    Signals
    -------
    bar_clicked(int) : index of the clicked bar (into ``labels``).
    """

    bar_clicked = Signal(int)

    def __init__(
        self,
        metric: str,
        labels: Sequence[str],
        values: Sequence[float],
        intervals: Sequence[tuple[float, float]],
        parent: QWidget | None = None,
        imported: Sequence[bool] = (),
        labelled: Sequence[bool] = (),
    ):
        super().__init__(parent)
        self.metric, self.labels = metric, tuple(labels)
        self.values = np.asarray(values, dtype=np.float64)
        self.intervals = np.asarray(intervals, dtype=np.float64).reshape(-1, 2)
        count = len(self.values)
        self.imported = (
            np.asarray(imported, dtype=bool).reshape(-1)
            if len(imported)
            else np.zeros(count, dtype=bool)
        )
        labelled = (
            np.asarray(labelled, dtype=bool).reshape(-1)
            if len(labelled)
            else np.zeros(count, dtype=bool)
        )
        x = np.arange(count, dtype=np.float64)
        self.base = _bar_base(np.concatenate([self.values, self.intervals.ravel()]))
        # The metric names the axis: a title repeating it was wider than the panel
        # beside the views (~370 px at 1280x800) and pushed the last bars out of view.
        self.plot = self._plot("95% bootstrap CI", "", metric)
        hatched = QBrush(QColor(IMPORTED_COLOUR), Qt.BrushStyle.BDiagPattern)
        self.bars = pg.BarGraphItem(
            x=x,
            y0=self.base,
            height=self.values - self.base,
            width=0.6,
            brushes=[hatched if imported else pg.mkBrush(POSITIVE) for imported in self.imported],
            pens=[
                pg.mkPen(IMPORTED_COLOUR, width=1.5) if imported else pg.mkPen(None)
                for imported in self.imported
            ],
        )
        self.plot.addItem(self.bars)
        #: The values written above the labelled bars.
        self.value_labels: list[pg.TextItem] = []
        for k in np.flatnonzero(labelled | self.imported):
            value = self.values[k]
            if np.isfinite(value):
                # Beyond the end of the bar's interval, which it would cover.
                ends = self.intervals[k][np.isfinite(self.intervals[k])]
                end = max([value, *ends]) if value >= 0 else min([value, *ends])
                text = pg.TextItem(
                    f"{value:.4f}", color="#000000", anchor=(0.5, 1.0 if value >= 0 else 0.0)
                )
                text.setPos(float(k), float(end))
                self.plot.addItem(text)
                self.value_labels.append(text)
        # Error bars only where an interval exists: a zero-length one would read as
        # certainty.
        known = np.isfinite(self.intervals).all(axis=1)
        low, high = self.intervals[known, 0], self.intervals[known, 1]
        self.error_bars = pg.ErrorBarItem(
            x=x[known],
            y=self.values[known],
            top=high - self.values[known],
            bottom=self.values[known] - low,
            beam=0.25,
            pen=pg.mkPen("#000000", width=1.5),
        )
        self.plot.addItem(self.error_bars)
        # An imported bar's name on two lines: "all-MiniLM-L6-v2" over "(MTEB, imported)",
        # with the height the second line takes.
        if self.imported.any():
            self.setMinimumHeight(MIN_HEIGHT + 16)
            bottom = self.plot.getAxis("bottom")
            bottom.setHeight(
                bottom.height() + QFontMetrics(bottom.style["tickFont"] or QFont()).height()
            )
        ticks = [
            label.replace(" (", "\n(", 1) if outside else label
            for label, outside in zip(self.labels, self.imported)
        ]
        self.plot.getAxis("bottom").setTicks([list(zip(x.tolist(), ticks))])
        self.plot.setXRange(-0.5, len(x) - 0.5, padding=0.02)
        shown = np.concatenate([self.values, low, high])
        bottom, top = padded(
            min(self.base, float(np.nanmin(shown))), max(self.base, float(np.nanmax(shown)))
        )
        if self.value_labels:  # room for the values above the bars
            top += 0.3 * (top - bottom)
        self.plot.setYRange(bottom, top, padding=0)

    @property
    def bar_count(self) -> int:
        return len(self.bars.opts["height"])

    def scene_position_of(self, k: int) -> QPointF:
        """Scene position of the middle of bar ``k``."""
        return self.plot.vb.mapViewToScene(QPointF(k, (self.base + self.values[k]) / 2))

    def click_at(self, scene_position: QPointF) -> None:
        if not self.plot.vb.sceneBoundingRect().contains(scene_position):
            return
        point = self.plot.vb.mapSceneToView(scene_position)
        k = int(round(point.x()))
        if (
            0 <= k < len(self.values)
            and abs(point.x() - k) <= 0.3
            and min(self.base, self.values[k]) <= point.y() <= max(self.base, self.values[k])
        ):
            self.bar_clicked.emit(k)


def _bar_base(shown: np.ndarray) -> float:
    """Where the bars start: 0 where the values and intervals straddle it, else as far
    below the lowest (above the highest, all negative) as they spread, so that 0.984
    and 0.990 are bars of visibly different heights, not two bars of the same."""
    shown = shown[np.isfinite(shown)]
    if not len(shown):
        return 0.0
    low, high = float(shown.min()), float(shown.max())
    spread = (high - low) or 0.01 * max(abs(low), abs(high)) or 1.0
    if low >= 0:
        return max(0.0, low - spread)
    if high <= 0:
        return min(0.0, high + spread)
    return 0.0


def comparison_chart(metric: str, results: Sequence) -> MetricBars:
    """Bars of ``metric`` for each result (one per encoder), labelled by encoder. An
    imported result (``app.mteb_results.ImportedResult``, placed by
    ``app.mteb_results.arrange``) is a bar of its main score with no interval; it and
    the runs of the same model carry their values."""
    imported = [getattr(result, "imported", False) for result in results]
    metrics = [
        (result.main_score, NO_INTERVAL)
        if outside
        else result.intervals().get(metric, (math.nan, NO_INTERVAL))
        for result, outside in zip(results, imported)
    ]
    scores = [result for result, outside in zip(results, imported) if outside]
    labelled = [
        outside or any(same_model(score, result.provenance) for score in scores)
        for result, outside in zip(results, imported)
    ]
    return MetricBars(
        metric,
        [r.provenance.encoder_name for r in results],
        [value for value, _ in metrics],
        [bounds for _, bounds in metrics],
        imported=imported,
        labelled=labelled,
    )
