"""Bitext retrieval (MTEB's BitextMining, Tatoeba style) on a parallel corpus.

The corpus gives each sentence a ``language`` (metadata) and links translations as
positive pairs (``multi30k-parallel``). For languages A and B, every sentence of A that
has a translation in B is a query, answered by the most cosine-similar sentence among
*all* sentences of B (:func:`sentspace.app.analysis.ann.iter_knn`); then the same from B to A. Per query:
the prediction, the exact rank of the true translation among all of B
(:func:`sentspace.app.analysis.neighbours.iter_target_ranks`, ties pessimistic as in ranking) and
the query's length in tokens (:func:`sentspace.models.tokenize.tokenize`, punctuation
counted, as ``corpus info`` counts them; not an encoder's subwords).

Metrics, per direction and over both:

- accuracy: the translation is found: the prediction is the translation and it has rank
  1. Ties count against the query, as ranks do (:data:`TIES`): a translation tied for the
  top with another sentence is not found, whichever of them the search returned (MTEB's
  top-k takes one of them, so the count would hang on the order of the pool). Accuracy,
  F1, the length bins and the ranks all read this one rule, and the result says so;
- MRR: mean reciprocal rank of the translation;
- F1 as MTEB computes it: ``sklearn.metrics.f1_score(gold, predicted,
  average="weighted")``, each target sentence a class. With one query per target this
  is the mean over queries of ``2 / (1 + c)`` for a correct query whose target ``c``
  queries predicted, 0 for a wrong one, so a "hub" sentence that many queries pick
  costs F1 but not accuracy. Over both directions the classes of the two directions
  are distinct sentences, so F1 is the mean of the two directions'.

F1 is the mean of each query's share of it (:func:`f1_shares`, "how many predicted it"
counted over all queries), so bootstrap intervals (:mod:`sentspace.app.analysis.evaluations.statistics`)
and the paired permutation test across encoders (:mod:`sentspace.app.analysis.evaluations.paired`)
resample and swap those shares like any per-query value. Recounting hubs on each
resample instead (sklearn on the resampled lists) would drop about a third of the
queries and with them most collisions, so F1 would run high and the interval sit mostly
above the value.

:func:`length_bins` groups the queries by length (fixed bins of 5 tokens, the thinly
filled ends merged into their neighbours) and gives each bin's count, accuracy and median
rank: the table ``eval bitext`` prints after its metrics and the line the window's chart
draws over the ranks.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.analysis.ann import Search, iter_knn
from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.evaluations import statistics
from sentspace.app.analysis.evaluations.statistics import format_ci
from sentspace.app.analysis.neighbours import Normalised, iter_target_ranks, normalise
from sentspace.app.analysis.results import Result, Score, item_rows, names_at, provenance
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder
from sentspace.models.tokenize import tokenize

NAME = "bitext"
#: The language pairs offered as the ``languages`` option (any "xx-yy" is accepted).
LANGUAGE_PAIRS = {
    "en-de": "English and German",
    "en-fr": "English and French",
    "en-cs": "English and Czech",
    "de-fr": "German and French",
    "de-cs": "German and Czech",
    "fr-cs": "French and Czech",
}


#: How a tie for the top is counted, by every metric of the result (its summary says so).
TIES = "pessimistic (a translation tied for the top is not found)"


def found_translations(prediction: np.ndarray, target: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Which queries found their translation: predicted it, and ranked it first alone
    (:data:`TIES`)."""
    return (prediction == target) & (rank == 1)


def f1_shares(predicted: np.ndarray, gold: np.ndarray) -> np.ndarray:
    """Each query's share of MTEB's F1, whose mean it is: ``2 / (1 + c)`` when it found
    its target and ``c`` queries predicted that target, else 0; shape (n,).

    MTEB scores ``f1_score(gold, predicted, average="weighted")``: each target is a
    class of support 1 (``gold`` holds distinct targets, one per query), found by its
    query or not, predicted ``c`` times, so its F1 is ``2 / (1 + c)`` or 0, and the
    support-weighted mean is the mean over queries.
    """
    values, counts = np.unique(predicted, return_counts=True)
    at = np.minimum(np.searchsorted(values, gold), len(values) - 1)
    times = np.where(values[at] == gold, counts[at], 0)
    return np.where(predicted == gold, 2.0 / (1 + times), 0.0)


