"""``result.plot()`` and ``results.plot()``: the window's charts as plotly figures, drawn
from the result's own numbers (SICK's trial file, MSRP, msrp-grouped)."""

import numpy as np
import pytest

import sentspace


@pytest.fixture(scope="module")
def grouped():
    return sentspace.load_corpus("msrp-grouped")


def test_relatedness_is_drawn_as_cosine_against_gold_for_every_pair(shared_data):
    trial = sentspace.load_corpus(shared_data / "sick" / "SICK_trial.txt")
    result = sentspace.evaluate("relatedness", trial, "bow")
    figure = result.plot()
    [points] = figure.data
    assert len(points.x) == result.pooled.n_pairs == 500
    np.testing.assert_array_equal(points.x, result.gold)
    np.testing.assert_array_equal(points.y, result.cosine)
    assert f"Spearman {result.pooled.spearman:.3f}" in figure.layout.title.text
    assert (figure.layout.xaxis.title.text, figure.layout.yaxis.title.text) == (
        "gold score",
        "cosine",
    )


def test_a_comparison_is_drawn_as_bars_with_their_intervals(grouped):
    results = sentspace.evaluate("ranking", grouped, ["bow", "tfidf"])
    figure = results.plot()
    [bars] = figure.data
    assert list(bars.x) == ["bow", "tfidf"]
    first = [result.intervals()["accuracy@1"] for result in results]
    assert list(bars.y) == [value for value, _ in first]
    np.testing.assert_allclose(bars.error_y.array, [high - value for value, (_, high) in first])
    assert "accuracy@10" in results.plot("accuracy@10").layout.title.text
    with pytest.raises(ValueError, match="metric: ranking reports .*not 'f1'"):
        results.plot("f1")


def test_ranking_detection_and_classification_have_their_charts(shared_data, grouped):
    ranking = sentspace.evaluate("ranking", grouped, "bow")
    [bands] = ranking.plot().data
    assert list(bands.x) == ["1", "2–10", "11–100", "> 100"]
    assert sum(bands.y) == len(ranking.rank)
    assert bands.y[0] == int((ranking.rank == 1).sum())

    detection = sentspace.evaluate("detection", sentspace.load_corpus(shared_data / "msrp"), "bow")
    figure = detection.plot()
    curve, best = figure.data
    np.testing.assert_array_equal(curve.x, detection.recall)
    assert f"AP {detection.average_precision:.4f}" in figure.layout.title.text
    assert figure.layout.shapes[0].y0 == pytest.approx(detection.label.mean())

    classification = sentspace.evaluate("classification", grouped, "bow")
    [scores] = classification.plot().data
    assert list(scores.x) == [score.name for score in classification.scores()]
    assert list(scores.y) == [score.value for score in classification.scores()]
