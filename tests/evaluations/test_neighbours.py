import numpy as np
import pytest
import scipy.sparse as sp

from sentspace.app.analysis.neighbours import (
    block_rows,
    normalise,
    pair_cosines,
    target_ranks,
    top_k,
)


def _random(n, dim, seed, sparse):
    rng = np.random.default_rng(seed)
    if sparse:
        # Small integer counts, like bag of words: many exact ties.
        dense = rng.poisson(0.3, size=(n, dim)).astype(np.float32)
        return sp.csr_array(dense), dense
    dense = rng.standard_normal((n, dim)).astype(np.float32)
    return dense, dense


def _brute_cosines(a, b):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    na = np.linalg.norm(a, axis=1)
    nb = np.linalg.norm(b, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.nan_to_num((a @ b.T) / na[:, None] / nb[None, :])


@pytest.mark.parametrize("sparse", [False, True])
def test_top_k_matches_a_full_sort(sparse):
    pool, dense = _random(300, 20, 0, sparse)
    exclude = np.arange(0, 300, 3)
    indices, sims = top_k(pool[exclude], pool, 7, exclude=exclude, memory_mb=0.01)
    full = _brute_cosines(dense[exclude], dense)
    full[np.arange(len(exclude)), exclude] = -np.inf
    for row in range(len(exclude)):
        expected = np.sort(full[row])[::-1][:7]
        np.testing.assert_allclose(sims[row], expected, atol=1e-5)
        assert exclude[row] not in indices[row]
        np.testing.assert_allclose(full[row, indices[row]], sims[row], atol=1e-5)


@pytest.mark.parametrize("sparse", [False, True])
def test_target_ranks_match_brute_force_counts_for_every_tie_rule(sparse):
    pool, dense = _random(250, 12, 1, sparse)
    rng = np.random.default_rng(2)
    queries = rng.integers(0, 250, 90)
    targets = (queries + rng.integers(1, 249, 90)) % 250
    unit = normalise(pool)
    # Reference in float64, where equal cosines are equal to ~1e-16.
    full = _brute_cosines(dense, dense)
    for ties, share in (("pessimistic", 1.0), ("mid", 0.5), ("optimistic", 0.0)):
        ranks, sims = target_ranks(
            unit.matrix[queries], unit, targets, exclude=queries, ties=ties, memory_mb=0.005
        )
        for k, (q, t) in enumerate(zip(queries, targets)):
            row = full[q].copy()
            row[q] = -np.inf
            greater = np.sum(row > row[t] + 1e-9)
            equal = np.sum(np.abs(row - row[t]) <= 1e-9) - 1
            assert ranks[k] == 1 + greater + share * equal
            assert abs(sims[k] - row[t]) < 1e-6
    if sparse:
        _, sims = target_ranks(unit.matrix[queries], unit, targets, exclude=queries)
        assert np.any(np.diff(np.sort(sims)) == 0)  # the sparse case really has ties


def test_blocks_respect_the_memory_budget():
    assert block_rows(100_000, 256) * 100_000 * 12 <= 256 * 2**20
    assert block_rows(10, 0.0) == 1


@pytest.mark.parametrize("sparse", [False, True])
def test_zero_and_nan_rows_are_reported_not_nan(sparse):
    dense = np.array([[1, 2, 0], [0, 0, 0], [2, 4, 0], [0, 1, 1]], dtype=np.float32)
    if not sparse:
        dense = np.vstack([dense, [[np.nan, 1, 0]]]).astype(np.float32)
    matrix = sp.csr_array(dense) if sparse else dense
    unit = normalise(matrix)
    expected_degenerate = [False, True, False, False] + ([] if sparse else [True])
    assert unit.degenerate.tolist() == expected_degenerate
    cos = pair_cosines(matrix, np.array([0, 0, 1]), np.array([2, 1, 3]))
    np.testing.assert_allclose(cos, [1.0, 0.0, 0.0], atol=1e-6)
    assert np.all(np.isfinite(cos))
    # A zero query ties with everything: pessimistically last, optimistically first.
    n = len(dense)
    worst, _ = target_ranks(unit.matrix[[1]], unit, np.array([3]), exclude=np.array([1]))
    best, _ = target_ranks(
        unit.matrix[[1]], unit, np.array([3]), exclude=np.array([1]), ties="optimistic"
    )
    assert worst[0] == n - 1 and best[0] == 1
