"""The window items of issue 42 left after the first pass: the Review table at 1280x800
(item 6), the colour bar, the Across-encoders command (item 11) and a grouped corpus's
colouring and Filter charts (item 12)."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QStyle

from tests.ui.conftest import (
    evaluate_and_wait,
    open_and_wait,
    open_sick,
    run_and_wait,
    settle,
    wait_for_job,
)
from tests.ui.test_layout import shown_at_1280x800


def test_the_review_table_shows_whole_sentences_and_headings_at_1280(qtbot, window):
    shown_at_1280x800(qtbot, window)
    run_and_wait(qtbot, window)
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    review = window.review_panel
    window.tasks.setCurrentWidget(review)
    qtbot.wait(50)
    table, header, headers = review.table, review.table.horizontalHeader(), review.model.headers
    sentence = headers.index("sentence")
    in_view = [
        column
        for column in range(len(headers))
        if not table.isColumnHidden(column)
        and header.sectionViewportPosition(column) + header.sectionSize(column)
        <= table.viewport().width()
    ]
    # The sentence takes the width the rank and the two explaining columns leave.
    assert [headers[c] for c in sorted(in_view, key=header.visualIndex)] == [
        "rank",
        "sentence",
        "paraphrase group",
        "share outside",
    ]
    assert header.sectionSize(sentence) >= 150  # was a third of the table, 120 px
    used = sum(header.sectionSize(column) for column in in_view)
    assert table.viewport().width() - used < 20
    # Each heading in view whole, on its lines (it was cut to "paraphras…").
    margin = table.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin)
    metrics = header.fontMetrics()
    for column in in_view:
        shown = str(table.model().headerData(column, Qt.Orientation.Horizontal))
        assert "…" not in shown
        widest = max(metrics.horizontalAdvance(line) for line in shown.split("\n"))
        assert widest + 2 * margin <= header.sectionSize(column), shown
        tooltip = table.model().headerData(
            column, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole
        )
        assert tooltip == headers[column]
    assert "paraphrase\ngroup" in table.model().headerData(
        headers.index("paraphrase group"), Qt.Orientation.Horizontal
    )
    # Each sentence in view wraps whole: its row as tall as its text needs.
    qtbot.waitUntil(lambda: table.rowHeight(0) > table.verticalHeader().defaultSectionSize())
    last = table.rowAt(table.viewport().height() - 1)
    for row in range(table.rowAt(0), last + 1):
        assert table.rowHeight(row) >= table.sizeHintForRow(row) > 2 * metrics.height()
    # Under the table the line says what to do, not a blank of three lines.
    assert review.why.text().startswith("Choose a row")
    # Sorting by another column moves the arrow into that heading, whole there too.
    share = headers.index("share outside")
    table.sortByColumn(share, Qt.SortOrder.AscendingOrder)
    shown = str(table.model().headerData(share, Qt.Orientation.Horizontal))
    assert shown.endswith("▾") or "▾\n" in shown
    assert "▾" not in str(table.model().headerData(0, Qt.Orientation.Horizontal))
    widest = max(metrics.horizontalAdvance(line) for line in shown.split("\n"))
    assert widest + 2 * margin <= header.sectionSize(share)


def colour_bar_reads_apart(bar) -> bool:
    """The colour bar's title beside the bar (not over it) and its values shown."""
    title = bar.getAxis("left").label.sceneBoundingRect()
    colours = bar.bar.sceneBoundingRect()
    values = bar.getAxis("right")
    return (
        title.right() <= colours.left()
        and abs(title.center().y() - colours.center().y()) < 5
        and values.width() > 20
    )


