"""Paraphrase-ranking speed and memory (issue 4).

    .venv/bin/python bench/bench_ranking.py [--data ../shared/data]

1. Full MSRP pool (every distinct sentence of train+test, 7,800 queries), 300-d float32
   embeddings: our ranking (no bootstrap; and with the default 1,000-resample intervals)
   against the bare work it needs, the query x pool matrix product plus an argpartition
   for the top 100, timed in the same run (best of 3).
2. A 100,000-sentence pool: peak RSS of a fresh process running the blocked ranking,
   against what the full query x pool matrix alone would take.
"""

from __future__ import annotations

import argparse
import csv
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import best_of  # noqa: E402

from sentspace.app.analysis.evaluations.ranking import iter_evaluate_ranking, ranking_queries  # noqa: E402
from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora.model import Corpus, PairTable  # noqa: E402


def msrp_pairs(data: Path) -> Corpus:
    """MSRP train+test as a pair corpus, sentences identified by their MSRP id."""
    index: dict[str, int] = {}
    texts, first, second, label, split = [], [], [], [], []
    for part in ("train", "test"):
        with open(data / "msrp" / f"msr_paraphrase_{part}.txt", encoding="utf-8-sig") as f:
            reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
            next(reader)
            for quality, id1, id2, s1, s2 in reader:
                for sid, text in ((id1, s1), (id2, s2)):
                    if sid not in index:
                        index[sid] = len(texts)
                        texts.append(text)
                first.append(index[id1])
                second.append(index[id2])
                label.append(int(quality))
                split.append(part)
    n = len(first)
    return Corpus(
        "msrp",
        tuple(texts),
        tuple(index),
        pairs=PairTable(first, second, label, [np.nan] * n, tuple(split), ("MSRP",) * n),
    )


def bare(embeddings: np.ndarray, query: np.ndarray) -> None:
    unit = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)
    similarities = unit[query] @ unit.T
    np.argpartition(-similarities, 99, axis=1)


def synthetic(n_pool: int, n_pairs: int, dim: int, seed: int = 0) -> tuple[Corpus, np.ndarray]:
    rng = np.random.default_rng(seed)
    chosen = rng.choice(n_pool, size=2 * n_pairs, replace=False)
    corpus = Corpus(
        "synthetic",
        tuple(f"s{i}" for i in range(n_pool)),
        tuple(str(i) for i in range(n_pool)),
        pairs=PairTable(
            chosen[:n_pairs],
            chosen[n_pairs:],
            np.ones(n_pairs),
            np.full(n_pairs, np.nan),
            ("train",) * n_pairs,
            ("s",) * n_pairs,
        ),
    )
    return corpus, rng.standard_normal((n_pool, dim), dtype=np.float32)


def high_water_mb() -> float:
    """Peak RSS of this process (VmHWM; unlike ru_maxrss it is not inherited from the
    parent across fork and exec)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(n_pool: int, n_pairs: int, dim: int, memory_mb: float) -> None:
    corpus, embeddings = synthetic(n_pool, n_pairs, dim)
    before = high_water_mb()
    start = time.perf_counter()
    result = run_job(iter_evaluate_ranking(corpus, embeddings, memory_mb=memory_mb, n_resamples=0))
    elapsed = time.perf_counter() - start
    peak = high_water_mb()
    print(f"{before:.0f} {peak:.0f} {elapsed:.2f} {result.mrr:.6f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data"
    )
    parser.add_argument("--child", nargs=4, type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        n_pool, n_pairs, dim, memory_mb = args.child
        child(int(n_pool), int(n_pairs), int(dim), memory_mb)
        return

    corpus = msrp_pairs(args.data)
    _, query, _, _ = ranking_queries(corpus)
    embeddings = np.random.default_rng(0).standard_normal((len(corpus), 300)).astype(np.float32)
    ours = best_of(lambda: run_job(iter_evaluate_ranking(corpus, embeddings, n_resamples=0)))
    with_ci = best_of(lambda: run_job(iter_evaluate_ranking(corpus, embeddings)))
    baseline = best_of(lambda: bare(embeddings, query))
    print(f"MSRP pool {len(corpus):,} sentences, {len(query):,} queries, 300-d float32")
    print(f"{'task':<48}{'seconds':>9}{'ratio':>8}")
    print(f"{'bare product + argpartition(k=100)':<48}{baseline:>9.3f}{1.0:>8.2f}")
    print(f"{'ranking (no intervals)':<48}{ours:>9.3f}{ours / baseline:>8.2f}")
    print(
        f"{'ranking + 1,000-resample bootstrap intervals':<48}{with_ci:>9.3f}"
        f"{with_ci / baseline:>8.2f}"
    )

    n_pool, n_pairs, dim, memory_mb = 100_000, 2_000, 300, 256
    output = subprocess.run(
        [sys.executable, __file__, "--child", str(n_pool), str(n_pairs), str(dim), str(memory_mb)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    before, peak, elapsed = float(output[0]), float(output[1]), float(output[2])
    full = 2 * n_pairs * n_pool * 4 / 2**20
    print()
    print(
        f"pool {n_pool:,} sentences, {2 * n_pairs:,} queries, {dim}-d, budget "
        f"{memory_mb} MB per block"
    )
    print(f"{'':<48}{'MB':>9}")
    print(f"{'peak RSS with embeddings built':<48}{before:>9.0f}")
    print(f"{'peak RSS after ranking':<48}{peak:>9.0f}")
    print(f"{'growth during ranking':<48}{peak - before:>9.0f}")
    print(f"{'full query x pool float32 matrix would be':<48}{full:>9.0f}")
    print(f"ranking time {elapsed:.2f} s")


if __name__ == "__main__":
    main()
