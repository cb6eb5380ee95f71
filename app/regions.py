"""What is each region of a layout about? Clusters labelled with their keywords.

Clusters come from scikit-learn's HDBSCAN, on the 2D layout (what the user sees, the
default) or on the embeddings (reduced to 50 dimensions and L2-normalised, so Euclidean
distance ranks as cosine). Each cluster is labelled by class-based TF-IDF (as BERTopic's
c-TF-IDF): a word scores high when it is frequent inside the cluster and rare in the
corpus as a whole, ``tf(w, c) * log(1 + A / f(w))``, with ``tf`` the word's share of the
cluster's words, ``f`` its count in the whole corpus and ``A`` the mean number of words
per cluster. Above ``max_points`` sentences a seeded sample is clustered and every other
sentence joins the cluster whose centre (in the clustered space) is nearest, so a
million points cost a sample's clustering plus one pass of distances to the centres.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.corpora.model import Corpus
from sentspace.app.errors import EvaluationError
from sentspace.app.export import csv_text, write_csv
from sentspace.app.jobs import Job, Progress
from sentspace.app.results import Provenance
from sentspace.app.results import provenance as make_provenance
from sentspace.models.base import Embeddings, Encoder

#: Columns of the CSV export, one row per sentence.
CSV_HEADER = ("sentence", "cluster", "label")

NAME = "regions"
ON = ("layout", "embeddings")
#: Sentences clustered at most; the rest are assigned to the nearest cluster centre.
#: HDBSCAN grows about quadratically here: 10k 2D points 1.7 s, 50k 40-65 s on 2 cores.
MAX_POINTS = 20_000
#: Dimensions the embeddings are reduced to before clustering them.
EMBEDDING_DIMS = 50
#: Keywords kept per cluster, and how many of them make its label.
N_KEYWORDS = 8
LABEL_WORDS = 3
#: Points per block of the nearest-centre assignment (bounds memory).
ASSIGN_BLOCK = 65_536
NOISE = -1


@dataclass(frozen=True, eq=False)
class Regions:
    """Clusters of a corpus's sentences and their keywords.

    Attributes
    ----------
    labels : ndarray of int, shape (n,)
        Cluster of each sentence, :data:`NOISE` (-1) for points HDBSCAN left out.
    keywords : tuple of tuple of str
        Top words of each cluster by class-based TF-IDF, best first.
    scores : tuple of tuple of float
        Their c-TF-IDF scores.
    centres : ndarray of shape (n_clusters, 2)
        Mean layout position of each cluster's sentences (where its label is drawn).
    sizes : ndarray of int, shape (n_clusters,)
    n_clustered : int
        Sentences HDBSCAN saw (all of them, or the sample).
    """

    provenance: Provenance
    labels: np.ndarray
    keywords: tuple[tuple[str, ...], ...]
    scores: tuple[tuple[float, ...], ...]
    centres: np.ndarray
    sizes: np.ndarray
    n_clustered: int

    @property
    def n_clusters(self) -> int:
        return len(self.sizes)

    def label(self, cluster: int) -> str:
        """The cluster's name: its first keywords ("" for noise)."""
        return "" if cluster == NOISE else ", ".join(self.keywords[cluster][:LABEL_WORDS])

    def summary(self) -> list[tuple[str, str]]:
        n = len(self.labels)
        noise = int((self.labels == NOISE).sum())
        rows = [("clusters", str(self.n_clusters)),
                ("sentences in no cluster", f"{noise} ({noise / n:.1%})" if n else "0"),
                ("sentences clustered (the rest: nearest centre)", str(self.n_clustered))]
        for cluster in np.argsort(-self.sizes, kind="stable")[:5].tolist():
            rows.append((f"cluster {cluster} ({self.sizes[cluster]} sentences)",
                         self.label(cluster)))
        return rows

    def to_dict(self) -> dict[str, Any]:
        return {"evaluation": NAME, "provenance": self.provenance.__dict__,
                "labels": self.labels.tolist(),
                "clusters": [{"cluster": k, "size": int(size), "label": self.label(k),
                              "keywords": list(words), "scores": list(scores),
                              "centre": centre}
                             for k, (size, words, scores, centre) in enumerate(zip(
                                 self.sizes.tolist(), self.keywords, self.scores,
                                 self.centres.tolist()))],
                "n_clustered": self.n_clustered}

    def _rows(self, texts: tuple[str, ...]):
        names = [self.label(k) for k in range(self.n_clusters)] + [""]
        return zip(texts, self.labels.tolist(), (names[k] for k in self.labels.tolist()))

    def to_csv(self, texts: tuple[str, ...]) -> str:
        """One row per sentence: sentence, cluster, label."""
        return csv_text(CSV_HEADER, self._rows(texts))

    def export_csv(self, texts: tuple[str, ...], path) -> None:
        write_csv(path, CSV_HEADER, self._rows(texts))


def _clustering_space(coordinates: np.ndarray, embeddings: Embeddings | None, on: str,
                      seed: int) -> np.ndarray:
    if on == "layout":
        return np.asarray(coordinates, dtype=np.float64)
    from sklearn.preprocessing import normalize  # noqa: PLC0415

    from sentspace.app.projection import _reduce  # the projection's own linear reduction
    reduced = _reduce(embeddings, EMBEDDING_DIMS, seed)
    reduced = sp.csr_array(reduced).toarray() if sp.issparse(reduced) else np.asarray(reduced)
    return normalize(reduced.astype(np.float64))


