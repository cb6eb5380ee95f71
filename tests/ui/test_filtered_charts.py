"""The evaluation charts follow the session's filter: the relatedness scatter draws
faint the pairs whose sentences fail it, the histograms draw the passing pairs' counts
solid over the whole faint, the classification's and ranking's bars the same, and each
says how many items pass; clearing the filter draws them whole again."""

import numpy as np

from sentspace.app.analysis.filters import Filter
from tests.ui.conftest import evaluate_and_wait, open_sick, settle


def test_relatedness_and_histograms_dim_what_the_filter_leaves_out(qtbot, shared_data):
    from sentspace.app.ui.window.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    open_sick(qtbot, window, shared_data)
    session, panel = window.session, window.evaluation_panel
    evaluate_and_wait(qtbot, window, "relatedness")
    corpus = window.corpus
    length = np.array([len(text.split()) for text in corpus.texts])
    long = length > 10

    # The filter is set where the Filter tab sets it, with the Evaluations tab hidden.
    window.tasks.setCurrentWidget(window.filter_panel)
    session.set_filter(session.current.spec, Filter(expression="words > 10"))
    window.show_evaluations()
    settle(qtbot, window)
    scatter = panel.chart
    result = scatter.result
    pairs = corpus.pairs
    expected = long[pairs.first[result.pair_index]] & long[pairs.second[result.pair_index]]
    assert 0 < expected.sum() < len(expected)
    drawn = scatter.points.data
    faint = np.array([brush.color().alpha() < 100 for brush in drawn["brush"]])
    assert np.array_equal(~faint, expected[drawn["data"].astype(int)])
    note = f"{int(expected.sum()):,} of {len(expected):,} pairs pass the filter"
    assert scatter.filter_note.text == note
    assert "both its sentences" in scatter.filter_note.toolTip()

    # Another chart, evaluated under the filter: the passing counts over faint totals.
    evaluate_and_wait(qtbot, window, "histograms")
    histograms = panel.chart
    result = histograms.result
    passing = long[pairs.first[result.pair_index]] & long[pairs.second[result.pair_index]]
    for name in ("cosine", "overlap"):
        heights = [item.opts["height"] for item in histograms.bars[name]]
        assert [int(np.sum(h)) for h in heights] == [
            int((passing & (result.side == side)).sum()) for side in (1, 0)
        ]
        assert all(item.isVisible() for item in histograms.faint[name])
    assert histograms.filter_note.text == (
        f"{int(passing.sum()):,} of {len(passing):,} pairs pass the filter"
    )

    # No filter: whole again, nothing said.
    session.set_filter(session.current.spec, Filter())
    assert histograms.filter_note is None
    assert not any(item.isVisible() for item in histograms.faint["cosine"])
    assert int(np.sum(histograms.bars["cosine"][0].opts["height"])) == int((result.side == 1).sum())


def test_bars_draw_the_passing_items_solid_over_the_whole_faint(qtbot):
    from sentspace.app.analysis.evaluations.classification import run_classification
    from sentspace.app.analysis.evaluations.ranking import run_ranking
    from sentspace.app.analysis.result_items import passing_shown
    from sentspace.app.base.jobs import run_job
    from sentspace.app.corpora import load_corpus
    from sentspace.app.ui.charts import chart_for
    from sentspace.models.bow import BagOfWords

    corpus = load_corpus("msrp-grouped")
    mask = np.array([len(text.split()) > 15 for text in corpus.texts])
    classification = run_job(run_classification(corpus, BagOfWords(), n_resamples=0))
    bars = chart_for("classification", classification)
    qtbot.addWidget(bars)
    bars.show_passing(*passing_shown(classification, corpus, mask))
    long = mask[classification.sentence_index]
    wrong = long & (classification.predicted_group != classification.true_group)
    shown = bars.passing_bars.opts["width"]
    assert bars.passing_bars.isVisible() and np.all(shown <= bars.counts)
    # The top groups and the "other" bar hold every erring group.
    assert shown.sum() == wrong.sum() > 0
    assert bars.filter_note.text == f"{long.sum()} of 859 sentences pass the filter"

    ranking = run_job(run_ranking(corpus, BagOfWords(), n_resamples=0))
    bands = chart_for("ranking", ranking)
    qtbot.addWidget(bands)
    bands.show_passing(*passing_shown(ranking, corpus, mask))
    both = mask[ranking.query] & mask[ranking.target]
    assert bands.passing_bars.opts["height"].sum() == both.sum() > 0
    assert bands.filter_note.text.endswith(f"of {len(both):,} queries pass the filter")
    bands.show_passing(None)
    assert not bands.passing_bars.isVisible() and bands.filter_note is None
