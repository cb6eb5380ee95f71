"""What is each region of a layout about? Regions at several levels, labelled with keywords.

Regions are nested partitions of the 2D layout (what the user sees, the default) or of
the embeddings (reduced to 50 dimensions and L2-normalised, so Euclidean distance ranks
as cosine): the coarsest level splits the map into up to ``BRANCHING[0]`` regions, and
each region of a level splits into up to ``BRANCHING[i]`` at the next, while its parts
keep at least ``min_cluster_size`` sentences. Each split is scikit-learn's bisecting
k-means, halving the part with the most points until there are enough: dense areas are
split first, so no region holds most of a large map (a density clustering, HDBSCAN, put
85% of the 145,000 Multi30K captions laid out by UMAP in one of two regions), and every
fine region lies inside one coarse region. Each region is labelled by the words that
set it apart from the other regions of its level (:func:`class_tfidf`): a word scores
``tf(w, c) * log(tf(w, c) / tf(w, rest))``, its share of the region's words times how
many times more of them it is than of the other regions' words (the region's term of
the divergence of its words from the rest's), so a word common everywhere ("man" on the
captions, in 4 of 6 labels by BERTopic's c-TF-IDF) names no region. A region larger
than ``max_points`` is fitted on a seeded sample of them and every one of them joins its
nearest centre. No two regions of a level share a label, and no word is in more than
half of a level's labels (:func:`distinct_labels`). A label is drawn at its region's
densest place, where its sentences are the most of any region's (:func:`densest_points`):
the mean of a region's points may lie in another region.

:func:`place_labels` chooses where labels go on screen: greedily by priority, each at
its anchor or moved beside it, never over another label or a marked point.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.projection import _reduce
from sentspace.app.analysis.results import Provenance
from sentspace.app.analysis.results import provenance as make_provenance
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.base.tables import csv_text, write_csv
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder

NAME = "regions"
ON = ("layout", "embeddings")
#: How many parts the whole map splits into, then each region of a level at the next:
#: 8 coarse regions, about 40 and about 200 at most.
BRANCHING = (8, 5, 5)
#: Sentences one split is fitted on at most; the rest of its region join the nearest
#: centre.
MAX_POINTS = 20_000
#: Bisections tried from different seeded starts at each step; the best is kept.
N_INIT = 3
#: Dimensions the embeddings are reduced to before clustering them.
EMBEDDING_DIMS = 50
#: Keywords kept per region, and how many of them make its label.
N_KEYWORDS = 8
LABEL_WORDS = 3
#: A word as CountVectorizer's default token pattern reads one.
WORD = re.compile(r"\w\w+")
#: Sentences in no region: only in regions found before they were nested bisecting k-means
#: (HDBSCAN's noise), which workspaces may still hold.
NOISE = -1
#: Labels keep clear of at most this many marked points in view (see place_labels).
MOST_MARKED = 300


@dataclass(frozen=True, eq=False)
class RegionLevel:
    """One level of regions: a partition of the sentences, finer than the level above.

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
        Region of each sentence at this level.
    parents : ndarray of int, shape (n_clusters,)
        The region of the level above that holds each region.
    keywords, scores, centres, sizes : as :class:`Regions`'.
    """

    labels: np.ndarray
    parents: np.ndarray
    keywords: tuple[tuple[str, ...], ...]
    scores: tuple[tuple[float, ...], ...]
    centres: np.ndarray
    sizes: np.ndarray

    @property
    def n_clusters(self) -> int:
        return len(self.sizes)

    def label(self, cluster: int) -> str:
        """The region's name: its first keywords, unlike any other of the level's
        (:func:`distinct_labels`; "" for noise)."""
        return "" if cluster == NOISE else self._labels[cluster]

    @cached_property
    def _labels(self) -> tuple[str, ...]:
        return distinct_labels(self.keywords, self.sizes)


def distinct_labels(keywords: Sequence[Sequence[str]], sizes: np.ndarray) -> tuple[str, ...]:
    """Each region's first ``LABEL_WORDS`` keywords, joined, largest region first, with
    no word in more than half of the labels (a word already in that many is passed
    over for the region's next keyword: "man" was in 4 of Multi30K's 6) and no two
    labels of the same words (in any order: the later takes its next keyword in place
    of its last, and is numbered when none is left)."""
    most = max(1, len(keywords) // 2)
    used: Counter[str] = Counter()
    taken: set[frozenset[str]] = set()
    named: Counter[frozenset[str]] = Counter()
    labels = [""] * len(keywords)
    for region in np.argsort(-np.asarray(sizes), kind="stable").tolist():
        words = [word for word in keywords[region] if used[word] < most] or list(keywords[region])
        chosen = words[:LABEL_WORDS]
        if frozenset(chosen) in taken:
            swapped = (chosen[:-1] + [word] for word in words[LABEL_WORDS:])
            chosen = next((kept for kept in swapped if frozenset(kept) not in taken), chosen)
        own = frozenset(chosen)
        named[own] += 1
        taken.add(own)
        used.update(chosen)
        labels[region] = ", ".join(chosen) + (f" ({named[own]})" if named[own] > 1 else "")
    return tuple(labels)


@dataclass(frozen=True, eq=False)
class Regions:
    """Regions of a corpus's sentences at several levels, and their keywords.

    The fields describe the coarsest level; ``finer`` the levels below it, each region
    of a level inside one region of the level above.

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
        Coarse region of each sentence (:data:`NOISE`, -1, only in old workspaces).
    keywords : tuple of tuple of str
        Top words of each region by class-based TF-IDF, best first.
    scores : tuple of tuple of float
        Their c-TF-IDF scores.
    centres : ndarray of shape (n_clusters, 2)
        Mean layout position of each region's sentences (where its label is drawn).
    sizes : ndarray of int, shape (n_clusters,)
    n_clustered : int
        Sentences the coarse level was fitted on (all of them, or the sample).
    finer : tuple of RegionLevel
        The finer levels, coarse to fine (none in workspaces saved before levels).
    """

    provenance: Provenance
    labels: np.ndarray
    keywords: tuple[tuple[str, ...], ...]
    scores: tuple[tuple[float, ...], ...]
    centres: np.ndarray
    sizes: np.ndarray
    n_clustered: int
    finer: tuple[RegionLevel, ...] = ()

    @property
    def n_clusters(self) -> int:
        return len(self.sizes)

    @property
    def levels(self) -> tuple[RegionLevel, ...]:
        """Every level, coarse first."""
        coarse = RegionLevel(
            self.labels,
            np.full(self.n_clusters, NOISE),
            self.keywords,
            self.scores,
            self.centres,
            self.sizes,
        )
        return (coarse, *self.finer)

    def label(self, cluster: int) -> str:
        """The coarse region's name: its first keywords ("" for noise)."""
        return self.levels[0].label(cluster)

    @property
    def largest_share(self) -> float:
        """The share of all sentences in the largest coarse region."""
        return float(self.sizes.max(initial=0)) / max(len(self.labels), 1)

    def summary(self) -> list[tuple[str, str]]:
        n = len(self.labels)
        noise = int((self.labels == NOISE).sum())
        rows = [
            (
                "regions per level, coarse to fine",
                " / ".join(str(level.n_clusters) for level in self.levels),
            ),
            ("largest region", f"{self.largest_share:.1%} of the sentences"),
            ("sentences clustered (the rest: nearest centre)", str(self.n_clustered)),
        ]
        if noise:
            rows.insert(1, ("sentences in no region", f"{noise} ({noise / n:.1%})"))
        for cluster in np.argsort(-self.sizes, kind="stable")[:5].tolist():
            rows.append(
                (f"region {cluster} ({self.sizes[cluster]} sentences)", self.label(cluster))
            )
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {
            "evaluation": NAME,
            "provenance": self.provenance.__dict__,
            "labels": self.labels.tolist(),
            "levels": [
                {
                    "labels": level.labels.tolist(),
                    "clusters": [
                        {
                            "cluster": k,
                            "size": int(size),
                            "parent": int(parent),
                            "label": level.label(k),
                            "keywords": list(words),
                            "scores": list(scores),
                            "centre": centre,
                        }
                        for k, (size, parent, words, scores, centre) in enumerate(
                            zip(
                                level.sizes.tolist(),
                                level.parents.tolist(),
                                level.keywords,
                                level.scores,
                                level.centres.tolist(),
                            )
                        )
                    ],
                }
                for level in self.levels
            ],
            "n_clustered": self.n_clustered,
        }

    @property
    def csv_header(self) -> tuple[str, ...]:
        """sentence, then region and label at each level, coarse first."""
        columns = ["sentence", "cluster", "label"]
        for depth in range(2, len(self.levels) + 1):
            columns += [f"cluster {depth}", f"label {depth}"]
        return tuple(columns)

    def _rows(self, texts: tuple[str, ...]) -> Iterator[list[Any]]:
        columns: list[Sequence[Any]] = [texts]
        for level in self.levels:
            names = [level.label(k) for k in range(level.n_clusters)] + [""]
            columns += [level.labels.tolist(), [names[k] for k in level.labels.tolist()]]
        return (list(row) for row in zip(*columns))

    def to_csv(self, texts: tuple[str, ...]) -> str:
        """One row per sentence: sentence, then region and label at each level."""
        return csv_text(self.csv_header, self._rows(texts))

    def export_csv(self, texts: tuple[str, ...], path) -> None:
        write_csv(path, self.csv_header, self._rows(texts))


