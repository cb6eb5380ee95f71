"""Transformer encoding speed: our wrapper against sentence-transformers' own ``encode``.

The sentences are the first 10,000 sentence rows of ``../shared/data/msrp/
msr_paraphrase_data.txt`` (column 2, as written). Each run is its own subprocess, so its
peak resident memory is its own: it loads the bundled all-MiniLM-L6-v2, warms up on 64
sentences, then encodes all of them once, either through ``SentenceTransformerEncoder``
(batches of 64, with a progress report per batch) or through
``SentenceTransformer.encode(batch_size=64)``. The wrapper's time over the direct call is
the cost it adds (target at most 1.1x).

The cache rows compare loading a cached 100,000 x 384 float32 matrix (hash check, memory
map, and reading every value) with recomputing it; recomputing is not run but
extrapolated linearly from the wrapper's measured rate (a transformer's cost is linear in
the number of sentences at a fixed batch size).

Run: ``python bench/bench_transformer.py [--sentences N] [--batch B]`` (CPU unless torch
sees CUDA; about 1 minute per 1,000 sentences and run on a 2-core machine). ``--model DIR``
times another sentence-transformers folder instead of the bundled one and ``--data FILE``
reads the MSRP sentences from elsewhere (for a machine without ``../shared``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MSRP = ROOT.parent / "shared" / "data" / "msrp" / "msr_paraphrase_data.txt"
CACHE_ROWS, CACHE_DIM = 100_000, 384
TARGET_RATIO = 1.1
TARGET_CACHE = 20


def msrp_sentences(path: Path, n: int) -> list[str]:
    rows = path.read_text(encoding="utf-8", errors="replace").splitlines()[1:]
    texts = [row.split("\t")[1] for row in rows if row.count("\t") >= 1]
    if len(texts) < n:
        sys.exit(f"{path} has {len(texts):,} sentences, fewer than {n:,}")
    return texts[:n]


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def run_one(kind: str, n: int, batch: int, model_dir: str, data: str) -> dict:
    """Load, warm up, encode ``n`` sentences once; runs inside the subprocess."""
    texts = msrp_sentences(Path(data), n)
    from sentspace.models.transformer import BUNDLED_MODEL, SentenceTransformerEncoder

    encoder = SentenceTransformerEncoder(model_dir or BUNDLED_MODEL)
    encoder.batch_size = encoder.cuda_batch_size = batch
    if kind == "wrapper":
        encoder.encode(texts[:batch])
        before = _peak_mib()
        start = time.perf_counter()
        matrix = encoder.encode(texts)
    else:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(
            str(encoder.directory), device=encoder._model().device, local_files_only=True
        )
        model.encode(texts[:batch], batch_size=batch)
        before = _peak_mib()
        start = time.perf_counter()
        matrix = model.encode(
            texts, batch_size=batch, convert_to_numpy=True, show_progress_bar=False
        )
    seconds = time.perf_counter() - start
    assert matrix.shape == (n, 384)
    import torch

    weights = next(encoder._model().parameters()).dtype
    device = encoder.device_
    if device == "cuda":
        device = torch.cuda.get_device_name()
    return {
        "seconds": seconds,
        "peak_mib": _peak_mib(),
        "extra_mib": _peak_mib() - before,
        "device": device,
        "weights": str(weights).removeprefix("torch."),
        "checksum": float(np.abs(matrix).sum()),
    }


def run_cache() -> dict:
    """Store then load a 100,000 x 384 matrix through the embedding cache."""
    from sentspace.app.analysis.cache import EmbeddingCache

    matrix = np.random.default_rng(0).standard_normal((CACHE_ROWS, CACHE_DIM), np.float32)
    with tempfile.TemporaryDirectory() as folder:
        cache = EmbeddingCache(Path(folder))
        cache.store("key", matrix, {})
        times = []
        for _ in range(3):
            start = time.perf_counter()
            loaded, _meta = cache.load("key")
            float(loaded.sum())  # read every value, not just map them
            times.append(time.perf_counter() - start)
    return {"seconds": min(times), "peak_mib": _peak_mib()}


def subprocess_run(one: tuple[str, ...], options: tuple[str, ...] = ()) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--one", *one, *options],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument(
        "--model",
        default="",
        help="a sentence-transformers folder (default: the bundled all-MiniLM-L6-v2)",
    )
    parser.add_argument("--data", default=str(MSRP), help="msr_paraphrase_data.txt")
    parser.add_argument("--one", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        result = (
            run_cache()
            if args.one[0] == "cache"
            else run_one(args.one[0], int(args.one[1]), args.batch, args.model, args.data)
        )
        print(json.dumps(result))
        return
    n = args.sentences
    options = ("--batch", str(args.batch), "--model", args.model, "--data", args.data)
    direct = subprocess_run(("direct", str(n)), options)
    wrapper = subprocess_run(("wrapper", str(n)), options)
    cache = subprocess_run(("cache",))
    ratio = wrapper["seconds"] / direct["seconds"]
    recompute = wrapper["seconds"] * CACHE_ROWS / n
    cache_ratio = recompute / cache["seconds"]
    print(
        f"{args.model or 'all-MiniLM-L6-v2'} on {n:,} MSRP sentences, batch {args.batch}, "
        f"device {wrapper['device']}, {wrapper['weights']} weights"
    )
    print(f"{'run':<34}{'seconds':>10}{'sent/s':>10}{'peak MiB':>10}{'extra MiB':>11}")
    for label, row in (("sentence-transformers encode", direct), ("sentspace wrapper", wrapper)):
        print(
            f"{label:<34}{row['seconds']:>10.2f}{n / row['seconds']:>10.0f}"
            f"{row['peak_mib']:>10.0f}{row['extra_mib']:>11.0f}"
        )
    print(
        f"{'cache load 100,000 x 384':<34}{cache['seconds']:>10.3f}{'':>10}"
        f"{cache['peak_mib']:>10.0f}"
    )
    print(f"{'recompute 100,000 (extrapolated)':<34}{recompute:>10.1f}")
    print(
        f"wrapper / direct time: {ratio:.3f}x (target <= {TARGET_RATIO}x: "
        f"{'met' if ratio <= TARGET_RATIO else 'NOT met'}); outputs agree: "
        f"{abs(wrapper['checksum'] - direct['checksum']) < 1e-3 * direct['checksum']}"
    )
    print(
        f"recompute / cache load: {cache_ratio:,.0f}x (target >= {TARGET_CACHE}x: "
        f"{'met' if cache_ratio >= TARGET_CACHE else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
