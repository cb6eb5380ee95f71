import itertools

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import average_precision_score

from sentspace.app.analysis.evaluations import statistics as S
from sentspace.app.base.jobs import run_job


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    x = np.round(rng.random(400) * 20) / 20  # ties, as real cosines of BOW have
    gold = np.round(x * 3 + rng.random(400) * 3) / 2
    label = (rng.random(400) < 0.3 + 0.4 * x).astype(np.float64)
    return x, gold, label


def test_weighted_metrics_equal_scipy_and_sklearn_on_the_resampled_arrays(data):
    x, gold, label = data
    weights = next(S._resample_weights(len(x), 6, seed=1))
    for row in weights:
        drawn = np.repeat(np.arange(len(x)), row.astype(int))
        w = row[None, :]
        assert S.spearman(x, gold, w)[0] == pytest.approx(
            stats.spearmanr(x[drawn], gold[drawn]).statistic, abs=1e-12
        )
        assert S.pearson(x, gold, w)[0] == pytest.approx(
            stats.pearsonr(x[drawn], gold[drawn]).statistic, abs=1e-12
        )
        assert S.average_precision(x, label, w)[0] == pytest.approx(
            average_precision_score(label[drawn], x[drawn]), abs=1e-12
        )
        assert S.mean(x, None, w)[0] == pytest.approx(x[drawn].mean(), abs=1e-12)
    rows = np.stack([x, gold])
    np.testing.assert_allclose(S.spearman(rows, gold), [stats.spearmanr(x, gold).statistic, 1])
    np.testing.assert_allclose(
        S.average_precision(rows, label),
        [average_precision_score(label, x), average_precision_score(label, gold)],
    )


def test_bootstrap_interval_is_seeded_and_agrees_with_scipy(data):
    x, gold, _ = data
    ci = S.bootstrap_ci(S.spearman, x, gold, n_resamples=2000, seed=3)
    assert ci == S.bootstrap_ci(S.spearman, x, gold, n_resamples=2000, seed=3)
    assert ci != S.bootstrap_ci(S.spearman, x, gold, n_resamples=2000, seed=4)
    point = stats.spearmanr(x, gold).statistic
    assert ci[0] < point < ci[1]
    reference = stats.bootstrap(
        (x, gold),
        lambda a, b: stats.spearmanr(a, b).statistic,
        paired=True,
        vectorized=False,
        n_resamples=2000,
        method="percentile",
        random_state=0,
    ).confidence_interval
    assert ci[0] == pytest.approx(reference.low, abs=0.02)
    assert ci[1] == pytest.approx(reference.high, abs=0.02)
    assert S.cis({"m": (S.mean, x, None)}, n_resamples=0, confidence=0.95, seed=0) == {}


def test_mcnemar_exact_and_chi_square():
    a = np.array([1] * 30 + [1] * 7 + [0] * 2 + [0] * 11, dtype=bool)
    b = np.array([1] * 30 + [0] * 7 + [1] * 2 + [0] * 11, dtype=bool)
    test = S.mcnemar(a, b)
    assert test.detail == {"A right, B wrong": 7, "A wrong, B right": 2}
    assert test.p_value == pytest.approx(stats.binomtest(7, 9, 0.5).pvalue)
    assert "exact" in test.method
    big_a = np.r_[np.ones(40), np.zeros(20)].astype(bool)
    big_b = np.r_[np.zeros(40), np.ones(20)].astype(bool)
    test = S.mcnemar(big_a, big_b)
    assert test.p_value == pytest.approx(stats.chi2.sf((20 - 1) ** 2 / 60, 1))
    assert S.mcnemar(a, a).p_value == 1.0


def test_paired_permutation_test(data):
    x, gold, _ = data
    rng = np.random.default_rng(5)
    noisy = x + rng.normal(0, 0.5, len(x))
    same = S.paired_permutation_test(S.spearman, x, x, gold, n_resamples=200, seed=0)
    assert same.difference == 0 and same.p_value == 1.0
    better = S.paired_permutation_test(S.spearman, x, noisy, gold, n_resamples=500, seed=0)
    assert better.difference > 0 and better.p_value < 0.01
    assert better.difference_ci[0] > 0
    assert better == S.paired_permutation_test(S.spearman, x, noisy, gold, n_resamples=500, seed=0)
    ranks_a, ranks_b = rng.integers(1, 5, 300), rng.integers(1, 5, 300)
    mrr = S.paired_permutation_test(S.mean, 1 / ranks_a, 1 / ranks_b, n_resamples=300)
    assert mrr.statistic_a == pytest.approx(np.mean(1 / ranks_a))
    assert mrr.p_value > 0.01


