"""The 2D scatter of a projection: colour by group, hover, click, highlighted subsets.

Drawing a million points one by one is too slow for pyqtgraph (2.6 s to set and 0.26 s
per frame at 1M), so the view aggregates by zoom level: while more than
``POINT_LIMIT`` points fall in (and around) the visible region it draws a density image,
one pixel block per few screen pixels, coloured by the most common point colour in the
block and shaded by how many points it holds; zoomed in further it draws the real points
of that region only. Both are recomputed shortly after the view range changes. Hover and
click always resolve to a real point through a k-d tree of all coordinates, built on a
background thread (scipy releases the GIL while building; 0.15 s at 1M) so that showing
a layout does not stall the window; the first hover waits for it if it is not ready.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainterPath
from PySide6.QtWidgets import (
    QGraphicsPathItem,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

# scipy.spatial (~60-160 ms) is imported by the tree-building thread when the first
# points are set, not at the GUI's start.
if TYPE_CHECKING:
    from scipy.spatial import cKDTree

from sentspace.app.analysis.projection import points_in_polygon
from sentspace.app.base.palette import (
    FOUND,
    MISCLASSIFIED,
    OTHER,
    SELECTED,
    STALE,
    UNGROUPED,
    ColourScale,
    PointColours,
)
from sentspace.app.ui.kit.palette_scatter import PaletteScatter, brush
from sentspace.app.ui.views import density_bins
from sentspace.app.ui.views.density_bins import FILTERED_OUT

#: How close (in screen pixels) the pointer must be to a point to hover or click it.
PICK_RADIUS_PX = 8.0
#: At most this many points are drawn as points; above it, the density image.
POINT_LIMIT = 20_000
#: Side of one density-image bin, in screen pixels.
BIN_PX = 2
#: The region drawn extends this share of the view's width / height beyond each edge,
#: so a pan shows data at once instead of waiting for the next refresh.
MARGIN = 0.25
#: Delay between a view-range change and redrawing for it: changes during a drag are
#: folded into one refresh per interval.
REFRESH_MS = 30
#: Colours a density bin shows only when it holds no other: the categories past a
#: legend's top ten, and none; so the ten named stay visible among 145,000 others.
BACKGROUND = (OTHER.lower(), UNGROUPED.lower())
#: Layouts whose drawing is kept (columns, k-d tree, density bins and counts), so
#: switching back to a corpus draws its million points without binning them again
#: (about 90 MB at a million points, a few MB at tens of thousands). Fewer than the
#: corpora open, switching round them all bins each again.
LAYOUTS_KEPT = 8
#: Density drawings kept per layout (view sizes and regions).
BINS_KEPT = 2


@functools.cache
def _tree_builder() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="kd-tree")


def _kd_tree(coordinates: np.ndarray) -> cKDTree:
    from scipy.spatial import cKDTree  # noqa: PLC0415

    # An unbalanced tree builds in half the time and answers single queries as fast.
    return cKDTree(coordinates, balanced_tree=False, compact_nodes=False)


@dataclass(eq=False)
class Layout:
    """What drawing one layout (its coordinates array, compared by identity) made:
    kept while it is shown and after, the last ``LAYOUTS_KEPT``."""

    coordinates: np.ndarray
    x: np.ndarray
    y: np.ndarray
    tree: Future | None
    #: The colour codes ``bins`` were counted with.
    codes: np.ndarray | None = None
    #: Density bins and their counts (``_binned``, ``_tally``) by (region, nx, ny),
    #: the last ``BINS_KEPT``: a legend of another height resizes the plot after a
    #: switch, so both sizes come back.
    bins: dict = field(default_factory=dict)


class ProjectionView(QWidget):
    """Scatter plot of one projection.

    Points are looked up through a k-d tree of their coordinates, so hover and click stay
    instant however many points there are.

    Attributes
    ----------
    mode : "points" or "density", how the points are drawn at the current zoom.
    points : ScatterPlotItem
        The real points drawn (all of them, or those around the view when there are more
        than ``POINT_LIMIT``); its ``data["data"]`` holds each one's index.
    density : ImageItem
        The density image shown instead of ``points`` when too many are in view.

    Signals
    -------
    hovered(int) : the point under the pointer, -1 when none.
    clicked(int) : a point was clicked, -1 for empty space.
    marks_changed() : the points search, selection or rings mark changed (``marked_positions``).
    """

    hovered = Signal(int)
    clicked = Signal(int)
    selected = Signal(object)
    marks_changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.plot = pg.PlotWidget(background="w", viewBox=SelectingViewBox())
        self.plot.setAccessibleName("projection")
        self.plot.getPlotItem().hideButtons()
        self.plot.setLabel("bottom", "PC 1")
        self.plot.setLabel("left", "PC 2")
        for side in ("bottom", "left"):
            # Coordinates are unitless: "PC 1 (x1e-06)" reads as a unit.
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        self._show_axes(False)
        self.view_box = self.plot.getPlotItem().getViewBox()
        self.density = pg.ImageItem(axisOrder="row-major")
        self.points = PaletteScatter(size=7, pen=None, pxMode=True)
        self.marked = pg.ScatterPlotItem(
            size=13, brush=None, pxMode=True, pen=pg.mkPen(MISCLASSIFIED, width=2)
        )
        self.highlighted = pg.ScatterPlotItem(
            size=15, brush=None, pxMode=True, pen=pg.mkPen(SELECTED, width=2)
        )
        # Black on a white halo: visible over any point colour, the orange ones included.
        self.found = pg.ScatterPlotItem(
            size=12,
            brush=pg.mkBrush(FOUND),
            pxMode=True,
            pen=pg.mkPen("#000000", width=1.5),
            symbol="d",
        )
        self.found_halo = pg.ScatterPlotItem(
            size=17, brush=pg.mkBrush("#ffffff"), pxMode=True, pen=None, symbol="d"
        )
        # In density mode the hovered point is otherwise invisible.
        self.hover_ring = pg.ScatterPlotItem(
            size=11, brush=None, pxMode=True, pen=pg.mkPen(SELECTED, width=1.5)
        )
        # Lines from a group's members to its centroid.
        self.spokes = pg.PlotDataItem(pen=pg.mkPen(SELECTED, width=1))
        for z, item in enumerate(
            (
                self.density,
                self.spokes,
                self.points,
                self.marked,
                self.highlighted,
                self.found_halo,
                self.found,
                self.hover_ring,
            )
        ):
            item.setZValue(z)
            self.plot.addItem(item)
        # The scale of a colouring by numbers, right of the plot; hidden for categories.
        self.colour_bar = pg.ColorBarItem(width=12, interactive=False, colorMapMenu=False)
        self.colour_bar.layout.setContentsMargins(0, 8, 0, 8)  # its end labels whole
        self.plot.getPlotItem().layout.addItem(self.colour_bar, 2, 5)
        self.colour_bar.hide()
        self.hint = pg.TextItem(
            "Press Run to encode, project and evaluate the corpus.",
            color="#555555",
            anchor=(0.5, 0.5),
        )
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
        #: The filter's pass mask (None: every point passes).
        self._passing: np.ndarray | None = None
        self.mode = "points"
        self._x = self._y = np.empty(0, dtype=np.float32)
        self._tree: Future[cKDTree] | None = None
        self._describe: Callable[[int], str] = str
        self._codes = np.empty(0, dtype=np.int32)
        self._brushes = np.empty(0, dtype=object)
        self._rgb = np.empty((0, 3), dtype=np.uint8)
        #: The palette's colours a density bin shows over the ``BACKGROUND`` ones.
        self._named = np.empty(0, dtype=np.intp)
        self._overlays = {
            item: np.empty(0, dtype=np.int64)
            for item in (self.marked, self.highlighted, self.found)
        }
        self._hovered = -1
        #: (x0, x1, y0, y1) of the region drawn; None when points or colours changed.
        self._drawn: tuple[float, float, float, float] | None = None
        #: The density bins of the points in the region drawn: ((region, nx, ny), each
        #: point's cell, its colour code, points per cell); None when points or colours
        #: changed.
        self._binned: tuple | None = None
        #: The last density's (binned, passing points, counts per cell and colour,
        #: counts per cell, each cell's RGB), updated by a filter change.
        self._tally: tuple | None = None
        #: The region whose mask was computed last, and the mask.
        self._inside: tuple[tuple[float, float, float, float], np.ndarray] | None = None
        #: Width and height of a density bin, in data units.
        self._bin_size = (1.0, 1.0)
        #: The layouts drawn lately, the one shown last (see ``Layout``).
        self._layouts: list[Layout] = []
        #: How many times points were binned for a density image (not taken from a
        #: kept layout).
        self.binnings = 0
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_MS)
        self._refresh_timer.timeout.connect(self.refresh)
        self.view_box.sigRangeChanged.connect(self._schedule_refresh)
        self.view_box.sigResized.connect(self._schedule_refresh)
        scene = self.plot.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)
        self.view_box.drawn.connect(self.select_polygon)

    @property
    def point_count(self) -> int:
        return len(self.coordinates)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._drawn is None:
            self.plot.getPlotItem().layout.activate()  # the size it is shown at
            self.refresh()

    def set_points(
        self,
        coordinates: np.ndarray,
        colours: PointColours,
        describe: Callable[[int], str],
        axis_labels: tuple[str, str],
        legend: str = "",
        scale: ColourScale | None = None,
    ) -> None:
        """Show ``coordinates`` (n, 2) in ``colours`` (numbers on ``scale``, drawn as a
        colour bar); ``describe(i)`` gives the tooltip of point i."""
        coordinates = np.asarray(coordinates, dtype=np.float32)
        layout = self._layout(coordinates)
        self.coordinates, self._x, self._y = layout.coordinates, layout.x, layout.y
        self._tree, self._inside = layout.tree, None
        self._describe = describe
        self._hovered = -1
        self.hover_ring.clear()
        self.plot.setLabel("bottom", axis_labels[0])
        self.plot.setLabel("left", axis_labels[1])
        for item in self._overlays:
            self._overlays[item] = np.empty(0, dtype=np.int64)
            item.clear()
        self.found_halo.clear()
        self.spokes.setData([], [])
        self.hint.setVisible(False)
        # The legend of another height moves the plot's edge: laid out before drawing,
        # the density is binned once for the plot's size, not again when it resizes.
        self.legend.setText(legend)
        self.show_scale(scale)
        self.layout().activate()
        self._show_axes(True)
        self._set_colour_table(colours)
        if layout.codes is None or not np.array_equal(layout.codes, self._codes):
            layout.bins = {}  # counted in other colours
        layout.codes = self._codes
        self._show_everything()

    def _layout(self, coordinates: np.ndarray) -> Layout:
        """The kept drawing of ``coordinates`` (this very array), or a new one: its
        columns and its k-d tree (built on a background thread)."""
        kept = next((lay for lay in self._layouts if lay.coordinates is coordinates), None)
        if kept is not None:
            self._layouts.remove(kept)
        else:
            kept = Layout(
                coordinates,
                # Contiguous columns: the per-refresh visibility test reads them whole.
                np.ascontiguousarray(coordinates[:, 0]),
                np.ascontiguousarray(coordinates[:, 1]),
                _tree_builder().submit(_kd_tree, coordinates) if len(coordinates) else None,
            )
        self._layouts = [*self._layouts[-(LAYOUTS_KEPT - 1) :], kept]
        return kept

    def set_passing(self, mask: np.ndarray | None) -> None:
        """Fade the points where ``mask`` is False (the filter's); None: none."""
        if mask is self._passing:
            return  # the same filter (none, after a switch): drawn already
        self._passing = mask
        self._drawn = None
        self.refresh(force=True)

    def _passing_mask(self) -> np.ndarray | None:
        mask = self._passing
        return mask if mask is not None and len(mask) == len(self.coordinates) else None

    def set_colours(
        self, colours: PointColours, legend: str, scale: ColourScale | None = None
    ) -> None:
        """Recolour the points in place, keeping the view."""
        self._set_colour_table(colours)
        self.legend.setText(legend)
        self.show_scale(scale)
        self.refresh()

    def show_scale(self, scale: ColourScale | None) -> None:
        """The colour bar of numbers drawn on ``scale``; none for categories."""
        bar = self.colour_bar
        if scale is None:
            bar.hide()
            return
        # Shown first: pyqtgraph sizes a hidden axis to nothing, so a bar shown again
        # after a colouring by categories had its title over it and no values.
        bar.show()
        bar.setColorMap(pg.ColorMap(np.linspace(0, 1, len(scale.palette)), scale.palette))
        # One value: a bar of one colour around it, not an empty range.
        bar.setLevels(
            (scale.low, scale.high)
            if scale.high > scale.low
            else (scale.low - 0.5, scale.low + 0.5)
        )
        axis = bar.getAxis("left")
        axis.setLabel(scale.title)
        # pyqtgraph places a title when its axis is resized: one of another length at
        # the same size was left where the last one was, off the bar's middle.
        axis.resizeEvent()

    def _set_colour_table(self, colours: PointColours) -> None:
        """Drawing needs one brush (points) or one RGB triple (density) per palette
        colour, not per point."""
        self._codes = np.asarray(colours.codes, dtype=np.int32)
        self._binned = None
        # The palette's brushes, and last the filtered-out points' one.
        self._brushes = np.empty(len(colours.palette) + 1, dtype=object)
        self._brushes[:] = [brush(colour) for colour in (*colours.palette, FILTERED_OUT)]
        self._rgb = np.array(
            [QColor(colour).getRgb()[:3] for colour in colours.palette], dtype=np.uint8
        ).reshape(-1, 3)
        self._named = np.flatnonzero(
            [colour.lower() not in BACKGROUND for colour in colours.palette]
        )
        self._drawn = None

    def _show_everything(self) -> None:
        """Fit the view to all points and draw at once (no refresh delay)."""
        if len(self.coordinates):
            # Ranges of the contiguous columns: no (n, 2) temporaries at a million points.
            x, y = self._x, self._y
            if not (np.isfinite(x.min() + x.max()) and np.isfinite(y.min() + y.max())):
                finite = np.isfinite(x) & np.isfinite(y)
                x, y = x[finite], y[finite]
            # Python floats: pyqtgraph compares ranges with float64 limits near 1e307.
            x0, x1, y0, y1 = (
                (float(x.min()), float(x.max()), float(y.min()), float(y.max()))
                if len(x)
                else (0.0, 1.0, 0.0, 1.0)
            )
            self.view_box.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0.05)
        self.refresh()

    def mark(self, indices: np.ndarray, stale: bool = False) -> None:
        """Ring the given points (misclassified sentences) in red, or grey when
        ``stale`` (of another version of the corpus)."""
        self.marked.setPen(pg.mkPen(STALE if stale else MISCLASSIFIED, width=2))
        self._set_overlay(self.marked, indices)

    def highlight(self, indices: np.ndarray) -> None:
        """Ring the given points in black (the selected group)."""
        self._set_overlay(self.highlighted, indices)

    def show_spokes(self, indices: np.ndarray) -> None:
        """Draw a line from each given point to their centroid; none for fewer than 2."""
        indices = np.asarray(indices, dtype=np.int64)
        if len(indices) < 2:
            self.spokes.setData([], [])
            return
        members = self.coordinates[indices].astype(np.float64)
        ends = np.empty((2 * len(members), 2))
        ends[0::2] = members
        ends[1::2] = members.mean(axis=0)
        self.spokes.setData(ends[:, 0], ends[:, 1], connect="pairs")

    def show_found(self, indices: np.ndarray) -> None:
        """Mark the given points with orange diamonds (search matches)."""
        self._set_overlay(self.found, indices)

    def marked_positions(self) -> np.ndarray:
        """Layout positions (p, 2) of the points search, selection and the misclassified
        rings mark: region labels keep clear of them."""
        indices = np.concatenate(
            [self._overlays[item] for item in (self.found, self.highlighted, self.marked)]
        )
        return self.coordinates[indices[(indices >= 0) & (indices < len(self.coordinates))]]

    def _set_overlay(self, item: pg.ScatterPlotItem, indices: np.ndarray) -> None:
        self._overlays[item] = np.asarray(indices, dtype=np.int64)
        self._draw_overlay(item, None)
        self.marks_changed.emit()

    def _draw_overlay(self, item: pg.ScatterPlotItem, region: np.ndarray | None) -> None:
        """Draw an overlay's points; of one larger than ``POINT_LIMIT``, only those
        within ``region`` (a boolean mask over all points; None before it is known),
        and of those, when still too many, an evenly spread ``POINT_LIMIT``."""
        indices = self._overlays[item]
        # Sentences of a corpus not drawn (yet) here: nothing to mark.
        indices = indices[(indices >= 0) & (indices < len(self.coordinates))]
        if len(indices) > POINT_LIMIT:
            if region is None:
                region = self._region_mask(self._drawn_region())
            indices = indices[region[indices]]
            if len(indices) > POINT_LIMIT:
                indices = indices[np.linspace(0, len(indices) - 1, POINT_LIMIT).astype(int)]
        item.setData(pos=self.coordinates[indices], data=indices)
        if item is self.found:
            self.found_halo.setData(pos=self.coordinates[indices])

    def clear(self, hint: str) -> None:
        self.spokes.setData([], [])
        self.coordinates = np.empty((0, 2), dtype=np.float32)
        self._x = self._y = self.coordinates[:, 0]
        self._inside = self._binned = None
        self._tree = None
        self._codes = np.empty(0, dtype=np.int32)
        self._hovered = -1
        for item in self._overlays:
            self._overlays[item] = np.empty(0, dtype=np.int64)
        for item in (
            self.points,
            self.marked,
            self.highlighted,
            self.found,
            self.found_halo,
            self.hover_ring,
        ):
            item.clear()
        self.density.clear()
        self.mode = "points"
        self._drawn = None
        self.hint.setText(hint)
        self.hint.setPos(0, 0)
        self.hint.setVisible(True)
        self._show_axes(False)
        # An empty plot would autorange to nothing and show meaningless tiny ticks.
        self.view_box.setRange(xRange=(-1, 1), yRange=(-1, 1), padding=0)
        self.legend.clear()
        self.colour_bar.hide()

    def _show_axes(self, shown: bool) -> None:
        """Axes only around points: an empty plot's ticks read "-1e-302"."""
        item = self.plot.getPlotItem()
        for side in ("bottom", "left"):
            item.showAxis(side, shown)
        # Now, not at the next layout pass: the range set next must fit the view box's
        # size with the axes (a hover mapped before the pass missed by the axes' width).
        item.layout.activate()

    # --- drawing by zoom level ----------------------------------------------------

    def _schedule_refresh(self) -> None:
        # Not restarted while pending: a continuous drag still redraws every interval.
        if not self._refresh_timer.isActive():
            self._refresh_timer.start()

    def _drawn_region(self) -> tuple[float, float, float, float]:
        """(x0, x1, y0, y1): the view range extended by ``MARGIN`` on every side."""
        (x0, x1), (y0, y1) = self.view_box.viewRange()
        dx, dy = (x1 - x0) * MARGIN, (y1 - y0) * MARGIN
        return x0 - dx, x1 + dx, y0 - dy, y1 + dy

    def _region_mask(self, region: tuple[float, float, float, float]) -> np.ndarray:
        if self._inside is not None and self._inside[0] == region:
            return self._inside[1]  # a filter change over the same view
        x0, x1, y0, y1 = region
        x, y = self._x, self._y
        inside = (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
        self._inside = (region, inside)
        return inside

    def refresh(self, force: bool = False) -> None:
        """Redraw for the current view range: every point when there are few, else the
        real points around the view when few enough are there, else the density image.

        Skipped, unless ``force``, while what is drawn still covers the view: the points
        of a region holding the view, or a density image of such a region whose bins are
        still about ``BIN_PX`` on screen.
        """
        self._refresh_timer.stop()
        n = len(self.coordinates)
        if n > POINT_LIMIT and self.window().isVisible() and not self.isVisible():
            # A density image in a tab not in view (whose size is not its size when
            # shown) is binned when shown.
            self._drawn = None
            return
        if n <= POINT_LIMIT:
            # Few points: set once; pyqtgraph culls those out of view when painting.
            if self._drawn is None or force:
                self.mode = "points"
                self.density.clear()
                self._draw_points(np.arange(n))
                self._drawn = (-np.inf, np.inf, -np.inf, np.inf)
            return
        if not force and self._covers_view():
            return
        region = self._drawn_region()
        inside = self._region_mask(region)
        if np.count_nonzero(inside) <= POINT_LIMIT:
            self.mode = "points"
            self.density.clear()
            self._draw_points(np.flatnonzero(inside))
        else:
            self.mode = "density"
            self.points.clear()
            self._draw_density(region, inside)
        self._drawn = region
        for item, indices in self._overlays.items():
            if len(indices) > POINT_LIMIT:
                self._draw_overlay(item, inside)

    def _covers_view(self) -> bool:
        if self._drawn is None:
            return False
        (vx0, vx1), (vy0, vy1) = self.view_box.viewRange()
        x0, x1, y0, y1 = self._drawn
        if not (x0 <= vx0 and vx1 <= x1 and y0 <= vy0 and vy1 <= y1):
            return False
        if self.mode == "points":
            return True
        pixel_w, pixel_h = self.view_box.viewPixelSize()
        bin_w, bin_h = self._bin_size
        return bin_w / pixel_w <= 1.5 * BIN_PX and bin_h / pixel_h <= 1.5 * BIN_PX

    def _draw_points(self, indices: np.ndarray) -> None:
        codes = self._codes[indices]
        # Drawn later is drawn above: the filtered-out first, then the background
        # colours (other categories, none), so no grey point hides a named one (as the
        # density shows a named colour over them).
        layer = np.isin(codes, self._named).astype(np.int8) + 1
        passing = self._passing_mask()
        if passing is not None:
            layer[~passing[indices]] = 0
        order = np.argsort(layer, kind="stable")
        indices, codes = indices[order], codes[order]
        codes[layer[order] == 0] = len(self._brushes) - 1
        self.points.set_coloured(self._x[indices], self._y[indices], codes, self._brushes, indices)

    def _draw_density(self, region: tuple[float, float, float, float], inside: np.ndarray) -> None:
        """A 2D histogram of the points in ``region`` at ``BIN_PX`` screen pixels per
        bin, as an RGBA image placed over that region."""
        x0, x1, y0, y1 = region
        width_px = max(self.view_box.width(), 64.0) * (1 + 2 * MARGIN)
        height_px = max(self.view_box.height(), 64.0) * (1 + 2 * MARGIN)
        nx, ny = int(np.ceil(width_px / BIN_PX)), int(np.ceil(height_px / BIN_PX))
        binned = self._binned
        layout = self._layouts[-1] if self._layouts else None
        if layout is not None and layout.coordinates is not self.coordinates:
            layout = None
        if layout is not None and layout.codes is not self._codes:
            layout.codes, layout.bins = self._codes, {}  # recoloured
        if not density_bins.fits(binned, region, nx, ny) and layout is not None:
            # Drawn before in these colours (a switch back): its bins and counts.
            binned, self._tally = next(
                (
                    kept
                    for kept in layout.bins.values()
                    if density_bins.fits(kept[0], region, nx, ny)
                ),
                (None, self._tally),
            )
            self._binned = binned
        if not density_bins.fits(binned, region, nx, ny):
            # Kept for the next filter change over the same region: only which points
            # pass changes, not where they fall.
            self.binnings += 1
            binned = self._binned = density_bins.bin_points(
                self._x[inside], self._y[inside], self._codes[inside], region, nx, ny
            )
        (_, nx, ny), cell, _, anywhere = binned
        passing = self._passing_mask()
        # Bins are coloured by the points that pass the filter; a bin of filtered-out
        # points only is faint grey.
        if passing is None:
            kept = None
        else:  # the whole map in view: a copy, not a gather through a mask of all True
            kept = passing.copy() if len(cell) == len(passing) else passing[inside]
        counts, rgb, self._tally = density_bins.cell_colours(
            binned, kept, self._rgb, self._named, self._tally
        )
        self._bin_size = ((x1 - x0) / nx, (y1 - y0) / ny)
        self.density.setImage(
            density_bins.image(counts, rgb, anywhere, passing is not None, nx, ny), autoLevels=False
        )
        self.density.setRect(x0, y0, x1 - x0, y1 - y0)
        if layout is not None:
            layout.bins.pop(binned[0], None)
            layout.bins[binned[0]] = (binned, self._tally)
            while len(layout.bins) > BINS_KEPT:
                del layout.bins[next(iter(layout.bins))]

    # --- picking ------------------------------------------------------------------

    def point_at(self, scene_pos: QPointF) -> int:
        """Index of the point within PICK_RADIUS_PX of ``scene_pos``, or -1.

        The tree finds candidates by distance in data units; the nearest on screen
        among them wins, since the axes may be scaled differently.
        """
        if self._tree is None:
            return -1
        view_box = self.view_box
        if not view_box.sceneBoundingRect().contains(scene_pos):
            return -1
        target = view_box.mapSceneToView(scene_pos)
        k = min(8, len(self.coordinates))
        _, candidates = self._tree.result().query([target.x(), target.y()], k=k)
        candidates = np.atleast_1d(candidates)
        candidates = candidates[candidates < len(self.coordinates)]
        if not len(candidates):
            return -1
        pixel_w, pixel_h = view_box.viewPixelSize()
        offsets = self.coordinates[candidates] - (target.x(), target.y())
        pixels = np.hypot(offsets[:, 0] / pixel_w, offsets[:, 1] / pixel_h)
        best = int(np.argmin(pixels))
        return int(candidates[best]) if pixels[best] <= PICK_RADIUS_PX else -1

    def ring(self, index: int) -> None:
        """Ring point ``index`` as the hovered one is ringed (-1: none); linked views
        show the point hovered in another view this way."""
        if index >= 0:
            self.hover_ring.setData(pos=self.coordinates[[index]], data=[index])
        else:
            self.hover_ring.clear()

    def scene_position(self, index: int) -> QPointF:
        """Where point ``index`` is drawn, in scene coordinates."""
        x, y = self.coordinates[index]
        return self.view_box.mapViewToScene(QPointF(float(x), float(y)))

    def select_polygon(self, polygon: np.ndarray) -> np.ndarray:
        """Emit ``selected`` with the points inside ``polygon`` (m, 2, view coordinates)."""
        indices = points_in_polygon(self.coordinates, polygon)
        self.selected.emit(indices)
        return indices

    def _on_mouse_moved(self, scene_pos: QPointF) -> None:
        index = self.point_at(scene_pos)
        if index == self._hovered:
            return
        self._hovered = index
        self.ring(index)
        if index >= 0:
            global_pos = self.plot.mapToGlobal(self.plot.mapFromScene(scene_pos))
            QToolTip.showText(global_pos, self._describe(index), self.plot)
        else:
            QToolTip.hideText()
        self.hovered.emit(index)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.point_at(event.scenePos()))


