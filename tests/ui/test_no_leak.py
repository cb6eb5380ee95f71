"""The window never shows one corpus's data while another is current.

Two corpora of a kind are opened; on the first (A) the user does everything the window
offers; switched to the second (B), every string the widget tree holds (labels, line
edits, buttons, combo boxes, item views, chart titles and axes, the status bar) is
searched for A's sentences and for what the user typed on A. Switched back, what A
showed is shown again. The walk is the test, so a view added later is covered too.
"""

from __future__ import annotations

import re

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
)

from sentspace.app.corpora import load_corpus
from sentspace.app.ui.window.main_window import MainWindow
from tests.ui.conftest import open_and_wait, run_and_wait, settle, wait_for_job

#: Rows read from each item view: enough to hold what a view lists at once.
ROWS_READ = 300
#: Shorter texts are not told apart from words any corpus has.
SHORTEST_TEXT = 25


def _model_strings(model, parent=QModelIndex(), depth=0) -> list[str]:
    try:
        columns = model.columnCount(parent)
    except TypeError:  # a list model's columnCount is private to PySide
        columns = 1
    found = []
    for column in range(columns):
        found.append(str(model.headerData(column, Qt.Orientation.Horizontal) or ""))
    for row in range(min(model.rowCount(parent), ROWS_READ)):
        for column in range(columns):
            index = model.index(row, column, parent)
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                value = model.data(index, role)
                if isinstance(value, str):
                    found.append(value)
        child = model.index(row, 0, parent)
        if depth < 3 and columns > 1 and model.rowCount(child) > 0:
            found += _model_strings(model, child, depth + 1)
    return found


def shown_strings(window: MainWindow) -> dict[str, list[str]]:
    """Every string the window's widgets hold, by the widget's class and name."""
    strings: dict[str, list[str]] = {}

    def keep(widget, values) -> None:
        named = widget
        while named is not None and not (named.objectName() or named.accessibleName()):
            named = named.parentWidget()  # a header or viewport: its view's name
        label = (named.objectName() or named.accessibleName()) if named is not None else ""
        name = f"{type(widget).__name__}:{label}"
        strings.setdefault(name, []).extend(v for v in values if v)

    for widget in [
        window,
        *window.findChildren(QLabel),
        *window.findChildren(QLineEdit),
        *window.findChildren(QAbstractButton),
        *window.findChildren(QComboBox),
        *window.findChildren(QAbstractItemView),
        *window.findChildren(QTextEdit),
        *window.findChildren(QPlainTextEdit),
        *window.findChildren(pg.PlotWidget),
    ]:
        if isinstance(widget, QLabel):
            keep(widget, [widget.text(), widget.toolTip()])
        elif isinstance(widget, QLineEdit):
            keep(widget, [widget.text()])
        elif isinstance(widget, QAbstractButton):
            keep(widget, [widget.text(), widget.toolTip()])
        elif isinstance(widget, QComboBox):
            keep(widget, [widget.itemText(i) for i in range(widget.count())])
        elif isinstance(widget, QAbstractItemView):
            if widget.model() is not None:
                keep(widget, _model_strings(widget.model()))
        elif isinstance(widget, (QTextEdit, QPlainTextEdit)):
            keep(widget, [widget.toPlainText()])
        elif isinstance(widget, pg.PlotWidget):
            item = widget.getPlotItem()
            keep(
                widget,
                [
                    item.titleLabel.text,
                    *(item.getAxis(side).labelText for side in ("left", "bottom")),
                ],
            )
    keep(window.statusBar(), [window.statusBar().currentMessage()])
    return strings


def leaks(strings: dict[str, list[str]], markers: set[str]) -> list[tuple[str, str]]:
    """(widget, string) for each string holding one of ``markers``."""
    long_markers = [m for m in markers if len(m) >= SHORTEST_TEXT]
    found = []
    for widget, values in strings.items():
        for value in values:
            if value in markers or any(marker in value for marker in long_markers):
                found.append((widget, value[:120]))
    return found


def word_only_in(a_texts, b_texts) -> str:
    """A long word of A's sentences that no sentence of B holds as written (to search
    and filter with, and find if it leaks)."""
    b_text = "\n".join(b_texts)
    words = sorted(
        {
            w
            for w in re.findall(r"\w{7,}", " ".join(a_texts[:200]))
            if w not in b_text and not w.isdigit()
        }
    )
    return words[0]


