"""A pair-trained encoder (default pair-finetune, MiniLM) against its base on SICK:
test relatedness Spearman and entailment accuracy.

The encoder trains exactly as ``sentspace eval relatedness --split test`` trains it
(``run_relatedness``'s steps: ``held_out_pairs`` then ``encode_corpus``, i.e. on SICK
train + trial), so the Spearman printed here is the CLI's. Entailment accuracy is
SentEval's SICK-E protocol on the same embeddings: logistic regression on
[|u - v|, u * v] of the train pairs, accuracy on the test pairs.

Usage: python bench/measure_pair_finetune.py SICK_FOLDER [OBJECTIVE] [--family FAMILY]
(FAMILY: pair-finetune, pair-bow or pair-rnn; the base row is minilm for pair-finetune,
the untrained network for the others).
"""

import argparse
import time

import numpy as np

from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.evaluations.relatedness import NAME, evaluate_relatedness
from sentspace.app.analysis.evaluations.transfer import fit_logistic, pair_features
from sentspace.app.analysis.neighbours import held_out_pairs
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.models import ENCODERS, make_encoder
from sentspace.models.base import fitted_copy
from sentspace.models.pairs import corpus_pairs


def entailment_accuracy(corpus, embeddings) -> float:
    pairs = corpus.pairs
    split = np.asarray(pairs.split, dtype=object)
    train = np.flatnonzero((split == "train") & (pairs.label >= 0))
    test = np.flatnonzero((split == "test") & (pairs.label >= 0))
    fitted, tested = (
        pair_features(embeddings, pairs.first[rows], pairs.second[rows]) for rows in (train, test)
    )
    classifier = fit_logistic(fitted, pairs.label[train], C=1.0, seed=0, max_iter=1000)
    prediction = classifier.predict(tested)
    return float(np.mean(prediction == pairs.label[test]))


def report(name: str, corpus, embeddings, splits, training) -> None:
    result = evaluate_relatedness(
        corpus, embeddings, splits=splits, training_pairs=training, n_resamples=0
    )
    print(
        f"{name}: SICK test spearman {result.pooled.spearman:.4f} pearson "
        f"{result.pooled.pearson:.4f}; entailment accuracy "
        f"{entailment_accuracy(corpus, embeddings):.4f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sick")
    parser.add_argument("objective", nargs="?", default="auto")
    parser.add_argument("--family", default="pair-finetune")
    args = parser.parse_args()
    corpus = load_corpus(args.sick)
    encoder = ENCODERS[args.family](objective=args.objective)
    splits, training = held_out_pairs(corpus, encoder, ("test",), NAME)
    if args.family == "pair-finetune":
        report(
            "minilm", corpus, run_job(encode_corpus(corpus, make_encoder("minilm"))), splits, None
        )
    start = time.perf_counter()
    last = [0.0]

    def progress(p) -> None:
        if time.perf_counter() - last[0] > 30:
            last[0] = time.perf_counter()
            print(p.stage, p.done, p.total, flush=True)

    tuned = run_job(fitted_copy(encoder, corpus.texts, corpus_pairs(corpus, training)), progress)
    seconds = time.perf_counter() - start
    if args.family != "pair-finetune":
        report(
            f"{args.family} untrained",
            corpus,
            tuned.untrained().encode(corpus.texts),
            splits,
            training,
        )
    report(
        f"{tuned.name} (objective {args.objective}, {seconds:.0f} s on SICK train + trial)",
        corpus,
        tuned.encode(corpus.texts),
        splits,
        training,
    )


if __name__ == "__main__":
    main()
