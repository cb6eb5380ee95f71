"""The projection scatter: points when few are in view, a density image otherwise, and
hover on the real points either way."""

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor

from sentspace.app.base.palette import PointColours, category_colours
from sentspace.app.ui.views import projection_view
from sentspace.app.ui.views.projection_view import PICK_RADIUS_PX, POINT_LIMIT, ProjectionView
from tests.ui.conftest import show_widget


@pytest.fixture(scope="module")
def million():
    """1,000,000 points in 200 clusters, coloured by cluster."""
    rng = np.random.default_rng(0)
    centres = rng.normal(scale=10.0, size=(200, 2))
    label = rng.integers(0, 200, size=1_000_000)
    points = centres[label] + rng.normal(size=(len(label), 2))
    return points.astype(np.float32), category_colours(label)


@pytest.fixture
def view(qtbot):
    widget = show_widget(qtbot, ProjectionView(), (900, 650))
    qtbot.waitExposed(widget)
    return widget


def hover(qtbot, view, index):
    """Move the pointer onto point ``index``; the index the view reports."""
    position = view.plot.mapFromScene(view.scene_position(index))
    with qtbot.waitSignal(view.hovered, timeout=2000) as hovered:
        qtbot.mouseMove(view.plot.viewport(), position)
    return hovered.args[0]


def screen_distance(view, index, other):
    a, b = view.scene_position(index), view.scene_position(other)
    return float(np.hypot(a.x() - b.x(), a.y() - b.y()))


def zoom_to(qtbot, view, x0, x1, y0, y1):
    view.view_box.setRange(xRange=(x0, x1), yRange=(y0, y1), padding=0)
    # The refresh follows the range change after a short delay.
    qtbot.waitUntil(lambda: not view._refresh_timer.isActive(), timeout=2000)


def test_a_million_points_load_as_a_density_image_with_hover(qtbot, view, million):
    points, colours = million
    view.set_points(points, colours, lambda i: f"point {i}", ("x", "y"))
    assert view.point_count == 1_000_000
    assert view.mode == "density"
    assert len(view.points.data) == 0
    image = view.density.image
    assert image is not None and image.ndim == 3 and image.shape[2] == 4
    # Every point is in the image: occupied bins are opaque enough to see.
    assert (image[..., 3] > 0).sum() > 1000 and image[..., 3].max() == 255

    index = 123_456
    hovered = hover(qtbot, view, index)
    assert hovered >= 0
    # Where a million points overlap, the nearest under the pointer is a real one.
    assert screen_distance(view, index, hovered) <= PICK_RADIUS_PX
    assert np.allclose(view.hover_ring.data["x"], points[hovered, 0])


