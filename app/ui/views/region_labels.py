"""Region labels drawn over a pyqtgraph plot, coarse when zoomed out, finer zoomed in.

:class:`RegionLabels` puts a text item at the centre of every region of every level of
an :class:`sentspace.app.analysis.regions.Regions`. Whenever the view changes it picks the level
to name, the finest whose regions are still about ``LEVEL_PX`` across on screen (as
datamapplot and Latent Scope do: a few coarse names for the whole map, finer ones
appearing as you zoom in), and places that level's labels, largest region first, with
:func:`sentspace.app.analysis.regions.place_labels`: never over another label or a point the
search, the selection or a misclassified ring marks (such a label moves beside its
place, or is left out).
:func:`sentspace.app.state.colouring.cluster_colours` colours points by coarse region.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, Signal
from PySide6.QtGui import QFont

from sentspace.app.analysis.regions import Regions, label_anchors, place_labels

#: Pixels kept free around each label.
MARGIN_PX = 4
#: A level is named while its regions are at least this wide on screen (the square root
#: of the layout's area on screen over the level's number of regions).
LEVEL_PX = 140
#: Point size of the labels, coarse level first; deeper levels use the last.
FONT_POINTS = (11, 9.5, 8.5)
#: Other places over its own region a label may take when its own is covered.
ALTERNATIVES = 8
#: Points a coarse label is kept off other regions by (a seeded sample of the layout).
REGION_POINTS = 20_000


class RegionLabel(pg.TextItem):
    """One region's label; a click on it is reported to the owning overlay."""

    def __init__(self, text: str, level: int, cluster: int, owner: RegionLabels):
        super().__init__(
            text,
            color="#202020",
            anchor=(0.5, 0.5),
            fill=pg.mkBrush(255, 255, 255, 210),
            border=pg.mkPen("#808080"),
        )
        font = QFont()
        font.setPointSizeF(FONT_POINTS[min(level, len(FONT_POINTS) - 1)])
        font.setBold(level == 0)
        self.setFont(font)
        self.level, self.cluster = level, cluster
        self._owner = owner

    def mouseClickEvent(self, event) -> None:
        event.accept()
        self._owner.region_clicked.emit(self.level, self.cluster)