def _clustering_space(
    coordinates: np.ndarray, embeddings: Embeddings | None, on: str, seed: int
) -> np.ndarray:
    if on == "layout":
        return np.asarray(coordinates, dtype=np.float64)
    from sklearn.preprocessing import normalize  # noqa: PLC0415

    reduced = _reduce(embeddings, EMBEDDING_DIMS, seed)
    reduced = sp.csr_array(reduced).toarray() if sp.issparse(reduced) else np.asarray(reduced)
    return normalize(reduced.astype(np.float64))


def stop_words(language: str) -> str | list[str] | None:
    """What :class:`~sklearn.feature_extraction.text.CountVectorizer` drops as stop words
    of ``language`` (an ISO 639-1 code): Czech labels were "se, že, na" without them."""
    if language == "en":
        return "english"
    import stopwordsiso  # noqa: PLC0415

    if not stopwordsiso.has_lang(language):
        return None
    # Only entries that are whole tokens (not "aujourd'hui"), as scikit-learn asks.
    return sorted(word for word in stopwordsiso.stopwords(language) if WORD.fullmatch(word))


def word_counts(
    texts: Sequence[str], language: str = "en", languages: Sequence[str] | None = None
) -> tuple[sp.csr_array | None, np.ndarray]:
    """Each text's word counts (None when there is no word at all) and the vocabulary.

    Words are runs of two or more word characters, lowercased; the language's stop words
    are dropped (scikit-learn's list for English, stopwords-iso's for the others). Given
    ``languages``, each text's own (a corpus of several languages), each text loses its
    own language's stop words only: one list of all would drop German "man" from English.
    """
    from sklearn.feature_extraction.text import CountVectorizer  # noqa: PLC0415

    if languages is None:
        vectorizer = CountVectorizer(stop_words=stop_words(language), dtype=np.float64)
        documents: Sequence[Any] = texts
    else:
        dropped = {code: _stop_word_set(code) for code in set(languages)}

        def words(document: tuple[str, str]) -> list[str]:
            text, code = document
            return [word for word in WORD.findall(text.lower()) if word not in dropped[code]]

        vectorizer = CountVectorizer(analyzer=words, dtype=np.float64)
        documents = list(zip(texts, languages, strict=True))
    try:
        counts = sp.csr_array(vectorizer.fit_transform(documents))
    except ValueError:  # no word at all (empty corpus, or only stop words)
        return None, np.empty(0, dtype=object)
    return counts, vectorizer.get_feature_names_out()


