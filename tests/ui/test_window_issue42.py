"""What a week of real use turned up in the window at 1280x800 (issue 42)."""

import os

from PySide6.QtCore import QPointF
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QTabBar

from sentspace.app.base import guides
from sentspace.app.ui.charts.figures import chart_bytes
from sentspace.app.ui.charts.results import MetricBars
from sentspace.app.ui.kit import file_dialogs
from sentspace.app.ui.window import files as files_module
from sentspace.app.ui.window.main_window import MainWindow
from sentspace.app.ui.window.tabs import TABS
from sentspace.app.workspace.format import load_workspace
from sentspace.app.workspace.recent import CONFIG_DIR_ENV
from tests.ui.conftest import (
    costra_shown,
    double_click_corpus,
    open_and_wait,
    open_sick,
    run_and_wait,
    settle,
    wait_for_job,
)
from tests.ui.test_layout import click_dock_tab, shown_at_1280x800
from tests.ui.test_versions import edit_group_of
from tests.ui.test_window_follows_record import panel_result, shown_accuracy
from tests.ui.test_workspace_saving import save_action

TITLES = [title for title, _ in TABS]


def test_the_costra_seed_group_chosen_is_shown_again_on_reopening(
    qtbot, window, tmp_path, monkeypatch
):
    view = costra_shown(qtbot, window)
    corpus = window.session.current.corpus
    group = corpus.groups.names.index("100")
    view.group_choice.setCurrentIndex(view.group_choice.findData(group))
    assert view.group == group
    monkeypatch.setattr(files_module, "save_file", lambda *_, **__: str(tmp_path / "costra"))
    save_action(window).trigger()
    wait_for_job(qtbot, window)
    path = tmp_path / "costra.sentspace"
    saved = load_workspace(path)
    assert saved.corpora[0].state["view"]["costra_group"] == group

    again = MainWindow()
    qtbot.addWidget(again)
    again.resize(1280, 800)
    again.show()
    again.files.open_workspace(os.fspath(path))
    wait_for_job(qtbot, again)
    settle(qtbot, again)
    again.views.setCurrentIndex(1)
    shown = again.views.costra_view
    assert shown.group == group
    assert shown.group_choice.currentData() == group
    assert again.session.current.view["costra_group"] == group


def test_leaving_the_costra_tab_for_another_corpus_shows_its_projection(qtbot, window):
    """Costra's tab does not apply to another corpus: Qt stepped on to the next tab,
    the empty Compare, and kept it as that corpus's tab (after Run and switching back)."""
    shown_at_1280x800(qtbot, window)
    msrp = window.session.current.spec
    open_and_wait(qtbot, window, "costra")
    window.views.setCurrentIndex(TITLES.index("Costra"))
    wait_for_job(qtbot, window)  # shown, it runs what the orderings need
    double_click_corpus(qtbot, window, msrp)
    assert window.session.current.spec == msrp
    assert window.views.tabText(window.views.currentIndex()) == "Projection"
    run_and_wait(qtbot, window)
    assert window.views.tabText(window.views.currentIndex()) == "Projection"
    double_click_corpus(qtbot, window, "costra")
    assert window.views.tabText(window.views.currentIndex()) == "Costra"
    double_click_corpus(qtbot, window, msrp)
    assert window.views.tabText(window.views.currentIndex()) == "Projection"


def test_switching_corpora_keeps_the_workspace_in_view_and_its_row_on_the_corpus_shown(
    qtbot, window
):
    shown_at_1280x800(qtbot, window)
    msrp = window.session.current.spec
    panel = window.workspace_panel
    run_and_wait(qtbot, window)
    window.select_sentence(61)  # a point: the Selected sentences come forward
    assert dock_in_front(window) == "Selected"
    click_dock_tab(qtbot, window, "Workspace")
    open_and_wait(qtbot, window, "costra")
    assert panel.tree.currentItem() is panel._corpus_item("costra")

    # Back to a corpus left with a point selected: the Workspace stays in front.
    double_click_corpus(qtbot, window, msrp)
    assert window.session.current.spec == msrp
    assert dock_in_front(window) == "Workspace" and panel.tree.currentItem() is panel._corpus_item(
        msrp
    )
    window.showing.switch_corpus("costra")  # not from the tree: its row follows
    assert panel.tree.currentItem() is panel._corpus_item("costra")

    # A double-click while a job runs switches once it is done.
    window.run()
    assert window.is_running
    double_click_corpus(qtbot, window, msrp)
    wait_for_job(qtbot, window)
    qtbot.waitUntil(lambda: window.session.current.spec == msrp)
    assert window.session.current.runs  # the run landed on Costra, shown again there
    assert window.session.states["costra"].runs
    assert panel.tree.currentItem() is panel._corpus_item(msrp)


def dock_in_front(window) -> str:
    """The tab in front in the left column of docks (a tabbed dock stays "visible")."""
    bar = next(
        bar
        for bar in window.findChildren(QTabBar)
        if "Workspace" in [bar.tabText(i) for i in range(bar.count())]
    )
    return bar.tabText(bar.currentIndex())


