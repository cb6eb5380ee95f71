"""Confidence intervals and paired tests for the headline metrics of every evaluation.

A *metric* here is a vectorised function ``metric(values, gold) -> (B,)`` of per-item
values of shape (B, n) (B resamples of n items) and the matching per-item gold values
(shape (B, n), or None for metrics that need none):

- :func:`mean` of per-item values: accuracy from 0/1 correctness, accuracy@k from
  ``rank <= k``, MRR from ``1 / rank``, mean rank from ranks;
- :func:`pearson` and :func:`spearman` of values against gold (relatedness);
- :func:`average_precision` of scores against 0/1 gold (zero-shot detection).

:func:`bootstrap_ci` resamples items with replacement (percentile interval);
:func:`paired_permutation_test` and :func:`mcnemar` compare two encoders on the same items.
Resampling draws an index matrix per chunk of resamples, so memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

Metric = Callable[[np.ndarray, np.ndarray | None], np.ndarray]

#: Default resamples for the intervals written into results: enough for stable 95%
#: percentile bounds to about two digits, cheap enough to compute by default.
DEFAULT_RESAMPLES = 1000
#: Cells (resamples x items) drawn at once.
_CHUNK_CELLS = 4_000_000


def mean(values: np.ndarray, gold: np.ndarray | None = None) -> np.ndarray:
    """Mean of each row of ``values`` (shape (B, n)) -> (B,)."""
    return np.mean(values, axis=-1)


def pearson(values: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Pearson correlation of each row of ``values`` with the same row of ``gold``; NaN
    for a constant row."""
    x = values - values.mean(axis=-1, keepdims=True)
    y = gold - gold.mean(axis=-1, keepdims=True)
    denominator = np.sqrt((x * x).sum(axis=-1) * (y * y).sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip((x * y).sum(axis=-1) / denominator, -1.0, 1.0)


def spearman(values: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Spearman correlation per row: Pearson of average ranks (ties share their mean
    rank, as in ``scipy.stats.spearmanr``)."""
    return pearson(stats.rankdata(values, axis=-1), stats.rankdata(gold, axis=-1))


def average_precision(scores: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Average precision of each row of ``scores`` for the 0/1 labels in ``gold``.

    Equal to ``sklearn.metrics.average_precision_score``: the sum over distinct score
    thresholds of (recall step) x (precision at that threshold), so tied scores enter
    together. NaN for a row without positives.
    """
    scores = np.atleast_2d(scores)
    gold = np.broadcast_to(gold, scores.shape)
    order = np.argsort(-scores, axis=-1, kind="stable")
    sorted_scores = np.take_along_axis(scores, order, axis=-1)
    sorted_gold = np.take_along_axis(gold, order, axis=-1).astype(np.float64)
    n = scores.shape[-1]
    true_positives = np.cumsum(sorted_gold, axis=-1)
    precision = true_positives / np.arange(1, n + 1)
    # Each positive earns the precision at the end of its block of tied scores.
    last_of_tie = np.ones(scores.shape, dtype=bool)
    last_of_tie[..., :-1] = sorted_scores[..., :-1] != sorted_scores[..., 1:]
    end = np.where(last_of_tie, np.arange(n), n)
    end = np.minimum.accumulate(end[..., ::-1], axis=-1)[..., ::-1]
    precision_at_end = np.take_along_axis(precision, end, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sorted_gold * precision_at_end).sum(axis=-1) / sorted_gold.sum(axis=-1)


def _resample_chunks(n_items: int, n_resamples: int, seed: int):
    """Index matrices of shape (chunk, n_items), drawn with replacement, seeded."""
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // max(n_items, 1))
    for start in range(0, n_resamples, chunk):
        yield rng.integers(0, n_items, size=(min(chunk, n_resamples - start), n_items))


def bootstrap_distribution(metric: Metric, values: np.ndarray,
                           gold: np.ndarray | None = None, *,
                           n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> np.ndarray:
    """The metric on ``n_resamples`` resamples of the items (with replacement); shape
    (n_resamples,). ``values`` and ``gold`` have shape (n_items,)."""
    values = np.asarray(values, dtype=np.float64)
    gold = None if gold is None else np.asarray(gold, dtype=np.float64)
    parts = [metric(values[idx], None if gold is None else gold[idx])
             for idx in _resample_chunks(len(values), n_resamples, seed)]
    return np.concatenate(parts) if parts else np.empty(0)


def bootstrap_ci(metric: Metric, values: np.ndarray, gold: np.ndarray | None = None, *,
                 n_resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of ``metric`` over items.

    Parameters
    ----------
    metric : a vectorised metric (see the module docstring).
    values, gold : per-item arrays of shape (n_items,); resampled together.
    n_resamples : resamples drawn.
    confidence : coverage of the interval (0.95 gives the 2.5 and 97.5 percentiles).
    seed : seeds the resampling; the same seed gives the same interval.

    Returns (low, high); (nan, nan) when there are no items or no finite resample.
    """
    if len(values) == 0 or n_resamples <= 0:
        return (float("nan"), float("nan"))
    distribution = bootstrap_distribution(metric, values, gold, n_resamples=n_resamples,
                                          seed=seed)
    distribution = distribution[np.isfinite(distribution)]
    if len(distribution) == 0:
        return (float("nan"), float("nan"))
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(distribution, [tail, 100 - tail])
    return (float(low), float(high))


def cis(metrics: dict[str, tuple[Metric, np.ndarray, np.ndarray | None]], *,
        n_resamples: int, confidence: float, seed: int) -> dict[str, tuple[float, float]]:
    """:func:`bootstrap_ci` of several named metrics, all on the same resamples (one
    seed), so their intervals are coherent; empty when ``n_resamples`` is 0."""
    if n_resamples <= 0:
        return {}
    return {name: bootstrap_ci(metric, values, gold, n_resamples=n_resamples,
                               confidence=confidence, seed=seed)
            for name, (metric, values, gold) in metrics.items()}


@dataclass(frozen=True)
class PairedTest:
    """The outcome of comparing two encoders on the same items.

    Attributes
    ----------
    method : how the p-value was computed.
    statistic_a, statistic_b : the metric of each encoder on all items.
    difference : ``statistic_a - statistic_b``.
    p_value : two-sided.
    n_items : items compared.
    difference_ci : percentile bootstrap interval of the difference (paired resamples),
        or None when not computed.
    detail : method-specific counts (McNemar's discordant counts).
    """

    method: str
    statistic_a: float
    statistic_b: float
    difference: float
    p_value: float
    n_items: int
    difference_ci: tuple[float, float] | None = None
    detail: dict[str, int] | None = None

    def summary(self) -> list[tuple[str, str]]:
        rows = [("method", self.method), ("items", str(self.n_items)),
                ("A", f"{self.statistic_a:.4f}"), ("B", f"{self.statistic_b:.4f}"),
                ("A - B", f"{self.difference:+.4f}"), ("p-value", f"{self.p_value:.4g}")]
        if self.difference_ci is not None:
            rows.append(("95% CI of A - B",
                         f"[{self.difference_ci[0]:+.4f}, {self.difference_ci[1]:+.4f}]"))
        for key, value in (self.detail or {}).items():
            rows.append((key, str(value)))
        return rows


def mcnemar(correct_a: np.ndarray, correct_b: np.ndarray, *,
            exact_below: int = 25) -> PairedTest:
    """McNemar's test of two classifiers' per-item correctness on the same items.

    Only discordant items count: b = A right and B wrong, c = A wrong and B right. When
    b + c < ``exact_below`` the p-value is the exact two-sided binomial test of b out of
    b + c at 0.5 (``scipy.stats.binomtest``); otherwise the chi-square statistic with
    continuity correction, (|b - c| - 1)^2 / (b + c), on one degree of freedom.
    """
    a = np.asarray(correct_a, dtype=bool)
    b_ = np.asarray(correct_b, dtype=bool)
    if a.shape != b_.shape:
        raise ValueError("the two encoders were scored on different items")
    only_a = int(np.sum(a & ~b_))
    only_b = int(np.sum(~a & b_))
    discordant = only_a + only_b
    if discordant == 0:
        p_value, method = 1.0, "McNemar (no discordant items)"
    elif discordant < exact_below:
        p_value = stats.binomtest(only_a, discordant, 0.5).pvalue
        method = "McNemar, exact binomial"
    else:
        chi2 = (abs(only_a - only_b) - 1) ** 2 / discordant
        p_value = stats.chi2.sf(chi2, df=1)
        method = "McNemar, chi-square with continuity correction"
    accuracy_a, accuracy_b = float(a.mean()), float(b_.mean())
    return PairedTest(method=method, statistic_a=accuracy_a, statistic_b=accuracy_b,
                      difference=accuracy_a - accuracy_b, p_value=float(p_value),
                      n_items=int(a.size),
                      detail={"A right, B wrong": only_a, "A wrong, B right": only_b})


def paired_permutation_test(metric: Metric, values_a: np.ndarray, values_b: np.ndarray,
                            gold: np.ndarray | None = None, *,
                            n_resamples: int = 10_000, seed: int = 0,
                            ci_resamples: int = DEFAULT_RESAMPLES,
                            confidence: float = 0.95) -> PairedTest:
    """Paired permutation test of ``metric(a) - metric(b)`` on the same items.

    Under the null hypothesis the two encoders are exchangeable on each item, so each
    permutation swaps the two encoders' values on a random half of the items (gold stays
    put) and recomputes the difference. The p-value is (1 + #|d*| >= |d|) / (1 + R),
    two-sided. Works for any metric: correlations with gold (per-pair cosines), MRR or
    accuracy@k (per-query reciprocal ranks or hits), accuracy (per-item correctness).
    A paired bootstrap interval of the difference (items resampled jointly) is added.
    """
    a = np.asarray(values_a, dtype=np.float64)
    b = np.asarray(values_b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError("the two encoders were scored on different items")
    g = None if gold is None else np.asarray(gold, dtype=np.float64)
    g_row = None if g is None else g[None, :]
    stat_a = float(metric(a[None, :], g_row)[0])
    stat_b = float(metric(b[None, :], g_row)[0])
    observed = stat_a - stat_b
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // max(a.size, 1))
    extreme = 0
    for start in range(0, n_resamples, chunk):
        swap = rng.random((min(chunk, n_resamples - start), a.size)) < 0.5
        perm_a, perm_b = np.where(swap, b, a), np.where(swap, a, b)
        gold_rows = None if g is None else np.broadcast_to(g, swap.shape)
        differences = metric(perm_a, gold_rows) - metric(perm_b, gold_rows)
        # A relative tolerance keeps permutations equal to the observed value (e.g. the
        # identity) from being lost to rounding.
        extreme += int(np.sum(np.abs(differences) >= abs(observed) * (1 - 1e-12)))
    p_value = (1 + extreme) / (1 + n_resamples)

    difference_ci = None
    if ci_resamples > 0:
        # The same resampled items for both encoders: the pairing is kept.
        parts = [metric(a[idx], None if g is None else g[idx])
                 - metric(b[idx], None if g is None else g[idx])
                 for idx in _resample_chunks(a.size, ci_resamples, seed)]
        distribution = np.concatenate(parts)
        distribution = distribution[np.isfinite(distribution)]
        tail = (1 - confidence) / 2 * 100
        low, high = np.percentile(distribution, [tail, 100 - tail])
        difference_ci = (float(low), float(high))
    return PairedTest(method=f"paired permutation ({n_resamples} swaps)",
                      statistic_a=stat_a, statistic_b=stat_b, difference=observed,
                      p_value=float(p_value), n_items=int(a.size),
                      difference_ci=difference_ci)


def format_ci(ci: tuple[float, float] | None) -> str:
    """``[low, high]`` with four decimals, for summary rows."""
    if ci is None:
        return ""
    return f"[{ci[0]:.4f}, {ci[1]:.4f}]"
