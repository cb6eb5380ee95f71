"""Similarity attribution of one pair versus a plain encode of the same pair.

For each encoder, the median wall time of ``explain_pair`` on real SICK pairs (fitted
encoders fitted once on SICK beforehand, as the GUI passes its run's encoder) next to
the median time of ``encoder.encode([a, b])``, measured in the same process. Targets:
under 100 ms for additive encoders, under 1 s for MiniLM on the CPU.
Run: ``python bench/bench_explain.py [--data ../shared/data]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sentspace.app.analysis.explain import explain_pair  # noqa: E402
from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.models import make_encoder  # noqa: E402

ENCODERS = ("bow", "tfidf", "random-bow", "glove-mean", "glove-sum", "minilm")
N_PAIRS = 20


def median_ms(function, pairs) -> float:
    times = []
    for a, b in pairs:
        start = time.perf_counter()
        function(a, b)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data")
    )
    args = parser.parse_args()
    corpus = load_corpus(Path(args.data) / "sick")
    pairs = [
        (corpus.texts[i], corpus.texts[j])
        for i, j in zip(
            corpus.pairs.first[:N_PAIRS].tolist(), corpus.pairs.second[:N_PAIRS].tolist()
        )
    ]
    print(
        f"median over {N_PAIRS} SICK pairs on this machine's CPU ({os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f})\n"
    )
    print(f"{'encoder':<12}{'method':<32}{'explain (ms)':>14}{'encode (ms)':>13}{'ratio':>8}")
    for spec in ENCODERS:
        encoder = make_encoder(spec)
        if encoder.requires_fit:
            encoder.fit(corpus.texts)
        encoder.encode(list(pairs[0]))  # warm: load vectors or the model once
        method = run_job(explain_pair(*pairs[0], encoder)).method
        explain = median_ms(
            lambda a, b, encoder=encoder: run_job(explain_pair(a, b, encoder)), pairs
        )
        encode = median_ms(lambda a, b, encoder=encoder: encoder.encode([a, b]), pairs)
        print(f"{spec:<12}{method:<32}{explain:>14.2f}{encode:>13.2f}{explain / encode:>8.1f}")


if __name__ == "__main__":
    main()
