"""Two embedding spaces of one corpus, side by side: their 2D layouts aligned, and how
much each sentence's neighbourhood changes from one space to the other."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# scipy.linalg is imported in align_layouts: ~40 ms, not at the GUI's start.
from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.neighbours import iter_top_k
from sentspace.app.analysis.projection import Projection, project, project_aligned
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder

#: Neighbours compared per sentence by default.
DEFAULT_K = 10
#: How B's layout is brought into A's frame (see :func:`compare_encoders`).
ALIGNMENTS = ("procrustes", "aligned-umap")


@dataclass(frozen=True, eq=False)
class Alignment:
    """A 2D layout in a reference layout's frame.

    With ``method`` "procrustes" it was moved there by rotation (or reflection), uniform
    scaling and translation: ``coordinates = scale * (moving - moving_mean) @ rotation
    + reference_mean``; with "aligned-umap" it was fitted there (rotation identity,
    scale 1).

    Attributes
    ----------
    coordinates : float32 ndarray of shape (n, 2), the layout in the reference's frame.
    rotation : ndarray of shape (2, 2), orthogonal.
    scale : float
    disparity : float
        Sum of squared distances between the best rotation of the layout and the
        reference layout, both centred and scaled to unit norm: 0 when they match, at
        most 1. The same measure for both methods, so they can be compared.
    method : "procrustes" or "aligned-umap".
    """

    coordinates: np.ndarray
    rotation: np.ndarray
    scale: float
    disparity: float
    method: str = "procrustes"


def align_layouts(reference: np.ndarray, moving: np.ndarray) -> Alignment:
    """Orthogonal Procrustes: the rotation (or reflection) of ``moving`` (n, 2) that best
    matches ``reference`` (n, 2) in the least-squares sense, point i to point i, after
    both are centred; ``moving`` is scaled to the same spread (root of the summed
    squared distances from the centre) and shifted onto the reference's centre.

    Reflections are allowed: a projection's axes have no preferred sign.
    """
    reference = np.asarray(reference, dtype=np.float64)
    moving = np.asarray(moving, dtype=np.float64)
    if reference.shape != moving.shape or reference.ndim != 2:
        raise ValueError(
            f"layouts must have the same (n, 2) shape, got {reference.shape} and {moving.shape}"
        )
    reference_mean, moving_mean = reference.mean(axis=0), moving.mean(axis=0)
    a, b = reference - reference_mean, moving - moving_mean
    norm_a, norm_b = np.linalg.norm(a), np.linalg.norm(b)
    if norm_a == 0 or norm_b == 0:
        # A layout collapsed to one point has no orientation to match.
        return Alignment(
            np.broadcast_to(reference_mean, moving.shape).astype(np.float32),
            np.eye(2),
            0.0,
            0.0 if norm_a == norm_b else 1.0,
        )
    from scipy.linalg import orthogonal_procrustes  # noqa: PLC0415

    rotation, singular_sum = orthogonal_procrustes(b, a)
    # The spreads are matched rather than the least-squares scale taken, which shrinks
    # a poorly matching layout towards its centre and makes it look smaller than A.
    scale = norm_a / norm_b
    coordinates = scale * b @ rotation + reference_mean
    disparity = 1.0 - (singular_sum / (norm_a * norm_b)) ** 2
    return Alignment(
        coordinates.astype(np.float32), rotation, float(scale), float(max(disparity, 0.0))
    )


def layout_disparity(reference: np.ndarray, layout: np.ndarray) -> float:
    """Procrustes disparity between two (n, 2) layouts (see :class:`Alignment`); it does
    not depend on which one is rotated."""
    return align_layouts(reference, layout).disparity


@dataclass(frozen=True, eq=False)
class NeighbourhoodChange:
    """Per sentence, how different its k nearest neighbours (cosine) are in two spaces.

    Attributes
    ----------
    k : neighbours per sentence.
    neighbours_a, neighbours_b : int64 ndarray of shape (n, k)
        Each sentence's nearest other sentences in space A / B, nearest first.
    change : float64 ndarray of shape (n,)
        1 - Jaccard similarity of the two neighbour sets: 0 = the same neighbours,
        1 = none shared.
    """

    k: int
    neighbours_a: np.ndarray
    neighbours_b: np.ndarray
    change: np.ndarray

    @property
    def mean(self) -> float:
        return float(self.change.mean()) if len(self.change) else float("nan")

    def most_changed(self, count: int | None = None) -> np.ndarray:
        """Sentence indices by decreasing change (ties in corpus order)."""
        order = np.argsort(-self.change, kind="stable")
        return order if count is None else order[:count]


def jaccard_change(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """1 - |A & B| / |A | B| of the rows of two (n, k) index arrays of distinct indices."""
    shared = (first[:, :, None] == second[:, None, :]).any(axis=2).sum(axis=1)
    union = first.shape[1] + second.shape[1] - shared
    return 1.0 - shared / np.maximum(union, 1)


def iter_neighbourhood_change(
    embeddings_a: Embeddings, embeddings_b: Embeddings, k: int = DEFAULT_K
) -> Job[NeighbourhoodChange]:
    """Compare every sentence's k nearest neighbours in space A and in space B.

    Parameters
    ----------
    embeddings_a, embeddings_b : (n, dim_a) and (n, dim_b) embeddings of the same n
        sentences, dense or sparse; the widths may differ.
    k : neighbours per sentence, capped at n - 1.
    """
    n = embeddings_a.shape[0]
    if embeddings_b.shape[0] != n:
        raise ValueError(
            f"the spaces embed different numbers of sentences: {n} and {embeddings_b.shape[0]}"
        )
    itself = np.arange(n)
    first, _ = yield from iter_top_k(embeddings_a, embeddings_a, k, exclude=itself)
    second, _ = yield from iter_top_k(embeddings_b, embeddings_b, k, exclude=itself)
    return NeighbourhoodChange(first.shape[1], first, second, jaccard_change(first, second))


@dataclass(frozen=True, eq=False)
class SpaceComparison:
    """Two encoders' views of one corpus.

    Attributes
    ----------
    names : the two encoders' display names (A, B).
    projection_a, projection_b : each space's own 2D projection.
    alignment : B's layout aligned to A's (``alignment.coordinates`` is what to draw).
    change : the per-sentence neighbourhood change from A to B.
    """

    corpus: Corpus
    names: tuple[str, str]
    projection_a: Projection
    projection_b: Projection
    alignment: Alignment
    change: NeighbourhoodChange


def compare_encoders(
    corpus: Corpus,
    encoder_a: Encoder,
    encoder_b: Encoder,
    *,
    method: str = "pca",
    alignment: str = "procrustes",
    seed: int = 0,
    k: int = DEFAULT_K,
    **parameters,
) -> Job[SpaceComparison]:
    """Encode ``corpus`` with both encoders, lay both spaces out in 2D, bring B's layout
    into A's frame and measure each sentence's neighbourhood change.

    Parameters
    ----------
    method : the projection of each space ("pca", "umap", "tsne").
    alignment : "procrustes" projects each space on its own, then rotates and scales
        B's layout onto A's; "aligned-umap" (method "umap" only) fits both UMAP layouts
        together, so B's stays close to A's wherever the neighbourhoods agree.
    seed : random state of the projections.
    k : neighbours compared per sentence.
    **parameters : the projection's options, as :func:`sentspace.app.analysis.projection.project` takes
        them.
    """
    if alignment not in ALIGNMENTS:
        raise ValueError(f"unknown alignment {alignment!r} (known: {', '.join(ALIGNMENTS)})")
    if alignment == "aligned-umap" and method != "umap":
        raise ValueError(
            f"AlignedUMAP fits UMAP layouts: the method must be 'umap', not {method!r}"
        )
    embeddings = []
    for encoder in (encoder_a, encoder_b):
        embeddings.append((yield from encode_corpus(corpus, encoder)))
    if alignment == "procrustes":
        projected = []
        for matrix in embeddings:
            projected.append((yield from project(matrix, method, seed=seed, **parameters)))
        projections = (projected[0], projected[1])
        yield Progress("aligning the layouts", 0, 1)
        aligned = align_layouts(projections[0].coordinates, projections[1].coordinates)
    else:
        projections = yield from project_aligned(*embeddings, seed=seed, **parameters)
        layout = projections[1].coordinates
        aligned = Alignment(
            layout,
            np.eye(2),
            1.0,
            layout_disparity(projections[0].coordinates, layout),
            "aligned-umap",
        )
    change = yield from iter_neighbourhood_change(embeddings[0], embeddings[1], k=k)
    return SpaceComparison(corpus, (encoder_a.name, encoder_b.name), *projections, aligned, change)