class RegionLabels(QObject):
    """The labels of ``regions`` over ``plot``, re-chosen when the view changes;
    ``marked()`` gives the (p, 2) layout positions no label may cover.

    Signals
    -------
    region_clicked(int, int) : a label was clicked; its level and region.
    """

    region_clicked = Signal(int, int)

    def __init__(
        self,
        plot: pg.PlotItem,
        regions: Regions,
        marked: Callable[[], np.ndarray] | None = None,
        parent: QObject | None = None,
        layout: np.ndarray | None = None,
    ):
        """``layout``: the points' positions (n, 2), where each region's other dense
        places are read (:func:`label_anchors`), for a label whose own is taken."""
        super().__init__(parent)
        self.plot = plot
        self.regions = regions
        self.marked = marked
        self.levels = regions.levels
        self.alternatives = [
            label_anchors(layout, level.labels, level.n_clusters, ALTERNATIVES + 1)[:, 1:]
            if layout is not None and len(layout) == len(level.labels)
            else None
            for level in self.levels
        ]
        #: A seeded sample of the points and their coarse regions, which no coarse
        #: label may lie over.
        self.coarse_points: tuple[np.ndarray, np.ndarray] | None = None
        if layout is not None and len(layout) == len(regions.labels):
            rows = np.arange(len(layout))
            if len(rows) > REGION_POINTS:
                rows = np.sort(np.random.default_rng(0).choice(rows, REGION_POINTS, replace=False))
            self.coarse_points = (np.asarray(layout)[rows], regions.labels[rows])
        self.items = [
            [RegionLabel(level.label(k), depth, k, self) for k in range(level.n_clusters)]
            for depth, level in enumerate(self.levels)
        ]
        self.orders = [np.argsort(-level.sizes, kind="stable") for level in self.levels]
        finest = self.levels[-1].centres
        finite = finest[np.isfinite(finest).all(axis=1)]
        # The layout's extent, from the finest centres (the points are not kept here).
        self.extent = (np.ptp(finite, axis=0) if len(finite) else np.ones(2)).astype(float)
        #: The level named at the current zoom.
        self.level = 0
        for depth, items in enumerate(self.items):
            for k, item in enumerate(items):
                item.setPos(*self.levels[depth].centres[k])
                item.setZValue(100 + len(self.items) - depth)
                item.hide()
                plot.addItem(item, ignoreBounds=True)
        plot.vb.sigRangeChanged.connect(self.relayout)
        plot.vb.sigResized.connect(self.relayout)
        self.relayout()

    @property
    def shown(self) -> list[tuple[int, int]]:
        """(level, region) of every visible label."""
        return [
            (item.level, item.cluster) for items in self.items for item in items if item.isVisible()
        ]

    def level_for_zoom(self) -> int:
        """The finest level whose regions are at least ``LEVEL_PX`` wide on screen."""
        pixel_w, pixel_h = self.plot.vb.viewPixelSize()
        area_px = (self.extent[0] / max(pixel_w, 1e-300)) * (self.extent[1] / max(pixel_h, 1e-300))
        level = 0
        for depth, regions in enumerate(self.levels):
            if np.sqrt(area_px / max(regions.n_clusters, 1)) >= LEVEL_PX:
                level = depth
        return level

    def relayout(self, *_) -> None:
        view = self.plot.vb
        self.level = self.level_for_zoom()
        for depth, items in enumerate(self.items):
            if depth != self.level:
                for item in items:
                    item.hide()
        items = [self.items[self.level][k] for k in self.orders[self.level].tolist()]
        centres = self.levels[self.level].centres[self.orders[self.level]]
        sizes = np.array(
            [
                (item.textItem.boundingRect().width(), item.textItem.boundingRect().height())
                for item in items
            ]
        )
        marked = self.marked() if self.marked is not None else np.empty((0, 2))
        frame = view.mapRectToScene(view.boundingRect())
        others = self.alternatives[self.level]
        placed = place_labels(
            self._to_scene(centres),
            sizes,
            (frame.left(), frame.top(), frame.right(), frame.bottom()),
            marked=self._to_scene(marked),
            margin=MARGIN_PX,
            alternatives=(
                None
                if others is None
                else self._to_scene(others[self.orders[self.level]]).reshape(others.shape)
            ),
            regions=(
                (
                    self._to_scene(self.coarse_points[0]),
                    self.coarse_points[1],
                    self.orders[0],
                )
                if self.level == 0 and self.coarse_points is not None
                else None
            ),
        )
        for item, (x, y) in zip(items, placed):
            if np.isnan(x):
                item.hide()
                continue
            item.setPos(view.mapSceneToView(QPointF(float(x), float(y))))
            item.show()

    def _to_scene(self, points: np.ndarray) -> np.ndarray:
        """Layout positions (p, 2) in scene pixels (the view maps them affinely)."""
        view = self.plot.vb
        origin, right, up = (
            view.mapViewToScene(QPointF(x, y)) for x, y in ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0))
        )
        points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        return (
            np.array([origin.x(), origin.y()])
            + points[:, :1] * [right.x() - origin.x(), right.y() - origin.y()]
            + points[:, 1:] * [up.x() - origin.x(), up.y() - origin.y()]
        )

    def remove(self) -> None:
        """Take the labels off the plot (before showing another layout)."""
        self.plot.vb.sigRangeChanged.disconnect(self.relayout)
        self.plot.vb.sigResized.disconnect(self.relayout)
        for items in self.items:
            for item in items:
                self.plot.removeItem(item)
        self.items = []
