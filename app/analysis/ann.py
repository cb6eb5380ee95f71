"""Approximate nearest neighbours (faiss, NN-descent) for pools too large to scan exactly.

:func:`iter_knn` is what every k-nearest-neighbour consumer calls, with one switch,
``search``: "exact" always scans (:func:`sentspace.app.analysis.neighbours.iter_top_k`), "ann" always
searches an index, and "auto" (the default) scans up to :data:`EXACT_LIMIT` pool rows
and searches an index above it. Sparse embeddings (bag of words, TF-IDF), which faiss
cannot index, get a nearest-neighbour graph instead (:data:`SPARSE_KIND`, below). The
dense index is over the L2-normalised rows, searched by inner
product (= cosine): an inverted file of 8-bit scalar-quantised rows (IVF-SQ8, a quarter
of the rows' memory), its coarse centroids trained by k-means on a seeded sample, and
the candidates it returns rescored exactly from the unit rows. Every approximate answer
comes with its measured recall@k against the exact scan on a seeded sample of its own
queries (:class:`Search`), so a result computed approximately says so, and how
approximately. An index is tuned once per number of neighbours k asked of it (k=10 as
it is built): the narrowest search breadth (lists probed, nprobe) of :data:`BREADTHS`
whose recall@k on 1,000 of its own rows reaches :data:`TARGET_RECALL` with
:data:`TUNING_MARGIN` to spare is kept with it, with that recall (a ranking's 101
neighbours need more lists than 10 do).

Why this index: at 1,000,000 spliced real sentences (glove-mean, 50-d, 2 cores) a
single-threaded HNSW graph took 89 s to build and 122 s to search every point at
recall@10 0.974; the IVF-SQ8 builds in about 17 s and searches every point in 67 s at
0.957, in a quarter of the memory (HNSW keeps a float32 copy of the rows and its graph).
Rows that leave directions empty (glove-mean's 50 dimensions keep 99.998% of their
energy in 48) are held as their products with the leading directions
(:mod:`sentspace.app.analysis.dense_index`), kept by faiss with the index; other rows
are padded with zeros. Either way the width is a multiple of 8, which lets faiss use its
SIMD code (at 50-d, 4.5x faster). A search reads the 8-bit codes as the numbers they
are, with the query scaled by each dimension's code step, instead of decoding every code
(the same candidates, a quarter less time a row), and rescores its candidates on the
whole rows, on as many threads as faiss searches with. Queries are searched in the order
of their nearest list, so that the lists they probe are still in the cache (results do
not depend on the order); the pool's own rows, searched for every point's neighbours,
are ordered by the lists they sit in.

The index is built one chunk of rows at a time (a job: progress, cancel between chunks)
on one thread: k-means run on several threads sums in whatever order they finish, so
only a single-threaded build gives the same centroids, and the same neighbours, on every
machine. Only the building thread is held to one OpenMP thread, and only while faiss
works, never across a yield. Searching is parallel; each query's search is independent
of the others, so its answer does not depend on the thread count. Built indexes are
cached on disk in the embedding cache's folder (``ann/``) with their tuned recall,
keyed by a digest of the normalised matrix and the index's parameters, and checked
against a SHA-256 before faiss reads them.

Sparse rows are searched by pynndescent's NN-descent over their cosine, on the CSR
rows themselves: a graph of each pool row's :data:`GRAPH_NEIGHBOURS` nearest rows, whose
own rows answer a search of the pool by itself (every point's neighbours, the page's
lists) and which other queries descend. Its candidates are rescored by their exact
cosines, as the dense index's are. It is built on one thread (``n_jobs=1``: NN-descent's
parallel updates land in whatever order the threads finish) from the run's seed, so the
same rows and seed give the same neighbours on every machine. A build is one call into
pynndescent (minutes at 145,000 captions): the job can be cancelled before and after it,
and between chunks of queries, not inside it.

faiss and pynndescent are imported inside the functions that need them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.cache import cache_dir
from sentspace.app.analysis.dense_index import (
    TRAIN_PER_LIST,
    TRAIN_SEED,
    add_rows,
    candidates,
    code_scan,
    index_rows,
    iter_trained_ivf,
    ivf,
    ivf_lists,
)
from sentspace.app.analysis.neighbours import (
    Normalised,
    iter_top_k,
    normalise,
    pair_dots,
    row_dots,
)
from sentspace.app.base.atomic import atomic_path, write_text_atomic
from sentspace.app.base.jobs import Job, Progress, synchronous
from sentspace.models.base import Embeddings

log = logging.getLogger(__name__)

#: Pool size above which ``search="auto"`` goes approximate.
EXACT_LIMIT = 50_000
#: "auto": exact up to the limit, an index above it; "exact"; "ann" (an index always).
SEARCHES = ("auto", "exact", "ann")
#: The index kind (:attr:`Search.method` of an approximate search of dense rows).
INDEX_KIND = "ivf-sq8"
#: The method of an approximate search of sparse rows: pynndescent's NN-descent graph.
SPARSE_KIND = "nn-descent"
#: Neighbours per row of the NN-descent graph (at least k + 1): at 20,000 Multi30K
#: captions (bag of words) 11 gave recall@10 0.87, 30 gave 0.99.
GRAPH_NEIGHBOURS = 30
#: Queries whose approximate neighbours are checked against the exact scan.
RECALL_QUERIES = 1_000
#: A search takes this many times the candidates asked for, rescored exactly: at
#: 1,000,000 sentences (glove-mean, 40 of 50 directions, 3,000 rows) recall@10 at nprobe
#: 56 was 0.947 with 4x and 0.952 with 6x, at nprobe 64 0.956 and 0.960, for 5% more time.
REFINE = 4
#: Lists probed per query, tried in turn: the first whose recall@k on the tuning rows
#: reaches TARGET_RECALL + TUNING_MARGIN is kept (the last when none does). The margin
#: is the tuning sample's own error (1,000 rows: about 0.004), so that a search of
#: other rows, measured on its own sample, still reaches the target.
BREADTHS = (16, 32, 48, 56, 64, 96, 128, 192, 256, 384, 512)
TARGET_RECALL = 0.95
TUNING_MARGIN = 0.005
#: Rows added per step of the build, and queries searched per step.
BUILD_CHUNK = 50_000
SEARCH_CHUNK = 20_000
#: A neighbour whose cosine is within this of the exact k-th neighbour's is a hit when
#: measuring recall (as ann-benchmarks counts by distance), so that ties broken in a
#: different order, or float32 sums taken in another order, are not counted as misses.
RECALL_TOLERANCE = 1e-5
#: Indexes kept in memory by the array they index, so that a view asking again about
#: the same pool gets its index back without hashing the matrix.
_RECENT_INDEXES = 2
_recent: dict[int, tuple[weakref.ref[Any], Any, Tuning, str | None]] = {}
#: NN-descent graphs kept in memory by the content of the sparse rows they index and the
#: seed they were built from, with their measured recall per k; the last
#: :data:`_RECENT_INDEXES` outlive their rows (a graph holds its own copy), so that the
#: rows normalised again (faithfulness, then a page's neighbour lists) find theirs:
#: each built its own graph, twice 86 s of CPU at 145,000 captions.
_graphs: dict[tuple[str, int], tuple[Any, dict[int, Search]]] = {}
#: The exact k-th best cosines of sampled rows of an indexed pool among the pool (what
#: tuning and a search of the pool by itself measure recall against), by the index's
#: cache name (the pool's content), k, the rows and what each excludes: an index tuned
#: on 1,000 of its rows, then asked for every row's neighbours, scans those rows once,
#: not twice (7 s at 1,000,000 rows). A few kept; each is k floats per row.
_references: dict[tuple[str, int, bytes, bytes], np.ndarray] = {}
_KEPT_REFERENCES = 8
#: Bump when the index layout or its parameters change; older files then simply miss.
INDEX_VERSION = 7


#: Per k: the lists to probe and the recall@k that breadth reached.
Tuning = dict[int, tuple[int, "Search"]]


@dataclass(frozen=True)
class Search:
    """How a set of nearest neighbours was found.

    Attributes
    ----------
    method : "exact", the dense index's kind (:data:`INDEX_KIND`) or the sparse rows'
        graph's (:data:`SPARSE_KIND`).
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
        return (
            f"approximate ({self.method.upper()}, recall@{self.k} {self.recall:.3f} "
            f"on {self.recall_queries:,} queries)"
        )

    def summary(self) -> list[tuple[str, str]]:
        return [("neighbour search", self.describe())]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def choose(pool: Embeddings | Normalised, search: str = "auto", *, limit: int | None = None) -> str:
    """ "exact", :data:`INDEX_KIND` (dense rows) or :data:`SPARSE_KIND` (sparse rows)
    for searching ``pool``; ValueError for an unknown search. ``limit`` defaults to
    :data:`EXACT_LIMIT` as it is when called."""
    limit = EXACT_LIMIT if limit is None else limit
    if search not in SEARCHES:
        raise ValueError(f"unknown neighbour search {search!r} (known: {', '.join(SEARCHES)})")
    matrix = pool.matrix if isinstance(pool, Normalised) else pool
    if search == "exact" or (search == "auto" and matrix.shape[0] <= limit):
        return "exact"
    return SPARSE_KIND if sp.issparse(matrix) else INDEX_KIND


