"""Chart of a Costra offsets result: how consistent each transformation's direction is.

Left, one horizontal bar per transformation type (offset consistency) with the
shuffled-type baseline as a thin grey bar inside it, so a type that is a direction stands
out from its baseline at a glance; right, the analogy test's MRR and accuracy of the same
type. Clicking a consistency bar emits
:attr:`CostraOffsetsChart.type_clicked` with the type's name.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Signal
from PySide6.QtWidgets import QWidget

from sentspace.app.analysis.evaluations.costra_offsets import CostraOffsetsResult
from sentspace.app.base.palette import SELECTED, UNGROUPED
from sentspace.app.ui.charts.base import POSITIVE, ResultChart, padded

TITLE_SIZE = "10pt"
KEY_SIZE = "8pt"
#: The analogy plot's width: 0 to 1 in three ticks; the consistency plot takes the rest.
ANALOGY_WIDTH = 100
RIGHT_MARGIN = 14


class CostraOffsetsChart(ResultChart):
    """Offset consistency per transformation type, with its baseline and analogy MRR.

    Signals
    -------
    type_clicked(str) : the transformation type whose bar was clicked.
    """

    type_clicked = Signal(str)

    def __init__(self, result: CostraOffsetsResult, parent: QWidget | None = None):
        super().__init__(parent)
        self.result = result
        self.setMinimumHeight(320)
        names = result.type_names
        y = np.arange(len(names), dtype=np.float64)
        self.consistency = np.nan_to_num(result.consistency)
        baseline = np.nan_to_num(result.baseline)
        # Short titles and axis labels, the rest in a key and tooltips: at 1280x800 the
        # chart has ~370 px, and the long ones cut off the analogy plot, its title and
        # its last label.
        self.plot = self._plot("Offset consistency", "cosine", "", row=0, col=0)
        self.analogy = self._plot("Analogy", "MRR", "", row=0, col=1)
        for plot in (self.plot, self.analogy):
            plot.titleLabel.setText(plot.titleLabel.text, size=TITLE_SIZE)
        self.plot.setToolTip(
            "Offset consistency: mean cosine of the offsets (seed to "
            "transformation) of different seed groups, per type; grey: "
            "the same with the types shuffled"
        )
        self.analogy.setToolTip(
            "Analogy: each seed plus the mean offset of the other "
            "groups, ranked among the sentences; MRR (bar) and "
            "accuracy (diamond)"
        )
        self.analogy.setYLink(self.plot)
        self.analogy.hideAxis("left")  # the types are named once, on the left
        self.analogy.getAxis("bottom").setTicks([[(0, "0"), (0.5, "0.5"), (1, "1")]])
        self.analogy.setPreferredWidth(ANALOGY_WIDTH)
        self.analogy.setMaximumWidth(ANALOGY_WIDTH)
        self.key = self.addLabel(
            "grey: types shuffled · ◆ analogy accuracy",
            row=1,
            col=0,
            colspan=2,
            size=KEY_SIZE,
            color="#555",
        )
        # Room at the right for half of the last tick label ("1" of the analogy axis).
        self.ci.setContentsMargins(2, 2, RIGHT_MARGIN, 2)
        self.bars = pg.BarGraphItem(
            x0=0, y=y, height=0.6, width=self.consistency, brush=pg.mkBrush(POSITIVE), pen=None
        )
        self.baseline_bars = pg.BarGraphItem(
            x0=0, y=y, height=0.2, width=baseline, brush=pg.mkBrush(UNGROUPED), pen=None
        )
        self.brush, self.faint_brush = pg.mkBrush(POSITIVE), pg.mkBrush(POSITIVE + "40")
        for item in (self.bars, self.baseline_bars):
            self.plot.addItem(item)
        self.mrr = pg.BarGraphItem(
            x0=0,
            y=y,
            height=0.6,
            width=np.nan_to_num(result.mrr),
            brush=pg.mkBrush(UNGROUPED),
            pen=None,
        )
        self.accuracy = pg.ScatterPlotItem(
            x=np.nan_to_num(result.accuracy),
            y=y,
            symbol="d",
            size=9,
            brush=pg.mkBrush(SELECTED),
            pen=None,
        )
        self.analogy.addItem(self.mrr)
        self.analogy.addItem(self.accuracy)
        self.analogy.setXRange(0, 1, padding=0.1)  # room for the labels 0 and 1
        self.plot.getAxis("left").setTicks([list(zip(y.tolist(), names))])
        shown = np.concatenate([self.consistency, baseline])
        self.plot.setXRange(*padded(min(0.0, float(shown.min())), float(shown.max())), padding=0)
        self.plot.setYRange(-0.6, len(names) - 0.4, padding=0)

    def draw_passing(self, passing: np.ndarray | None) -> None:
        """A type none of whose analogy questions passes the filter is drawn faint."""
        if passing is None:
            self.bars.setOpts(brushes=None, brush=self.brush)
            return
        kept = np.bincount(self.result.cell_type[passing], minlength=len(self.consistency)) > 0
        self.bars.setOpts(brushes=[self.brush if k else self.faint_brush for k in kept])

    def scene_position_of(self, k: int) -> QPointF:
        """Scene position of the middle of type ``k``'s bar."""
        return self.plot.vb.mapViewToScene(QPointF(self.consistency[k] / 2, k))

    def click_at(self, scene_position: QPointF) -> None:
        if not self.plot.vb.sceneBoundingRect().contains(scene_position):
            return
        point = self.plot.vb.mapSceneToView(scene_position)
        k = int(round(point.y()))
        if (
            0 <= k < len(self.consistency)
            and abs(point.y() - k) <= 0.3
            and min(0.0, self.consistency[k]) <= point.x() <= max(0.0, self.consistency[k])
        ):
            self.type_clicked.emit(self.result.type_names[k])
