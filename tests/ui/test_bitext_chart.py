"""The bitext chart on Multi30K test_2016_flickr (the full files): a point per query at
its length and the rank of its translation, the median per length bin, and a click that
selects the query's sentence; the queries a filter leaves out drawn grey."""

import math

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFont, QFontMetrics
from scipy.spatial import cKDTree

from sentspace.app.analysis.evaluations.bitext import length_bins, run_bitext
from sentspace.app.analysis.result_items import passing_shown
from sentspace.app.base.jobs import run_job
from sentspace.app.ui import charts
from sentspace.app.ui.charts.bitext import MIN_CHART_HEIGHT, SPREAD, BitextLengthChart
from sentspace.app.ui.panels.evaluation_panel import EvaluationPanel
from sentspace.models.bow import BagOfWords
from tests.ui.conftest import show_chart

#: About the Evaluations panel's chart at 1280x800.
SIZE = (320, 330)


@pytest.fixture(scope="module")
def bow_en_de(test_2016):
    return run_job(run_bitext(test_2016, BagOfWords(), languages="en-de", n_resamples=0))


def isolated(chart) -> int:
    """The query whose point is farthest (in pixels) from any other: a click hits it."""
    vb = chart.plot.vb
    pixels = np.array(
        [
            [p.x(), p.y()]
            for p in (vb.mapViewToScene(QPointF(x, y)) for x, y in zip(chart.x, chart.y))
        ]
    )
    distance, _ = cKDTree(pixels).query(pixels, k=2)
    return int(np.argmax(distance[:, 1]))


def click(qtbot, chart, k):
    qtbot.mouseClick(
        chart.viewport(),
        Qt.MouseButton.LeftButton,
        pos=chart.mapFromScene(chart.scene_position_of(k)),
    )


def test_points_ranks_lengths_and_median_line(qtbot, test_2016, bow_en_de):
    result = bow_en_de
    chart = show_chart(qtbot, charts.chart_for("bitext", result), SIZE)
    assert isinstance(chart, BitextLengthChart)
    assert chart.point_count == len(result.rank) == 2000
    # Every query once, at its length (spread sideways) and log10 of its rank.
    assert sorted(chart.points.data["data"].tolist()) == list(range(2000))
    assert np.all(np.abs(chart.x - result.query_length) <= SPREAD)
    np.testing.assert_allclose(chart.y, np.log10(result.rank))
    (x0, x1), (y0, y1) = chart.plot.viewRange()
    assert x0 <= chart.x.min() and chart.x.max() <= x1
    assert y0 < 0 == chart.y.min() and chart.y.max() < y1
    # Points coloured by direction: one colour each.
    colours = [brush.color().name() for brush in chart.points.data["brush"]]
    direction = result.direction[chart.points.data["data"].astype(np.int64)]
    assert len(set(colours)) == 2
    for d in (0, 1):
        assert len({c for c, e in zip(colours, direction) if e == d}) == 1
    # Under a filter, the queries whose sentence or translation fails it are grey.
    long = np.array([len(text.split()) > 12 for text in test_2016.texts])
    chart.show_passing(*passing_shown(result, test_2016, long))
    passing = long[result.query] & long[result.target]
    drawn = chart.points.data["data"].astype(np.int64)
    faint = np.array([brush.color().alpha() < 100 for brush in chart.points.data["brush"]])
    assert np.array_equal(faint, ~passing[drawn]) and 0 < passing.sum() < 2000
    assert chart.filter_note.text == f"{passing.sum():,} of 2,000 queries pass the filter"
    chart.show_passing(None)
    # The median line steps over the length bins.
    bins = length_bins(result)
    xs, ys = chart.median_line.getData()
    np.testing.assert_allclose(ys, np.log10(bins.median_rank))
    np.testing.assert_allclose(xs, [*(bins.low - 0.5), bins.high[-1] + 0.5])
    # Ranks on a log scale read as ranks, without an SI prefix.
    left = chart.plot.getAxis("left")
    assert [label for _, label in left._tickLevels[0]] == ["1", "10", "100", "1,000"]
    assert not left.autoSIPrefix and not chart.plot.getAxis("bottom").autoSIPrefix
    assert left.labelUnitPrefix == "" and "rank" in left.labelText
    # Nothing is cut at the panel's width: legend (both directions and the median)
    # and plot lie inside the chart, and the plot keeps most of its height.
    assert [label.text for _, label in chart.legend.items] == ["en→de", "de→en", "median rank"]
    for item in (chart.legend, chart.plot):
        assert item.sceneBoundingRect().right() <= chart.width()
        assert item.sceneBoundingRect().bottom() <= chart.height()
    assert chart.plot.vb.height() >= 200
    # The end ticks' labels (1 and 1,000) are drawn: the axis hides a label that would
    # stick out past it, so each end tick lies half a line inside the plot.
    half_line = QFontMetrics(left.style["tickFont"] or QFont()).height() / 2
    for rank, edge in (
        (1, chart.plot.vb.sceneBoundingRect().bottom()),
        (1000, chart.plot.vb.sceneBoundingRect().top()),
    ):
        y = chart.plot.vb.mapViewToScene(QPointF(10, math.log10(rank))).y()
        assert abs(y - edge) >= half_line, rank
    # Hover names the query by the dataset's id.
    k = int(np.flatnonzero(result.query_id == "de:501")[0])
    assert chart.points.opts["tip"](x=0, y=0, data=k) == (
        f"de:501 (de->en), {result.query_length[k]} tokens: translation en:501 at rank "
        f"{int(result.rank[k]):,}, "
        + (
            "found"
            if result.prediction[k] == result.target[k]
            else f"retrieved {result.prediction_id[k]}"
        )
    )


def test_a_click_on_a_point_selects_its_query(qtbot, test_2016, bow_en_de):
    result = bow_en_de
    chart = show_chart(qtbot, charts.chart_for("bitext", result), SIZE)
    k = isolated(chart)
    with qtbot.waitSignal(chart.query_clicked) as clicked, qtbot.waitSignal(chart.picked) as picked:
        click(qtbot, chart, k)
    assert clicked.args == [k]
    kind, sentences, description = picked.args
    assert kind == "sentences" and sentences.tolist() == [int(result.query[k])]
    assert description.startswith(f"{result.query_id[k]} (")

    # In the Evaluations panel, the click selects the sentence in the corpus.
    panel = EvaluationPanel()
    panel.set_corpus(test_2016)
    panel.add_result("bitext", result, "sentspace eval bitext ...")
    show_chart(qtbot, panel, (340, 760))
    assert isinstance(panel.chart, BitextLengthChart)
    qtbot.wait(100)  # the table and the chart take their places
    assert panel.chart.height() >= MIN_CHART_HEIGHT
    k = isolated(panel.chart)
    with qtbot.waitSignal(panel.items_selected) as selected:
        click(qtbot, panel.chart, k)
    query = int(result.query[k])
    assert selected.args[0] == [query]
    assert test_2016.ids[query] == result.query_id[k]
    assert panel.picked_caption.text().startswith(f"{result.query_id[k]} (")
    assert panel.picked_caption.text().endswith("1 sentence selected")
