"""The window follows the session's record: the projection's rings, its legend, the
Classification tab and the Evaluations panel show one classification (of the corpus as
it is, or marked stale), an MTEB import of pairs the corpus lacks says so, and the line
under Run and the status bar speak of the corpus's own jobs, each by name."""

from __future__ import annotations

import numpy as np

from sentspace.app.base.palette import MISCLASSIFIED, STALE
from sentspace.app.workspace.snapshot import workspace_of
from tests.test_mteb_results import PUBLISHED, mteb_layout
from tests.ui.conftest import open_and_wait, run_and_wait, wait_for_job
from tests.ui.test_versions import edit_group_of


def rings(window) -> tuple[list[int], str]:
    """The sentences ringed in the projection and the rings' colour."""
    marked = window.projection.marked
    return sorted(int(i) for i in marked.data["data"]), marked.opts["pen"].color().name()


def shown_accuracy(window) -> str:
    table = window.classification.metrics
    return next(
        table.item(row, 1).text()
        for row in range(table.rowCount())
        if table.item(row, 0).text() == "mean accuracy"
    ).split()[0]  # no interval


def panel_result(window):
    """The result the Evaluations panel shows."""
    return window.evaluation_panel.current[1]


def test_rings_tab_and_panel_follow_one_classification_through_edit_and_undo(qtbot, window):
    window.corpus_panel.choose("tfidf")
    run_and_wait(qtbot, window)
    loaded = window.exploration.classification
    assert rings(window) == (sorted(loaded.misclassified.tolist()), MISCLASSIFIED.lower())
    legend = window.projection.legend.text()
    assert "Red ring: misclassified by tfidf on msrp-grouped as loaded." in legend
    assert panel_result(window) is loaded  # the run's classification, listed
    assert shown_accuracy(window) == f"{loaded.mean_accuracy:.4f}"

    # An edit: the rings stay, grey, and say they are of the corpus before it.
    # A sentence classified right, moved to a group it is no paraphrase of.
    sentence = next(int(i) for i in loaded.sentence_index if i not in loaded.misclassified)
    group = window.corpus.groups.first_group(len(window.corpus))[sentence]
    edit_group_of(window, sentence, window.corpus.groups.names[(group + 1) % 274])
    assert rings(window) == (sorted(loaded.misclassified.tolist()), STALE)
    assert (
        "Grey ring: misclassified by tfidf on msrp-grouped, the corpus before 1 edit; "
        "stale" in window.projection.legend.text()
    )

    # "run again" in the Classification tab: the new result is the one every view shows.
    window.classification.rerun_button.click()
    wait_for_job(qtbot, window)
    edited = window.exploration.classification
    assert edited is not loaded and edited.provenance.corpus_edits == 1
    assert rings(window) == (sorted(edited.misclassified.tolist()), MISCLASSIFIED.lower())
    assert "as edited (1 edit)" in window.projection.legend.text()
    assert panel_result(window) is edited
    assert shown_accuracy(window) == f"{edited.mean_accuracy:.4f}"
    assert window.evaluation_panel.history.count() == 2  # before the edit, and after
    assert "before 1 edit" in window.evaluation_panel.history.item(0).text()
    assert sentence in edited.misclassified and sentence not in loaded.misclassified

    # Undo: the corpus is as loaded again, and so is the classification shown.
    window.annotations.undo()
    window.review_panel.corpus_changed.emit()
    assert rings(window) == (sorted(loaded.misclassified.tolist()), MISCLASSIFIED.lower())
    assert "Red ring: misclassified by tfidf on msrp-grouped as loaded." in (
        window.projection.legend.text()
    )
    assert shown_accuracy(window) == f"{loaded.mean_accuracy:.4f}"
    assert panel_result(window) is loaded  # the panel's row follows too
    assert not window.classification.rerun_button.isVisibleTo(window.classification)


