"""Training and encoding speed of the PyTorch-trained encoder families, against glove-mean.

Each family trains one epoch at its default sizes on ``--train`` examples of real text:
ordered State of the Union sentences (``../shared/data/state-union``) for FastSent,
S(D)AE, SkipThought and URAE, WordNet (word, definition) rows for DictRep. Training speed is
training examples per second. Each then encodes ``--encode`` sentences of the shared
datasets (``bench_encoders.bench_texts``); the ratio is its encoding time over
glove-mean's on the same sentences in this process (FastSent must stay within 2x: both
are sums of word vectors). Runs on CUDA when torch sees a GPU.
Run: ``python bench/bench_trained_encoders.py [--train 2000] [--encode 10000] [--family F]``.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_encoders import DATA, bench_texts  # noqa: E402
from timing import best_of  # noqa: E402

from sentspace.models import TRAINED_ON_FILE, make_encoder  # noqa: E402
from sentspace.models.dictrep import read_definitions  # noqa: E402
from sentspace.models.fastsent import FastSent  # noqa: E402
from sentspace.models.neural import device, read_ordered_text  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=2000, help="training examples")
    parser.add_argument("--encode", type=int, default=10_000, help="sentences encoded")
    parser.add_argument(
        "--family",
        action="append",
        choices=list(TRAINED_ON_FILE),
        help="bench only this family (repeatable; default: all)",
    )
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the coverage warnings of out-of-domain text
    ordered = read_ordered_text(DATA / "state-union" / "sentences.txt")[: args.train]
    definitions = [
        f"{word}\t{definition}"
        for word, definition in read_definitions(DATA / "wordnet-definitions" / "definitions.tsv")
    ]
    definitions = definitions[:: max(1, len(definitions) // args.train)][: args.train]
    texts = bench_texts()[: args.encode]
    glove = make_encoder("glove-mean")
    glove.encode(texts[:10])
    reference = best_of(lambda: glove.encode(texts))
    print(
        f"device: {device()}; {len(texts):,} sentences encoded; glove-mean "
        f"{len(texts) / reference:,.0f} sentences/s\n"
    )
    print(
        f"{'family':<20} {'train examples/s':>17} {'encode sentences/s':>19} "
        f"{'encode time / glove-mean':>25}"
    )
    for family, cls in TRAINED_ON_FILE.items():
        if args.family and family not in args.family:
            continue
        encoder = cls(epochs=1)
        training = definitions if family.startswith("dictrep") else ordered
        start = time.perf_counter()
        encoder.fit(training)
        trained = time.perf_counter() - start
        encoder.encode(texts[:10])
        # Best of three for the sums of word vectors (milliseconds), one run for networks.
        seconds = best_of(
            lambda encoder=encoder: encoder.encode(texts),
            repeats=3 if isinstance(encoder, FastSent) else 1,
        )
        print(
            f"{family:<20} {encoder.n_training_examples_ / trained:>17,.0f} "
            f"{len(texts) / seconds:>19,.0f} "
            f"{seconds / reference:>25.2f}"
        )


if __name__ == "__main__":
    main()
