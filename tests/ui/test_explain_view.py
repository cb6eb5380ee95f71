"""The explanation view on a real SICK pair: shading, legend, pairs, and word clicks."""

import pytest
from PySide6.QtCore import Qt

from sentspace.app.analysis.explain import explain_pair
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.ui.views.explain_view import ExplainView, diverging_colour
from sentspace.models import make_encoder


@pytest.fixture(scope="module")
def explanation(shared_data):
    sick = load_corpus(shared_data / "sick")
    a, b = sick.texts[sick.pairs.first[0]], sick.texts[sick.pairs.second[0]]
    return run_job(explain_pair(a, b, make_encoder("tfidf").fit(sick.texts), corpus=sick))


def test_words_are_shaded_by_contribution_and_clickable(qtbot, explanation):
    view = ExplainView()
    qtbot.addWidget(view)
    view.set_explanation(explanation)
    view.show()
    qtbot.waitExposed(view)
    assert f"{explanation.cosine:.4f}" in view.heading.text()
    assert [chip.word for chip in view.chips[0]] == list(explanation.tokens_a)
    best_word, best = explanation.top_words(0, 1)[0]
    chip = next(chip for chip in view.chips[0] if chip.word == best_word)
    assert diverging_colour(best, best) in chip.styleSheet()  # full red
    unshared = next(c for c in view.chips[0] if c.value == 0)
    assert "#ffffff" in unshared.styleSheet()
    assert view.pairs.rowCount() == len(explanation.top_pairs(10)) > 0
    assert view.pairs.item(0, 0).text() == explanation.top_pairs(1)[0][0]
    with qtbot.waitSignal(view.word_clicked) as signal:
        qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)
    assert signal.args == [best_word]
    # A second explanation replaces the chips.
    view.set_explanation(explanation)
    assert len(view.chips[1]) == len(explanation.tokens_b)


def test_diverging_scale():
    assert diverging_colour(0.0, 1.0) == "#ffffff"
    assert diverging_colour(2.0, 1.0) == "#b2182b"
    assert diverging_colour(-1.0, 1.0) == "#2166ac"
    assert diverging_colour(0.5, 0.0) == "#ffffff"


def test_a_long_sentence_wraps_its_words_instead_of_scrolling_sideways(qtbot, shared_data):
    from PySide6.QtWidgets import QScrollArea

    sick = load_corpus(shared_data / "sick")
    longest = max(range(len(sick)), key=lambda i: len(sick.texts[i]))
    text = sick.texts[longest]
    explanation = run_job(
        explain_pair(text, text + " " + text, make_encoder("tfidf").fit(sick.texts), corpus=sick)
    )
    view = ExplainView()
    page = QScrollArea()  # as the Explain tab holds it
    page.setWidget(view)
    page.setWidgetResizable(True)
    qtbot.addWidget(page)
    page.resize(340, 600)  # the tasks panel at 1280x800
    page.show()
    view.set_explanation(explanation)
    qtbot.waitExposed(page)
    qtbot.wait(50)
    chips = view.chips[1]
    assert len(chips) > 30
    assert not page.horizontalScrollBar().isVisible()
    assert all(chip.geometry().right() < view.width() for chip in chips)
    assert len({chip.y() for chip in chips}) >= 4  # on several lines
    # The lines take the height they need: the word pairs come after the last chip.
    last = max(chip.mapTo(view, chip.rect().bottomLeft()).y() for chip in chips)
    assert view.legend.y() > last
