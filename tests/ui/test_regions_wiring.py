"""View > Find regions in the window: labels over the layout, the cluster colours, a
label click selecting its sentences, the CSV, and regions that stay with their corpus
and layout."""

import csv

import numpy as np
from PySide6.QtCore import QRectF, Qt

from sentspace.app.state.colouring import cluster_colours
from tests.ui.conftest import (
    double_click_corpus,
    drawn_colours,
    open_sick,
    save_and_wait,
    settle,
    wait_for_job,
)


def test_find_regions_click_one_export_and_switch(qtbot, window, shared_data, tmp_path):
    window.run()
    wait_for_job(qtbot, window)
    settle(qtbot, window)
    assert not window.regioning.export_action.isEnabled()
    window.regioning.find_action.trigger()
    wait_for_job(qtbot, window)
    regions = window.current.regions
    labels = window.regioning.labels
    assert regions is not None and regions.n_clusters >= 2
    assert [len(items) for items in labels.items] == [
        level.n_clusters for level in regions.levels
    ] and labels.shown
    assert window.regioning.export_action.isEnabled()
    # No label is cut by the plot's edge.
    box = labels.plot.vb.mapRectToScene(labels.plot.vb.boundingRect())
    for level, k in labels.shown:
        item = labels.items[level][k]
        centre = labels.plot.vb.mapViewToScene(item.pos())
        size = item.textItem.boundingRect().size()
        rect = QRectF(
            centre.x() - size.width() / 2,
            centre.y() - size.height() / 2,
            size.width(),
            size.height(),
        )
        assert box.adjusted(-1, -1, 1, 1).contains(rect), (k, rect, box)

    controls = window.corpus_panel.projection_controls
    controls.colour.setCurrentIndex(controls.colour.findData("region"))
    brushes = drawn_colours(window.projection)
    expected = cluster_colours(regions)
    assert [brushes[i] for i in range(0, len(expected), 97)] == [
        str(expected[i]).lower() for i in range(0, len(expected), 97)
    ]

    # Search hits stay visible over any region colour: a black outline on a white halo,
    # both drawn above the points.
    view = window.projection
    view.search.setText("nasdaq")
    qtbot.waitUntil(lambda: len(view.found.data) == 6)
    assert view.points.zValue() < view.found_halo.zValue() < view.found.zValue()
    image = view.plot.grab().toImage()
    for index in view.found.data["data"]:
        centre = view.plot.mapFromScene(view.scene_position(int(index)))
        around = [
            image.pixelColor(centre.x() + dx, centre.y() + dy)
            for dx in range(-8, 9)
            for dy in range(-8, 9)
        ]
        assert sum(max(c.red(), c.green(), c.blue()) < 60 for c in around) >= 8
        assert sum(min(c.red(), c.green(), c.blue()) > 240 for c in around) >= 8
    # No label covers a hit.
    hits = labels._to_scene(view.marked_positions())
    for level, k in labels.shown:
        item = labels.items[level][k]
        centre = labels.plot.vb.mapViewToScene(item.pos())
        size = item.textItem.boundingRect().size()
        assert not any(
            abs(x - centre.x()) <= size.width() / 2 and abs(y - centre.y()) <= size.height() / 2
            for x, y in hits
        )
    view.search.clear()
    qtbot.wait(100)  # the selection the search made follows it; labels settle

    level, cluster = labels.shown[0]
    centre = labels.items[level][cluster].pos()
    qtbot.mouseClick(
        view.plot.viewport(),
        Qt.MouseButton.LeftButton,
        pos=view.plot.mapFromScene(view.plot.getPlotItem().vb.mapViewToScene(centre)),
    )
    qtbot.waitUntil(lambda: window.selection.source == "cluster")
    members = np.flatnonzero(regions.levels[level].labels == cluster)
    assert window.selection.indices.tolist() == members.tolist()
    assert window.selecting.list.count() == len(members)

    path = tmp_path / "regions.csv"
    window.regioning.export_csv(path)
    rows = list(csv.reader(path.open(encoding="utf-8")))
    assert len(rows) == len(window.corpus) + 1
    assert rows[1 + members[0]][1 + 2 * level + 1] == regions.levels[level].label(cluster)
    # Selected, the region keeps its label (moved off its ringed points if need be).
    assert (level, cluster) in labels.shown

    # Another corpus shows no labels of this one; back again, they are there.
    open_sick(qtbot, window, shared_data)
    assert window.regioning.labels is None and not window.regioning.export_action.isEnabled()
    double_click_corpus(qtbot, window, "msrp-grouped")
    assert window.regioning.labels is not None
    assert len(window.regioning.labels.items[0]) == regions.n_clusters
    # A workspace keeps them with their layout.
    from sentspace.app.ui.window.main_window import MainWindow

    reopened = MainWindow()
    qtbot.addWidget(reopened)
    reopened.files.open_workspace(save_and_wait(qtbot, window, tmp_path / "regions.sentspace"))
    wait_for_job(qtbot, reopened)
    assert np.array_equal(reopened.current.regions.labels, regions.labels)
    assert len(reopened.regioning.labels.items) == len(regions.levels)
    reopened.close()
    # A new layout drops them.
    window.analyses.project_again()
    wait_for_job(qtbot, window)
    assert window.current.regions is None and window.regioning.labels is None