class SelectingViewBox(pg.ViewBox):
    """Pans and zooms as usual; Shift+drag draws a rectangle and Ctrl+drag a lasso,
    whose outline (view coordinates) is emitted as ``drawn`` on release."""

    drawn = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self._outline: list[QPointF] = []
        self._shape = QGraphicsPathItem()
        self._shape.setPen(pg.mkPen("#ff8c00", width=1.5, style=Qt.PenStyle.DashLine))
        self._shape.setZValue(1e6)
        self._shape.hide()
        self.addItem(self._shape, ignoreBounds=True)

    def mouseDragEvent(self, ev, axis=None) -> None:
        modifiers = ev.modifiers()
        lasso = bool(modifiers & Qt.KeyboardModifier.ControlModifier)
        rectangle = bool(modifiers & Qt.KeyboardModifier.ShiftModifier)
        if ev.button() != Qt.MouseButton.LeftButton or not (lasso or rectangle):
            super().mouseDragEvent(ev, axis)
            return
        ev.accept()
        here = self.mapSceneToView(ev.scenePos())
        if ev.isStart():
            self._outline = [self.mapSceneToView(ev.buttonDownScenePos())]
        if lasso:
            self._outline.append(here)
        else:
            start = self._outline[0]
            self._outline = [
                start,
                QPointF(here.x(), start.y()),
                here,
                QPointF(start.x(), here.y()),
            ]
        path = QPainterPath(self._outline[0])
        for point in self._outline[1:]:
            path.lineTo(point)
        path.closeSubpath()
        self._shape.setPath(path)
        self._shape.show()
        if ev.isFinish():
            self._shape.hide()
            self.drawn.emit(np.array([(p.x(), p.y()) for p in self._outline]))
            self._outline = []
