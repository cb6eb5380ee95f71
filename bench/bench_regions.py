"""Regions on large layouts: clustering a sample plus nearest-centre assignment.

Layouts of 10k, 100k and 1M points (40 Gaussian blobs, seed 0) over the bundled corpus's
sentences repeated, so the keywords run on real text. Each row times ``find_regions``
(HDBSCAN on at most 20,000 points, assignment of the rest, class-based TF-IDF over all
the texts) against the reference measured in the same run: HDBSCAN alone on the 10k
layout. Run: ``python bench/bench_regions.py [--sizes 10000 100000 1000000]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.app.corpora.model import Corpus  # noqa: E402
from sentspace.app.jobs import run_job  # noqa: E402
from sentspace.app.regions import find_regions  # noqa: E402

N_BLOBS = 40


def blobs(n: int, rng: np.random.Generator) -> np.ndarray:
    centres = rng.uniform(-50, 50, size=(N_BLOBS, 2))
    return (centres[rng.integers(N_BLOBS, size=n)]
            + rng.standard_normal((n, 2))).astype(np.float32)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args()
    texts = load_corpus("msrp-grouped").texts
    rng = np.random.default_rng(0)
    from sklearn.cluster import HDBSCAN
    reference_layout = blobs(args.sizes[0], rng)
    start = time.perf_counter()
    HDBSCAN(min_cluster_size=max(5, round(0.005 * args.sizes[0])),
            copy=True).fit(reference_layout)
    reference = time.perf_counter() - start
    print(f"reference: HDBSCAN alone on {args.sizes[0]:,} points, {reference:.2f} s\n")
    print(f"{'points':>10}{'clustered':>11}{'clusters':>10}{'time (s)':>10}{'ratio':>8}")
    for n in args.sizes:
        layout = blobs(n, rng)
        corpus = Corpus(name=f"tiled {n}", texts=tuple(texts[i % len(texts)] for i in range(n)),
                        ids=tuple(map(str, range(n))))
        start = time.perf_counter()
        regions = run_job(find_regions(corpus, layout))
        seconds = time.perf_counter() - start
        print(f"{n:>10,}{regions.n_clustered:>11,}{regions.n_clusters:>10}{seconds:>10.2f}"
              f"{seconds / reference:>8.1f}")


if __name__ == "__main__":
    main()
