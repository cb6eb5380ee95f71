"""The window at 1280x800 as a person reads it (issue 35's list): job names and result
entries whole, the review table's explaining columns in view, nothing jumping when a
result goes stale or an edit is said (the Evaluations table keeps its place and its rows), and the right-hand tab each corpus was left on
coming back, from a workspace too."""

from __future__ import annotations

from sentspace.app.ui.window.main_window import MainWindow
from tests.ui.conftest import open_sick, run_and_wait, save_and_wait, wait_for_job
from tests.ui.test_layout import SIZE, click_dock_tab, shown_at_1280x800, shows_8_rows_or_all

#: Room a tree or table leaves around an item's text (margins, focus frame).
TEXT_MARGIN = 8


def whole_in(width: int, metrics, text: str, left: int = 0) -> bool:
    return left + metrics.horizontalAdvance(text) + TEXT_MARGIN <= width


def test_jobs_results_and_review_rows_read_whole_and_nothing_jumps(qtbot, window):
    shown_at_1280x800(qtbot, window)
    run_and_wait(qtbot, window)
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    qtbot.wait(600)  # the jobs' clock sees none running

    # Jobs: no empty Progress column beside names cut to "costra…s: bow".
    click_dock_tab(qtbot, window, "Jobs")
    tree = window.jobs.panel.tree
    assert tree.isColumnHidden(2)
    names = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert names == [
        "finding suspicious annotations",
        "bow on msrp-grouped",
        "loading msrp-grouped",
    ]
    assert all(whole_in(tree.header().sectionSize(0), tree.fontMetrics(), name) for name in names)

    # Workspace: results of the corpus shown, not cut to "…· b…".
    click_dock_tab(qtbot, window, "Workspace")
    panel = window.workspace_panel
    assert panel.entries("Results") == ["classification · bow"]
    item = panel.sections["Results"].child(0)
    assert item.toolTip(0) == "classification · bow on msrp-grouped"
    assert whole_in(
        panel.tree.viewport().width(),
        panel.tree.fontMetrics(),
        item.text(0),
        panel.tree.visualItemRect(item).left(),
    )

    # Review: no empty "decided by"; the sentence takes a third, so the columns that
    # explain the row follow it in view.
    review = window.review_panel
    table, header, headers = review.table, review.table.horizontalHeader(), review.model.headers
    assert table.isColumnHidden(headers.index("decided by"))
    sentence = headers.index("sentence")
    explaining = [
        header.logicalIndex(v)
        for v in range(header.visualIndex(sentence) + 1, header.visualIndex(sentence) + 3)
    ]
    assert [headers[column] for column in explaining] == ["paraphrase group", "share outside"]
    for column in explaining:
        assert (
            header.sectionViewportPosition(column) + header.sectionSize(column)
            <= table.viewport().width()
        )

    # Choosing a row, then an edit that leaves the lists stale: the table stays put,
    # and so do the Classification tab's metrics when its result goes stale.
    at_first = table.geometry()
    review.select_row(0)
    qtbot.wait(50)
    assert review.why.text() and table.geometry() == at_first
    metrics = window.classification.metrics
    metrics_at = metrics.mapTo(window, metrics.rect().topLeft())
    evaluations = window.evaluation_panel
    window.tasks.setCurrentWidget(evaluations)
    qtbot.wait(50)
    results_at = evaluations.table.mapTo(window, evaluations.table.rect().topLeft())
    results_size = evaluations.table.size()
    assert not evaluations.rerun_button.isVisible()
    assert shows_8_rows_or_all(evaluations.table)
    window.tasks.setCurrentWidget(review)
    names_of_groups = window.corpus.groups.names
    assert review.move_selected(names_of_groups[7], reason="test")
    qtbot.wait(50)
    assert "Recompute to refresh them" in review.status.text()
    assert table.geometry() == at_first
    assert not table.isColumnHidden(headers.index("decided by"))  # someone decided
    window.tasks.setCurrentWidget(window.classification)
    qtbot.wait(50)
    assert window.classification.rerun_button.isVisible()
    assert metrics.mapTo(window, metrics.rect().topLeft()) == metrics_at
    # The Evaluations panel says it in its result's line: its table neither moves nor
    # shrinks (a line of its own moved it 28 px; room kept for one cost it a row).
    window.tasks.setCurrentWidget(evaluations)
    qtbot.wait(50)
    assert evaluations.rerun_button.isVisible()
    assert evaluations.table.mapTo(window, evaluations.table.rect().topLeft()) == results_at
    assert evaluations.table.size() == results_size
    assert evaluations.rerun_button.text() == "before 1 edit: re-run"
    assert window.size() == SIZE


def test_the_right_hand_tab_comes_back_per_corpus_and_from_a_workspace(
    qtbot, window, shared_data, tmp_path
):
    tasks = window.tasks
    tasks.setCurrentWidget(window.review_panel)
    sick = open_sick(qtbot, window, shared_data, encoder=None)
    tasks.setCurrentWidget(window.evaluation_panel)
    window.showing.switch_corpus("msrp-grouped")
    assert tasks.currentWidget() is window.review_panel
    window.showing.switch_corpus(sick)
    assert tasks.currentWidget() is window.evaluation_panel

    path = save_and_wait(qtbot, window, tmp_path / "tabs")
    reopened = MainWindow()
    qtbot.addWidget(reopened)
    reopened.files.open_workspace(path)
    wait_for_job(qtbot, reopened)
    assert reopened.tasks.currentWidget() is reopened.evaluation_panel
    reopened.showing.switch_corpus("msrp-grouped")
    assert reopened.tasks.currentWidget() is reopened.review_panel

    # A workspace saved before the tab was kept opens as before.
    for state in window.session.states.values():
        state.view.pop("task")
    older = save_and_wait(qtbot, window, tmp_path / "older")
    again = MainWindow()
    qtbot.addWidget(again)
    again.files.open_workspace(older)
    wait_for_job(qtbot, again)
    assert again.current.spec == sick and again.tasks.currentIndex() == 0
