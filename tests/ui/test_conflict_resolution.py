"""Resolving conflicts in the window: the Review panel's conflicts lead to a dialog that
shows each conflict's competing decisions (who, when) and sentences (a click selects
them), requires a choice and a reason, journals the resolution and drops the conflict;
review batches are written from the panel's lists and brought back with their
conflicts offered for resolution."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt

from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.ui.panels.batches_dialog import ROWS_PER_PERSON
from sentspace.app.workspace.batches import batch_journals
from tests.ui.conftest import LEFT, wait_for_job

JOURNAL_MS = 10_000


def group_of(window, sentence: int) -> list[str]:
    return window.annotations.group_names_of(sentence)


def conflict_in(qtbot, window):
    """ann (the window) and ben (another process's session on the same journal) move
    L1 without seeing each other's move; the window shows the conflict."""
    window.annotations.author = "ann"
    ben = AnnotationSession.open(
        window.current.original, window.annotations.journal.path, author="ben"
    )
    window.annotations.move(0, "5", reason="same event")
    window.review_panel.corpus_changed.emit()
    ben.move(0, "7", source="0", reason="same company")
    qtbot.waitUntil(lambda: group_of(window, 0) == ["7"], timeout=JOURNAL_MS)
    review = window.review_panel
    qtbot.waitUntil(lambda: review.conflicts.isVisibleTo(review), timeout=JOURNAL_MS)
    return ben


def test_a_conflict_is_resolved_in_the_window_with_a_reason(qtbot, window):
    ben = conflict_in(qtbot, window)
    review = window.review_panel
    assert "Resolve…" in review.conflicts.text() and review.buttons["resolve"].isEnabled()
    review.conflicts.linkActivated.emit("resolve")  # the label's link
    dialog = window.teamwork.conflict_dialog
    qtbot.waitExposed(dialog)
    assert dialog.list.count() == 1 and "sentence:L1" in dialog.list.item(0).text()
    assert dialog.problem.text() == (
        "Found when ben's edit was replayed: L1 was in 0 and is now in 5. It applied "
        "anyway: the later decision is in effect now."
    )
    options = [button.text() for button in dialog.choices.buttons()]
    assert options[0].startswith("ann, 20") and "move L1 from 0 to 5 — “same event”" in options[0]
    assert options[1].startswith("ben, 20") and "UTC: move L1 from 0 to 7" in options[1]
    assert options[2] == "Neither: take both back"
    # The sentences, each a click away from the views.
    assert dialog.sentences.count() == 1
    assert dialog.sentences.item(0).text().startswith("L1: ")
    assert "(now in 7)" in dialog.sentences.item(0).text()
    window.selection.select([3], source="point")
    rect = dialog.sentences.visualItemRect(dialog.sentences.item(0))
    qtbot.mouseClick(dialog.sentences.viewport(), LEFT, pos=rect.center())
    assert list(window.selection.indices) == [0] and window.selection.source == "review"

    # A choice and a reason are both required.
    resolve = dialog.form.ok_button
    assert resolve.text() == "Resolve" and not resolve.isEnabled()
    dialog.choose(0)
    assert not resolve.isEnabled() and resolve.toolTip() == "Say why"
    qtbot.keyClicks(dialog.reason, "the event, not the company")
    assert resolve.isEnabled()
    qtbot.mouseClick(resolve, LEFT)

    assert dialog.list.count() == 0 and "No conflicts left" in dialog.caption.text()
    assert not resolve.isEnabled() and dialog.reason.text() == ""
    assert "Resolved: ann's move L1 from 0 to 5 stands over ben's" in dialog.status.text()
    assert group_of(window, 0) == ["5"] and window.annotations.conflicts == []
    assert not review.conflicts.isVisibleTo(review)
    assert not review.buttons["resolve"].isEnabled()
    last = json.loads(window.annotations.journal.path.read_text().splitlines()[-1])
    assert (last["op"], last["author"], last["reason"]) == (
        "resolve",
        "ann",
        "the event, not the company",
    )
    assert last["items"] == ["sentence:L1"] and len(last["settles"]) == 2
    # The other writer sees it.
    ben.refresh()
    assert ben.group_names_of(0) == ["5"] and ben.conflicts == []

    # Undone like any edit: the conflict is back in the dialog.
    window.annotations.undo()
    window.review_panel.corpus_changed.emit()
    assert dialog.list.count() == 1 and group_of(window, 0) == ["7"]
    assert review.conflicts.isVisibleTo(review)


def test_a_conflict_resolved_elsewhere_leaves_the_dialog_and_is_refused(qtbot, window):
    ben = conflict_in(qtbot, window)
    dialog = window.teamwork.resolve_conflicts()
    qtbot.addWidget(dialog)
    dialog.choose(1)
    qtbot.keyClicks(dialog.reason, "ben's reading")
    ben.refresh()
    ben.resolve(ben.conflicts[0], None, "neither: L1 stays where it was")
    # The window has not seen ben's resolution yet: resolving is refused, and said.
    assert not dialog.resolve()
    assert dialog.status.text() == (
        "Not resolved: resolved meanwhile by ben (neither "
        "stands: ann's move L1 from 0 to 5 and ben's move L1 "
        "from 0 to 7 overruled)"
    )
    assert dialog.list.count() == 0
    qtbot.waitUntil(lambda: group_of(window, 0) == ["0"], timeout=JOURNAL_MS)


def test_review_batches_go_out_and_come_back_with_their_conflicts(qtbot, window, tmp_path):
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    review = window.review_panel
    assert review.buttons["batches"].isEnabled()
    review.buttons["batches"].click()
    dialog = window.teamwork.batches_dialog
    qtbot.waitExposed(dialog)
    write = dialog.buttons.buttons()[0]
    dialog.people.setValue(2)
    dialog.copies.setValue(2)
    dialog.top.setValue(3)
    assert not write.isEnabled() and "choose the folder" in dialog.preview.text()
    qtbot.keyClicks(dialog.names, "ann, ben")
    dialog.target.setText(str(tmp_path / "batches"))
    assert write.isEnabled()
    assert dialog.preview.text().splitlines()[0].startswith("batch 1 for ann: ")
    dialog.accept()
    journals = batch_journals([tmp_path / "batches"])
    assert [path.parent.name for path in journals] == ["batch-1-ann", "batch-2-ben"]
    assert "2 review batches written" in window.statusBar().currentMessage()

    # Both reviewers saw the first misgrouped sentence and moved it differently.
    items = window.current.review_lists["misgrouped"]
    sentence = int(items.sentence[0])
    for author, journal, target in (("ann", journals[0], "5"), ("ben", journals[1], "7")):
        session = AnnotationSession.open(window.current.original, journal, author=author)
        session.move(sentence, target)
        session.close()
    changes = window.teamwork.bring_back([tmp_path / "batches"])
    assert changes.authors == ["ann", "ben"]
    assert "Brought back 2 records by ann, ben · 1 conflict" in window.statusBar().currentMessage()
    conflicts = window.teamwork.conflict_dialog
    qtbot.waitExposed(conflicts)
    assert conflicts.list.count() == 1
    conflicts.choose(1)
    qtbot.keyClicks(conflicts.reason, "ben is right")
    qtbot.keyClick(conflicts.reason, Qt.Key.Key_Return)  # Enter resolves too
    assert conflicts.list.count() == 0 and group_of(window, sentence) == ["7"]


def test_review_batches_deal_only_the_lists_chosen(qtbot, window, tmp_path):
    """A double review of the misgrouped sentences alone: every item of the batch is a
    sentence, which agreement counts (reviewed groups and group pairs it does not)."""
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    lists = window.current.review_lists
    assert len(lists) > 1 and "misgrouped" in lists
    window.review_panel.buttons["batches"].click()
    dialog = window.teamwork.batches_dialog
    qtbot.waitExposed(dialog)
    write = dialog.buttons.buttons()[0]
    # By default the list shown, 50 rows a person (every row of every list was 1,170 a
    # person on MSRP).
    shown = window.review_panel.kind.currentData()
    assert [kind for kind, box in dialog.chosen.items() if box.isChecked()] == [shown]
    assert dialog.people.value() == 2 and dialog.top.value() == 2 * ROWS_PER_PERSON
    assert ": 50 rows (50 " in dialog.preview.text().splitlines()[0]
    dialog.people.setValue(3)
    assert dialog.top.value() == 3 * ROWS_PER_PERSON
    dialog.copies.setValue(2)
    assert dialog.top.value() == 3 * ROWS_PER_PERSON // 2
    dialog.people.setValue(2)
    dialog.top.setValue(4)
    dialog.names.setText("ann, ben")
    dialog.target.setText(str(tmp_path / "batches"))
    for box in dialog.chosen.values():
        box.setChecked(False)
    assert not write.isEnabled() and "choose one list" in dialog.preview.text()
    dialog.chosen["misgrouped"].setChecked(True)
    assert write.isEnabled()
    assert dialog.preview.text().splitlines() == [
        "batch 1 for ann: 4 rows (4 misgrouped)",
        "batch 2 for ben: 4 rows (4 misgrouped)",
    ]
    dialog.accept()
    manifest = json.loads((tmp_path / "batches" / "batch-2-ben" / "batch.json").read_text())
    assert list(manifest["items"]) == ["misgrouped"]
    assert manifest["items"]["misgrouped"] == list(
        dict.fromkeys(lists["misgrouped"].key(row) for row in range(4))
    )


def test_a_reviewer_opening_their_batch_sees_its_rows(qtbot, window, tmp_path):
    """A batch's workspace holds review lists and no run: opening it shows the Review
    tab with the batch's rows (not the empty projection's "Press Run")."""
    from sentspace.app.ui.window.main_window import MainWindow
    from sentspace.app.workspace.batches import export_batches, split_batches

    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    state = window.current
    lists = {"misgrouped": state.review_lists["misgrouped"]}
    [workspace] = export_batches(
        state.spec, state.original, lists, split_batches(lists, 1, top=5), tmp_path / "batches"
    )
    reviewer = MainWindow()
    qtbot.addWidget(reviewer)
    reviewer.tasks.setCurrentIndex(0)
    assert reviewer.tasks.currentWidget() is not reviewer.review_panel
    reviewer.files.open_workspace(workspace)
    wait_for_job(qtbot, reviewer)
    assert reviewer.tasks.currentWidget() is reviewer.review_panel
    assert reviewer.review_panel.proxy.rowCount() == 5
    reviewer.close()
