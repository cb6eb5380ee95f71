"""Similarity and word-overlap histograms (EVALUATIONS.md section 3).

Pairs are split into two sides: positive vs negative by label (MSRP) or, for pairs with
gold scores and no 0/1 labels (SICK, STS), high vs low relatedness (score >= threshold is
high). For each side, a histogram of the pairs' cosine similarities and one of their word
overlap: the share of distinct words the two sentences have in common, |A & B| / |A | B|
(Jaccard) over lowercased tokens of ``sentspace.models.tokenize`` that contain a letter or digit
(punctuation is not a word). Bin edges are fixed (not fitted to the data), so histograms
of different encoders and datasets line up, and are recorded in the result; the window's
chart bins the values' own range (:func:`~sentspace.app.analysis.chart_data.data_bins`), where their shape shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.analysis.cache import encode_rows
from sentspace.app.analysis.chart_data import side_counts
from sentspace.app.analysis.evaluations import passing
from sentspace.app.analysis.neighbours import degenerate_pairs, normalise, pair_cosines
from sentspace.app.analysis.results import Result, Score, item_rows, provenance
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder
from sentspace.models.tokenize import tokenize

NAME = "histograms"
BY = ("auto", "label", "score")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(token for token in tokenize(text) if any(ch.isalnum() for ch in token))


def word_overlap(corpus: Corpus, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Jaccard share of distinct words in common per pair; shape (n_pairs,), in [0, 1]
    (0 when neither sentence has a word)."""
    words = {}
    for i in np.unique(np.concatenate([first, second])):
        words[i] = _word_set(corpus.texts[i])
    overlap = np.empty(len(first))
    for k, (a, b) in enumerate(zip(first, second)):
        union = len(words[a] | words[b])
        overlap[k] = len(words[a] & words[b]) / union if union else 0.0
    return overlap


def histogram_sides(
    corpus: Corpus, by: str = "auto", threshold: float | None = None, where: str = ""
) -> tuple[np.ndarray, np.ndarray, tuple[str, str], str, float | None]:
    """(pair indices, side per pair: 1 for positive/high, 0 for negative/low, side
    names, the split used, the threshold). With ``where`` (a filter expression), only
    the pairs that pass it (:func:`passing.pair_passing`); the default threshold is still read off
    every scored pair, the dataset's scale. Raises EvaluationError before any work;
    InputError for a bad ``where``."""
    keep, side, names, by, threshold = _sides(corpus, by, threshold)
    mask = passing.pair_passing(corpus, where)
    if mask is None:
        return keep, side, names, by, threshold
    kept = mask[keep]
    if not kept.any():
        raise EvaluationError(f"{NAME} where {where.strip()}: no pair passes the filter")
    return keep[kept], side[kept], names, by, threshold


def _sides(
    corpus: Corpus, by: str, threshold: float | None
) -> tuple[np.ndarray, np.ndarray, tuple[str, str], str, float | None]:
    pairs = corpus.pairs
    if by not in BY:
        raise EvaluationError(f"by must be one of {', '.join(BY)}, not {by!r}")
    if pairs is None or len(pairs) == 0:
        raise EvaluationError(f"{NAME} need sentence pairs, and corpus {corpus.name!r} has none")
    binary = np.isin(pairs.label, (0, 1))
    labelled = pairs.has_paraphrase_labels and bool(np.any(pairs.label == 0))
    scored = np.isfinite(pairs.score)
    if by == "auto":
        by = "label" if labelled else "score"
    if by == "label":
        if not labelled:
            raise EvaluationError(f"corpus {corpus.name!r} has no pairs labelled 1 and 0")
        keep = np.flatnonzero(binary)
        return keep, pairs.label[keep], ("positive", "negative"), by, None
    if not scored.any():
        raise EvaluationError(f"corpus {corpus.name!r} has neither 0/1 labels nor scores")
    keep = np.flatnonzero(scored)
    if threshold is None:
        # The midpoint of the gold scale read off the data: 3 for SICK (1-5), 2.5 for STS.
        low, high = math.floor(pairs.score[keep].min()), math.ceil(pairs.score[keep].max())
        threshold = (low + high) / 2
    side = (pairs.score[keep] >= threshold).astype(np.int64)
    return keep, side, (f"score >= {threshold:g}", f"score < {threshold:g}"), by, threshold


