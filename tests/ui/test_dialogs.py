"""Dialogs behave as users expect: file dialogs start where the last one of the same
purpose ended and complete bare names; Move to group takes a reason; closing a corpus with results asks;
Agreement offers the encoders already run."""

import html

import numpy as np
from PySide6.QtWidgets import QFileDialog, QMessageBox

from sentspace.app.workspace.format import load_workspace
from tests.browser import page_data
from tests.ui.conftest import evaluate_and_wait, open_sick, run_and_wait, wait_for_job


def answer_save(monkeypatch, asked, path, chosen):
    """Save dialogs answer ``path`` typed under filter ``chosen``; the folders they
    started in go to ``asked``."""

    def dialog(parent, title, folder, filters):
        asked.append(folder)
        return str(path), chosen

    monkeypatch.setattr(QFileDialog, "getSaveFileName", dialog)


def test_save_dialogs_complete_bare_names_and_start_in_the_last_folder_of_their_purpose(
    qtbot, window, monkeypatch, tmp_path
):
    """Exports start where the last export went, workspaces where the last workspace
    was, corpora where the last corpus came from, across sessions (the settings file);
    a purpose never used starts in the working folder (issue 42: not at home)."""

    from sentspace.app.workspace.recent import CONFIG_DIR_ENV

    monkeypatch.setenv(CONFIG_DIR_ENV, str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    exports, workspaces = tmp_path / "exports", tmp_path / "workspaces"
    exports.mkdir()
    workspaces.mkdir()
    asked = []
    answer_save(monkeypatch, asked, exports / "picked", "CSV (*.csv)")
    window.selection.select([0, 1, 2], source="search")
    window.selecting._choose_export_target()
    assert (exports / "picked.csv").is_file() and not (exports / "picked").exists()

    run_and_wait(qtbot, window)
    answer_save(monkeypatch, asked, exports / "glove", "NumPy array + JSON sidecar (*.npy)")
    window.files.choose_embeddings_target()
    wait_for_job(qtbot, window)
    assert np.load(exports / "glove.npy").shape[0] == len(window.corpus)

    answer_save(
        monkeypatch, asked, workspaces / "rel-glove.v2", "sentspace workspace (*.sentspace)"
    )
    window.files.save_workspace(ask=True)
    wait_for_job(qtbot, window)  # the save is a job
    assert load_workspace(workspaces / "rel-glove.v2.sentspace").corpora
    # Not $HOME: the working folder (no workspace or corpus file opened yet).
    assert asked == [str(tmp_path), str(exports), str(tmp_path)]

    opened = []
    monkeypatch.setattr(
        QFileDialog,
        "getOpenFileName",
        lambda parent, title, folder, filters: opened.append(folder) or ("", ""),
    )
    window.files.choose_workspace()
    window.files.choose_corpus_file()  # cancelled: nothing remembered
    # Beside the workspace just saved, not $HOME.
    assert opened == [str(workspaces), str(workspaces)]
    answer_save(monkeypatch, asked, exports / "again", "CSV (*.csv)")
    window.selecting._choose_export_target()
    assert asked[-1] == str(exports)


def test_a_completed_name_that_exists_is_not_replaced_unasked(window, monkeypatch, tmp_path):
    (tmp_path / "picked.csv").write_text("keep me\n")
    answer_save(monkeypatch, [], tmp_path / "picked", "CSV (*.csv)")
    monkeypatch.setattr(QMessageBox, "question", lambda *args: QMessageBox.StandardButton.No)
    window.selection.select([0, 1, 2], source="search")
    window.selecting._choose_export_target()
    assert (tmp_path / "picked.csv").read_text() == "keep me\n"


def test_move_to_group_shows_the_sentence_and_keeps_the_reason(qtbot, tmp_path):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDialogButtonBox

    from sentspace.app.analysis.cache import encode_corpus
    from sentspace.app.analysis.suspicious import find_suspicious
    from sentspace.app.annotations.export import change_log
    from sentspace.app.annotations.session import AnnotationSession
    from sentspace.app.base.jobs import run_job
    from sentspace.app.corpora import load_corpus
    from sentspace.app.ui.panels.review_panel import ReviewPanel
    from sentspace.models import make_encoder

    corpus = load_corpus("msrp-grouped")
    panel = ReviewPanel()
    qtbot.addWidget(panel)
    session = AnnotationSession.open(corpus, tmp_path / "edits.jsonl")
    panel.set_session(session)
    panel.set_lists(
        find_suspicious(corpus, {"bow": run_job(encode_corpus(corpus, make_encoder("bow")))})
    )
    panel.show()
    panel.select_row(0)
    items, row = panel.current_list, panel.selected_row()
    sentence = int(items.sentence[row])
    likely = corpus.groups.names[items.likely_group[row]]
    qtbot.mouseClick(panel.buttons["move"], Qt.MouseButton.LeftButton)
    dialog = panel.move_dialog
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.windowTitle() == f"Move sentence {corpus.ids[sentence]}"
    assert html.escape(corpus.texts[sentence]) in dialog.shown.text()
    assert dialog.target.currentText() == likely
    qtbot.keyClicks(dialog.reason, "same story as its neighbours")
    qtbot.mouseClick(
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    assert session.group_names_of(sentence) == [likely]
    (entry,) = change_log(session.edits)
    assert entry["reason"] == "same story as its neighbours"
    session.close()


def test_closing_a_corpus_with_results_asks_first(qtbot, window, shared_data):
    from PySide6.QtCore import Qt

    panel = window.workspace_panel
    run_and_wait(qtbot, window)
    sick = open_sick(qtbot, window, shared_data, encoder=None)
    box = panel.ask_close("msrp-grouped")
    assert box.objectName() == "close-corpus-dialog" and "1 encoder run" in box.text()
    assert "msrp-grouped" in window.held
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert "msrp-grouped" in window.held
    box = panel.ask_close("msrp-grouped")
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Close), Qt.MouseButton.LeftButton)
    assert "msrp-grouped" not in window.held
    assert panel.entries("Corpora") == ["sick (924 sentences)"]

    window.open_corpus("msrp-grouped")  # SICK, with nothing made, goes unasked
    wait_for_job(qtbot, window)
    assert panel.ask_close(sick) is None and sick not in window.held


