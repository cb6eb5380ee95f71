"""Approximate nearest neighbours (faiss) for pools too large to scan exactly.

:func:`iter_knn` is what every k-nearest-neighbour consumer calls, with one switch,
``search``: "exact" always scans (:func:`app.neighbours.iter_top_k`), "ann" always
searches an index, and "auto" (the default) scans up to :data:`EXACT_LIMIT` pool rows
and searches an index above it. Sparse embeddings (bag of words), which faiss cannot
index, are always scanned. The index is over the L2-normalised rows, searched by inner
product (= cosine), and its kind goes by size: an HNSW graph up to :data:`HNSW_LIMIT`
rows, an inverted file of 8-bit scalar-quantised rows (IVF-SQ8, a quarter of the memory,
its coarse centroids trained on a seeded sample) above. Every approximate answer comes
with its measured recall@k against the exact scan on a seeded sample of its own queries
(:class:`Search`), so a result computed approximately says so, and how approximately. A new index is
tuned once, as it is built: the narrowest search breadth of :data:`BREADTHS` (HNSW's
efSearch, the IVF's nprobe) whose recall@10 on 1,000 of its own rows reaches
:data:`TARGET_RECALL` is kept with it (a wider one costs more per query, so the smallest
that suffices: recall at fixed parameters falls as the pool grows).

The index is built one chunk of rows at a time (a job: progress, cancel between chunks)
on one thread: HNSW's parallel insertion links nodes in whatever order the threads reach
them, so only a single-threaded build gives the same graph, and the same neighbours, on
every machine (the IVF's k-means likewise). Only the building thread is held to one
OpenMP thread, and only while faiss works, never across a yield. Searching is parallel;
each query's search is independent of the others, so its answer does not depend on the
thread count. Built indexes are cached on disk in the embedding cache's folder
(``ann/``), keyed by a digest of the normalised matrix, the index kind and its
parameters, and checked against a SHA-256 before faiss reads them.

faiss is imported inside the functions that need it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
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
#: "auto": exact up to the limit, an index above it; "exact"; "ann" (an index always).
SEARCHES = ("auto", "exact", "ann")
#: Index kinds, and the pool size above which an IVF-SQ8 replaces HNSW (whose graph and
#: float32 rows take about 1.2 KB a row at 384 dimensions, against 0.4 KB).
KINDS = {"hnsw": "HNSW", "ivf-sq8": "IVF-SQ8"}
HNSW_LIMIT = 2_000_000
#: Queries whose approximate neighbours are checked against the exact scan.
RECALL_QUERIES = 1_000
#: HNSW links per node, and candidate lists while building and searching: on 100,000
#: spliced real sentences (glove-mean) recall@10 0.976, against 0.978 for M=32,
#: efConstruction=80, efSearch=96 at 1.3x the build and 1.4x the search time.
HNSW_M = 24
EF_CONSTRUCTION = 40
#: IVF lists: about 4 sqrt(n) (faiss's guideline), trained by k-means on a seeded sample
#: of TRAIN_PER_LIST rows per list; the lists searched per query are tuned (BREADTHS).
#: On MSRP (glove-mean, 171 lists) recall@10 is 0.887 at nprobe 8 with the quantised
#: cosines, 0.921 with REFINE x the candidates rescored exactly, over 0.97 at nprobe 16.
IVF_LISTS_PER_SQRT = 4
TRAIN_PER_LIST = 64
TRAIN_SEED = 0
#: An IVF-SQ8 search takes this many times the candidates asked for, rescored exactly.
REFINE = 4
#: Search breadths tried in turn by kind (efSearch, nprobe), and the recall@10 the first
#: one kept must reach (the last is kept when none does). At 1,000,000 spliced
#: sentences (glove-mean) efSearch 64 gave recall@10 0.940.
BREADTHS = {"hnsw": (64, 128, 256, 512), "ivf-sq8": (32, 64, 128, 256)}
TARGET_RECALL = 0.95
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
_recent: dict[tuple[int, str], tuple[weakref.ref, Any, dict[int, Search], str | None]] = {}
#: Bump when the index layout or its parameters change; older files then simply miss.
INDEX_VERSION = 2


@dataclass(frozen=True)
class Search:
    """How a set of nearest neighbours was found.

    Attributes
    ----------
    method : "exact" or the index kind ("hnsw", "ivf-sq8").
    k : neighbours per query.
    recall : float or None
        When approximate: mean share of the exact k nearest neighbours that the approximate
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
        return (f"approximate ({KINDS[self.method]}, recall@{self.k} {self.recall:.3f} on "
                f"{self.recall_queries:,} queries)")

    def summary(self) -> list[tuple[str, str]]:
        return [("neighbour search", self.describe())]

    def to_dict(self) -> dict[str, Any]:
        return {"method": self.method, "k": self.k, "recall": self.recall,
                "recall_queries": self.recall_queries}