def test_file_dialogs_start_near_the_work_and_an_export_says_where_it_wrote(
    qtbot, window, tmp_path, monkeypatch, shared_data
):
    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "config"))  # no folder used before
    monkeypatch.setattr(file_dialogs, "_working_near", None)
    monkeypatch.chdir(tmp_path)
    started = []
    target = tmp_path / "out" / "sentences.csv"
    target.parent.mkdir()

    def save(parent, title, folder, filters):
        started.append(folder)
        return str(target), "CSV (*.csv)"

    def choose(parent, title, folder, filters):
        started.append(folder)
        return "", ""

    monkeypatch.setattr(file_dialogs.QFileDialog, "getSaveFileName", save)
    monkeypatch.setattr(file_dialogs.QFileDialog, "getOpenFileName", choose)
    run_and_wait(qtbot, window)
    window.select_sentence(61)
    window.selecting._choose_export_target()
    assert started[-1] == str(tmp_path)  # the working folder, not $HOME
    assert target.is_file() and window.statusBar().currentMessage() == f"Saved {target}"
    window.selecting._choose_export_target()
    assert started[-1] == str(target.parent)  # where the last export went

    # Nothing opened from a workspace yet: Open workspace starts beside the corpus file.
    open_sick(qtbot, window, shared_data)
    window.files.choose_workspace()
    assert started[-1] == str(shared_data / "sick")


def test_a_saved_chart_is_titled_with_what_whose_and_which_corpus(qtbot, window, tmp_path):
    run_and_wait(qtbot, window)
    panel = window.classification
    title = "classification accuracy per group: bow on msrp-grouped"
    assert panel.chart_title() == title
    panel.save_chart(tmp_path / "groups.svg")
    assert title in (tmp_path / "groups.svg").read_text()
    panel.save_chart(tmp_path / "groups.png")
    saved = QImage(str(tmp_path / "groups.png"))
    untitled = QImage.fromData(chart_bytes(panel.chart, svg=False))
    assert saved.width() == untitled.width() and saved.height() > untitled.height() + 10
    band = saved.copy(0, 0, saved.width(), saved.height() - untitled.height())
    assert any(band.pixelColor(x, y).value() < 100 for x in range(60) for y in range(band.height()))


def test_after_undo_and_a_switch_the_evaluations_list_shows_the_classification_shown(qtbot, window):
    msrp = window.session.current.spec
    window.corpus_panel.choose("tfidf")
    run_and_wait(qtbot, window)
    loaded = window.exploration.classification
    sentence = next(int(i) for i in loaded.sentence_index if i not in loaded.misclassified)
    group = window.corpus.groups.first_group(len(window.corpus))[sentence]
    edit_group_of(window, sentence, window.corpus.groups.names[(group + 1) % 274])
    window.classification.rerun_button.click()
    wait_for_job(qtbot, window)
    window.annotations.undo()
    window.review_panel.corpus_changed.emit()
    assert panel_result(window) is loaded

    open_and_wait(qtbot, window, "costra")
    double_click_corpus(qtbot, window, msrp)
    assert window.session.current.spec == msrp
    assert shown_accuracy(window) == f"{loaded.mean_accuracy:.4f}"
    assert panel_result(window) is loaded  # not the edited version's, the last listed


def test_bars_across_encoders_start_below_the_lowest_interval_not_at_0(qtbot):
    chart = MetricBars(
        "mean accuracy", ["bow", "tfidf"], [0.984, 0.990], [(0.975, 0.991), (0.982, 0.996)]
    )
    qtbot.addWidget(chart)
    chart.resize(370, 260)
    chart.show()
    qtbot.waitExposed(chart)
    bottom, _ = chart.plot.vb.viewRange()[1]
    assert 0.9 < bottom < 0.975  # a bit below the lowest interval
    heights = [
        chart.plot.vb.mapViewToScene(QPointF(k, chart.base)).y()
        - chart.plot.vb.mapViewToScene(QPointF(k, value)).y()
        for k, value in enumerate(chart.values)
    ]
    assert heights[1] - heights[0] > 0.1 * heights[1]  # 0.984 and 0.990 read apart
    with qtbot.waitSignal(chart.bar_clicked) as clicked:
        chart.click_at(chart.scene_position_of(0))
    assert clicked.args == [0]


def test_help_has_guides_for_filter_regions_and_explain():
    assert {"filter", "regions", "explain"} <= set(guides.GUIDES)
    assert guides.TITLES["explain"] == "Explain: why two sentences are close"


def test_colour_by_reads_faithfulness_whole_at_1280(qtbot, window):
    shown_at_1280x800(qtbot, window)
    run_and_wait(qtbot, window)
    choice = window.corpus_panel.projection_controls.colour
    titles = [choice.itemText(i) for i in range(choice.count())]
    assert "Faithfulness (10 neighbours kept)" in titles
    # The combo's text area: its width less the arrow and frame.
    room = choice.width() - 30
    assert choice.fontMetrics().horizontalAdvance("Faithfulness (10 neighbours kept)") <= room