@dataclass(frozen=True, eq=False)
class HistogramResult(Result):
    """Counts per fixed bin, for each side, of cosine similarity and word overlap.

    Attributes
    ----------
    pair_index : ndarray of shape (n_pairs,)
        Pairs used (index into ``corpus.pairs``).
    pair_id : str ndarray of shape (n_pairs,)
        Each pair as its dataset names it (:meth:`PairTable.names`).
    side : ndarray of shape (n_pairs,)
        1 for the first side (positive / high), 0 for the second.
    cosine, overlap : ndarray of shape (n_pairs,)
    cosine_edges, overlap_edges : ndarray of shape (n_bins + 1,)
    cosine_counts, overlap_counts : ndarray of shape (2, n_bins)
        Row 0 counts the first side (positive / high), row 1 the second.
    degenerate : bool ndarray of shape (n_pairs,)
        Pairs with a zero (or non-finite) vector; their cosine is 0.
    """

    evaluation = NAME
    side_names: tuple[str, str]
    pair_index: np.ndarray
    pair_id: np.ndarray
    side: np.ndarray
    cosine: np.ndarray
    overlap: np.ndarray
    cosine_edges: np.ndarray
    overlap_edges: np.ndarray
    cosine_counts: np.ndarray
    overlap_counts: np.ndarray
    degenerate: np.ndarray

    def summary(self) -> list[tuple[str, str]]:
        rows = []
        for value, name in ((1, self.side_names[0]), (0, self.side_names[1])):
            mask = self.side == value
            rows.append((f"{name}: pairs", str(int(mask.sum()))))
            rows.append((f"{name}: mean cosine", f"{self.cosine[mask].mean():.4f}"))
            rows.append((f"{name}: mean word overlap", f"{self.overlap[mask].mean():.4f}"))
        rows.append(("pairs with a zero vector (cosine 0)", str(int(self.degenerate.sum()))))
        return rows

    def scores(self) -> list[Score]:
        scores = []
        for value, name in ((1, self.side_names[0]), (0, self.side_names[1])):
            mask = self.side == value
            n = int(mask.sum())
            scores += [
                Score(f"{name}: mean cosine", float(self.cosine[mask].mean()), None, n),
                Score(f"{name}: mean word overlap", float(self.overlap[mask].mean()), None, n),
            ]
        return scores

    def body(self) -> dict[str, Any]:
        return {
            "sides": list(self.side_names),
            "cosine": {"edges": self.cosine_edges.tolist(), "counts": self.cosine_counts.tolist()},
            "overlap": {
                "edges": self.overlap_edges.tolist(),
                "counts": self.overlap_counts.tolist(),
            },
            "n_degenerate_pairs": int(self.degenerate.sum()),
            # "pair" is the dataset's name; "row" indexes corpus.pairs.
            "pairs": item_rows(self, "pair=pair_id, row=pair_index, side, cosine, overlap"),
        }


def evaluate_histograms(
    corpus: Corpus,
    embeddings: Embeddings,
    *,
    encoder: Encoder | None = None,
    by: str = "auto",
    threshold: float | None = None,
    cosine_bins: int = 40,
    overlap_bins: int = 20,
    seed: int = 0,
    where: str = "",
) -> HistogramResult:
    """Histograms from precomputed embeddings (shape (len(corpus), dim)).

    Parameters
    ----------
    by : "label" (positive vs negative), "score" (high vs low relatedness) or "auto"
        (label when the pairs carry 0/1 labels).
    threshold : score at or above which a pair is "high"; None for the midpoint of the
        gold scale, (floor(min) + ceil(max)) / 2.
    cosine_bins : equal bins over [-1, 1].
    overlap_bins : equal bins over [0, 1].
    seed : unused (nothing is random); accepted so every evaluation is called alike.
    where : a filter expression: only the pairs that pass it.
    """
    pair_index, side, names, by, threshold = histogram_sides(corpus, by, threshold, where)
    kept = passing.described(
        corpus,
        where,
        len(pair_index),
        lambda: len(histogram_sides(corpus, by, threshold)[0]),
        "pairs",
    )
    pairs = corpus.checked_pairs
    first, second = pairs.first[pair_index], pairs.second[pair_index]
    unit = normalise(embeddings)
    cosine = pair_cosines(embeddings, first, second)
    overlap = word_overlap(corpus, first, second)
    cosine_edges = np.linspace(-1.0, 1.0, cosine_bins + 1)
    overlap_edges = np.linspace(0.0, 1.0, overlap_bins + 1)
    return HistogramResult(
        provenance=provenance(
            corpus,
            encoder,
            embeddings,
            by=by,
            threshold=threshold,
            cosine_bins=cosine_bins,
            overlap_bins=overlap_bins,
            overlap="Jaccard of lowercased word sets (punctuation dropped)",
            seed=seed,
            **passing.parameters(where, kept),
        ),
        side_names=names,
        pair_index=pair_index,
        pair_id=pairs.names(corpus.ids, pair_index),
        side=side,
        cosine=cosine,
        overlap=overlap,
        cosine_edges=cosine_edges,
        overlap_edges=overlap_edges,
        cosine_counts=side_counts(cosine, side, cosine_edges),
        overlap_counts=side_counts(overlap, side, overlap_edges),
        degenerate=degenerate_pairs(unit, first, second),
    )


def run_histograms(
    corpus: Corpus,
    encoder: Encoder,
    *,
    seed: int = 0,
    by: str = "auto",
    threshold: float | None = None,
    cosine_bins: int = 40,
    overlap_bins: int = 20,
    where: str = "",
) -> Job[HistogramResult]:
    """Encode the sentences of the pairs (with ``where``, of those it keeps) and run
    :func:`evaluate_histograms` (same parameters)."""
    pair_index, *_ = histogram_sides(corpus, by, threshold, where)
    pairs = corpus.checked_pairs
    embeddings = yield from encode_rows(
        corpus, encoder, np.concatenate([pairs.first[pair_index], pairs.second[pair_index]])
    )
    return evaluate_histograms(
        corpus,
        embeddings,
        encoder=encoder,
        by=by,
        threshold=threshold,
        cosine_bins=cosine_bins,
        overlap_bins=overlap_bins,
        seed=seed,
        where=where,
    )