def choose(pool: Embeddings | Normalised, search: str = "auto", *,
           limit: int | None = None, kind: str | None = None) -> str:
    """"exact" or the index kind for searching ``pool``; ValueError for an unknown search
    or kind, or an index asked of sparse rows. ``limit`` defaults to :data:`EXACT_LIMIT`
    as it is when called; ``kind`` to the one for the pool's size."""
    limit = EXACT_LIMIT if limit is None else limit
    if search not in SEARCHES:
        raise ValueError(f"unknown neighbour search {search!r} (known: {', '.join(SEARCHES)})")
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown index kind {kind!r} (known: {', '.join(KINDS)})")
    matrix = pool.matrix if isinstance(pool, Normalised) else pool
    if search == "ann" and sp.issparse(matrix):
        raise ValueError("an approximate index needs dense embeddings; sparse ones (bag of "
                         "words, TF-IDF) are searched exactly")
    n = matrix.shape[0]
    if search == "exact" or (search == "auto" and (n <= limit or sp.issparse(matrix))):
        return "exact"
    return kind or ("hnsw" if n <= HNSW_LIMIT else "ivf-sq8")


def ivf_lists(n: int) -> int:
    """Inverted lists of an IVF index over ``n`` rows."""
    return max(1, min(n // TRAIN_PER_LIST or 1, int(IVF_LISTS_PER_SQRT * np.sqrt(n))))


def index_dir() -> Path:
    """Where built indexes are cached: beside the embeddings."""
    from app.cache import cache_dir  # noqa: PLC0415 - platformdirs only when needed
    return cache_dir() / "ann"


def _digest_file(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def index_key(unit: np.ndarray, kind: str = "hnsw") -> str:
    """The cache name of an index of ``kind`` over the unit rows ``unit``."""
    digest = hashlib.blake2b(np.ascontiguousarray(unit).data, digest_size=16)
    digest.update(repr(unit.shape).encode())
    parameters = (f"m{HNSW_M}-ef{EF_CONSTRUCTION}" if kind == "hnsw" else
                  f"l{ivf_lists(unit.shape[0])}-t{TRAIN_PER_LIST}-s{TRAIN_SEED}")
    return f"{digest.hexdigest()}-{kind}-{parameters}-v{INDEX_VERSION}"


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


def store_index(index, unit: np.ndarray, kind: str) -> Path:
    """Put ``index`` (of ``kind``, over the unit rows ``unit``) in the cache where
    :func:`iter_build_index` looks for it; returns the file."""
    path = index_dir() / f"{index_key(np.ascontiguousarray(unit, np.float32), kind)}.faiss"
    _store(index, path)
    return path


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


def iter_build_index(unit: np.ndarray, *, cache: bool = True,
                     kind: str | None = None) -> Job[Any]:
    """An inner-product index over the unit rows ``unit`` (float32, (n, dim)): of
    ``kind``, by default the one :func:`choose` picks for ``n`` rows.

    Loaded from the cache when an index over the same rows was built before (and one
    in memory over an equal array, say the same embeddings normalised again, is shared
    rather than loaded twice); otherwise built single-threaded, a chunk of rows per
    progress step, and cached.
    """
    n = unit.shape[0]
    kind = kind or choose(unit, "ann")
    stage = f"building the neighbour index of {n:,} points ({KINDS[kind]})"
    yield Progress(stage, 0, n)
    key = (id(unit), kind)
    owner, recent, _, _ = _recent.get(key, (None, None, None, None))
    if owner is not None and owner() is unit:
        return recent
    given, unit = unit, np.ascontiguousarray(unit, dtype=np.float32)
    name = index_key(unit, kind) if cache else None
    index, recalls = next(((i, r) for _, i, r, other in list(_recent.values())
                           if name is not None and other == name), (None, {}))
    if index is None and name is not None:
        index = _load_cached(index_dir() / f"{name}.faiss", n)
    if index is None:
        index = yield from (_built_hnsw if kind == "hnsw" else _built_ivf)(unit, stage)
        recalls[10] = yield from tune(index, unit, kind)
        if name is not None:
            _store(index, index_dir() / f"{name}.faiss")
    yield Progress(stage, n, n)
    if len(_recent) >= _RECENT_INDEXES:
        _recent.pop(next(iter(_recent)))
    # The index goes when its array does (an index is about as large as the rows).
    _recent[key] = (weakref.ref(given, lambda _, key=key: _recent.pop(key, None)), index,
                    recalls, name)
    return index


@contextmanager
def single_threaded() -> Iterator[None]:
    """This thread's faiss calls on one OpenMP thread, its own count restored after, so
    other threads' searches, and this thread's after a yield, keep theirs."""
    import faiss  # noqa: PLC0415
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(threads)


def _added_in_chunks(index, unit: np.ndarray, stage: str) -> Job[Any]:
    n = unit.shape[0]
    for start in range(0, n, BUILD_CHUNK):
        with single_threaded():
            index.add(unit[start:start + BUILD_CHUNK])
        yield Progress(stage, min(start + BUILD_CHUNK, n), n)
    return index


def _built_hnsw(unit: np.ndarray, stage: str) -> Job[Any]:
    import faiss  # noqa: PLC0415 - about 0.2 s; only when an index is needed
    index = faiss.IndexHNSWFlat(unit.shape[1], HNSW_M, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = EF_CONSTRUCTION
    return (yield from _added_in_chunks(index, unit, stage))


def trained_ivf(unit: np.ndarray):
    """An empty IVF-SQ8 index for the unit rows ``unit``: k-means centroids and the
    quantiser's ranges trained on a seeded sample of :data:`TRAIN_PER_LIST` rows per
    list. Rows added to it in order, at once or in parts merged in order
    (:mod:`app.distributed`), give the same index."""
    import faiss  # noqa: PLC0415
    n, dim = unit.shape
    lists = ivf_lists(n)
    index = faiss.IndexIVFScalarQuantizer(faiss.IndexFlatIP(dim), dim, lists,
                                          faiss.ScalarQuantizer.QT_8bit,
                                          faiss.METRIC_INNER_PRODUCT)
    index.cp.seed = TRAIN_SEED
    sample = np.random.default_rng(TRAIN_SEED).choice(n, min(n, lists * TRAIN_PER_LIST),
                                                      replace=False)
    with single_threaded():
        index.train(unit[np.sort(sample)])
    return index


def _built_ivf(unit: np.ndarray, stage: str) -> Job[Any]:
    index = trained_ivf(unit)
    yield Progress(stage, 0, unit.shape[0])
    return (yield from _added_in_chunks(index, unit, stage))


def _breadth(index) -> int:
    return index.hnsw.efSearch if hasattr(index, "hnsw") else index.nprobe


def tune(index, unit: np.ndarray, kind: str) -> Job[Search]:
    """Leave on ``index`` the first breadth of :data:`BREADTHS` whose recall@10 on
    :data:`RECALL_QUERIES` of its rows (drawn with seed 0) reaches the target; returns
    that recall (what :func:`_index_recall` measures for k=10)."""
    n = unit.shape[0]
    rows = np.sort(np.random.default_rng(0).choice(n, min(RECALL_QUERIES, n), replace=False))
    pool = Normalised(unit, ~unit.any(axis=1))
    queries = Normalised(unit[rows], pool.degenerate[rows])
    k = min(10, n - 1)
    _, exact = yield from iter_top_k(queries, pool, k, exclude=rows)
    for breadth in BREADTHS[kind]:
        if kind == "hnsw":
            index.hnsw.efSearch = breadth
        else:
            index.nprobe = min(breadth, index.nlist)
        _, found = yield from iter_search_index(index, queries.matrix, k, pool=pool.matrix,
                                                exclude=rows)
        recall = float((found >= exact[:, -1:] - RECALL_TOLERANCE).mean())
        if recall >= TARGET_RECALL:
            break
    return Search(kind, k, recall, len(rows))


def iter_search_index(index, queries: np.ndarray, k: int, *, pool: np.ndarray,
                      exclude: np.ndarray | None = None) -> Job[tuple[np.ndarray, np.ndarray]]:
    """The ``k`` approximate nearest pool rows of each unit query row, best first.

    ``pool`` is the unit rows the index holds: an IVF-SQ8's :data:`REFINE` times as many
    candidates are rescored by their exact cosines (its own are of 8-bit rows), and the
    best kept. ``exclude`` as in :func:`app.neighbours.iter_top_k`: a pool row per query
    that must not be returned (-1: none). Returns int64 indices and float32 cosines,
    (n_queries, k); a row the index could not fill ends in index -1, similarity -inf.
    """
    import faiss  # noqa: PLC0415
    queries = np.ascontiguousarray(queries, dtype=np.float32)
    n_queries = queries.shape[0]
    wanted = k + (exclude is not None)
    quantised = not hasattr(index, "hnsw")
    # The index's own (tuned) breadth, or at least the candidates asked for.
    params = (faiss.SearchParametersHNSW(efSearch=max(_breadth(index), wanted))
              if hasattr(index, "hnsw") else faiss.SearchParametersIVF(nprobe=index.nprobe))
    indices = np.empty((n_queries, k), dtype=np.int64)
    similarities = np.empty((n_queries, k), dtype=np.float32)
    stage = "searching the neighbour index"
    for start in range(0, n_queries, SEARCH_CHUNK):
        stop = min(start + SEARCH_CHUNK, n_queries)
        found_sims, found = index.search(queries[start:stop],
                                         wanted * REFINE if quantised else wanted,
                                         params=params)
        if quantised:
            found, found_sims = _rescored(queries[start:stop], pool, found)
            found, found_sims = found[:, :wanted], found_sims[:, :wanted]
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


def _rescored(queries: np.ndarray, pool: np.ndarray, indices: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """``indices`` with their exact cosines, re-sorted (similarity, then pool row): an
    8-bit quantised index returns approximate ones, which recall and ranks compare
    with exact cosines."""
    found = indices >= 0
    similarities = np.full(indices.shape, -np.inf, dtype=np.float32)
    # Gathered candidate rows in blocks of about 64 MB.
    step = max(1, 2**24 // (indices.shape[1] * pool.shape[1]))
    for start in range(0, len(indices), step):
        rows = slice(start, start + step)
        dots = np.einsum("ijk,ik->ij", pool[np.where(found[rows], indices[rows], 0)],
                         queries[rows])
        similarities[rows] = np.where(found[rows], dots, -np.inf)
    order = np.lexsort((indices, -similarities), axis=1)
    return (np.take_along_axis(indices, order, axis=1),
            np.take_along_axis(similarities, order, axis=1))


def measure_recall(queries: Normalised, pool: Normalised, approximate: np.ndarray,
                   k: int, *, exclude: np.ndarray | None = None, seed: int = 0,
                   sample: int = RECALL_QUERIES, method: str = "hnsw") -> Job[Search]:
    """Recall@k of cosines ``approximate`` ((n_queries, k), best first) found by an
    index of kind ``method``, against the exact scan, on ``sample`` queries drawn with
    ``seed``."""
    n_queries = queries.matrix.shape[0]
    rows = np.sort(np.random.default_rng(seed).choice(n_queries, min(sample, n_queries),
                                                      replace=False))
    subset = Normalised(queries.matrix[rows], queries.degenerate[rows])
    _, exact = yield from iter_top_k(subset, pool, k,
                                     exclude=None if exclude is None else exclude[rows])
    hits = approximate[rows] >= exact[:, -1:] - RECALL_TOLERANCE
    return Search(method, k, float(hits.mean()) if hits.size else 1.0, len(rows))


def iter_knn(queries: Embeddings | Normalised, pool: Embeddings | Normalised, k: int, *,
             exclude: np.ndarray | None = None, search: str = "auto",
             limit: int | None = None, seed: int = 0, cache: bool = True,
             kind: str | None = None) -> Job[tuple[np.ndarray, np.ndarray, Search]]:
    """The ``k`` most cosine-similar pool rows of every query, exactly or by an index.

    Parameters
    ----------
    queries, pool, k, exclude : as :func:`app.neighbours.iter_top_k`.
    search : "auto" (an index when the pool has more than ``limit`` rows, default
        :data:`EXACT_LIMIT`, and is dense), "exact" or "ann".
    seed : draws the queries the recall of an approximate search is measured on.
    cache : keep a built index on disk (and use one built before).
    kind : the index kind ("hnsw", "ivf-sq8"); default by the pool's size.

    Returns
    -------
    indices : int64 (n_queries, k), most similar first.
    similarities : float32 (n_queries, k).
    search : how they were found, with the measured recall when approximate.
    """
    method = choose(pool, search, limit=limit, kind=kind)
    k = min(k, pool.shape[0] - (exclude is not None))
    if method == "exact":
        indices, similarities = yield from iter_top_k(queries, pool, k, exclude=exclude)
        return indices, similarities, Search("exact", k)
    unit_pool = pool if isinstance(pool, Normalised) else normalise(pool)
    unit_queries = (unit_pool if queries is pool else
                    queries if isinstance(queries, Normalised) else normalise(queries))
    index = yield from iter_build_index(unit_pool.matrix, cache=cache, kind=method)
    indices, similarities = yield from iter_search_index(
        index, unit_queries.matrix, k, pool=unit_pool.matrix, exclude=exclude)
    if unit_queries.matrix.shape[0] >= RECALL_QUERIES:
        report = yield from measure_recall(unit_queries, unit_pool, similarities, k,
                                           exclude=exclude, seed=seed, method=method)
    else:
        report = yield from _index_recall(index, unit_pool, k, method)
    return indices, similarities, report


def _index_recall(index, pool: Normalised, k: int, method: str) -> Job[Search]:
    """Recall@k of ``index`` on 1,000 of its own rows (drawn with seed 0) as queries,
    for answers to a few queries (a typed sentence), whose own recall would be 0 or 1;
    measured once per index and k, so a second query costs no exact scan."""
    recalls = next((r for _, i, r, _ in _recent.values() if i is index), {})
    if k not in recalls:
        n = pool.matrix.shape[0]
        rows = np.sort(np.random.default_rng(0).choice(n, min(RECALL_QUERIES, n),
                                                       replace=False))
        queries = Normalised(pool.matrix[rows], pool.degenerate[rows])
        _, found = yield from iter_search_index(index, queries.matrix, k, pool=pool.matrix,
                                                exclude=rows)
        recalls[k] = yield from measure_recall(queries, pool, found, k, exclude=rows,
                                               method=method)
    return recalls[k]


def knn(queries: Embeddings | Normalised, pool: Embeddings | Normalised, k: int, *,
        exclude: np.ndarray | None = None, search: str = "auto", limit: int | None = None,
        seed: int = 0, cache: bool = True, kind: str | None = None
        ) -> tuple[np.ndarray, np.ndarray, Search]:
    """:func:`iter_knn` run to the end in this thread."""
    return run_job(iter_knn(queries, pool, k, exclude=exclude, search=search, limit=limit,
                            seed=seed, cache=cache, kind=kind))
