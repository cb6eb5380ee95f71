"""Import MTEB results in the Evaluations panel: MTEB's published STS-B score of
all-MiniLM-L6-v2 drawn in *Across encoders* right beside sentspace's own MiniLM run on
the same 1,379 test pairs (both 0.8203), grey and without an interval, kept with the
corpus; clicking it opens no result."""

import numpy as np
import pytest
from PySide6.QtCore import Qt

from sentspace.app.ui.panels import evaluation_panel
from tests.test_mteb_results import PUBLISHED, mteb_layout
from tests.ui.conftest import evaluation_chosen

#: MiniLM encodes STS-B test's 2,758 sentences: minutes on two busy cores, uncached.
ENCODING_MS = 600_000


def evaluate(qtbot, window, panel, encoder):
    window.corpus_panel.choose(encoder)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.is_running, timeout=ENCODING_MS)


def test_an_imported_mteb_bar_stands_beside_sentspaces_own(
    qtbot, shared_data, tmp_path, monkeypatch
):
    mteb_layout(tmp_path / "mteb-results", "STSBenchmark", PUBLISHED)
    window, panel = evaluation_chosen(
        qtbot, shared_data / "sts" / "STSBenchmark" / "sts-test.csv", "minilm", "relatedness"
    )
    evaluate(qtbot, window, panel, "minilm")
    evaluate(qtbot, window, panel, "bow")
    monkeypatch.setattr(
        evaluation_panel, "open_folder", lambda *_, **__: str(tmp_path / "mteb-results")
    )
    menu = next(
        action for action in window.menuBar().actions() if action.text() == "&Evaluate"
    ).menu()
    next(
        action
        for action in menu.actions()
        if action.text().startswith("Import MTEB results folder")
    ).trigger()
    qtbot.waitUntil(lambda: not window.is_running, timeout=60_000)

    (imported,) = window.session.current.imported  # kept with the corpus
    assert imported.label == "all-MiniLM-L6-v2 (MTEB, imported)"
    panel.charts.setCurrentWidget(panel.comparison_page)
    assert panel.metric_choice.currentData() == "pooled spearman"
    chart = panel.comparison
    qtbot.waitUntil(chart.isVisible)  # redrawn when the scores came
    assert chart.labels == ("minilm", "all-MiniLM-L6-v2 (MTEB, imported)", "bow")
    assert chart.imported.tolist() == [False, True, False]
    assert chart.values[1] == PUBLISHED["scores"]["test"][0]["main_score"]
    assert chart.values[0] == pytest.approx(chart.values[1], abs=5e-4)  # 0.8203 both
    assert np.isnan(chart.intervals[1]).all() and np.isfinite(chart.intervals[0]).all()
    assert [label.toPlainText() for label in chart.value_labels] == ["0.8203", "0.8203"]
    assert panel.imported_note.text() == (
        "all-MiniLM-L6-v2 (MTEB, imported) 0.8203; sentspace's minilm 0.8203, on MTEB's "
        "1,379 STSBenchmark test pairs"
    )
    # The imported bar opens no result; a run's bar opens its own.
    chart.bar_clicked.emit(1)
    qtbot.wait(50)
    assert panel.history.currentRow() == 1
    chart.bar_clicked.emit(0)
    qtbot.waitUntil(lambda: panel.history.currentRow() == 0)
    # MTEB's score is a Spearman: a Pearson chart has no imported bar, and says why.
    panel.metric_choice.setCurrentIndex(panel.metric_choice.findData("pooled pearson"))
    assert not panel.comparison.imported.any()
    assert "choose 'pooled spearman' to see it" in panel.imported_note.text()
    window.close()
