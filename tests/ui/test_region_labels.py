"""Region labels over a real projection of the bundled corpus: fewer when zoomed out,
more when zoomed in, and a click on a label names its cluster."""

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt

from sentspace.app.colouring import cluster_colours
from sentspace.app.corpora import load_corpus
from sentspace.app.jobs import run_job
from sentspace.app.palette import UNGROUPED
from sentspace.app.projection import project
from sentspace.app.regions import find_regions
from sentspace.app.ui.views.region_labels import RegionLabels
from sentspace.models import make_encoder


@pytest.fixture(scope="module")
def regions_and_layout():
    corpus = load_corpus("msrp-grouped")
    embeddings = make_encoder("bow").fit(corpus.texts).encode(corpus.texts)
    layout = run_job(project(embeddings, "pca")).coordinates
    return run_job(find_regions(corpus, layout)), layout


@pytest.fixture
def overlay(qtbot, regions_and_layout):
    regions, layout = regions_and_layout
    widget = pg.PlotWidget(background="w")
    widget.resize(800, 600)
    qtbot.addWidget(widget)
    widget.addItem(pg.ScatterPlotItem(layout[:, 0], layout[:, 1],
                                      brush=list(cluster_colours(regions))))
    labels = RegionLabels(widget.getPlotItem(), regions)
    widget.show()
    qtbot.waitExposed(widget)
    widget.getPlotItem().vb.autoRange()
    return widget, labels


def test_zooming_in_shows_more_labels(overlay):
    widget, labels = overlay
    regions = labels.regions
    view = widget.getPlotItem().vb
    fitted = len(labels.shown)
    assert 0 < fitted < regions.n_clusters      # crowded: not every label fits
    assert int(np.argmax(regions.sizes)) in labels.shown   # the largest is named first
    view.scaleBy((8, 8))                          # zoomed far out
    assert len(labels.shown) < fitted
    view.autoRange()
    # Zoom in on the densest label's neighbourhood: labels hidden before appear.
    hidden = set(range(regions.n_clusters)) - set(labels.shown)
    x, y = regions.centres[min(hidden, key=lambda k: -regions.sizes[k])]
    view.scaleBy((0.2, 0.2), center=pg.Point(float(x), float(y)))
    assert hidden & set(labels.shown)


def test_clicking_a_label_names_its_cluster(qtbot, overlay):
    widget, labels = overlay
    cluster = labels.shown[0]
    item = labels.items[cluster]
    scene_point = item.mapToScene(item.boundingRect().center())
    viewport_point = widget.mapFromScene(scene_point)
    with qtbot.waitSignal(labels.region_clicked) as signal:
        qtbot.mouseClick(widget.viewport(), Qt.MouseButton.LeftButton, pos=viewport_point)
    assert signal.args == [cluster]


def test_colours_by_cluster_with_noise_grey(regions_and_layout):
    regions, _ = regions_and_layout
    colours = cluster_colours(regions)
    assert (colours[regions.labels == -1] == UNGROUPED).all()
    assert len(set(colours[regions.labels == 0])) == 1


def test_remove_takes_the_labels_off(overlay):
    widget, labels = overlay
    labels.remove()
    assert not any(isinstance(item, pg.TextItem)
                   for item in widget.getPlotItem().vb.addedItems)
