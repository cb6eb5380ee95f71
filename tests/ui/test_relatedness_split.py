"""Relatedness's split choice (``sentspace.app.analysis.neighbours.SPLIT_CHOICES``) in the Evaluations panel:
offered as a combo, it reaches the run, the result's rows and the shown command."""

from PySide6.QtCore import Qt

from sentspace.app.analysis.neighbours import SPLIT_CHOICES
from tests.ui.conftest import evaluation_chosen, wait_for_job


def test_relatedness_on_sick_test_only(qtbot, shared_data):
    window, panel = evaluation_chosen(qtbot, shared_data / "sick", "bow", "relatedness")
    split = panel.option_choices["split"]
    assert [split.itemData(i) for i in range(split.count())] == list(SPLIT_CHOICES)
    assert split.currentData() == "auto"
    split.setCurrentIndex(split.findData("test"))
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    wait_for_job(qtbot, window)

    evaluation, result, command = panel.current
    assert evaluation == "relatedness" and "--split test" in command
    assert result.pooled.n_pairs == 4_927 and result.evaluated == "test 4,927"
    rows = {
        panel.table.item(r, 0).text(): panel.table.item(r, 1).text()
        for r in range(panel.table.rowCount())
    }
    assert rows["pairs evaluated"] == "test 4,927"
    assert window.session.current.evaluations[-1].options == {
        "split": "test",
        "similarity": "cosine",
    }
    # The choices that gave the result shown stay chosen.
    assert panel.option_choices["split"].currentData() == "test"
    window.close()
