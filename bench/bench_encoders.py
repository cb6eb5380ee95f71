"""Encoding speed and peak memory of the encoder families on 100,000 sentences.

The sentences are the distinct sentences of several datasets in ``../shared/data`` (MSRP,
SICK, STS Benchmark, MR, SUBJ, CR, MPQA), shuffled with seed 0 and cycled to 100,000.
Each encoder runs in its own subprocess, so its peak resident memory is its own: it is
fitted (BOW, TF-IDF: on all 100,000 sentences) or loads its vectors, then encodes all
sentences three times; the table gives the best time. ``extra`` is the peak memory the
encoding added above what the process held before it. The last row times a cache hit of
a 100,000 x 384 float32 matrix (hash check and memory map), the size the transformer
encoders produce. Run: ``python bench/bench_encoders.py``.
"""

from __future__ import annotations

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

DATA = ROOT.parent / "shared" / "data"
N_SENTENCES = 100_000
TARGET = 50_000  # sentences per second, for BOW and GloVe mean
ENCODERS = ["bow", "tfidf", "glove-mean", "glove-sum", "random-bow"]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def bench_texts() -> list[str]:
    """100,000 sentences from the shared datasets (see the module docstring)."""
    texts = [row.split("\t")[1] for row in _lines(DATA / "msrp" / "msr_paraphrase_data.txt")[1:]]
    for name in ("SICK_train.txt", "SICK_trial.txt", "SICK_test_annotated.txt"):
        texts += [t for row in _lines(DATA / "sick" / name)[1:] for t in row.split("\t")[1:3]]
    for name in ("sts-train.csv", "sts-dev.csv", "sts-test.csv"):
        texts += [
            t for row in _lines(DATA / "sts" / "STSBenchmark" / name) for t in row.split("\t")[5:7]
        ]
    transfer = DATA / "senteval-transfer"
    for folder in ("MR", "SUBJ", "CR", "MPQA"):
        for path in sorted((transfer / folder).iterdir()):
            texts += _lines(path)
    distinct = sorted({text.strip() for text in texts if text.strip()})
    order = np.random.default_rng(0).permutation(len(distinct))
    return [distinct[i] for i in np.resize(order, N_SENTENCES)]


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def run_one(name: str) -> dict:
    """Fit or load, then time encoding; runs inside the subprocess."""
    from sentspace.models import make_encoder

    texts = bench_texts()
    encoder = make_encoder(name)
    start = time.perf_counter()
    if encoder.requires_fit:
        encoder.fit(texts)
    else:
        encoder.encode(texts[:1])  # loads the word vectors
    prepare = time.perf_counter() - start
    before = _peak_mib()
    times = []
    for _ in range(3):
        start = time.perf_counter()
        matrix = encoder.encode(texts)
        times.append(time.perf_counter() - start)
        del matrix
    return {
        "name": name,
        "prepare_s": prepare,
        "encode_s": min(times),
        "dim": encoder.dim,
        "peak_mib": _peak_mib(),
        "extra_mib": _peak_mib() - before,
        "distinct": len(set(texts)),
    }


def run_cache_hit() -> dict:
    """Store then load a 100,000 x 384 float32 matrix through the embedding cache."""
    from sentspace.app.analysis.cache import EmbeddingCache

    matrix = np.random.default_rng(0).standard_normal((N_SENTENCES, 384), dtype=np.float32)
    with tempfile.TemporaryDirectory() as folder:
        cache = EmbeddingCache(Path(folder))
        cache.store("bench", matrix, {})
        del matrix
        before = _peak_mib()
        times = []
        for _ in range(5):
            start = time.perf_counter()
            loaded, _ = cache.load("bench")
            float(loaded[-1].sum())  # touch the mapped data
            times.append(time.perf_counter() - start)
            del loaded
    return {
        "name": "cache hit 100,000 x 384",
        "prepare_s": 0.0,
        "encode_s": min(times),
        "dim": 384,
        "peak_mib": _peak_mib(),
        "extra_mib": _peak_mib() - before,
    }


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        name = sys.argv[2]
        print(json.dumps(run_cache_hit() if name == "cache" else run_one(name)))
        return
    rows = []
    for name in [*ENCODERS, "cache"]:
        output = subprocess.run(
            [sys.executable, __file__, "--one", name], check=True, capture_output=True, text=True
        ).stdout
        rows.append(json.loads(output.splitlines()[-1]))
    bow_rate = N_SENTENCES / rows[0]["encode_s"]
    print(
        f"{N_SENTENCES:,} sentences ({rows[0]['distinct']:,} distinct, from "
        f"../shared/data), best of 3 encodes; target {TARGET:,}/s for bow and glove-mean\n"
    )
    print(
        f"{'encoder':<26}{'dim':>6}{'fit/load s':>11}{'encode s':>10}{'sent/s':>11}"
        f"{'vs bow':>8}{'vs target':>10}{'peak MiB':>10}{'extra MiB':>10}"
    )
    for row in rows:
        rate = N_SENTENCES / row["encode_s"]
        print(
            f"{row['name']:<26}{row['dim']:>6}{row['prepare_s']:>11.2f}"
            f"{row['encode_s']:>10.3f}{rate:>11,.0f}{rate / bow_rate:>8.2f}"
            f"{rate / TARGET:>10.2f}{row['peak_mib']:>10.0f}{row['extra_mib']:>10.0f}"
        )


if __name__ == "__main__":
    main()
