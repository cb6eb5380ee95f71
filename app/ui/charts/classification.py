"""The classification's chart: the groups with the most misclassified members, a bar
each, the rest summarised in one bar; clicking a bar selects its sentences."""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Signal
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QWidget

from sentspace.app.analysis.evaluations.classification import ClassificationResult
from sentspace.app.analysis.result_items import group_counts_among
from sentspace.app.ui.charts.base import NEGATIVE, POSITIVE, ResultChart, shortened

#: Groups drawn as bars of their own; the other erring groups share one bar.
TOP_GROUPS = 10
#: Height of a bar's row: its label stays readable.
ROW_HEIGHT = 17


class GroupErrorBars(ResultChart):
    """Misclassified sentences per group, most first, as horizontal bars labelled
    "group (misclassified/evaluated)"; past :data:`TOP_GROUPS`, a bar "other N groups".

    Clicking a group's bar picks the group's evaluated sentences (right and wrong, so
    the projection and the list show what it was confused with); the "other" bar picks
    the misclassified sentences of the groups it stands for.

    Signals
    -------
    bar_clicked(int) : row of the clicked bar, from the top.
    """

    bar_clicked = Signal(int)

    def __init__(self, result: ClassificationResult, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result = result
        members, wrong = result.group_counts()
        ranked = result.worst_groups()
        #: The groups drawn as bars of their own, from the top.
        self.groups = ranked[:TOP_GROUPS]
        #: The erring groups the last bar stands for (none: no such bar).
        self.rest = ranked[TOP_GROUPS:]
        self.counts = np.append(
            wrong[self.groups], [wrong[self.rest].sum()] if len(self.rest) else []
        )
        self.labels = [
            f"{shortened(result.group_names[g], 14)} ({wrong[g]}/{members[g]})"
            for g in self.groups.tolist()
        ]
        if len(self.rest):
            self.labels.append(f"other {len(self.rest)} group{'s' * (len(self.rest) > 1)}")
        self.plot = self._plot(None, "misclassified sentences", "group (wrong/evaluated)")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.invertY(True)  # the worst group at the top
        rows = np.arange(len(self.counts), dtype=np.float64)
        colours = [NEGATIVE] * len(self.groups) + [POSITIVE] * bool(len(self.rest))
        self.brushes = [pg.mkBrush(colour) for colour in colours]
        faint = [pg.mkColor(colour) for colour in colours]
        for colour in faint:
            colour.setAlpha(60)
        self.faint_brushes = [pg.mkBrush(colour) for colour in faint]
        self.bars = pg.BarGraphItem(
            x0=0,
            y=rows,
            width=self.counts,
            height=0.7,
            pen=pg.mkPen(None),
            brushes=self.brushes,
        )
        self.plot.addItem(self.bars)
        #: The passing sentences' share of each bar, over the bars drawn faint.
        self.passing_bars = pg.BarGraphItem(
            x0=0, y=rows, width=self.counts, height=0.7, pen=pg.mkPen(None), brushes=self.brushes
        )
        self.passing_bars.hide()
        self.plot.addItem(self.passing_bars)
        left = self.plot.getAxis("left")
        left.setTicks([list(zip(rows.tolist(), self.labels))])
        # As wide as the longest label from the start: an axis that widens itself only
        # once painted leaves its labels out of a chart saved before that.
        metrics = QFontMetrics(left.style["tickFont"] or QFont())
        left.setWidth(
            max(map(metrics.horizontalAdvance, self.labels), default=0) + metrics.height() + 20
        )
        most = max(1, int(self.counts.max(initial=0)))
        step = max(1, math.ceil(most / 5))  # whole sentences, about five ticks
        self.plot.getAxis("bottom").setTickSpacing(major=step, minor=step)
        self.plot.setXRange(0, most * 1.05, padding=0)
        self.plot.setYRange(-0.5, max(len(rows), 1) - 0.5, padding=0.02)
        total = int(wrong.sum())
        if total == 0:
            note = pg.TextItem("no sentence misclassified", color="#555555", anchor=(0.5, 0.5))
            note.setPos(0.5, 0)
            self.plot.addItem(note)
        self.plot.setToolTip(
            f"{total:,} of {len(result.sentence_index):,} sentences misclassified, in "
            f"{len(ranked):,} of {result.n_groups:,} groups. Click a bar to select its "
            "group's sentences (the last bar: the other groups' misclassified)."
        )
        self.setMinimumHeight(max(len(rows), 3) * ROW_HEIGHT + 70)

    @property
    def bar_count(self) -> int:
        return len(self.counts)

    def draw_passing(self, passing: np.ndarray | None) -> None:
        self.bars.setOpts(brushes=self.brushes if passing is None else self.faint_brushes)
        if passing is None:
            self.passing_bars.hide()
            return
        _, wrong = group_counts_among(self.result, passing)
        self.passing_bars.setOpts(
            width=np.append(wrong[self.groups], [wrong[self.rest].sum()] if len(self.rest) else [])
        )
        self.passing_bars.show()

    def scene_position_of(self, row: int) -> QPointF:
        """Scene position of the middle of bar ``row``."""
        return self.plot.vb.mapViewToScene(QPointF(self.counts[row] / 2, row))

    def sentences_of(self, row: int) -> tuple[np.ndarray, str]:
        """The sentences bar ``row`` stands for, and what they are in words."""
        result = self.result
        members, wrong = result.group_counts()
        if row < len(self.groups):
            group = int(self.groups[row])
            return (
                result.group_sentences(group),
                f"group {result.group_names[group]}: {wrong[group]} of "
                f"{members[group]} misclassified",
            )
        erring = np.isin(result.true_group, self.rest)
        wrongly = erring & (result.predicted_group != result.true_group)
        return (
            result.sentence_index[wrongly],
            f"{int(wrongly.sum()):,} misclassified sentences of {len(self.rest):,} other groups",
        )

    def pick_bar(self, row: int) -> None:
        self.bar_clicked.emit(row)
        sentences, description = self.sentences_of(row)
        self.picked.emit("sentences", sentences, description)

    def click_at(self, scene_position: QPointF) -> None:
        if not self.plot.vb.sceneBoundingRect().contains(scene_position):
            return
        point = self.plot.vb.mapSceneToView(scene_position)
        row = round(point.y())
        # Anywhere along a bar's row: a bar of one sentence is short to hit.
        if 0 <= row < len(self.counts) and abs(point.y() - row) <= 0.4 and point.x() >= 0:
            self.pick_bar(row)
