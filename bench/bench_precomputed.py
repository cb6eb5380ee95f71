"""Importing precomputed embeddings at scale: 1,000,000 x 384 float32, aligned to a corpus.

    .venv/bin/python bench/bench_precomputed.py [--rows 1000000] [--dim 384] [--repeat 3]
        [--dir DIR] [--keep]

The corpus is synthetic (``Corpus`` built directly: ``--rows`` distinct sentences, ids
``s0``, ``s1``, ...). Two files are written once into ``--dir`` (default: a temporary
folder, deleted afterwards unless ``--keep``), random float32 vectors:

- ``vectors.npy``: one row per corpus entry in corpus order: aligned by row order;
- ``vectors.parquet``: an ``id`` column and a fixed-size-list ``vector`` column, rows in
  a shuffled order: aligned by id (row groups of 100,000, no compression).

Each measurement is a fresh subprocess (so its memory is its own), ``--repeat`` times;
the files are in the page cache (just written), as for a user re-opening a file. Timed:
``Precomputed(path, corpus)`` (read, check every value is finite, hash the file, align)
and then ``aligned()`` (the matrix the evaluations get). Memory: the growth of the
process's resident set over that, split into anonymous memory (copies) and file pages
mapped in (``RssAnon`` / ``RssFile`` in ``/proc/self/status``), and its peak (``VmHWM``
over the resident set before); for the .npy, ``aligned()``
must be an ``np.memmap`` and RssAnon must not grow by anything near the array's size.

References, measured in the same run: reading the file once sequentially (4 MiB reads
into one buffer: the I/O floor of any full check or hash) and, for Parquet,
``pyarrow.parquet.read_table`` alone. Targets (issue 10): row order < 2 s with no copy,
by id < 10 s.

Last, the Embedding Projector's ``vectors.tsv`` (``--tsv-rows``, default 100,000 rows of
the same vectors written with ``%.7g``): parsed by pyarrow's CSV reader (what
``Precomputed`` does) against the value-by-value reader it falls back on to name the
line of a bad value (the reference).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, ROOT)

def status():
    fields = {}
    for line in open("/proc/self/status"):
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            fields[key] = int(value.split()[0]) * 1024
    return fields

from sentspace.app.corpora.model import Corpus
from sentspace.models.precomputed import Precomputed
from pathlib import Path
PATH = Path(PATH)
n = ROWS
corpus = Corpus(name="synthetic", texts=tuple(f"sentence number {i} of the bench" for i in
                                              range(n)),
                ids=tuple(f"s{i}" for i in range(n)))
if KIND == "read":
    buffer = bytearray(1 << 22)
    before = status()
    start = time.perf_counter()
    with open(PATH, "rb", buffering=0) as handle:
        while handle.readinto(buffer):
            pass
    result = {"seconds": time.perf_counter() - start}
elif KIND == "read_table":
    import pyarrow.parquet as pq
    before = status()
    start = time.perf_counter()
    table = pq.read_table(PATH)
    result = {"seconds": time.perf_counter() - start}
elif KIND in ("tsv_fast", "tsv_by_line"):
    from sentspace.app.corpora.build import read_lines
    from sentspace.models.precomputed import _parse_tsv_by_line, _parse_tsv_fast
    before = status()
    start = time.perf_counter()
    vectors = (_parse_tsv_fast(PATH) if KIND == "tsv_fast"
               else _parse_tsv_by_line(PATH, read_lines(PATH)))
    result = {"seconds": time.perf_counter() - start, "shape": list(vectors.shape),
              "checksum": float(np.abs(vectors.astype(np.float64)).sum())}
else:
    before = status()
    start = time.perf_counter()
    encoder = Precomputed(PATH, corpus)
    loaded = time.perf_counter() - start
    matrix = encoder.aligned()
    result = {"seconds": time.perf_counter() - start, "load": loaded,
              "aligned_by": encoder.aligned_by, "memmap": isinstance(matrix, np.memmap),
              "shape": list(matrix.shape)}
after = status()
result.update({key: after[key] - before[key] for key in after})
result["peak"] = after["VmHWM"] - before["VmRSS"]
print("BENCH " + json.dumps(result))
"""


