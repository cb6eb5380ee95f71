"""Classification as the other evaluations are: its interval in the tab, a chart of the
misclassified per group whose bars select their sentences (listed with their ✓ and ✗),
*Save chart…* that writes an image (or says why not) and its bars across encoders."""

from collections import Counter

import numpy as np
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QImage

from sentspace.app.ui.charts import GroupErrorBars
from sentspace.app.ui.charts.figures import save_chart
from sentspace.app.ui.panels import classification_panel, evaluation_panel
from tests.ui.conftest import LEFT, evaluate_and_wait, run_and_wait, settle
from tests.ui.test_faults import dialog


def click_bar(qtbot, chart, row):
    """Click bar ``row`` halfway along."""
    scene = chart.plot.vb.mapViewToScene(QPointF(max(chart.counts[row], 1) / 2, row))
    with qtbot.waitSignal(chart.bar_clicked) as clicked:
        qtbot.mouseClick(chart.viewport(), LEFT, pos=chart.mapFromScene(scene))
    assert clicked.args == [row]


def listed_items(window):
    return [window.selecting.list.item(i) for i in range(window.selecting.list.count())]


def marks(window) -> dict[str, int]:
    """How many of Selected sentences' rows begin with each mark."""
    return dict(Counter(item.text()[0] for item in listed_items(window) if item.text()[0] in "✓✗"))


def test_a_groups_bar_selects_its_sentences_the_chart_saves_and_encoders_compare(
    qtbot, window, tmp_path, monkeypatch
):
    run_and_wait(qtbot, window)
    window.tasks.setCurrentWidget(window.classification)
    settle(qtbot, window)
    panel, result = window.classification, window.exploration.classification
    low, high = result.ci
    shown = next(
        panel.metrics.item(r, 1).text()
        for r in range(panel.metrics.rowCount())
        if panel.metrics.item(r, 0).text() == "mean accuracy"
    )
    assert shown == f"{result.mean_accuracy:.4f} [{low:.4f}, {high:.4f}]"
    assert low < result.mean_accuracy < high
    assert "bootstrap resamples of whole groups" in panel.caption.text()
    chart = panel.chart
    assert isinstance(chart, GroupErrorBars) and chart.isVisible()
    # bow misclassifies 14 sentences of msrp-grouped in 11 groups: 10 bars and the rest.
    assert chart.counts.sum() == len(result.misclassified) == 14
    assert chart.bar_count == 11 and chart.labels[-1] == "other 1 group"
    assert chart.counts[0] == 2

    click_bar(qtbot, chart, 0)
    group = int(result.worst_groups()[0])
    members = result.sentence_index[result.true_group == group]
    assert window.selection.source == "chart"
    assert window.selection.indices.tolist() == sorted(members.tolist())
    assert sorted(window.selecting.listed_sentences()) == sorted(members.tolist())
    assert panel.picked_caption.text() == (
        f"group {result.group_names[group]}: 2 of {len(members)} misclassified: "
        f"{len(members)} sentences selected"
    )
    # Marked as a clicked point's group is: ✓ classified into it, ✗ (and where) not.
    assert marks(window) == {"✓": len(members) - 2, "✗": 2}
    wrong = next(item.toolTip() for item in listed_items(window) if item.text().startswith("✗"))
    assert "classified as paraphrase group" in wrong and "✗ into another, by bow" in wrong
    click_bar(qtbot, chart, chart.bar_count - 1)  # the other groups' mistakes
    assert len(window.selection.indices) == 1
    assert window.selection.indices[0] in result.misclassified
    assert marks(window) == {"✗": 1}

    panel.save_chart(tmp_path / "groups.png")
    assert (tmp_path / "groups.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Saved as soon as it is shown, a chart has the worst group's label left of its bar.
    fresh = GroupErrorBars(result)
    qtbot.addWidget(fresh)
    fresh.resize(400, 420)
    fresh.show()
    qtbot.waitExposed(fresh)
    save_chart(fresh, tmp_path / "fresh.png")
    image = QImage(str(tmp_path / "fresh.png"))
    row = fresh.mapFromScene(fresh.scene_position_of(0)).y()
    axis = int(fresh.plot.vb.sceneBoundingRect().left())  # where the bars begin
    assert any(QColor(image.pixel(x, row)).value() < 160 for x in range(axis - 60, axis - 8))
    panel.save_chart(tmp_path / "groups.svg")
    assert b"<svg" in (tmp_path / "groups.svg").read_bytes()[:2_000]
    # Through the button: a folder that is not there is said in a dialog, no file made.
    missing = tmp_path / "gone" / "groups.png"
    monkeypatch.setattr(classification_panel, "save_file", lambda *_: str(missing))
    qtbot.mouseClick(panel.save_chart_button, LEFT)
    assert str(missing) in dialog("error-dialog").text() and not missing.exists()
    dialog("error-dialog").accept()

    # Across encoders: bow's, with the run, beside tfidf's, evaluated.
    window.corpus_panel.choose("tfidf")
    evaluate_and_wait(qtbot, window, "classification")
    settle(qtbot, window)
    panel = window.evaluation_panel
    assert panel.metric_choice.currentData() == "mean accuracy"
    bars = panel.comparison
    assert bars.labels == ("bow", "tfidf") and np.isfinite(bars.intervals).all()
    assert panel.comparison_command.text().endswith("--encoder bow --encoder tfidf --seed 0")
    assert isinstance(panel.chart, GroupErrorBars) and panel.save_chart_button.isEnabled()
    # Its bars select with tfidf's marks, not those of bow's run the map shows.
    tfidf = panel.current[1]
    click_bar(qtbot, panel.chart, 0)
    wrong = int(panel.chart.counts[0])
    assert marks(window) == {"✓": len(window.selection.indices) - wrong, "✗": wrong}
    assert "by tfidf" in listed_items(window)[0].toolTip()
    assert tfidf is not window.current.classification.result
    missing = tmp_path / "gone" / "tfidf.svg"
    monkeypatch.setattr(evaluation_panel, "save_file", lambda *_: str(missing))
    qtbot.mouseClick(panel.save_chart_button, LEFT)
    assert "not saved" in dialog("error-dialog").windowTitle() and not missing.exists()
    dialog("error-dialog").accept()

    # The Classification tab's button opens its result beside the other encoder's.
    window.tasks.setCurrentWidget(window.classification)
    qtbot.mouseClick(window.classification.across_button, LEFT)
    assert window.tasks.currentWidget() is panel
    assert panel.charts.currentWidget() is panel.comparison_page
    assert panel.current[1] is window.current.classification.result
