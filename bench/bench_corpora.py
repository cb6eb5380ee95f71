"""Loading the real datasets: wall time per format against the 1 s target.

Each corpus is loaded from ``../shared/data`` several times (the first run warms the OS
file cache); the table shows the best and median time, the target and the ratio
best / target (below 1 meets it). STS 2012-2016 + Benchmark and all of MSRP are the
formats with a target in issue 3; the others are shown for reference.
Run: ``python bench/bench_corpora.py [RUNS]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.app.services import format_table  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
TARGET_S = 1.0
CORPORA = {
    "STS 2012-2016 + Benchmark": "sts",
    "MSRP (train, test, data)": "msrp",
    "SICK": "sick",
    "Opinosis topics": "opinosis",
    "SentEval MR": "senteval-transfer/MR",
    "SentEval TREC": "senteval-transfer/TREC",
}


def main(runs: int = 7) -> None:
    rows = []
    for label, relative in CORPORA.items():
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            corpus = load_corpus(DATA / relative)
            times.append(time.perf_counter() - start)
        best = min(times)
        pairs = len(corpus.pairs) if corpus.pairs is not None else 0
        rows.append(
            [
                label,
                f"{len(corpus):,}",
                f"{pairs:,}",
                f"{best * 1000:.0f}",
                f"{statistics.median(times) * 1000:.0f}",
                f"{TARGET_S * 1000:.0f}",
                f"{best / TARGET_S:.2f}",
            ]
        )
    print(f"corpus loading, best and median of {runs} runs")
    print(
        format_table(
            ["corpus", "sentences", "pairs", "best ms", "median ms", "target ms", "best/target"],
            rows,
        )
    )


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:2]))
