"""Issue 14's bugs, driven with the mouse: one session under the window, so switching
corpus switches every view, and every way of selecting sets the one selection that the
projection, Selected sentences and the Inspector show."""

import numpy as np
from PySide6.QtCore import QPoint, Qt

from sentspace.app.ui.window.main_window import MainWindow
from tests.ui.conftest import (
    click_row,
    costra_shown,
    double_click_corpus,
    evaluate_and_wait,
    open_sick,
    reopened_in_new_window,
    run_and_wait,
    save_and_wait,
    settle,
    shift_drag,
    sick_pair_clicked,
    wait_for_job,
)


def test_switching_corpus_switches_the_evaluations_panel(qtbot, window, shared_data):
    sick = open_sick(qtbot, window, shared_data)
    evaluate_and_wait(qtbot, window, "relatedness")
    panel = window.evaluation_panel
    assert "relatedness" in panel.caption.text() and panel.table.rowCount() > 0
    settle(qtbot, window)

    double_click_corpus(qtbot, window, "msrp-grouped")
    assert window.corpus.name == "msrp-grouped"
    assert "relatedness" not in panel.caption.text() and "sick" not in panel.caption.text()
    assert panel.results == [] and panel.table.rowCount() == 0 and panel.chart is None
    assert window.workspace_panel.entries("Results") == []

    double_click_corpus(qtbot, window, sick)
    assert [name for name, _, _ in panel.results] == ["relatedness"]
    assert "relatedness" in panel.caption.text() and panel.chart is not None


def test_a_selection_stays_with_its_corpus(qtbot, window, shared_data):
    run_and_wait(qtbot, window)
    settle(qtbot, window)
    with qtbot.waitSignal(window.projection.selected):
        shift_drag(qtbot, window.projection.plot.viewport(), QPoint(150, 120), QPoint(450, 400))
    chosen = window.selection.indices.tolist()
    assert 0 < len(chosen) < 859 and window.selecting.list.count() == len(chosen)
    assert f"{len(chosen):,} selected sentences" in window.selecting.caption.text()

    sick = open_sick(qtbot, window, shared_data)
    assert "selected sentences" not in window.selecting.caption.text()
    assert window.selecting.list.count() == 0 and not len(window.selection.indices)
    assert window.inspecting.inspector.neighbours.rowCount() == 0

    double_click_corpus(qtbot, window, "msrp-grouped")  # as it was left
    assert window.selection.indices.tolist() == chosen
    assert window.selecting.list.count() == len(chosen)
    assert len(window.projection.highlighted.data) == len(chosen)
    double_click_corpus(qtbot, window, sick)
    assert window.selecting.list.count() == 0


def test_a_compare_row_selects_on_a_corpus_never_run(qtbot, window, tmp_path):
    """Compare on a workspace's corpus that was not run: clicking a row of the most
    changed list raised IndexError in the projection and selected nothing."""
    path = save_and_wait(qtbot, window, tmp_path / "plain.sentspace")
    reopened = reopened_in_new_window(qtbot, path)
    assert reopened.corpus.name == "msrp-grouped" and reopened.exploration is None
    reopened.views.setCurrentIndex(2)
    reopened.analyses.compare_choice.setCurrentIndex(
        reopened.analyses.compare_choice.findData("tfidf")
    )
    reopened.analyses.compare_spaces()
    wait_for_job(qtbot, reopened)
    settle(qtbot, reopened)
    table = reopened.views.compare_view.changed
    index = int(table.item(3, 0).data(Qt.ItemDataRole.UserRole))
    click_row(qtbot, table, 3, column=2)
    qtbot.waitUntil(lambda: reopened.selection.focus == index)
    assert reopened.selection.source == "compare"
    assert reopened.selecting.listed_sentences() == [index]
    assert reopened.corpus.texts[index] in reopened.inspecting.inspector.details.text()
    assert len(reopened.views.compare_view.view_a.highlighted.data) == 1
    # The two spaces Compare encoded serve the neighbours tab and the Inspector too.
    assert [name for name, _, _ in reopened.neighbours_view.spaces] == ["bow", "tfidf"]
    assert reopened.inspecting.inspector.neighbours.rowCount() == 10
    reopened.unsaved = False


