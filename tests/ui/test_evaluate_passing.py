"""Evaluating only the sentences that pass the corpus's filter, from the Evaluations
panel: offered once a filter is set (for evaluations of items), the result's line and
heading say which sentences, its bars across encoders are of the same sentences, and
its command carries the filter (that command's numbers: tests/test_commands.py)."""

import numpy as np
from PySide6.QtCore import Qt

from sentspace.app.analysis.filters import Range
from tests.ui.conftest import evaluation_chosen, wait_for_job


def test_relatedness_of_the_sentences_a_brush_keeps(qtbot, shared_data):
    window, panel = evaluation_chosen(
        qtbot, shared_data / "sick" / "SICK_trial.txt", "bow", "relatedness"
    )
    box = panel.only_passing
    assert not box.isEnabled() and box.toolTip() == "The corpus has no filter"
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    wait_for_job(qtbot, window)
    assert "where" not in panel.current[1].provenance.parameters

    # A brush over 5 to 8 words in the Filter panel, as a drag sends it.
    window.tasks.setCurrentWidget(window.filter_panel)
    window.filter_panel.charts["Words"].brush(4.7, 8.2)
    session = window.session
    qtbot.waitUntil(lambda: session.current.filter.conditions == (Range("Words", 5, 8),))
    window.tasks.setCurrentWidget(panel)
    assert box.isEnabled() and box.toolTip().endswith("where 5 <= words <= 8")
    panel.choice.setCurrentIndex(panel.choice.findData("transfer"))
    assert not box.isEnabled() and "transfer" in box.toolTip()
    panel.choice.setCurrentIndex(panel.choice.findData("relatedness"))
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    wait_for_job(qtbot, window)

    evaluation, result, command = panel.current
    corpus, pairs = window.corpus, window.corpus.pairs
    words = np.array([len(text.split()) for text in corpus.texts])
    short = (words >= 5) & (words <= 8)
    assert result.pooled.n_pairs == np.count_nonzero(short[pairs.first] & short[pairs.second])
    # The line says what was evaluated: how many of how many pairs, and why.
    kept = f"{result.pooled.n_pairs} of {len(pairs)} scored pairs: where 5 <= words <= 8"
    assert panel.history.currentItem().text().endswith(f"· {kept} (both sentences pass)")
    assert panel.title.text().endswith(f", {kept} (both sentences pass)")
    # Its bars across encoders are of the same sentences: not the run of every one.
    assert panel.comparable_rows() == [1]
    assert command.endswith(" --seed 0 --similarity cosine --split auto --where '5 <= words <= 8'")
