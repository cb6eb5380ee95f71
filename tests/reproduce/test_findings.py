"""The rule every paper's findings share: a claim about "best", "every" or "all" is
decided only on every row it names, quick or --full alike."""

import numpy as np
import pytest
from scipy import stats

from sentspace.app.analysis.evaluations import statistics
from sentspace.app.base.commands import reproduce_command
from sentspace.app.reproduce import costra, white2015
from sentspace.app.reproduce.findings import (
    NOT_DECIDED,
    SUPPORTED,
    independent_test,
    stratified_test,
)
from sentspace.app.reproduce.runner import Row, _Evidence

M, O = white2015.M, white2015.O  # noqa: E741 (the paper's M and O)
#: Values standing in for a re-run (no results behind them: each pair is decided on its
#: two values, which the verdicts say).
VALUES = {
    ("BOW", M): 0.98,
    ("PCA BOW", M): 0.97,
    ("MOWE", M): 0.96,
    ("SOWE", M): 0.95,
    ("PV-DM", M): 0.9,
    ("PV-DBOW", M): 0.85,
    ("URAE", M): 0.35,
}
VALUES.update({(model, O): value - 0.3 for (model, _), value in VALUES.items()})
QUICK_ROWS = {model for model, (*_, quick) in white2015.MODELS.items() if quick}


def evidence(paper, values, seed=0):
    rows = [
        Row(cell, values.get((cell.row, cell.column)), n=100)
        if (cell.row, cell.column) in values
        else Row(cell, skipped="outside --quick")
        for table in paper.tables
        for cell in table.cells
    ]
    return _Evidence(
        rows, {}, seed, lambda table: reproduce_command(paper.name, "full", seed, table)
    )


def decisions(paper, values):
    found = evidence(paper, values)
    return {finding.claim: finding.decide(found) for finding in paper.findings}


def test_full_decides_every_claim_on_every_row():
    full = decisions(white2015.PAPER, VALUES)
    assert full["BOW is best on MSRP"].verdict == SUPPORTED
    # Each of the six others compared, PCA BOW among them.
    assert full["BOW is best on MSRP"].evidence.count("BOW 0.98 vs") == 6
    assert "BOW 0.98 vs PCA BOW 0.97" in full["BOW is best on MSRP"].evidence
    harder = full["The Opinosis groups are far harder than MSRP's for every model"]
    assert harder.verdict == SUPPORTED and harder.evidence.count(" vs ") == 7


@pytest.mark.parametrize(
    "claim",
    [
        "BOW is best on MSRP",
        "The Opinosis groups are far harder than MSRP's for every model",
        "Sum/mean of word vectors beats PV and URAE on MSRP groups",
    ],
)
def test_quick_leaves_a_claim_on_rows_not_run_undecided(claim):
    """Quick re-runs BOW, MOWE and SOWE: the claims naming all seven rows name the four
    not run and the command that runs them, whatever the three say."""
    quick = decisions(
        white2015.PAPER, {key: v for key, v in VALUES.items() if key[0] in QUICK_ROWS}
    )[claim]
    assert quick.verdict == NOT_DECIDED
    assert quick.evidence.startswith("not re-run: ")
    for model in ("PV-DM", "PV-DBOW", "URAE"):
        assert model in quick.evidence
    assert "(outside --quick: sentspace reproduce white2015 table1 --full --seed 0)" in (
        quick.evidence
    )
    assert quick.paper_holds is True


def test_one_row_missing_from_full_is_enough_to_leave_it_undecided():
    values = {key: v for key, v in VALUES.items() if key[0] != "PCA BOW"}
    best = decisions(white2015.PAPER, values)["BOW is best on MSRP"]
    assert best.verdict == NOT_DECIDED
    assert best.evidence == (
        "not re-run: PCA BOW (outside --quick: sentspace reproduce white2015 table1 --full "
        "--seed 0)"
    )


