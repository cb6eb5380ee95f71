"""Approximate nearest neighbours (faiss HNSW) for pools too large to scan exactly.

:func:`iter_knn` is what every k-nearest-neighbour consumer calls: below
:data:`EXACT_LIMIT` pool rows (or for sparse embeddings, which HNSW cannot index) it is
:func:`app.neighbours.iter_top_k`, the exact scan; above it, an HNSW graph over the
L2-normalised rows, searched by inner product (= cosine). Exact search is always
selectable (``search="exact"``). Every approximate answer comes with its measured
recall@k against the exact scan on a seeded sample of its own queries (:class:`Search`),
so a result computed approximately says so, and how approximately.

The index is built one chunk of rows at a time (a job: progress, cancel between chunks)
on one thread: HNSW's parallel insertion links nodes in whatever order the threads reach
them, so only a single-threaded build gives the same graph, and the same neighbours, on
every machine. Searching is parallel; each query's search is independent of the others,
so its answer does not depend on the thread count. Built indexes are cached on disk in
the embedding cache's folder (``ann/``), keyed by a digest of the normalised matrix and
the index parameters, and checked against a SHA-256 before faiss reads them.

faiss is imported inside the functions that need it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from app.atomic import atomic_path, write_text_atomic
from app.jobs import Job, Progress, run_job
from app.neighbours import Normalised, iter_top_k, normalise
from models.base import Embeddings

log = logging.getLogger(__name__)

#: Pool size above which ``search="auto"`` goes approximate.
EXACT_LIMIT = 50_000
SEARCHES = ("auto", "exact", "hnsw")
#: Queries whose approximate neighbours are checked against the exact scan.
RECALL_QUERIES = 1_000
#: HNSW links per node, and candidate lists while building and searching: on 100,000
#: spliced real sentences (glove-mean) recall@10 0.976, against 0.978 for M=32,
#: efConstruction=80, efSearch=96 at 1.3x the build and 1.4x the search time.
HNSW_M = 24
EF_CONSTRUCTION = 40
EF_SEARCH = 64
#: Rows added per step of the build, and queries searched per step.
BUILD_CHUNK = 20_000
SEARCH_CHUNK = 20_000
#: A neighbour whose cosine is within this of the exact k-th neighbour's is a hit when
#: measuring recall (as ann-benchmarks counts by distance), so that ties broken in a
#: different order, or float32 sums taken in another order, are not counted as misses.
RECALL_TOLERANCE = 1e-5
#: Indexes kept in memory by the array they index, so that a view asking again about
#: the same pool gets its index back without hashing the matrix.
_RECENT_INDEXES = 2
_recent: dict[int, tuple[weakref.ref, Any, dict[int, Search]]] = {}
#: Bump when the index layout or its parameters change; older files then simply miss.
INDEX_VERSION = 1


@dataclass(frozen=True)
class Search:
    """How a set of nearest neighbours was found.

    Attributes
    ----------
    method : "exact" or "hnsw".
    k : neighbours per query.
    recall : float or None
        For "hnsw": mean share of the exact k nearest neighbours that the approximate
        search found, over ``recall_queries`` sampled queries (ties count as found).
    recall_queries : how many queries the recall was measured on.
    """

    method: str
    k: int
    recall: float | None = None
    recall_queries: int = 0

    @property
    def approximate(self) -> bool:
        return self.method != "exact"

    def describe(self) -> str:
        if not self.approximate:
            return "exact"
        return (f"approximate (HNSW, recall@{self.k} {self.recall:.3f} on "
                f"{self.recall_queries:,} queries)")

    def summary(self) -> list[tuple[str, str]]:
        return [("neighbour search", self.describe())]

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "k": self.k, "recall": self.recall,
                "recall_queries": self.recall_queries}



def choose(pool: Embeddings | Normalised, search: str = "auto", *,
           limit: int | None = None) -> str:
    """"exact" or "hnsw" for searching ``pool``; ValueError for an unknown search or
    HNSW asked of sparse rows. ``limit`` defaults to :data:`EXACT_LIMIT` as it is when
    called."""
    limit = EXACT_LIMIT if limit is None else limit
    if search not in SEARCHES:
        raise ValueError(f"unknown neighbour search {search!r} (known: {', '.join(SEARCHES)})")
    matrix = pool.matrix if isinstance(pool, Normalised) else pool
    if search == "hnsw" and sp.issparse(matrix):
        raise ValueError("HNSW needs dense embeddings; sparse ones (bag of words, TF-IDF) "
                         "are searched exactly")
    if search == "auto":
        return "hnsw" if matrix.shape[0] > limit and not sp.issparse(matrix) else "exact"
    return search


def index_dir() -> Path:
    """Where built indexes are cached: beside the embeddings."""
    from app.cache import cache_dir  # noqa: PLC0415 - platformdirs only when needed
    return cache_dir() / "ann"


def _digest_file(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def index_key(unit: np.ndarray) -> str:
    """The cache name of an HNSW index over the unit rows ``unit``."""
    digest = hashlib.blake2b(np.ascontiguousarray(unit).data, digest_size=16)
    digest.update(repr(unit.shape).encode())
    return f"{digest.hexdigest()}-hnsw-m{HNSW_M}-ef{EF_CONSTRUCTION}-v{INDEX_VERSION}"


def _load_cached(path: Path, n: int):
    import faiss  # noqa: PLC0415
    meta_path = path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if _digest_file(path) != meta["sha256"]:
            raise ValueError("content hash mismatch")
        index = faiss.read_index(str(path))
        if index.ntotal != n:
            raise ValueError(f"holds {index.ntotal} rows, not {n}")
        return index
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, RuntimeError) as error:
        log.warning("cached index %s is damaged (%s); rebuilding", path.name, error)
        meta_path.unlink(missing_ok=True)
        path.unlink(missing_ok=True)
        return None


def _store(index, path: Path) -> None:
    import faiss  # noqa: PLC0415
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.with_suffix(".json").unlink(missing_ok=True)
        with atomic_path(path) as temporary:
            faiss.write_index(index, str(temporary))
        write_text_atomic(path.with_suffix(".json"),
                          json.dumps({"sha256": _digest_file(path), "rows": index.ntotal}))
    except OSError as error:
        log.warning("could not cache the neighbour index in %s: %s", path.parent, error)


def iter_build_index(unit: np.ndarray, *, cache: bool = True) -> Job[Any]:
    """An HNSW inner-product index over the unit rows ``unit`` (float32, (n, dim)).

    Loaded from the cache when an index over the same rows was built before; otherwise
    built single-threaded, a chunk of rows per progress step, and cached.
    """
    n = unit.shape[0]
    stage = f"building the neighbour index of {n:,} points"
    yield Progress(stage, 0, n)
    owner, recent, _ = _recent.get(id(unit), (None, None, None))
    if owner is not None and owner() is unit:
        return recent
    given, unit = unit, np.ascontiguousarray(unit, dtype=np.float32)
    path = index_dir() / f"{index_key(unit)}.faiss" if cache else None
    index = _load_cached(path, n) if path is not None else None
    if index is None:
        index = yield from _built(unit, stage)
        if path is not None:
            _store(index, path)
    yield Progress(stage, n, n)
    if len(_recent) >= _RECENT_INDEXES:
        _recent.pop(next(iter(_recent)))
    # The index goes when its array does (an index is about as large as the rows).
    key = id(given)
    _recent[key] = (weakref.ref(given, lambda _, key=key: _recent.pop(key, None)), index, {})
    return index


def _built(unit: np.ndarray, stage: str) -> Job[Any]:
    import faiss  # noqa: PLC0415 - about 0.2 s; only when an index is needed
    n, dim = unit.shape
    index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = EF_CONSTRUCTION
    threads = faiss.omp_get_max_threads()
    try:
        for start in range(0, n, BUILD_CHUNK):
            # Set on every step: the GUI runs this between other jobs' faiss calls.
            faiss.omp_set_num_threads(1)
            index.add(unit[start:start + BUILD_CHUNK])
            faiss.omp_set_num_threads(threads)
            yield Progress(stage, min(start + BUILD_CHUNK, n), n)
    finally:
        faiss.omp_set_num_threads(threads)
    return index


def iter_search_index(index, queries: np.ndarray, k: int, *,
                      exclude: np.ndarray | None = None) -> Job[tuple[np.ndarray, np.ndarray]]:
    """The ``k`` approximate nearest pool rows of each unit query row, best first.

    ``exclude`` as in :func:`app.neighbours.iter_top_k`: a pool row per query that must
    not be returned (-1: none). Returns int64 indices and float32 cosines, (n_queries, k);
    a row the graph could not fill ends in index -1, similarity -inf.
    """
    queries = np.ascontiguousarray(queries, dtype=np.float32)
    n_queries = queries.shape[0]
    wanted = k + (exclude is not None)
    index.hnsw.efSearch = max(EF_SEARCH, wanted)
    indices = np.empty((n_queries, k), dtype=np.int64)
    similarities = np.empty((n_queries, k), dtype=np.float32)
    stage = "searching the neighbour index"
    for start in range(0, n_queries, SEARCH_CHUNK):
        stop = min(start + SEARCH_CHUNK, n_queries)
        found_sims, found = index.search(queries[start:stop], wanted)
        found_sims[found < 0] = -np.inf
        if exclude is not None:
            # Drop the excluded row where it was found, else the last (k + 1-th) one.
            dropped = found == np.asarray(exclude[start:stop])[:, None]
            dropped[~dropped.any(axis=1), -1] = True
            keep = np.argsort(dropped, axis=1, kind="stable")[:, :k]
            found = np.take_along_axis(found, keep, axis=1)
            found_sims = np.take_along_axis(found_sims, keep, axis=1)
        indices[start:stop], similarities[start:stop] = found, found_sims
        yield Progress(stage, stop, n_queries)
    return indices, similarities


def measure_recall(queries: Normalised, pool: Normalised, approximate: np.ndarray,
                   k: int, *, exclude: np.ndarray | None = None, seed: int = 0,
                   sample: int = RECALL_QUERIES) -> Job[Search]:
    """Recall@k of approximate cosines ``approximate`` ((n_queries, k), best first)
    against the exact scan, on ``sample`` queries drawn with ``seed``."""
    n_queries = queries.matrix.shape[0]
    rows = np.sort(np.random.default_rng(seed).choice(n_queries, min(sample, n_queries),
                                                      replace=False))
    subset = Normalised(queries.matrix[rows], queries.degenerate[rows])
    _, exact = yield from iter_top_k(subset, pool, k,
                                     exclude=None if exclude is None else exclude[rows])
    hits = approximate[rows] >= exact[:, -1:] - RECALL_TOLERANCE
    return Search("hnsw", k, float(hits.mean()) if hits.size else 1.0, len(rows))


def iter_knn(queries: Embeddings | Normalised, pool: Embeddings | Normalised, k: int, *,
             exclude: np.ndarray | None = None, search: str = "auto",
             limit: int | None = None, seed: int = 0, cache: bool = True
             ) -> Job[tuple[np.ndarray, np.ndarray, Search]]:
    """The ``k`` most cosine-similar pool rows of every query, exactly or by HNSW.

    Parameters
    ----------
    queries, pool, k, exclude : as :func:`app.neighbours.iter_top_k`.
    search : "auto" (HNSW when the pool has more than ``limit`` rows, default
        :data:`EXACT_LIMIT`, and is dense), "exact" or "hnsw".
    seed : draws the queries the recall of an approximate search is measured on.
    cache : keep a built index on disk (and use one built before).

    Returns
    -------
    indices : int64 (n_queries, k), most similar first.
    similarities : float32 (n_queries, k).
    search : how they were found, with the measured recall when approximate.
    """
    method = choose(pool, search, limit=limit)
    k = min(k, pool.shape[0] - (exclude is not None))
    if method == "exact":
        indices, similarities = yield from iter_top_k(queries, pool, k, exclude=exclude)
        return indices, similarities, Search("exact", k)
    unit_pool = pool if isinstance(pool, Normalised) else normalise(pool)
    unit_queries = (unit_pool if queries is pool else
                    queries if isinstance(queries, Normalised) else normalise(queries))
    index = yield from iter_build_index(unit_pool.matrix, cache=cache)
    indices, similarities = yield from iter_search_index(index, unit_queries.matrix, k,
                                                         exclude=exclude)
    if unit_queries.matrix.shape[0] >= RECALL_QUERIES:
        report = yield from measure_recall(unit_queries, unit_pool, similarities, k,
                                           exclude=exclude, seed=seed)
    else:
        report = yield from _index_recall(index, unit_pool, k)
    return indices, similarities, report


def _index_recall(index, pool: Normalised, k: int) -> Job[Search]:
    """Recall@k of ``index`` on 1,000 of its own rows (drawn with seed 0) as queries,
    for answers to a few queries (a typed sentence), whose own recall would be 0 or 1;
    measured once per index and k, so a second query costs no exact scan."""
    recalls = next((r for _, i, r in _recent.values() if i is index), {})
    if k not in recalls:
        n = pool.matrix.shape[0]
        rows = np.sort(np.random.default_rng(0).choice(n, min(RECALL_QUERIES, n),
                                                       replace=False))
        queries = Normalised(pool.matrix[rows], pool.degenerate[rows])
        _, found = yield from iter_search_index(index, queries.matrix, k, exclude=rows)
        recalls[k] = yield from measure_recall(queries, pool, found, k, exclude=rows)
    return recalls[k]


def knn(queries: Embeddings | Normalised, pool: Embeddings | Normalised, k: int, *,
        exclude: np.ndarray | None = None, search: str = "auto", limit: int | None = None,
        seed: int = 0, cache: bool = True) -> tuple[np.ndarray, np.ndarray, Search]:
    """:func:`iter_knn` run to the end in this thread."""
    return run_job(iter_knn(queries, pool, k, exclude=exclude, search=search, limit=limit,
                            seed=seed, cache=cache))
