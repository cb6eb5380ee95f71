"""A malformed journal or workspace is a dialog naming the file and where in it, and the
window keeps working: the journal's record of the wrong type, a workspace whose saved
review lists are a string."""

import json

from PySide6.QtWidgets import QMessageBox

from sentspace.app.annotations.session import AnnotationSession
from tests.ui.conftest import save_and_wait, wait_for_job
from tests.workspace_files import manifest, rewrite


def test_a_journal_record_of_the_wrong_type_is_a_dialog(qtbot, window, tmp_path):
    corpus = window.corpus
    journal = tmp_path / "edits.jsonl"
    session = AnnotationSession.open(corpus, journal, author="ann")
    session.move(0, corpus.groups.names[1])
    session.close()
    header, record = journal.read_text().splitlines()
    journal.write_text(f"{header}\n{json.dumps({**json.loads(record), 'target': [1]})}\n")
    window.showing.set_corpus(corpus, journal, spec="msrp-grouped")
    dialog = window.findChild(QMessageBox, "error-dialog")
    assert dialog.windowTitle() == "The edit journal cannot be used"
    assert dialog.text() == (
        f"{journal}, line 2: malformed move edit: target: should be a string, found [1]"
    )
    assert window.corpus is corpus and window.annotations is None


def test_a_workspace_with_malformed_state_is_a_dialog(qtbot, window, tmp_path):
    path = save_and_wait(qtbot, window, tmp_path / "study.sentspace")
    saved = manifest(path)
    saved["corpora"][0]["state"]["review_lists"] = "misgrouped"
    rewrite(path, saved)
    window.files.open_workspace(path)
    wait_for_job(qtbot, window)
    dialog = window.findChild(QMessageBox, "error-dialog")
    assert dialog.windowTitle() == "Cannot use this input"
    assert dialog.text() == (
        f"{path}: corpora[0].state.review_lists: should be an object, found 'misgrouped'"
    )
    assert window.corpus is not None


def test_a_saved_filter_that_nests_5000_deep_is_said_in_the_filter_panel(qtbot, window, tmp_path):
    path = save_and_wait(qtbot, window, tmp_path / "study.sentspace")
    saved = manifest(path)
    window.tasks.setCurrentWidget(window.filter_panel)
    expressions = {
        "not " * 5000 + "words > 3": "column 401: nested more than 100 levels deep",
        "words > 1" + "0" * 400: "column 9 (100000000000…000000, 401 digits): a number beyond",
        "words > '\udcff'": "column 10: the byte 0xff, which is not UTF-8 text",
    }
    for expression, problem in expressions.items():
        saved["corpora"][0]["state"]["filter"]["expression"] = expression
        rewrite(path, saved)
        window.files.open_workspace(path)
        wait_for_job(qtbot, window)
        assert window.findChild(QMessageBox, "error-dialog") is None
        panel = window.filter_panel
        assert (
            panel.error.text().startswith("filter expression, ") and problem in panel.error.text()
        )
        assert window.filtering.mask is None  # the rest of the filter applies: none here
