"""The numbers a result's chart draws, computed once for the window's charts
(``app/ui/charts``) and ``result.plot()`` (:mod:`sentspace.app.analysis.figures`), and
below the evaluations, whose results plot themselves."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from sentspace.app.analysis.evaluations.histograms import HistogramResult


def side_counts(values: np.ndarray, side: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Histogram counts of ``values`` over ``edges``: positives (side 1), then negatives."""
    return np.stack([np.histogram(values[side == s], bins=edges)[0] for s in (1, 0)])


def data_bins(result: HistogramResult, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Edges and counts (as ``result``'s) of histogram ``name`` ("cosine" or "overlap")
    in as many equal bins over its values' own range: the fixed bins put the cosines of
    an encoder whose pairs all lie near 0.98 into one bar."""
    values = getattr(result, name)
    bins = len(getattr(result, f"{name}_edges")) - 1
    edges = np.histogram_bin_edges(values, bins=bins)
    return edges, side_counts(values, result.side, edges)


@dataclass(frozen=True, eq=False)
class RankBandCounts:
    """Queries by the band of their partner's rank, the bands accuracy@k tells apart:
    for ks 1, 10, 100 the labels "1", "2–10", "11–100" and "> 100".

    Attributes
    ----------
    bounds : the bands' upper ranks (the distinct ks, ascending); the last band is
        everything beyond ``bounds[-1]``.
    band : each query's band (index into ``labels``): rank <= bounds[0], ...,
        rank > bounds[-1] (inf included).
    labels, counts : each band's name and how many queries fall in it.
    """

    bounds: np.ndarray
    band: np.ndarray
    labels: tuple[str, ...]
    counts: np.ndarray


def rank_bands(ks: Sequence[int], rank: np.ndarray) -> RankBandCounts:
    """The ranking chart's bars (the window's and ``result.plot()``'s) for queries whose
    partners ranked ``rank``, banded by accuracy@k's ``ks``."""
    bounds = np.unique(ks)
    band = np.searchsorted(bounds, rank, side="left")
    lows = np.concatenate([[1], bounds[:-1] + 1])
    labels = tuple(
        [
            f"{low:,}" if low == high else f"{low:,}–{high:,}"
            for low, high in zip(lows.tolist(), bounds.tolist())
        ]
        + [f"> {bounds[-1]:,}"]
    )
    return RankBandCounts(bounds, band, labels, np.bincount(band, minlength=len(bounds) + 1))


#: The grouping kind whose members paraphrase each other (model.Grouping.kind).
