"""Deciding a paper's claims: each helper names its comparison and decides it from tests
on the re-run's per-item outcomes (the paired tests ``sentspace eval`` makes between
encoders: McNemar for classification, paired permutation otherwise; a two-sample
permutation test where the two numbers come from different items), then checks the same
wording on the paper's own numbers.

A verdict is *supported* (every comparison goes the claimed way at p < :data:`ALPHA`),
*not supported* (one goes the other way at p < :data:`ALPHA`), *no difference at this
size* (otherwise: the data cannot tell the two apart) or *not decided* (a number it
needs was not re-run). A claim about "best", "every" or "all" is decided only on every
row it names, quick or ``--full`` alike: until then it is not decided and names the rows
not re-run with what runs them. A comparison without per-item outcomes (no test for the
evaluation) is decided on the two values and says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from sentspace.app.analysis.evaluations import statistics
from sentspace.app.analysis.evaluations.paired import PAIRED_TESTS, paired_test
from sentspace.app.analysis.evaluations.statistics import ALPHA, NO_DIFFERENCE
from sentspace.app.base.errors import EvaluationError

SUPPORTED = "supported"
NOT_SUPPORTED = "not supported"
NOT_DECIDED = "not decided"
#: Permutations of the tests made here (the ``eval`` comparison's default).
PERMUTATIONS = 10_000

Key = tuple[str, str, str]  # (table, row, column)
#: An item's stratum in a stratified test: ``(result, item identities)`` -> a label per
#: item ("" where none is told), e.g. the DUC year of a pyramid question.
Strata = Callable[[Any, np.ndarray], np.ndarray]


class Evidence(Protocol):
    """What a finding is decided on: sentspace's and the paper's numbers by cell, and a
    test of the difference of two re-run cells (None when a cell was not re-run)."""

    def value(self, table: str, row: str, column: str) -> float | None: ...

    def published(self, table: str, row: str, column: str) -> float | None: ...

    def test(
        self, a: Key, b: Key, strata: Strata | None = None
    ) -> statistics.PairedTest | None: ...

    def interval(self, table: str, row: str, column: str) -> tuple[float, float] | None: ...

    def missing(self, table: str, row: str, column: str) -> str:
        """Why a cell has no value and what gives it one ("outside --quick: run
        `sentspace reproduce ... --full`", "needs: ...")."""
        ...


@dataclass(frozen=True)
class Decision:
    """A finding's verdict, what it compared, each test ("A vs B: +0.03, p 0.004"), the
    deciding test's p-value and effect (A - B), and the same rule on the paper's table
    (``paper_holds`` None when the paper prints none of the numbers)."""

    verdict: str
    comparison: str
    evidence: str
    p_value: float | None = None
    effect: float | None = None
    paper: str = ""
    paper_holds: bool | None = None


def _name(key: Key) -> str:
    return key[1]


def _names(a: Key, b: Key) -> tuple[str, str]:
    """How a comparison's two cells are told apart: by row, or by column within a row."""
    return (a[1], b[1]) if a[1] != b[1] else (f"{a[1]} {a[2]}", b[2])


def _tested(
    evidence: Evidence, a: Key, b: Key, strata: Strata | None = None
) -> tuple[float, float, str] | None:
    """(effect a - b, p-value or NaN, text) of one comparison; None when not re-run."""
    va, vb = evidence.value(*a), evidence.value(*b)
    if va is None or vb is None:
        return None
    name_a, name_b = _names(a, b)
    test = evidence.test(a, b, strata)
    if test is None:
        return (
            va - vb,
            float("nan"),
            (f"{name_a} {va:.4g} vs {name_b} {vb:.4g}: {va - vb:+.4f} (no per-item test: values)"),
        )
    interval = (
        f", 95% CI [{test.difference_ci[0]:+.4f}, {test.difference_ci[1]:+.4f}]"
        if test.difference_ci is not None
        else ""
    )
    return (
        test.difference,
        test.p_value,
        (
            f"{name_a} {va:.4g} vs {name_b} {vb:.4g}: {test.difference:+.4f}{interval}, "
            f"p {test.p_value:.3g} ({test.method}, {test.n_items} items)"
        ),
    )


def _verdict(tests: list[tuple[float, float, str]]) -> tuple[str, float | None, float | None]:
    """The verdict of claims "each effect > 0", with the deciding p-value and effect: the
    strongest refutation, else the weakest support."""

    def significant(p: float, effect: float) -> bool:
        return p < ALPHA if np.isfinite(p) else effect != 0

    against = [(p, e) for e, p, _ in tests if e < 0 and significant(p, e)]
    if against:
        p, e = min(against, key=lambda pe: (pe[0] if np.isfinite(pe[0]) else 0, pe[1]))
        return NOT_SUPPORTED, _finite(p), e
    weakest = max(tests, key=lambda t: (t[1] if np.isfinite(t[1]) else 0, -t[0]))
    effect, p, _ = weakest
    if all(e > 0 and significant(p_, e) for e, p_, _ in tests):
        return SUPPORTED, _finite(p), effect
    return NO_DIFFERENCE, _finite(p), effect


def _finite(p: float) -> float | None:
    return p if np.isfinite(p) else None


def _on_paper(evidence: Evidence, pairs: Sequence[tuple[Key, Key]]) -> tuple[str, bool | None]:
    """Whether the paper's own numbers satisfy "a above b" for every pair it prints."""
    printed = [(a, b, evidence.published(*a), evidence.published(*b)) for a, b in pairs]
    both = [(a, b, pa, pb) for a, b, pa, pb in printed if pa is not None and pb is not None]
    if not both:
        return "", None
    failing = [
        f"{_names(a, b)[0]} {pa:.4g} vs {_names(a, b)[1]} {pb:.4g}"
        for a, b, pa, pb in both
        if not pa > pb
    ]
    if failing:
        return f"the paper's own table fails the wording: {'; '.join(failing)}", False
    return (
        f"the paper's table holds it ({len(both)} comparison{'s' if len(both) > 1 else ''})",
        True,
    )


def _not_decided(evidence: Evidence, keys: Sequence[Key]) -> str:
    """ "not re-run: " and the cells without a value, grouped by why and by what runs
    them; "" when every cell has one."""
    why: dict[str, list[str]] = {}
    for key in dict.fromkeys(keys):
        if evidence.value(*key) is None:
            names = why.setdefault(evidence.missing(*key), [])
            if key[1] not in names:
                names.append(key[1])
    return (
        "not re-run: " + "; ".join(f"{', '.join(rows)} ({reason})" for reason, rows in why.items())
        if why
        else ""
    )


def compare_all(
    evidence: Evidence,
    comparison: str,
    pairs: Sequence[tuple[Key, Key]],
    paper_pairs: Sequence[tuple[Key, Key]] | None = None,
    strata: Strata | None = None,
) -> Decision:
    """Every ``a`` above its ``b``, each pair tested (stratified by ``strata`` where
    given); the paper checked on ``paper_pairs`` (default: the same pairs)."""
    paper, holds = _on_paper(evidence, pairs if paper_pairs is None else paper_pairs)
    not_run = _not_decided(evidence, [key for pair in pairs for key in pair])
    if not_run or not pairs:
        return Decision(
            NOT_DECIDED,
            comparison,
            not_run or "nothing to compare",
            paper=paper,
            paper_holds=holds,
        )
    tests = [outcome for a, b in pairs if (outcome := _tested(evidence, a, b, strata)) is not None]
    verdict, p, effect = _verdict(tests)
    return Decision(
        verdict, comparison, "; ".join(text for *_, text in tests), p, effect, paper, holds
    )


def beats(
    evidence: Evidence,
    table: str,
    column: str,
    winners: Sequence[str],
    losers: Sequence[str],
    strata: Strata | None = None,
) -> Decision:
    """Every one of ``winners`` above every one of ``losers`` in ``column`` (each paired
    test stratified by ``strata`` where given)."""
    pairs = [((table, w, column), (table, lo, column)) for w in winners for lo in losers]
    return compare_all(
        evidence,
        f"{column}: {', '.join(winners)} above {', '.join(losers)}, each pair tested",
        pairs,
        strata=strata,
    )


def best_of(
    evidence: Evidence, table: str, column: str, best: str, rows: Sequence[str]
) -> Decision:
    """``best`` above each of the other ``rows``: decided only when every one was re-run
    (else not decided, naming those that were not and what runs them)."""
    return beats(evidence, table, column, (best,), [r for r in rows if r != best])


def every_lower(
    evidence: Evidence, table: str, rows: Sequence[str], lower: str, higher: str
) -> Decision:
    """For every one of ``rows``, ``higher`` above ``lower`` (different items: a
    two-sample test per row); not decided until every row was re-run in both columns."""
    pairs = [((table, r, higher), (table, r, lower)) for r in rows]
    return compare_all(
        evidence, f"per row ({', '.join(rows)}), {higher} above {lower} (two-sample test)", pairs
    )


def within(evidence: Evidence, first: Key, second: Key, band: float) -> Decision:
    """``second`` at most ``band`` below ``first``: supported when the 95% interval of
    the gap lies below the band, not supported when it lies above, else no difference
    from the band at this size."""
    comparison = f"{_name(first)} - {_name(second)} at most {band} ({first[2]})"
    pf, ps = evidence.published(*first), evidence.published(*second)
    paper, holds = "", None
    if pf is not None and ps is not None:
        holds = pf - ps <= band
        paper = (
            f"the paper's table {'holds it' if holds else 'fails the wording'}: gap {pf - ps:.4f}"
        )
    outcome = _tested(evidence, first, second)
    if outcome is None:
        return Decision(
            NOT_DECIDED,
            comparison,
            _not_decided(evidence, (first, second)),
            paper=paper,
            paper_holds=holds,
        )
    gap, p, text = outcome
    test = evidence.test(first, second)
    low, high = (
        test.difference_ci if test is not None and test.difference_ci is not None else (gap, gap)
    )
    verdict = SUPPORTED if high <= band else NOT_SUPPORTED if low > band else NO_DIFFERENCE
    return Decision(verdict, comparison, f"{text}; band {band}", _finite(p), gap, paper, holds)


def all_below(
    evidence: Evidence,
    keys: Sequence[Key],
    bound: float,
    paper_keys: Sequence[Key] | None = None,
) -> Decision:
    """Every value of ``keys`` below ``bound``: supported when every 95% interval lies
    below it, not supported when one lies above; not decided until every one was re-run.
    The paper's printed values of ``paper_keys`` (default: ``keys``) are checked likewise."""
    printed = {
        k: v
        for k in (keys if paper_keys is None else paper_keys)
        if (v := evidence.published(*k)) is not None
    }
    holds = all(v < bound for v in printed.values()) if printed else None
    paper = (
        ""
        if holds is None
        else f"the paper's table {'holds it' if holds else 'fails the wording'}: highest "
        f"{max(printed.values()):.3f}"
    )
    comparison = (
        f"{keys[0][2]} of each row ({', '.join(k[1] for k in keys)}) below {bound}, "
        "by its 95% interval"
    )
    not_run = _not_decided(evidence, keys)
    if not_run or not keys:
        return Decision(
            NOT_DECIDED, comparison, not_run or "no rows", paper=paper, paper_holds=holds
        )
    found = {k: v for k in keys if (v := evidence.value(*k)) is not None}
    spans = {k: evidence.interval(*k) or (v, v) for k, v in found.items()}
    verdict = (
        NOT_SUPPORTED
        if any(low >= bound for low, _ in spans.values())
        else SUPPORTED
        if all(high < bound for _, high in spans.values())
        else NO_DIFFERENCE
    )
    top = max(found, key=found.__getitem__)
    return Decision(
        verdict,
        comparison,
        "; ".join(
            f"{k[1]} {v:.4g} [{spans[k][0]:.4f}, {spans[k][1]:.4f}]" for k, v in found.items()
        )
        + f" (bound {bound})",
        effect=found[top] - bound,
        paper=paper,
        paper_holds=holds,
    )


def lowest_class(
    evidence: Evidence,
    table: str,
    rows: Sequence[str],
    lowest: str,
    others: Sequence[str],
    paper_rows: Sequence[str],
) -> Decision:
    """For each of ``rows``, ``lowest`` below each of ``others`` (two-sample tests over
    the class's comparisons), not decided until every row was re-run; the paper's
    numbers checked on ``paper_rows``."""
    return compare_all(
        evidence,
        f"{lowest} below every other class, per encoder ({', '.join(rows)})",
        [((table, r, c), (table, r, lowest)) for r in rows for c in others],
        [((table, r, c), (table, r, lowest)) for r in paper_rows for c in others],
    )


def independent_test(a: np.ndarray, b: np.ndarray, *, seed: int = 0) -> statistics.PairedTest:
    """Two-sample permutation test of mean(a) - mean(b) on different items (scipy), with a
    bootstrap interval of the difference (each sample resampled on its own). For 0/1
    outcomes the permutation test is exact: Fisher's test of the 2x2 table counts every
    permutation (hypergeometric; two-sided as scipy's, twice the smaller tail), and each
    mean's bootstrap is a binomial draw."""
    from scipy import stats  # noqa: PLC0415 (lazy: slow)

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if np.isin(a, (0, 1)).all() and np.isin(b, (0, 1)).all():
        passed_a, passed_b = int(a.sum()), int(b.sum())
        table = [[passed_a, len(a) - passed_a], [passed_b, len(b) - passed_b]]
        method = "Fisher's exact (all permutations of the 0/1 outcomes)"
        # Two-sided as scipy's permutation test: twice the smaller tail.
        p_value = min(
            1.0,
            2
            * min(
                stats.fisher_exact(table, alternative=side).pvalue for side in ("less", "greater")
            ),
        )
        resampled = statistics.share_bootstrap_distribution(
            a, seed=seed
        ) - statistics.share_bootstrap_distribution(b, seed=seed + 1)
    else:
        # Batches of permutations keep memory at ~2M cells (unbatched, Costra's 42,654
        # comparisons took 10 GB).
        method = f"two-sample permutation ({PERMUTATIONS} draws)"
        p_value = float(
            stats.permutation_test(
                (a, b),
                lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
                permutation_type="independent",
                n_resamples=PERMUTATIONS,
                vectorized=True,
                batch=max(1, 2_000_000 // (len(a) + len(b))),
                random_state=seed,
            ).pvalue
        )
        resampled = statistics.bootstrap_distribution(
            statistics.mean, a, seed=seed
        ) - statistics.bootstrap_distribution(statistics.mean, b, seed=seed + 1)
    low, high = np.percentile(resampled, [2.5, 97.5])
    return statistics.PairedTest(
        method=method,
        statistic_a=float(a.mean()),
        statistic_b=float(b.mean()),
        difference=float(a.mean() - b.mean()),
        p_value=p_value,
        n_items=len(a) + len(b),
        difference_ci=(float(low), float(high)),
    )


def stratified_test(
    metric: statistics.Metric,
    values_a: np.ndarray,
    values_b: np.ndarray,
    gold: np.ndarray | None,
    strata: np.ndarray,
    *,
    seed: int = 0,
) -> statistics.PairedTest:
    """A paired permutation test over strata (the DUC years of one pooled folder): the
    statistic is the mean of each stratum's difference ``metric(a) - metric(b)``
    weighted by its items, so every stratum counts and none is decided alone (for a mean
    it is the pooled difference; for F1, the per-stratum F1s'). Each permutation swaps
    the two encoders on a random half of the items, each within its own stratum; the
    interval resamples each stratum on its own. The method names each stratum's
    difference. With one stratum it is the paired permutation test as is."""
    labels, index = np.unique(np.asarray(strata, dtype=str), return_inverse=True)
    a, b = np.asarray(values_a, dtype=float), np.asarray(values_b, dtype=float)
    g = None if gold is None else np.asarray(gold, dtype=float)
    if len(labels) == 1:
        test = statistics.paired_permutation_test(
            metric, a, b, g, n_resamples=PERMUTATIONS, seed=seed
        )
        return replace(test, method=f"{test.method}, {labels[0]} alone") if labels[0] else test
    members = [np.flatnonzero(index == k) for k in range(len(labels))]
    weights = np.array([len(m) for m in members]) / len(a)

    def gold_of(chosen: np.ndarray) -> np.ndarray | None:
        return None if g is None else g[chosen]

    def differences(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Each stratum's metric(x) - metric(y) of (B, n) value rows -> (strata, B)."""
        return np.stack(
            [metric(x[:, m], gold_of(m), None) - metric(y[:, m], gold_of(m), None) for m in members]
        )

    per_stratum = differences(a[None], b[None])[:, 0]
    observed = float(weights @ per_stratum)
    rng = np.random.default_rng(seed)
    chunk = max(1, 2_000_000 // len(a))
    extreme = 0
    for start in range(0, PERMUTATIONS, chunk):
        swap = rng.random((min(chunk, PERMUTATIONS - start), len(a))) < 0.5
        permuted = weights @ differences(np.where(swap, b, a), np.where(swap, a, b))
        # Relative tolerance: permutations equal to the observed value stay counted.
        extreme += int(np.sum(np.abs(permuted) >= abs(observed) * (1 - 1e-12)))

    def resampled_difference(k: int) -> np.ndarray:
        """Stratum ``k``'s bootstrap distribution of metric(a) - metric(b), its items
        drawn for both encoders alike."""
        m = members[k]

        def paired(_: np.ndarray, __: Any, draws: np.ndarray | None) -> np.ndarray:
            return metric(a[m], gold_of(m), draws) - metric(b[m], gold_of(m), draws)

        return statistics.bootstrap_distribution(paired, np.zeros(len(m)), seed=seed + k)

    resampled = weights @ np.stack([resampled_difference(k) for k in range(len(members))])
    each = ", ".join(
        f"{label or 'no year'} {d:+.4f} ({len(m):,} items)"
        for label, d, m in zip(labels, per_stratum, members, strict=True)
    )
    return statistics.PairedTest(
        method=f"paired permutation within each of {len(labels)} strata, weighted by their "
        f"items ({PERMUTATIONS} swaps): {each}",
        statistic_a=float(weights @ [metric(a[m], gold_of(m), None)[0] for m in members]),
        statistic_b=float(weights @ [metric(b[m], gold_of(m), None)[0] for m in members]),
        difference=observed,
        p_value=(1 + extreme) / (1 + PERMUTATIONS),
        n_items=len(a),
        difference_ci=statistics.percentile_interval(resampled),
    )


def per_item(
    result: Any, metric: str
) -> tuple[Callable, np.ndarray, np.ndarray | None, np.ndarray] | None:
    """(metric function, per-item values, gold, item identities) behind ``metric`` of a
    result, for the tests here; None when the result keeps no such outcomes."""
    evaluation = result.evaluation
    if evaluation == "classification" and metric == "mean accuracy":
        return (
            statistics.mean,
            (result.predicted_group == result.true_group).astype(float),
            None,
            np.asarray(result.sentence_index),
        )
    if evaluation == "pyramid":
        pairs, test = result.tests.pairs, ~result.binary.in_tune
        if metric == "binary F1":
            return (
                statistics.f1,
                result.binary.predicted[test].astype(float),
                pairs.label[test].astype(float),
                np.stack([pairs.first[test], pairs.second[test]], axis=1),
            )
        rank = result.ranking.rank
        items = np.stack([result.tests.question, result.tests.answer], axis=1)
        if metric == "ranking success rate":
            return statistics.mean, (rank == 1).astype(float), None, items
        if metric == "ranking MRR":
            return statistics.mean, 1.0 / rank, None, items
    if evaluation == "costra" and metric in result.class_names:
        chosen = result.comparisons.class_index == result.class_names.index(metric)
        return statistics.mean, result.passed[chosen].astype(float), None, np.flatnonzero(chosen)
    return None


def test_cells(
    result_a: Any,
    metric_a: str,
    result_b: Any,
    metric_b: str,
    *,
    seed: int = 0,
    strata: Strata | None = None,
) -> statistics.PairedTest | None:
    """The test of ``metric_a`` of ``result_a`` minus ``metric_b`` of ``result_b``:
    paired on the same items (McNemar for classification, as ``eval`` compares; with
    ``strata``, the permutation test stratified by them), a two-sample test on different
    items; None without per-item outcomes."""

    a, b = per_item(result_a, metric_a), per_item(result_b, metric_b)
    same_items = (
        a is not None
        and b is not None
        and metric_a == metric_b
        and result_a.evaluation == result_b.evaluation
        and result_a.provenance.corpus_fingerprint == result_b.provenance.corpus_fingerprint
        and np.array_equal(a[3], b[3])
    )
    if same_items:
        assert a is not None and b is not None, "same_items says so"
        if result_a.evaluation == "classification":
            # McNemar's p-value, with a paired bootstrap interval of the accuracy gap.
            return replace(
                paired_test("classification", result_a, result_b),
                difference_ci=statistics.bootstrap_ci(statistics.mean, a[1] - b[1], seed=seed),
            )
        if strata is not None:
            return stratified_test(a[0], a[1], b[1], a[2], strata(result_a, a[3]), seed=seed)
        return statistics.paired_permutation_test(
            a[0], a[1], b[1], a[2], n_resamples=PERMUTATIONS, seed=seed
        )
    if a is not None and b is not None and a[0] is statistics.mean:
        return independent_test(a[1], b[1], seed=seed)
    if (
        a is None
        and result_a.evaluation == result_b.evaluation
        and result_a.evaluation in PAIRED_TESTS
        and metric_a == metric_b
    ):
        try:
            test = paired_test(result_a.evaluation, result_a, result_b, seed=seed)
        except EvaluationError:  # different items: decided on the values
            return None
        return replace(test, method=f"{PAIRED_TESTS[result_a.evaluation][0]}, {test.method}")
    return None
