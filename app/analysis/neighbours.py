"""Exact cosine geometry over embedding matrices, dense or sparse, in bounded memory.

Every function here takes float32 matrices of shape (n, dim), dense ``ndarray`` or
``scipy.sparse.csr_array``. Rows are L2-normalised once; similarities of queries against a
pool are computed one block of queries at a time, the block height chosen so that the
(block, n_pool) similarity block and its temporaries fit a memory budget, so the full
n x n matrix is never built.

A zero row (an encoder that knew no word of a sentence) or a non-finite row has no
direction. Such rows are *degenerate*: they are normalised to the zero vector, so their
cosine with anything is 0, and every function reports which rows they were, so that
results can count them instead of silently producing NaN.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress, synchronous
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder, fitted_copy
from sentspace.models.pairs import corpus_pairs

#: Default memory budget for one similarity block and its temporaries.
DEFAULT_MEMORY_MB = 256
#: Bytes per pool column per query row: the float32 block plus up to two boolean/float32
#: temporaries alive at once while counting or partitioning.
_BYTES_PER_CELL = 12
TIES = ("pessimistic", "mid", "optimistic")
#: Similarities closer than this count as tied: float32 products of unit vectors carry
#: rounding of a few 1e-8, so sentences with exactly equal cosine in real arithmetic
#: (bag-of-words vectors with the same counts pattern) come out a few ulps apart.
TIE_TOLERANCE = 1e-6
#: Candidates past k that a dense scan keeps from its block and scores again pair by
#: pair: BLAS's block product moves its last bits with the thread count (up to 2e-7 at
#: 1,000,000 x 50), which must not change a neighbour or its similarity.
RESCORED_MARGIN = 4


@dataclass(frozen=True, eq=False)
class Normalised:
    """Row-normalised embeddings and which rows had no direction.

    Attributes
    ----------
    matrix : float32 ndarray or csr_array of shape (n, dim)
        Unit rows; degenerate rows are all zero.
    degenerate : bool ndarray of shape (n,)
        Rows whose norm was zero or not finite.
    """

    matrix: Embeddings
    degenerate: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        return self.matrix.shape

    @property
    def n_degenerate(self) -> int:
        return int(self.degenerate.sum())


#: Unit rows handed out, by the matrix they came from, while both are alive: every
#: consumer of one embedding matrix (Inspector, faithfulness, suspicious tables, the
#: neighbour index) shares one normalised copy instead of making its own (1.5 GB each
#: at 1,000,000 x 384). Embedding matrices are never changed in place once made.
_shared: dict[int, tuple[weakref.ref[Any], weakref.ref[Normalised]]] = {}


def normalise(embeddings: Embeddings) -> Normalised:
    """L2-normalise the rows of ``embeddings`` (shape (n, dim)), zeroing degenerate rows.

    The same matrix normalised again, while the first result is still in use, gets that
    result back."""
    key = id(embeddings)
    if (entry := _shared.get(key)) is not None:
        source, shared = entry
        if source() is embeddings and (unit := shared()) is not None:
            return unit
    unit = _normalised(embeddings)

    def forget(_: weakref.ref[Any]) -> None:
        _shared.pop(key, None)

    try:
        _shared[key] = (weakref.ref(embeddings, forget), weakref.ref(unit))
    except TypeError:  # a matrix type that takes no weak reference: not shared
        pass
    return unit


def _normalised(embeddings: Embeddings) -> Normalised:
    if sp.issparse(embeddings):
        matrix = sp.csr_array(embeddings, dtype=np.float32, copy=True)
        squares = matrix.multiply(matrix).sum(axis=1)
        norms = np.sqrt(np.asarray(squares, dtype=np.float64).ravel())
        degenerate = ~np.isfinite(norms) | (norms == 0)
        scale = np.where(degenerate, 0.0, 1.0 / np.where(degenerate, 1.0, norms))
        # Scale each stored value by its row's factor; NaN entries of a degenerate row
        # become 0 * NaN, so they are zeroed explicitly.
        matrix.data *= np.repeat(scale, np.diff(matrix.indptr)).astype(np.float32)
        matrix.data[np.repeat(degenerate, np.diff(matrix.indptr))] = 0.0
        matrix.eliminate_zeros()
        return Normalised(matrix, degenerate)
    matrix = np.asarray(embeddings, dtype=np.float32)
    # Row by row in float64 without a float64 copy of the matrix, and one output array,
    # so normalising a large pool costs one extra float32 matrix.
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix, dtype=np.float64))
    degenerate = ~np.isfinite(norms) | (norms == 0)
    unit = np.divide(
        matrix,
        norms.astype(np.float32)[:, None],
        out=np.zeros_like(matrix),
        where=~degenerate[:, None],
    )
    return Normalised(unit, degenerate)


def pair_cosines(embeddings: Embeddings, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Cosine of rows ``first[i]`` and ``second[i]``; shape (n_pairs,), float64.

    Computed in float64 from the raw rows and rounded to 12 decimals, so that pairs whose
    cosines are equal in exact arithmetic (bag-of-words counts) tie exactly, which rank
    correlations and precision-recall curves depend on. A pair with a degenerate row gets
    0; count such pairs with :func:`degenerate_pairs`.
    """
    a, b = embeddings[np.asarray(first)], embeddings[np.asarray(second)]
    if sp.issparse(a):
        a, b = a.astype(np.float64), b.astype(np.float64)
        products = np.asarray(a.multiply(b).sum(axis=1)).ravel()
        norms_a = np.sqrt(np.asarray(a.multiply(a).sum(axis=1)).ravel())
        norms_b = np.sqrt(np.asarray(b.multiply(b).sum(axis=1)).ravel())
    else:
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        products = np.einsum("ij,ij->i", a, b)
        norms_a, norms_b = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    denominator = norms_a * norms_b
    valid = np.isfinite(denominator) & (denominator > 0) & np.isfinite(products)
    cosine = np.zeros(len(products))
    cosine[valid] = products[valid] / denominator[valid]
    # Rounding can push the cosine of near-identical rows a hair past 1.
    return np.clip(np.round(cosine, 12), -1.0, 1.0)