def _stop_word_set(language: str) -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # noqa: PLC0415

    words = stop_words(language)
    return ENGLISH_STOP_WORDS if words == "english" else frozenset(words or ())


def class_tfidf(
    counts: sp.csr_array | None,
    vocabulary: np.ndarray,
    labels: np.ndarray,
    n_clusters: int,
    n_keywords: int = N_KEYWORDS,
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[float, ...], ...]]:
    """Top words of each cluster by what sets it apart from the other clusters, from
    :func:`word_counts`: ``tf(w, c) * log(tf(w, c) / tf(w, rest))``, with ``tf`` a
    word's share of the cluster's words and of the other clusters' (a count of one added
    to each word of the rest, so a word they lack is not infinitely distinctive); only
    words more frequent inside than outside."""
    if counts is None:
        return ((),) * n_clusters, ((),) * n_clusters
    inside = np.flatnonzero(labels != NOISE)
    membership = sp.csr_array(
        (np.ones(len(inside)), (labels[inside], inside)), shape=(n_clusters, counts.shape[0])
    )
    per_cluster = sp.csr_array(membership @ counts)
    per_cluster.sort_indices()
    words = np.asarray(per_cluster.sum(axis=1)).ravel()
    frequency = np.asarray(per_cluster.sum(axis=0)).ravel()
    row = np.repeat(np.arange(n_clusters), np.diff(per_cluster.indptr))
    here = per_cluster.data
    share = here / words[row]
    rest_share = (frequency[per_cluster.indices] - here + 1) / (
        words.sum() - words[row] + len(vocabulary)
    )
    with np.errstate(divide="ignore"):
        score = share * np.log(share / rest_share)
    scores = sp.csr_array(
        (np.maximum(score, 0.0), per_cluster.indices, per_cluster.indptr), shape=per_cluster.shape
    )
    keywords, values = [], []
    for k in range(n_clusters):
        start, end = scores.indptr[k], scores.indptr[k + 1]
        columns, row_scores = scores.indices[start:end], scores.data[start:end]
        kept = row_scores > 0
        columns, row_scores = columns[kept], row_scores[kept]
        # Best score first; ties in vocabulary order, so the labels are reproducible.
        order = np.lexsort((columns, -row_scores))[:n_keywords]
        keywords.append(tuple(vocabulary[columns[order]].tolist()))
        values.append(tuple(round(float(v), 6) for v in row_scores[order]))
    return tuple(keywords), tuple(values)


