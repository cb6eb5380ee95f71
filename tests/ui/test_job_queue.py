"""Evaluations asked for while a job runs wait in the jobs panel and run in order."""

from tests.ui.conftest import wait_for_job


def states(window) -> list[str]:
    """The jobs panel's State column, oldest job first."""
    tree = window.jobs_panel.tree
    return [tree.topLevelItem(i).text(1) for i in reversed(range(tree.topLevelItemCount()))]


def test_an_evaluation_asked_for_during_a_run_is_queued_then_runs(qtbot, window):
    window.run()
    assert window.is_running
    assert window.evaluation_panel.run_button.text() == "Queue"
    window.evaluate("classification")
    assert len(window.queued) == 1
    assert states(window)[-2:] == ["running", "queued"]
    assert "Queued: classification" in window.statusBar().currentMessage()

    wait_for_job(qtbot, window)
    assert states(window)[-2:] == ["done", "done"]
    assert window.exploration is not None
    evaluation, result, command = window.evaluation_panel.current
    assert evaluation == "classification" and 0.98 < result.mean_accuracy < 0.99
    assert command.startswith("sentspace eval classification --corpus msrp-grouped")
    assert window.evaluation_panel.run_button.text() == "Evaluate"


def test_a_queued_job_cancelled_never_runs(qtbot, window):
    window.run()
    window.evaluate("classification")
    queued = window.queued[0]
    window.jobs_panel.tree.setCurrentItem(window.jobs_panel.tree.topLevelItem(0))
    window.jobs_panel.cancel_selected()
    assert queued.state == "cancelled"
    wait_for_job(qtbot, window)
    assert states(window)[-2:] == ["done", "cancelled"]
    assert window.evaluation_panel.history.count() == 0
    assert window.job is not queued