def test_agreement_ticks_the_encoders_run_on_this_corpus(qtbot, window):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDialogButtonBox

    from sentspace.models import ENCODERS

    run_and_wait(qtbot, window)
    assert list(window.current.runs) == ["bow"]
    dialog = window.analyses.choose_agreement_encoders()
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.list.count() == len(ENCODERS)  # every family, none twice
    assert dialog.list.item(0).text() == "bow (run on this corpus)"
    assert dialog.checked() == ["bow", "tfidf"]  # the run, then TF-IDF
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    tfidf = dialog.list.findItems("TF-IDF", Qt.MatchFlag.MatchStartsWith)[0]
    tfidf.setCheckState(Qt.CheckState.Unchecked)
    assert not ok.isEnabled()  # one encoder compares nothing
    tfidf.setCheckState(Qt.CheckState.Checked)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    wait_for_job(qtbot, window)
    last = window.current.evaluations[-1]
    assert (last.name, last.encoder) == ("agreement", "bow,tfidf")


def test_the_map_exports_as_one_web_page_with_the_runs_provenance(
    qtbot, window, tmp_path, monkeypatch
):
    import sentspace.app.ui.window.files as files

    run_and_wait(qtbot, window)
    evaluate_and_wait(qtbot, window, "classification")
    action = next(a for a in window.actions.exports if "web page" in a.text())
    assert action.isEnabled()
    monkeypatch.setattr(files, "save_file", lambda *_, **__: str(tmp_path / "msrp-map.html"))
    action.trigger()
    wait_for_job(qtbot, window)
    page = (tmp_path / "msrp-map.html").read_text()
    assert "<script" in page and "http://" not in page.split("<script")[0]
    data, arrays = page_data(page)
    rows = dict(map(tuple, data["provenance"]))
    assert len(arrays[data["texts"]]) == 859 and "mean accuracy" in rows["Classification"]
