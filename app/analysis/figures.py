"""A result's chart as a plotly figure, for notebooks: the window's chart of the same
result (``app/ui/charts``), drawn with the same data, colours and axes, without Qt.

Plotly rather than matplotlib: it is already a dependency (the web map), and its
figures stay interactive in a notebook (hover names each pair, as the window's tips do).

:func:`result_figure` draws one result: relatedness as cosine against gold score,
ranking as queries by the band of their partner's rank, detection as the precision-recall
curve, the learning curve with its intervals, the cosine and overlap histograms; a
result with no chart of its own (classification...) as its scores with their intervals.
:func:`comparison_figure` draws one metric across encoders, as *Across encoders* does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from sentspace.app.analysis.chart_data import data_bins, rank_bands
from sentspace.app.base.palette import CATEGORICAL, SELECTED

POSITIVE, NEGATIVE = CATEGORICAL[0], CATEGORICAL[1]
IMPORTED_COLOUR = "#888888"


def _figure(title: str | None, x_label: str, y_label: str, **layout: Any):
    import plotly.graph_objects as go  # noqa: PLC0415 (heavy; only figures need it)

    figure = go.Figure()
    figure.update_layout(
        title=title,
        template="simple_white",
        showlegend=False,
        xaxis_title=x_label,
        yaxis_title=y_label,
        width=640,
        height=420,
        **layout,
    )
    figure.update_xaxes(showgrid=True)
    figure.update_yaxes(showgrid=True)
    return figure


def _relatedness(result):
    pooled = result.pooled
    measure = "cosine" if result.similarity == "cosine" else "learned score"
    figure = _figure(
        f"{result.provenance.encoder_name}: Spearman {pooled.spearman:.3f}, "
        f"Pearson {pooled.pearson:.3f}",
        "gold score",
        measure,
    )
    figure.add_scatter(
        x=result.gold,
        y=result.cosine,
        mode="markers",
        marker={"size": 5, "color": POSITIVE, "opacity": 0.6},
        text=[f"pair {pair}" for pair in result.pair_id.tolist()],
        hovertemplate="%{text}: gold %{x:.2f}, " + measure + " %{y:.3f}<extra></extra>",
    )
    return figure


def _ranking(result):
    bands = rank_bands(result.ks, result.rank)
    figure = _figure(
        f"{result.provenance.encoder_name}: queries by the rank of their partner",
        "rank of the partner",
        "queries",
    )
    figure.add_bar(x=list(bands.labels), y=bands.counts, marker_color=POSITIVE)
    return figure


def _detection(result):
    f1, threshold = result.best_f1
    figure = _figure(
        f"{result.provenance.encoder_name}: PR curve, AP {result.average_precision:.4f}",
        "recall",
        "precision",
    )
    figure.add_hline(y=float(result.label.mean()), line_dash="dash", line_color="#888888")
    figure.add_scatter(
        x=result.recall,
        y=result.precision,
        mode="lines+markers",
        line={"color": POSITIVE, "width": 2},
        marker={"size": 4},
        customdata=result.thresholds,
        hovertemplate="cosine >= %{customdata:.4f}: recall %{x:.3f}, "
        "precision %{y:.3f}<extra></extra>",
    )
    best = int(np.flatnonzero(result.thresholds == threshold)[0])
    figure.add_scatter(
        x=[result.recall[best]],
        y=[result.precision[best]],
        mode="markers",
        marker={"size": 14, "color": "rgba(0,0,0,0)", "line": {"color": SELECTED, "width": 2}},
        hovertemplate=f"best F1 {f1:.4f} at cosine >= {threshold:.4f}<extra></extra>",
    )
    figure.update_xaxes(range=[-0.02, 1.02])
    figure.update_yaxes(range=[-0.02, 1.02])
    return figure


def _learning_curve(result):
    accuracy = np.asarray(result.accuracy, dtype=np.float64)
    figure = _figure(
        f"{result.provenance.encoder_name}: learning curve", "training pairs", "test accuracy"
    )
    # With intervals turned off none is drawn (a zero-length one reads as certainty).
    error = None
    if result.ci:
        low, high = np.array(result.ci, dtype=np.float64).T
        error = {
            "type": "data",
            "array": high - accuracy,
            "arrayminus": accuracy - low,
            "color": "#555555",
        }
    figure.add_scatter(
        x=result.n_train,
        y=accuracy,
        mode="lines+markers",
        error_y=error,
        line={"color": POSITIVE, "width": 2},
        marker={"size": 8},
    )
    figure.update_xaxes(type="log", tickvals=result.n_train.tolist())
    return figure


def _histograms(result):
    from plotly.subplots import make_subplots  # noqa: PLC0415

    figure = make_subplots(rows=1, cols=2)
    figure.update_layout(
        template="simple_white",
        barmode="overlay",
        width=800,
        height=380,
        title=f"{result.provenance.encoder_name}: the two sides' pairs",
    )
    for column, (name, label) in enumerate(
        (("cosine", "cosine similarity"), ("overlap", "word overlap (Jaccard)")), start=1
    ):
        edges, counts = data_bins(result, name)
        for side, colour in enumerate((POSITIVE, NEGATIVE)):
            figure.add_bar(
                x=(edges[:-1] + edges[1:]) / 2,
                y=counts[side],
                width=np.diff(edges),
                marker_color=colour,
                opacity=0.5,
                name=f"{result.side_names[side]} ({int(counts[side].sum())})",
                showlegend=column == 1,
                row=1,
                col=column,
            )
        figure.update_xaxes(title_text=label, row=1, col=column)
        figure.update_yaxes(title_text="pairs", row=1, col=column)
    return figure


#: The chart of each evaluation's result, as the window's ``app.ui.charts.CHARTS``.
FIGURES = {
    "relatedness": _relatedness,
    "ranking": _ranking,
    "detection": _detection,
    "learning-curve": _learning_curve,
    "histograms": _histograms,
}


def bars(
    metric: str,
    labels: Sequence[str],
    values: Sequence[float],
    intervals: Sequence[tuple[float, float]],
    title: str | None = None,
    imported: Sequence[bool] = (),
):
    """Bars with their 95% intervals (none where the interval is NaN); ``imported``
    bars grey and hatched, with their value above them."""
    imported = list(imported) or [False] * len(values)
    low, high = np.asarray(intervals, dtype=np.float64).reshape(-1, 2).T
    heights = np.asarray(values, dtype=np.float64)
    figure = _figure(title or "95% bootstrap CI", "", metric)
    figure.add_bar(
        x=list(labels),
        y=heights,
        marker={
            "color": [IMPORTED_COLOUR if outside else POSITIVE for outside in imported],
            "pattern": {"shape": ["/" if outside else "" for outside in imported]},
        },
        text=[f"{value:.4f}" if outside else "" for value, outside in zip(heights, imported)],
        textposition="outside",
        error_y={
            "type": "data",
            "array": np.where(np.isnan(high), 0, high - heights),
            "arrayminus": np.where(np.isnan(low), 0, heights - low),
            "visible": bool(np.isfinite(low).any()),
            "color": "#000000",
        },
    )
    return figure


def result_figure(result):
    """The window's chart of ``result``; its scores as bars when it has none."""
    draw = FIGURES.get(result.evaluation)
    if draw is not None:
        return draw(result)
    scores = result.scores()
    if not scores:
        raise ValueError(f"a {result.evaluation} result has nothing to draw")
    return bars(
        "score",
        [score.name for score in scores],
        [score.value for score in scores],
        [score.ci or (math.nan, math.nan) for score in scores],
        title=f"{result.evaluation} of {result.provenance.encoder_name} on "
        f"{result.provenance.corpus_name}",
    )