def nearest_centre(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Index of the nearest centre (Euclidean) of each point, in blocks."""
    out = np.empty(len(points), dtype=np.int64)
    centre_norms = (centres ** 2).sum(axis=1)
    for start in range(0, len(points), ASSIGN_BLOCK):
        block = points[start:start + ASSIGN_BLOCK]
        out[start:start + ASSIGN_BLOCK] = np.argmin(centre_norms - 2 * block @ centres.T,
                                                    axis=1)
    return out


def class_tfidf(texts: tuple[str, ...], labels: np.ndarray, n_clusters: int,
                language: str = "en", n_keywords: int = N_KEYWORDS
                ) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[float, ...], ...]]:
    """Top words of each cluster by class-based TF-IDF against the whole corpus.

    Words are runs of two or more word characters, lowercased; English stop words are
    dropped for English corpora.
    """
    from sklearn.feature_extraction.text import CountVectorizer  # noqa: PLC0415
    vectorizer = CountVectorizer(stop_words="english" if language == "en" else None,
                                 dtype=np.float64)
    try:
        counts = vectorizer.fit_transform(texts)
    except ValueError:      # no word at all (empty corpus, or only stop words)
        return ((),) * n_clusters, ((),) * n_clusters
    vocabulary = vectorizer.get_feature_names_out()
    inside = np.flatnonzero(labels != NOISE)
    membership = sp.csr_array((np.ones(len(inside)), (labels[inside], inside)),
                              shape=(n_clusters, len(texts)))
    per_cluster = sp.csr_array(membership @ counts)
    words = np.asarray(per_cluster.sum(axis=1)).ravel()
    frequency = np.asarray(counts.sum(axis=0)).ravel()
    average = words.sum() / max(n_clusters, 1)
    tf = sp.diags_array(np.divide(1.0, words, out=np.zeros_like(words), where=words > 0))
    scores = sp.csr_array(tf @ per_cluster @ sp.diags_array(np.log1p(average / frequency)))
    keywords, values = [], []
    for k in range(n_clusters):
        start, end = scores.indptr[k], scores.indptr[k + 1]
        columns, row = scores.indices[start:end], scores.data[start:end]
        # Best score first; ties in vocabulary order, so the labels are reproducible.
        order = np.lexsort((columns, -row))[:n_keywords]
        keywords.append(tuple(vocabulary[columns[order]].tolist()))
        values.append(tuple(round(float(v), 6) for v in row[order]))
    return tuple(keywords), tuple(values)


def find_regions(corpus: Corpus, coordinates: np.ndarray, *,
                 embeddings: Embeddings | None = None, encoder: Encoder | None = None,
                 on: str = "layout", min_cluster_size: int | None = None,
                 max_points: int = MAX_POINTS, seed: int = 0) -> Job[Regions]:
    """Cluster a corpus's layout (or embeddings) and label each cluster.

    Parameters
    ----------
    corpus : the sentences (their texts give the keywords).
    coordinates : ndarray of shape (n, 2), the current 2D layout.
    embeddings : shape (n, dim); needed with ``on="embeddings"``.
    encoder : what made the embeddings, for the provenance (None: precomputed).
    on : "layout" (default) or "embeddings".
    min_cluster_size : HDBSCAN's; by default 0.5% of the clustered points, at least 5.
    max_points : cluster a seeded sample of this size when there are more sentences.
    seed : the sample and the reduction of the embeddings.

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
        raise EvaluationError(f"expected {n} rows of 2D coordinates (and embeddings), one "
                              f"per sentence; got {coordinates.shape}")
    stage = "finding regions"
    yield Progress(stage, 0, 3)
    space = _clustering_space(coordinates, embeddings, on, seed)
    sample = (np.sort(np.random.default_rng(seed).choice(n, max_points, replace=False))
              if n > max_points else np.arange(n))
    size = min_cluster_size or max(5, round(0.005 * len(sample)))
    from sklearn.cluster import HDBSCAN  # noqa: PLC0415
    sample_labels = (HDBSCAN(min_cluster_size=max(size, 2), copy=True).fit(space[sample])
                     .labels_ if len(sample) > 1 else np.full(len(sample), NOISE))
    yield Progress(stage, 1, 3)
    n_clusters = int(sample_labels.max(initial=NOISE)) + 1
    labels = np.full(n, NOISE, dtype=np.int64)
    labels[sample] = sample_labels
    if len(sample) < n and n_clusters:
        inside = sample_labels != NOISE
        counts = np.bincount(sample_labels[inside], minlength=n_clusters)
        centres = (np.stack([np.bincount(sample_labels[inside],
                                         weights=space[sample[inside], d],
                                         minlength=n_clusters)
                             for d in range(space.shape[1])], axis=1) / counts[:, None])
        rest = np.setdiff1d(np.arange(n), sample, assume_unique=True)
        labels[rest] = nearest_centre(space[rest], centres)
    yield Progress(stage, 2, 3)
    keywords, scores = class_tfidf(corpus.texts, labels, n_clusters, corpus.language)
    inside = labels != NOISE
    sizes = np.bincount(labels[inside], minlength=n_clusters)
    layout_centres = np.stack([np.bincount(labels[inside], weights=coordinates[inside, d],
                                           minlength=n_clusters)
                               for d in range(2)], axis=1) / np.maximum(sizes, 1)[:, None]
    yield Progress(stage, 3, 3)
    return Regions(
        provenance=make_provenance(corpus, encoder, coordinates if embeddings is None
                                   else embeddings, on=on, min_cluster_size=size,
                                   max_points=max_points, seed=seed),
        labels=labels, keywords=keywords, scores=scores, centres=layout_centres,
        sizes=sizes, n_clustered=len(sample))
