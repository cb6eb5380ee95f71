"""2D projections of embeddings (PCA, UMAP, t-SNE) and how faithful they are.

Above ``sample`` points UMAP (default 50,000) and t-SNE (200,000) are fitted on a seeded
sample, stratified by group when strata are given, and every other point is placed. UMAP
places it at the similarity-weighted mean of the 2D positions of its nearest sample
points (an index search, chunk by chunk): umap-learn's ``transform`` of the rest took
about 13 minutes per million points on 2 cores. t-SNE is openTSNE's (FFT-accelerated
gradients, on :func:`tsne_threads` threads), whose ``transform`` places the rest by
optimising each new point against the fixed layout.

umap-learn and openTSNE (and scikit-learn, whose import pulls scipy.stats and pandas, about
1 s, and scipy.spatial) are imported lazily: ``import umap`` alone takes seconds and its first
fit compiles with numba, so they load only inside a job, off the GUI thread.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis import ann
from sentspace.app.analysis.ann import Search, iter_knn
from sentspace.app.analysis.layout_process import report, run_elsewhere
from sentspace.app.analysis.neighbours import Normalised, iter_top_k, normalise
from sentspace.app.base.jobs import Job, Progress, run_job
from sentspace.models.base import Embeddings

METHODS = ("pca", "umap", "tsne")
#: Defaults of each method's parameters; the UI offers exactly these.
DEFAULTS: dict[str, dict[str, Any]] = {
    "pca": {},
    "umap": {
        "n_neighbors": 15,
        "min_dist": 0.1,
        "metric": "cosine",
        "pca_dims": 50,
        "sample": 50_000,
    },
    "tsne": {"perplexity": 30.0, "pca_dims": 50, "sample": 200_000},
}
#: Points measured by faithfulness above the exact-search limit.
FAITHFULNESS_SAMPLE = 10_000
#: openTSNE's threads from this many points (one below, where its Barnes-Hut gradients
#: gain little from a second thread and lose much on a busy machine).
TSNE_PARALLEL_FROM = 10_000


def tsne_threads(n: int) -> int:
    """openTSNE's threads for ``n`` points, whatever the cores: its layout depends on
    their number (Annoy's trees, the FFT gradients' sums), so it is fixed by ``n``."""
    return 2 if n >= TSNE_PARALLEL_FROM else 1


#: openTSNE's iterations per progress report: it evaluates the KL divergence at every
#: callback (a quarter of the time at 10,000 points when every iteration reports), and
#: Cancel kills the layout process, so it stops at once whatever the interval.
TSNE_PROGRESS_EVERY = 10
#: Iterations of openTSNE's ``transform`` that place the points t-SNE was not fitted on.
TSNE_PLACEMENT_ITERATIONS = 250
#: Nearest sample points whose 2D positions place a point UMAP was not fitted on.
PLACEMENT_NEIGHBOURS = 10


@dataclass(frozen=True, eq=False)
class Projection:
    """Coordinates of shape (n, 2), float32, and how they were made."""

    coordinates: np.ndarray
    method: str
    parameters: dict[str, Any] = field(default_factory=dict)
    #: Share of variance along each axis (PCA only).
    explained_variance_ratio: tuple[float, ...] = ()
    #: Points the layout was fitted on when it was a sample (the rest were placed).
    fitted_on: np.ndarray | None = None

    def describe(self) -> str:
        """ "fitted on N of M points" for a caption; empty when fitted on all."""
        if self.fitted_on is None:
            return ""
        return f"fitted on {len(self.fitted_on):,} of {len(self.coordinates):,} points"

    @property
    def axis_labels(self) -> tuple[str, str]:
        names = {"pca": "PC", "umap": "UMAP", "tsne": "t-SNE"}
        return f"{names[self.method]} 1", f"{names[self.method]} 2"


def _reduce(embeddings: Embeddings, dims: int | None, seed: int) -> Embeddings:
    """Linear reduction to ``dims`` before a neighbour-graph method, when it helps.

    Sparse input goes through TruncatedSVD (no centring, so it stays sparse until the
    result); dense input through PCA. Small inputs are left as they are.
    """
    n, width = embeddings.shape
    if not dims or width <= dims or n <= dims:
        return embeddings
    from sklearn.decomposition import PCA, TruncatedSVD  # noqa: PLC0415

    if sp.issparse(embeddings):
        return TruncatedSVD(n_components=dims, random_state=seed).fit_transform(embeddings)
    return PCA(n_components=dims, random_state=seed).fit_transform(embeddings)


def _options(method: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """The method's defaults overridden by ``parameters``; ValueError for an unknown
    method or parameter."""
    if method not in METHODS:
        raise ValueError(f"unknown projection {method!r} (known: {', '.join(METHODS)})")
    unknown = set(parameters) - set(DEFAULTS[method])
    if unknown:
        raise ValueError(f"{method} takes no parameter {', '.join(sorted(unknown))}")
    return {**DEFAULTS[method], **parameters}


def project(
    embeddings: Embeddings,
    method: str = "pca",
    *,
    seed: int = 0,
    strata: np.ndarray | None = None,
    **parameters: Any,
) -> Job[Projection]:
    """Project ``embeddings`` of shape (n, dim) to 2D.

    Parameters
    ----------
    method : "pca", "umap" or "tsne".
    seed : random state of every stochastic step.
    strata : int array of shape (n,), optional
        A group per point (-1: none) that UMAP's sample is stratified by.
    **parameters : the method's options (see ``DEFAULTS``); ``pca_dims`` reduces the
        input linearly first (None to skip), which speeds UMAP and t-SNE on wide data;
        UMAP's and t-SNE's ``sample`` is how many points they are fitted on (the rest
        are placed).
    """
    options = _options(method, parameters)
    record = {"seed": seed, **options}
    n = embeddings.shape[0]
    stage = f"projecting with {method.upper() if method != 'tsne' else 't-SNE'}"
    yield Progress(stage, 0, 3)
    if n < 4:
        return Projection(np.zeros((n, 2), dtype=np.float32), method, record)

    if method == "pca":
        # ARPACK centres sparse input implicitly instead of densifying it.
        from sklearn.decomposition import PCA  # noqa: PLC0415

        solver = "arpack" if sp.issparse(embeddings) else "auto"
        pca = PCA(n_components=2, svd_solver=solver, random_state=seed)
        coordinates = pca.fit_transform(embeddings)
        yield Progress(stage, 3, 3)
        return Projection(
            coordinates.astype(np.float32),
            method,
            record,
            tuple(float(v) for v in pca.explained_variance_ratio_),
        )

    reduced = _reduce(embeddings, options.pop("pca_dims"), seed)
    yield Progress(stage, 1, 3)
    fitted = None
    size = options.pop("sample")
    if size and n > size:
        fitted = stratified_sample(n, size, strata, seed)
        stage += f", fitted on {len(fitted):,} of {n:,} points"
    if method == "umap":
        data = reduced if fitted is None else reduced[fitted]
        coordinates = yield from run_elsewhere(
            _fit_umap, (data, seed, options), stage + " (a first run compiles numba code)"
        )
        coordinates = np.asarray(coordinates, dtype=np.float32)
        if fitted is not None:
            coordinates = yield from place_by_neighbours(reduced, fitted, coordinates)
    else:
        coordinates = yield from run_elsewhere(_fit_tsne, (reduced, fitted, seed, options), stage)
    yield Progress(stage, 3, 3)
    return Projection(coordinates, method, record, fitted_on=fitted)


def stratified_sample(n: int, size: int, strata: np.ndarray | None, seed: int) -> np.ndarray:
    """About ``size`` of ``n`` points drawn with ``seed``, sorted.

    With ``strata`` (a group per point, -1 for none, which is a stratum of its own) each
    stratum keeps its share of the sample, rounded, and at least one point, so a small
    group is in the layout's fit too.
    """
    rng = np.random.default_rng(seed)
    if strata is None:
        return np.sort(rng.choice(n, size, replace=False))
    _, stratum, counts = np.unique(strata, return_inverse=True, return_counts=True)
    quota = np.maximum(1, np.round(counts * (size / n))).astype(np.int64)
    order = np.lexsort((rng.random(n), stratum))  # shuffled within each stratum
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - starts[stratum[order]]
    return np.flatnonzero(rank < quota[stratum])


def _marked(n: int, rows: np.ndarray) -> np.ndarray:
    """A boolean mask of ``n`` with ``rows`` set: ``np.setdiff1d`` of a million rows
    sorts while holding the GIL (~75 ms, a visible stall in the window)."""
    mask = np.zeros(n, dtype=bool)
    mask[rows] = True
    return mask


def place_by_neighbours(
    data: Embeddings, fitted: np.ndarray, layout: np.ndarray, k: int = PLACEMENT_NEIGHBOURS
) -> Job[np.ndarray]:
    """2D positions for every row of ``data`` (n, dim): the ``fitted`` rows keep their
    ``layout`` positions, every other row goes to the mean of the positions of its ``k``
    most cosine-similar fitted rows, weighted by 1 / (1 - cosine) so that a near
    duplicate lands on its twin.

    Sparse rows (bag of words laid out without the reduction) stay sparse and their
    neighbours are found exactly, in blocks of sparse products: densified, the 145,000
    Multi30K captions' rows were a 145,000 x 17,731 float32 matrix (10 GB), and an
    index over 17,731-wide rows holds the sample dense again."""
    n = data.shape[0]
    rest = np.flatnonzero(~_marked(n, fitted))
    coordinates = np.empty((n, 2), dtype=np.float32)
    coordinates[fitted] = layout
    k = min(k, len(fitted))
    if sp.issparse(data):
        unit = normalise(data).matrix
        nearest, similarity = yield from iter_top_k(unit[rest], unit[fitted], k)
    else:
        unit = normalise(np.asarray(data, dtype=np.float32)).matrix
        sample = unit[fitted]
        index = yield from ann.iter_build_index(sample, cache=False)
        nearest, similarity = yield from ann.iter_search_index(index, unit[rest], k, pool=sample)
    weights = 1.0 / np.maximum(1.0 - similarity, 1e-3)
    weights[nearest < 0] = 0.0
    coordinates[rest] = np.einsum(
        "ij,ijd->id", weights, layout[np.maximum(nearest, 0)]
    ) / weights.sum(axis=1, keepdims=True)
    return coordinates


def _fit_umap(data: Embeddings, seed: int, options: dict[str, Any]) -> np.ndarray:
    """UMAP of ``data`` to 2D; runs in :mod:`sentspace.app.analysis.layout_process`."""
    import umap  # noqa: PLC0415 - seconds to import; only in the layout process

    # n_jobs=1: a fixed random_state makes UMAP single-threaded anyway.
    reducer = umap.UMAP(
        n_components=2,
        random_state=seed,
        n_jobs=1,
        n_neighbors=min(options["n_neighbors"], data.shape[0] - 1),
        min_dist=options["min_dist"],
        metric=options["metric"],
    )
    # umap-learn reads scipy's sparse matrices, not its sparse arrays: it took a
    # csr_array (bag of words without the reduction) for dense rows and numba failed.
    return reducer.fit_transform(sp.csr_matrix(data) if sp.issparse(data) else data)


class _Iterations:
    """openTSNE's callback: reports the iterations done in the current stage, every
    :data:`TSNE_PROGRESS_EVERY` (openTSNE counts each of its phases from 1)."""

    def start(self, stage: str, total: int) -> None:
        self.stage, self.total, self.calls = stage, total, itertools.count(1)

    def __call__(self, *_: Any) -> None:
        report(self.stage, min(next(self.calls) * TSNE_PROGRESS_EVERY, self.total), self.total)


def _fit_tsne(
    data: Embeddings, fitted: np.ndarray | None, seed: int, options: dict[str, Any]
) -> np.ndarray:
    """openTSNE's layout of ``data`` (n, dim) as float32 (n, 2): fitted on the rows
    ``fitted`` (None: all) and the rest placed by ``TSNEEmbedding.transform``. Reports
    every :data:`TSNE_PROGRESS_EVERY` iterations
    (:func:`sentspace.app.analysis.layout_process.report`); runs in that process."""
    import openTSNE  # noqa: PLC0415

    # Sparse rows (bag of words without the reduction) go in sparse: openTSNE finds their
    # neighbours with pynndescent instead of Annoy, which holds the rows dense (the
    # 145,000 Multi30K captions': 145,000 x 17,731 float32, 10 GB).
    data = (
        sp.csr_matrix(data, dtype=np.float32)
        if sp.issparse(data)
        else np.asarray(data).astype(np.float32, copy=False)
    )
    train = data if fitted is None else data[fitted]
    iterations = _Iterations()
    # The callback also runs in ``transform``, which inherits the fit's settings.
    tsne = openTSNE.TSNE(
        perplexity=min(options["perplexity"], (train.shape[0] - 1) / 3),
        metric="cosine",
        n_jobs=tsne_threads(train.shape[0]),
        random_state=seed,
        callbacks=iterations,
        callbacks_every_iters=TSNE_PROGRESS_EVERY,
    )
    iterations.start(
        f"t-SNE of {train.shape[0]:,} points: iterations",
        tsne.early_exaggeration_iter + tsne.n_iter,
    )
    embedding = tsne.fit(train)
    if fitted is None:
        return np.asarray(embedding, dtype=np.float32)
    rest = ~_marked(data.shape[0], fitted)
    iterations.start(
        f"placing {rest.sum():,} points on the t-SNE layout", TSNE_PLACEMENT_ITERATIONS
    )
    # ``transform`` centres ``embedding`` in place before placing.
    placed = embedding.transform(data[rest], n_iter=TSNE_PLACEMENT_ITERATIONS)
    coordinates = np.empty((data.shape[0], 2), dtype=np.float32)
    coordinates[fitted], coordinates[rest] = embedding, placed
    return coordinates


def project_aligned(
    first: Embeddings, second: Embeddings, *, seed: int = 0, **parameters: Any
) -> Job[tuple[Projection, Projection]]:
    """UMAP layouts of two embeddings of the same n sentences, fitted together.

    umap-learn's ``AlignedUMAP`` relates sentence i of one space to sentence i of the
    other and penalises moving it between the layouts, so the second layout keeps each
    sentence near its place in the first unless its neighbourhood really differs.

    Parameters
    ----------
    first, second : (n, dim_a) and (n, dim_b) embeddings, dense or sparse.
    seed : random state.
    **parameters : UMAP's options as :func:`project` takes them (``DEFAULTS["umap"]``).
    """
    options = _options("umap", parameters)
    n = first.shape[0]
    if second.shape[0] != n:
        raise ValueError(
            f"the spaces embed different numbers of sentences: {n} and {second.shape[0]}"
        )
    record = {"seed": seed, **options, "alignment": "aligned-umap"}
    stage = "projecting both spaces with AlignedUMAP"
    yield Progress(stage, 0, 3)

    def as_projection(layout: np.ndarray) -> Projection:
        return Projection(np.asarray(layout, dtype=np.float32), "umap", record)

    if n < 4:
        return as_projection(np.zeros((n, 2))), as_projection(np.zeros((n, 2)))
    dims = options.pop("pca_dims")
    reduced = [_reduce(first, dims, seed), _reduce(second, dims, seed)]
    yield Progress(stage, 1, 3)
    layouts = yield from run_elsewhere(
        _fit_aligned_umap, (reduced, seed, options), stage + " (a first run compiles numba code)"
    )
    yield Progress(stage, 3, 3)
    first_layout, second_layout = layouts
    return as_projection(first_layout), as_projection(second_layout)


def _fit_aligned_umap(
    datasets: list[Embeddings], seed: int, options: dict[str, Any]
) -> list[np.ndarray]:
    """AlignedUMAP of two datasets whose rows correspond; runs in
    :mod:`sentspace.app.analysis.layout_process`."""
    import umap  # noqa: PLC0415 - seconds to import; only in the layout process

    n = datasets[0].shape[0]
    # The joint layout is drawn from transform_seed (42 unless given); random_state only
    # reaches the per-space UMAPs whose graphs it joins, and below 4096 points their
    # exact neighbours ignore it. No n_jobs to pass: a random_state makes those UMAPs
    # single-threaded.
    reducer = umap.AlignedUMAP(
        n_components=2,
        random_state=seed,
        transform_seed=seed,
        n_neighbors=min(options["n_neighbors"], n - 1),
        min_dist=options["min_dist"],
        metric=options["metric"],
    )
    reducer.fit(datasets, relations=[{i: i for i in range(n)}])
    return list(reducer.embeddings_)


@dataclass(frozen=True, eq=False)
class Faithfulness:
    """How well a 2D layout keeps each point's neighbours.

    Attributes
    ----------
    k : neighbours compared per point.
    overlap : ndarray of shape (n,)
        Per point, the share of its k nearest neighbours in the original space (cosine)
        that are also among its k nearest in 2D (Euclidean): 1 = the picture is honest
        around this point, 0 = its 2D neighbours are strangers. NaN for points outside
        the measured sample.
    search : how the neighbours in the original space were found.
    measured : int ndarray of the points measured, or None when every point was.
    """

    k: int
    overlap: np.ndarray
    search: Search | None = None
    measured: np.ndarray | None = None

    @property
    def mean_overlap(self) -> float:
        values = self.overlap if self.measured is None else self.overlap[self.measured]
        return float(values.mean()) if len(values) else float("nan")

    @staticmethod
    def share(value: float) -> str:
        """A share of neighbours kept, to 3 significant digits: a UMAP of a million
        points keeps a few thousandths, which two decimals would show as a broken 0.00."""
        return f"{value:.3g}"

    def describe(self) -> str:
        """What the mean is over and how its neighbours were found, for a caption."""
        n = len(self.overlap)
        points = (
            f"all {n:,} points"
            if self.measured is None
            else f"a sample of {len(self.measured):,} of {n:,} points"
        )
        search = f", neighbours {self.search.describe()}" if self.search else ""
        return f"on {points}{search}"


def iter_faithfulness(
    embeddings: Embeddings,
    coordinates: np.ndarray,
    k: int = 10,
    *,
    search: str = "auto",
    sample: int = FAITHFULNESS_SAMPLE,
    limit: int | None = None,
    seed: int = 0,
) -> Job[Faithfulness]:
    """Per-point k-nearest-neighbour overlap between the original space and the layout.

    Up to ``limit`` points (default :data:`sentspace.app.analysis.ann.EXACT_LIMIT`) every point is measured
    with exact neighbours; above it a seeded sample of ``sample`` points is, with
    neighbours found in the whole space by :func:`sentspace.app.analysis.ann.iter_knn` (``search`` as there).
    A job: the k-NN search in the original space (the long part) reports progress after
    each block of queries and cancels between blocks.
    """
    n = embeddings.shape[0]
    limit = ann.EXACT_LIMIT if limit is None else limit
    k = min(k, n - 1)
    if k < 1:
        return Faithfulness(k, np.ones(n))
    stage = "measuring projection faithfulness"
    yield Progress(stage, 0, 2)
    measured = (
        None
        if n <= limit
        else np.sort(np.random.default_rng(seed).choice(n, sample, replace=False))
    )
    points = np.arange(n) if measured is None else measured
    unit = normalise(embeddings)
    queries = unit if measured is None else Normalised(unit.matrix[points], unit.degenerate[points])
    original, _, how = yield from iter_knn(
        queries, unit, k, exclude=points, search=search, limit=limit, seed=seed
    )
    yield Progress(stage, 1, 2)
    # Query k + 1 in 2D and drop the point itself (not always first: duplicates tie).
    from scipy.spatial import cKDTree  # noqa: PLC0415 (~60 ms: not at the GUI's start)

    _, in_layout = cKDTree(coordinates).query(coordinates[points], k + 1)
    not_self = in_layout != points[:, None]
    keep = np.argsort(~not_self, axis=1, kind="stable")[:, :k]
    layout = np.take_along_axis(in_layout, keep, axis=1)
    shared = (original[:, :, None] == layout[:, None, :]).any(axis=2).sum(axis=1)
    overlap = np.full(n, np.nan)
    overlap[points] = shared / k
    return Faithfulness(k, overlap, how, measured)


def faithfulness(
    embeddings: Embeddings, coordinates: np.ndarray, k: int = 10, **options: Any
) -> Faithfulness:
    """:func:`iter_faithfulness` run to the end in this thread."""
    return run_job(iter_faithfulness(embeddings, coordinates, k, **options))


def points_in_polygon(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Indices of ``points`` (n, 2) inside ``polygon`` (m, 2; closed implicitly), by the
    even-odd rule. Vectorised over points, one pass per edge, after a bounding-box cut,
    so a lasso over a million points stays interactive."""
    polygon = np.asarray(polygon, dtype=np.float64)
    if len(polygon) < 3 or len(points) == 0:
        return np.empty(0, dtype=np.int64)
    (x0, y0), (x1, y1) = polygon.min(axis=0), polygon.max(axis=0)
    x, y = points[:, 0], points[:, 1]
    candidates = np.flatnonzero((x >= x0) & (x <= x1) & (y >= y0) & (y <= y1))
    px, py = x[candidates].astype(np.float64), y[candidates].astype(np.float64)
    inside = np.zeros(len(candidates), dtype=bool)
    for (ax, ay), (bx, by) in zip(polygon, np.roll(polygon, -1, axis=0)):
        if ay == by:
            continue  # a horizontal edge never crosses a horizontal ray
        crosses = (ay > py) != (by > py)
        x_cross = ax + (py - ay) * (bx - ax) / (by - ay)
        inside ^= crosses & (px < x_cross)
    return candidates[inside]
