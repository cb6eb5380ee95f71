"""The Filter panel in the window: brushing a histogram and clicking bars filter the
Corpus table and the projection, and grey the neighbours; chips remove conditions; a bad
expression says why; the selection is kept as a condition; the passing and selected
sentences export, a failure in a dialog."""

import csv
import dataclasses
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
    # The pairs both of whose sentences pass, as an evaluation of the filter keeps them.
    assert panel.count.text() == "<b>401</b> of 924 sentences pass · <b>163</b> of 500 pairs"

    # ... then dragging its right edge to 6 (the region's own signal, as a drag sends).
    region = panel.charts["Words"].region
    region.setRegion((4.5, 6.5))
    qtbot.waitUntil(lambda: session.current.filter.conditions == (Range("Words", 5, 6),))

    # A click on a bar of Pair label keeps the pairs of that label, and their
    # sentences; its chart counts pairs (both sentences under the brush), the chart of
    # Words the sentences of such pairs.
    labels = panel.charts["Pair label"]
    axis = labels.getPlotItem().getAxis("left")
    image = QImage(200, 400, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    drawn_texts = [text for _, _, text in axis.generateDrawSpecs(painter)[2]]
    painter.end()
    # The pairs' own 3 labels (not SICK's 7 combinations of a sentence's), each whole.
    names = [name for name in labels.chart.labels if name]
    assert sorted(drawn_texts) == sorted(names) == ["CONTRADICTION", "ENTAILMENT", "NEUTRAL"]
    pairs = corpus.pairs
    assert labels.all_bars.opts["width"].sum() == len(pairs)
    top = labels.chart.labels[0]
    qtbot.mouseClick(labels.viewport(), Qt.MouseButton.LeftButton, pos=bar_position(labels, 0))
    qtbot.waitUntil(
        lambda: session.current.filter.condition("Pair label") == Chosen("Pair label", (top,))
    )
    of_label = np.array([pairs.label_text(k) == top for k in pairs.label])
    chosen = np.zeros(len(corpus), dtype=bool)
    chosen[pairs.first[of_label]] = chosen[pairs.second[of_label]] = True
    keep = (length >= 5) & (length <= 6) & chosen
    assert len(browser.model.rows) == keep.sum() > 0
    short = (length >= 5) & (length <= 6)
    both_short = short[pairs.first] & short[pairs.second]
    assert labels.shown_bars.opts["width"][0] == (both_short & of_label).sum() > 0

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
    assert not panel.error.text()

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
    # Each column under the name an expression calls it.
    assert int(read[0]["words"]) == length[chosen_rows[0]] and "label" in read[0]
    session.selection.select(chosen_rows[:2], source="chart")
    selected = tmp_path / "selected.jsonl"
    assert filtering.export("selected", str(selected))
    lines = [json.loads(line) for line in selected.read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == [corpus.ids[k] for k in chosen_rows[:2]]
    warned = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: warned.append(args[2]))
    assert not filtering.export("passing", str(tmp_path / "no such folder" / "x.csv"))
    assert warned and "cannot write the export" in warned[0]


def test_the_charts_stay_put_when_a_chip_comes_or_an_error_goes(qtbot, shared_data):
    """The charts moved down 20-25 px when the first chip came and up when an error line
    cleared, so the next click landed on another bar: the chips' row and the error's
    lines keep their room. And the pair charts' bars are never elided alike."""
    from sentspace.app.analysis.filters import Filter, corpus_table
    from sentspace.app.corpora import load_corpus
    from sentspace.app.ui.panels.filter_panel import FilterPanel

    sick = load_corpus(shared_data / "sick")
    table = corpus_table(sick)
    panel = FilterPanel()
    qtbot.addWidget(panel)
    panel.resize(330, 760)
    panel.show()
    qtbot.waitExposed(panel)

    def shown(chosen, error=""):
        panel.show_filter(table, chosen, table.evaluate(chosen), error)
        qtbot.wait(20)  # the layout settles
        return {
            title: chart.mapTo(panel, chart.rect().topLeft()).y()
            for title, chart in panel.charts.items()
        }

    where = shown(Filter())
    labels = panel.charts["Pair label"]
    qtbot.mouseClick(labels.viewport(), Qt.MouseButton.LeftButton, pos=bar_position(labels, 0))
    chosen = panel.filter
    assert chosen.condition("Pair label") is not None
    assert shown(chosen) == where
    chip = panel.chips.findChildren(QToolButton)[0]
    # The chip says which pairs it keeps.
    assert chip.text().startswith("Pair label: NEUTRAL") and "5,611 pairs" in chip.text()
    assert "<b>" in panel.count.text() and "pairs" in panel.count.text()
    long_error = "filter expression, column 1 ('lenght'): no column is called lenght; " + (
        "the names are " + ", ".join(sorted(table.names))
    )
    assert shown(chosen, long_error) == where and panel.error.text() == long_error
    assert shown(chosen) == where and shown(Filter()) == where


def test_two_bars_are_never_elided_to_the_same_words(qtbot, shared_data):
    """SICK's sentences by all their pairs' labels (the colouring's column): two bars
    were both cut to "CONTRADICTION + E…"; each drawn label now reads apart."""
    from sentspace.app.analysis.columns import sentence_columns
    from sentspace.app.analysis.filters import make_chart
    from sentspace.app.corpora import load_corpus
    from sentspace.app.ui.charts.column_chart import ColumnChart

    sick = load_corpus(shared_data / "sick")
    joined = next(c for c in sentence_columns(sick) if c.title == "Pair label")
    chart = ColumnChart(make_chart(dataclasses.replace(joined, of_pairs=None)))
    qtbot.addWidget(chart)
    axis = chart.getPlotItem().getAxis("left")
    drawn = [text for _, text in axis._tickLevels[0]]
    names = [name for name in chart.chart.labels if name]
    assert len(names) == 7 and "CONTRADICTION + ENTAILMENT + NEUTRAL" in names
    assert len(set(drawn)) == len(drawn) == 7
    assert sum(text.startswith("CONTRADICTION") for text in drawn) >= 2
