"""pyqtgraph charts of evaluation results, each a click away from the items behind it.

:func:`chart_for` picks the chart of a result (``results`` holds those of the
evaluations, ``costra_offsets`` Costra's offsets, ``bitext`` bitext retrieval's ranks by
length, ``classification`` the misclassified per group; all build on ``base``);
:func:`comparison_chart` draws one metric across encoders. ``figures`` saves SVG.
"""

from __future__ import annotations

from sentspace.app.ui.charts.base import NEGATIVE, NO_INTERVAL, POSITIVE, ResultChart
from sentspace.app.ui.charts.bitext import BitextLengthChart
from sentspace.app.ui.charts.classification import GroupErrorBars
from sentspace.app.ui.charts.costra_offsets import CostraOffsetsChart
from sentspace.app.ui.charts.results import (
    AgreementHeatmap,
    HistogramChart,
    LearningCurveChart,
    MetricBars,
    PrecisionRecallChart,
    RankBands,
    RelatednessScatter,
    comparison_chart,
)

__all__ = [
    "NEGATIVE",
    "NO_INTERVAL",
    "POSITIVE",
    "AgreementHeatmap",
    "GroupErrorBars",
    "MetricBars",
    "PrecisionRecallChart",
    "ResultChart",
    "chart_for",
    "comparison_chart",
]

#: The chart of each evaluation's result, by evaluation name.
CHARTS: dict[str, type[ResultChart]] = {
    "classification": GroupErrorBars,
    "detection": PrecisionRecallChart,
    "learning-curve": LearningCurveChart,
    "histograms": HistogramChart,
    "ranking": RankBands,
    "relatedness": RelatednessScatter,
    "agreement": AgreementHeatmap,
    "costra-offsets": CostraOffsetsChart,
    "bitext": BitextLengthChart,
}


def chart_for(evaluation: str, result) -> ResultChart | None:
    """The chart that shows ``result`` of ``evaluation``, or None when it has none."""
    chart = CHARTS.get(evaluation)
    if chart is BitextLengthChart and result.query_length is None:
        return None  # saved before the queries' lengths were kept
    return chart(result) if chart is not None else None
