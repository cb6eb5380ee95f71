"""Evaluations, one module each: a job ``run_<name>(corpus, encoder, *, seed, ...)``
returning a frozen result dataclass with provenance, per-item outcomes, ``summary()``
rows (what the CLI table and the GUI panel show) and ``to_dict()``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sentspace.app.analysis.ann import EXACT_LIMIT
from sentspace.app.analysis.evaluations import (
    agreement,
    bitext,
    classification,
    costra,
    costra_offsets,
    detection,
    histograms,
    latent,
    pyramid,
    ranking,
    relatedness,
    transfer,
)
from sentspace.app.analysis.neighbours import SPLIT_CHOICES
from sentspace.app.corpora.pyramid import DISTRACTORS, ITEMS, NEGATIVE_OVERLAP, NEGATIVES

#: Every evaluation by the name ``sentspace eval NAME`` takes, with a one-line description.
EVALUATIONS: dict[str, tuple[Callable, str]] = {
    "classification": (
        classification.run_classification,
        "linear SVM recovers paraphrase groups (3-fold CV)",
    ),
    "relatedness": (
        relatedness.run_relatedness,
        "cosine (or a learned score) vs gold: Spearman, Pearson, MSE (SICK, STS)",
    ),
    "transfer": (
        transfer.run_transfer,
        "logistic regression on embeddings (SentEval tasks, MSRP, SICK-E)",
    ),
    "ranking": (
        ranking.run_ranking,
        "rank of the paraphrase partner in the pool (MSRP, paraphrase groups)",
    ),
    "detection": (
        detection.run_detection,
        "zero-shot paraphrase detection by cosine: PR curve, average precision",
    ),
    "learning-curve": (
        detection.run_learning_curve,
        "supervised pair classifier accuracy vs training size",
    ),
    "histograms": (
        histograms.run_histograms,
        "cosine and word-overlap histograms, positive vs negative pairs",
    ),
    "latent": (latent.run_latent, "each sentence ranks its own group above the other"),
    "pyramid": (pyramid.run_pyramid, "SCU binary (best-F1 threshold) and ranking tests"),
    "costra": (costra.run_costra, "Costra 1.1 geometric orderings of Czech sentences"),
    "costra-offsets": (
        costra_offsets.run_costra_offsets,
        "Costra transformations as directions: offset consistency, analogies",
    ),
    "bitext": (
        bitext.run_bitext,
        "find each sentence's translation among the other language (MTEB bitext)",
    ),
}


#: Evaluations of several encoders at once (``sentspace eval NAME --encoder A --encoder B``).
COMPARISONS: dict[str, tuple[Callable, str]] = {
    "agreement": (
        agreement.run_agreement,
        "misclassification agreement of 2+ encoders on the same folds",
    ),
}


@dataclass(frozen=True)
class EvaluationOption:
    """A choice an evaluation offers beyond the seed: its values, each with what it
    means, the first being the default."""

    choices: dict[str, str]
    help: str

    @property
    def default(self) -> str:
        return next(iter(self.choices))


_SEARCH = EvaluationOption(
    {
        "auto": f"exact up to {EXACT_LIMIT:,} sentences, an approximate index above",
        "exact": "scan the whole pool",
        "ann": "an approximate index always",
    },
    "how each query's nearest sentences are found",
)
#: Options by evaluation and keyword argument; the CLI offers each as ``--name`` and the
#: GUI as a choice beside the evaluation.
OPTIONS: dict[str, dict[str, EvaluationOption]] = {
    "relatedness": {
        "split": EvaluationOption(SPLIT_CHOICES, "which pairs are evaluated"),
        "similarity": EvaluationOption(relatedness.SIMILARITIES, "what scores a pair"),
    },
    "ranking": {"search": _SEARCH},
    "bitext": {
        "languages": EvaluationOption(
            bitext.LANGUAGE_PAIRS, "whose sentences find their translations in whose"
        ),
        "search": _SEARCH,
    },
    "pyramid": {
        "distractors": EvaluationOption(
            DISTRACTORS, "whom the ranking test's distractors resemble"
        ),
        "negative_overlap": EvaluationOption(
            NEGATIVE_OVERLAP, "how the words a negative pair must share are counted"
        ),
        "items": EvaluationOption(ITEMS, "what the binary test pairs"),
        "negatives": EvaluationOption(
            NEGATIVES,
            "where the binary test's negative pairs come from (positive share "
            "beside the paper's 4.2%)",
        ),
    },
}


def _has_pairs(corpus, paraphrase_labels=False, scored=False) -> bool:
    pairs = corpus.pairs
    if pairs is None or len(pairs) == 0:
        return False
    if scored and not np.isfinite(pairs.score).any():
        return False
    return not paraphrase_labels or pairs.has_paraphrase_labels


def _has_groups(corpus, kind: str | None = None) -> bool:
    return corpus.groups is not None and (kind is None or corpus.groups.kind == kind)


#: Whether a corpus carries what each evaluation needs; a quick structural check for
#: menus. The evaluations themselves check precisely, before any work.
APPLICABLE: dict[str, Callable] = {
    "classification": lambda c: _has_groups(c) and c.groups.kind != "class",
    "relatedness": lambda c: _has_pairs(c, scored=True),
    "transfer": lambda c: (
        (_has_pairs(c) and bool(np.any(c.pairs.label >= 0))) or _has_groups(c, "class")
    ),
    # Without labelled pairs, ordered pairs within paraphrase groups are the queries.
    "ranking": lambda c: _has_pairs(c, paraphrase_labels=True) or ranking.has_paraphrase_groups(c),
    "detection": lambda c: _has_pairs(c, paraphrase_labels=True),
    "learning-curve": lambda c: (
        _has_pairs(c, paraphrase_labels=True) and {"train", "test"} <= set(c.pairs.split)
    ),
    "histograms": lambda c: _has_pairs(c),
    "latent": lambda c: _has_groups(c) and len(c) <= 2000,
    "pyramid": lambda c: _has_groups(c, "SCU"),
    "costra": lambda c: "r1" in c.metadata,
    "costra-offsets": lambda c: "r1" in c.metadata,
    "bitext": lambda c: "language" in c.metadata and _has_pairs(c, paraphrase_labels=True),
}


#: What a corpus needs for each evaluation, in words (``sentspace.evaluations()``).
NEEDS: dict[str, str] = {
    "classification": "paraphrase groups",
    "relatedness": "pairs with gold scores",
    "transfer": "labelled pairs, or sentences with a class",
    "ranking": "pairs labelled paraphrase, or paraphrase groups of two or more",
    "detection": "pairs labelled paraphrase or not",
    "learning-curve": "pairs labelled paraphrase or not, in train and test splits",
    "histograms": "pairs",
    "latent": "paraphrase groups, at most 2,000 sentences",
    "pyramid": "SCU groups (a DUC pyramid folder)",
    "costra": "Costra's seed-and-transformation columns",
    "costra-offsets": "Costra's seed-and-transformation columns",
    "bitext": "a language per sentence, translations as paraphrase pairs",
}


def applicable_evaluations(corpus) -> list[str]:
    """Names of the evaluations the corpus has the structure for, in menu order."""
    return [name for name in EVALUATIONS if APPLICABLE[name](corpus)]