def comparison_figure(results: Sequence, metric: str | None = None):
    """``metric`` (default: the first with an interval) across the encoders of
    ``results``, as the window's *Across encoders* chart: a bar each with its interval;
    a score imported from MTEB is a grey bar of its main score."""
    runs = [result for result in results if not getattr(result, "imported", False)]
    if not runs:
        raise ValueError("no results to compare")
    names = [score.name for score in runs[0].scores()]
    metric = metric or next(iter(runs[0].intervals()), names[0] if names else "")
    if metric not in names:
        raise ValueError(f"metric: {runs[0].evaluation} reports {', '.join(names)}, not {metric!r}")
    imported = [getattr(result, "imported", False) for result in results]
    values, intervals = [], []
    for result, outside in zip(results, imported):
        score = {score.name: score for score in result.scores()}.get(metric)
        value = result.main_score if outside else (math.nan if score is None else score.value)
        interval = None if outside or score is None else score.ci
        values.append(value)
        intervals.append(interval or (math.nan, math.nan))
    return bars(
        metric,
        [result.provenance.encoder_name for result in results],
        values,
        intervals,
        title=f"{runs[0].evaluation} on {runs[0].provenance.corpus_name}: "
        f"{metric}, 95% bootstrap CI",
        imported=imported,
    )