def test_the_colour_bar_keeps_its_title_beside_it_after_a_switch(qtbot, window, shared_data):
    shown_at_1280x800(qtbot, window)
    combo = window.corpus_panel.projection_controls.colour
    run_and_wait(qtbot, window)
    combo.setCurrentIndex(combo.findData("words"))
    settle(qtbot, window)
    bar = window.projection.colour_bar
    qtbot.waitUntil(lambda: colour_bar_reads_apart(bar), timeout=3000)
    open_sick(qtbot, window, shared_data)  # coloured by its pairs' label: no bar
    run_and_wait(qtbot, window)
    assert not bar.isVisible()
    combo.setCurrentIndex(combo.findData("gold_score"))
    settle(qtbot, window)
    assert bar.getAxis("left").labelText == "Gold score (mean of its pairs)"
    qtbot.waitUntil(lambda: colour_bar_reads_apart(bar), timeout=3000)  # no values were shown
    window.showing.switch_corpus("msrp-grouped")
    settle(qtbot, window)
    assert bar.getAxis("left").labelText == "Words"
    qtbot.waitUntil(lambda: colour_bar_reads_apart(bar), timeout=3000)  # "Words" sat over it


def test_the_across_encoders_command_shows_its_both_ends_and_copies_whole(qtbot, window):
    shown_at_1280x800(qtbot, window)
    run_and_wait(qtbot, window)
    window.corpus_panel.choose("tfidf")
    evaluate_and_wait(qtbot, window, "classification")
    panel = window.evaluation_panel
    window.tasks.setCurrentWidget(panel)
    panel.charts.setCurrentWidget(panel.comparison_page)
    settle(qtbot, window)
    line = panel.comparison_command
    command = "sentspace eval classification --corpus msrp-grouped"
    assert line.text().startswith(command)
    assert line.text().endswith("--encoder bow --encoder tfidf --seed 0")
    # What runs and on which encoders both in view (cut to "sentspace eval clas" before).
    shown = line.shown_text()
    start, _, end = shown.partition("…")
    assert line.text().startswith(start) and line.text().endswith(end)
    assert start.startswith("sentspace eval classif") and end.endswith("tfidf --seed 0")
    assert line.toolTip() == line.text()
    QGuiApplication.clipboard().clear()
    qtbot.mouseClick(panel.copy_command_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == line.text()
    assert panel.comparison.height() >= panel.comparison.minimumHeight()


def test_multi30k_opens_coloured_by_its_groups_with_group_charts_to_filter(qtbot, window):
    """Its 1,014 groups of five captions: the guide says a new corpus starts at its
    groups; Multi30K opened coloured by Words, and its Filter tab had neither chart."""
    shown_at_1280x800(qtbot, window)
    open_and_wait(qtbot, window, "multi30k-captions:en:val")
    assert len(window.corpus) == 5070 and len(window.corpus.groups.names) == 1014
    combo = window.corpus_panel.projection_controls.colour
    assert combo.currentData() == "paraphrase_group"
    panel = window.filter_panel
    window.tasks.setCurrentWidget(panel)
    settle(qtbot, window)
    assert {"Paraphrase group", "Group size"} <= set(panel.charts)
    assert all(panel.charts[title].isVisible() for title in ("Paraphrase group", "Group size"))
    assert "Image" not in panel.charts  # ten images of 5 beside "(other 1,004)"
    # A bar of the group chart keeps its five captions.
    group = window.corpus.groups.names[0]
    panel.expression.setText(f'paraphrase_group == "{group}"')
    panel.expression.returnPressed.emit()
    assert "<b>5</b> of 5,070 sentences pass" in panel.count.text()


def test_a_pair_list_shows_both_sentences_whole_at_1280(qtbot, window, shared_data):
    shown_at_1280x800(qtbot, window)
    open_sick(qtbot, window, shared_data, encoder="bow")
    run_and_wait(qtbot, window)
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    review = window.review_panel
    window.tasks.setCurrentWidget(review)
    review.show_kind("gold")
    qtbot.wait(50)
    table, header, headers = review.table, review.table.horizontalHeader(), review.model.headers
    first, second = headers.index("first"), headers.index("second")
    # Both sentences in view (the second was past the edge, each at 160 px).
    assert header.sectionViewportPosition(second) + header.sectionSize(second) <= (
        table.viewport().width()
    )
    assert header.sectionSize(first) == header.sectionSize(second) >= 100
    qtbot.waitUntil(lambda: table.rowHeight(0) > table.verticalHeader().defaultSectionSize())
    for row in range(table.rowAt(0), table.rowAt(table.viewport().height() - 1) + 1):
        assert table.rowHeight(row) >= table.sizeHintForRow(row)
