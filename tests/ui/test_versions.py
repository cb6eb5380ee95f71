"""Results know the version of the corpus they describe: after an edit, an earlier
result says "before 1 edit" and re-runs in one click, bars across encoders never mix
versions, and the neighbours' marks follow the edit."""

from __future__ import annotations

from sentspace.app.ui.views.neighbours_view import SAME_GROUP
from tests.ui.conftest import evaluate_and_wait, open_sick, run_and_wait, wait_for_job


def edit_group_of(window, sentence: int, target: str) -> None:
    """Move ``sentence`` to group ``target`` as the Review panel does."""
    window.annotations.move(sentence, target, reason="test")
    window.review_panel.corpus_changed.emit()


def test_an_earlier_result_says_so_and_reruns_on_the_edited_corpus(qtbot, window):
    window.corpus_panel.choose("bow")
    evaluate_and_wait(qtbot, window, "classification")
    panel = window.evaluation_panel
    assert not panel.rerun_button.isVisible()
    before = window.current.evaluations[0].result
    names = window.corpus.groups.names
    edit_group_of(window, 5, names[7])

    assert "before 1 edit" in panel.history.item(0).text()
    assert "before 1 edit" in window.workspace_panel.entries("Results")[0]
    assert panel.rerun_button.isVisible() and "before 1 edit" in panel.rerun_button.text()
    panel.rerun_button.click()
    wait_for_job(qtbot, window)
    runs = window.current.evaluations
    assert len(runs) == 2 and runs[0].result is before
    after = runs[1].result
    assert after.provenance.corpus_edits == 1 and before.provenance.corpus_edits == 0
    assert after.provenance.corpus_fingerprint == window.corpus.fingerprint
    assert "edit" not in panel.history.item(1).text()
    assert not panel.rerun_button.isVisible()
    # Bars across encoders hold only results of the version of the one shown.
    assert panel.comparable_rows() == [1]

    # The same thing asked again of the same version replaces it: no two equal bars.
    window.evaluate("classification")
    wait_for_job(qtbot, window)
    assert len(window.current.evaluations) == 2 and panel.history.count() == 2


def test_the_neighbours_marks_follow_an_edit(qtbot, window):
    run_and_wait(qtbot, window)
    view = window.neighbours_view
    groups = window.corpus.groups
    query = int(groups.members(0)[0])
    with qtbot.waitSignal(view.neighbours_found, timeout=20_000):
        view.query_sentence(query)
    column = view.columns[0]
    marked = next(row for row in range(len(column.indices)) if SAME_GROUP in column.row(row)[2])
    neighbour = int(column.indices[marked])
    other = groups.names[(groups.first_group(len(window.corpus))[neighbour] + 1) % groups.n_groups]
    with qtbot.waitSignal(view.neighbours_found, timeout=20_000):
        edit_group_of(window, neighbour, other)
    column = view.columns[0]
    row = list(column.indices).index(neighbour)
    assert SAME_GROUP not in column.row(row)[2]
    assert view.query_box.text() == window.corpus.texts[query]


def test_the_run_and_its_status_follow_the_corpus_they_belong_to(qtbot, window, shared_data):
    run_and_wait(qtbot, window)
    evaluate_and_wait(qtbot, window, "classification")
    stage = window.jobs.stage
    assert stage.text().startswith("Done in")
    sick = open_sick(qtbot, window, shared_data)
    # SICK has no results: nothing offers to re-run MSRP's.
    assert not window.evaluation_panel.rerun_button.isVisibleTo(window.classification)
    assert window.evaluation_panel.history.count() == 0 and stage.text() == ""
    window.showing.switch_corpus("msrp-grouped")
    assert stage.text().startswith("Done in")  # its own, not lost to SICK's load
    assert not window.classification.rerun_button.isVisibleTo(window.classification)

    # An edit leaves the run's classification of the version before it: it says so.
    names = window.corpus.groups.names
    edit_group_of(window, 5, names[7])
    button = window.classification.rerun_button
    assert button.isVisibleTo(window.classification) and "before 1 edit" in button.text()
    button.click()
    wait_for_job(qtbot, window)
    assert not button.isVisibleTo(window.classification)
    assert window.exploration.classification.provenance.corpus_edits == 1
    window.showing.switch_corpus(sick)
    assert not window.classification.rerun_button.isVisibleTo(window.classification)
