"""Two windows on one corpus: each follows the other's edits live (the journal is
watched), says who made them, shows conflicts, and the Review panel tells and filters
items by who decided them."""

from __future__ import annotations

from sentspace.app.ui.panels.review_table import DECIDED_BY, EVERYONE, UNDECIDED
from sentspace.app.ui.window.main_window import MainWindow
from tests.ui.conftest import open_and_wait, wait_for_job

JOURNAL_MS = 10_000


def second_window(qtbot):
    other = MainWindow()
    qtbot.addWidget(other)
    other.show()
    open_and_wait(qtbot, other, "msrp-grouped")
    return other


def group_of(window, sentence: int) -> str:
    groups = window.corpus.groups
    return groups.names[groups.first_group(len(window.corpus))[sentence]]


def test_a_window_follows_another_annotators_edits_and_conflicts(qtbot, window):
    other = second_window(qtbot)
    assert other.annotations.journal.path == window.annotations.journal.path
    window.annotations.author, other.annotations.author = "ann", "ben"
    names = window.corpus.groups.names
    target = names[7] if group_of(window, 5) != names[7] else names[8]

    other.annotations.move(5, target, reason="ben thinks so")
    other.review_panel.corpus_changed.emit()
    qtbot.waitUntil(lambda: group_of(window, 5) == target, timeout=JOURNAL_MS)
    message = window.statusBar().currentMessage()
    assert "ben: move L" in message and f"to {target}" in message

    # Both move one sentence without seeing the other's move: a conflict, shown.
    first, second = names[20], names[21]
    window.annotations.move(6, first, reason="ann")
    other.annotations.move(6, second, reason="ben")  # ben has not refreshed yet
    other.review_panel.corpus_changed.emit()
    qtbot.waitUntil(lambda: group_of(window, 6) == second, timeout=JOURNAL_MS)
    assert "conflict" in window.statusBar().currentMessage()
    review = window.review_panel
    assert review.conflicts.isVisibleTo(review)
    assert "ben's move L" in review.conflicts.text() and "ann's move" in review.conflicts.text()


def test_a_move_of_a_sentence_moved_meanwhile_is_refused_and_said(qtbot, window):
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    review = window.review_panel
    review.select_row(0)
    sentence = review.model.items.sentences_of(review.selected_row())[0]
    seen = window.annotations.group_names_of(sentence)[0]  # the dialog opens on it
    other = second_window(qtbot)
    other.annotations.author = "ben"
    names = window.corpus.groups.names
    elsewhere = next(name for name in names if name != seen)
    other.annotations.move(sentence, elsewhere)
    other.review_panel.corpus_changed.emit()
    qtbot.waitUntil(lambda: group_of(window, sentence) == elsewhere, timeout=JOURNAL_MS)
    records = len(window.annotations.journal.records)
    target = next(name for name in names if name not in (seen, elsewhere))
    assert not review.move_selected(target, "mine", seen=seen)
    assert f"was moved from {seen} to {elsewhere} meanwhile (by ben)" in review.status.text()
    assert (
        len(window.annotations.journal.records) == records
        and group_of(window, sentence) == elsewhere
    )


def test_review_items_say_and_filter_who_decided_them(qtbot, window):
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    review = window.review_panel
    window.annotations.author = "ann"
    review.select_row(0)
    assert review.mark_selected_reviewed("looked")
    model, proxy = review.model, review.proxy
    column = model.headers.index(DECIDED_BY)
    key = model.keys[0]
    assert model.values[column][0] == "ann" and model.deciders[key] == ("ann",)
    assert model.data(model.index(0, 1), role=8) is not None  # tinted (Background)
    assert [review.author.itemText(i) for i in range(review.author.count())] == [
        EVERYONE,
        "ann",
        UNDECIDED,
    ]
    review.author.setCurrentText("ann")
    assert proxy.rowCount() == 1
    review.author.setCurrentText(UNDECIDED)
    assert proxy.rowCount() == len(model.keys) - 1


