"""Cluster labels drawn over a pyqtgraph plot: fewer when zoomed out, more when zoomed in.

:class:`RegionLabels` puts one text item at each cluster centre of an
:class:`sentspace.app.regions.Regions` and, whenever the view changes, shows the labels greedily
by cluster size, skipping any whose on-screen box would overlap a label already shown
or whose centre is out of view. Zoomed out, centres crowd together and only the largest
clusters are named; zooming in spreads them apart and smaller ones appear (the
behaviour of Embedding Atlas and Latent Scope). :func:`sentspace.app.colouring.cluster_colours` colours points
by cluster, noise grey.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, QPointF, QRectF, Signal

from sentspace.app.regions import Regions

#: Pixels kept free around each label.
MARGIN_PX = 4


class RegionLabel(pg.TextItem):
    """One cluster's label; a click on it is reported to the owning overlay."""

    def __init__(self, text: str, cluster: int, owner: RegionLabels):
        super().__init__(text, color="#202020", anchor=(0.5, 0.5),
                         fill=pg.mkBrush(255, 255, 255, 200), border=pg.mkPen("#808080"))
        self.cluster = cluster
        self._owner = owner

    def mouseClickEvent(self, event) -> None:
        event.accept()
        self._owner.region_clicked.emit(self.cluster)


class RegionLabels(QObject):
    """The labels of ``regions`` over ``plot``, re-chosen when the view changes.

    Signals
    -------
    region_clicked(int) : a label was clicked; the cluster's index.
    """

    region_clicked = Signal(int)

    def __init__(self, plot: pg.PlotItem, regions: Regions, parent: QObject | None = None):
        super().__init__(parent)
        self.plot = plot
        self.regions = regions
        self.order = np.argsort(-regions.sizes, kind="stable")
        self.items = [RegionLabel(regions.label(k), k, self)
                      for k in range(regions.n_clusters)]
        for k, item in enumerate(self.items):
            item.setPos(*regions.centres[k])
            item.setZValue(100)
            plot.addItem(item)
        plot.vb.sigRangeChanged.connect(self.relayout)
        plot.vb.sigResized.connect(self.relayout)
        self.relayout()

    @property
    def shown(self) -> list[int]:
        """Clusters whose label is visible."""
        return [k for k, item in enumerate(self.items) if item.isVisible()]

    def relayout(self, *_) -> None:
        view = self.plot.vb
        view_rect = view.viewRect()
        frame = view.mapRectToScene(view.boundingRect())
        taken: list[QRectF] = []
        for k in self.order.tolist():
            item = self.items[k]
            x, y = self.regions.centres[k]
            if not view_rect.contains(float(x), float(y)):
                item.hide()
                continue
            centre = view.mapViewToScene(pg.Point(float(x), float(y)))
            size = item.textItem.boundingRect().size()
            box = QRectF(centre.x() - size.width() / 2 - MARGIN_PX,
                         centre.y() - size.height() / 2 - MARGIN_PX,
                         size.width() + 2 * MARGIN_PX, size.height() + 2 * MARGIN_PX)
            # A label near the plot's edge moves inside it rather than being cut.
            shift = QPointF(max(0.0, frame.left() - box.left())
                            - max(0.0, box.right() - frame.right()),
                            max(0.0, frame.top() - box.top())
                            - max(0.0, box.bottom() - frame.bottom()))
            box.translate(shift)
            item.setPos(view.mapSceneToView(centre + shift))
            visible = not any(box.intersects(other) for other in taken)
            item.setVisible(visible)
            if visible:
                taken.append(box)

    def remove(self) -> None:
        """Take the labels off the plot (before showing another layout)."""
        self.plot.vb.sigRangeChanged.disconnect(self.relayout)
        self.plot.vb.sigResized.disconnect(self.relayout)
        for item in self.items:
            self.plot.removeItem(item)
        self.items = []
