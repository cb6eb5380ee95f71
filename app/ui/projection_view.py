"""The 2D scatter of a projection: colour by group, hover, click, highlighted subsets."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolTip, QVBoxLayout, QWidget
from scipy.spatial import cKDTree

from app.ui.palette import FOUND, MISCLASSIFIED, SELECTED

#: How close (in screen pixels) the pointer must be to a point to hover or click it.
PICK_RADIUS_PX = 8.0


class ProjectionView(QWidget):
    """Scatter plot of one projection.

    Points are looked up through a k-d tree of their coordinates, so hover and click stay
    instant however many points there are.

    Signals
    -------
    hovered(int) : the point under the pointer, -1 when none.
    clicked(int) : a point was clicked, -1 for empty space.
    """

    hovered = Signal(int)
    clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.plot = pg.PlotWidget(background="w")
        self.plot.setAccessibleName("projection")
        self.plot.getPlotItem().hideButtons()
        self.plot.setLabel("bottom", "PC 1")
        self.plot.setLabel("left", "PC 2")
        self.points = pg.ScatterPlotItem(size=7, pen=None, pxMode=True)
        self.marked = pg.ScatterPlotItem(size=13, brush=None, pxMode=True,
                                         pen=pg.mkPen(MISCLASSIFIED, width=2))
        self.highlighted = pg.ScatterPlotItem(size=15, brush=None, pxMode=True,
                                              pen=pg.mkPen(SELECTED, width=2))
        self.found = pg.ScatterPlotItem(size=11, brush=pg.mkBrush(FOUND), pxMode=True,
                                        pen=pg.mkPen("#000000", width=1), symbol="d")
        for item in (self.points, self.marked, self.highlighted, self.found):
            self.plot.addItem(item)
        self.hint = pg.TextItem("Press Run to encode, project and evaluate the corpus.",
                                color="#555555", anchor=(0.5, 0.5))
        self.plot.addItem(self.hint)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search sentences (regular expression, Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("search")
        self.search_result = QLabel()
        search_row = QHBoxLayout()
        search_row.addWidget(self.search, stretch=1)
        search_row.addWidget(self.search_result)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(search_row)
        layout.addWidget(self.plot, stretch=1)
        layout.addWidget(self.legend)

        self.coordinates = np.empty((0, 2), dtype=np.float32)
        self._tree: cKDTree | None = None
        self._describe: Callable[[int], str] = str
        self._hovered = -1
        scene = self.plot.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)

    @property
    def point_count(self) -> int:
        return len(self.coordinates)

    def set_points(self, coordinates: np.ndarray, colours: np.ndarray,
                   describe: Callable[[int], str], axis_labels: tuple[str, str],
                   legend: str = "") -> None:
        """Show ``coordinates`` (n, 2) with one hex colour each; ``describe(i)`` gives
        the tooltip of point i."""
        self.coordinates = np.asarray(coordinates, dtype=np.float32)
        self._tree = cKDTree(self.coordinates) if len(self.coordinates) else None
        self._describe = describe
        self.points.setData(pos=self.coordinates, brush=self._brushes(colours),
                            data=np.arange(len(self.coordinates)))
        self.plot.setLabel("bottom", axis_labels[0])
        self.plot.setLabel("left", axis_labels[1])
        self.marked.clear()
        self.highlighted.clear()
        self.found.clear()
        self.hint.setVisible(False)
        self.legend.setText(legend)
        self.plot.autoRange()

    def set_colours(self, colours: np.ndarray, legend: str) -> None:
        """Recolour the points in place, keeping the view."""
        self.points.setBrush(self._brushes(colours))
        self.legend.setText(legend)

    @staticmethod
    def _brushes(colours: np.ndarray) -> list:
        # One brush per distinct colour: pyqtgraph renders each distinct brush once.
        brushes = {colour: pg.mkBrush(colour) for colour in set(colours)}
        return [brushes[colour] for colour in colours]

    def mark(self, indices: np.ndarray) -> None:
        """Ring the given points in red (misclassified sentences)."""
        self.marked.setData(pos=self.coordinates[np.asarray(indices, dtype=int)])

    def highlight(self, indices: np.ndarray) -> None:
        """Ring the given points in black (the selected group)."""
        self.highlighted.setData(pos=self.coordinates[np.asarray(indices, dtype=int)])

    def show_found(self, indices: np.ndarray) -> None:
        """Mark the given points with orange diamonds (search matches)."""
        self.found.setData(pos=self.coordinates[np.asarray(indices, dtype=int)])

    def clear(self, hint: str) -> None:
        self.coordinates = np.empty((0, 2), dtype=np.float32)
        self._tree = None
        for item in (self.points, self.marked, self.highlighted, self.found):
            item.clear()
        self.hint.setText(hint)
        self.hint.setVisible(True)
        self.legend.clear()

    def point_at(self, scene_pos: QPointF) -> int:
        """Index of the point within PICK_RADIUS_PX of ``scene_pos``, or -1."""
        if self._tree is None:
            return -1
        view_box = self.plot.getPlotItem().getViewBox()
        if not view_box.sceneBoundingRect().contains(scene_pos):
            return -1
        target = view_box.mapSceneToView(scene_pos)
        distance, index = self._tree.query([target.x(), target.y()])
        if not np.isfinite(distance):
            return -1
        x, y = self.coordinates[index]
        on_screen = view_box.mapViewToScene(QPointF(float(x), float(y)))
        pixels = np.hypot(on_screen.x() - scene_pos.x(), on_screen.y() - scene_pos.y())
        return int(index) if pixels <= PICK_RADIUS_PX else -1

    def scene_position(self, index: int) -> QPointF:
        """Where point ``index`` is drawn, in scene coordinates."""
        x, y = self.coordinates[index]
        return self.plot.getPlotItem().getViewBox().mapViewToScene(QPointF(float(x), float(y)))

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        index = self.point_at(scene_pos)
        if index == self._hovered:
            return
        self._hovered = index
        if index >= 0:
            global_pos = self.plot.mapToGlobal(self.plot.mapFromScene(scene_pos))
            QToolTip.showText(global_pos, self._describe(index), self.plot)
        else:
            QToolTip.hideText()
        self.hovered.emit(index)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.point_at(event.scenePos()))
