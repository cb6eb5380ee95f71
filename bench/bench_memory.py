"""Peak memory of the million-point workflow against the embedding matrix.

    .venv/bin/python bench/bench_memory.py [--rows 1000000] [--dim 384] [--umap]

The matrix is seeded random float32 (a transformer's 384-d output for a million
sentences would take over an hour to encode on this CPU; memory depends on the shape,
not the values): Gaussian points in :data:`INTRINSIC` dimensions mapped linearly into
``--dim`` plus a little noise, as sentence embeddings lie near a low-dimensional
subspace (on full-rank Gaussian rows, the worst case for a graph index, the HNSW build
had not finished after 17 minutes). A child process writes it to a temporary ``.npy``,
so making it costs this process nothing; this process then runs what the app does with
precomputed embeddings, printing its resident set (VmRSS; it counts the pages of the
memory-mapped file read so far, which the kernel can drop), its anonymous part
(RssAnon: the memory the process owns) and its peak so far (VmHWM) after each:

- open: ``np.load(mmap_mode="c")``, as ``precomputed:`` reads a ``.npy``;
- normalise: the unit rows every neighbour search uses;
- neighbour index (the kind ``search="auto"`` picks at this size) + 10-NN of the 10,000
  faithfulness sample and of one query, with the recall measured;
- PCA layout of every point;
- faithfulness on its 10,000-point sample (the index reused);
- with ``--umap``: UMAP fitted on 50,000 and the rest placed (in the layout helper
  process, whose own peak is printed apart).

Peaks are compared with 3x the matrix (the issue's target).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sentspace.app.services import format_table  # noqa: E402


def status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


INTRINSIC = 32


def make(path: str, rows: int, dim: int) -> None:
    """Write a seeded (rows, dim) float32 matrix of intrinsic dimension about
    :data:`INTRINSIC` to ``path``, a block at a time."""
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(rows, dim))
    rng = np.random.default_rng(0)
    basis = rng.standard_normal((INTRINSIC, dim), dtype=np.float32)
    for start in range(0, rows, 100_000):
        stop = min(start + 100_000, rows)
        out[start:stop] = rng.standard_normal(
            (stop - start, INTRINSIC), dtype=np.float32
        ) @ basis + 0.1 * rng.standard_normal((stop - start, dim), dtype=np.float32)
    out.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--umap", action="store_true", help="include the UMAP layout")
    parser.add_argument("--make", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make:
        make(args.make, args.rows, args.dim)
        return
    folder = tempfile.TemporaryDirectory()
    os.environ["SENTSPACE_CACHE_DIR"] = str(Path(folder.name) / "cache")
    path = str(Path(folder.name) / "embeddings.npy")
    subprocess.run(
        [
            sys.executable,
            __file__,
            "--rows",
            str(args.rows),
            "--dim",
            str(args.dim),
            "--make",
            path,
        ],
        check=True,
    )

    from sentspace.app.analysis.ann import iter_knn
    from sentspace.app.analysis.neighbours import Normalised, normalise
    from sentspace.app.analysis.projection import FAITHFULNESS_SAMPLE, iter_faithfulness, project
    from sentspace.app.base.jobs import run_job

    rows: list[list[str]] = []
    began = time.perf_counter()

    def stage(label: str, note: str = "") -> None:
        rows.append(
            [
                label,
                f"{status_mb('VmRSS'):,.0f}",
                f"{status_mb('RssAnon'):,.0f}",
                f"{status_mb('VmHWM'):,.0f}",
                f"{time.perf_counter() - began:.0f}",
                note,
            ]
        )
        print("  " + "  ".join(rows[-1]), flush=True)

    stage("imports")
    embeddings = np.load(path, mmap_mode="c")
    matrix_mb = embeddings.nbytes / 2**20
    stage("open (memory-mapped)")
    unit = normalise(embeddings)
    stage("normalise")
    n = embeddings.shape[0]
    sample = np.sort(np.random.default_rng(0).choice(n, FAITHFULNESS_SAMPLE, replace=False))
    queries = Normalised(unit.matrix[sample], unit.degenerate[sample])
    _, _, search = run_job(iter_knn(queries, unit, 10, exclude=sample))
    stage("index + 10-NN of 10,000", search.describe())
    run_job(iter_knn(unit.matrix[:1], unit, 10))
    stage("one neighbour query")
    layout = run_job(project(embeddings, "pca"))
    stage("PCA layout")
    faithful = run_job(iter_faithfulness(embeddings, layout.coordinates))
    stage("faithfulness (10,000 sample)", faithful.describe())
    if args.umap:
        run_job(project(embeddings, "umap"))
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        stage("UMAP sample + placement", f"helper process peak {children:,.0f} MB")
    peak = status_mb("VmHWM")
    print(
        f"\n{n:,} x {args.dim} float32 = {matrix_mb:,.0f} MB; MB of this process "
        f"(rss now, its anonymous part, peak rss so far); seconds since the start"
    )
    print(format_table(["stage", "rss MB", "anon MB", "peak MB", "s", "note"], rows))
    print(
        f"peak {peak:,.0f} MB = {peak / matrix_mb:.2f}x the matrix (target < 3x); "
        f"load average {', '.join(f'{v:.1f}' for v in os.getloadavg())} on "
        f"{os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