def test_the_agreement_of_annotators_and_their_disagreements(qtbot, window):
    from sentspace.app.annotations.agreement import agreement
    from sentspace.app.annotations.journal import read_journal

    other = second_window(qtbot)
    window.annotations.author, other.annotations.author = "ann", "ben"
    names = window.corpus.groups.names
    # Both decide sentences 10-13; they agree on 10 and 11 (kept where they are).
    for sentence in (10, 11):
        for person in (window, other):
            person.annotations.mark_reviewed(f"sentence:{person.corpus.ids[sentence]}")
    window.annotations.move(12, names[30])
    other.annotations.mark_reviewed(f"sentence:{window.corpus.ids[12]}")
    other.annotations.move(13, names[31])
    window.annotations.mark_reviewed(f"sentence:{window.corpus.ids[13]}")

    dialog = window.analyses.annotator_agreement()
    qtbot.addWidget(dialog)
    _, records = read_journal(window.annotations.journal.path)
    expected = next(
        kind for kind in agreement(window.current.original, records).kinds if kind.kind == "group"
    )
    rows = {
        dialog.statistics.item(r, 0).text(): dialog.statistics.item(r, 2).text()
        for r in range(dialog.statistics.rowCount())
    }
    assert rows["group"] == f"{expected.value:.3f}" and "ann, ben" in dialog.caption.text()
    assert dialog.disagreements.rowCount() == 2
    with qtbot.waitSignal(dialog.sentences_selected) as picked:
        dialog.disagreements.cellClicked.emit(0, 0)
    assert picked.args[0] and set(picked.args[0]) <= {12, 13}


def test_a_lead_settling_a_disagreement_keeps_the_pairs_kappa_in_view(qtbot, window):
    """ann and ben decide sentences 10-13 and disagree on 12; the lead moves 12: the
    kind's Fleiss' kappa is over the one item all three decided, and the dialog says the
    chosen pair's Cohen's kappa over the four both decided."""
    from sentspace.app.annotations.agreement import agreement
    from sentspace.app.annotations.journal import read_journal

    session, ids, names = window.annotations, window.corpus.ids, window.corpus.groups.names
    for author in ("ann", "ben"):
        session.author = author
        for sentence in (10, 11, 13):
            session.mark_reviewed(f"sentence:{ids[sentence]}")
    session.author = "ann"
    session.mark_reviewed(f"sentence:{ids[12]}")
    kept = group_of(window, 12)
    session.author = "ben"
    session.move(12, names[30])
    session.author = "lead"
    session.move(12, kept, reason="ann is right")
    assert group_of(window, 12) == kept

    dialog = window.analyses.annotator_agreement()
    qtbot.addWidget(dialog)
    _, records = read_journal(session.journal.path)
    [groups] = [
        kind for kind in agreement(window.current.original, records).kinds if kind.kind == "group"
    ]
    assert groups.statistic == "Fleiss' kappa" and groups.n_items == 1
    assert dialog.statistics.item(0, 3).text() == "1"
    assert dialog.pair.currentText() == "ann vs ben"
    _, value, items = groups.pairwise("ann", "ben")
    assert items == 4 and dialog.pair_value.text() == (
        f"ann and ben: Cohen's kappa {value:.3f} over the 4 items both decided"
    )
    dialog.pair.setCurrentIndex(dialog.pair.findText("ann vs lead"))
    assert dialog.pair_value.text().endswith("over the 1 item both decided")
    # The one-row statistics table leaves the disagreements their room.
    dialog.show()
    qtbot.waitExposed(dialog)
    rows = dialog.disagreements
    assert rows.rowCount() == 1
    assert dialog.statistics.height() < 3 * dialog.statistics.rowHeight(0) + 40
    assert rows.viewport().height() >= 3 * rows.rowHeight(0)
