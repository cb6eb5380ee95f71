"""The projection's density image: many points binned at a few screen pixels per bin,
each bin coloured by its most common point colour (or, for a continuous scale, their
mean colour) and shaded by how many points it holds, on a log scale.

Plain numpy over arrays; :class:`~sentspace.app.ui.views.projection_view.ProjectionView`
decides when to bin and keeps what these return.
"""

from __future__ import annotations

import numpy as np

from sentspace.app.ui.charts.base import FILTERED_OUT

#: Up to this many distinct colours, a density bin shows its most common colour; with
#: more (a continuous scale), the mean colour of its points.
DOMINANT_LIMIT = 64
#: Opacity of a bin holding one point; the densest bin is opaque (log scale between).
SPARSE_ALPHA = 0.45
#: Share of bins more or fewer than the plot's size asks that a kept density drawing
#: may have (its bins 2 +- 0.1 pixels wide).
BINS_SLACK = 0.05

__all__ = ["FILTERED_OUT", "bin_points", "cell_colours", "fits", "image"]


def fits(binned: tuple | None, region: tuple, nx: int, ny: int) -> bool:
    """Whether density bins made ``binned`` draw ``region`` at ``nx`` x ``ny`` bins: the
    same region, in as many bins give or take ``BINS_SLACK`` (an axis whose ticks
    widen by a few pixels after a switch does not bin a million points again)."""
    if binned is None or binned[0][0] != region:
        return False
    _, bins_x, bins_y = binned[0]
    return abs(bins_x - nx) <= BINS_SLACK * nx and abs(bins_y - ny) <= BINS_SLACK * ny


def bin_points(
    x: np.ndarray, y: np.ndarray, codes: np.ndarray, region: tuple, nx: int, ny: int
) -> tuple:
    """The bins of points at (``x``, ``y``) with colour ``codes`` over ``region`` (x0, x1,
    y0, y1): ((region, nx, ny), each point's cell, its colour code, points per cell)."""
    x0, x1, y0, y1 = region
    column = np.minimum(((x - x0) * (nx / (x1 - x0))).astype(np.int32), nx - 1)
    row = np.minimum(((y - y0) * (ny / (y1 - y0))).astype(np.int32), ny - 1)
    cell = row * nx + column
    return (region, nx, ny), cell, codes, np.bincount(cell, minlength=nx * ny)


def cell_colours(
    binned: tuple,
    kept: np.ndarray | None,
    palette_rgb: np.ndarray,
    named: np.ndarray,
    tally: tuple | None,
) -> tuple[np.ndarray, np.ndarray, tuple | None]:
    """Points per cell that pass (``kept``; None: all) and each cell's colour, and the
    tally to hand back next time (None for a continuous scale, which keeps none)."""
    (_, nx, ny), cell, codes, _ = binned
    cells, k = nx * ny, len(palette_rgb)
    if k <= DOMINANT_LIMIT:
        return _dominant_colours(binned, kept, cells, palette_rgb, named, tally)
    if kept is not None:
        cell, codes = cell[kept], codes[kept]
    counts = np.bincount(cell, minlength=cells)
    point_rgb = palette_rgb[codes].astype(np.float64)
    sums = np.stack(
        [np.bincount(cell, weights=point_rgb[:, c], minlength=cells) for c in range(3)],
        axis=1,
    )
    return counts, (sums / np.maximum(counts, 1)[:, None]).astype(np.uint8), tally


def image(
    counts: np.ndarray, rgb: np.ndarray, anywhere: np.ndarray, filtered: bool, nx: int, ny: int
) -> np.ndarray:
    """The (ny, nx, 4) RGBA image of the cells: empty cells transparent, and with a
    filter on, cells whose points are all left out faint grey."""
    occupied = counts > 0
    alpha = np.zeros(nx * ny)
    # Log scale: one point must still show next to a bin of thousands.
    alpha[occupied] = SPARSE_ALPHA + (1 - SPARSE_ALPHA) * (
        np.log(counts[occupied]) / max(np.log(counts.max()), 1e-9)
    )
    pixels = np.empty((ny * nx, 4), dtype=np.uint8)
    pixels[:, :3] = rgb
    pixels[:, 3] = alpha * 255
    if filtered:
        pixels[(anywhere > 0) & ~occupied] = FILTERED_OUT
    return pixels.reshape(ny, nx, 4)


def _dominant_colours(
    binned: tuple,
    kept: np.ndarray | None,
    cells: int,
    palette_rgb: np.ndarray,
    named: np.ndarray,
    tally: tuple | None,
) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Passing points per cell and each cell's most common colour. The tally is kept
    with ``binned`` and ``kept``, so a filter change over the same region recounts only
    the points whose passing changed, and recolours only their cells."""
    _, cell, codes, _ = binned
    k = len(palette_rgb)
    if tally is not None and tally[0] is binned and kept is None and tally[1] is None:
        return tally[3], tally[4], tally  # drawn so before (a switch back to this layout)
    if tally is not None and tally[0] is binned and kept is not None and tally[1] is not None:
        changed = np.flatnonzero(kept != tally[1])
        if len(changed) <= len(cell) // 8:
            per_colour, counts, rgb = tally[2], tally[3], tally[4]
            sign = np.where(kept[changed], 1, -1).astype(per_colour.dtype)
            np.add.at(per_colour, cell[changed] * k + codes[changed], sign)
            np.add.at(counts, cell[changed], sign)
            touched = np.zeros(len(counts), dtype=bool)  # np.unique sorts: 5x slower
            touched[cell[changed]] = True
            touched = np.flatnonzero(touched)
            rgb[touched] = _dominant(per_colour.reshape(-1, k)[touched], palette_rgb, named)
            return counts, rgb, (binned, kept, per_colour, counts, rgb)
    if kept is not None:
        cell, codes = cell[kept], codes[kept]
    # int32: half the memory to walk of int64 counts (fewer than 2**31 points).
    per_colour = np.bincount(cell * k + codes, minlength=cells * k).astype(np.int32)
    counts = np.bincount(cell, minlength=cells).astype(np.int32)
    # Only occupied cells need a colour (the rest are transparent): a few percent
    # of the image's cells where the points cluster.
    occupied = np.flatnonzero(counts)
    rgb = np.empty((cells, 3), dtype=np.uint8)
    rgb[:] = palette_rgb[0]  # the colour of a cell of no points, as when it empties
    rgb[occupied] = _dominant(per_colour.reshape(-1, k)[occupied], palette_rgb, named)
    return counts, rgb, (binned, kept, per_colour, counts, rgb)


def _dominant(per_colour: np.ndarray, palette_rgb: np.ndarray, named: np.ndarray) -> np.ndarray:
    """The colour of each row of counts per colour: the most common, a ``named`` colour
    over any number of background ones (ties: the first in the palette)."""
    best = per_colour.argmax(axis=1)
    if len(named) and len(named) < per_colour.shape[1]:
        # The named columns alone (a copy of the rows asked, not of the table).
        counts = per_colour[:, named]
        best_named = counts.argmax(axis=1)
        any_named = np.take_along_axis(counts, best_named[:, None], axis=1)[:, 0] > 0
        best = np.where(any_named, named[best_named], best)
    return palette_rgb[best]
