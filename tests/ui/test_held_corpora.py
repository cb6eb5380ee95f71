"""Several corpora open in one window: switching between them is instant and keeps what
was computed on each; a workspace saves and reopens them all."""

from sentspace.app.ui.window.main_window import MainWindow
from sentspace.app.workspace.format import load_workspace
from tests.ui.conftest import open_sick, save_and_wait, wait_for_job
from tests.workspace_files import manifest


def corpora_listed(window) -> list[str]:
    return window.workspace_panel.entries("Corpora")


def test_switching_back_restores_the_projection_results_and_edits(qtbot, window, shared_data):
    window.run()
    wait_for_job(qtbot, window)
    exploration = window.exploration
    accuracy_rows = window.classification.metrics.rowCount()
    moved = 5
    target = window.corpus.groups.names[
        (window.selecting.group_of(moved) + 1) % window.corpus.groups.n_groups
    ]
    window.annotations.move(moved, target, reason="test")
    window.review_panel.corpus_changed.emit()

    sick = open_sick(qtbot, window, shared_data, encoder=None)
    assert len(window.corpus) == 924 and window.exploration is None
    assert window.projection.point_count == 0
    assert corpora_listed(window) == ["msrp-grouped (859 sentences)", "sick (924 sentences)"]
    assert window.workspace_panel.current_corpus() == sick
    assert list(window.held) == ["msrp-grouped"]

    jobs_before = window.jobs.panel.tree.topLevelItemCount()
    window.showing.switch_corpus("msrp-grouped")
    assert not window.is_running  # from memory: no job, no loading
    assert window.jobs.panel.tree.topLevelItemCount() == jobs_before
    assert window.exploration is exploration
    assert window.projection.point_count == 859
    assert window.classification.metrics.rowCount() == accuracy_rows
    assert window.corpus.groups.names[window.selecting.group_of(moved)] == target
    assert [name for name, _, _ in window.neighbours_view.spaces] == ["bow"]
    assert window.workspace_panel.current_corpus() == "msrp-grouped"
    assert list(window.held) == [sick]

    window.showing.switch_corpus(sick)
    assert len(window.corpus) == 924 and window.projection.point_count == 0


def test_double_click_switches_and_close_forgets(qtbot, window, shared_data):
    sick = open_sick(qtbot, window, shared_data, encoder=None)
    tree = window.workspace_panel.tree
    msrp_item = window.workspace_panel.sections["Corpora"].child(0)
    tree.itemDoubleClicked.emit(msrp_item, 0)
    assert window.corpus.name == "msrp-grouped"

    window.showing.close_corpus(sick)
    assert sick not in window.held
    assert corpora_listed(window) == ["msrp-grouped (859 sentences)"]
    window.showing.close_corpus("msrp-grouped")  # the last one stays open
    assert window.corpus.name == "msrp-grouped"

    # The one shown, closed, gives way to the other one open.
    sick = open_sick(qtbot, window, shared_data, encoder=None)
    window.showing.close_corpus(sick)
    assert window.corpus.name == "msrp-grouped"
    assert corpora_listed(window) == ["msrp-grouped (859 sentences)"]
    assert window.workspace_panel.current_corpus() == "msrp-grouped"


def test_workspace_keeps_every_corpus_and_which_result_is_whose(
    qtbot, window, shared_data, tmp_path
):
    window.evaluate("classification")
    wait_for_job(qtbot, window)
    sick = open_sick(qtbot, window, shared_data, encoder=None)
    window.evaluate("relatedness")
    wait_for_job(qtbot, window)

    path = save_and_wait(qtbot, window, tmp_path / "two.sentspace")
    saved = load_workspace(path)
    assert [entry.spec for entry in saved.corpora] == [sick, "msrp-grouped"]
    assert {(entry.name, saved.corpora[entry.corpus].spec) for entry in saved.evaluations} == {
        ("classification", "msrp-grouped"),
        ("relatedness", sick),
    }
    assert manifest(path)["corpora"][0]["spec"] == sick

    reopened = MainWindow()
    qtbot.addWidget(reopened)
    reopened.files.open_workspace(path)
    wait_for_job(qtbot, reopened)
    assert reopened.corpus_spec == sick and len(reopened.corpus) == 924
    assert list(reopened.held) == ["msrp-grouped"]
    # Each corpus shows its own results; the relatedness chart comes back.
    panel = reopened.evaluation_panel
    assert [name for name, _, _ in panel.results] == ["relatedness"]
    assert panel.chart is not None and not panel.charts.isHidden()
    reopened.showing.switch_corpus("msrp-grouped")
    assert len(reopened.corpus) == 859
    assert [name for name, _, _ in panel.results] == ["classification"]
    reopened.close()


def test_a_corpus_opened_during_a_run_loads_after_it(qtbot, window, shared_data):
    window.run()
    spec = str(shared_data / "sick" / "SICK_trial.txt")
    window.open_corpus(spec)
    assert window.corpus.name == "msrp-grouped" and len(window.jobs.queued) == 1
    window.showing.switch_corpus("anything")  # refused while the run goes on
    assert "running job" in window.statusBar().currentMessage()
    wait_for_job(qtbot, window)
    assert window.corpus_spec == spec and len(window.corpus) == 924
    # The run finished on the corpus it was started on, which is held with its result.
    assert window.held["msrp-grouped"].exploration.projection.coordinates.shape == (859, 2)


def test_the_same_corpus_under_another_name_is_not_opened_twice(qtbot, window, shared_data):
    folder = str(window.corpus.sources[0].rsplit("/", 1)[0])  # the built-in's folder
    sick = open_sick(qtbot, window, shared_data, encoder=None)
    window.open_corpus(folder)
    wait_for_job(qtbot, window)
    assert window.corpus_spec == "msrp-grouped" and list(window.held) == [sick]
    assert "already open as msrp-grouped" in window.statusBar().currentMessage()
    assert corpora_listed(window) == ["msrp-grouped (859 sentences)", "sick (924 sentences)"]


def test_each_corpus_comes_back_on_the_tab_it_was_left_on(qtbot, window, shared_data, tmp_path):
    def shown(main_window):
        return main_window.views.tabText(main_window.views.currentIndex())

    window.views.setCurrentIndex(4)  # msrp-grouped: Neighbours
    sick = open_sick(qtbot, window, shared_data, encoder=None)
    window.views.setCurrentIndex(3)  # SICK: Corpus
    window.showing.switch_corpus("msrp-grouped")
    assert shown(window) == "Neighbours"
    window.showing.switch_corpus(sick)
    assert shown(window) == "Corpus"

    path = save_and_wait(qtbot, window, tmp_path / "tabs.sentspace")
    reopened = MainWindow()
    qtbot.addWidget(reopened)
    reopened.files.open_workspace(path)
    wait_for_job(qtbot, reopened)
    assert reopened.corpus_spec == sick and shown(reopened) == "Corpus"
    reopened.showing.switch_corpus("msrp-grouped")
    assert shown(reopened) == "Neighbours"
    reopened.close()
