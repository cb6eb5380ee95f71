"""Confidence intervals and paired tests for the headline metrics of every evaluation.

A *metric* is a vectorised function ``metric(values, gold, weights) -> (B,)`` over n items:

- ``values`` of shape (n,) with ``weights`` of shape (B, n): B weightings of the same
  items; a bootstrap resample is the weighting by how often it drew each item, so the
  items never need to be copied, sorted or ranked again per resample;
- ``values`` of shape (B, n) with ``weights`` None: B different value rows over the same
  items (the permutations of a paired test);
- ``gold`` of shape (n,) or None, aligned with the items.

Metrics: :func:`mean` of per-item values (accuracy from 0/1 correctness, accuracy@k from
``rank <= k``, MRR from ``1 / rank``, mean rank); :func:`fold_mean`, the mean of
per-fold means (cross-validated accuracy); :func:`pearson` and :func:`spearman`
of values against gold (relatedness); :func:`average_precision` of scores against 0/1 gold;
:func:`f1` of 0/1 calls against 0/1 gold (the pyramid binary test).

:func:`bootstrap_ci` resamples items with replacement (percentile interval);
:func:`paired_permutation_test` and :func:`mcnemar` compare two encoders on the same items.
Resamples are drawn in chunks, so memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.base.jobs import Job, Progress, run_job

# scipy.stats is imported inside the functions that use it: it takes about 0.4 s, too
# slow for the GUI's start, which imports every evaluation.

#: ``metric(values, gold, weights)`` -> one value per resample. ``gold`` is an array for
#: the metrics against gold (correlations, average precision), which declare it
#: required, and None for the others (means): hence Any.
Metric = Callable[[np.ndarray, Any, np.ndarray | None], np.ndarray]
#: What :func:`cis` resamples: a metric, its values, and its gold (or None).
MetricInputs = tuple[Metric, np.ndarray, np.ndarray | None]

#: Default resamples for the intervals written into results: enough for stable 95%
#: percentile bounds to about two digits, cheap enough to compute by default.
DEFAULT_RESAMPLES = 1000
#: Cells (resamples x items) drawn at once.
_CHUNK_CELLS = 2_000_000
#: Two-sided level at which a paired test (and a reproduced paper's finding) decides.
ALPHA = 0.05
#: The verdict when a test cannot tell the two apart at ``ALPHA``.
NO_DIFFERENCE = "no difference at this size"


def _weights_for(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """(B, n) weights: the given ones, or ones matching 2-D values or one 1-D row."""
    if weights is not None:
        return weights
    return np.ones(values.shape if values.ndim == 2 else (1, values.shape[-1]))


def mean(
    values: np.ndarray, gold: np.ndarray | None = None, weights: np.ndarray | None = None
) -> np.ndarray:
    """Weighted mean of per-item values -> (B,)."""
    if weights is None:
        return np.atleast_2d(values).mean(axis=-1)
    return (weights @ values) / weights.sum(axis=-1)


def fold_mean(
    values: np.ndarray, fold: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """The mean over folds of each fold's weighted mean -> (B,): cross-validated accuracy
    as it is reported (the mean of the folds' accuracies) from per-item correctness,
    ``fold`` (the "gold") naming each item's test fold. NaN where a fold has no weight."""
    w = _weights_for(values, weights)
    weighted = w * values
    per_fold = []
    for k in np.unique(fold):
        in_fold = fold == k
        with np.errstate(invalid="ignore", divide="ignore"):
            per_fold.append(weighted[..., in_fold].sum(axis=-1) / w[..., in_fold].sum(axis=-1))
    return np.mean(per_fold, axis=0)


def pearson(values: np.ndarray, gold: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Weighted Pearson correlation of values with gold -> (B,); NaN when constant."""
    w = _weights_for(values, weights)
    total = w.sum(axis=-1, keepdims=True)
    x = values - (w * values).sum(axis=-1, keepdims=True) / total
    y = gold - (w * gold).sum(axis=-1, keepdims=True) / total
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (w * x * y).sum(axis=-1) / np.sqrt((w * x * x).sum(axis=-1) * (w * y * y).sum(axis=-1))
    return np.clip(r, -1.0, 1.0)


def f1(predicted: np.ndarray, gold: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Weighted F1 of 0/1 calls against 0/1 gold -> (B,): 2 TP / (called + positive),
    0 where both are 0."""
    w = _weights_for(predicted, weights)
    positive = gold == 1
    true_positive = (w * (predicted * positive)).sum(axis=-1)
    denominator = (w * predicted).sum(axis=-1) + (w * positive).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, 2 * true_positive / denominator, 0.0)


def _weighted_ranks(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Average ranks (ties share their mean rank) of the items in each weighting, as
    ``scipy.stats.rankdata`` gives on the resampled array; shape (B, n)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    group_of_item = np.empty(len(values), dtype=np.int64)
    group_of_item[order] = np.cumsum(np.r_[True, ordered[1:] != ordered[:-1]]) - 1
    counts = np.add.reduceat(weights[:, order], starts, axis=1)
    ranks = np.cumsum(counts, axis=1) - counts + (counts + 1) / 2
    return ranks[:, group_of_item]


def spearman(values: np.ndarray, gold: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Spearman correlation (Pearson of average ranks, as ``scipy.stats.spearmanr``)."""
    if values.ndim == 2:
        from scipy import stats  # noqa: PLC0415 (lazy: slow)

        return pearson(stats.rankdata(values, axis=-1), stats.rankdata(gold))
    w = _weights_for(values, weights)
    return pearson(_weighted_ranks(values, w), _weighted_ranks(gold, w), w)


def average_precision(
    scores: np.ndarray, gold: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """Average precision of scores for 0/1 gold labels -> (B,).

    With 2-D ``scores`` (and no weights), ``gold`` may also be 2-D: one labelling per row.

    Equal to ``sklearn.metrics.average_precision_score``: the sum over distinct score
    thresholds of (recall step) x (precision at that threshold), so tied scores enter
    together. NaN when there is no positive.
    """
    if scores.ndim == 2:
        order = np.argsort(-scores, axis=-1, kind="stable")
        ordered = np.take_along_axis(scores, order, axis=-1)
        labels = np.take_along_axis(
            np.broadcast_to(np.asarray(gold, dtype=np.float64), scores.shape), order, axis=-1
        )
        w = np.ones(scores.shape)
    else:
        order = np.argsort(-scores, kind="stable")
        ordered = scores[order][None, :]
        labels = np.asarray(gold, dtype=np.float64)[order][None, :]
        w = _weights_for(scores, weights)[:, order]
    n = scores.shape[-1]
    hits = w * labels
    true_positives = np.cumsum(hits, axis=-1)
    retrieved = np.cumsum(w, axis=-1)
    # Each positive earns the precision at the end of its block of tied scores.
    last_of_tie = np.ones(ordered.shape, dtype=bool)
    last_of_tie[..., :-1] = ordered[..., :-1] != ordered[..., 1:]
    end = np.where(last_of_tie, np.arange(n), n)
    end = np.broadcast_to(np.minimum.accumulate(end[..., ::-1], axis=-1)[..., ::-1], w.shape)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.take_along_axis(true_positives, end, axis=-1) / np.take_along_axis(
            retrieved, end, axis=-1
        )
        # Items a resample did not draw have weight 0 and may sit in an empty tie block.
        earned = np.where(hits > 0, hits * precision, 0.0)
        return earned.sum(axis=-1) / hits.sum(axis=-1)


def _resample_weights(n_items: int, n_resamples: int, seed: int):
    """Bootstrap weightings of shape (chunk, n_items): how often each resample drew each
    item (n draws with replacement), seeded, in chunks."""
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // max(n_items, 1))
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        draws = rng.integers(0, n_items, size=(rows, n_items))
        flat = (draws + n_items * np.arange(rows)[:, None]).ravel()
        yield np.bincount(flat, minlength=rows * n_items).reshape(rows, n_items).astype(np.float64)


def bootstrap_distribution(
    metric: Metric,
    values: np.ndarray,
    gold: np.ndarray | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> np.ndarray:
    """The metric on ``n_resamples`` resamples of the items (with replacement); shape
    (n_resamples,). ``values`` and ``gold`` have shape (n_items,)."""
    values = np.asarray(values, dtype=np.float64)
    gold = None if gold is None else np.asarray(gold, dtype=np.float64)
    parts = [
        metric(values, gold, weights)
        for weights in _resample_weights(len(values), n_resamples, seed)
    ]
    return np.concatenate(parts) if parts else np.empty(0)


def share_bootstrap_distribution(
    outcomes: np.ndarray,
    strata: np.ndarray | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> np.ndarray:
    """The bootstrap distribution of the share of 0/1 ``outcomes``, shape (n_resamples,),
    drawn as binomials: n items resampled with replacement hold Binomial(n, share)
    successes, exactly, so this costs O(n_resamples) where resampling the items costs
    O(n_resamples x n) (Costra's 42,654 comparisons: a second a class against ms).

    With ``strata`` (an integer label per item) each stratum is resampled on its own and
    the distribution is of the mean of the strata's shares (Costra's average over its
    classes, whose sizes the corpus fixes)."""
    outcomes = np.asarray(outcomes, dtype=bool)
    labels = np.zeros(len(outcomes), dtype=int) if strata is None else np.asarray(strata)
    rng = np.random.default_rng(seed)
    shares = [
        rng.binomial(int(chosen.sum()), outcomes[chosen].mean(), size=n_resamples) / chosen.sum()
        for chosen in (labels == label for label in np.unique(labels))
    ]
    return np.mean(shares, axis=0) if shares else np.empty(0)


def _percentiles(distribution: np.ndarray, confidence: float) -> tuple[float, float]:
    distribution = distribution[np.isfinite(distribution)]
    if len(distribution) == 0:
        return (float("nan"), float("nan"))
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(distribution, [tail, 100 - tail])
    return (float(low), float(high))


def percentile_interval(distribution: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The percentile interval of a bootstrap distribution (its finite values)."""
    return _percentiles(distribution, confidence)


def bootstrap_ci(
    metric: Metric,
    values: np.ndarray,
    gold: np.ndarray | None = None,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
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
    return _percentiles(
        bootstrap_distribution(metric, values, gold, n_resamples=n_resamples, seed=seed), confidence
    )


def cis(
    metrics: dict[str, MetricInputs],
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
    clusters: np.ndarray | None = None,
) -> dict[str, tuple[float, float]]:
    """:func:`bootstrap_ci` of several named metrics of the same items, computed on one
    shared set of resamples (drawn once); empty when ``n_resamples`` is 0.

    ``clusters`` (shape (n_items,), ids 0..C-1): items that are not independent of each
    other (the two directions of a pair, the 20 queries of five descriptions of one
    image) share an id, and whole clusters are resampled (the cluster bootstrap), so the
    interval is not made narrow by counting one observation many times. With one item
    per cluster it is the item bootstrap, resample for resample."""
    if n_resamples <= 0:
        return {}
    sizes = {len(values) for _, values, _ in metrics.values()}
    if len(sizes) != 1:
        raise ValueError("metrics given to cis() must be of the same items")
    n_items = sizes.pop()
    if n_items == 0:
        return {name: (float("nan"), float("nan")) for name in metrics}
    if clusters is not None and len(clusters) != n_items:
        raise ValueError("clusters given to cis() must name a cluster per item")
    prepared = {
        name: (
            metric,
            np.asarray(values, dtype=np.float64),
            None if gold is None else np.asarray(gold, dtype=np.float64),
        )
        for name, (metric, values, gold) in metrics.items()
    }
    n_draws = n_items if clusters is None else int(clusters.max()) + 1
    parts: dict[str, list[np.ndarray]] = {name: [] for name in metrics}
    for weights in _resample_weights(n_draws, n_resamples, seed):
        if clusters is not None:
            weights = weights[:, clusters]  # each item drawn as often as its cluster
        for name, (metric, values, gold) in prepared.items():
            parts[name].append(metric(values, gold, weights))
    return {
        name: _percentiles(np.concatenate(chunks), confidence) for name, chunks in parts.items()
    }


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

    def verdict(self, a: str = "A", b: str = "B") -> str:
        """In words, at p < :data:`ALPHA`: which of ``a`` and ``b`` scores higher, or
        :data:`NO_DIFFERENCE`."""
        if not self.p_value < ALPHA or self.difference == 0:
            return NO_DIFFERENCE
        return f"{a if self.difference > 0 else b} higher (p < {ALPHA:g})"

    def summary(self) -> list[tuple[str, str]]:
        rows = [
            ("method", self.method),
            ("items", str(self.n_items)),
            ("A", f"{self.statistic_a:.4f}"),
            ("B", f"{self.statistic_b:.4f}"),
            ("A - B", f"{self.difference:+.4f}"),
            ("p-value", f"{self.p_value:.4g}"),
        ]
        if self.difference_ci is not None:
            rows.append(
                ("95% CI of A - B", f"[{self.difference_ci[0]:+.4f}, {self.difference_ci[1]:+.4f}]")
            )
        for key, value in (self.detail or {}).items():
            rows.append((key, str(value)))
        return [*rows, ("verdict", self.verdict())]


def mcnemar(correct_a: np.ndarray, correct_b: np.ndarray, *, exact_below: int = 25) -> PairedTest:
    """McNemar's test of two classifiers' per-item correctness on the same items.

    Only discordant items count: b = A right and B wrong, c = A wrong and B right. When
    b + c < ``exact_below`` the p-value is the exact two-sided binomial test of b out of
    b + c at 0.5 (``scipy.stats.binomtest``); otherwise the chi-square statistic with
    continuity correction, (|b - c| - 1)^2 / (b + c), on one degree of freedom.
    """
    from scipy import stats  # noqa: PLC0415 (lazy: slow)

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
    return PairedTest(
        method=method,
        statistic_a=accuracy_a,
        statistic_b=accuracy_b,
        difference=accuracy_a - accuracy_b,
        p_value=float(p_value),
        n_items=int(a.size),
        detail={"A right, B wrong": only_a, "A wrong, B right": only_b},
    )


def paired_permutation_test(*args: Any, **kwargs: Any) -> PairedTest:
    """:func:`iter_paired_permutation_test`'s test, made in this thread."""
    return run_job(iter_paired_permutation_test(*args, **kwargs))


def iter_paired_permutation_test(
    metric: Metric,
    values_a: np.ndarray,
    values_b: np.ndarray,
    gold: np.ndarray | None = None,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    ci_resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
) -> Job[PairedTest]:
    """Paired permutation test of ``metric(a) - metric(b)`` on the same items, as a job
    that reports each chunk of permutations or resamples (it takes seconds on a few
    thousand items; a window cancels it between chunks).

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
    stat_a = float(metric(a, g, None)[0])
    stat_b = float(metric(b, g, None)[0])
    observed = stat_a - stat_b
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // max(a.size, 1))
    extreme = 0
    for start in range(0, n_resamples, chunk):
        yield Progress("paired permutation test", start, n_resamples + ci_resamples)
        swap = rng.random((min(chunk, n_resamples - start), a.size)) < 0.5
        differences = metric(np.where(swap, b, a), g, None) - metric(np.where(swap, a, b), g, None)
        # A relative tolerance keeps permutations equal to the observed value (e.g. the
        # identity) from being lost to rounding.
        extreme += int(np.sum(np.abs(differences) >= abs(observed) * (1 - 1e-12)))
    p_value = (1 + extreme) / (1 + n_resamples)

    difference_ci = None
    if ci_resamples > 0:
        # The same resampled items for both encoders: the pairing is kept.
        parts: list[np.ndarray] = []
        for weights in _resample_weights(a.size, ci_resamples, seed):
            yield Progress(
                "paired permutation test",
                n_resamples + sum(part.size for part in parts),
                n_resamples + ci_resamples,
            )
            parts.append(metric(a, g, weights) - metric(b, g, weights))
        difference_ci = _percentiles(np.concatenate(parts), confidence)
    return PairedTest(
        method=f"paired permutation ({n_resamples} swaps)",
        statistic_a=stat_a,
        statistic_b=stat_b,
        difference=observed,
        p_value=float(p_value),
        n_items=int(a.size),
        difference_ci=difference_ci,
    )


def format_ci(ci: tuple[float, float] | None, decimals: int = 4) -> str:
    """``[low, high]`` with ``decimals`` decimals (as its value is shown), for summary
    rows."""
    if ci is None:
        return ""
    return f"[{ci[0]:.{decimals}f}, {ci[1]:.{decimals}f}]"