def densest_points(coordinates: np.ndarray, labels: np.ndarray, n_regions: int) -> np.ndarray:
    """Where each region's label goes (n_regions, 2): its best place by
    :func:`label_anchors`. A region's mean point may lie in another region (Costra's
    "zítra, ráno, koleji" sat over another region)."""
    return label_anchors(coordinates, labels, n_regions, 1)[:, 0]


def label_anchors(
    coordinates: np.ndarray, labels: np.ndarray, n_regions: int, count: int
) -> np.ndarray:
    """Up to ``count`` places for each region's label, best first (n_regions, count, 2;
    NaN where a region has fewer): the mean of its points in cells of a grid over the
    map where, counting each cell with its eight neighbours, it holds the most
    sentences of any region, by how many it holds there times its share of them
    (dense and its own). A region holding no such cell gets its densest cell."""
    from scipy.ndimage import uniform_filter  # noqa: PLC0415

    points = np.asarray(coordinates, dtype=np.float64)
    anchors = np.full((n_regions, count, 2), np.nan)
    if not len(points) or not n_regions:
        return anchors
    side = int(np.clip(np.sqrt(n_regions) * 6, 16, 96))
    low, span = points.min(axis=0), np.ptp(points, axis=0)
    span = np.where(span > 0, span, 1.0)
    grid = np.minimum(((points - low) / span * side).astype(np.int64), side - 1)
    cell = grid[:, 0] * side + grid[:, 1]
    inside = labels >= 0
    key = labels[inside] * side * side + cell[inside]
    counts = np.bincount(key, minlength=n_regions * side * side).reshape(n_regions, -1)
    near = uniform_filter(
        counts.reshape(n_regions, side, side).astype(np.float64), size=(1, 3, 3), mode="constant"
    ).reshape(n_regions, -1)
    share = near / np.maximum(near.sum(axis=0, keepdims=True), 1e-12)
    holds_most = (near == near.max(axis=0, keepdims=True)) & (counts > 0)
    merit = np.where(holds_most, near * share, 0.0)
    merit = np.where(merit.max(axis=1, keepdims=True) > 0, merit, counts)
    order = np.argsort(-merit, axis=1, kind="stable")[:, :count]
    sums = np.stack(
        [np.bincount(key, weights=points[inside, d], minlength=counts.size) for d in range(2)],
        axis=-1,
    ).reshape(n_regions, -1, 2)
    rows = np.arange(n_regions)[:, None]
    weight = counts[rows, order]
    found = np.take_along_axis(merit, order, axis=1) > 0
    anchors[:, : order.shape[1]] = np.where(
        found[..., None], sums[rows, order] / np.maximum(weight, 1)[..., None], np.nan
    )
    return anchors


