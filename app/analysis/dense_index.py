"""The dense neighbour index itself: how it is trained and filled, how it holds its
rows, and how a search reads its codes (:mod:`sentspace.app.analysis.ann` caches, tunes
and searches it).

An index is an inverted file of 8-bit codes over rows of :func:`index_width`: the unit
rows padded with zeros (:func:`padded`), or, when they leave directions empty, their
products with the leading ones (:func:`leading_directions`, kept by faiss with the
index; :func:`index_rows`). A search reads the codes as numbers with the query scaled by
their steps (:func:`code_scan`, :func:`candidates`). faiss is imported inside the
functions.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.base.jobs import Job, Progress

#: IVF lists: about 4 sqrt(n) (faiss's guideline), trained by k-means on a seeded sample
#: of TRAIN_PER_LIST rows per list (faiss's minimum: at 1,000,000 sentences recall@10
#: 0.964 at nprobe 64, as with 64 rows per list, in 4/5 of the time and 3/5 of the
#: sample's memory); the lists searched per query are tuned (BREADTHS).
IVF_LISTS_PER_SQRT = 4
TRAIN_PER_LIST = 39
TRAIN_SEED = 0
#: k-means iterations training the lists (faiss's own default for an IVF), run one at a
#: time so that a build reports progress and can be cancelled between them (at
#: 1,000,000 x 384 training takes over a minute).
KMEANS_ITERATIONS = 10
#: faiss scores 8-bit rows with SIMD only when their width is a multiple of this.
SQ_WIDTH = 8
#: An index holds its rows' products with the fewest leading directions of the sample's
#: second moment that keep this share of its energy, when that narrows its width by at
#: least an eighth (the product costs dim x width a row): glove-mean's 50 dimensions
#: keep 99.998% in 48, which AVX-512 scans 16 at a time. At 1,000,000 sentences every
#: point's neighbours took 67 s instead of 100 at the same recall@10 (0.957); 40
#: directions (99.7%) lost 0.01 of recall at the same breadth. Candidates are rescored
#: on the whole rows.
KEPT_ENERGY = 0.9999
#: Sample rows the second moment is summed over (a seeded share of the training sample).
MOMENT_ROWS = 10_000
#: faiss's parallel mode that splits a preassigned search's queries among the threads
#: (its default searches them on the calling thread alone).
SEARCH_OVER_QUERIES = 3


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


def index_width(dim: int) -> int:
    """The width an index holds rows of ``dim`` dimensions in: the next multiple of
    :data:`SQ_WIDTH` (faiss's SIMD code needs one) that is not a multiple of 32, where
    faiss reads the codes of :func:`code_scan` with an integer kernel that takes the
    query as bytes (on a CPU with AVX-512; with AVX2 alone, at multiples of 16, where
    :func:`code_scan` then decodes the codes as before)."""
    width = dim + -dim % SQ_WIDTH
    return width if width % (4 * SQ_WIDTH) else width + SQ_WIDTH


def padded(rows: np.ndarray) -> np.ndarray:
    """``rows`` (float32) widened with zero columns to :func:`index_width`, as the index
    holds them (the rows themselves when already that wide)."""
    rows = np.ascontiguousarray(rows, dtype=np.float32)
    extra = index_width(rows.shape[1]) - rows.shape[1]
    return np.pad(rows, ((0, 0), (0, extra))) if extra else rows


def leading_directions(sample: np.ndarray) -> np.ndarray | None:
    """The leading directions (dim, width) of the second moment of ``sample``'s unit
    rows that keep :data:`KEPT_ENERGY` of it, ``width`` :func:`index_width` of their
    count; None when that is not an eighth narrower than the rows' own index width.
    Summed by einsum's loop and decomposed on one BLAS thread, so the same on any
    thread count."""
    from threadpoolctl import threadpool_limits  # noqa: PLC0415

    dim = sample.shape[1]
    rows = sample[:: max(1, len(sample) // MOMENT_ROWS)].astype(np.float64)
    moment = np.einsum("ni,nj->ij", rows, rows)
    with threadpool_limits(1, user_api="blas"):
        energy, directions = np.linalg.eigh(moment)
    energy, directions = energy[::-1], directions[:, ::-1]
    kept = np.cumsum(energy) / energy.sum()
    width = index_width(int(np.searchsorted(kept, KEPT_ENERGY)) + 1)
    if width > index_width(dim) * 7 // 8:
        return None
    return np.ascontiguousarray(directions[:, :width], dtype=np.float32)


def projected(rows: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """``rows``' products with ``directions`` (dim, width), by einsum's loop (the same
    sums on any thread count, unlike BLAS's)."""
    return np.einsum("nd,dw->nw", np.asarray(rows, dtype=np.float32), directions)


def ivf(index):
    """The inverted file of ``index`` (itself, or the one behind its projection)."""
    import faiss  # noqa: PLC0415

    if isinstance(index, faiss.IndexPreTransform):
        return faiss.downcast_index(index.index)
    return index


def index_rows(index, rows: np.ndarray) -> np.ndarray:
    """The unit ``rows`` as ``index`` holds them: projected on its leading directions,
    or padded (:func:`padded`)."""
    import faiss  # noqa: PLC0415

    if not isinstance(index, faiss.IndexPreTransform):
        return padded(rows)
    chain: Any = index.chain  # a C++ vector, which faiss's stubs call a list
    transform: Any = faiss.downcast_VectorTransform(chain.at(0))
    matrix = faiss.vector_to_array(transform.A).reshape(transform.d_out, transform.d_in)
    return np.ascontiguousarray(projected(rows, matrix.T))


@dataclass(frozen=True)
class CodeScan:
    """A view of ``index`` that reads each 8-bit code as the number it is (see
    :func:`code_scan`), and each dimension's code ``steps``."""

    index: Any
    view: Any
    steps: np.ndarray

    def search(self, queries: np.ndarray, count: int, lists: np.ndarray, centroid_sims, params):
        """The ``count`` best rows (ids, -1 for none; similarities up to a constant
        of each query) of the preassigned ``lists`` of each padded unit query."""
        import faiss  # noqa: PLC0415

        n = len(queries)
        scaled = np.ascontiguousarray(queries * self.steps, dtype=np.float32)
        lists = np.ascontiguousarray(lists, dtype=np.int64)
        centroid_sims = np.ascontiguousarray(centroid_sims, dtype=np.float32)
        similarities = np.empty((n, count), dtype=np.float32)
        found = np.empty((n, count), dtype=np.int64)
        self.view.search_preassigned_c(
            n,
            faiss.swig_ptr(scaled),
            count,
            faiss.swig_ptr(lists),
            faiss.swig_ptr(centroid_sims),
            faiss.swig_ptr(similarities),
            faiss.swig_ptr(found),
            False,
            params,
        )
        return found, similarities


def code_scan(index) -> CodeScan | None:
    """A second view of the inverted file ``index``'s lists (sharing them and its centroids) that reads
    each 8-bit code as the number it is: a row's code c stands for the residual
    low + (c + 1/2) step in each dimension, so a query's product with it is a constant
    of the query plus the product of the query scaled by the steps with c. Scanning
    with the scaled query ranks rows as decoding every code first does, without the
    decoding (at 1,000,000 x 50 a quarter less time a row). Valid while ``index`` is.

    None when faiss does not read the codes so on this machine: where the width is a
    multiple of its SIMD width in bytes, faiss takes the query as bytes too (an integer
    kernel, built for byte queries), which truncates a scaled query; the index is then
    searched as it is (:func:`candidates`)."""
    import faiss  # noqa: PLC0415

    view = faiss.IndexIVFScalarQuantizer(
        index.quantizer,
        index.d,
        index.nlist,
        faiss.ScalarQuantizer.QT_8bit_direct,
        faiss.METRIC_INNER_PRODUCT,
    )
    view.replace_invlists(index.invlists, False)
    view.ntotal, view.is_trained = index.ntotal, True
    view.parallel_mode = SEARCH_OVER_QUERIES
    low_and_span = faiss.vector_float_to_array(index.sq.trained)
    scan = CodeScan(index, view, low_and_span[index.d :] / 255)
    return scan if _reads_codes_as_numbers(scan) else None


def _reads_codes_as_numbers(scan: CodeScan) -> bool:
    """Whether ``scan`` gives the rows of the first list that holds any, searched with
    that list's centroid, the products of the scaled centroid with their codes."""
    import faiss  # noqa: PLC0415

    lists = scan.index.invlists
    number = next((i for i in range(scan.index.nlist) if lists.list_size(i)), None)
    if number is None:
        return True
    size = lists.list_size(number)
    pointer = lists.get_codes(number)
    codes = faiss.rev_swig_ptr(pointer, size * scan.index.code_size).copy()
    lists.release_codes(number, pointer)
    centroid = scan.index.quantizer.reconstruct(number)[None, :]
    params = faiss.SearchParametersIVF(nprobe=1)  # type: ignore[call-arg]
    _, got = scan.search(centroid, size, np.array([[number]]), np.zeros((1, 1)), params)
    expected = codes.reshape(size, -1).astype(np.float64) @ (centroid[0] * scan.steps)
    return bool(np.allclose(np.sort(got[0]), np.sort(expected), rtol=1e-4, atol=1e-5))


def candidates(index, scan: CodeScan | None, queries: np.ndarray, count: int, params) -> np.ndarray:
    """The ``count`` best pool rows of each query (a unit row as the inverted file
    ``index`` holds it, :func:`index_rows`) by the index's codes (-1 where the lists it
    probes hold fewer), in parallel over the queries. The centroids are searched with
    the query itself; the codes, by ``scan``, with the query scaled by their steps
    (else by the index itself)."""
    if scan is None:
        return index.search(queries, count, params=params)[1]
    centroid_sims, lists = index.quantizer.search(queries, params.nprobe)
    return scan.search(queries, count, lists, centroid_sims, params)[0]


def ivf_lists(n: int) -> int:
    """Inverted lists of an index over ``n`` rows."""
    return max(1, min(n // TRAIN_PER_LIST or 1, int(IVF_LISTS_PER_SQRT * np.sqrt(n))))


def iter_trained_ivf(unit: np.ndarray) -> Job[Any]:
    """An empty IVF-SQ8 index for the unit rows ``unit``; a job. Spherical k-means
    centroids, then the 8-bit quantiser's ranges, trained on a seeded sample of
    :data:`TRAIN_PER_LIST` rows per list on one thread. Rows added to it in order
    (:func:`add_rows`), at once or in parts merged in order (:mod:`sentspace.app.analysis.distributed`),
    give the same index."""
    import faiss  # noqa: PLC0415 - about 0.2 s; only when an index is needed

    n, dim = unit.shape
    lists = ivf_lists(n)
    sample = np.random.default_rng(TRAIN_SEED).choice(
        n, min(n, lists * TRAIN_PER_LIST), replace=False
    )
    sample_rows = unit[np.sort(sample)]
    directions = leading_directions(sample_rows)
    sample = padded(sample_rows) if directions is None else projected(sample_rows, directions)
    width = sample.shape[1]
    stage = f"training the neighbour index's {lists:,} lists"
    kmeans = faiss.Kmeans(width, lists, niter=1, seed=TRAIN_SEED, spherical=True)
    centroids = None
    for iteration in range(KMEANS_ITERATIONS):
        yield Progress(stage, iteration, KMEANS_ITERATIONS)
        with single_threaded():
            kmeans.train(sample, init_centroids=centroids)
        centroids = kmeans.centroids
    assert centroids is not None, "KMEANS_ITERATIONS >= 1"
    quantizer = faiss.IndexFlatIP(width)
    quantizer.add(centroids)
    index = faiss.IndexIVFScalarQuantizer(
        quantizer, width, lists, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
    )
    with single_threaded():
        index.train(sample)  # the lists are trained: only the quantiser's ranges
    yield Progress(stage, KMEANS_ITERATIONS, KMEANS_ITERATIONS)
    if directions is None:
        return index
    # faiss keeps the directions with the index (saved with it); rows are projected by
    # :func:`index_rows`, never by faiss's own product, whose sums follow the threads.
    transform = faiss.LinearTransform(dim, width, False)
    faiss.copy_array_to_vector(np.ascontiguousarray(directions.T).ravel(), transform.A)
    transform.is_trained = True
    return faiss.IndexPreTransform(transform, index)


def add_rows(index, rows: np.ndarray) -> None:
    """Add the unit ``rows`` to ``index`` on one thread (the order lists are filled in
    must not depend on the thread count)."""
    lists = ivf(index)
    with single_threaded():
        lists.add(index_rows(index, rows))
    index.ntotal = lists.ntotal
