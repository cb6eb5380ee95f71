"""Evaluations, one module each: a job ``run_<name>(corpus, encoder, *, seed, ...)``
returning a frozen result dataclass with provenance, per-item outcomes, ``summary()``
rows (what the CLI table and the GUI panel show) and ``to_dict()``."""

from __future__ import annotations

from collections.abc import Callable

from app.evaluations import (
    classification, costra, detection, histograms, latent, pyramid, ranking, relatedness,
    transfer,
)

#: Every evaluation by the name ``sentspace eval NAME`` takes, with a one-line description.
EVALUATIONS: dict[str, tuple[Callable, str]] = {
    "classification": (classification.run_classification,
                       "linear SVM recovers paraphrase groups (3-fold CV)"),
    "relatedness": (relatedness.run_relatedness,
                    "cosine vs gold scores: Spearman, Pearson, MSE (SICK, STS)"),
    "transfer": (transfer.run_transfer,
                 "logistic regression on embeddings (SentEval tasks, MSRP, SICK-E)"),
    "ranking": (ranking.run_ranking, "rank of the paraphrase partner in the pool (MSRP)"),
    "detection": (detection.run_detection,
                  "zero-shot paraphrase detection by cosine: PR curve, average precision"),
    "learning-curve": (detection.run_learning_curve,
                       "supervised pair classifier accuracy vs training size"),
    "histograms": (histograms.run_histograms,
                   "cosine and word-overlap histograms, positive vs negative pairs"),
    "latent": (latent.run_latent, "each sentence ranks its own group above the other"),
    "pyramid": (pyramid.run_pyramid, "SCU binary (best-F1 threshold) and ranking tests"),
    "costra": (costra.run_costra, "Costra 1.1 geometric orderings of Czech sentences"),
}
