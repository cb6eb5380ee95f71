"""2D projections of embeddings (PCA, UMAP, t-SNE) and how faithful they are.

UMAP and t-SNE (and scikit-learn, whose import pulls scipy.stats and pandas, about
1 s, and scipy.spatial) are imported lazily: ``import umap`` alone takes seconds and its first
fit compiles with numba, so they load only inside a job, off the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from app.jobs import Job, Progress, run_job
from app.layout_process import run_elsewhere
from app.neighbours import iter_top_k
from models.base import Embeddings

METHODS = ("pca", "umap", "tsne")
#: Defaults of each method's parameters; the UI offers exactly these.
DEFAULTS: dict[str, dict[str, Any]] = {
    "pca": {},
    "umap": {"n_neighbors": 15, "min_dist": 0.1, "metric": "cosine", "pca_dims": 50},
    "tsne": {"perplexity": 30.0, "pca_dims": 50},
}


@dataclass(frozen=True, eq=False)
class Projection:
    """Coordinates of shape (n, 2), float32, and how they were made."""

    coordinates: np.ndarray
    method: str
    parameters: dict[str, Any] = field(default_factory=dict)
    #: Share of variance along each axis (PCA only).
    explained_variance_ratio: tuple[float, ...] = ()

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


def project(embeddings: Embeddings, method: str = "pca", *, seed: int = 0,
            **parameters: Any) -> Job[Projection]:
    """Project ``embeddings`` of shape (n, dim) to 2D.

    Parameters
    ----------
    method : "pca", "umap" or "tsne".
    seed : random state of every stochastic step.
    **parameters : the method's options (see ``DEFAULTS``); ``pca_dims`` reduces the
        input linearly first (None to skip), which speeds UMAP and t-SNE on wide data.
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
        return Projection(coordinates.astype(np.float32), method, record,
                          tuple(float(v) for v in pca.explained_variance_ratio_))

    reduced = _reduce(embeddings, options.pop("pca_dims"), seed)
    yield Progress(stage, 1, 3)
    if method == "umap":
        stage += " (a first run compiles numba code)"
    coordinates = yield from run_elsewhere(_fit_layout, (method, reduced, seed, options),
                                           stage)
    yield Progress(stage, 3, 3)
    return Projection(np.asarray(coordinates, dtype=np.float32), method, record)


def _fit_layout(method: str, data: Embeddings, seed: int, options: dict[str, Any]
                ) -> np.ndarray:
    """UMAP or t-SNE of ``data`` to 2D; runs in :mod:`app.layout_process`."""
    n = data.shape[0]
    if method == "umap":
        import umap  # noqa: PLC0415 - seconds to import; only in the layout process

        # n_jobs=1: a fixed random_state makes UMAP single-threaded anyway.
        reducer = umap.UMAP(n_components=2, random_state=seed, n_jobs=1,
                            n_neighbors=min(options["n_neighbors"], n - 1),
                            min_dist=options["min_dist"], metric=options["metric"])
        return reducer.fit_transform(data)
    from sklearn.manifold import TSNE  # noqa: PLC0415

    dense = data.toarray() if sp.issparse(data) else np.asarray(data)
    tsne = TSNE(n_components=2, random_state=seed, init="pca",
                perplexity=min(options["perplexity"], (n - 1) / 3))
    return tsne.fit_transform(dense.astype(np.float32))


def project_aligned(first: Embeddings, second: Embeddings, *, seed: int = 0,
                    **parameters: Any) -> Job[tuple[Projection, Projection]]:
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
        raise ValueError(f"the spaces embed different numbers of sentences: {n} and "
                         f"{second.shape[0]}")
    record = {"seed": seed, **options, "alignment": "aligned-umap"}
    stage = "projecting both spaces with AlignedUMAP"
    yield Progress(stage, 0, 3)
    if n < 4:
        return tuple(Projection(np.zeros((n, 2), dtype=np.float32), "umap", record)
                     for _ in range(2))
    dims = options.pop("pca_dims")
    reduced = [_reduce(first, dims, seed), _reduce(second, dims, seed)]
    yield Progress(stage, 1, 3)
    layouts = yield from run_elsewhere(_fit_aligned_umap, (reduced, seed, options),
                                       stage + " (a first run compiles numba code)")
    yield Progress(stage, 3, 3)
    return tuple(Projection(np.asarray(layout, dtype=np.float32), "umap", record)
                 for layout in layouts)


def _fit_aligned_umap(datasets: list[Embeddings], seed: int, options: dict[str, Any]
                      ) -> list[np.ndarray]:
    """AlignedUMAP of two datasets whose rows correspond; runs in
    :mod:`app.layout_process`."""
    import umap  # noqa: PLC0415 - seconds to import; only in the layout process

    n = datasets[0].shape[0]
    # The joint layout is drawn from transform_seed (42 unless given); random_state only
    # reaches the per-space UMAPs whose graphs it joins, and below 4096 points their
    # exact neighbours ignore it. No n_jobs to pass: a random_state makes those UMAPs
    # single-threaded.
    reducer = umap.AlignedUMAP(n_components=2, random_state=seed, transform_seed=seed,
                               n_neighbors=min(options["n_neighbors"], n - 1),
                               min_dist=options["min_dist"], metric=options["metric"])
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
        around this point, 0 = its 2D neighbours are strangers.
    """

    k: int
    overlap: np.ndarray

    @property
    def mean_overlap(self) -> float:
        return float(self.overlap.mean()) if len(self.overlap) else float("nan")


def iter_faithfulness(embeddings: Embeddings, coordinates: np.ndarray, k: int = 10
                      ) -> Job[Faithfulness]:
    """Per-point k-nearest-neighbour overlap between the original space and the layout.

    A job: the exact k-NN search in the original space (the long part) reports progress
    after each block of queries (:func:`app.neighbours.iter_top_k`) and cancels between
    blocks.
    """
    n = embeddings.shape[0]
    k = min(k, n - 1)
    if k < 1:
        return Faithfulness(k, np.ones(n))
    stage = "measuring projection faithfulness"
    yield Progress(stage, 0, 2)
    original, _ = yield from iter_top_k(embeddings, embeddings, k, exclude=np.arange(n))
    yield Progress(stage, 1, 2)
    # Query k + 1 in 2D and drop the point itself (not always first: duplicates tie).
    from scipy.spatial import cKDTree  # noqa: PLC0415 (~60 ms: not at the GUI's start)
    _, in_layout = cKDTree(coordinates).query(coordinates, k + 1)
    not_self = in_layout != np.arange(n)[:, None]
    keep = np.argsort(~not_self, axis=1, kind="stable")[:, :k]
    layout = np.take_along_axis(in_layout, keep, axis=1)
    shared = (original[:, :, None] == layout[:, None, :]).any(axis=2).sum(axis=1)
    return Faithfulness(k, shared / k)


def faithfulness(embeddings: Embeddings, coordinates: np.ndarray, k: int = 10) -> Faithfulness:
    """:func:`iter_faithfulness` run to the end in this thread."""
    return run_job(iter_faithfulness(embeddings, coordinates, k))


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