def test_a_chart_point_lists_its_pair_with_neighbours(qtbot, window, shared_data):
    result, k = sick_pair_clicked(qtbot, window, shared_data)  # tfidf embeddings of SICK
    pair = int(result.pair_index[k])
    pairs = window.corpus.pairs
    both = sorted({int(pairs.first[pair]), int(pairs.second[pair])})
    assert window.selection.source == "chart"
    assert sorted(window.selecting.listed_sentences()) == both
    assert window.corpus.texts[window.selection.focus] in window.inspecting.inspector.details.text()
    assert window.inspecting.inspector.neighbours.rowCount() == 10  # from the tfidf run


def test_a_failing_costra_comparison_lists_its_sentences(qtbot, window):
    view = costra_shown(qtbot, window)
    model = view.model
    row = next(r for r in range(model.rowCount()) if model.index(r, 0).data() == "✗")
    k = int(model.index(row, 0).data(Qt.ItemDataRole.UserRole))
    cell = model.index(row, 2)
    view.table.scrollTo(cell)
    qtbot.mouseClick(
        view.table.viewport(), Qt.MouseButton.LeftButton, pos=view.table.visualRect(cell).center()
    )
    comparisons = window.costra_result.comparisons
    expected = np.unique(np.concatenate([comparisons.more_similar[k], comparisons.less_similar[k]]))
    assert window.selection.source == "costra"
    assert window.selecting.listed_sentences() == expected.tolist()
    assert window.corpus.texts[int(expected[0])] in window.inspecting.inspector.details.text()


def test_a_workspace_reopens_with_charts_review_list_and_every_encoder(
    qtbot, window, shared_data, tmp_path
):
    for family in ("bow", "tfidf"):
        window.corpus_panel.choose(family)
        run_and_wait(qtbot, window)
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    kinds = list(window.review_panel.lists)
    open_sick(qtbot, window, shared_data)
    evaluate_and_wait(qtbot, window, "relatedness")
    path = save_and_wait(qtbot, window, tmp_path / "study")
    assert path.name == "study.sentspace"

    reopened = MainWindow()
    qtbot.addWidget(reopened)
    reopened.files.open_workspace(path)
    wait_for_job(qtbot, reopened)
    assert reopened.evaluation_panel.chart is not None  # relatedness, on SICK
    assert reopened.workspace_panel.entries("Corpora") == [
        "sick (924 sentences)",
        "msrp-grouped (859 sentences)",
    ]
    reopened.showing.switch_corpus("msrp-grouped")
    assert [name for name, _, _ in reopened.neighbours_view.spaces] == ["bow", "tfidf"]
    assert reopened.corpus_panel.encoder_choice.currentData() == "tfidf"
    assert reopened.projection.point_count == 859
    assert list(reopened.review_panel.lists) == kinds and reopened.review_panel.model
    reopened.close()


def test_the_costra_tab_runs_what_it_needs_and_lists_seed_groups_by_number(qtbot, window):
    window.open_corpus("costra")
    wait_for_job(qtbot, window)
    assert window.exploration is None and window.costra_result is None
    window.views.setCurrentIndex(1)  # nothing run yet: it runs both
    assert "Running the Costra run and evaluation" in window.statusBar().currentMessage()
    wait_for_job(qtbot, window)
    choice = window.views.costra_view.group_choice
    assert choice.count() == 126 and window.views.costra_view.projection.point_count > 0
    numbers = [int(choice.itemText(i).split(":")[0]) for i in range(choice.count())]
    assert numbers == sorted(numbers) and window.views.costra_view.group == choice.currentData()


def test_the_inspector_of_a_corpus_never_run_encodes_for_its_neighbours(qtbot, window, shared_data):
    sick_pair_clicked(qtbot, window, shared_data, run=False)  # tfidf, not run
    assert len(window.selection.indices) == 2
    assert "Encoding the corpus with tfidf" in window.inspecting.inspector.note.text()
    wait_for_job(qtbot, window)
    assert not window.current.runs and "tfidf" in window.current.spaces
    assert window.inspecting.inspector.neighbours.rowCount() == 10
    assert window.inspecting.inspector.note.text() == ""
    # The neighbours tab has the space too.
    assert [name for name, _, _ in window.neighbours_view.spaces] == ["tfidf"]
