import time

from PySide6.QtWidgets import QWidget

from sentspace.app.base.jobs import Progress
from sentspace.app.ui.kit.workers import start_job


def slow_job(steps=20):
    for step in range(steps):
        time.sleep(0.01)
        yield Progress("working", step + 1, steps)
    return "result"


def test_job_reports_progress_and_result(qtbot):
    seen, results = [], []
    handle = start_job(
        slow_job(),
        "slow",
        on_error=results.append,
        on_progress=seen.append,
        on_result=results.append,
    )
    with qtbot.waitSignal(handle.worker.finished, timeout=5000):
        pass
    assert results == ["result"] and handle.state == "done"
    qtbot.waitUntil(lambda: len(seen) == 20)
    assert seen[-1].fraction == 1.0


def test_destroyed_owner_cancels_and_silences_the_job(qtbot):
    owner = QWidget()
    results = []
    handle = start_job(
        slow_job(200),
        "slow",
        on_error=results.append,
        on_result=results.append,
        on_finished=lambda: results.append("end"),
        owner=owner,
    )
    with qtbot.waitSignal(handle.worker.finished, timeout=5000):
        owner.deleteLater()
    assert handle.cancelled and handle.state == "cancelled"
    assert results == []


def test_objects_are_frozen_out_of_the_collector_only_while_jobs_run(qtbot):
    """A full collection set off in a worker would walk every object of the app holding
    the GIL; while jobs run, the objects from before them are frozen out of it."""
    import gc

    frozen_while_running = []

    def job():
        frozen_while_running.append(gc.get_freeze_count())
        yield Progress("working", 1, 1)

    first = start_job(job(), "first", on_error=frozen_while_running.append)
    second = start_job(slow_job(5), "second", on_error=frozen_while_running.append)
    for handle in (first, second):
        qtbot.waitUntil(lambda handle=handle: handle.done, timeout=5000)
    assert frozen_while_running[0] > 0 and gc.get_freeze_count() == 0
