"""Nearest neighbours of one query in several embedding spaces of a corpus.

A space is a name, a fitted encoder and the corpus's embeddings under it. A query is a
corpus sentence (its own row is looked up, and it is excluded from its neighbours) or
typed text, which each encoder encodes on the fly. The top k by cosine in the original
space (:func:`sentspace.app.analysis.ann.iter_knn` with ``search``: exact, or an index above its size limit,
which the column's note then says with its recall) are found for every space in one job; each
neighbour says whether it shares a group with the query sentence and whether it is the
query's paraphrase partner (a positive pair).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sentspace.app.analysis.ann import iter_knn
from sentspace.app.analysis.neighbours import Normalised, normalise
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder
from sentspace.models.precomputed import Precomputed

CANNOT_ENCODE = (
    "Precomputed embeddings cannot encode new text: they only hold the "
    "corpus's sentences. Query a corpus sentence instead."
)

#: (name, fitted encoder, embeddings of every corpus sentence under it); the encoder is
#: None for embeddings alone, which only a corpus sentence can query.
Space = tuple[str, Encoder | None, Embeddings]


@dataclass(frozen=True)
class Query:
    """A corpus sentence (``index`` >= 0) or typed ``text`` (``index`` -1)."""

    text: str
    index: int = -1


@dataclass(frozen=True, eq=False)
class Neighbours:
    """One space's answer to a query.

    Attributes
    ----------
    indices : int ndarray of shape (k,)
        Corpus indices, most similar first (empty when ``note`` says why there are none).
    similarities : float32 ndarray of shape (k,)
    same_group, partner : bool ndarray of shape (k,)
        Whether each neighbour shares a group with the query sentence / is its
        paraphrase partner (always False for typed text).
    note : str
        Why the column is empty or what to keep in mind reading it; "" when nothing.
    """

    indices: np.ndarray
    similarities: np.ndarray
    same_group: np.ndarray
    partner: np.ndarray
    note: str = ""


def check_spaces(corpus: Corpus, spaces: Sequence[Space]) -> None:
    """ValueError unless every space's encoder is fitted (it encodes typed queries) and
    its embeddings are one row per corpus sentence."""
    for name, encoder, embeddings in spaces:
        if encoder is not None and not encoder.is_fitted:
            raise ValueError(f"encoder {name} must be fitted before it can encode queries")
        if embeddings.shape[0] != len(corpus):
            raise ValueError(
                f"{name}: {embeddings.shape[0]} embeddings for {len(corpus)} sentences"
            )


def _related(corpus: Corpus, index: int) -> tuple[np.ndarray, np.ndarray]:
    """Sentences sharing a group with sentence ``index`` and its positive-pair partners."""
    if index < 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    groups, pairs = corpus.groups, corpus.pairs
    same = np.zeros(0, dtype=np.int64)
    if groups is not None:
        own = groups.group_index[groups.sentence_index == index]
        same = groups.sentence_index[np.isin(groups.group_index, own)]
    partners = np.zeros(0, dtype=np.int64)
    if pairs is not None and not pairs.label_names:
        positive = pairs.label == 1
        partners = np.concatenate(
            [
                pairs.second[positive & (pairs.first == index)],
                pairs.first[positive & (pairs.second == index)],
            ]
        )
    return same, partners


def search_neighbours(
    corpus: Corpus,
    spaces: Sequence[Space],
    pools: Sequence[Normalised | None],
    query: Query,
    k: int,
    *,
    search: str = "auto",
) -> Job[tuple[list[Neighbours], list[Normalised]]]:
    """The ``k`` nearest corpus sentences of ``query`` in every space, found as
    ``search`` says ("auto", "exact", "ann"; :func:`sentspace.app.analysis.ann.iter_knn`).

    ``pools`` holds each space's row-normalised embeddings when already computed (None
    otherwise); they are returned, completed, so the caller normalises each space once.
    """
    same, partners = _related(corpus, query.index)
    answers, normalised = [], []
    for n, ((name, encoder, embeddings), pool) in enumerate(zip(spaces, pools)):
        pool = pool if pool is not None else normalise(embeddings)
        normalised.append(pool)
        note = ""
        if query.index >= 0:
            vector, exclude = embeddings[[query.index]], np.array([query.index])
        elif isinstance(encoder, Precomputed) and query.text not in corpus.texts:
            answers.append(_empty(CANNOT_ENCODE))
            yield Progress("nearest neighbours", n + 1, len(spaces))
            continue
        else:
            assert encoder is not None, "a text outside the corpus is queried with an encoder"
            vector, exclude = (yield from encoder.iter_encode([query.text])), None
        unit = normalise(vector)
        if unit.n_degenerate:
            note = (
                f"The query has no direction in {name} (e.g. no word the encoder "
                "knows): every cosine is 0, so the order below means nothing."
            )
        indices, similarities, how = yield from iter_knn(
            unit, pool, k, exclude=exclude, search=search
        )
        if how.approximate:
            note = " ".join(filter(None, [note, f"Found {how.describe()}."]))
        indices, similarities = indices[0], similarities[0]
        answers.append(
            Neighbours(
                indices, similarities, np.isin(indices, same), np.isin(indices, partners), note
            )
        )
        yield Progress("nearest neighbours", n + 1, len(spaces))
    return answers, normalised


def _empty(note: str) -> Neighbours:
    nothing = np.zeros(0, dtype=np.int64)
    return Neighbours(
        nothing, np.zeros(0, dtype=np.float32), nothing.astype(bool), nothing.astype(bool), note
    )
