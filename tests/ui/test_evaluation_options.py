"""An evaluation's options (``sentspace.app.analysis.evaluations.OPTIONS``) chosen in the Evaluations panel
reach the run, its shown command, the session and a saved workspace."""

from PySide6.QtCore import QRect, Qt

from sentspace.app.analysis.evaluations import OPTIONS
from sentspace.app.ui.window.main_window import MainWindow
from tests.ui.conftest import evaluation_chosen, save_and_wait, wait_for_job


def test_pyramid_with_question_distractors_round_trips(qtbot, shared_data, tmp_path):
    window, panel = evaluation_chosen(qtbot, shared_data / "pyramid-sample", "bow", "pyramid")
    # One combo per option, its default first, each value's meaning as its tooltip.
    assert set(panel.option_choices) == set(OPTIONS["pyramid"])
    distractors = panel.option_choices["distractors"]
    assert distractors.currentData() == "answer"
    question = distractors.findData("question")
    assert (
        distractors.itemData(question, Qt.ItemDataRole.ToolTipRole)
        == OPTIONS["pyramid"]["distractors"].choices["question"]
    )
    distractors.setCurrentIndex(question)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    wait_for_job(qtbot, window)

    evaluation, result, command = panel.current
    assert evaluation == "pyramid"
    assert result.provenance.parameters["distractors"] == "question"
    assert "--distractors question" in command and "--negative-overlap tokens" in command
    # Every value is in view: a long one (the threshold warning) wraps, not cut.
    table = panel.table
    assert table.columnWidth(0) + table.columnWidth(1) <= table.viewport().width()
    warning = next(
        r for r in range(table.rowCount()) if table.item(r, 0).text() == "binary threshold warning"
    )
    value = table.item(warning, 1).text()
    needed = table.fontMetrics().boundingRect(
        QRect(0, 0, table.columnWidth(1) - 8, 10_000), Qt.TextFlag.TextWordWrap, value
    )
    assert table.rowHeight(warning) >= needed.height()
    run = window.session.current.evaluations[-1]
    assert run.options == {
        "distractors": "question",
        "negative_overlap": "tokens",
        "items": "contributors",
        "negatives": "across-pyramids",
    }

    path = save_and_wait(qtbot, window, tmp_path / "pyramid.sentspace")
    assert window.files.workspace().evaluations[0].options["distractors"] == "question"
    reopened = MainWindow()
    qtbot.addWidget(reopened)
    reopened.files.open_workspace(path)
    wait_for_job(qtbot, reopened)
    again = reopened.session.current.evaluations[-1]
    assert again.options == run.options
    assert again.result.provenance.parameters["distractors"] == "question"
    assert "--distractors question" in reopened.evaluation_panel.current[2]
    # Shown after the result was put in it, the table still fits its values.
    reopened.show()
    reopened.tasks.setCurrentWidget(reopened.evaluation_panel)
    qtbot.waitExposed(reopened)
    qtbot.wait(50)
    table = reopened.evaluation_panel.table
    assert table.columnWidth(0) + table.columnWidth(1) <= table.viewport().width()
    assert table.columnWidth(0) >= table.columnWidth(1)
    reopened.close()
    window.close()