@dataclass(frozen=True, eq=False)
class BitextResult(Result):
    """Per-query retrieval of the translation, and the metrics over them.

    Attributes
    ----------
    languages : (A, B).
    pool_sizes : sentences of A and of B (each direction searches all of the other).
    direction : int ndarray of shape (n_queries,)
        0 for A -> B, 1 for B -> A; queries of A -> B come first.
    pair_index : ndarray (n_queries,): the translation pair (row of ``corpus.pairs``).
    query, target, prediction : ndarray (n_queries,): sentence indices of the query, its
        translation and the sentence retrieved.
    pair_id, query_id, target_id, prediction_id : str ndarrays: the dataset's names.
    rank : float ndarray: rank of the translation among the other language (1 = best).
    similarity, predicted_similarity : cosine of the query with its translation and with
        the sentence retrieved.
    f1_share : float ndarray: the query's share of F1 (:func:`f1_shares`).
    degenerate_query : bool ndarray: queries with a zero (or non-finite) vector.
    ci : {metric name: (low, high)} bootstrap intervals; empty when off.
    search : how each direction's nearest sentence was found.
    query_length : int ndarray: tokens of each query (:func:`query_lengths`); None in a
        result saved before it was kept.

    The arrays are read-only.
    """

    evaluation = NAME
    languages: tuple[str, str]
    pool_sizes: tuple[int, int]
    direction: np.ndarray
    pair_index: np.ndarray
    query: np.ndarray
    target: np.ndarray
    prediction: np.ndarray
    pair_id: np.ndarray
    query_id: np.ndarray
    target_id: np.ndarray
    prediction_id: np.ndarray
    rank: np.ndarray
    similarity: np.ndarray
    predicted_similarity: np.ndarray
    f1_share: np.ndarray
    degenerate_query: np.ndarray
    ci: dict[str, tuple[float, float]]
    search: tuple[Search, Search]
    query_length: np.ndarray | None = None

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, np.ndarray):
                value = np.array(value)  # a copy of its own, so no caller can write it
                value.flags.writeable = False
                object.__setattr__(self, field.name, value)

    @property
    def found(self) -> np.ndarray:
        """Which queries found their translation (:func:`found_translations`)."""
        return found_translations(self.prediction, self.target, self.rank)

    @property
    def directions(self) -> tuple[str, str]:
        a, b = self.languages
        return f"{a}->{b}", f"{b}->{a}"

    def _subsets(self) -> list[tuple[str, np.ndarray]]:
        """(metric name prefix, queries): both directions, then each."""
        return [
            ("", np.ones(len(self.rank), dtype=bool)),
            *((f"{name} ", self.direction == d) for d, name in enumerate(self.directions)),
        ]

    def metrics(self) -> dict[str, float]:
        """Each metric over both directions, then per direction ("en->de F1")."""
        return {
            name: value
            for label, chosen in self._subsets()
            for name, value in _metric_values(self, chosen, label).items()
        }

    def summary(self) -> list[tuple[str, str]]:
        a, b = self.languages
        rows = [
            ("languages", f"{a}-{b}"),
            ("queries", f"{int(np.sum(self.direction == 0))} + {int(np.sum(self.direction == 1))}"),
            ("pool", f"{self.pool_sizes[0]} {a}, {self.pool_sizes[1]} {b}"),
            ("ties", TIES),
        ]
        rows += [
            (name, f"{value:.4f} {format_ci(self.ci.get(name))}".rstrip())
            for name, value in self.metrics().items()
        ]
        rows.append(("queries with a zero vector", str(int(self.degenerate_query.sum()))))
        if any(search.approximate for search in self.search):
            rows += [
                (f"{name} search", search.describe())
                for name, search in zip(self.directions, self.search)
            ]
        return rows

    def scores(self) -> list[Score]:
        return [
            Score(name, value, self.ci.get(name), int(chosen.sum()))
            for label, chosen in self._subsets()
            for name, value in _metric_values(self, chosen, label).items()
        ]

    def body(self) -> dict[str, Any]:
        return {
            "languages": list(self.languages),
            "pool_sizes": list(self.pool_sizes),
            "n_queries": int(len(self.rank)),
            "metrics": self.metrics(),
            "ci": {name: list(bounds) for name, bounds in self.ci.items()},
            "n_degenerate_queries": int(self.degenerate_query.sum()),
            "search": [search.to_dict() for search in self.search],
            # Sentences and pairs by the dataset's names; "row" indexes corpus.pairs;
            # "tokens" is the query's length.
            "queries": item_rows(
                self,
                "direction, pair=pair_id, row=pair_index, query=query_id, target=target_id, "
                "prediction=prediction_id, rank, tokens, similarity, predicted_similarity, "
                "f1_share",
                direction=names_at(self.directions, self.direction),
                tokens=self._lengths_or_none(),
            ),
            "length_bins": ([] if self.query_length is None else length_bins(self).to_rows()),
        }

    def _lengths_or_none(self) -> list:
        return [None] * len(self.rank) if self.query_length is None else self.query_length.tolist()


