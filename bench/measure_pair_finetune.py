"""One epoch of pair-finetune (MiniLM) on SICK train vs the base MiniLM: SICK test
relatedness Spearman. Usage: python bench/measure_pair_finetune.py SICK_FOLDER [OBJECTIVE]"""

import sys
import time

from sentspace.app.corpora import load_corpus
from sentspace.app.evaluations.relatedness import evaluate_relatedness, run_relatedness
from sentspace.app.jobs import run_job
from sentspace.models import make_encoder
from sentspace.models.pair_finetune import PairFinetune
from sentspace.models.pairs import corpus_pairs


def main() -> None:
    corpus = load_corpus(sys.argv[1])
    objective = sys.argv[2] if len(sys.argv) > 2 else "auto"
    base = run_job(run_relatedness(corpus, make_encoder("minilm"), splits=("test",),
                                   n_resamples=0))
    print(f"minilm: SICK test spearman {base.pooled.spearman:.4f}", flush=True)
    start = time.perf_counter()
    job = PairFinetune(objective=objective).iter_fit_pairs(corpus_pairs(corpus))
    tuned = run_job(job, lambda p: print(p.stage, p.done, p.total, flush=True)
                    if p.done % 20 == 0 else None)
    seconds = time.perf_counter() - start
    embeddings = tuned.encode(corpus.texts)
    result = evaluate_relatedness(corpus, embeddings, splits=("test",), n_resamples=0)
    print(f"pair-finetune ({objective}, 1 epoch on SICK train, {seconds:.0f} s): SICK test "
          f"spearman {result.pooled.spearman:.4f}; saved in {tuned.folder}", flush=True)


if __name__ == "__main__":
    main()