def test_costra_every_encoder_means_every_encoder_run():
    """Both Costra claims name e5-small (SentBERT - mean's stand-in) and the two
    references; the paper's wording is still checked on its six printed rows."""
    rows = ("SentBERT - mean", "bag of words (reference)", "random BOW (reference)")
    values = {
        (model, column): (0.1 if column == "basic" else 0.5)
        for model in rows
        for column in costra.COLUMNS
    }
    found = decisions(costra.PAPER, values)
    averages, basic = found.values()
    assert averages.verdict == SUPPORTED and basic.verdict == SUPPORTED
    assert basic.evidence.count(" vs ") == 15  # 3 encoders x 5 other classes
    assert basic.paper_holds is False and "LASER" in basic.paper
    assert averages.paper == "the paper's table holds it: highest 0.510"
    without_e5 = decisions(costra.PAPER, {k: v for k, v in values.items() if k[0] != rows[0]})
    for decision in without_e5.values():
        assert decision.verdict == NOT_DECIDED
        assert decision.evidence.startswith("not re-run: SentBERT - mean (outside --quick: ")
        assert "sentspace reproduce costra table1 --full" in decision.evidence


def test_two_samples_of_0_1_outcomes_are_tested_exactly():
    """Fisher's exact test is the two-sample permutation test of 0/1 outcomes over every
    permutation: it agrees with scipy's sampled permutation test, in milliseconds."""
    rng = np.random.default_rng(0)
    a, b = (rng.random(300) < 0.30).astype(float), (rng.random(500) < 0.22).astype(float)
    exact = independent_test(a, b)
    sampled = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
        permutation_type="independent",
        n_resamples=20_000,
        vectorized=True,
        random_state=0,
    )
    assert exact.method.startswith("Fisher's exact")
    assert exact.p_value == pytest.approx(sampled.pvalue, abs=0.006)
    assert exact.difference == pytest.approx(a.mean() - b.mean())
    low, high = exact.difference_ci
    assert low < exact.difference < high and high - low == pytest.approx(0.125, abs=0.02)
    # Values that are not 0/1 keep the sampled permutation test.
    assert independent_test(a * 0.5 + 0.25, b).method.startswith("two-sample permutation")


def test_a_stratified_test_weighs_every_stratum():
    """Two years of questions, A ahead by 0.3 in the first and tied in the second: one
    test over both, whose effect is the item-weighted mean of the years' differences,
    each named; an F1 stratified is the mean of the years' F1 differences, not the
    pooled F1's."""
    rng = np.random.default_rng(0)
    years = np.repeat(["DUC 2006", "DUC 2007"], [300, 100])
    a = np.r_[rng.random(300) < 0.8, rng.random(100) < 0.5].astype(float)
    b = np.r_[rng.random(300) < 0.5, a[300:]]
    test = stratified_test(statistics.mean, a, b, None, years)
    first, second = a[:300].mean() - b[:300].mean(), 0.0
    assert test.difference == pytest.approx(0.75 * first + 0.25 * second)
    assert test.difference == pytest.approx(a.mean() - b.mean())  # a mean: the pooled one
    assert test.p_value < 0.001 and test.n_items == 400
    assert test.difference_ci[0] > 0
    assert f"DUC 2006 {first:+.4f} (300 items), DUC 2007 +0.0000 (100 items)" in test.method
    # Swapping the encoders swaps the sign; the same seed gives the same test.
    swapped = stratified_test(statistics.mean, b, a, None, years)
    assert swapped.difference == pytest.approx(-test.difference)
    assert test == stratified_test(statistics.mean, a, b, None, years)
    # F1 per year: positives only in 2006's first half, A calls them all.
    gold = np.r_[np.ones(150), np.zeros(150), rng.random(100) < 0.5].astype(float)
    calls_a = np.r_[np.ones(150), np.zeros(150), gold[300:]]
    f1 = stratified_test(statistics.f1, calls_a, b, gold, years)
    per_year = [
        statistics.f1(calls_a[s], gold[s])[0] - statistics.f1(b[s], gold[s])[0]
        for s in (slice(0, 300), slice(300, 400))
    ]
    assert f1.difference == pytest.approx(0.75 * per_year[0] + 0.25 * per_year[1])


def test_one_stratum_is_the_paired_permutation_test():
    rng = np.random.default_rng(1)
    a, b = rng.random(50), rng.random(50)
    plain = statistics.paired_permutation_test(statistics.mean, a, b, n_resamples=10_000)
    assert stratified_test(statistics.mean, a, b, None, np.full(50, "")) == plain
    named = stratified_test(statistics.mean, a, b, None, np.full(50, "DUC 2006"))
    assert named.method == f"{plain.method}, DUC 2006 alone"
    assert named.p_value == plain.p_value and named.difference_ci == plain.difference_ci
