"""Explain similarity (Ctrl+E) from the window, with the mouse: the two sentences of a
clicked chart point, a neighbours row; a word chip searches the corpus for its word."""

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import (
    LEFT,
    click_row,
    costra_shown,
    run_and_wait,
    settle,
    sick_pair_clicked,
    wait_for_job,
)


def cosine(embeddings, a, b):
    x, y = (
        np.asarray(
            embeddings[[i]].todense() if hasattr(embeddings, "todense") else embeddings[[i]],
            dtype=np.float64,
        ).ravel()
        for i in (a, b)
    )
    return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))


def test_explain_two_clicked_sentences_and_a_neighbours_row(qtbot, window, shared_data):
    action = window.explaining.action
    assert not action.isEnabled()
    sick_pair_clicked(qtbot, window, shared_data)  # a chart point: its pair's two sentences
    assert len(window.selection.indices) == 2
    focus = window.selection.focus
    other = int(window.selection.indices[window.selection.indices != focus][0])
    assert action.isEnabled()

    width = window.width()
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    wait_for_job(qtbot, window)
    explanation = window.explaining.view.explanation
    assert window.tasks.currentWidget() is window.explaining.page
    # Rows of word chips scroll; they never widen the window.
    assert window.width() == width
    texts = window.corpus.texts
    assert explanation.texts == (texts[focus], texts[other])
    assert explanation.provenance.encoder_name == window.exploration.encoder.name
    # TF-IDF is additive: the words' parts sum to the cosine of the run's embeddings.
    embeddings = window.exploration.embeddings
    assert explanation.cosine == pytest.approx(cosine(embeddings, focus, other), abs=1e-5)
    assert explanation.contribution_a.sum() == pytest.approx(explanation.cosine, abs=1e-5)

    # A word chip searches the corpus for that word.
    chip = max(window.explaining.view.chips[0], key=lambda c: len(c.word))
    qtbot.mouseClick(chip, LEFT)
    assert window.selection.source == "search"
    found = window.selection.indices
    assert focus in found
    assert all(chip.word.lower() in texts[i].lower() for i in found)

    # A neighbours row: the query and the clicked neighbour.
    window.views.setCurrentWidget(window.neighbours_view)
    with qtbot.waitSignal(window.neighbours_view.neighbours_found, timeout=20_000):
        window.select_sentence(focus)
    table = window.neighbours_view.columns[0].table
    neighbour = int(window.neighbours_view.columns[0].indices[1])
    click_row(qtbot, table, 1, column=3)
    qtbot.waitUntil(lambda: window.selection.source == "neighbours")
    assert action.isEnabled()
    assert window.explaining.pair() == (texts[focus], texts[neighbour])
    action.trigger()
    wait_for_job(qtbot, window)
    assert window.explaining.view.explanation.texts == (texts[focus], texts[neighbour])


def test_explain_the_last_two_points_clicked(qtbot, window):
    """A click in msrp-grouped's projection selects a whole group (three or more):
    the pair is the last two sentences clicked."""
    run_and_wait(qtbot, window)
    settle(qtbot, window)
    view, corpus = window.projection, window.corpus
    first, second = (int(i) for i in window.exploration.classification.misclassified[:2])
    clicked = []
    for index in (first, second):
        with qtbot.waitSignal(view.clicked, timeout=2000) as signal:
            qtbot.mouseClick(
                view.plot.viewport(), LEFT, pos=view.plot.mapFromScene(view.scene_position(index))
            )
        clicked.append(signal.args[0])
        qtbot.wait(10)
    assert len(window.selection.indices) > 2
    assert window.explaining.pair() == (corpus.texts[clicked[0]], corpus.texts[clicked[1]])
    window.explaining.action.trigger()
    wait_for_job(qtbot, window)
    assert window.explaining.view.explanation.texts == (
        corpus.texts[clicked[0]],
        corpus.texts[clicked[1]],
    )


def test_explain_a_costra_comparison(qtbot, window):
    """A clicked Costra comparison is explained by its more-similar pair."""
    view = costra_shown(qtbot, window)
    click_row(qtbot, view.table, 0)
    k = int(view.table.model().index(0, 0).data(Qt.ItemDataRole.UserRole))
    first, second = window.costra_result.comparisons.more_similar[k]
    texts = window.corpus.texts
    assert window.selection.source == "costra" and window.explaining.action.isEnabled()
    window.explaining.action.trigger()
    wait_for_job(qtbot, window)
    assert window.explaining.view.explanation.texts == (texts[int(first)], texts[int(second)])
