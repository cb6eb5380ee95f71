"""Every point's 10 nearest neighbours on sparse rows: the exact scan against NN-descent.

    .venv/bin/python bench/bench_sparse_neighbours.py [--corpus multi30k-captions]
        [--exact-queries 5000] [--seed 0]

The 145,000 Multi30K captions encoded by bag of words (sparse CSR rows, as
``sentspace export-map --encoder bow`` has them), their 10 nearest neighbours by cosine,
each point's own row excluded, found in the same run by:

- the exact scan (:func:`sentspace.app.analysis.neighbours.iter_top_k`), what
  ``--search auto`` did for sparse rows at any size. All-pairs at 145,000 rows takes
  minutes of CPU, so by default it is timed on a seeded sample of ``--exact-queries``
  queries against the whole pool and scaled to every query (its cost is linear in the
  queries); ``--exact-queries 0`` scans every query.
- NN-descent (:func:`sentspace.app.analysis.ann.iter_knn` with ``search="ann"``, what
  ``auto`` now does above the exact limit): pynndescent's graph built on one thread from
  the seed, its candidates rescored exactly, and its recall@10 measured against the exact
  scan on 1,000 queries (that measurement is part of the time, as it is of every run).

Wall seconds and this process's CPU seconds (on a shared machine the CPU seconds are the
steadier measure), the ratio to the exact scan's, and recall@10 against the exact scan
on the sampled queries (ties within ``ann.RECALL_TOLERANCE`` count as found). NN-descent
first runs once on 2,000 rows so that numba's compilation is timed on its own row.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sentspace.app.analysis import ann  # noqa: E402
from sentspace.app.analysis.neighbours import Normalised, normalise, top_k  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.models import make_encoder  # noqa: E402

K = 10
WARM_ROWS = 2_000


def timed(function: Callable[[], Any]) -> tuple[Any, float, float]:
    """``function()``'s result, wall seconds and this process's CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="multi30k-captions")
    parser.add_argument("--exact-queries", type=int, default=5_000, help="0: every query")
    parser.add_argument("--seed", type=int, default=0)
    options = parser.parse_args()
    corpus = load_corpus(options.corpus)
    rows = make_encoder("bow").fit(corpus.texts).encode(corpus.texts, sparse=True)
    unit = normalise(rows)
    n = unit.shape[0]
    itself = np.arange(n)
    sampled = options.exact_queries and options.exact_queries < n
    queries = (
        np.sort(np.random.default_rng(options.seed).choice(n, options.exact_queries, replace=False))
        if sampled
        else itself
    )
    (_, exact), exact_wall, exact_cpu = timed(
        lambda: top_k(
            Normalised(unit.matrix[queries], unit.degenerate[queries]), unit, K, exclude=queries
        )
    )
    scale = n / len(queries)
    warm = normalise(rows[:WARM_ROWS])
    _, warm_wall, warm_cpu = timed(
        lambda: ann.knn(warm, warm, K, exclude=np.arange(WARM_ROWS), search="ann", seed=1)
    )
    (_, found, search), graph_wall, graph_cpu = timed(
        lambda: ann.knn(unit, unit, K, exclude=itself, search="ann", seed=options.seed)
    )
    recall = float((found[queries] >= exact[:, -1:] - ann.RECALL_TOLERANCE).mean())
    how = f"{len(queries):,} queries" + (f", x{scale:.1f} to {n:,}" if sampled else "")
    print(
        f"{options.corpus}, bag of words: {n:,} sparse rows x {rows.shape[1]:,} words, "
        f"{rows.nnz:,} stored; {K} nearest neighbours of every point"
    )
    print()
    print("| search | wall (s) | CPU (s) | CPU against exact | recall@10 |")
    print("|---|---|---|---|---|")
    print(
        f"| exact scan ({how}) | {exact_wall * scale:.1f} | {exact_cpu * scale:.1f} "
        "| 1.000 | 1.000 |"
    )
    print(
        f"| NN-descent, numba's first compile ({WARM_ROWS:,} rows) | {warm_wall:.1f} "
        f"| {warm_cpu:.1f} | | |"
    )
    print(
        f"| NN-descent ({ann.GRAPH_NEIGHBOURS} per row, n_jobs=1, seed {options.seed}) "
        f"| {graph_wall:.1f} | {graph_cpu:.1f} | {graph_cpu / (exact_cpu * scale):.3f} "
        f"| {recall:.3f} on the {len(queries):,} queries; reported: "
        f"{search.describe()} |"
    )


if __name__ == "__main__":
    main()
