"""The Costra offsets chart on a real result: one bar per type, click names the type."""

import numpy as np
import pytest
from PySide6.QtCore import Qt

from sentspace.app.analysis.evaluations.costra_offsets import run_costra_offsets
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora.costra import load_costra
from sentspace.app.ui.charts import chart_for
from sentspace.app.ui.charts.costra_offsets import CostraOffsetsChart
from sentspace.models import RandomBagOfWords


@pytest.fixture(scope="module")
def result(shared_data):
    corpus = load_costra(shared_data / "costra" / "data.tsv")
    return run_job(run_costra_offsets(corpus, RandomBagOfWords(dimension=64), n_shuffles=3))


def test_bars_per_type_and_click(qtbot, result):
    chart = chart_for("costra-offsets", result)
    assert isinstance(chart, CostraOffsetsChart)
    qtbot.addWidget(chart)
    chart.resize(640, 420)
    chart.show()
    qtbot.waitExposed(chart)
    qtbot.wait(50)
    np.testing.assert_allclose(chart.bars.opts["width"], np.nan_to_num(result.consistency))
    assert len(chart.baseline_bars.opts["width"]) == len(result.type_names) == 13
    ban = result.type_names.index("ban")
    with qtbot.waitSignal(chart.type_clicked) as signal:
        qtbot.mouseClick(
            chart.viewport(),
            Qt.MouseButton.LeftButton,
            pos=chart.mapFromScene(chart.scene_position_of(ban)),
        )
    assert signal.args == ["ban"]


def test_evaluation_panel_offers_and_shows_it(qtbot, shared_data, result):
    from sentspace.app.ui.panels.evaluation_panel import EvaluationPanel

    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.set_corpus(load_costra(shared_data / "costra" / "data.tsv"))
    assert panel.choice.findData("costra-offsets") >= 0
    panel.add_result("costra-offsets", result, "sentspace eval costra-offsets")
    assert (
        "analogy MRR",
        f"{result.metrics()['analogy MRR']:.3f} "
        f"[{result.ci['analogy MRR'][0]:.4f}, {result.ci['analogy MRR'][1]:.4f}]",
    ) in panel.rows()
    assert isinstance(panel.chart, CostraOffsetsChart)


def test_the_chart_is_whole_in_the_right_panel_at_1280x800(qtbot, result):
    """In the ~370 px the Evaluations panel gives a chart at 1280x800 both plots, their
    titles and axis labels are whole (the analogy plot, its title, its last label and two
    bars were cut off at the right, with no scroll)."""
    chart = chart_for("costra-offsets", result)
    qtbot.addWidget(chart)
    chart.resize(372, 330)
    chart.show()
    qtbot.waitExposed(chart)
    qtbot.wait(50)
    assert chart.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width() <= chart.width()
    right = chart.width() - chart.ci.getContentsMargins()[2]
    for plot in (chart.plot, chart.analogy):
        box = plot.sceneBoundingRect()
        assert 0 <= box.left() and box.right() <= right
        for label in (plot.titleLabel, plot.getAxis("bottom").label):
            assert label.boundingRect().width() <= box.width()
        # The bars end inside the plot: the widest is in view.
        view = plot.vb.viewRect()
        assert view.right() >= max(
            np.nan_to_num(result.consistency).max(),
            np.nan_to_num(result.mrr).max() if plot is chart.analogy else 0,
        )
    assert chart.key.boundingRect().width() <= chart.width()
