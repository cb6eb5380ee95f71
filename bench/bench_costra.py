"""Costra: the ``costra`` package's reference evaluator versus ours, same embeddings.

All 6,968 sentences with 300-d random float32 embeddings (seed 0). Each evaluator is
timed from embeddings to scores (the reference rebuilds its comparisons on every call,
and so does ours); best of several runs. Run: ``python bench/bench_costra.py``.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.corpora.costra import load_costra  # noqa: E402
from app.evaluations.costra import evaluate_costra  # noqa: E402

DIM = 300


def best_of(runs: int, function, *args):
    """(best wall time in seconds, last result)."""
    times = []
    for _ in range(runs):
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
    embeddings = np.random.default_rng(0).standard_normal((len(corpus), DIM),
                                                           dtype=np.float32)

    reference_time, reference_scores = best_of(3, reference.evaluate, embeddings)
    ours_time, result = best_of(20, evaluate_costra, corpus, embeddings)
    ours_scores = result.reference_scores()

    print(f"Costra 1.1: {len(corpus)} sentences, {len(result.comparisons)} scored "
          f"comparisons, {DIM}-d random float32 embeddings\n")
    print(f"{'evaluator':<32}{'time (ms)':>12}{'ratio':>10}")
    print(f"{'costra.CostraEvaluator.evaluate':<32}{reference_time * 1e3:>12.1f}{1:>10.1f}")
    print(f"{'app.evaluations.costra':<32}{ours_time * 1e3:>12.1f}"
          f"{reference_time / ours_time:>10.1f}")
    print(f"\n{'score':<20}{'reference':>10}{'ours':>10}{'equal':>8}")
    for key, value in reference_scores.items():
        equal = value == ours_scores[key]
        print(f"{key:<20}{value:>10.3f}{ours_scores[key]:>10.3f}{str(equal):>8}")
    print(f"\nall scores equal: {reference_scores == ours_scores}")


if __name__ == "__main__":
    main()
