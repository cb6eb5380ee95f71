"""The Filter panel in the window: brushing a histogram and clicking bars filter the
Corpus table and the projection, and grey the neighbours; chips remove conditions; a bad
expression says why; the selection is kept as a condition; the passing and selected
sentences export, a failure in a dialog."""

import csv
import json

import numpy as np
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QMessageBox, QToolButton

from sentspace.app.analysis.filters import Chosen, Range
from sentspace.app.ui.window.main_window import MainWindow
from tests.ui.conftest import JOB_TIMEOUT_MS, open_sick, run_and_wait


def bar_position(chart, row):
    """Where bar ``row`` of a category chart is on screen (widget coordinates)."""
    box = chart.getPlotItem().getViewBox()
    scene = box.mapViewToScene(QPointF(chart.shown_bars.opts["width"][row] / 2, row))
    return chart.mapFromScene(scene)


def test_brushing_and_clicking_filter_the_table_and_the_projection(
    qtbot, shared_data, tmp_path, monkeypatch
):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    open_sick(qtbot, window, shared_data)
    run_and_wait(qtbot, window)
    panel, session = window.filter_panel, window.session
    window.tasks.setCurrentWidget(panel)
    window.views.setCurrentIndex(3)  # the Corpus table
    browser = window.views.corpus_browser
    corpus = window.corpus
    length = np.array([len(t.split()) for t in corpus.texts])
    assert browser.count.text() == "924 sentences"

    # A brush over 5 to 8 words (what a drag across the histogram sends) ...
    panel.charts["Words"].brush(4.7, 8.2)
    qtbot.waitUntil(lambda: session.current.filter.conditions == (Range("Words", 5, 8),))
    keep = (length >= 5) & (length <= 8)
    assert browser.count.text() == f"{keep.sum():,} of 924 sentences" == "401 of 924 sentences"
    assert set(browser.model.rows.tolist()) == set(np.flatnonzero(keep).tolist())
    drawn = window.projection.points
    faded = [brush.color().alpha() < 100 for brush in drawn.data["brush"]]
    assert np.array_equal(~np.array(faded), keep[drawn.data["data"].astype(int)])
    assert panel.count.text() == "<b>401</b> of 924 sentences pass"

    # ... then dragging its right edge to 6 (the region's own signal, as a drag sends).
    region = panel.charts["Words"].region
    region.setRegion((4.5, 6.5))
    qtbot.waitUntil(lambda: session.current.filter.conditions == (Range("Words", 5, 6),))

    # A click on a bar of Pair label keeps those sentences too; the chart of Words counts
    # under it, Pair label's own chart under the brush only.
    labels = panel.charts["Pair label"]
    # Every bar's label is drawn, the longest elided to the axis ("CONTRADICTION + …").
    axis = labels.getPlotItem().getAxis("left")
    image = QImage(200, 400, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    drawn_texts = [text for _, _, text in axis.generateDrawSpecs(painter)[2]]
    painter.end()
    # SICK's 7 combinations of labels; every sentence is in a pair: no "in no pair" bar.
    names = [name for name in labels.chart.labels if name]
    assert len(drawn_texts) == len(names) == 7
    assert "CONTRADICTION + ENTAILMENT + NEUTRAL" in names
    assert all(name.startswith(text.rstrip("…")) for name, text in zip(names, drawn_texts))
    top = labels.chart.labels[0]
    qtbot.mouseClick(labels.viewport(), Qt.MouseButton.LeftButton, pos=bar_position(labels, 0))
    qtbot.waitUntil(
        lambda: session.current.filter.condition("Pair label") == Chosen("Pair label", (top,))
    )
    column = labels.chart.column
    chosen = column.codes == column.names.index(top)
    keep = (length >= 5) & (length <= 6) & chosen
    assert len(browser.model.rows) == keep.sum() > 0
    assert labels.shown_bars.opts["width"][0] == ((length >= 5) & (length <= 6) & chosen).sum()

    # Chips name each condition; removing one widens the table again.
    chips = {chip.accessibleName(): chip for chip in panel.chips.findChildren(QToolButton)}
    assert set(chips) == {"filter chip Words", "filter chip Pair label"}
    chips["filter chip Words"].click()
    qtbot.waitUntil(lambda: len(browser.model.rows) == chosen.sum())

    # A bad expression is shown inline and filters nothing; a good one filters.
    panel.expression.setText("words >> 3")
    qtbot.keyClick(panel.expression, Qt.Key.Key_Return)
    assert panel.error.isVisible() and "arithmetic is not allowed" in panel.error.text()
    assert session.current.filter.expression == ""
    panel.expression.setText("words > 12")
    qtbot.keyClick(panel.expression, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: len(browser.model.rows) == (chosen & (length > 12)).sum())
    assert not panel.error.isVisible()

    # The neighbours of a sentence grey those the filter leaves out.
    neighbours = window.neighbours_view
    with qtbot.waitSignal(neighbours.neighbours_found, timeout=JOB_TIMEOUT_MS):
        neighbours.query_sentence(0)
    column = neighbours.columns[0]
    passing = chosen & (length > 12)
    greyed = [
        column.table.item(row, 3).toolTip() == "Filtered out by the Filter panel"
        for row in range(column.table.rowCount())
    ]
    assert greyed == [not passing[i] for i in column.indices] and any(greyed)
    panel.clear_button.click()
    qtbot.waitUntil(lambda: browser.count.text() == "924 sentences")
    assert not session.current.filter and panel.expression.text() == ""

    # The selection kept as a filter: a chip, and the table lists those sentences only.
    chosen_rows = np.flatnonzero(length > 12)[:5]
    session.selection.select(chosen_rows, source="chart")
    panel.keep_button.click()
    qtbot.waitUntil(lambda: sorted(browser.model.rows.tolist()) == chosen_rows.tolist())
    chips = {chip.accessibleName() for chip in panel.chips.findChildren(QToolButton)}
    assert "filter chip Selection" in chips

    # The passing and the selected sentences export with every column; a failed export
    # is a dialog.
    filtering = window.filtering
    passing_csv = tmp_path / "passing.csv"
    assert filtering.export("passing", str(passing_csv))
    with passing_csv.open(encoding="utf-8", newline="") as handle:
        read = list(csv.DictReader(handle))
    assert [row["id"] for row in read] == [corpus.ids[k] for k in chosen_rows]
    assert read[0]["text"] == corpus.texts[chosen_rows[0]]
    assert int(read[0]["Words"]) == length[chosen_rows[0]] and "Pair label" in read[0]
    session.selection.select(chosen_rows[:2], source="chart")
    selected = tmp_path / "selected.jsonl"
    assert filtering.export("selected", str(selected))
    lines = [json.loads(line) for line in selected.read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == [corpus.ids[k] for k in chosen_rows[:2]]
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: warned.append(args[2]))
    assert not filtering.export("passing", str(tmp_path / "no such folder" / "x.csv"))
    assert warned and "cannot write the export" in warned[0]