def write_files(folder: Path, rows: int, dim: int) -> tuple[Path, Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    npy = folder / "vectors.npy"
    array = np.lib.format.open_memmap(npy, mode="w+", dtype=np.float32, shape=(rows, dim))
    step = 100_000
    for start in range(0, rows, step):
        stop = min(rows, start + step)
        array[start:stop] = rng.standard_normal((stop - start, dim), dtype=np.float32)
    array.flush()
    order = rng.permutation(rows)
    parquet = folder / "vectors.parquet"
    schema = pa.schema([("id", pa.string()), ("vector", pa.list_(pa.float32(), dim))])
    with pq.ParquetWriter(parquet, schema, compression="none") as writer:
        for start in range(0, rows, step):
            chunk = order[start : start + step]
            vectors = pa.FixedSizeListArray.from_arrays(
                pa.array(np.asarray(array[chunk]).reshape(-1)), dim
            )
            ids = pa.array([f"s{i}" for i in chunk])
            writer.write_table(pa.table({"id": ids, "vector": vectors}, schema=schema))
    del array
    return npy, parquet


def child(kind: str, path: Path, rows: int) -> dict:
    code = f"ROOT = {str(ROOT)!r}\nPATH = {str(path)!r}\nROWS = {rows}\nKIND = {kind!r}\n" + CHILD
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    line = next((out for out in done.stdout.splitlines() if out.startswith("BENCH ")), None)
    if line is None:
        raise RuntimeError(f"child failed ({done.returncode}):\n{done.stderr}")
    return json.loads(line[6:])


def compare_tsv(folder: Path, npy: Path, rows: int, repeat: int) -> None:
    tsv = folder / "vectors.tsv"
    if not tsv.exists():
        np.savetxt(tsv, np.load(npy, mmap_mode="r")[:rows], delimiter="\t", fmt="%.7g")
    print(
        f"\nProjector vectors.tsv, {rows:,} rows ({tsv.stat().st_size / 2**20:,.0f} MiB "
        f"of text); best and median of {repeat} fresh processes\n"
    )
    header = f"{'parser':<34} {'best s':>7} {'median':>7} {'ratio':>7}  rows/s"
    print(header)
    print("-" * len(header))
    runs = {
        kind: [child(kind, tsv, rows) for _ in range(repeat)]
        for kind in ("tsv_by_line", "tsv_fast")
    }
    reference = min(r["seconds"] for r in runs["tsv_by_line"])
    for kind, label in (
        ("tsv_by_line", "value by value (the fallback)"),
        ("tsv_fast", "pyarrow CSV reader (used)"),
    ):
        times = [r["seconds"] for r in runs[kind]]
        best = min(times)
        print(
            f"{label:<34} {best:>7.2f} {statistics.median(times):>7.2f} "
            f"{best / reference:>6.3f}x  {rows / best:,.0f}"
        )
    same = runs["tsv_fast"][0]["checksum"] == runs["tsv_by_line"][0]["checksum"]
    print(f"same values: {same}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--tsv-rows", type=int, default=100_000)
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="bench_precomputed_"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        npy, parquet = folder / "vectors.npy", folder / "vectors.parquet"
        if not (npy.exists() and parquet.exists()):
            start = time.perf_counter()
            write_files(folder, args.rows, args.dim)
            print(
                f"wrote {npy.stat().st_size / 2**30:.2f} GiB .npy and "
                f"{parquet.stat().st_size / 2**30:.2f} GiB .parquet in "
                f"{time.perf_counter() - start:.0f} s"
            )
        size = npy.stat().st_size
        cases = [
            ("row order (.npy)", "read", npy, "precomputed", npy),
            ("by id (.parquet)", "read_table", parquet, "precomputed", parquet),
        ]
        print(
            f"{args.rows:,} x {args.dim} float32 ({size / 2**30:.2f} GiB); best and "
            f"median of {args.repeat} fresh processes; memory growth in MiB\n"
        )
        header = (
            f"{'alignment':<18} {'what':<26} {'best s':>7} {'median':>7} {'spread':>7} "
            f"{'ratio':>6} {'anon MiB':>9} {'file MiB':>9} {'peak MiB':>9}  notes"
        )
        print(header)
        print("-" * len(header))
        for label, ref_kind, ref_path, kind, path in cases:
            reference = [child(ref_kind, ref_path, args.rows) for _ in range(args.repeat)]
            runs = [child(kind, path, args.rows) for _ in range(args.repeat)]
            ref_best = min(r["seconds"] for r in reference)
            for what, results in (
                ("read file once" if ref_kind == "read" else "pq.read_table alone", reference),
                ("Precomputed + aligned()", runs),
            ):
                times = [r["seconds"] for r in results]
                best = min(times)
                anon = max(r["RssAnon"] for r in results) / 2**20
                mapped = max(r["RssFile"] for r in results) / 2**20
                peak = max(r["peak"] for r in results) / 2**20
                notes = ""
                if "aligned_by" in results[0]:
                    last = results[0]
                    notes = (
                        f"aligned by {last['aligned_by']}, memmap: {last['memmap']}, "
                        f"constructor {min(r['load'] for r in results):.2f} s"
                    )
                print(
                    f"{label:<18} {what:<26} {best:>7.2f} {statistics.median(times):>7.2f} "
                    f"{max(times) - best:>7.2f} {best / ref_best:>5.2f}x {anon:>9.0f} "
                    f"{mapped:>9.0f} {peak:>9.0f}  {notes}"
                )
        print(
            f"\ntargets: row order < 2 s, no copy (memmap, anon growth << "
            f"{size / 2**20:,.0f} MiB); by id < 10 s"
        )
        compare_tsv(folder, npy, min(args.tsv_rows, args.rows), args.repeat)
    finally:
        if args.dir is None and not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
