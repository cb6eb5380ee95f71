"""*Across encoders* shows the paired tests its command prints: made in the background by
the CLI's job (tests/test_commands.py checks them against the CLI's output to the last
digit), only for the metric a test compares, cancelled when the bars change, a test that
cannot be made saying why, and kept with the results: a reopened workspace shows them
without making them again."""

import dataclasses
import time

import pytest

from sentspace.app.base.jobs import Progress, run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.state.session import Session
from sentspace.app.ui.panels import paired_tests_view
from sentspace.app.ui.panels.evaluation_panel import EvaluationPanel
from sentspace.app.workspace.format import load_workspace, save_workspace
from sentspace.app.workspace.restore import restore_session
from sentspace.app.workspace.snapshot import workspace_of
from sentspace.models import make_encoder

COMPUTING = "computing paired tests…"


@pytest.fixture(scope="module")
def ranked():
    """A session holding msrp-grouped's ranking by bow and by tfidf (seed 0)."""
    session = Session()
    state = session.open("msrp-grouped", load_corpus("msrp-grouped"), None)
    for spec in ("bow", "tfidf"):
        session.add_evaluation(
            state.spec, run_job(state.evaluation("ranking", [spec], [make_encoder(spec)], 0))
        )
    return session


def shown(qtbot, state):
    """A panel showing ``state``'s results, tfidf's bars across encoders of MRR."""
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.resize(520, 900)
    panel.show()
    panel.show_results(
        state.corpus, [(run.label, run.result, run.command) for run in state.evaluations]
    )
    panel.metric_choice.setCurrentIndex(panel.metric_choice.findData("MRR"))
    panel.show_across_encoders(state.evaluations[-1].result)
    return panel


def made(qtbot, panel):
    qtbot.waitUntil(lambda: panel.paired_tests.handle is None, timeout=30_000)
    return panel.paired_tests.cells()


def test_the_bars_paired_test_is_made_in_the_background_for_its_metric(qtbot, ranked):
    panel = shown(qtbot, ranked.current)
    view = panel.paired_tests
    assert view.heading.text() == COMPUTING and not view.table.isVisible()
    [row] = made(qtbot, panel)
    assert view.heading.text().startswith("Paired tests of MRR, each against bow")
    # tfidf against bow, the first: tfidf - bow, positive as tfidf ranks better.
    assert row == [
        "tfidf vs bow",
        "paired permutation (10000 swaps)",
        "+0.0117\n[+0.0044, +0.0187]",
        "0.0035",
        "tfidf higher (p < 0.05)",
    ]
    assert view.table.isVisible()
    # Another metric: which one the test compares; back to MRR: shown at once.
    panel.metric_choice.setCurrentIndex(panel.metric_choice.findData("accuracy@1"))
    assert view.heading.text() == "Paired tests compare MRR: choose it above to see them."
    assert not view.table.isVisible()
    panel.metric_choice.setCurrentIndex(panel.metric_choice.findData("MRR"))
    assert view.handle is None and view.cells() == [row]


def test_a_job_of_bars_no_longer_shown_is_cancelled(qtbot, ranked, monkeypatch):
    steps = []

    def endless(evaluation, runs):
        while True:
            steps.append(len(steps))
            yield Progress("paired tests", 0, 1)
            time.sleep(0.001)

    monkeypatch.setattr(paired_tests_view, "paired_tests_of_runs", endless)
    panel = shown(qtbot, ranked.current)
    handle = panel.paired_tests.handle
    assert handle is not None and panel.paired_tests.heading.text() == COMPUTING
    panel.metric_choice.setCurrentIndex(panel.metric_choice.findData("accuracy@1"))
    qtbot.waitUntil(lambda: handle.state == "cancelled", timeout=5_000)
    stopped = len(steps)
    qtbot.wait(50)
    assert len(steps) == stopped and panel.paired_tests.handle is None


def test_a_test_that_cannot_be_made_says_why_as_the_cli_does(qtbot, ranked):
    state = ranked.current
    bow, tfidf = state.evaluations
    # tfidf's ranking as if of other queries: no paired test, the CLI's reason.
    other = dataclasses.replace(tfidf.result, query=tfidf.result.query[::-1].copy())
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.show_results(
        state.corpus, [("ranking", bow.result, bow.command), ("ranking", other, tfidf.command)]
    )
    panel.metric_choice.setCurrentIndex(panel.metric_choice.findData("MRR"))
    panel.show_across_encoders(other)
    assert made(qtbot, panel) == [
        [
            "tfidf vs bow",
            "no paired test of tfidf against bow: the two results were "
            "computed on different items (another corpus, split or seed)",
        ]
    ]


def following(qtbot, session):
    """A panel following ``session`` as a window's does, showing the last result's
    bars across encoders of MRR."""
    panel = EvaluationPanel()
    qtbot.addWidget(panel)
    panel.resize(520, 900)
    panel.show()
    panel.follow(session)
    session.switch(session.current.spec)
    panel.metric_choice.setCurrentIndex(panel.metric_choice.findData("MRR"))
    panel.show_across_encoders(session.current.evaluations[-1].result)
    return panel


def test_a_reopened_workspace_shows_its_tests_without_making_them(
    qtbot, ranked, tmp_path, monkeypatch
):
    tests = made(qtbot, following(qtbot, ranked))
    [kept] = ranked.current.paired_tests
    path = save_workspace(workspace_of(ranked), tmp_path / "ranked", remember=False)
    reopened = run_job(restore_session(load_workspace(path), path))

    def never(*_):
        raise AssertionError("the saved tests were made again")

    monkeypatch.setattr(paired_tests_view, "paired_tests_of_runs", never)
    after = following(qtbot, reopened)
    view = after.paired_tests
    assert view.handle is None and view.heading.text().startswith("Paired tests of MRR")
    assert view.cells() == tests
    [test] = [o.test for c in reopened.current.paired_tests[0].tests for o in c.outcomes]
    assert test == kept.tests[0].outcomes[0].test  # every number, to the last digit

    # Bars they were not made of (a new run of tfidf replaces its bar): made again.
    monkeypatch.undo()
    state = reopened.current
    reopened.add_evaluation(
        state.spec, run_job(state.evaluation("ranking", ["tfidf"], [make_encoder("tfidf")], 0))
    )
    after.show_across_encoders(state.evaluations[-1].result)
    assert view.heading.text() == COMPUTING
    assert made(qtbot, after) == tests
