"""The review panel: lists, sorting, filtering, selection signals and edits."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.suspicious import find_suspicious
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.jobs import run_job
from sentspace.app.base.palette import CATEGORICAL
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.sick import load_sick
from sentspace.app.ui.panels.review_panel import ReviewPanel
from sentspace.app.ui.panels.review_table import SORT_ROLE, author_tint
from sentspace.models import make_encoder


@pytest.fixture(scope="module")
def msrp_lists():
    corpus = load_corpus("msrp-grouped")
    embeddings = {"bow": run_job(encode_corpus(corpus, make_encoder("bow")))}
    return corpus, find_suspicious(corpus, embeddings)


@pytest.fixture
def panel(qtbot, msrp_lists, tmp_path):
    corpus, lists = msrp_lists
    widget = ReviewPanel()
    qtbot.addWidget(widget)
    session = AnnotationSession.open(corpus, tmp_path / "edits.jsonl", author="ann")
    widget.set_session(session)
    widget.set_lists(lists)
    widget.show()
    yield widget
    session.close()


def column(panel, header):
    """The values of a column in view order."""
    col = panel.model.headers.index(header)
    return [panel.proxy.index(row, col).data(SORT_ROLE) for row in range(panel.proxy.rowCount())]


def test_lists_are_sorted_by_score_and_sortable(panel):
    assert [panel.kind.itemData(i) for i in range(panel.kind.count())] == [
        "misgrouped",
        "split",
        "merge",
    ]
    assert panel.kind.itemText(0) == "Sentences nearer another group (859)"
    shares = column(panel, "share outside")
    assert shares[0] == 1.0 and shares == sorted(shares, reverse=True)
    panel.table.sortByColumn(
        panel.model.headers.index("cos own group"), Qt.SortOrder.AscendingOrder
    )
    own = column(panel, "cos own group")
    assert own == sorted(own)
    panel.show_kind("split")
    z = column(panel, "z")
    assert z == sorted(z) and z[0] == pytest.approx(-3.5285, abs=1e-4)


def test_clicking_a_row_selects_its_sentences(panel, qtbot):
    many, one = [], []
    panel.sentences_selected.connect(many.append)
    panel.sentence_selected.connect(one.append)
    panel.select_row(0)
    items = panel.current_list
    assert many == [one] == [[int(items.sentence[0])]]
    assert "nearest neighbours" in panel.why.text()
    panel.show_kind("merge")
    with qtbot.waitSignal(panel.sentences_selected) as blocker:
        panel.select_row(0)
    merge = panel.current_list
    groups = panel.current_list.corpus.groups
    assert sorted(blocker.args[0]) == sorted(  # the members of both groups
        [*groups.members(merge.first[0]), *groups.members(merge.second[0])]
    )


def test_filter_and_hide_reviewed(panel):
    panel.filter.setText("Rehnquist")
    shown = panel.proxy.rowCount()
    assert 0 < shown < 859
    assert all("rehnquist" in text.lower() for text in column(panel, "sentence"))
    panel.select_row(0)
    assert panel.mark_selected_reviewed()
    panel.hide_reviewed.setChecked(True)
    assert panel.proxy.rowCount() == shown - 1
    panel.hide_reviewed.setChecked(False)
    assert panel.proxy.rowCount() == shown


def test_move_undo_redo_emit_corpus_changed_and_journal(panel, qtbot):
    session = panel.session
    panel.select_row(0)
    row = panel.selected_row()
    items = panel.current_list
    sentence = int(items.sentence[row])
    likely = items.corpus.groups.names[items.likely_group[row]]
    with qtbot.waitSignal(panel.corpus_changed):
        assert panel.move_selected(likely, reason="neighbours agree")
    assert session.group_names_of(sentence) == [likely]
    assert panel.buttons["undo"].isEnabled() and not panel.buttons["redo"].isEnabled()
    with qtbot.waitSignal(panel.corpus_changed):
        assert panel.undo()
    assert session.group_names_of(sentence) == [items.corpus.groups.names[items.group[row]]]
    assert panel.buttons["redo"].isEnabled()
    assert panel.redo() and session.group_names_of(sentence) == [likely]
    assert "Redone: move" in panel.status.text()
    ops = [
        line.split('"op": "')[1].split('"')[0]
        for line in session.journal.path.read_text().splitlines()[1:]
    ]
    assert ops == ["move", "undo", "redo"]
    assert not panel.buttons["merge"].isEnabled()  # not a list of group pairs


def test_new_group_merge_note_and_rejection(panel):
    session = panel.session
    panel.show_kind("split")
    panel.select_row(0)
    items, row = panel.current_list, panel.selected_row()
    assert panel.new_group(reason="off topic")
    assert session.group_names_of(int(items.outlier[row])) == ["274"]
    panel.show_kind("merge")
    panel.select_row(0)
    assert panel.merge_selected()
    assert session.corpus.groups.n_groups == 274  # one new, one merged away
    assert panel.note_selected("same story") and "Note: same story" not in panel.why.text()
    panel.select_row(1)
    panel.select_row(0)
    assert "Note: same story" in panel.why.text()
    # The merged group no longer exists: merging it again is refused with a reason.
    assert not panel.merge_selected()
    assert "Not applied" in panel.status.text()


def sick_review(qtbot, tmp_path, shared_data):
    """A review panel of SICK's suspicious pairs by bow, editing a journal of its own;
    (SICK, panel, session)."""
    sick = load_sick(shared_data / "sick")
    embeddings = {"bow": run_job(encode_corpus(sick, make_encoder("bow")))}
    widget = ReviewPanel()
    qtbot.addWidget(widget)
    session = AnnotationSession.open(sick, tmp_path / "edits.jsonl")
    widget.set_session(session)
    widget.set_lists(find_suspicious(sick, embeddings))
    return sick, widget, session


def test_edit_a_gold_score(qtbot, tmp_path, shared_data):
    sick, widget, session = sick_review(qtbot, tmp_path, shared_data)
    widget.select_row(0)
    pair = int(widget.current_list.pair[widget.selected_row()])
    assert widget.buttons["score"].isEnabled() and not widget.buttons["move"].isEnabled()
    assert widget.edit_selected_pair(2.0, reason="not a paraphrase")
    assert session.corpus.pairs.score[pair] == 2.0 and np.isnan(sick.pairs.score).sum() == 0
    session.close()


def test_pair_dialog_shows_the_pair_and_its_reason_reaches_the_change_log(
    qtbot, tmp_path, shared_data
):
    from PySide6.QtWidgets import QDialogButtonBox

    from sentspace.app.annotations.export import change_log

    sick, widget, session = sick_review(qtbot, tmp_path, shared_data)
    widget.show()
    widget.select_row(0)
    pair = int(widget.current_list.pair[widget.selected_row()])
    pairs = sick.pairs
    qtbot.mouseClick(widget.buttons["score"], Qt.MouseButton.LeftButton)
    dialog = widget.pair_dialog
    qtbot.waitUntil(dialog.isVisible)
    shown = dialog.shown.text()
    for sentence in (pairs.first[pair], pairs.second[pair]):
        assert sick.ids[sentence] in shown
    old_label = pairs.label_text(int(pairs.label[pair]))
    assert f"Now: score {pairs.score[pair]:g}, label {old_label}" in shown
    assert dialog.windowTitle() == f"Edit pair {pairs.ids[pair]}"
    assert [dialog.label.itemText(i) for i in range(3)] == [
        "CONTRADICTION",
        "NEUTRAL",
        "ENTAILMENT",
    ]
    down = int(pairs.label[pair]) < 2
    new_label = int(pairs.label[pair]) + (1 if down else -1)
    qtbot.keyClick(dialog.label, Qt.Key.Key_Down if down else Qt.Key.Key_Up)
    qtbot.keyClicks(dialog.reason, "annotator misread B")
    qtbot.mouseClick(
        dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton
    )
    assert session.corpus.pairs.label[pair] == new_label
    assert session.corpus.pairs.score[pair] == pairs.score[pair]  # untouched
    (entry,) = change_log(session.edits)
    assert entry["reason"] == "annotator misread B"
    assert entry["what"] == (
        f"pair {pairs.ids[pair]}: label {old_label} -> {pairs.label_names[new_label]}"
    )
    session.close()


def test_tables_found_exactly_say_nothing_of_their_search(panel):
    assert panel.search_note.isHidden() and not panel.search_note.text()


def test_tables_found_approximately_say_so_with_their_recall(qtbot, msrp_lists, monkeypatch):
    import sentspace.app.analysis.ann

    corpus, _ = msrp_lists
    monkeypatch.setattr(
        sentspace.app.analysis.ann, "EXACT_LIMIT", 200
    )  # an index on the 859 sentences
    dense = run_job(encode_corpus(corpus, make_encoder("bow"))).toarray()
    lists = find_suspicious(corpus, {"bow": dense})
    widget = ReviewPanel()
    qtbot.addWidget(widget)
    widget.set_lists(lists)
    search = lists["misgrouped"].searches[0]
    assert search.approximate
    assert not widget.search_note.isHidden()
    assert f"bow: {search.describe()}" in widget.search_note.text()
    assert "recall@" in widget.search_note.text()


def test_a_review_mark_says_no_recompute_and_tints_its_row_palely(panel):
    """Marking a row reviewed changes no list, so the panel does not ask to recompute
    (a move does); the row is tinted by its author, pale for every author's colour, so
    it does not read as the selection."""
    panel.select_row(0)
    assert panel.mark_selected_reviewed()
    assert panel.status.text().startswith("Done: reviewed sentence:")
    assert "Recompute" not in panel.status.text()
    panel.select_row(1)
    row = panel.selected_row()
    items = panel.current_list
    assert panel.move_selected(items.corpus.groups.names[items.likely_group[row]])
    assert "Recompute to refresh them" in panel.status.text()
    tint = panel.model.data(panel.model.index(0, 0), Qt.ItemDataRole.BackgroundRole)
    assert tint == author_tint(CATEGORICAL[0])
    selection = panel.table.palette().highlight().color()
    for colour in CATEGORICAL:
        pale = author_tint(colour)
        assert pale.lightnessF() > 0.85
        assert pale.lightnessF() - selection.lightnessF() > 0.25


def test_clicking_a_wide_sentence_keeps_the_rank_in_view(panel, qtbot):
    panel.resize(420, 500)
    qtbot.waitExposed(panel)
    bar = panel.table.horizontalScrollBar()
    assert bar.maximum() > 0  # the sentence column overflows
    sentence = panel.model.headers.index("sentence")
    cell = panel.table.visualRect(panel.proxy.index(3, sentence)).center()
    qtbot.mouseClick(panel.table.viewport(), Qt.MouseButton.LeftButton, pos=cell)
    # Qt scrolls to a clicked cell a double-click interval after the press.
    qtbot.wait(QApplication.doubleClickInterval() + 300)
    assert panel.table.selectionModel().selectedRows()[0].row() == 3
    assert bar.value() == 0