#: Width of a length bin, in tokens, and the fewest queries a bin keeps (:func:`length_bins`).
BIN_WIDTH, MIN_BIN_COUNT = 5, 20


@dataclass(frozen=True, eq=False)
class LengthBins:
    """Queries grouped by their length in tokens, with how well each group is retrieved.

    Attributes
    ----------
    low, high : int ndarrays (n_bins,): the bin's lengths, both ends included, within
        the lengths present (a first bin "5-10": no query is shorter than 5).
    count : int ndarray: queries in the bin.
    accuracy : float ndarray: share of them whose retrieved sentence is the translation
        (accuracy@1, as the result's accuracy counts it, so the count-weighted mean of the
        bins is that accuracy).
    median_rank : float ndarray: median rank of the translation (ties pessimistic).
    bin_of : int ndarray (n_queries,): each query's bin; -1 for a query not counted (the
        other direction, when the bins are of one).
    direction : the direction binned ("en->de"), or "" for both.
    """

    low: np.ndarray
    high: np.ndarray
    count: np.ndarray
    accuracy: np.ndarray
    median_rank: np.ndarray
    bin_of: np.ndarray
    direction: str = ""

    def __post_init__(self) -> None:
        for name in ("low", "high", "count", "accuracy", "median_rank", "bin_of"):
            value = np.array(getattr(self, name))
            value.flags.writeable = False
            object.__setattr__(self, name, value)

    def __len__(self) -> int:
        return len(self.count)

    def label(self, k: int) -> str:
        low, high = int(self.low[k]), int(self.high[k])
        return str(low) if low == high else f"{low}-{high}"

    def to_rows(self) -> list[dict[str, Any]]:
        """One dict per bin, for JSON."""
        return [
            {
                "tokens": self.label(k),
                "low": int(self.low[k]),
                "high": int(self.high[k]),
                "queries": int(self.count[k]),
                "accuracy": float(self.accuracy[k]),
                "median_rank": float(self.median_rank[k]),
            }
            for k in range(len(self))
        ]


def query_lengths(texts) -> np.ndarray:
    """Tokens of each text (:func:`sentspace.models.tokenize.tokenize`), int64."""
    return np.fromiter((len(tokenize(text)) for text in texts), dtype=np.int64, count=len(texts))