def test_rings_of_an_undone_version_are_marked_stale(qtbot, window):
    """Run only after an edit, then undo it: the one classification is of a version
    the corpus no longer is."""
    window.corpus_panel.choose("tfidf")
    edit_group_of(window, 5, window.corpus.groups.names[7])
    run_and_wait(qtbot, window)
    result = window.exploration.classification
    window.annotations.undo()
    window.review_panel.corpus_changed.emit()
    assert rings(window) == (sorted(result.misclassified.tolist()), STALE)
    assert (
        "Grey ring: misclassified by tfidf on msrp-grouped, another version of the "
        "corpus (edits since taken back); stale" in window.projection.legend.text()
    )
    button = window.classification.rerun_button
    assert button.isVisibleTo(window.classification) and "another version" in button.text()


def test_an_evaluation_of_the_run_shown_is_what_the_tab_and_rings_show(qtbot, window):
    run_and_wait(qtbot, window)
    edit_group_of(window, 5, window.corpus.groups.names[7])
    window.evaluate("classification")  # the Evaluations panel's button
    wait_for_job(qtbot, window)
    evaluated = panel_result(window)
    assert shown_accuracy(window) == f"{evaluated.mean_accuracy:.4f}"
    assert rings(window) == (sorted(evaluated.misclassified.tolist()), MISCLASSIFIED.lower())


def test_an_mteb_import_of_pairs_this_corpus_lacks_says_so(qtbot, window, shared_data, tmp_path):
    mteb_layout(tmp_path / "mteb", "STSBenchmark", PUBLISHED)
    open_and_wait(qtbot, window, shared_data / "msrp" / "msr_paraphrase_test.txt")
    window.analyses.import_mteb(str(tmp_path / "mteb"))
    wait_for_job(qtbot, window)
    message = window.statusBar().currentMessage()
    assert message == (
        "Imported 1 MTEB result (all-MiniLM-L6-v2 STSBenchmark). Not drawn "
        "on msrp: STSBenchmark's 1,379 pairs are not here (open "
        "sts/STSBenchmark)."
    )


def test_the_costra_announcement_goes_when_every_job_has_ended(qtbot, window):
    open_and_wait(qtbot, window, "costra")
    window.views.setCurrentIndex(1)  # runs and evaluates what it needs
    assert "Running the Costra run and evaluation" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: not window.is_running and not window.jobs.queued, timeout=120_000)
    assert window.current.costra_result is not None
    assert "Running the Costra" not in window.statusBar().currentMessage()
    assert window.jobs.stage.text().startswith("Done in ")
    assert window.jobs.stage.text().endswith(": costra: bow.")  # the last job, named


def test_the_line_under_run_names_the_corpus_own_last_job(qtbot, window):
    run_and_wait(qtbot, window)
    stage = window.jobs.stage
    assert stage.text().startswith("Done in ") and stage.text().endswith(" s: bow on msrp-grouped.")
    # A quick Explain is the corpus's last job: the line says it was the Explain.
    window.selection.select([3, 8], focus=3, source="chart")
    window.explaining.action.trigger()
    wait_for_job(qtbot, window)
    assert stage.text().endswith(" s: explaining with bow.")
    explained = stage.text()

    # Reproducing a paper is no corpus's job: the corpus's line stays its own.
    import sentspace.app.ui.window.analyses as analyses

    window.analyses.reproduce()
    dialog = window.findChild(analyses.ReproduceDialog)
    qtbot.addWidget(dialog)
    dialog.paper.setCurrentIndex(dialog.paper.findData("costra"))
    dialog.run_button.click()
    assert window.is_running
    window.cancel()
    wait_for_job(qtbot, window)
    assert stage.text() == explained
    assert window.current.status == explained
    assert window.statusBar().currentMessage() == "Cancelled: reproducing costra (quick)."
    dialog.close()


def test_a_workspace_keeps_the_runs_classification_as_a_result(qtbot, window, tmp_path):
    """A workspace keeps the run's classification as a result like any other."""
    from sentspace.app.base.jobs import run_job
    from sentspace.app.workspace.restore import restore_session

    window.corpus_panel.choose("tfidf")
    run_and_wait(qtbot, window)
    misclassified = window.exploration.classification.misclassified
    workspace = workspace_of(window.session)
    restored = run_job(restore_session(workspace, tmp_path / "w.sentspace"))
    (run,) = restored.current.evaluations
    assert run.name == "classification" and run.encoder == "tfidf"
    assert np.array_equal(run.result.misclassified, misclassified)
