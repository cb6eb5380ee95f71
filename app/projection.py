"""2D projections of embeddings for the scatter views."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.decomposition import PCA

from app.jobs import Job, Progress
from models.base import Embeddings

METHODS = ("pca",)


@dataclass(frozen=True, eq=False)
class Projection:
    """Coordinates of shape (n, 2), float32, and how they were made."""

    coordinates: np.ndarray
    method: str
    parameters: dict[str, Any] = field(default_factory=dict)
    #: Share of variance along each axis (PCA only).
    explained_variance_ratio: tuple[float, ...] = ()


def project(embeddings: Embeddings, method: str = "pca", *, seed: int = 0) -> Job[Projection]:
    """Project ``embeddings`` of shape (n, dim) to 2D; sparse input stays sparse."""
    if method not in METHODS:
        raise ValueError(f"unknown projection {method!r} (known: {', '.join(METHODS)})")
    n = embeddings.shape[0]
    yield Progress("projecting with PCA", 0, n)
    if n < 3:
        coordinates = np.zeros((n, 2), dtype=np.float32)
        return Projection(coordinates, method, {"seed": seed})
    # ARPACK centres sparse input implicitly instead of densifying it.
    solver = "arpack" if sp.issparse(embeddings) else "auto"
    pca = PCA(n_components=2, svd_solver=solver, random_state=seed)
    coordinates = pca.fit_transform(embeddings).astype(np.float32)
    yield Progress("projecting with PCA", n, n)
    return Projection(coordinates, method, {"seed": seed, "svd_solver": solver},
                      tuple(float(v) for v in pca.explained_variance_ratio_))