def split(
    space: np.ndarray, members: np.ndarray, parts: int, *, min_size: int, max_points: int, seed: int
) -> tuple[np.ndarray, int]:
    """The part of each of ``members`` (indices into ``space``) by bisecting k-means
    (always halving the most populous part) into at most ``parts``, fitted on a seeded sample of at most ``max_points`` of them, and how
    many parts there are. Parts numbered largest first; the points of a part under
    ``min_size`` (outliers k-means gave a centre) join the nearest larger part."""
    from sklearn.cluster import BisectingKMeans  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    fitted_on = (
        np.sort(rng.choice(members, max_points, replace=False))
        if len(members) > max_points
        else members
    )
    model = BisectingKMeans(
        n_clusters=parts, n_init=N_INIT, random_state=seed, bisecting_strategy="largest_cluster"
    ).fit(space[fitted_on])
    part = model.predict(space[members]) if len(fitted_on) < len(members) else model.labels_
    sizes = np.bincount(part, minlength=parts)
    kept = np.flatnonzero(sizes >= min_size)
    if len(kept) < parts:
        kept = kept if len(kept) else np.array([int(np.argmax(sizes))])
        centres = model.cluster_centers_[kept]
        stray = np.flatnonzero(~np.isin(part, kept))
        distances = ((space[members[stray], None, :] - centres[None]) ** 2).sum(axis=2)
        part = part.copy()
        part[stray] = kept[np.argmin(distances, axis=1)]
        sizes = np.bincount(part, minlength=parts)
    rank = np.empty(parts, dtype=np.int64)
    rank[np.argsort(-sizes, kind="stable")] = np.arange(parts)
    return rank[part], len(kept)


