"""Misclassification-agreement speed (issue 4: 10 encoders on grouped MSRP, under 1 s once
predictions exist).

    .venv/bin/python bench/bench_agreement.py

Classifies the grouped MSRP corpus (859 sentences, 274 groups) with 10 encoders on the
same folds (timed, not part of the target), then times, best of 5 in the same run:
the vectorised N x N matrix (``misclassification_agreement``, checks included), the same
plus McNemar for all 45 encoder pairs (what ``summary()`` shows), and a naive per-pair,
per-sentence loop computing the same counts. A synthetic 50 encoders x 50,000 sentences
row shows how the vectorised form scales.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import best_of  # noqa: E402

from sentspace.app.analysis.evaluations.agreement import (  # noqa: E402
    agreement_counts,
    misclassification_agreement,
)
from sentspace.app.analysis.evaluations.classification import run_classification  # noqa: E402
from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.models import BagOfWords, PcaBagOfWords, RandomBagOfWords, TfIdf  # noqa: E402

ENCODERS = [
    BagOfWords(),
    TfIdf(),
    PcaBagOfWords(dimension=300),
    PcaBagOfWords(dimension=50),
    RandomBagOfWords(),
    RandomBagOfWords(dimension=100),
    RandomBagOfWords(dimension=50, seed=1),
    RandomBagOfWords(dimension=20),
    RandomBagOfWords(dimension=20, seed=1),
    RandomBagOfWords(dimension=10),
]


def naive_counts(predicted: np.ndarray, true: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The definition read literally: every cell, every sentence, in Python."""
    n = len(predicted)
    rows = predicted.tolist()
    truth = true.tolist()
    numerator = np.zeros((n, n), dtype=np.int64)
    denominator = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        for j in range(n):
            a, b = rows[i], rows[j]
            for k, y in enumerate(truth):
                if a[k] != y and b[k] != y:
                    denominator[i, j] += 1
                    numerator[i, j] += a[k] == b[k]
    return numerator, denominator


def main() -> None:
    corpus = load_corpus("msrp-grouped")
    start = time.perf_counter()
    results = [run_job(run_classification(corpus, encoder)) for encoder in ENCODERS]
    classify_time = time.perf_counter() - start
    predicted = np.stack([r.predicted_group for r in results])
    true = results[0].true_group

    result = misclassification_agreement(results)
    expected = naive_counts(predicted, true)
    assert np.array_equal(result.numerator, expected[0])
    assert np.array_equal(result.denominator, expected[1])

    matrix = best_of(lambda: misclassification_agreement(results), repeats=5)
    with_tests = best_of(lambda: misclassification_agreement(results).summary(), repeats=5)
    naive = best_of(lambda: naive_counts(predicted, true), repeats=3)

    rng = np.random.default_rng(0)
    big_true = rng.integers(0, 1000, 50_000)
    big = np.where(rng.random((50, 50_000)) < 0.3, rng.integers(0, 1000, (50, 50_000)), big_true)
    synthetic = best_of(lambda: agreement_counts(big, big_true), repeats=3)

    n_pairs = len(ENCODERS) * (len(ENCODERS) - 1) // 2
    print(
        f"grouped MSRP: {len(true)} sentences, {len(ENCODERS)} encoders; classification "
        f"of all 10 (not timed below): {classify_time:.1f} s"
    )
    print(f"{'step':<52}{'time':>12}{'vs naive':>10}")
    for name, seconds in (
        ("naive per-pair, per-sentence loop (same counts)", naive),
        ("agreement matrix (vectorised, checks included)", matrix),
        (f"  + McNemar for all {n_pairs} pairs (summary rows)", with_tests),
    ):
        print(f"{name:<52}{seconds * 1e3:>9.2f} ms{naive / seconds:>9.1f}x")
    print(f"{'synthetic 50 encoders x 50,000 sentences':<52}{synthetic * 1e3:>9.2f} ms")
    print("\nmistakes: " + ", ".join(f"{n} {m}" for n, m in zip(result.names, result.mistakes)))
    width = max(len(n) for n in result.names)
    print(" " * width + "".join(f"{k:>10}" for k in range(len(ENCODERS))))
    for k, name in enumerate(result.names):
        cells = "".join(
            f"{f'{a}/{b}':>10}" for a, b in zip(result.numerator[k], result.denominator[k])
        )
        print(f"{name:<{width}}{cells}")


if __name__ == "__main__":
    main()
