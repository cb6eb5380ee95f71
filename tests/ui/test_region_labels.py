"""Region labels over a real projection of the bundled corpus: coarse names when zoomed
out, finer ones zoomed in, never over a marked point, and a click on a label names its
region."""

from collections import Counter

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRectF, Qt

from sentspace.app.analysis.projection import project
from sentspace.app.analysis.regions import find_regions
from sentspace.app.base.jobs import run_job
from sentspace.app.base.palette import UNGROUPED
from sentspace.app.corpora import load_corpus
from sentspace.app.state.colouring import cluster_colours
from sentspace.app.ui.views.projection_view import ProjectionView
from sentspace.app.ui.views.region_labels import RegionLabels
from sentspace.models import make_encoder


def bow_regions(spec):
    """The regions of ``spec``'s bag-of-words PCA layout, and the layout."""
    corpus = load_corpus(spec)
    embeddings = make_encoder("bow").fit(corpus.texts).encode(corpus.texts)
    layout = run_job(project(embeddings, "pca")).coordinates
    return run_job(find_regions(corpus, layout)), layout


@pytest.fixture(scope="module")
def regions_and_layout():
    return bow_regions("msrp-grouped")


@pytest.fixture
def overlay(qtbot, regions_and_layout):
    regions, layout = regions_and_layout
    widget = pg.PlotWidget(background="w")
    widget.resize(800, 600)
    qtbot.addWidget(widget)
    widget.addItem(
        pg.ScatterPlotItem(layout[:, 0], layout[:, 1], brush=list(cluster_colours(regions)))
    )
    marks = {"points": np.empty((0, 2))}
    labels = RegionLabels(widget.getPlotItem(), regions, marked=lambda: marks["points"])
    labels.marks = marks
    widget.show()
    qtbot.waitExposed(widget)
    widget.getPlotItem().vb.autoRange()
    return widget, labels


def scene_box(labels, level, k):
    """Where a label is drawn on screen: centred on its position (its anchor)."""
    item = labels.items[level][k]
    centre = labels.plot.vb.mapViewToScene(item.pos())
    size = item.textItem.boundingRect().size()
    return QRectF(
        centre.x() - size.width() / 2, centre.y() - size.height() / 2, size.width(), size.height()
    )


def scene_boxes(labels):
    return [scene_box(labels, level, k) for level, k in labels.shown]


def test_zooming_in_switches_to_finer_levels(overlay):
    widget, labels = overlay
    regions = labels.regions
    view = widget.getPlotItem().vb
    assert len(regions.levels) == 3
    # The whole map: coarse names only, the largest region's among them.
    assert labels.level == 0 and {level for level, _ in labels.shown} == {0}
    assert (0, int(np.argmax(regions.sizes))) in labels.shown
    shown_coarse = len(labels.shown)
    # Zoomed in on the middle of the map: the finest level's names, more of them.
    x, y = np.median(layout_of(labels), axis=0)
    view.scaleBy((0.15, 0.15), center=pg.Point(float(x), float(y)))
    assert labels.level == len(regions.levels) - 1
    assert {level for level, _ in labels.shown} == {labels.level}
    assert len(labels.shown) > shown_coarse
    # Between the two, the middle level.
    view.autoRange()
    view.scaleBy((0.45, 0.45), center=pg.Point(float(x), float(y)))
    assert labels.level == 1
    # No two labels overlap at any level.
    boxes = scene_boxes(labels)
    assert all(not a.intersects(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])


def layout_of(labels):
    return labels.levels[-1].centres


def test_a_label_moves_off_a_marked_point(overlay):
    widget, labels = overlay
    level, cluster = labels.shown[0]
    before = scene_box(labels, level, cluster)
    # A search hit right under the label's centre.
    labels.marks["points"] = np.array([labels.levels[level].centres[cluster]])
    labels.relayout()
    view = widget.getPlotItem().vb
    hit = view.mapViewToScene(pg.Point(*map(float, labels.marks["points"][0])))
    assert before.contains(hit)
    assert all(not box.contains(hit) for box in scene_boxes(labels))
    assert (level, cluster) in labels.shown  # moved beside its place, not dropped


