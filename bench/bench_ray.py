"""Sentences per second of sharded encoding: the local engine against Ray Data with one and
two CPU actors, on one local Ray instance of 2 CPUs.

The sentences are bench_encoders.py's (distinct sentences of MSRP, SICK, STS-B, MR, SUBJ,
CR, MPQA, shuffled with seed 0), the first ``--sentences`` of them, encoded into shards
of ``--shard-rows`` in a fresh folder each run. A Ray run's time includes starting its
actors (each loads the encoder); starting Ray itself is timed apart. Each engine's
shards are checked equal to the local engine's. Ray is shut down at the end.

    python bench/bench_ray.py                                  # glove-mean, 50,000
    python bench/bench_ray.py --encoder minilm --sentences 2000 --shard-rows 256
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_encoders import bench_texts  # noqa: E402

from sentspace.app.analysis.distributed import encode_shards  # noqa: E402
from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora.model import Corpus  # noqa: E402
from sentspace.models.precomputed import SHARD_MANIFEST  # noqa: E402


def timed(corpus: Corpus, encoder: str, out: Path, shard_rows: int, **engine) -> float:
    start = time.perf_counter()
    run_job(encode_shards(corpus, encoder, out, shard_rows=shard_rows, **engine))
    return time.perf_counter() - start


def hashes(out: Path) -> list[str]:
    return [s["sha256"] for s in json.loads((out / SHARD_MANIFEST).read_text())["shards"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", default="glove-mean")
    parser.add_argument("--sentences", type=int, default=50_000)
    parser.add_argument("--shard-rows", type=int, default=8192)
    args = parser.parse_args()

    import ray  # noqa: PLC0415 - the bench is about it

    texts = bench_texts()[: args.sentences]
    corpus = Corpus("bench", tuple(texts), tuple(str(i) for i in range(len(texts))))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        reference = Path(folder) / "local"
        local = timed(corpus, args.encoder, reference, args.shard_rows)
        rows.append(("local (this process)", local))
        start = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        started = time.perf_counter() - start
        try:
            for workers in (1, 2):
                out = Path(folder) / f"ray-{workers}"
                seconds = timed(
                    corpus, args.encoder, out, args.shard_rows, engine="ray", workers=workers
                )
                assert hashes(out) == hashes(reference), "Ray shards differ from local"
                rows.append((f"ray, {workers} CPU actor{'s' * (workers > 1)}", seconds))
        finally:
            ray.shutdown()

    print(
        f"{args.encoder}, {len(corpus):,} sentences, shards of {args.shard_rows:,}; "
        f"Ray started in {started:.1f} s (not counted)"
    )
    one_worker = rows[1][1]
    print(f"{'engine':<22} {'seconds':>8} {'sentences/s':>12} {'x local':>8} {'x 1 actor':>10}")
    for name, seconds in rows:
        print(
            f"{name:<22} {seconds:>8.2f} {len(corpus) / seconds:>12,.0f} "
            f"{local / seconds:>8.2f} {one_worker / seconds:>10.2f}"
        )


if __name__ == "__main__":
    main()
