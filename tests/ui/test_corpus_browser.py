import re

import numpy as np
import pytest
from PySide6.QtCore import Qt

from sentspace.app.corpora import load_corpus
from sentspace.app.ui.views.corpus_browser import CorpusBrowser
from tests.ui.conftest import JOB_TIMEOUT_MS, show_widget


@pytest.fixture(scope="module")
def msrp(shared_data):
    return load_corpus(shared_data / "msrp")


@pytest.fixture
def browser(qtbot):
    return show_widget(qtbot, CorpusBrowser(), (1200, 700))


def open_corpus(qtbot, browser, corpus):
    with qtbot.waitSignal(browser.stats_ready, timeout=JOB_TIMEOUT_MS):
        browser.set_corpus(corpus)


def shown(browser):
    return [
        browser.model.data(browser.model.index(row, 0), Qt.ItemDataRole.UserRole)
        for row in range(browser.model.rowCount())
    ]


def cell(browser, row, title):
    column = browser.model.titles.index(title)
    return browser.model.data(browser.model.index(row, column))


def test_grouped_msrp_lists_859_sentences_with_their_statistics(qtbot, browser, grouped):
    open_corpus(qtbot, browser, grouped)
    assert browser.model.rowCount() == 859
    assert browser.model.titles == ["#", "id", "text", "paraphrase group"]
    assert cell(browser, 0, "id") == grouped.ids[0]
    assert cell(browser, 0, "text") == grouped.texts[0]
    assert cell(browser, 0, "paraphrase group") == "0"
    assert browser.count.text() == "859 sentences"
    statistics = {
        browser.stats_table.item(r, 0).text(): browser.stats_table.item(r, 1).text()
        for r in range(browser.stats_table.rowCount())
    }
    assert statistics["sentences"] == "859"
    assert statistics["paraphrase groups"] == "274"
    assert browser.stats.vocabulary_size > 0
    assert not browser.size_chart.isHidden() and browser.overlap_chart.isHidden()
    assert browser.pairs_panel.isHidden()


def test_filter_nasdaq_keeps_the_matching_sentences(qtbot, browser, grouped):
    open_corpus(qtbot, browser, grouped)
    expected = [i for i, text in enumerate(grouped.texts) if "nasdaq" in text.lower()]
    assert len(expected) == 6
    with qtbot.waitSignal(browser.rows_shown, timeout=JOB_TIMEOUT_MS) as done:
        browser.filter_box.setText("Nasdaq")  # applied after a typing pause
    assert done.args == [6]
    assert shown(browser) == expected
    assert browser.count.text() == "6 of 859 sentences"
    # A regex across columns: ids L1-L9 exactly, or any text mentioning Nasdaq.
    browser.regex.setChecked(True)
    with qtbot.waitSignal(browser.rows_shown, timeout=JOB_TIMEOUT_MS):
        browser.filter_box.setText(r"^L\d\t|NASDAQ")
        browser.apply_filter()
    assert shown(browser) == sorted(set(range(9)) | set(expected))
    browser.filter_box.setText("(unclosed")
    browser.apply_filter()
    assert "valid regular expression" in browser.filter_box.toolTip()
    with qtbot.waitSignal(browser.rows_shown, timeout=JOB_TIMEOUT_MS):
        browser.filter_box.setText("")
        browser.apply_filter()
    assert browser.model.rowCount() == 859


def test_sort_by_group_and_by_id(qtbot, browser, grouped):
    open_corpus(qtbot, browser, grouped)
    column = browser.model.titles.index("paraphrase group")
    with qtbot.waitSignal(browser.rows_shown, timeout=JOB_TIMEOUT_MS):
        browser.table.horizontalHeader().setSortIndicator(column, Qt.SortOrder.DescendingOrder)
    first = grouped.groups.first_group(len(grouped))
    order = np.asarray(shown(browser))
    assert np.all(np.diff(first[order]) <= 0)
    assert cell(browser, 0, "paraphrase group") == grouped.groups.names[-1]
    with qtbot.waitSignal(browser.rows_shown, timeout=JOB_TIMEOUT_MS):
        browser.sort(browser.model.titles.index("id"), Qt.SortOrder.AscendingOrder)
    # Natural order of ids: L1, L2, ..., L10, not L1, L10, L100.
    ids = [cell(browser, row, "id") for row in range(3)]
    assert ids == ["L1", "L2", "L3"]


