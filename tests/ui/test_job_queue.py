"""Evaluations asked for while a job runs wait in the jobs panel and run in order."""

from tests.ui.conftest import wait_for_job


def states(window) -> list[str]:
    """The jobs panel's State column, oldest job first."""
    tree = window.jobs.panel.tree
    return [tree.topLevelItem(i).text(1) for i in reversed(range(tree.topLevelItemCount()))]


def test_an_evaluation_asked_for_during_a_run_is_queued_then_runs(qtbot, window):
    window.run()
    assert window.is_running
    assert window.evaluation_panel.run_button.text() == "Queue"
    window.evaluate("classification")
    assert len(window.jobs.queued) == 1
    assert states(window)[-2:] == ["running", "queued"]
    assert "Queued: classification" in window.statusBar().currentMessage()

    wait_for_job(qtbot, window)
    assert states(window)[-2:] == ["done", "done"]
    assert "Queued" not in window.statusBar().currentMessage()  # nothing waits now
    assert window.exploration is not None
    evaluation, result, command = window.evaluation_panel.current
    assert evaluation == "classification" and 0.98 < result.mean_accuracy < 0.99
    assert command.startswith("sentspace eval classification --corpus msrp-grouped")
    assert window.evaluation_panel.run_button.text() == "Evaluate"


def test_a_queued_job_cancelled_never_runs(qtbot, window):
    window.run()
    window.evaluate("classification")
    queued = window.jobs.queued[0]
    window.jobs.panel.tree.setCurrentItem(window.jobs.panel.tree.topLevelItem(0))
    window.jobs.panel.cancel_selected()
    assert queued.state == "cancelled"
    wait_for_job(qtbot, window)
    assert states(window)[-2:] == ["done", "cancelled"]
    # Only the run's own classification is listed: the evaluation never ran.
    assert [run.result for run in window.current.evaluations] == [window.exploration.classification]
    assert window.jobs.job is not queued


def test_runs_line_up_and_each_lands_in_its_encoder_column(qtbot, window):
    window.run()
    window.corpus_panel.choose("tfidf")
    assert window.corpus_panel.run_button.text() == "Queue run"
    window.run()
    assert len(window.jobs.queued) == 1
    wait_for_job(qtbot, window)
    assert window.corpus_panel.run_button.text() == "Run"
    assert [name for name, _, _ in window.neighbours_view.spaces] == ["bow", "tfidf"]
    assert window.exploration.classification.provenance.encoder_family == "tfidf"


def test_a_run_queued_before_another_corpus_opens_lands_on_its_own(qtbot, window, shared_data):
    window.evaluate("classification")  # keeps the window busy
    window.run()  # bow, on msrp-grouped
    sick = str(shared_data / "sick" / "SICK_trial.txt")
    window.open_corpus(sick)
    window.corpus_panel.choose("tfidf")
    window.run()  # tfidf, still on msrp-grouped
    wait_for_job(qtbot, window)
    assert window.corpus_spec == sick and window.exploration is None
    held = window.held["msrp-grouped"]
    assert held.exploration.classification.provenance.encoder_family == "tfidf"
    assert sorted(held.spaces) == ["bow", "tfidf"]
    window.showing.switch_corpus("msrp-grouped")
    assert window.projection.point_count == 859
    assert window.corpus_panel.encoder_choice.currentData() == "tfidf"


def test_a_job_ending_after_another_started_beside_it_leaves_that_one_current(qtbot, window):
    """A job started unqueued while one runs (as exporting does) becomes the current one;
    the first one's end used to read the second's state ("running") and raise."""
    from threading import Event

    first_may_end, second_may_end = Event(), Event()

    def waiting(event):
        event.wait(10)
        return "ended"
        yield

    first = window.jobs.start(waiting(first_may_end), "first", lambda _: None)
    second = window.jobs.start(waiting(second_may_end), "second", lambda _: None)
    assert window.jobs.job is second
    first_may_end.set()
    qtbot.waitUntil(lambda: first.state == "done", timeout=10_000)
    qtbot.wait(50)  # the first one's end is handled in the event loop
    assert window.jobs.is_running and window.jobs.progress.isVisible()
    second_may_end.set()
    qtbot.waitUntil(lambda: not window.jobs.is_running, timeout=10_000)
    assert not window.jobs.progress.isVisible()
