"""Switching between open corpora shows each as it was left from the drawing kept for
it: no layout binned again, no Costra paths, chart or corpus statistics made again
(``bench/bench_responsiveness.py --switch`` times it)."""

from __future__ import annotations

import numpy as np

from sentspace.app.ui.views import projection_view
from tests.ui.conftest import (
    costra_shown,
    double_click_corpus,
    open_and_wait,
    run_and_wait,
    settle,
)


def test_switching_back_reuses_each_corpus_drawing(qtbot, window, shared_data, monkeypatch):
    # The density image, as a million points are drawn, for corpora of a few hundred.
    monkeypatch.setattr(projection_view, "POINT_LIMIT", 300)
    window.resize(1280, 800)
    run_and_wait(qtbot, window)
    msrp = window.session.current.spec
    window.views.setCurrentIndex(3)  # the Corpus table, with its statistics
    qtbot.waitUntil(lambda: window.views.corpus_browser.stats is not None, timeout=30_000)
    window.views.setCurrentIndex(0)
    costra = costra_shown(qtbot, window)
    costra_spec = window.session.current.spec
    view, projection = window.views.costra_view, window.projection
    assert projection.binnings >= 1 and costra.paths_made >= 1
    # Costra opened behind the Projection tab: its statistics wait for the Corpus tab.
    assert window.views.corpus_browser.indexes_made == 1
    # Once each way first: pyqtgraph's axes widen to their widest ticks, so the plot
    # takes its final size once both corpora were shown.
    for spec in (msrp, costra_spec):
        double_click_corpus(qtbot, window, spec)
        qtbot.waitUntil(lambda spec=spec: window.session.current.spec == spec)
        settle(qtbot, window)
    group, drawn = costra.group, list(costra.drawn)
    counts = (
        projection.binnings,
        costra.paths_made,
        window.classification.charts_made,
        window.views.corpus_browser.indexes_made,
    )

    double_click_corpus(qtbot, window, msrp)
    qtbot.waitUntil(lambda: window.session.current.spec == msrp)
    settle(qtbot, window)
    state = window.session.current
    # The view shows the corpus switched to, and nothing of Costra.
    assert projection.coordinates is state.exploration.projection.coordinates
    assert projection.point_count == len(state.corpus) == 859
    assert window.views.currentIndex() == 0 and not window.views.isTabEnabled(1)
    assert projection.mode == "density"
    browser = window.views.corpus_browser
    assert browser.corpus is state.corpus and browser.stats.n_sentences == 859
    assert view.corpus is None and view.group_choice.count() == 0
    assert view.model.rowCount() == 0 and not any(item.isVisible() for item in drawn)
    assert window.classification.chart.result is state.classification.result

    double_click_corpus(qtbot, window, costra_spec)
    qtbot.waitUntil(lambda: window.session.current.spec == costra_spec)
    settle(qtbot, window)
    state = window.session.current
    assert window.views.currentIndex() == 1
    assert view.corpus is state.corpus and view.group == group
    assert view.group_choice.count() == 126 and view.model.rowCount() > 0
    assert view.drawn == drawn and all(item.isVisible() for item in drawn)
    assert np.array_equal(view.projection.coordinates, state.exploration.projection.coordinates)
    assert window.classification.chart.result is state.classification.result

    double_click_corpus(qtbot, window, msrp)
    qtbot.waitUntil(lambda: window.session.current.spec == msrp)
    settle(qtbot, window)
    assert browser.corpus is window.session.current.corpus and browser.stats.n_sentences == 859
    # Both ways, everything came from what was kept.
    assert (
        projection.binnings,
        costra.paths_made,
        window.classification.charts_made,
        browser.indexes_made,
    ) == counts


def test_a_colouring_chosen_is_drawn_again_after_a_switch(qtbot, window, monkeypatch):
    """The kept bins serve only the colours they were counted in: a corpus recoloured
    before it was left comes back in its new colours, from the bins of those."""
    monkeypatch.setattr(projection_view, "POINT_LIMIT", 300)
    run_and_wait(qtbot, window)
    msrp = window.session.current.spec
    controls, projection = window.corpus_panel.projection_controls, window.projection
    other = open_and_wait(qtbot, window, "costra")
    run_and_wait(qtbot, window)
    window.showing.switch_corpus(msrp)
    settle(qtbot, window)
    binned = projection.binnings
    controls.colour.setCurrentIndex(controls.colour.findData("words"))
    settle(qtbot, window)
    assert projection.binnings > binned  # new colours, counted anew
    for spec in (other, msrp):  # the plot's final size (see the test above)
        window.showing.switch_corpus(spec)
        settle(qtbot, window)
    recoloured, binned = projection.density.image.copy(), projection.binnings
    for spec in (other, msrp):
        window.showing.switch_corpus(spec)
        settle(qtbot, window)
    assert controls.colour.currentData() == "words" and "Words" in projection.legend.text()
    assert np.array_equal(projection.density.image, recoloured)
    assert projection.binnings == binned  # the bins of these colours, kept
