"""Charts of real results: what they draw, what a click on them emits, and PNG export."""

import csv
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFontMetrics, QImage

from sentspace.app.analysis.chart_data import side_counts
from sentspace.app.analysis.evaluations.agreement import misclassification_agreement, run_agreement
from sentspace.app.analysis.evaluations.classification import run_classification
from sentspace.app.analysis.evaluations.detection import run_detection, run_learning_curve
from sentspace.app.analysis.evaluations.histograms import run_histograms
from sentspace.app.analysis.evaluations.relatedness import run_relatedness
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.msrp import load_msrp
from sentspace.app.corpora.sick import load_sick
from sentspace.app.ui import charts
from sentspace.app.ui.panels.evaluation_panel import EvaluationPanel
from sentspace.models import RandomBagOfWords, make_encoder
from tests.ui.conftest import show_chart

SIZE = (640, 420)


@pytest.fixture(scope="module")
def pair_files(tmp_path_factory, shared_data):
    """The first 300 MSRP training pairs, 150 test pairs and 300 SICK trial pairs, as
    release files the project's readers load."""
    folder = tmp_path_factory.mktemp("pairs")
    for source, lines in (
        (shared_data / "msrp" / "msr_paraphrase_train.txt", 300),
        (shared_data / "msrp" / "msr_paraphrase_test.txt", 150),
        (shared_data / "sick" / "SICK_trial.txt", 300),
    ):
        text = source.read_text(encoding="utf-8-sig").splitlines()[: lines + 1]
        (folder / source.name).write_text("\n".join(text) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def msrp(pair_files):
    return load_msrp(pair_files)


@pytest.fixture(scope="module")
def sick(pair_files):
    return load_sick(pair_files / "SICK_trial.txt")


@pytest.fixture(scope="module")
def grouped():
    return load_corpus("msrp-grouped")


@pytest.fixture(scope="module")
def detection(msrp):
    return run_job(run_detection(msrp, make_encoder("bow")))


@pytest.fixture(scope="module")
def agreement(grouped):
    encoders = [make_encoder("bow"), RandomBagOfWords(dimension=10), make_encoder("tfidf")]
    return run_job(run_agreement(grouped, encoders))


def click(qtbot, chart, scene_position: QPointF):
    qtbot.mouseClick(
        chart.viewport(), Qt.MouseButton.LeftButton, pos=chart.mapFromScene(scene_position)
    )


def view_contains(plot, xs, ys):
    (x0, x1), (y0, y1) = plot.viewRange()
    return x0 <= np.min(xs) and np.max(xs) <= x1 and y0 <= np.min(ys) and np.max(ys) <= y1


def isolated(plot, xs, ys) -> int:
    """The point farthest (in pixels) from its nearest neighbour: a click hits only it."""
    vb = plot.vb
    pixels = np.array(
        [[p.x(), p.y()] for p in (vb.mapViewToScene(QPointF(x, y)) for x, y in zip(xs, ys))]
    )
    distance = np.linalg.norm(pixels[:, None] - pixels[None], axis=-1)
    np.fill_diagonal(distance, np.inf)
    return int(np.argmax(distance.min(axis=1)))


def assert_png(chart, path):
    chart.export_png(path)
    image = QImage(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert image.width() > 100 and image.height() > 100


def test_precision_recall_chart(qtbot, detection, tmp_path):
    chart = show_chart(qtbot, charts.chart_for("detection", detection), SIZE)
    assert isinstance(chart, charts.PrecisionRecallChart)
    assert chart.point_count == len(detection.precision) == len(detection.thresholds) + 1
    np.testing.assert_array_equal(chart.curve.xData, detection.recall)
    np.testing.assert_array_equal(chart.curve.yData, detection.precision)
    assert view_contains(chart.plot, detection.recall, detection.precision)
    assert chart.baseline.value() == pytest.approx(detection.label.mean())

    k = isolated(chart.plot, detection.recall, detection.precision)
    with qtbot.waitSignal(chart.point_clicked) as clicked, qtbot.waitSignal(chart.picked) as picked:
        click(
            qtbot,
            chart,
            chart.plot.vb.mapViewToScene(QPointF(detection.recall[k], detection.precision[k])),
        )
    assert clicked.args == [k]
    kind, pairs, _ = picked.args
    expected = detection.pair_index[detection.cosine >= detection.thresholds[k]]
    assert kind == "pairs" and np.array_equal(pairs, expected)
    # The point's precision is the share of paraphrases among the pairs it picked.
    labels = msrp_labels(detection, pairs)
    assert labels.mean() == pytest.approx(detection.precision[k])
    assert_png(chart, tmp_path / "pr.png")


def msrp_labels(detection, pairs):
    return detection.label[np.searchsorted(detection.pair_index, pairs)]


def test_learning_curve_chart(qtbot, msrp, tmp_path):
    result = run_job(run_learning_curve(msrp, make_encoder("bow"), n_resamples=200))
    chart = show_chart(qtbot, charts.chart_for("learning-curve", result), SIZE)
    n = len(result.fractions)
    assert chart.point_count == n == len(chart.error_bars.opts["x"])
    np.testing.assert_allclose(chart.curve.yData, result.accuracy)
    low, high = np.array(result.ci).T
    np.testing.assert_allclose(chart.error_bars.opts["top"], high - result.accuracy)
    assert view_contains(chart.plot, np.log10(result.n_train), np.r_[low, high])

    k = n - 1
    with qtbot.waitSignal(chart.picked) as picked:
        click(
            qtbot,
            chart,
            chart.plot.vb.mapViewToScene(QPointF(np.log10(result.n_train[k]), result.accuracy[k])),
        )
    kind, pairs, description = picked.args
    assert kind == "pairs"
    np.testing.assert_array_equal(pairs, result.test_pair_index[~result.correct[k]])
    assert len(pairs) == round((1 - result.accuracy[k]) * len(result.test_pair_index))
    assert f"{result.n_train[k]:,} pairs" in description
    assert_png(chart, tmp_path / "learning.png")


def test_histogram_chart(qtbot, msrp, tmp_path):
    result = run_job(run_histograms(msrp, make_encoder("bow")))
    chart = show_chart(qtbot, charts.chart_for("histograms", result), SIZE)
    assert chart.bar_count("cosine") == 2 * 40 and chart.bar_count("overlap") == 2 * 20
    for name in ("cosine", "overlap"):
        values, edges, counts = getattr(result, name), chart.edges[name], chart.counts[name]
        assert (edges[0], edges[-1]) == (values.min(), values.max())  # the data's range
        for side, bars in enumerate(chart.bars[name]):
            np.testing.assert_array_equal(bars.opts["height"], counts[side])
            assert counts[side].sum() == getattr(result, f"{name}_counts")[side].sum()
        assert view_contains(chart.plots[name], edges, [0, counts.max()])

    # Inside the positive bar, above the negative one: that bin's positive pairs only.
    counts, edges = chart.counts["cosine"], chart.edges["cosine"]
    b = int(np.argmax(counts[0] - counts[1]))
    y = (counts[0, b] + counts[1, b]) / 2
    plot = chart.plots["cosine"]
    with qtbot.waitSignal(chart.bin_clicked) as clicked, qtbot.waitSignal(chart.picked) as picked:
        click(qtbot, chart, plot.vb.mapViewToScene(QPointF((edges[b] + edges[b + 1]) / 2, y)))
    assert clicked.args == ["cosine", b]
    pairs = picked.args[1]
    assert len(pairs) == counts[0, b]
    chosen = np.isin(result.pair_index, pairs)
    assert np.all(result.side[chosen] == 1)
    assert np.all((result.cosine[chosen] >= edges[b]) & (result.cosine[chosen] <= edges[b + 1]))
    assert_png(chart, tmp_path / "histograms.png")


def test_histogram_bins_span_the_data_and_its_legend_is_whole(qtbot, sick):
    """Cosines all near 0.98 (a fixed [-1, 1] put them in one bar) spread over the bins;
    the legend sits above the plots, whole ("score < 3" too), covering neither."""
    result = run_job(run_histograms(sick, make_encoder("bow")))
    near = 0.97 + 0.02 * np.random.default_rng(0).random(len(result.cosine))
    result = replace(
        result,
        cosine=near,
        cosine_counts=side_counts(near, result.side, result.cosine_edges),
    )
    chart = show_chart(qtbot, charts.chart_for("histograms", result), SIZE)
    chart.resize(320, 260)  # the tasks' width at 1280x800
    qtbot.wait(50)
    assert np.count_nonzero(chart.counts["cosine"].sum(axis=0)) >= 30
    legend = chart.legend.sceneBoundingRect()
    assert legend.left() >= 0 and legend.right() <= chart.viewport().width()
    for plot in chart.plots.values():
        assert not legend.intersects(plot.vb.sceneBoundingRect())
    assert [label.item.toPlainText() for _sample, label in chart.legend.items] == [
        f"{name} ({int(count)})"
        for name, count in zip(result.side_names, result.cosine_counts.sum(axis=1))
    ]
    for _sample, label in chart.legend.items:
        metrics = QFontMetrics(label.item.font())
        assert label.item.boundingRect().width() >= metrics.horizontalAdvance(
            label.item.toPlainText()
        )
        assert legend.contains(label.sceneBoundingRect())


def test_relatedness_scatter(qtbot, sick, pair_files, tmp_path):
    result = run_job(run_relatedness(sick, make_encoder("bow"), n_resamples=200))
    chart = show_chart(qtbot, charts.chart_for("relatedness", result), SIZE)
    assert chart.point_count == len(result.pair_index) == 300
    assert view_contains(chart.plot, result.gold, result.cosine)

    k = isolated(chart.plot, result.gold, result.cosine)
    with qtbot.waitSignal(chart.pair_clicked) as clicked, qtbot.waitSignal(chart.picked) as picked:
        click(qtbot, chart, chart.plot.vb.mapViewToScene(QPointF(result.gold[k], result.cosine[k])))
    assert clicked.args == [int(result.pair_index[k])]
    # Text names the pair by SICK's pair_ID (the trial file's row k + 1), never its row.
    released = (pair_files / "SICK_trial.txt").read_text(encoding="utf-8").splitlines()
    pair_id = released[int(result.pair_index[k]) + 1].split("\t")[0]
    assert pair_id != str(result.pair_index[k])
    assert picked.args[2].startswith(f"pair {pair_id}: gold {result.gold[k]:.2f}")
    tip = chart.points.opts["tip"](
        x=result.gold[k], y=result.cosine[k], data=chart.points.data["data"][k]
    )
    assert tip.startswith(f"pair {pair_id}: ")
    assert_png(chart, tmp_path / "relatedness.png")
    # The title fits over the plot at the Evaluations panel's width at 1280x800.
    chart.resize(320, 300)
    qtbot.wait(50)
    title = chart.plot.titleLabel
    assert "Pearson" in title.text
    assert title.item.boundingRect().width() <= chart.plot.width()
    assert title.item.mapRectToScene(title.item.boundingRect()).right() <= chart.width()


def test_agreement_heatmap(qtbot, agreement, tmp_path):
    chart = show_chart(qtbot, charts.chart_for("agreement", agreement), SIZE)
    n = agreement.n_encoders
    np.testing.assert_array_equal(chart.image.image, agreement.agreement)
    assert [[t.textItem.toPlainText() for t in row] for row in chart.cell_text] == [
        [f"{agreement.numerator[i, j]}/{agreement.denominator[i, j]}" for j in range(n)]
        for i in range(n)
    ]
    assert chart.colour_bar.levels() == (0.0, 1.0)
    # Row labels: number, name (shortened past 20 characters) and mistakes.
    ticks = [label for _, label in chart.plot.getAxis("left")._tickLevels[0]]
    assert ticks == [
        "1. bow (14)",
        f"2. random-bow(dimensio… ({agreement.mistakes[1]})",
        "3. tfidf (9)",
    ]
    assert view_contains(chart.plot, [0, n], [0, n])

    for i, j in ((0, 1), (1, 2), (2, 2)):
        with (
            qtbot.waitSignal(chart.cell_clicked) as clicked,
            qtbot.waitSignal(chart.picked) as picked,
        ):
            click(qtbot, chart, chart.scene_position_of(i, j))
        assert clicked.args == [i, j]
        assert picked.args[0] == "sentences"
        np.testing.assert_array_equal(picked.args[1], agreement.same_mistake(i, j))
        assert len(picked.args[1]) == agreement.numerator[i, j]
    assert_png(chart, tmp_path / "agreement.png")


def test_metric_bars_across_encoders(qtbot, msrp, detection, tmp_path):
    random_bow = run_job(run_detection(msrp, RandomBagOfWords()))
    results = [detection, random_bow]
    assert set(detection.intervals()) == {"average precision"}
    chart = show_chart(qtbot, charts.comparison_chart("average precision", results), SIZE)
    assert chart.bar_count == 2
    values = [r.average_precision for r in results]
    np.testing.assert_allclose(chart.base + chart.bars.opts["height"], values)
    low = np.array([r.ci["average precision"][0] for r in results])
    high = np.array([r.ci["average precision"][1] for r in results])
    np.testing.assert_allclose(chart.error_bars.opts["bottom"], values - low)
    np.testing.assert_allclose(chart.error_bars.opts["top"], high - values)
    assert [label for _, label in chart.plot.getAxis("bottom")._tickLevels[0]] == [
        "bow",
        "random-bow",
    ]
    assert view_contains(chart.plot, [-0.3, 1.3], np.r_[chart.base, low, high])
    with qtbot.waitSignal(chart.bar_clicked) as clicked:
        click(qtbot, chart, chart.scene_position_of(1))
    assert clicked.args == [1]
    assert_png(chart, tmp_path / "bars.png")


def test_a_metric_without_an_interval_gets_no_error_bar(qtbot):
    bars = charts.MetricBars("MRR", ["a", "b"], [0.5, 0.6], [(0.4, 0.6), charts.NO_INTERVAL])
    chart = show_chart(qtbot, bars, SIZE)
    assert chart.bar_count == 2
    np.testing.assert_array_equal(chart.error_bars.opts["x"], [0.0])


def test_panel_csv_has_numbers_and_intervals_in_columns(qtbot, msrp, detection, tmp_path):
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.set_corpus(msrp)
    panel.add_result("detection", detection, "")
    panel.save_csv(tmp_path / "detection.csv")
    with (tmp_path / "detection.csv").open(newline="") as handle:
        rows = {row["metric"]: row for row in csv.DictReader(handle)}
    assert list(rows["average precision"]) == ["metric", "value", "ci_low", "ci_high", "n"]
    average_precision = rows["average precision"]
    assert float(average_precision["value"]) == detection.average_precision
    assert (
        float(average_precision["ci_low"]),
        float(average_precision["ci_high"]),
    ) == detection.ci["average precision"]
    assert int(average_precision["n"]) == len(detection.label) == 450
    # A metric without an interval leaves its bounds empty.
    best_f1 = rows["best F1"]
    assert float(best_f1["value"]) == detection.best_f1[0]
    assert best_f1["ci_low"] == best_f1["ci_high"] == ""


def test_panel_shows_charts_and_selects_sentences(qtbot, msrp, grouped, detection, agreement):
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.resize(520, 900)
    panel.show()
    panel.set_corpus(msrp)
    panel.add_result("detection", detection, "sentspace eval detection ...")
    assert isinstance(panel.chart, charts.PrecisionRecallChart)
    assert [panel.charts.tabText(k) for k in range(panel.charts.count())] == [
        "Chart",
        "Across encoders",
    ]
    panel.add_result(
        "detection",
        run_job(run_detection(msrp, make_encoder("tfidf"))),
        "sentspace eval detection ... --encoder tfidf",
    )
    assert panel.comparison.bar_count == 2
    assert panel.rows()[1][0] == "average precision"

    # A pair on the chart is both its sentences in the corpus.
    with qtbot.waitSignal(panel.items_selected) as selected:
        panel.chart.pick_point(10)
    result = panel.current[1]
    pairs = result.pair_index[result.cosine >= result.thresholds[10]]
    assert (
        selected.args[0]
        == np.unique(np.r_[msrp.pairs.first[pairs], msrp.pairs.second[pairs]]).tolist()
    )
    assert "sentences selected" in panel.picked_caption.text()

    # A bar opens its result.
    panel.comparison.bar_clicked.emit(0)
    qtbot.waitUntil(lambda: panel.history.currentRow() == 0)
    assert panel.current[1] is detection

    # Agreement on another corpus: no selection until that corpus is loaded.
    panel.add_result("agreement", agreement, "")
    assert isinstance(panel.chart, charts.AgreementHeatmap)
    assert panel.charts.count() == 1 and panel.rows()[0] == ("sentences", "859 in 274 groups")
    with qtbot.assertNotEmitted(panel.items_selected):
        panel.chart.pick_cell(1, 1)
    assert "not loaded" in panel.picked_caption.text()
    panel.set_corpus(grouped)
    with qtbot.waitSignal(panel.items_selected) as selected:
        panel.chart.pick_cell(0, 1)
    assert selected.args[0] == agreement.same_mistake(0, 1).tolist()


def test_heatmap_leaves_cells_without_shared_mistakes_blank(qtbot, grouped, tmp_path):
    bow = run_job(run_classification(grouped, make_encoder("bow")))
    perfect = replace(bow, predicted_group=bow.true_group.copy())
    result = misclassification_agreement([bow, perfect])
    chart = show_chart(qtbot, charts.AgreementHeatmap(result), SIZE)
    assert np.isnan(chart.image.image[1, 1]) and chart.image.image[0, 0] == 1.0
    assert chart.cell_text[1][0].textItem.toPlainText() == "0/0"
    with qtbot.waitSignal(chart.picked) as picked:
        click(qtbot, chart, chart.scene_position_of(1, 0))
    assert len(picked.args[1]) == 0
    assert_png(chart, tmp_path / "blank-cells.png")