def bin_edges(
    lengths: np.ndarray, width: int = BIN_WIDTH, min_count: int = MIN_BIN_COUNT
) -> np.ndarray:
    """Upper ends (inclusive) of fixed bins of ``width`` tokens, 1-5, 6-10, ..., that hold
    ``lengths``; a bin at either end with fewer than ``min_count`` of them is merged into
    its neighbour (so "5-10" and "26-33" rather than bins of a handful of queries)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    if width < 1:
        raise ValueError(f"bins are at least 1 token wide, not {width}")
    if lengths.size == 0:
        return np.zeros(0, dtype=np.int64)
    first = (max(int(lengths.min()), 1) - 1) // width
    last = (int(lengths.max()) - 1) // width
    highs = [(k + 1) * width for k in range(first, last + 1)]
    highs[-1] = int(lengths.max())  # the last ends at the longest
    counts = np.diff(np.searchsorted(np.sort(lengths), highs, side="right"), prepend=0).tolist()
    while len(highs) > 1 and counts[0] < min_count:  # the short end, upwards
        moved = counts.pop(0)
        counts[0] += moved
        highs.pop(0)
    while len(highs) > 1 and counts[-1] < min_count:  # the long end, downwards
        moved = counts.pop()
        counts[-1] += moved
        highs.pop(-2)
    # An empty bin inside joins the next one.
    return np.asarray([h for h, c in zip(highs, counts) if c], dtype=np.int64)


def length_bins(
    result: BitextResult,
    direction: int | None = None,
    *,
    width: int = BIN_WIDTH,
    min_count: int = MIN_BIN_COUNT,
) -> LengthBins:
    """The queries of ``result`` (of one direction, 0 or 1, or both when None) by length
    in tokens (:func:`bin_edges`), with each bin's count, accuracy@1 and median rank.

    Raises EvaluationError for a result saved before lengths were kept.
    """
    if result.query_length is None:
        raise EvaluationError(
            "this bitext result was saved without the queries' lengths; run it again"
        )
    chosen = (
        np.ones(len(result.rank), dtype=bool)
        if direction is None
        else result.direction == direction
    )
    lengths = result.query_length[chosen]
    highs = bin_edges(lengths, width, min_count)
    bin_of = np.full(len(result.rank), -1, dtype=np.int64)
    bin_of[chosen] = np.minimum(np.searchsorted(highs, lengths), len(highs) - 1)
    correct = result.found
    members = [bin_of == k for k in range(len(highs))]  # none is empty (bin_edges)
    low = np.concatenate([[lengths.min()], highs[:-1] + 1]) if len(highs) else highs
    return LengthBins(
        low=low.astype(np.int64),
        high=highs,
        count=np.array([m.sum() for m in members], dtype=np.int64),
        accuracy=np.array([correct[m].mean() for m in members], dtype=np.float64),
        median_rank=np.array([np.median(result.rank[m]) for m in members], dtype=np.float64),
        bin_of=bin_of,
        direction="" if direction is None else result.directions[direction],
    )


def length_table(results, names) -> tuple[str, list[str], list[list[str]]]:
    """A title, header and rows of text: the queries by length (:func:`length_bins`,
    both directions), with accuracy@1 and median rank of each result (one encoder each,
    on the same queries: ``names`` heads their columns), for ``eval bitext``."""
    binned = [length_bins(result) for result in results]
    first = binned[0]
    for other in binned[1:]:
        if not np.array_equal(other.bin_of, first.bin_of):
            raise EvaluationError("the results' queries differ: no table of them by length")
    header = ["tokens", "queries"]
    for name in names:
        header += [f"{name} acc@1", f"{name} median rank"]
    rows = [
        [
            first.label(k),
            str(int(first.count[k])),
            *(
                cell
                for bins in binned
                for cell in (f"{bins.accuracy[k]:.3f}", f"{bins.median_rank[k]:g}")
            ),
        ]
        for k in range(len(first))
    ]
    a, b = results[0].languages
    return (f"by query length (tokens), {a}->{b} and {b}->{a}; rank 1 = found", header, rows)


def _metric_values(result: BitextResult, chosen: np.ndarray, label: str = "") -> dict[str, float]:
    return {
        f"{label}{name}": float(np.mean(values[chosen]))
        for name, (_, values, _) in _metric_inputs(
            result.found, result.rank, result.f1_share
        ).items()
    }


def _metric_inputs(
    found: np.ndarray, rank: np.ndarray, share: np.ndarray, label: str = ""
) -> dict[str, tuple]:
    """Each metric as the mean of per-query values, as :func:`statistics.cis` takes it."""
    return {
        f"{label}accuracy": (statistics.mean, found.astype(float), None),
        f"{label}MRR": (statistics.mean, 1.0 / rank, None),
        f"{label}F1": (statistics.mean, share, None),
    }


def parse_languages(languages: str) -> tuple[str, str]:
    """("en", "de") from "en-de"; EvaluationError for anything else."""
    parts = languages.split("-")
    if len(parts) != 2 or not all(parts) or parts[0] == parts[1]:
        raise EvaluationError(f"{NAME} takes two different languages as 'en-de', not {languages!r}")
    return parts[0], parts[1]


def bitext_queries(
    corpus: Corpus, languages: str
) -> tuple[tuple[str, str], np.ndarray, np.ndarray, np.ndarray]:
    """((A, B), pair index, sentence of A, its translation in B), one row per
    translation pair of A and B, in pair order.

    Raises EvaluationError, before any work, when the corpus has no language per
    sentence, lacks either language, has no translation of A in B, or gives a sentence
    two translations in the other language (its answer would not be one sentence).
    """
    a, b = parse_languages(languages)
    if "language" not in corpus.metadata:
        raise EvaluationError(
            f"{NAME} needs a language per sentence (metadata "
            f"'language'), and corpus {corpus.name!r} has none"
        )
    language = np.asarray(corpus.metadata["language"], dtype=str)
    missing = [code for code in (a, b) if not np.any(language == code)]
    if missing:
        raise EvaluationError(
            f"corpus {corpus.name!r} has no sentence in "
            f"{', '.join(missing)} (it has "
            f"{', '.join(dict.fromkeys(language.tolist()))})"
        )
    pairs = corpus.pairs
    if pairs is None or pairs.label_names:
        raise EvaluationError(
            f"{NAME} needs translations as positive pairs, and corpus {corpus.name!r} has none"
        )
    first, second = language[pairs.first], language[pairs.second]
    forward = (pairs.label == 1) & (first == a) & (second == b)
    backward = (pairs.label == 1) & (first == b) & (second == a)
    pair_index = np.flatnonzero(forward | backward)
    if len(pair_index) == 0:
        raise EvaluationError(f"corpus {corpus.name!r} has no {a}-{b} translation pairs")
    swap = backward[pair_index]
    a_side = np.where(swap, pairs.second[pair_index], pairs.first[pair_index])
    b_side = np.where(swap, pairs.first[pair_index], pairs.second[pair_index])
    for side in (a_side, b_side):
        values, counts = np.unique(side, return_counts=True)
        if np.any(counts > 1):
            raise EvaluationError(
                f"sentence {corpus.ids[values[counts > 1][0]]} has "
                f"{counts.max()} translations in the other language; "
                f"{NAME} needs one"
            )
    return (a, b), pair_index, a_side, b_side


def iter_evaluate_bitext(
    corpus: Corpus,
    embeddings: Embeddings,
    *,
    encoder: Encoder | None = None,
    languages: str = "en-de",
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    search: str = "auto",
) -> Job[BitextResult]:
    """Bitext retrieval of precomputed embeddings (shape (len(corpus), dim)).

    Parameters
    ----------
    encoder : the encoder the embeddings came from, for provenance only.
    languages : "A-B", codes of the corpus's ``language`` metadata.
    n_resamples, confidence : bootstrap intervals over queries; 0 turns them off.
    seed : seeds the bootstrap (and an approximate search's recall sample).
    search : how the nearest sentence is found (:func:`sentspace.app.analysis.ann.iter_knn`: exact up to
        :data:`sentspace.app.analysis.ann.EXACT_LIMIT` sentences of a language; ranks are always exact).
    """
    (a, b), pair_index, a_side, b_side = bitext_queries(corpus, languages)
    language = np.asarray(corpus.metadata["language"], dtype=str)
    unit = normalise(embeddings)
    pools = {code: np.flatnonzero(language == code) for code in (a, b)}
    parts = []
    for queries, targets, pool in ((a_side, b_side, pools[b]), (b_side, a_side, pools[a])):
        pool_rows = Normalised(unit.matrix[pool], unit.degenerate[pool])
        query_rows = Normalised(unit.matrix[queries], unit.degenerate[queries])
        found, found_similarity, how = yield from iter_knn(
            query_rows, pool_rows, 1, search=search, seed=seed
        )
        rank, similarity = yield from iter_target_ranks(
            query_rows, pool_rows, np.searchsorted(pool, targets)
        )
        parts.append((pool[found[:, 0]], found_similarity[:, 0], rank, similarity, how))
    prediction = np.concatenate([parts[0][0], parts[1][0]])
    query = np.concatenate([a_side, b_side])
    target = np.concatenate([b_side, a_side])
    rank = np.concatenate([parts[0][2], parts[1][2]])
    direction = np.repeat([0, 1], len(pair_index))
    # One count serves both directions: a prediction of A -> B is a sentence of B, never
    # the target of a B -> A query.
    found = found_translations(prediction, target, rank)
    # A translation tied for the top was not found: as F1 counts predictions, its query
    # predicted none of the targets.
    share = f1_shares(np.where(found | (prediction != target), prediction, -1), target)
    metrics = _metric_inputs(found, rank, share)
    ci = statistics.cis(metrics, n_resamples=n_resamples, confidence=confidence, seed=seed)
    for d, name in enumerate((f"{a}->{b}", f"{b}->{a}")):
        chosen = direction == d
        ci.update(
            statistics.cis(
                _metric_inputs(found[chosen], rank[chosen], share[chosen], f"{name} "),
                n_resamples=n_resamples,
                confidence=confidence,
                seed=seed,
            )
        )
    ids = np.asarray(corpus.ids, dtype=str)
    both_pairs = np.concatenate([pair_index, pair_index])
    return BitextResult(
        provenance=provenance(
            corpus,
            encoder,
            embeddings,
            languages=f"{a}-{b}",
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            search=search,
            ties="pessimistic",
            pool="every sentence of the other language",
        ),
        languages=(a, b),
        pool_sizes=(len(pools[a]), len(pools[b])),
        direction=direction,
        pair_index=both_pairs,
        query=query,
        target=target,
        prediction=prediction,
        pair_id=corpus.checked_pairs.names(corpus.ids, both_pairs),
        query_id=ids[query],
        target_id=ids[target],
        prediction_id=ids[prediction],
        rank=rank,
        similarity=np.concatenate([parts[0][3], parts[1][3]]).astype(np.float64),
        predicted_similarity=np.concatenate([parts[0][1], parts[1][1]]).astype(np.float64),
        f1_share=share,
        degenerate_query=unit.degenerate[query],
        ci=ci,
        search=(parts[0][4], parts[1][4]),
        query_length=query_lengths([corpus.texts[i] for i in query.tolist()]),
    )


def run_bitext(
    corpus: Corpus,
    encoder: Encoder,
    *,
    seed: int = 0,
    languages: str = "en-de",
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    search: str = "auto",
) -> Job[BitextResult]:
    """Encode the corpus and run :func:`iter_evaluate_bitext` (same parameters)."""
    bitext_queries(corpus, languages)
    embeddings = yield from encode_corpus(corpus, encoder)
    return (
        yield from iter_evaluate_bitext(
            corpus,
            embeddings,
            encoder=encoder,
            languages=languages,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            search=search,
        )
    )