def test_clicking_a_label_names_its_cluster(qtbot, overlay):
    widget, labels = overlay
    level, cluster = labels.shown[0]
    item = labels.items[level][cluster]
    scene_point = item.mapToScene(item.boundingRect().center())
    viewport_point = widget.mapFromScene(scene_point)
    with qtbot.waitSignal(labels.region_clicked) as signal:
        qtbot.mouseClick(widget.viewport(), Qt.MouseButton.LeftButton, pos=viewport_point)
    assert signal.args == [level, cluster]


def test_colours_by_cluster_with_noise_grey(regions_and_layout):
    regions, _ = regions_and_layout
    colours = cluster_colours(regions)
    assert (colours[regions.labels == -1] == UNGROUPED).all()
    assert len(set(colours[regions.labels == 0])) == 1


def test_remove_takes_the_labels_off(overlay):
    widget, labels = overlay
    labels.remove()
    assert not any(isinstance(item, pg.TextItem) for item in widget.getPlotItem().vb.addedItems)


def test_labels_keep_off_the_misclassified_rings(qtbot, regions_and_layout):
    regions, layout = regions_and_layout
    view = ProjectionView()
    qtbot.addWidget(view)
    view.resize(900, 650)
    view.show()
    qtbot.waitExposed(view)
    view.set_points(layout, cluster_colours(regions), str, ("PC 1", "PC 2"))
    labels = RegionLabels(view.plot.getPlotItem(), regions, marked=view.marked_positions)
    view.marks_changed.connect(labels.relayout)  # as the window's regioning does
    level, cluster = labels.shown[0]
    before = scene_box(labels, level, cluster)
    # A misclassified sentence under the label: ringed, it pushes the label aside.
    nearest = int(np.argmin(((layout - labels.levels[level].centres[cluster]) ** 2).sum(axis=1)))
    hit = view.scene_position(nearest)
    assert before.contains(hit)
    view.mark(np.array([nearest]))
    assert all(not box.contains(hit) for box in scene_boxes(labels))
    assert (level, cluster) in labels.shown


@pytest.fixture(scope="module")
def costra_regions():
    return bow_regions("costra")


def test_every_coarse_region_of_costra_is_named_over_its_own_sentences(qtbot, costra_regions):
    """Costra's whole map named 3 of its 8 coarse regions, not the largest, and one label
    sat over another region: each is now named, at its densest place, over sentences
    mostly its own."""
    regions, layout = costra_regions
    widget = pg.PlotWidget(background="w")
    widget.resize(700, 560)  # the projection's room in the window at 1280x800
    qtbot.addWidget(widget)
    widget.addItem(pg.ScatterPlotItem(layout[:, 0], layout[:, 1]))
    labels = RegionLabels(widget.getPlotItem(), regions, layout=layout)
    widget.show()
    qtbot.waitExposed(widget)
    widget.getPlotItem().vb.autoRange()
    labels.relayout()
    assert labels.level == 0 and regions.n_clusters == 8
    assert sorted(k for level, k in labels.shown) == list(range(8))
    points = labels._to_scene(layout)
    own = {}
    for _, k in labels.shown:
        box = scene_box(labels, 0, k)
        under = (
            (points[:, 0] >= box.left())
            & (points[:, 0] <= box.right())
            & (points[:, 1] >= box.top())
            & (points[:, 1] <= box.bottom())
        )
        own[regions.label(k)] = np.mean(regions.labels[under] == k) if under.any() else 1.0
    # Most labels lie over sentences mostly their own; where three regions crowd into
    # fewer pixels than their labels, the free place most their own.
    assert sum(share >= 0.5 for share in own.values()) >= 6, own
    # No word in more than half the labels of a level.
    for level in regions.levels:
        named = Counter(w for k in range(level.n_clusters) for w in set(level.label(k).split(", ")))
        assert max(named.values()) <= max(1, level.n_clusters // 2)