def test_zooming_in_draws_only_the_real_points_around_the_view(qtbot, view, million):
    points, colours = million
    view.set_points(points, colours, str, ("x", "y"))
    x, y = points[777].tolist()
    zoom_to(qtbot, view, x - 0.3, x + 0.3, y - 0.2, y + 0.2)
    assert view.mode == "points"
    assert view.density.image is None
    drawn = view.points.data["data"].astype(int)
    assert 0 < len(drawn) <= POINT_LIMIT
    # Exactly the points of the view plus its margin, each with its own colour.
    (vx0, vx1), (vy0, vy1) = view.view_box.viewRange()
    mx, my = (vx1 - vx0) * projection_view.MARGIN, (vy1 - vy0) * projection_view.MARGIN
    expected = np.flatnonzero(
        (points[:, 0] >= vx0 - mx)
        & (points[:, 0] <= vx1 + mx)
        & (points[:, 1] >= vy0 - my)
        & (points[:, 1] <= vy1 + my)
    )
    assert np.array_equal(np.sort(drawn), expected)
    brushes = [brush.color().name() for brush in view.points.data["brush"][:50]]
    assert brushes == list(colours[drawn[:50]])

    assert hover(qtbot, view, 777) == 777

    # Back out: the density image returns.
    (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
    zoom_to(qtbot, view, float(x0), float(x1), float(y0), float(y1))
    assert view.mode == "density" and len(view.points.data) == 0


def test_density_bins_take_their_most_common_colour(qtbot, view):
    rng = np.random.default_rng(1)
    n = POINT_LIMIT * 3
    left = rng.normal(loc=(-5, 0), scale=0.5, size=(n // 2, 2))
    right = rng.normal(loc=(5, 0), scale=0.5, size=(n - n // 2, 2))
    points = np.concatenate([left, right]).astype(np.float32)
    # A few blue points among the red ones do not change the red bins' colour.
    blue = (np.arange(n) >= n // 2) | (np.arange(n) < n // 20)
    colours = PointColours(blue.astype(np.int32), ("#ff0000", "#0000ff"))
    view.set_points(points, colours, str, ("x", "y"))
    assert view.mode == "density"
    image = view.density.image
    occupied = image[..., 3] > 0
    height, width = occupied.shape
    columns = np.arange(width)[None, :].repeat(height, axis=0)
    red_side = occupied & (columns < width // 2)
    blue_side = occupied & (columns > width // 2)
    assert (image[red_side][:, :3] == (255, 0, 0)).all(axis=1).mean() > 0.9
    assert (image[blue_side][:, :3] == (0, 0, 255)).all()

    view.set_colours(PointColours.uniform(n, "#00aa00"), "all green")
    image = view.density.image
    assert (image[image[..., 3] > 0][:, :3] == QColor("#00aa00").getRgb()[:3]).all()
    assert view.legend.text() == "all green"


def test_few_points_are_all_drawn_at_any_zoom(qtbot, view):
    rng = np.random.default_rng(2)
    points = rng.normal(size=(500, 2)).astype(np.float32)
    colours = category_colours(np.arange(500) % 7)
    view.set_points(points, colours, str, ("PC 1", "PC 2"))
    assert view.mode == "points" and len(view.points.data) == 500
    zoom_to(qtbot, view, -0.1, 0.1, -0.1, 0.1)
    assert view.mode == "points" and len(view.points.data) == 500
    index = int(np.argmin(np.hypot(points[:, 0], points[:, 1])))
    assert hover(qtbot, view, index) == index
    view.mark([1, 2, 3])
    view.highlight([4])
    view.show_found(np.arange(10))
    assert (len(view.marked.data), len(view.highlighted.data), len(view.found.data)) == (3, 1, 10)
    view.clear("nothing yet")
    assert view.point_count == 0 and view.hint.isVisible()
    assert view.point_at(QPointF(10, 10)) == -1


def test_a_large_overlay_is_drawn_only_around_the_view(qtbot, view, million):
    points, colours = million
    view.set_points(points, colours, str, ("x", "y"))
    view.show_found(np.arange(0, 1_000_000, 2))
    # Half a million matches in view: an even sample of them stays drawable.
    assert len(view.found.data) == POINT_LIMIT
    x, y = points[10].tolist()
    zoom_to(qtbot, view, x - 0.3, x + 0.3, y - 0.2, y + 0.2)
    shown = view.found.data["data"].astype(int)
    assert 0 < len(shown) < POINT_LIMIT
    assert (shown % 2 == 0).all() and 10 in shown


def test_the_view_fits_the_finite_points_only(qtbot, view):
    points = np.array([[0, 0], [1, 2], [np.nan, 5], [np.inf, 0], [4, -1]], dtype=np.float32)
    view.set_points(points, category_colours(np.zeros(5, dtype=int)), str, ("x", "y"))
    (x0, x1), (y0, y1) = view.view_box.viewRange()
    assert x0 < 0 < 4 < x1 < 5 and y0 < -1 < 2 < y1 < 4


def test_axes_say_what_is_plotted_and_nothing_when_empty(qtbot, view):
    """An empty plot hides its axes (they read "-1e-302"); tiny coordinates keep their
    titles ("PC 1", not "PC 1 (x1e-06)")."""
    axes = [view.plot.getAxis(side) for side in ("bottom", "left")]
    assert not any(axis.isVisible() for axis in axes)
    rng = np.random.default_rng(0)
    view.set_points(
        rng.normal(scale=1e-6, size=(50, 2)),
        category_colours(np.zeros(50, int)),
        str,
        ("PC 1", "PC 2"),
    )
    qtbot.wait(50)
    assert all(axis.isVisible() for axis in axes)
    assert "x1e" not in axes[0].labelString() and "PC 1" in axes[0].labelString()
    assert "x1e" not in axes[1].labelString() and "PC 2" in axes[1].labelString()
    view.clear("Nothing to show.")
    assert not any(axis.isVisible() for axis in axes)


def test_numbers_show_a_colour_bar_and_categories_hide_it(qtbot, view):
    """Colour by a number: a colour bar of its scale beside the plot, points drawn in
    its colours; by categories: no bar, and the plot takes its width back."""
    from sentspace.app.analysis.columns import Categories, Numbers
    from sentspace.app.state.colouring import colour_by

    rng = np.random.default_rng(3)
    points = rng.normal(size=(500, 2)).astype(np.float32)
    values = np.where(np.arange(500) % 50 == 0, np.nan, np.arange(500.0))
    words = colour_by(Numbers("Words", values))
    view.set_points(points, words.colours, str, ("x", "y"), words.legend, words.scale)
    qtbot.wait(20)
    bar = view.colour_bar
    assert bar.isVisible() and bar.levels() == (1.0, 499.0)
    assert bar.getAxis("left").labelText == "Words"
    drawn = view.points.data
    brushes = dict(zip(drawn["data"].tolist(), (brush.color().name() for brush in drawn["brush"])))
    assert brushes[1] == "#440154" and brushes[499] == "#fde725" and brushes[0] == "#b0b0b0"
    assert np.isnan(values[drawn["data"][:10].astype(int)]).all()  # no value: drawn under the rest
    assert "no value (10)" in view.legend.text()
    width = view.view_box.width()

    split = colour_by(Categories("Split", ("train", "test"), np.arange(500) % 2))
    view.set_colours(split.colours, split.legend, split.scale)
    qtbot.wait(20)
    assert not bar.isVisible() and view.view_box.width() > width
    view.set_colours(words.colours, words.legend, words.scale)
    view.clear("nothing yet")
    assert not bar.isVisible()


def test_a_named_category_shows_in_the_density_image_among_the_others(qtbot, view):
    """Ten groups named among 29,000: a density bin holding one of their points shows
    its colour, not the shared colour of the thousands of others around it."""
    from sentspace.app.base.palette import OTHER

    rng = np.random.default_rng(4)
    points = rng.normal(size=(POINT_LIMIT * 2, 2)).astype(np.float32)
    points[:5] = 0.01 * np.arange(5)[:, None]  # in the densest bins
    codes = np.ones(len(points), dtype=np.int32)
    codes[:5] = 0
    view.set_points(points, PointColours(codes, ("#1f77b4", OTHER)), str, ("x", "y"))
    assert view.mode == "density"
    image = view.density.image
    named = (image[..., :3] == QColor("#1f77b4").getRgb()[:3]).all(axis=-1)
    assert 1 <= np.count_nonzero(named & (image[..., 3] > 0)) <= 5


def test_a_filter_change_redraws_the_density_as_drawing_it_afresh(qtbot, view):
    """A brush moving recounts only the points whose passing changed: the image is the
    one a view drawing the same filter from nothing shows (named colours over "other",
    faded bins of points that fail)."""
    rng = np.random.default_rng(3)
    n = POINT_LIMIT * 3
    points = rng.normal(size=(n, 2)).astype(np.float32)
    colours = PointColours(
        rng.integers(0, 4, n).astype(np.int32),
        ("#ff0000", "#00aa00", "#0000ff", projection_view.OTHER),
    )
    fresh = show_widget(qtbot, ProjectionView(), (900, 650))
    qtbot.waitExposed(fresh)
    for widget in (view, fresh):
        widget.set_points(points, colours, str, ("x", "y"))
    words = rng.integers(3, 40, n)
    for low in (5, 6, 7, 20, 21, 3):
        mask = (words >= low) & (words <= low + 8)
        view.set_passing(mask)
        fresh._tally = None  # drawn from nothing
        fresh.set_passing(mask)
        assert view.mode == "density"
        assert np.array_equal(view.density.image, fresh.density.image), low
    faded = (view.density.image == projection_view.FILTERED_OUT).all(axis=2)
    assert faded.any()
    view.set_passing(None)
    fresh._tally = None
    fresh.set_passing(None)
    assert np.array_equal(view.density.image, fresh.density.image)


def test_points_draw_as_a_brush_per_point_would_from_one_symbol_per_colour(qtbot, view):
    """Points mode looks each colour's symbol up once, not once per point: filtering
    and recolouring leave the symbol atlas at one symbol per colour (a brush made per
    drawing added one each time), and the picture is pyqtgraph's own from a brush per
    point, pixel for pixel."""
    import pyqtgraph as pg
    from PySide6.QtGui import QImage

    rng = np.random.default_rng(5)
    n = 3000
    points = rng.normal(size=(n, 2)).astype(np.float32)
    palette = ("#ff0000", "#00aa00", "#0000ff", projection_view.OTHER)
    colours = PointColours(rng.integers(0, 4, n).astype(np.int32), palette)
    view.set_points(points, colours, str, ("x", "y"))
    words = rng.integers(3, 40, n)
    for low in (5, 6, 7):
        view.set_passing((words >= low) & (words <= low + 8))
    view.set_colours(colours, "")
    assert view.mode == "points" and len(view.points.data) == n
    assert len(view.points.fragmentAtlas) == len(palette) + 1  # and the filtered-out grey

    def picture() -> np.ndarray:
        image = view.plot.grab().toImage().convertToFormat(QImage.Format.Format_RGBA8888)
        return np.array(image.constBits()).reshape(image.height(), image.width(), 4).copy()

    drawn = picture()
    data = view.points.data
    reference = pg.ScatterPlotItem(size=7, pen=None, pxMode=True)
    reference.setData(x=data["x"], y=data["y"], brush=list(data["brush"]))
    reference.setZValue(view.points.zValue())
    view.points.hide()
    view.plot.addItem(reference)
    assert np.array_equal(picture(), drawn)


def test_a_named_point_is_drawn_over_the_grey_ones_on_it(qtbot, view):
    """Points of the categories past the legend's ten and of none, later in the data
    but on a named point, are drawn under it (as the density shows named colours)."""
    from sentspace.app.base.palette import OTHER, UNGROUPED

    points = np.array([[0, 0], [0, 0], [1, 1], [1, 1], [2, 0]], dtype=np.float32)
    codes = np.array([0, 1, 0, 2, 0], dtype=np.int32)
    view.set_points(points, PointColours(codes, ("#1f77b4", OTHER, UNGROUPED)), str, ("x", "y"))
    assert view.mode == "points"
    image = view.plot.grab().toImage()
    for index in (0, 2):
        centre = view.plot.mapFromScene(view.scene_position(index))
        assert image.pixelColor(centre).name() == "#1f77b4"