def row_dots(a: Embeddings, b: Embeddings) -> np.ndarray:
    """``a[i] . b[i]`` for every row i of two matrices of one shape, dense or sparse;
    float32, shape (n,)."""
    if sp.issparse(a):
        return np.asarray(sp.csr_array(a).multiply(b).sum(axis=1), dtype=np.float32).ravel()
    return np.einsum("ij,ij->i", a, b)


def pair_dots(queries: np.ndarray, pool: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """``queries[i] . pool[candidates[i, j]]`` for dense rows, float32 (n_queries,
    n_candidates): each a sum of its own (einsum's loop, no BLAS), so the same whatever
    the thread count. The candidate rows are gathered in blocks of about 4 MB."""
    out = np.empty(candidates.shape, dtype=np.float32)
    step = max(1, 2**20 // max(1, candidates.shape[1] * pool.shape[1]))
    for start in range(0, len(candidates), step):
        rows = slice(start, start + step)
        out[rows] = np.einsum("ijk,ik->ij", pool[candidates[rows]], queries[rows])
    return out


def degenerate_pairs(unit: Normalised, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Whether each pair involves a degenerate row; bool, shape (n_pairs,)."""
    return unit.degenerate[np.asarray(first)] | unit.degenerate[np.asarray(second)]


def block_rows(n_pool: int, memory_mb: float = DEFAULT_MEMORY_MB) -> int:
    """Query rows per block so that a (rows, n_pool) block with temporaries fits."""
    return max(1, int(memory_mb * 2**20 // (max(n_pool, 1) * _BYTES_PER_CELL)))


def _similarity_block(queries: Embeddings, pool_t: Embeddings) -> np.ndarray:
    """Dense float32 block ``queries @ pool.T``; ``pool_t`` is the transposed pool."""
    block = queries @ pool_t
    if sp.issparse(block):
        return sp.csr_array(block).toarray()
    return np.asarray(block, dtype=np.float32)


def _transposed(pool: Embeddings) -> Embeddings:
    # A view either way: the CSR pool's transpose is CSC, and BLAS multiplies by a
    # transposed dense matrix without copying it.
    return sp.csr_array(pool).T.tocsc() if sp.issparse(pool) else pool.T


def _blocks(
    queries: Embeddings | Normalised,
    pool: Embeddings | Normalised,
    exclude: np.ndarray | None,
    memory_mb: float,
):
    """``(start, stop, block)``: cosines of query rows ``start:stop`` against the whole
    pool, a dense float32 block sized to ``memory_mb``, excluded cells set to -inf."""
    q = queries if isinstance(queries, Normalised) else normalise(queries)
    p = pool if isinstance(pool, Normalised) else normalise(pool)
    n_queries, n_pool = q.matrix.shape[0], p.matrix.shape[0]
    pool_t = _transposed(p.matrix)
    step = block_rows(n_pool, memory_mb)
    for start in range(0, n_queries, step):
        stop = min(start + step, n_queries)
        block = _similarity_block(q.matrix[start:stop], pool_t)
        if exclude is not None:
            excluded = np.asarray(exclude[start:stop])
            hit = excluded >= 0
            block[np.arange(stop - start)[hit], excluded[hit]] = -np.inf
        yield start, stop, block


def iter_top_k(
    queries: Embeddings | Normalised,
    pool: Embeddings | Normalised,
    k: int,
    *,
    exclude: np.ndarray | None = None,
    memory_mb: float = DEFAULT_MEMORY_MB,
) -> Job[tuple[np.ndarray, np.ndarray]]:
    """The ``k`` most cosine-similar pool rows of every query, exactly.

    Parameters
    ----------
    queries : (n_queries, dim) embeddings.
    pool : (n_pool, dim) embeddings.
    k : neighbours per query; capped at the number of candidates.
    exclude : int array of shape (n_queries,), optional
        A pool row each query must not return (its own row when queries are drawn from
        the pool); -1 excludes nothing.
    memory_mb : budget for one similarity block.

    Returns
    -------
    indices : int64 ndarray of shape (n_queries, k)
        Pool rows, most similar first; equal similarities in pool order.
    similarities : float32 ndarray of shape (n_queries, k)
    """
    q = queries if isinstance(queries, Normalised) else normalise(queries)
    p = pool if isinstance(pool, Normalised) else normalise(pool)
    n_queries, n_pool = q.shape[0], p.shape[0]
    k = min(k, n_pool - (exclude is not None))
    # A product with a sparse side is scipy's loop, the same on any thread count.
    dense = not (sp.issparse(p.matrix) or sp.issparse(q.matrix))
    kept = min(k + RESCORED_MARGIN, n_pool) if dense else k
    indices = np.empty((n_queries, k), dtype=np.int64)
    similarities = np.empty((n_queries, k), dtype=np.float32)
    for start, stop, block in _blocks(q, p, exclude, memory_mb):
        if kept < n_pool:
            candidates = np.argpartition(-block, kept - 1, axis=1)[:, :kept]
        else:
            candidates = np.broadcast_to(np.arange(n_pool), block.shape)
        candidate_sims = np.take_along_axis(block, candidates, axis=1)
        if dense:
            candidate_sims = np.where(
                np.isneginf(candidate_sims),
                candidate_sims,
                pair_dots(q.matrix[start:stop], p.matrix, candidates),
            )
        # By similarity, then pool index, so output is deterministic.
        order = np.lexsort((candidates, -candidate_sims), axis=1)[:, :k]
        indices[start:stop] = np.take_along_axis(candidates, order, axis=1)
        similarities[start:stop] = np.take_along_axis(candidate_sims, order, axis=1)
        yield Progress("nearest neighbours", stop, n_queries)
    return indices, similarities


top_k = synchronous(iter_top_k)


def iter_target_ranks(
    queries: Embeddings | Normalised,
    pool: Embeddings | Normalised,
    targets: np.ndarray,
    *,
    exclude: np.ndarray | None = None,
    ties: str = "pessimistic",
    tie_tolerance: float = TIE_TOLERANCE,
    memory_mb: float = DEFAULT_MEMORY_MB,
) -> Job[tuple[np.ndarray, np.ndarray]]:
    """Rank of a given pool row among all pool rows, by cosine to each query.

    Rank 1 is the most similar. Only counts are needed (how many candidates beat the
    target), so no sort or partition is done.

    Parameters
    ----------
    queries : (n_queries, dim) embeddings.
    pool : (n_pool, dim) embeddings.
    targets : int array of shape (n_queries,)
        The pool row whose rank is wanted for each query.
    exclude : int array of shape (n_queries,), optional
        A pool row that is not a candidate for that query (the query's own row when
        queries are drawn from the pool); -1 excludes nothing.
    ties : how candidates tied with the target (similarity within ``tie_tolerance``)
        count.
        "pessimistic": all rank before the target (rank = 1 + #greater + #equal);
        "mid": half of them do (the mean of the ranks the tied block spans);
        "optimistic": none do (rank = 1 + #greater).
    tie_tolerance : similarities this close to the target's are ties.
    memory_mb : budget for one similarity block.

    Returns
    -------
    ranks : float64 ndarray of shape (n_queries,)
        Integers except for "mid" ties, which may end in .5.
    target_similarity : float32 ndarray of shape (n_queries,)
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, not {ties!r}")
    targets = np.asarray(targets, dtype=np.int64)
    n_queries = queries.shape[0]
    greater = np.empty(n_queries, dtype=np.int64)
    equal = np.empty(n_queries, dtype=np.int64)
    target_similarity = np.empty(n_queries, dtype=np.float32)
    for start, stop, block in _blocks(queries, pool, exclude, memory_mb):
        t = block[np.arange(stop - start), targets[start:stop]]
        greater[start:stop] = np.count_nonzero(block > (t + tie_tolerance)[:, None], axis=1)
        # The target is within tolerance of itself; it is not one of its own ties.
        equal[start:stop] = (
            np.count_nonzero(block >= (t - tie_tolerance)[:, None], axis=1)
            - greater[start:stop]
            - 1
        )
        target_similarity[start:stop] = t
        yield Progress("ranking targets", stop, n_queries)
    share = {"pessimistic": 1.0, "mid": 0.5, "optimistic": 0.0}[ties]
    return 1.0 + greater + share * equal, target_similarity


target_ranks = synchronous(iter_target_ranks)


def fitted_on_training_side(
    encoder: Encoder, corpus: Corpus, texts: Sequence[str], training_pairs: np.ndarray | None
) -> Job[Encoder]:
    """``encoder`` fitted (a clone, where it requires fitting) on the training side:
    the sentences ``texts`` or, when it learns from labelled pairs, the pairs
    ``training_pairs`` of ``corpus`` (None: its "train" split, or every pair)."""
    pairs = corpus_pairs(corpus, training_pairs) if encoder.learns_from_pairs else None
    return (yield from fitted_copy(encoder, texts, pairs))


#: The pairs an evaluation of pairs reads, by the name its ``split`` option takes
#: (``sentspace.app.analysis.evaluations.OPTIONS``); the first is the default.
SPLIT_CHOICES = {
    "auto": "the test split where the corpus has one (SICK, STS-B: as SentEval, MTEB and "
    "the papers report), encoders trained on pairs training on the others; "
    "elsewhere every pair (encoders trained on pairs: every split but train)",
    "test": "the test split only, for every encoder",
    "not-train": "every split but train (encoders trained on pairs train on train)",
    "all": "every pair (an encoder trained on pairs then needs a pairs file, FAMILY:FILE)",
}


def chosen_splits(corpus: Corpus, encoder: Encoder, split: str) -> tuple[str, ...] | None:
    """The pair splits that the ``split`` option (a key of :data:`SPLIT_CHOICES`) names
    on ``corpus``, for :func:`held_out_pairs`; None: every pair, or for an encoder that
    learns from pairs, every split but "train"."""
    if split not in SPLIT_CHOICES:
        raise EvaluationError(f"unknown split choice {split!r} (known: {', '.join(SPLIT_CHOICES)})")
    names = set(corpus.pairs.split) if corpus.pairs is not None else set()
    if split == "auto":
        return ("test",) if "test" in names else None
    if split == "test":
        return ("test",)
    if split == "not-train":
        if not names - {"train"}:
            raise EvaluationError(f"corpus {corpus.name!r} has no pairs outside a train split")
        return tuple(sorted(names - {"train"}))
    return tuple(sorted(names))


def run_split(corpus: Corpus, encoders: Sequence[Encoder], split: str) -> tuple[str, str]:
    """(the split choice, a note saying which pairs, or "") that evaluates every encoder
    of one run on the same pairs, so they can be compared pair by pair: "auto", when any of
    them learns from pairs on a corpus without a test split (where "auto" is the test
    split for every encoder already), becomes "not-train" for all of them, as it is for
    those; any other choice is kept."""
    trained = [encoder.name for encoder in encoders if encoder.learns_from_pairs]
    names = set(corpus.pairs.split) if corpus.pairs is not None else set()
    if split == "auto" and "test" in names:
        return split, (
            "split auto: the test split, as SentEval, MTEB and the papers report "
            "it (--split all for every pair)"
        )
    if split != "auto" or not trained or len(encoders) < 2:
        return split, ""
    return "not-train", (
        f"split auto: every encoder evaluated on every split but train, "
        f"as {', '.join(trained)} trains on the train pairs"
    )


def describe_pairs(corpus: Corpus, pair_index: np.ndarray) -> str:
    """The pairs ``pair_index`` by split, for a result's summary: "train 4,500 + trial 500"."""
    assert corpus.pairs is not None, "pair_index indexes the corpus's pairs"
    names, counts = np.unique(
        np.asarray(corpus.pairs.split, dtype=object)[pair_index], return_counts=True
    )
    return " + ".join(f"{name or 'no split'} {count:,}" for name, count in zip(names, counts))


def held_out_pairs(
    corpus: Corpus, encoder: Encoder, splits: tuple[str, ...] | None, evaluation: str
) -> tuple[tuple[str, ...] | None, np.ndarray | None]:
    """(the pair splits to evaluate, the pairs to train on) for evaluations of pairs.

    An encoder that learns from labelled pairs trains on the pairs outside the
    evaluated splits, so it never sees an evaluated pair; with no ``splits`` those are
    every split but "train". Other encoders: (``splits``, None).

    Raises EvaluationError, before any work, when no pair is left to train on.
    """
    if not encoder.learns_from_pairs or corpus.pairs is None:
        return splits, None
    split = np.asarray(corpus.pairs.split, dtype=object)
    if splits is None:
        splits = tuple(sorted(set(split.tolist()) - {"train"}))
    training = np.flatnonzero(~np.isin(split, list(splits)))
    if not len(training) or not splits:
        raise EvaluationError(
            f"{evaluation} with {encoder.name}, which trains on labelled "
            f"pairs, needs a train split apart from the evaluated pairs, "
            f"and corpus {corpus.name!r} has none: evaluate a test split "
            f"or train on a pairs file ({encoder.family}:FILE)"
        )
    return splits, training
