"""Annotation review, agreement and workspaces, driven through the main window."""

import numpy as np

from sentspace.app.ui.window.main_window import MainWindow
from tests.ui.conftest import drawn_colours, save_and_wait, wait_for_job
from tests.workspace_files import manifest


def test_find_fix_and_replay_after_restart(qtbot, window):
    window.run()
    wait_for_job(qtbot, window)
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    panel = window.review_panel
    assert panel.lists and panel.model.rowCount() > 0
    moved = 5
    old_group = window.selecting.group_of(moved)
    target = window.corpus.groups.names[(old_group + 1) % window.corpus.groups.n_groups]
    window.annotations.move(moved, target, reason="test")
    panel.corpus_changed.emit()
    assert window.corpus.groups.names[window.selecting.group_of(moved)] == target
    brushes = drawn_colours(window.projection)
    assert (
        brushes[moved] == brushes[window.corpus.groups.members(window.selecting.group_of(moved))[0]]
    )

    # A new window (as after a restart) replays the journal: the move is still there.
    again = MainWindow()
    qtbot.addWidget(again)
    again.open_corpus("msrp-grouped")
    wait_for_job(qtbot, again)
    assert again.corpus.groups.names[again.selecting.group_of(moved)] == target
    assert "1 edit replayed" in again.statusBar().currentMessage()
    again.annotations.undo()
    again.review_panel.corpus_changed.emit()
    assert again.selecting.group_of(moved) == old_group
    again.close()
    window.close()


def test_agreement_from_the_menu_and_panel_selection(qtbot, window):
    window.analyses.compare_encoders(["bow", "tfidf"])
    wait_for_job(qtbot, window)
    evaluation, result, command = window.evaluation_panel.current
    assert evaluation == "agreement"
    assert command.endswith("--encoder bow --encoder tfidf --seed 0")
    assert result.numerator[0, 1] == 9 and result.denominator[0, 1] == 9
    window.run()
    wait_for_job(qtbot, window)
    window.evaluation_panel.items_selected.emit([3, 4, 5])
    assert len(window.projection.highlighted.data) == 3
    assert window.corpus.texts[3] in window.inspecting.inspector.details.text()


def test_workspace_round_trip(qtbot, window, tmp_path):
    window.corpus_panel.choose("tfidf")
    window.evaluate("classification")
    wait_for_job(qtbot, window)
    shown = window.evaluation_panel.rows()
    path = save_and_wait(qtbot, window, tmp_path / "study.sentspace")
    saved = manifest(path)
    assert saved["evaluations"][0]["summary"] == [list(row) for row in shown]

    reopened = MainWindow()
    qtbot.addWidget(reopened)
    reopened.files.open_workspace(path)
    wait_for_job(qtbot, reopened)
    assert reopened.corpus.name == "msrp-grouped"
    assert reopened.corpus_panel.encoder_choice.currentData() == "tfidf"
    assert reopened.evaluation_panel.rows() == shown
    assert reopened.windowTitle().endswith("study.sentspace")
    reopened.close()

    path.write_text("{ not json")
    broken = MainWindow()
    qtbot.addWidget(broken)
    broken.files.open_workspace(path)
    from PySide6.QtWidgets import QMessageBox

    dialog = broken.findChild(QMessageBox, "error-dialog")
    assert dialog is not None and "study.sentspace" in dialog.text()
    assert path.read_text() == "{ not json"
    broken.close()


def test_export_corrected_corpus(qtbot, window, tmp_path):
    window.annotations.move(0, window.corpus.groups.names[1], reason="test")
    window.review_panel.corpus_changed.emit()
    written = window.files.export_corrected(tmp_path)
    names = {p.name for p in written}
    assert {"phrases.txt", "phrase_groups.csv", "changes.csv"} <= names
    from sentspace.app.corpora.grouped import load_grouped

    exported = load_grouped(tmp_path)
    assert exported.groups.labels(859)[0] == 1
    assert np.array_equal(
        exported.groups.labels(859)[1:], window.annotations.original.groups.labels(859)[1:]
    )


def test_costra_and_compare_tabs(qtbot, window):
    assert not window.views.isTabEnabled(1)  # not a Costra corpus
    window.analyses.compare_choice.setCurrentIndex(window.analyses.compare_choice.findData("tfidf"))
    window.analyses.compare_spaces()
    wait_for_job(qtbot, window)
    comparison = window.views.compare_view.comparison
    assert comparison is not None and window.views.compare_view.view_b.point_count == 859
    window.open_corpus("costra")
    wait_for_job(qtbot, window)
    assert window.views.isTabEnabled(1)
    window.run()
    wait_for_job(qtbot, window)
    window.evaluate("costra")
    wait_for_job(qtbot, window)
    assert window.costra_result is not None
    assert window.views.costra_view.group_choice.count() == 126
    controls = window.corpus_panel.projection_controls
    controls.colour.setCurrentIndex(controls.colour.findData("type"))
    legend = window.projection.legend.text()
    assert "Colour: Type:" in legend and "(other" not in legend
    shown = {brush.color().name() for brush in window.projection.points.data["brush"]}
    assert len(shown) == 14  # each transformation type in its own colour, none grey