def nest(
    space: np.ndarray,
    min_size: int,
    *,
    branching: Sequence[int] = BRANCHING,
    max_points: int = MAX_POINTS,
    seed: int = 0,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Levels of nested regions of the points of ``space``, coarse first: (labels,
    parents) per level. A region splits into up to the level's branching factor, as
    long as each part can keep ``min_size`` points; one too small to split stays whole
    at the next level. A level no finer than the one above ends the nesting."""
    from threadpoolctl import threadpool_limits  # noqa: PLC0415

    labels = np.zeros(len(space), dtype=np.int64)
    levels: list[tuple[np.ndarray, np.ndarray]] = []
    # One thread: on regions of a few thousand points OpenMP's start and spin cost 8x
    # the work; limited once, as looking the libraries up costs 20 ms.
    with threadpool_limits(limits=1, user_api="openmp"):
        for depth, branch in enumerate(branching):
            n_regions = len(levels[-1][1]) if levels else 1
            order = np.argsort(labels, kind="stable")
            bounds = np.searchsorted(labels[order], np.arange(n_regions + 1))
            finer = np.empty_like(labels)
            parents: list[int] = []
            for region in range(n_regions):
                members = order[bounds[region] : bounds[region + 1]]
                parts = min(branch, len(members) // max(min_size, 1))
                part, parts = (
                    split(
                        space,
                        members,
                        parts,
                        min_size=min_size,
                        max_points=max_points,
                        seed=seed + 7919 * depth + region,
                    )
                    if parts >= 2
                    else (np.zeros(len(members), dtype=np.int64), 1)
                )
                finer[members] = len(parents) + part
                parents += [region] * parts
            if levels and len(parents) == n_regions:
                break
            labels = finer
            levels.append((labels, np.array(parents, dtype=np.int64)))
    return levels


def find_regions(
    corpus: Corpus,
    coordinates: np.ndarray,
    *,
    embeddings: Embeddings | None = None,
    encoder: Encoder | None = None,
    on: str = "layout",
    min_cluster_size: int | None = None,
    max_points: int = MAX_POINTS,
    seed: int = 0,
) -> Job[Regions]:
    """Split a corpus's layout (or embeddings) into regions at several levels and label
    each region.

    Parameters
    ----------
    corpus : the sentences (their texts give the keywords).
    coordinates : ndarray of shape (n, 2), the current 2D layout.
    embeddings : shape (n, dim); needed with ``on="embeddings"``.
    encoder : what made the embeddings, for the provenance (None: precomputed).
    on : "layout" (default) or "embeddings".
    min_cluster_size : the fewest sentences a region is split down to; by default 0.2%
        of the corpus, at least 5.
    max_points : each split is fitted on a seeded sample of this size when its region
        has more sentences.
    seed : the samples, the bisections' starts and the reduction of the embeddings.

    Raises
    ------
    EvaluationError
        Rows that do not match the corpus, an unknown ``on``, or no embeddings for it.
    """
    n = len(corpus)
    if on not in ON:
        raise EvaluationError(f"regions are found on {' or '.join(ON)}, not {on!r}")
    if on == "embeddings" and embeddings is None:
        raise EvaluationError("clustering on the embeddings needs the embeddings")
    coordinates = np.asarray(coordinates)
    if coordinates.shape != (n, 2) or (embeddings is not None and embeddings.shape[0] != n):
        raise EvaluationError(
            f"expected {n} rows of 2D coordinates (and embeddings), one "
            f"per sentence; got {coordinates.shape}"
        )
    stage = "finding regions"
    steps = 3
    yield Progress(stage, 0, steps)
    space = _clustering_space(coordinates, embeddings, on, seed)
    yield Progress(stage, 1, steps)
    size = min_cluster_size or max(5, round(0.002 * n))
    nested = nest(space, size, max_points=max_points, seed=seed)
    yield Progress(stage, 2, steps)
    languages = corpus.metadata.get("language") if corpus.language == "mul" else None
    counts, vocabulary = word_counts(corpus.texts, corpus.language, languages)
    levels = []
    for labels, parents in nested:
        n_regions = len(parents)
        keywords, scores = class_tfidf(counts, vocabulary, labels, n_regions)
        sizes = np.bincount(labels, minlength=n_regions)
        centres = densest_points(coordinates, labels, n_regions)
        levels.append(RegionLevel(labels, parents, keywords, scores, centres, sizes))
    yield Progress(stage, steps, steps)
    coarse = levels[0]
    return Regions(
        provenance=make_provenance(
            corpus,
            encoder,
            coordinates if embeddings is None else embeddings,
            on=on,
            min_cluster_size=size,
            max_points=max_points,
            seed=seed,
        ),
        labels=coarse.labels,
        keywords=coarse.keywords,
        scores=coarse.scores,
        centres=coarse.centres,
        sizes=coarse.sizes,
        n_clustered=min(n, max_points),
        finer=tuple(levels[1:]),
    )


def place_labels(
    anchors: np.ndarray,
    sizes: np.ndarray,
    frame: tuple[float, float, float, float],
    marked: np.ndarray | None = None,
    margin: float = 4.0,
    most_marked: int = MOST_MARKED,
    alternatives: np.ndarray | None = None,
    regions: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Where to draw labels so none covers another or a marked point (screen pixels).

    Labels are placed in the order given (most important first): each at its anchor,
    else moved beside it (above, below, left, right, then further above or below), kept
    inside ``frame``; one that fits nowhere is dropped.

    Parameters
    ----------
    anchors : shape (m, 2), where each label belongs (x, y).
    sizes : shape (m, 2), each label's width and height; ``margin`` is kept free around it.
    frame : (left, top, right, bottom) of the area labels must stay in.
    marked : shape (p, 2), points no label may cover (search hits, the selection,
        misclassified rings).
        With more than ``most_marked`` in the frame they cover areas (a common word, a
        whole region selected) and dropping every label touching one would leave the
        map unnamed: a label then takes the place beside its anchor covering the fewest.
    alternatives : shape (m, c, 2), other places of each label's own (NaN: none), tried
        in order, each where it is, when no place beside its anchor is free: a region's
        other dense places (:func:`label_anchors`), not a place over another region.
    regions : (points (p, 2), each point's region (p,), each label's region (m,)): a
        label is not placed where most of the points under it are another region's;
        beyond the places beside it, it may then move further up or down, or aslant,
        to empty room. Where every free place is so (regions crowded into fewer pixels
        than their labels), it takes the free place most its own: no region unnamed.

    Returns
    -------
    ndarray of shape (m, 2): the centre of each label's box, NaN for a dropped label.
    """
    anchors = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)
    sizes = np.asarray(sizes, dtype=np.float64).reshape(-1, 2) + 2 * margin
    marked = (
        np.empty((0, 2)) if marked is None else np.asarray(marked, dtype=np.float64).reshape(-1, 2)
    )
    left, top, right, bottom = frame
    marked = marked[
        (marked[:, 0] >= left)
        & (marked[:, 0] <= right)
        & (marked[:, 1] >= top)
        & (marked[:, 1] <= bottom)
    ]
    crowded = len(marked) > most_marked
    steps = np.array([(0, 0), (0, -1), (0, 1), (-1, 0), (1, 0), (0, -2), (0, 2)], dtype=np.float64)
    if regions is not None:
        further = [(0, -3), (0, 3), (-1, -1), (1, -1), (-1, 1), (1, 1), (0, -4), (0, 4)]
        further += [(0, -5), (0, 5), (-1, -2), (1, -2), (-1, 2), (1, 2), (0, -6), (0, 6)]
        steps = np.vstack([steps, np.array(further, dtype=np.float64)])
        points, owner, own = (np.asarray(part) for part in regions)
    taken = np.empty((0, 4))  # (x0, y0, x1, y1) of the boxes placed
    placed = np.full((len(anchors), 2), np.nan)
    for index, ((x, y), (width, height)) in enumerate(zip(anchors, sizes)):
        beside = [(x + step_x * width, y + step_y * height) for step_x, step_y in steps]
        if not (left <= x <= right and top <= y <= bottom):
            beside = []
        others = alternatives[index] if alternatives is not None else np.empty((0, 2))
        places = beside + [
            (float(px), float(py))
            for px, py in others
            if left <= px <= right and top <= py <= bottom  # NaN: never
        ]
        best, fewest = None, len(marked) + 1 if crowded else 1
        fallback, least_foreign = None, 2.0
        for place_x, place_y in places:
            centre_x = min(max(place_x, left + width / 2), right - width / 2)
            centre_y = min(max(place_y, top + height / 2), bottom - height / 2)
            box = (
                centre_x - width / 2,
                centre_y - height / 2,
                centre_x + width / 2,
                centre_y + height / 2,
            )
            if (
                (taken[:, 0] < box[2])
                & (taken[:, 2] > box[0])
                & (taken[:, 1] < box[3])
                & (taken[:, 3] > box[1])
            ).any():
                continue
            covered = int(
                (
                    (marked[:, 0] >= box[0])
                    & (marked[:, 0] <= box[2])
                    & (marked[:, 1] >= box[1])
                    & (marked[:, 1] <= box[3])
                ).sum()
            )
            if covered >= fewest:
                continue
            if regions is not None:
                under = owner[
                    (points[:, 0] >= box[0])
                    & (points[:, 0] <= box[2])
                    & (points[:, 1] >= box[1])
                    & (points[:, 1] <= box[3])
                ]
                foreign = np.count_nonzero(under != own[index]) / max(len(under), 1)
                if foreign > 0.5:  # over another region
                    if foreign < least_foreign:
                        fallback, least_foreign = box, foreign
                    continue
            best, fewest = box, covered
            if not covered:
                break
        best = best if best is not None else fallback
        if best is not None:
            placed[index] = (best[0] + best[2]) / 2, (best[1] + best[3]) / 2
            taken = np.vstack([taken, best])
    return placed
