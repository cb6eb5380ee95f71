"""Ranking on a paraphrase-grouped corpus in the Evaluations panel: its chart's bars are
bands of partner ranks, and a click selects sentences of the corpus (a query from a
group has no row in corpus.pairs), before and after a workspace round trip."""

import numpy as np
from PySide6.QtCore import QPointF

from sentspace.app.analysis.evaluations.ranking import RankingResult
from sentspace.app.ui.charts import RankBands
from tests.ui.conftest import (
    LEFT,
    evaluate_and_wait,
    reopened_in_new_window,
    save_and_wait,
    settle,
)


def click_band(qtbot, chart, b):
    """Click in band ``b``'s bar, halfway up."""
    scene = chart.plot.vb.mapViewToScene(QPointF(b, chart.counts[b] / 2))
    with qtbot.waitSignal(chart.band_clicked) as clicked:
        qtbot.mouseClick(chart.viewport(), LEFT, pos=chart.mapFromScene(scene))
    assert clicked.args == [b]


def test_a_rank_band_of_msrp_grouped_selects_its_queries_sentences(qtbot, window, tmp_path):
    window.corpus_panel.choose("bow")
    evaluate_and_wait(qtbot, window, "ranking")
    settle(qtbot, window)
    panel = window.evaluation_panel
    result, chart = panel.current[1], panel.chart
    assert isinstance(result, RankingResult) and result.from_groups
    assert isinstance(chart, RankBands) and chart.labels == ("1", "2–10", "11–100", "> 100")
    assert chart.counts.sum() == len(result.rank) == 1_872
    assert chart.counts[0] == int(np.sum(result.rank <= 1))

    click_band(qtbot, chart, 2)  # partners at rank 11-100
    chosen = (result.rank > 10) & (result.rank <= 100)
    expected = np.unique(np.concatenate([result.query[chosen], result.target[chosen]]))
    assert window.selection.source == "chart"
    assert window.selecting.listed_sentences() == expected.tolist()
    assert chart.counts.tolist() == [832, 1_015, 20, 5] and len(expected) == 32
    assert panel.picked_caption.text() == (
        f"{int(chosen.sum()):,} queries with the partner "
        f"at rank 11–100: {len(expected)} sentences selected"
    )
    # Both sentences of every query in the band, of a group each: not pair rows.
    labels = window.corpus.groups.labels(len(window.corpus))
    assert np.all(labels[result.query[chosen]] == labels[result.target[chosen]])

    for name in ("ranking.png", "ranking.svg"):
        panel.save_chart(tmp_path / name)
        assert (tmp_path / name).stat().st_size > 1_000

    path = save_and_wait(qtbot, window, tmp_path / "ranking")
    reopened = reopened_in_new_window(qtbot, path)
    settle(qtbot, reopened)
    kept = reopened.evaluation_panel.current[1]
    assert isinstance(kept, RankingResult) and kept.from_groups
    assert kept.summary() == result.summary()
    np.testing.assert_array_equal(kept.pair_id, result.pair_id)
    click_band(qtbot, reopened.evaluation_panel.chart, 2)
    assert reopened.selecting.listed_sentences() == expected.tolist()
    reopened.unsaved = False