def test_selection_emits_and_select_scrolls_without_emitting(qtbot, browser, grouped):
    open_corpus(qtbot, browser, grouped)
    with qtbot.waitSignal(browser.sentence_selected) as chosen:
        rect = browser.table.visualRect(browser.model.index(4, 2))
        qtbot.mouseClick(browser.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert chosen.args == [4]
    with qtbot.assertNotEmitted(browser.sentence_selected):
        browser.select(700)
    assert browser.selected == 700
    assert browser.table.currentIndex().row() == browser.row_of(700)
    # Selecting a sentence the filter hides clears the filter.
    with qtbot.waitSignal(browser.rows_shown, timeout=JOB_TIMEOUT_MS):
        browser.filter_box.setText("Nasdaq")
    assert browser.row_of(10) == -1
    with qtbot.waitSignal(browser.rows_shown, timeout=JOB_TIMEOUT_MS):
        browser.select(10)
    assert browser.filter_box.text() == "" and browser.selected == 10
    assert browser.table.currentIndex().row() == browser.row_of(10) == 10


def test_msrp_pairs_of_a_sentence(qtbot, browser, msrp):
    open_corpus(qtbot, browser, msrp)
    assert browser.model.rowCount() == len(msrp) == 10944
    assert browser.model.titles[-1] == "pairs"
    assert not browser.overlap_chart.isHidden()
    assert browser.stats.overlap_basis == "label 1 vs label 0"
    pairs = msrp.pairs
    # The first training pair is a paraphrase.
    first, second = int(pairs.first[0]), int(pairs.second[0])
    assert pairs.label[0] == 1
    browser.select(first)
    expected = np.flatnonzero((pairs.first == first) | (pairs.second == first))
    assert browser.pairs.rowCount() == len(expected) >= 1
    assert cell(browser, browser.row_of(first), "pairs") == str(len(expected))
    rows = [browser.pair_row(r) for r in range(browser.pairs.rowCount())]
    assert ("paraphrase", "", "train", msrp.texts[second]) in rows
    assert re.search(rf"{len(expected)}</b> pairs? of sentence", browser.pairs_caption.text())
    # Clicking the pair selects its partner.
    row = [r[3] for r in rows].index(msrp.texts[second])
    with qtbot.waitSignal(browser.sentence_selected) as chosen:
        browser.pairs.cellClicked.emit(row, 3)
    assert chosen.args == [second]
    assert browser.selected == second
    # A sentence in several pairs lists every one, with its label and split.
    counts = np.bincount(np.concatenate([pairs.first, pairs.second]))
    busiest = int(np.argmax(counts))
    browser.select(busiest)
    assert browser.pairs.rowCount() == counts[busiest] > 1


def test_sick_labels_shown_as_words_after_an_edit(qtbot, browser, shared_data, tmp_path):
    from sentspace.app.annotations.session import AnnotationSession

    session = AnnotationSession.open(load_corpus(shared_data / "sick"), tmp_path / "j.jsonl")
    session.edit_pair(0, score=4.0)  # an edited corpus used to lose its label names
    sick = session.corpus
    open_corpus(qtbot, browser, sick)
    statistics = {
        browser.stats_table.item(r, 0).text(): browser.stats_table.item(r, 1).text()
        for r in range(browser.stats_table.rowCount())
    }
    assert statistics["pairs in split train"] == (
        "4,500 (CONTRADICTION 665, NEUTRAL 2,536, ENTAILMENT 1,299)"
    )
    # Click the row of "1A" (SICK pair 1, NEUTRAL) and of the first ENTAILMENT pair's A.
    entailment = int(np.flatnonzero(sick.pairs.label == 2)[0])
    for pair, word in ((0, "NEUTRAL"), (entailment, "ENTAILMENT")):
        sentence = int(sick.pairs.first[pair])
        index = browser.model.index(browser.row_of(sentence), 2)
        browser.table.scrollTo(index)
        rect = browser.table.visualRect(index)
        with qtbot.waitSignal(browser.sentence_selected):
            qtbot.mouseClick(browser.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        partner = sick.texts[int(sick.pairs.second[pair])]
        rows = [browser.pair_row(r) for r in range(browser.pairs.rowCount())]
        assert [r[0] for r in rows if r[3] == partner] == [word]
        row = [r[3] for r in rows].index(partner)
        assert browser.pairs.item(row, 0).toolTip() == f"pair {sick.pairs.ids[pair]}"
    session.close()


def test_group_size_ticks_do_not_overlap(qtbot, browser, shared_data):
    """Opinosis's 51 topics of 50 to 575 sentences fall in ranged bars: at the views'
    width at 1280x800 their tick labels stand apart ("50-92 93-136 ..." overlapped)."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QFontMetrics

    open_corpus(qtbot, browser, load_corpus(shared_data / "opinosis" / "topics"))
    browser.resize(500, 700)
    browser.pages.setCurrentIndex(1)
    qtbot.wait(100)
    chart = browser.size_chart
    axis = chart.getAxis("bottom")
    metrics = QFontMetrics(axis.style["tickFont"] or chart.font())
    spans = []
    for value, label in axis._tickLevels[0]:
        x = chart.getPlotItem().vb.mapViewToScene(QPointF(value, 0)).x()
        half = metrics.horizontalAdvance(label) / 2
        spans.append((x - half, x + half))
    assert len(spans) >= 10
    assert all(left[1] < right[0] for left, right in zip(spans, spans[1:]))
