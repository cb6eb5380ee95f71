"""URAE trained vs its untrained initial weights: paraphrase ranking on the full MSRP
corpus (each positive pair's partner ranked among all 10,944 sentences by cosine; MRR and
accuracy@1), for the root and the mean of nodes, after 1-3 epochs on the first N MSRP
sentences, with training speed.
Usage: python bench/measure_urae.py [MSRP_FOLDER] [N]"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sentspace.app.analysis.evaluations.ranking import iter_evaluate_ranking  # noqa: E402
from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.models.urae import URAE  # noqa: E402


def ranking(corpus, encoder, vector: str) -> str:
    encoder.vector = vector
    metrics = run_job(
        iter_evaluate_ranking(corpus, encoder.encode(corpus.texts), n_resamples=0)
    ).metrics()
    return f"{vector} MRR {metrics['MRR']:.4f} acc@1 {metrics['accuracy@1']:.4f}"


def main() -> None:
    folder = sys.argv[1] if len(sys.argv) > 1 else str(ROOT.parent / "shared/data/msrp")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    corpus = load_corpus(folder)
    texts = list(corpus.texts[:n])
    for epochs in (1, 2, 3):
        start = time.perf_counter()
        trained = URAE(epochs=epochs).fit(texts)
        speed = trained.n_training_examples_ * epochs / (time.perf_counter() - start)
        if epochs == 1:
            untrained = trained.untrained()
            print(
                f"untrained: {ranking(corpus, untrained, 'root')}; "
                f"{ranking(corpus, untrained, 'mean')}",
                flush=True,
            )
        print(
            f"{epochs} epoch(s) on {n:,} sentences ({speed:.0f} sentences/s): "
            f"{ranking(corpus, trained, 'root')}; {ranking(corpus, trained, 'mean')}",
            flush=True,
        )


if __name__ == "__main__":
    main()