def index_dir() -> Path:
    """Where built indexes are cached: beside the embeddings."""

    return cache_dir() / "ann"


def _digest_file(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def index_key(unit: np.ndarray) -> str:
    """The cache name of an index over the unit rows ``unit``."""
    digest = hashlib.blake2b(np.ascontiguousarray(unit).data, digest_size=16)
    digest.update(repr(unit.shape).encode())
    parameters = f"l{ivf_lists(unit.shape[0])}-t{TRAIN_PER_LIST}-s{TRAIN_SEED}"
    return f"{digest.hexdigest()}-{INDEX_KIND}-{parameters}-v{INDEX_VERSION}"


def _load_cached(path: Path, n: int) -> tuple[Any, Tuning] | None:
    import faiss  # noqa: PLC0415

    meta_path = path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if _digest_file(path) != meta["sha256"]:
            raise ValueError("content hash mismatch")
        index = faiss.read_index(str(path))
        if index.ntotal != n:
            raise ValueError(f"holds {index.ntotal} rows, not {n}")
        return index, {
            int(k): (nprobe, Search(**search)) for k, (nprobe, search) in meta["tuning"].items()
        }
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as error:
        log.warning("cached index %s is damaged (%s); rebuilding", path.name, error)
        meta_path.unlink(missing_ok=True)
        path.unlink(missing_ok=True)
        return None


def store_index(index, unit: np.ndarray, tuning: Tuning) -> Path:
    """Put ``index`` (over the unit rows ``unit``, with its ``tuning``) in the cache
    where :func:`iter_build_index` looks for it; returns the file."""
    path = index_dir() / f"{index_key(np.ascontiguousarray(unit, np.float32))}.faiss"
    _store(index, path, tuning)
    return path


def _store(index, path: Path, tuning: Tuning) -> None:
    import faiss  # noqa: PLC0415

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.with_suffix(".json").unlink(missing_ok=True)
        with atomic_path(path) as temporary:
            faiss.write_index(index, str(temporary))
        _store_tuning(path, tuning, _digest_file(path))
    except OSError as error:
        log.warning("could not cache the neighbour index in %s: %s", path.parent, error)


def _store_tuning(path: Path, tuning: Tuning, sha256: str) -> None:
    write_text_atomic(
        path.with_suffix(".json"),
        json.dumps(
            {
                "sha256": sha256,
                "tuning": {k: (nprobe, search.to_dict()) for k, (nprobe, search) in tuning.items()},
            }
        ),
    )


def iter_build_index(unit: np.ndarray, *, cache: bool = True) -> Job[Any]:
    """An inner-product index over the unit rows ``unit`` (float32, (n, dim)).

    Loaded from the cache when an index over the same rows was built before (and one
    in memory over an equal array, say the same embeddings normalised again, is shared
    rather than loaded twice); otherwise trained and built single-threaded, a chunk of
    rows per progress step, tuned, and cached.
    """
    n = unit.shape[0]
    stage = f"building the neighbour index of {n:,} points (IVF-SQ8)"
    yield Progress(stage, 0, n)
    owner, recent, _, _ = _recent.get(id(unit), (None, None, None, None))
    if owner is not None and owner() is unit:
        return recent
    given, unit = unit, np.ascontiguousarray(unit, dtype=np.float32)
    name = index_key(unit) if cache else None
    index, tuning = next(
        ((i, t) for _, i, t, other in list(_recent.values()) if name is not None and other == name),
        (None, {}),
    )
    if index is None and name is not None:
        index, tuning = _load_cached(index_dir() / f"{name}.faiss", n) or (None, {})
    if index is None:
        index = yield from iter_trained_ivf(unit)
        for start in range(0, n, BUILD_CHUNK):
            add_rows(index, unit[start : start + BUILD_CHUNK])
            yield Progress(stage, min(start + BUILD_CHUNK, n), n)
        k = min(10, n - 1)
        tuning = {k: (yield from tune(index, unit, k, name))}
        if name is not None:
            _store(index, index_dir() / f"{name}.faiss", tuning)
    yield Progress(stage, n, n)
    _remember(_recent, id(given), given, (index, tuning, name))
    return index


def _remember(store: dict[Any, Any], key: Any, rows: Any, entry: tuple[Any, ...]) -> None:
    """Keep ``entry`` (an index over ``rows`` and what goes with it) in ``store`` under
    ``key`` until ``rows`` goes (an index is about as large as the rows), the oldest
    dropped beyond :data:`_RECENT_INDEXES`."""
    if len(store) >= _RECENT_INDEXES:
        store.pop(next(iter(store)))

    def forget(_: weakref.ref[Any]) -> None:
        store.pop(key, None)

    store[key] = (weakref.ref(rows, forget), *entry)


def tune(index, unit: np.ndarray, k: int = 10, name: str | None = None) -> Job[tuple[int, Search]]:
    """The first breadth (lists probed) of :data:`BREADTHS` whose recall@k on
    :data:`RECALL_QUERIES` of the index's unit rows ``unit`` (drawn with seed 0) reaches
    the target, and that recall (the widest breadth, all lists at most, when none
    does). ``name``: the index's cache name, under which the exact neighbours of those
    rows are kept for a search of every row to measure its recall against."""
    n = unit.shape[0]
    rows = np.sort(np.random.default_rng(0).choice(n, min(RECALL_QUERIES, n), replace=False))
    pool = Normalised(unit, ~np.asarray(unit.any(axis=1)))
    queries = Normalised(unit[rows], pool.degenerate[rows])
    exact = yield from _own_reference(pool, rows, k, rows, name)
    for breadth in BREADTHS:
        nprobe = min(breadth, ivf(index).nlist)
        _, found = yield from iter_search_index(
            index, queries.matrix, k, pool=pool.matrix, exclude=rows, nprobe=nprobe
        )
        recall = float((found >= exact[:, None] - RECALL_TOLERANCE).mean())
        if recall >= TARGET_RECALL + TUNING_MARGIN or nprobe == ivf(index).nlist:
            break
    return nprobe, Search(INDEX_KIND, k, recall, len(rows))


def _own_reference(
    pool: Normalised, rows: np.ndarray, k: int, exclude: np.ndarray, name: str | None
) -> Job[np.ndarray]:
    """The exact k-th best cosine of each of the pool's own ``rows`` among the pool
    (``exclude`` as in :func:`iter_top_k`); kept by ``name``, the cache name of the
    pool's index (None: not kept)."""
    key = (name or "", k, rows.tobytes(), exclude.tobytes())
    if name is not None and key in _references:
        return _references[key]
    queries = Normalised(pool.matrix[rows], pool.degenerate[rows])
    _, exact = yield from iter_top_k(queries, pool, k, exclude=exclude)
    kth = exact[:, -1].copy() if k else np.full(len(rows), -np.inf, np.float32)
    if name is not None:
        if len(_references) >= _KEPT_REFERENCES:
            _references.pop(next(iter(_references)))
        _references[key] = kth
    return kth


def _index_name(pool: np.ndarray) -> str | None:
    """The cache name of the index built over the unit rows ``pool``, while it is kept
    in memory (None when there is none, or it is not cached)."""
    owner, _, _, name = _recent.get(id(pool), (None, None, None, None))
    return name if owner is not None and owner() is pool else None


def tuned(index, pool: np.ndarray, k: int) -> Job[tuple[int, Search]]:
    """The breadth ``index`` (over the unit rows ``pool``) is searched with for ``k``
    neighbours, and its recall@k: as tuned before (kept in memory and in the cache),
    else tuned now (:func:`tune`) and kept."""
    tuning, name = next(
        ((t, other) for _, i, t, other in list(_recent.values()) if i is index), ({}, None)
    )
    if k not in tuning:
        tuning[k] = yield from tune(index, pool, k, name)
        if name is not None and (path := index_dir() / f"{name}.faiss").is_file():
            meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
            _store_tuning(path, tuning, meta["sha256"])
    return tuning[k]


def iter_search_index(
    index,
    queries: np.ndarray,
    k: int,
    *,
    pool: np.ndarray,
    exclude: np.ndarray | None = None,
    nprobe: int | None = None,
) -> Job[tuple[np.ndarray, np.ndarray]]:
    """The ``k`` approximate nearest pool rows of each unit query row, best first.

    ``pool`` is the unit rows the index holds: :data:`REFINE` times as many candidates
    are rescored by their exact cosines (the index's own are of 8-bit rows), and the
    best kept. ``exclude`` as in :func:`sentspace.app.analysis.neighbours.iter_top_k`: a pool row per query
    that must not be returned (-1: none). ``nprobe``: lists probed per query, by default
    the breadth :func:`tuned` for ``k``. Returns int64 indices and float32 cosines,
    (n_queries, k); a row the index could not fill ends in index -1, similarity -inf.
    """
    import faiss  # noqa: PLC0415

    if nprobe is None:
        nprobe, _ = yield from tuned(index, pool, k)
    own_rows = queries is pool and index.ntotal == len(pool)
    pool = np.ascontiguousarray(pool, dtype=np.float32)  # once, not per chunk
    # Per search, not on the index, which other threads may be searching.
    # faiss's generated stubs omit the keywords its Python wrapper sets as attributes.
    params = faiss.SearchParametersIVF(nprobe=nprobe)  # type: ignore[call-arg]
    n_queries = queries.shape[0]
    wanted = k + (exclude is not None)
    indices = np.empty((n_queries, k), dtype=np.int64)
    similarities = np.empty((n_queries, k), dtype=np.float32)
    stage = "searching the neighbour index"
    lists = ivf(index)
    scan = code_scan(lists)
    if n_queries <= SEARCH_CHUNK:
        order = np.arange(n_queries)
    elif own_rows:
        order = _by_own_list(index)
    else:
        order = yield from _by_nearest_list(index, queries)
    threads = faiss.omp_get_max_threads()
    exclude = None if exclude is None else np.asarray(exclude)  # once, not per chunk
    with ThreadPoolExecutor(threads) as rescorers:
        for start in range(0, n_queries, SEARCH_CHUNK):
            chunk = order[start : start + SEARCH_CHUNK]
            mine = queries[chunk]
            found = candidates(lists, scan, index_rows(index, mine), wanted * REFINE, params)
            excluded = None if exclude is None else exclude[chunk]
            # Rescored in slices on faiss's threads (numpy lets go of the GIL), none
            # empty: each query's answer is its own, whatever the slices.
            slices = np.array_split(np.arange(len(chunk)), min(threads, len(chunk)))
            rescored = [
                rescorers.submit(
                    _best,
                    mine[part],
                    pool,
                    found[part],
                    k,
                    None if excluded is None else excluded[part],
                )
                for part in slices
            ]
            for part, best in zip(slices, rescored):
                indices[chunk[part]], similarities[chunk[part]] = best.result()
            yield Progress(stage, start + len(chunk), n_queries)
    return indices, similarities


def _best(
    queries: Embeddings,
    pool: Embeddings,
    candidates: np.ndarray,
    k: int,
    exclude: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best of each query's ``candidates`` (pool rows, -1 for none) by their
    exact cosines, as :func:`_rescored` orders them, without the query's ``exclude`` pool
    row (-1: none)."""
    found, found_sims = _rescored(queries, pool, candidates)
    wanted = k + (exclude is not None)
    found, found_sims = found[:, :wanted], found_sims[:, :wanted]
    if exclude is None:
        return found, found_sims
    # Drop the excluded row where it was found, else the last (k + 1-th) one.
    dropped = found == exclude[:, None]
    dropped[~dropped.any(axis=1), -1] = True
    keep = np.argsort(dropped, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(found, keep, axis=1), np.take_along_axis(found_sims, keep, axis=1)


def _by_nearest_list(index, queries: np.ndarray) -> Job[np.ndarray]:
    """The queries' rows in the order of their nearest inverted list, so that queries
    searched one after another probe mostly the same lists, still in the cache."""
    nearest = np.empty(len(queries), dtype=np.int64)
    stage = "ordering the queries by their nearest list"
    for start in range(0, len(queries), SEARCH_CHUNK):
        stop = min(start + SEARCH_CHUNK, len(queries))
        rows = index_rows(index, queries[start:stop])
        nearest[start:stop] = ivf(index).quantizer.search(rows, 1)[1][:, 0]
        yield Progress(stage, stop, len(queries))
    return np.argsort(nearest, kind="stable")


def _by_own_list(index) -> np.ndarray:
    """The index's own rows in the order of the lists they were added to (their nearest,
    as :func:`_by_nearest_list` orders other queries), read from the lists themselves
    instead of searching the coarse quantiser again (13 s of CPU at 1,000,000 rows)."""
    import faiss  # noqa: PLC0415

    lists = ivf(index).invlists
    sizes = [lists.list_size(number) for number in range(ivf(index).nlist)]
    order = np.empty(sum(sizes), dtype=np.int64)
    start = 0
    for number, size in enumerate(sizes):
        ids = lists.get_ids(number)
        order[start : start + size] = faiss.rev_swig_ptr(ids, size)
        lists.release_ids(number, ids)
        start += size
    return order


def _rescored(
    queries: Embeddings, pool: Embeddings, indices: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``indices`` with their exact cosines, re-sorted (similarity, then pool row): the
    8-bit quantised index returns approximate ones, and NN-descent's order is not the
    exact scan's, which recall and ranks compare with. Missing candidates (-1) get -inf
    and sort last."""
    found = indices >= 0
    gathered = np.where(found, indices, 0)
    if sp.issparse(pool):
        # A column of candidates at a time: each a row-by-row product of sparse rows.
        dots = np.empty(indices.shape, dtype=np.float32)
        for column in range(indices.shape[1]):
            dots[:, column] = row_dots(queries, pool[gathered[:, column]])
    else:
        dots = pair_dots(queries, pool, gathered)
    similarities = np.where(found, dots, np.float32(-np.inf))
    order = np.lexsort((indices, -similarities), axis=1)
    return (
        np.take_along_axis(indices, order, axis=1),
        np.take_along_axis(similarities, order, axis=1),
    )


def measure_recall(
    queries: Normalised,
    pool: Normalised,
    approximate: np.ndarray,
    k: int,
    *,
    exclude: np.ndarray | None = None,
    seed: int = 0,
    sample: int = RECALL_QUERIES,
    method: str = INDEX_KIND,
) -> Job[Search]:
    """Recall@k of approximate cosines ``approximate`` ((n_queries, k), best first), found
    by ``method``, against the exact scan, on ``sample`` queries drawn with ``seed``."""
    n_queries = queries.matrix.shape[0]
    rows = np.sort(
        np.random.default_rng(seed).choice(n_queries, min(sample, n_queries), replace=False)
    )
    excluded = None if exclude is None else np.asarray(exclude)[rows]
    if queries is pool and excluded is not None:  # as the index's tuning measured them
        name = None if sp.issparse(pool.matrix) else _index_name(pool.matrix)
        kth = yield from _own_reference(pool, rows, k, excluded, name)
    else:
        subset = Normalised(queries.matrix[rows], queries.degenerate[rows])
        _, exact = yield from iter_top_k(subset, pool, k, exclude=excluded)
        kth = exact[:, -1]
    hits = approximate[rows] >= kth[:, None] - RECALL_TOLERANCE
    return Search(method, k, float(hits.mean()) if hits.size else 1.0, len(rows))


def iter_build_graph(
    unit: sp.csr_array, *, seed: int = 0, neighbours: int = GRAPH_NEIGHBOURS
) -> Job[Any]:
    """pynndescent's NN-descent index over the sparse unit rows ``unit`` by cosine, each
    row's ``neighbours`` nearest rows (itself among them) found on one thread from
    ``seed``. One built over equal rows and the same seed, at least as wide, is
    shared (:data:`_graphs`)."""
    n = unit.shape[0]
    stage = f"building the neighbour graph of {n:,} points (NN-descent)"
    yield Progress(stage, 0, 1)
    key = (_sparse_digest(unit), seed)
    graph, _ = _graphs.get(key, (None, None))
    if graph is None or graph.n_neighbors < min(neighbours, n):
        from pynndescent import NNDescent  # noqa: PLC0415 - seconds to import (numba)

        # n_jobs=1: the same graph from the same seed whatever the core count.
        graph = NNDescent(
            sp.csr_matrix(unit),
            metric="cosine",
            n_neighbors=min(neighbours, n),
            random_state=seed,
            n_jobs=1,
        )
        _graphs.pop(key, None)
        if len(_graphs) >= _RECENT_INDEXES:
            _graphs.pop(next(iter(_graphs)))
        _graphs[key] = (graph, {})
    yield Progress(stage, 1, 1)
    return graph


def _sparse_digest(rows: sp.csr_array) -> str:
    """A digest of sparse rows' content (shape, stored values and where they are)."""
    rows = sp.csr_array(rows)
    digest = hashlib.blake2b(repr(rows.shape).encode(), digest_size=16)
    for part in (rows.indptr, rows.indices, rows.data):
        digest.update(np.ascontiguousarray(part).data)
    return digest.hexdigest()


def iter_search_graph(
    graph, queries: Normalised, pool: Normalised, k: int, *, exclude: np.ndarray | None = None
) -> Job[tuple[np.ndarray, np.ndarray]]:
    """The ``k`` approximate nearest pool rows of each query, best first, by the NN-descent
    ``graph`` over the sparse unit rows ``pool`` (:func:`iter_build_graph`, at least
    k + 1 wide): the graph's own rows when the queries are pool rows (``queries`` is
    ``pool``, or each query is the pool row it excludes, as faithfulness's sample is),
    else a descent of the graph per query; either way as many candidates as the graph is
    wide, rescored by their exact cosines. ``exclude`` as in :func:`iter_search_index`."""
    width = graph.n_neighbors
    n_queries = queries.shape[0]
    stage = "searching the neighbour graph"
    if queries is pool:
        candidates = graph.neighbor_graph[0]
    elif _are_pool_rows(queries.matrix, pool.matrix, exclude):
        # A descent per query took 79 s of CPU for 10,000 of 145,000 captions (numba
        # compiling its search included); their rows of the graph are already built.
        candidates = graph.neighbor_graph[0][np.asarray(exclude)]
    else:
        candidates = np.empty((n_queries, width), dtype=np.int64)
        for start in range(0, n_queries, SEARCH_CHUNK):
            chunk = slice(start, start + SEARCH_CHUNK)
            candidates[chunk] = graph.query(sp.csr_matrix(queries.matrix[chunk]), k=width)[0]
            yield Progress(stage, min(start + SEARCH_CHUNK, n_queries), n_queries)
    indices = np.empty((n_queries, k), dtype=np.int64)
    similarities = np.empty((n_queries, k), dtype=np.float32)
    stage = "rescoring the neighbour graph's candidates"
    for start in range(0, n_queries, SEARCH_CHUNK):
        chunk = slice(start, start + SEARCH_CHUNK)
        indices[chunk], similarities[chunk] = _best(
            queries.matrix[chunk],
            pool.matrix,
            candidates[chunk],
            k,
            None if exclude is None else np.asarray(exclude)[chunk],
        )
        yield Progress(stage, min(start + SEARCH_CHUNK, n_queries), n_queries)
    return indices, similarities


def _are_pool_rows(queries: Embeddings, pool: Embeddings, rows: np.ndarray | None) -> bool:
    """Whether each query is the pool row of ``rows`` (its excluded one), value for
    value."""
    if rows is None:
        return False
    rows = np.asarray(rows)
    if len(rows) != queries.shape[0] or (rows < 0).any():
        return False
    mine = pool[rows]
    if sp.issparse(queries):
        return sp.issparse(mine) and (sp.csr_array(queries) != sp.csr_array(mine)).nnz == 0
    return bool(np.array_equal(queries, mine))


def graph_recall(graph, pool: Normalised, k: int, *, seed: int = 0) -> Job[Search]:
    """Recall@k of the NN-descent ``graph`` over the sparse unit rows ``pool``: of its own
    rows' neighbours, on :data:`RECALL_QUERIES` of them drawn with ``seed``; measured
    once per k while the graph is kept."""
    recalls = next((r for g, r in list(_graphs.values()) if g is graph), {})
    if k not in recalls:
        n = pool.shape[0]
        rows = np.sort(np.random.default_rng(seed).choice(n, min(RECALL_QUERIES, n), replace=False))
        _, own = _best(pool.matrix[rows], pool.matrix, graph.neighbor_graph[0][rows], k, rows)
        recalls[k] = yield from measure_recall(
            Normalised(pool.matrix[rows], pool.degenerate[rows]),
            pool,
            own,
            k,
            exclude=rows,
            sample=len(rows),
            method=SPARSE_KIND,
        )
    return recalls[k]


def iter_knn(
    queries: Embeddings | Normalised,
    pool: Embeddings | Normalised,
    k: int,
    *,
    exclude: np.ndarray | None = None,
    search: str = "auto",
    limit: int | None = None,
    seed: int = 0,
    cache: bool = True,
) -> Job[tuple[np.ndarray, np.ndarray, Search]]:
    """The ``k`` most cosine-similar pool rows of every query, exactly or by an index.

    Parameters
    ----------
    queries, pool, k, exclude : as :func:`sentspace.app.analysis.neighbours.iter_top_k`.
    search : "auto" (an index when the pool has more than ``limit`` rows, default
        :data:`EXACT_LIMIT`), "exact" or "ann": dense rows get a faiss index, sparse ones
        an NN-descent graph.
    seed : draws the queries the recall of an approximate search is measured on, and
        seeds an NN-descent graph.
    cache : keep a built faiss index on disk (and use one built before).

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
    unit_queries = (
        unit_pool
        if queries is pool
        else queries
        if isinstance(queries, Normalised)
        else normalise(queries)
    )
    if method == SPARSE_KIND:
        graph = yield from iter_build_graph(
            unit_pool.matrix, seed=seed, neighbours=max(GRAPH_NEIGHBOURS, k + 1)
        )
        indices, similarities = yield from iter_search_graph(
            graph, unit_queries, unit_pool, k, exclude=exclude
        )
    else:
        index = yield from iter_build_index(unit_pool.matrix, cache=cache)
        nprobe, index_recall = yield from tuned(index, unit_pool.matrix, k)
        indices, similarities = yield from iter_search_index(
            index, unit_queries.matrix, k, pool=unit_pool.matrix, exclude=exclude, nprobe=nprobe
        )
    if unit_queries.matrix.shape[0] >= RECALL_QUERIES:
        report = yield from measure_recall(
            unit_queries, unit_pool, similarities, k, exclude=exclude, seed=seed, method=method
        )
    # A few queries (a typed sentence) get the index's recall: their own would be 0 or 1.
    elif method == SPARSE_KIND:
        report = yield from graph_recall(graph, unit_pool, k, seed=seed)
    else:
        report = index_recall
    return indices, similarities, report


knn = synchronous(iter_knn)
