"""Unsupervised relatedness (EVALUATIONS.md section 2): cosine against human scores.

For every scored pair, the cosine of the two sentence embeddings is correlated with the
gold score by Spearman and Pearson (``scipy.stats``), per subset (STS 2014 headlines,
images...) and pooled over all subsets. The MSE is taken after mapping cosine linearly
from ``cosine_range`` onto the gold range (the standard reading: cosine's full range
[-1, 1] onto, e.g., SICK's [1, 5]; [0, 1] suits encoders with non-negative features).
Pairs without a gold score are skipped and counted.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# scipy.stats is imported in _correlation: it takes about 0.4 s, too slow for the GUI's
# start, which imports every evaluation.
from sentspace.app.analysis.cache import encode_rows
from sentspace.app.analysis.evaluations import passing, statistics
from sentspace.app.analysis.evaluations.statistics import format_ci
from sentspace.app.analysis.evaluations.transfer import pair_features
from sentspace.app.analysis.mteb_files import write_mteb_results
from sentspace.app.analysis.neighbours import (
    chosen_splits,
    degenerate_pairs,
    describe_pairs,
    held_out_pairs,
    normalise,
    pair_cosines,
)
from sentspace.app.analysis.results import Result, Score, item_rows, provenance
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder

NAME = "relatedness"
POOLED = "pooled"


@dataclass(frozen=True)
class Correlation:
    """Agreement of cosine with gold on one subset of pairs (or all of them)."""

    subset: str
    n_pairs: int
    spearman: float
    pearson: float
    mse: float
    spearman_ci: tuple[float, float] | None
    pearson_ci: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True, eq=False)
class RelatednessResult(Result):
    """Correlations per subset and pooled, and every evaluated pair's similarity.

    Attributes
    ----------
    pair_index : ndarray of shape (n_evaluated,)
        The scored pairs (index into ``corpus.pairs``) that were evaluated.
    pair_id : str ndarray of shape (n_evaluated,)
        Each evaluated pair as its dataset names it (:meth:`PairTable.names`).
    subset : tuple of str, one per evaluated pair.
    cosine, gold, predicted : ndarray of shape (n_evaluated,)
        Cosine similarity, gold score, and cosine mapped onto the gold range.
    degenerate : bool ndarray of shape (n_evaluated,)
        Pairs where a sentence had a zero (or non-finite) vector; their cosine is 0.
    subsets : per-subset correlations, in order of first appearance.
    pooled : the correlation over all evaluated pairs.
    n_unscored : pairs skipped for want of a gold score.
    n_degenerate_sentences : evaluated sentences with a zero or non-finite vector.
    evaluated : the evaluated pairs by split ("test 4,927").
    trained_on : the pairs an encoder that learns from pairs trained on, by split
        ("train 4,500 + trial 500"); "" for other encoders.
    """

    evaluation = NAME
    MAIN_SCORE = f"{POOLED} spearman"
    pair_index: np.ndarray
    pair_id: np.ndarray
    subset: tuple[str, ...]
    cosine: np.ndarray
    gold: np.ndarray
    predicted: np.ndarray
    degenerate: np.ndarray
    subsets: tuple[Correlation, ...]
    pooled: Correlation
    gold_range: tuple[float, float]
    cosine_range: tuple[float, float]
    n_unscored: int
    n_degenerate_sentences: int
    evaluated: str = ""
    trained_on: str = ""
    #: "cosine", or "learned": a score predicted from the pair's [|u-v|, u*v] by a
    #: classifier over score classes trained on ``learned_from`` (then ``cosine`` holds
    #: that score).
    similarity: str = "cosine"
    learned_from: str = ""

    @property
    def weighted_mean(self) -> tuple[float, float]:
        """(Spearman, Pearson) averaged over subsets weighted by their pair counts, as
        SentEval reports for STS years ("wmean")."""
        weights = np.array([c.n_pairs for c in self.subsets], dtype=np.float64)
        return (
            float(np.average([c.spearman for c in self.subsets], weights=weights)),
            float(np.average([c.pearson for c in self.subsets], weights=weights)),
        )

    def summary(self) -> list[tuple[str, str]]:
        rows = [("pairs evaluated", self.evaluated)]
        if self.trained_on:
            rows.append(("encoder trained on pairs", self.trained_on))
        if self.similarity == LEARNED:
            rows.append(
                (
                    "similarity",
                    f"learned from {self.learned_from} (logistic "
                    "regression over score classes on |u-v|, u*v)",
                )
            )
        shown = self.subsets if len(self.subsets) > 1 else ()
        for c in (*shown, self.pooled):
            rows.append(
                (
                    f"{c.subset} spearman ({c.n_pairs} pairs)",
                    f"{c.spearman:.4f} {format_ci(c.spearman_ci)}".rstrip(),
                )
            )
            rows.append(
                (f"{c.subset} pearson", f"{c.pearson:.4f} {format_ci(c.pearson_ci)}".rstrip())
            )
            rows.append((f"{c.subset} MSE", f"{c.mse:.4f}"))
        if len(self.subsets) > 1:
            spearman, pearson = self.weighted_mean
            rows.append(("weighted mean spearman / pearson", f"{spearman:.4f} / {pearson:.4f}"))
        rows.append(("unscored pairs skipped", str(self.n_unscored)))
        rows.append(("pairs with a zero vector (cosine 0)", str(int(self.degenerate.sum()))))
        return rows

    def scores(self) -> list[Score]:
        # One subset is the pooled pairs: its rows once, as "pooled" (as summary()).
        shown = self.subsets if len(self.subsets) > 1 else ()
        return [
            score
            for c in (*shown, self.pooled)
            for score in (
                Score(f"{c.subset} spearman", c.spearman, c.spearman_ci, c.n_pairs),
                Score(f"{c.subset} pearson", c.pearson, c.pearson_ci, c.n_pairs),
                Score(f"{c.subset} MSE", c.mse, None, c.n_pairs),
            )
        ]

    def to_mteb(self, folder: str | Path) -> list[Path]:
        """Write this result as MTEB result files (one per MTEB STS task whose pairs it
        evaluated) under ``folder``; see :func:`sentspace.app.analysis.mteb_files.write_mteb_results`."""
        return write_mteb_results(self, folder)

    def body(self) -> dict[str, Any]:
        return {
            "gold_range": list(self.gold_range),
            "cosine_range": list(self.cosine_range),
            "n_pairs": int(len(self.pair_index)),
            "evaluated": self.evaluated,
            "trained_on": self.trained_on,
            "similarity": self.similarity,
            "learned_from": self.learned_from,
            "n_unscored": self.n_unscored,
            "n_degenerate_sentences": self.n_degenerate_sentences,
            "n_degenerate_pairs": int(self.degenerate.sum()),
            "subsets": [c.to_dict() for c in self.subsets],
            "pooled": self.pooled.to_dict(),
            # "pair" is the dataset's name; "row" indexes corpus.pairs.
            "pairs": item_rows(
                self, f"pair=pair_id, row=pair_index, subset, {self.similarity}=cosine, gold"
            ),
        }


def scored_pairs(
    corpus: Corpus, splits: tuple[str, ...] | None = None, where: str = ""
) -> tuple[np.ndarray, int]:
    """(indices of the scored pairs in ``splits`` that pass ``where``,
    number of unscored pairs skipped).

    Raises EvaluationError, before any work, when the corpus has no pairs, a split is
    unknown, or no pair has a score; InputError for a bad ``where``.
    """
    pairs = corpus.pairs
    if pairs is None or len(pairs) == 0:
        raise EvaluationError(
            f"{NAME} needs scored sentence pairs, and corpus {corpus.name!r} has no pairs"
        )
    selected = passing.in_splits(corpus, splits, listing=True)
    mask = passing.pair_passing(corpus, where)
    if mask is not None:
        selected &= mask
    scored = selected & np.isfinite(pairs.score)
    if not scored.any():
        raise EvaluationError(
            f"{NAME} needs gold similarity scores, and no selected pair "
            f"of corpus {corpus.name!r}"
            + (f" that passes {where.strip()!r}" if mask is not None else "")
            + " has one"
        )
    return np.flatnonzero(scored), int(np.sum(selected & ~scored))


def _pairs_noun(splits: tuple[str, ...] | None) -> str:
    return f"{' + '.join(splits)} pairs" if splits else "scored pairs"


#: Scored pairs a learned similarity needs to train on.
MIN_LEARNED_FROM = 50
#: The similarities a pair can be scored by: its cosine, or a score learned on others.
COSINE, LEARNED = "cosine", "learned"
SIMILARITIES = {
    COSINE: "the cosine of the two sentence vectors (unsupervised)",
    LEARNED: "a score learned on the pairs outside the evaluated split: "
    "logistic regression over the score classes on |u-v|, u*v "
    "(Tai et al. 2015, Kiros et al. 2015; supervised)",
}


def learned_scores(
    embeddings: Embeddings,
    pairs,
    train: np.ndarray,
    evaluated: np.ndarray,
    gold_range: tuple[float, float],
    seed: int,
) -> np.ndarray:
    """Scores of the ``evaluated`` pairs predicted by a classifier over the integer score
    classes of ``gold_range``, trained on the ``train`` pairs' [|u-v|, u*v] with each
    gold score as Tai et al.'s sparse target (3.6 is 0.4 of class 3 and 0.6 of class
    4: the pair enters twice, weighted so); the score is the expected class."""
    from sklearn.linear_model import LogisticRegression  # noqa: PLC0415 (lazy: slow)

    low, high = int(math.floor(gold_range[0])), int(math.ceil(gold_range[1]))
    gold = np.clip(pairs.score[train], low, high)
    below = np.minimum(np.floor(gold).astype(np.int64), high - 1)
    above_share = gold - below
    X = pair_features(embeddings, pairs.first[train], pairs.second[train])
    rows = np.concatenate([np.arange(len(train))] * 2)
    classes = np.concatenate([below, below + 1])
    weights = np.concatenate([1.0 - above_share, above_share])
    keep = weights > 0
    classifier = LogisticRegression(C=1.0, max_iter=1000, random_state=seed)
    with warnings.catch_warnings():
        from sklearn.exceptions import ConvergenceWarning  # noqa: PLC0415

        warnings.simplefilter("ignore", ConvergenceWarning)
        classifier.fit(X[rows[keep]], classes[keep], sample_weight=weights[keep])
    features = pair_features(embeddings, pairs.first[evaluated], pairs.second[evaluated])
    return classifier.predict_proba(features) @ classifier.classes_.astype(np.float64)


def _correlation(
    name: str,
    cosine: np.ndarray,
    gold: np.ndarray,
    predicted: np.ndarray,
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
) -> Correlation:
    from scipy import stats  # noqa: PLC0415 (lazy: slow)

    with warnings.catch_warnings():
        # A constant input (one pair, or an encoder giving every pair the same cosine)
        # has no correlation: scipy returns NaN, which is what is reported.
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        enough = len(cosine) >= 2
        spearman = float(stats.spearmanr(cosine, gold).statistic) if enough else math.nan
        pearson = float(stats.pearsonr(cosine, gold).statistic) if enough else math.nan
    intervals = statistics.cis(
        {
            "spearman": (statistics.spearman, cosine, gold),
            "pearson": (statistics.pearson, cosine, gold),
        },
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )
    return Correlation(
        subset=name,
        n_pairs=int(len(cosine)),
        spearman=spearman,
        pearson=pearson,
        mse=float(np.mean((predicted - gold) ** 2)),
        spearman_ci=intervals.get("spearman"),
        pearson_ci=intervals.get("pearson"),
    )


def evaluate_relatedness(
    corpus: Corpus,
    embeddings: Embeddings,
    *,
    encoder: Encoder | None = None,
    splits: tuple[str, ...] | None = None,
    training_pairs: np.ndarray | None = None,
    learned_from: np.ndarray | None = None,
    cosine_range: tuple[float, float] = (-1.0, 1.0),
    gold_range: tuple[float, float] | None = None,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    where: str = "",
) -> RelatednessResult:
    """Relatedness of precomputed embeddings (shape (len(corpus), dim)).

    Parameters
    ----------
    encoder : the encoder the embeddings came from, for provenance only.
    splits : pair splits to evaluate (SICK "test" only, say); None for all pairs.
    training_pairs : the pairs (indices into ``corpus.pairs``) the encoder trained on,
        when it learns from pairs; reported, not used.
    learned_from : score each pair by :func:`learned_scores` trained on these scored
        pairs (indices into ``corpus.pairs``) instead of by its cosine.
    cosine_range : the interval of cosine mapped linearly onto ``gold_range`` for MSE.
    gold_range : the scale of the gold scores; None reads it off the data as
        (floor(min), ceil(max)) of the evaluated scores: (1, 5) for SICK, (0, 5) for STS.
    n_resamples, confidence : bootstrap intervals of the correlations; 0 turns them off.
    seed : seeds the bootstrap.
    where : a filter expression: only the pairs that pass it, by their own split,
        label and score and both their sentences' other columns
        (:mod:`sentspace.app.analysis.evaluations.passing`).
    """
    pair_index, n_unscored = scored_pairs(corpus, splits, where)
    evaluated_pairs = passing.described(
        corpus,
        where,
        len(pair_index),
        lambda: len(scored_pairs(corpus, splits)[0]),
        _pairs_noun(splits),
    )
    pairs = corpus.checked_pairs
    first, second = pairs.first[pair_index], pairs.second[pair_index]
    gold = pairs.score[pair_index]
    if gold_range is None:
        gold_range = (float(math.floor(gold.min())), float(math.ceil(gold.max())))
    low, high = cosine_range
    if not high > low:
        raise EvaluationError(f"cosine_range must be increasing, got {cosine_range}")
    unit = normalise(embeddings)
    if learned_from is None:
        cosine = pair_cosines(embeddings, first, second)
        predicted = gold_range[0] + (cosine - low) * (gold_range[1] - gold_range[0]) / (high - low)
    else:  # already on the gold scale
        cosine = predicted = learned_scores(
            embeddings, pairs, learned_from, pair_index, gold_range, seed
        )
    subset = tuple(pairs.subset[i] for i in pair_index)
    subset_array = np.asarray(subset, dtype=object)
    names = tuple(dict.fromkeys(subset))

    def correlation(name: str, mask: np.ndarray | slice) -> Correlation:
        return _correlation(
            name,
            cosine[mask],
            gold[mask],
            predicted[mask],
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        )

    per_subset = tuple(correlation(name, subset_array == name) for name in names)
    pooled = correlation(POOLED, slice(None))
    evaluated = np.unique(np.concatenate([first, second]))
    trained_on = describe_pairs(corpus, training_pairs) if training_pairs is not None else ""
    return RelatednessResult(
        provenance=provenance(
            corpus,
            encoder,
            embeddings,
            splits=splits,
            trained_on_pairs=trained_on or None,
            similarity=COSINE if learned_from is None else LEARNED,
            learned_from=(None if learned_from is None else describe_pairs(corpus, learned_from)),
            cosine_range=list(cosine_range),
            gold_range=list(gold_range),
            mapping="linear",
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            correlations="scipy.stats spearmanr/pearsonr",
            zero_vectors="cosine 0, counted",
            **passing.parameters(where, evaluated_pairs),
        ),
        pair_index=pair_index,
        pair_id=pairs.names(corpus.ids, pair_index),
        subset=subset,
        cosine=cosine,
        gold=gold,
        predicted=predicted,
        degenerate=degenerate_pairs(unit, first, second),
        subsets=per_subset,
        pooled=pooled,
        gold_range=(gold_range[0], gold_range[1]),
        cosine_range=(cosine_range[0], cosine_range[1]),
        n_unscored=n_unscored,
        n_degenerate_sentences=int(unit.degenerate[evaluated].sum()),
        evaluated=describe_pairs(corpus, pair_index),
        trained_on=trained_on,
        similarity=COSINE if learned_from is None else LEARNED,
        learned_from="" if learned_from is None else describe_pairs(corpus, learned_from),
    )


def run_relatedness(
    corpus: Corpus,
    encoder: Encoder,
    *,
    seed: int = 0,
    split: str = "auto",
    splits: tuple[str, ...] | None = None,
    similarity: str = COSINE,
    cosine_range: tuple[float, float] = (-1.0, 1.0),
    gold_range: tuple[float, float] | None = None,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    where: str = "",
) -> Job[RelatednessResult]:
    """Encode the corpus and run :func:`evaluate_relatedness` (same parameters) on the
    pairs of ``splits`` or, when None, of the ``split`` choice
    (:data:`sentspace.app.analysis.neighbours.SPLIT_CHOICES`: by default the test split where the
    corpus has one, as SICK and STS-B, else every pair). An encoder that learns from
    labelled pairs trains on
    the pairs outside the evaluated splits, so it never sees an evaluated pair.
    ``similarity`` "learned" (:data:`SIMILARITIES`) scores each pair by a classifier
    trained on the scored pairs outside the evaluated splits (SICK's train and trial
    for its test split). ``where`` (a filter expression) keeps the evaluated pairs whose
    two sentences pass it; what is trained is chosen as without it."""
    if similarity not in SIMILARITIES:
        raise EvaluationError(
            f"similarity must be one of {', '.join(SIMILARITIES)}, not {similarity!r}"
        )
    if splits is None:
        scored_pairs(corpus)
        splits = chosen_splits(corpus, encoder, split)
    evaluated, _ = scored_pairs(corpus, splits)
    learned_from = None
    if similarity == LEARNED:
        scored, _ = scored_pairs(corpus)
        learned_from = np.setdiff1d(scored, evaluated)
        if len(learned_from) < MIN_LEARNED_FROM:
            raise EvaluationError(
                f"a learned similarity trains on the scored pairs outside the evaluated "
                f"split, and corpus {corpus.name!r} has {len(learned_from)} (at least "
                f"{MIN_LEARNED_FROM} needed): evaluate its test split"
            )
    splits, training = held_out_pairs(corpus, encoder, splits, NAME)
    evaluated, _ = scored_pairs(corpus, splits, where)
    # Only the sentences the scored pairs read are encoded (STS-B test: 2,552 of 15,457).
    read = evaluated if learned_from is None else np.concatenate([evaluated, learned_from])
    embeddings = yield from encode_rows(
        corpus,
        encoder,
        np.concatenate([corpus.checked_pairs.first[read], corpus.checked_pairs.second[read]]),
        training_pairs=training,
    )
    return evaluate_relatedness(
        corpus,
        embeddings,
        encoder=encoder,
        splits=splits,
        training_pairs=training,
        learned_from=learned_from,
        cosine_range=cosine_range,
        gold_range=gold_range,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
        where=where,
    )