def test_evaluate_original_and_corrected(qtbot, window):
    for sentence in (0, 3, 6):  # three sentences into other groups: more mistakes
        window.annotations.move(sentence, window.corpus.groups.names[200], reason="test")
    window.review_panel.corpus_changed.emit()
    panel = window.evaluation_panel
    panel.choice.setCurrentIndex(panel.choice.findData("classification"))
    window.analyses.evaluate_before_and_after()
    wait_for_job(qtbot, window)
    (name_a, before, _), (name_b, after, _) = panel.results[-2:]
    assert (name_a, name_b) == ("classification (original)", "classification (corrected)")
    assert before.provenance.corpus_fingerprint != after.provenance.corpus_fingerprint
    assert after.mean_accuracy < before.mean_accuracy


def test_corpus_tab_neighbours_tab_and_guides(qtbot, window):
    from sentspace.app.analysis.evaluations import EVALUATIONS
    from sentspace.app.base.guides import GUIDES

    assert window.views.corpus_browser.model.rowCount() == 859
    for family in ("bow", "tfidf"):
        window.corpus_panel.choose(family)
        window.run()
        wait_for_job(qtbot, window)
    assert [name for name, _, _ in window.neighbours_view.spaces] == ["bow", "tfidf"]
    with qtbot.waitSignal(window.neighbours_view.neighbours_found, timeout=20_000) as found:
        window.select_sentence(0)
    assert {1, 2} <= set(found.args[0])
    assert window.views.corpus_browser.selected == 0
    titles = [action.text() for action in window.menuBar().actions()[-1].menu().actions()]
    assert len(titles) >= len(EVALUATIONS) and set(EVALUATIONS) <= set(GUIDES)


def test_workspace_panel_lists_corpora_encoders_results(qtbot, window, shared_data):
    panel = window.workspace_panel
    assert panel.entries("Corpora") == ["msrp-grouped (859 sentences)"]
    window.run()
    wait_for_job(qtbot, window)
    assert panel.entries("Encoders") == ["bow"]
    window.evaluate("classification")
    wait_for_job(qtbot, window)
    window.evaluate("latent")
    wait_for_job(qtbot, window)
    assert panel.entries("Results") == ["classification · bow", "latent · bow"]
    panel.result_chosen.emit(0)
    assert window.evaluation_panel.current[0] == "classification"
    window.open_corpus(shared_data / "sick" / "SICK_trial.txt")
    wait_for_job(qtbot, window)
    assert len(panel.entries("Corpora")) == 2 and panel.entries("Encoders") == []
    panel.corpus_chosen.emit("msrp-grouped")
    wait_for_job(qtbot, window)
    assert window.corpus.name == "msrp-grouped"


def test_save_table_chart_and_selection(qtbot, window, tmp_path, shared_data):
    import csv

    window.open_corpus(shared_data / "sick" / "SICK_trial.txt")
    wait_for_job(qtbot, window)
    window.evaluate("relatedness")
    wait_for_job(qtbot, window)
    panel = window.evaluation_panel
    panel.save_csv(tmp_path / "table.csv")
    rows = list(csv.reader((tmp_path / "table.csv").open()))
    # Numbers and their intervals in columns of their own, as numbers.
    assert rows[0] == ["metric", "value", "ci_low", "ci_high", "n"] and len(rows) > 1
    for _metric, value, low, high, _n in rows[1:]:
        assert float(value) == float(value) and (low == "" or float(low) <= float(high))
    panel.save_chart(tmp_path / "chart.png")
    panel.save_chart(tmp_path / "chart.svg")
    assert (tmp_path / "chart.png").read_bytes()[:4] == b"\x89PNG"
    assert b"<svg" in (tmp_path / "chart.svg").read_bytes()[:2000]

    window.open_corpus("msrp-grouped")
    wait_for_job(qtbot, window)
    window.run()
    wait_for_job(qtbot, window)
    window.select_sentence(0)
    window.selecting.export_selection(tmp_path / "group.csv")
    rows = list(csv.reader((tmp_path / "group.csv").open()))
    assert rows[0] == ["index", "id", "text", "group"] and len(rows) == 4
    assert rows[1][1] == "L1" and rows[1][3] == "0"


def test_quitting_offers_to_save_unsaved_results(qtbot, window, tmp_path):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QMessageBox

    assert not window.unsaved and window.close()  # nothing made yet: closes
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    window.open_corpus("msrp-grouped")
    wait_for_job(qtbot, window)
    window.run()
    wait_for_job(qtbot, window)
    save_and_wait(qtbot, window, tmp_path / "kept")  # a bare name: .sentspace added
    assert (tmp_path / "kept.sentspace").is_file() and not window.unsaved
    window.evaluate("latent")
    wait_for_job(qtbot, window)
    assert window.unsaved and window.close() is False  # asked, not closed
    dialog = window.findChild(QMessageBox, "save-dialog")
    assert dialog is not None and window.isVisible()
    qtbot.mouseClick(dialog.button(QMessageBox.StandardButton.Save), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.isVisible())
    saved = manifest(tmp_path / "kept.sentspace")
    # The run's classification is a result like the evaluation asked after it.
    assert [entry["name"] for entry in saved["evaluations"]] == ["classification", "latent"]

    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    again.files.open_workspace(tmp_path / "kept.sentspace")
    wait_for_job(qtbot, again)
    again.evaluate("latent")
    wait_for_job(qtbot, again)
    assert again.close() is False
    dialog = again.findChild(QMessageBox, "save-dialog")
    qtbot.mouseClick(dialog.button(QMessageBox.StandardButton.Discard), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not again.isVisible())
    assert len(manifest(tmp_path / "kept.sentspace")["evaluations"]) == 2