def test_a_permutation_test_is_a_job_that_stops_between_chunks(monkeypatch, data):
    """The window cancels a test of bars no longer shown between chunks of permutations
    and resamples; driven to its end, the job makes the test the CLI makes."""
    x, gold, _ = data
    noisy = x + np.random.default_rng(5).normal(0, 0.5, len(x))
    monkeypatch.setattr(S, "_CHUNK_CELLS", 100 * len(x))  # 100 permutations a chunk
    job = S.iter_paired_permutation_test(
        S.spearman, x, noisy, gold, n_resamples=500, ci_resamples=200, seed=0
    )
    reports = list(itertools.islice(job, 3))
    assert [r.done for r in reports] == [0, 100, 200] and reports[0].total == 700
    job.close()
    assert next(job, None) is None
    job = S.iter_paired_permutation_test(
        S.spearman, x, noisy, gold, n_resamples=500, ci_resamples=200, seed=0
    )
    assert len(list(itertools.islice(job, 100))) == 7  # 5 + 2 chunks
    assert run_job(
        S.iter_paired_permutation_test(
            S.spearman, x, noisy, gold, n_resamples=500, ci_resamples=200, seed=0
        )
    ) == S.paired_permutation_test(
        S.spearman, x, noisy, gold, n_resamples=500, ci_resamples=200, seed=0
    )


def test_cluster_bootstrap_resamples_whole_clusters():
    rng = np.random.default_rng(3)
    values = rng.random(300)
    metrics = {"mean": (S.mean, values, None)}
    # One item per cluster: the item bootstrap, resample for resample.
    assert S.cis(metrics, n_resamples=200, confidence=0.95, seed=1, clusters=np.arange(300))[
        "mean"
    ] == pytest.approx(S.cis(metrics, n_resamples=200, confidence=0.95, seed=1)["mean"], abs=1e-12)
    # Ten copies of 30 values: resampled as 300 items the interval is as narrow as for
    # 300 independent values; resampled by cluster it is that of the 30 originals.
    copies = np.repeat(rng.random(30), 10)
    clusters = np.repeat(np.arange(30), 10)
    by_item = S.cis({"m": (S.mean, copies, None)}, n_resamples=500, confidence=0.95, seed=0)["m"]
    by_cluster = S.cis(
        {"m": (S.mean, copies, None)}, n_resamples=500, confidence=0.95, seed=0, clusters=clusters
    )["m"]
    originals = S.cis(
        {"m": (S.mean, copies[::10], None)}, n_resamples=500, confidence=0.95, seed=0
    )["m"]
    assert by_cluster[1] - by_cluster[0] > 2.5 * (by_item[1] - by_item[0])
    assert by_cluster == pytest.approx(originals, abs=0.02)


def test_a_share_drawn_as_binomials_is_the_item_bootstrap():
    """0/1 outcomes resampled with replacement hold Binomial(n, share) successes: the
    binomial draws give the item bootstrap's interval (to its own resampling noise), in
    O(resamples) instead of O(resamples x items)."""
    outcomes = np.random.default_rng(3).random(5000) < 0.12
    drawn = S.share_bootstrap_distribution(outcomes, n_resamples=4000, seed=0)
    items = S.bootstrap_distribution(S.mean, outcomes, n_resamples=4000, seed=0)
    assert np.percentile(drawn, [2.5, 97.5]) == pytest.approx(
        np.percentile(items, [2.5, 97.5]), abs=0.002
    )
    assert drawn.mean() == pytest.approx(outcomes.mean(), abs=5e-4)
    again = S.share_bootstrap_distribution(outcomes, n_resamples=4000, seed=0)
    assert np.array_equal(drawn, again)
    # Strata resampled on their own: the mean of the strata's shares.
    strata = np.arange(5000) % 3
    per_class = S.share_bootstrap_distribution(outcomes, strata, n_resamples=4000, seed=0)
    shares = [outcomes[strata == k].mean() for k in range(3)]
    assert per_class.mean() == pytest.approx(np.mean(shares), abs=5e-4)
    assert S.percentile_interval(per_class) == tuple(np.percentile(per_class, [2.5, 97.5]))
