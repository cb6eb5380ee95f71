"""Costra: the ``costra`` package's reference evaluator versus ours, same embeddings.

All 6,968 sentences with 300-d random float32 embeddings (seed 0). Each evaluator is
timed from embeddings to scores, best of several runs. The reference rebuilds its
comparisons on every call; ours derives them once per loaded corpus, so it is timed both
on a freshly loaded corpus (first call, derivation included) and on a repeated call.
Run: ``python bench/bench_costra.py``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sentspace.app.analysis.evaluations.costra import evaluate_costra  # noqa: E402
from sentspace.app.corpora.costra import load_costra  # noqa: E402

DIM = 300


def best_of(runs: int, function, make_args):
    """(best wall time in seconds, last result); ``make_args()`` runs untimed."""
    times = []
    for _ in range(runs):
        args = make_args()
        start = time.perf_counter()
        result = function(*args)
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the package imports the deprecated pkg_resources
        from costra.costra import CostraEvaluator

        reference = CostraEvaluator()
    corpus = load_costra()
    embeddings = np.random.default_rng(0).standard_normal((len(corpus), DIM), dtype=np.float32)

    reference_time, reference_scores = best_of(3, reference.evaluate, lambda: (embeddings,))
    first_time, _ = best_of(10, evaluate_costra, lambda: (load_costra(), embeddings))
    ours_time, result = best_of(20, evaluate_costra, lambda: (corpus, embeddings))
    ours_scores = result.reference_scores()

    print(
        f"Costra 1.1: {len(corpus)} sentences, {len(result.comparisons)} scored "
        f"comparisons, {DIM}-d random float32 embeddings\n"
    )
    print(f"{'evaluator':<44}{'time (ms)':>12}{'ratio':>10}")
    for label, seconds in (
        ("costra.CostraEvaluator.evaluate", reference_time),
        ("evaluate_costra, first call on the corpus", first_time),
        ("evaluate_costra, repeated call", ours_time),
    ):
        print(f"{label:<44}{seconds * 1e3:>12.1f}{reference_time / seconds:>10.1f}")
    print(f"\n{'score':<20}{'reference':>10}{'ours':>10}{'equal':>8}")
    for key, value in reference_scores.items():
        equal = value == ours_scores[key]
        print(f"{key:<20}{value:>10.3f}{ours_scores[key]:>10.3f}{str(equal):>8}")
    print(f"\nall scores equal: {reference_scores == ours_scores}")


if __name__ == "__main__":
    main()
