"""The NMT encoder on a Multi30K pair (default sizes, or a spec's): training time, the val
set's BLEU, chrF and next-word accuracy beside copying the source and beside the
untrained network. Saves the trained model into MODELS_DIR when given (``sentspace``
loads it by path).
Usage: python bench/measure_nmt.py [PAIR or SPEC] [MODELS_DIR]
       (PAIR: en-de, en-fr, cs-en; SPEC: e.g. 'nmt:en-de?epochs=1&max_pairs=5000')"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora.multi30k import read_gz_lines  # noqa: E402
from sentspace.models import make_encoder  # noqa: E402
from sentspace.models.nmt import multi30k_files  # noqa: E402


def main() -> None:
    spec = sys.argv[1] if len(sys.argv) > 1 else "en-de"
    encoder = make_encoder(spec if spec.startswith("nmt") else f"nmt:{spec}")
    pair = encoder.pair
    start = time.perf_counter()

    def show(progress) -> None:
        if not progress.stage.startswith("training") or progress.done % 100 == 0:
            print(
                f"{time.perf_counter() - start:7.0f} s  {progress.stage} "
                f"[{progress.done}/{progress.total}]",
                flush=True,
            )

    run_job(encoder.iter_fit([]), show)
    seconds = time.perf_counter() - start
    sources, targets = (read_gz_lines(path) for path in multi30k_files(pair, "val"))
    untrained = run_job(encoder.untrained().iter_score(sources, targets, "Multi30K val"))
    score = encoder.translation_
    print(
        f"{encoder.name} {encoder.params()}\n{encoder.n_training_sentences_:,} pairs, "
        f"{encoder.epochs} epochs in {seconds / 60:.1f} min (scoring included), loss "
        f"{encoder.losses_[0]:.2f} -> {encoder.losses_[-1]:.2f}\n{score.message()}\nBLEU {score.bleu_signature}\n"
        f"untrained network: BLEU {untrained.bleu:.1f}, next-word accuracy "
        f"{untrained.accuracy:.1%}",
        flush=True,
    )
    if len(sys.argv) > 2:
        print(f"saved {encoder.save(sys.argv[2])}")


if __name__ == "__main__":
    main()
