"""What :func:`sentspace.evaluate` returns: the results of several encoders, with their
paired tests, as a frame and a chart."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

# The public names are listed once, in the package, which loads them from here.
from sentspace import __all__ as __all__
from sentspace.app.analysis.figures import comparison_figure
from sentspace.app.analysis.results import html_table, score_cells
from sentspace.app.base.errors import CorpusError as CorpusError
from sentspace.app.base.errors import EvaluationError as EvaluationError
from sentspace.app.base.errors import InputError as InputError
from sentspace.app.base.errors import NotFoundError as NotFoundError
from sentspace.app.services import summary_table
from sentspace.models.base import ModelError as ModelError


class Results(list):
    """An evaluation's results, one per encoder in the order given (the objects
    ``sentspace eval`` prints), with what the CLI prints beside them.

    Attributes
    ----------
    paired : {encoder name: PairedTest or the reason there is none}, each encoder
        tested against the first, for evaluations that have a paired test: its
        ``difference`` reads that encoder minus the first (positive: it scores higher).
    note : why the evaluated split was chosen, when it was chosen for you ("").
    """

    def __init__(self, results: Sequence, paired: dict[str, Any], note: str = ""):
        super().__init__(results)
        self.paired = paired
        self.note = note

    def table(self) -> str:
        """The ``summary()`` rows side by side, as ``sentspace eval`` prints them."""
        return summary_table(self)

    def __repr__(self) -> str:
        if not self:
            return "Results([])"
        first = self[0]
        return (
            f"<Results: {first.evaluation} of {len(self)} encoders "
            f"({', '.join(r.provenance.encoder_name for r in self)}) on "
            f"{first.provenance.corpus_name}; paired tests against "
            f"{first.provenance.encoder_name}: {len(self.paired)}>"
        )

    def _repr_html_(self) -> str:
        """Every encoder's scores with their intervals, then the paired tests against
        the first (a notebook shows this)."""

        if not self:
            return "<p>No results</p>"
        first = self[0]
        rows = [
            [result.provenance.encoder_name, *score_cells(score)]
            for result in self
            for score in result.scores()
        ]
        parts = [
            f"<p><b>{html.escape(first.evaluation)}</b> on "
            f"{html.escape(first.provenance.corpus_name)}"
            + (f" ({html.escape(self.note)})" if self.note else "")
            + "</p>",
            html_table(["encoder", "metric", "value", "95% interval", "n"], rows),
        ]
        if self.paired:
            tests = []
            for other, test in self.paired.items():
                if isinstance(test, str):
                    tests.append([other, "no test: " + test, "", "", ""])
                else:
                    interval = (
                        ""
                        if test.difference_ci is None
                        else f"[{test.difference_ci[0]:+.4f}, {test.difference_ci[1]:+.4f}]"
                    )
                    tests.append(
                        [
                            other,
                            test.method,
                            f"{test.difference:+.4f}",
                            interval,
                            f"{test.p_value:.4g}",
                        ]
                    )
            parts += [
                f"<p>Paired tests, each against "
                f"{html.escape(first.provenance.encoder_name)} (other minus first)</p>",
                html_table(["encoder", "test", "difference", "95% interval", "p-value"], tests),
            ]
        return "\n".join(parts)

    def plot(self, metric: str | None = None):
        """``metric`` (default: the first score with an interval) across the encoders,
        a bar each with its 95% interval, as the window's *Across encoders* chart: a
        plotly figure. Each result's own chart is ``results[k].plot()``."""

        return comparison_figure(self, metric)

    def to_frame(self):
        """Every result's :meth:`~sentspace.app.analysis.results.Result.to_frame`, stacked, with
        the encoder's name as the first column (needs pandas)."""
        import pandas as pd  # noqa: PLC0415 (optional)

        frames = [result.to_frame() for result in self]
        for result, frame in zip(self, frames):
            frame.insert(0, "encoder", result.provenance.encoder_name)
        return pd.concat(frames, ignore_index=True)