def do_everything(qtbot, window, evaluation: str, word: str) -> None:
    """On the corpus shown: run, evaluate (with its chart), explain a pair, compare,
    query the neighbours, search, filter the corpus table, find regions and the
    suspicious annotations (where it has groups); Costra's tab where it applies."""
    run_and_wait(qtbot, window)
    window.evaluate(evaluation)
    wait_for_job(qtbot, window)
    window.selection.select([0, 1], focus=0, source="chart")
    window.explaining.explain()
    wait_for_job(qtbot, window)
    assert window.explaining.view.explanation is not None
    window.analyses.compare_spaces()
    wait_for_job(qtbot, window)
    view = window.neighbours_view
    with qtbot.waitSignal(view.neighbours_found, timeout=30_000):
        view.query_sentence(2)
    window.projection.search.setText(word)
    window.views.setCurrentWidget(window.views.corpus_page)
    browser = window.views.corpus_browser
    qtbot.waitUntil(lambda: browser._haystack is not None, timeout=30_000)
    browser.filter_box.setText(word)
    browser.apply_filter()
    qtbot.waitUntil(lambda: browser.model.rowCount() < len(window.corpus), timeout=30_000)
    if window.corpus.groups is not None:
        window.regioning.find_action.trigger()
        wait_for_job(qtbot, window)
        window.analyses.find_suspicious()
        wait_for_job(qtbot, window)
        window.review_panel.filter.setText(word)
    if window.views.isTabEnabled(1):
        window.views.setCurrentIndex(1)
        settle(qtbot, window)
        assert window.views.costra_view.result is not None
    window.views.setCurrentIndex(0)
    settle(qtbot, window)


def upper_cased_costra(shared_data, folder):
    """A second Costra: the same file with every sentence upper-cased (another corpus
    whose texts hold none of the first's)."""
    rows = []
    for line in (shared_data / "costra" / "data.tsv").read_text("utf-8").splitlines():
        cells = line.split("\t")
        cells[3], cells[4] = cells[3].upper(), cells[4].upper()
        rows.append("\t".join(cells))
    path = folder / "costra-upper" / "data.tsv"
    path.parent.mkdir()
    path.write_text("\n".join(rows) + "\n", "utf-8")
    return path


@pytest.mark.parametrize("kind", ["grouped and pairs", "two costra"])
def test_no_string_of_one_corpus_is_shown_on_another(qtbot, shared_data, tmp_path, kind):
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 800)
    window.show()
    if kind == "grouped and pairs":
        a, evaluation = open_and_wait(qtbot, window, "msrp-grouped"), "classification"
        window.corpus_panel.choose("tfidf")
        b = str(shared_data / "sick" / "SICK_trial.txt")
    else:
        a, evaluation = open_and_wait(qtbot, window, "costra"), "costra"
        window.corpus_panel.choose("bow")
        b = str(upper_cased_costra(shared_data, tmp_path))
    a_corpus, b_corpus = window.corpus, load_corpus(b)
    word = word_only_in(a_corpus.texts, b_corpus.texts)
    do_everything(qtbot, window, evaluation, word)
    on_a = shown_strings(window)
    open_and_wait(qtbot, window, b)

    b_texts = set(b_corpus.texts)
    markers = {text for text in a_corpus.texts if text not in b_texts} | {word}
    assert leaks(on_a, markers), "the walk must see A's own strings while A is shown"
    settle(qtbot, window)
    assert leaks(shown_strings(window), markers) == []

    # B's own work leaves A whole: switched back, A shows what it showed.
    window.run()
    wait_for_job(qtbot, window)
    window.showing.switch_corpus(a)
    settle(qtbot, window)
    # The neighbours tab asks A's query again of A's spaces, and the corpus table
    # filters A's sentences again, each in a job of its own.
    qtbot.waitUntil(lambda: not window.neighbours_view.is_running, timeout=30_000)
    browser = window.views.corpus_browser
    qtbot.waitUntil(lambda: browser.model.rowCount() < len(a_corpus), timeout=30_000)
    again = shown_strings(window)
    for widget, values in on_a.items():
        if widget.startswith(("QStatusBar", "JobsPanel", "QTreeWidget:jobs")):
            continue  # what the window is doing, not what the corpus holds
        lost = set(values) - set(again.get(widget, []))
        lost = {value for value in lost if leaks({widget: [value]}, markers)}
        assert not lost, f"{widget} lost {sorted(lost)[:3]}"
    assert window.projection.search.text() == word
    assert window.views.corpus_browser.filter_box.text() == word
    assert window.explaining.view.explanation is not None
    assert window.review_panel.filter.text() == (word if a_corpus.groups is not None else "")
    window.showing.switch_corpus(b)
    settle(qtbot, window)
    assert leaks(shown_strings(window), markers) == []
