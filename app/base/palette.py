"""Colours for categorical data (paraphrase groups, labels) and per-point numbers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Tableau 20 without its two greys (grey is "none" and "other"), reordered so
# neighbouring group numbers get contrasting hues.
CATEGORICAL = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#bcbd22",
    "#17becf",
    "#aec7e8",
    "#ffbb78",
    "#98df8a",
    "#ff9896",
    "#c5b0d5",
    "#c49c94",
    "#f7b6d2",
    "#dbdb8d",
    "#9edae5",
)
UNGROUPED = "#b0b0b0"
MISCLASSIFIED = "#d00000"
#: Rings of a classification of another version of the corpus.
STALE = "#8a8a8a"
SELECTED = "#000000"
#: Categories past those a legend names, all in this one warm grey (the cool grey
#: ``UNGROUPED`` is "none").
OTHER = "#c8bfb0"
FOUND = "#ff8c00"


@dataclass(frozen=True, eq=False)
class PointColours:
    """A colour per point, as an index into a short palette of hex colours.

    Views draw one brush per palette entry; a million points cost one integer array
    rather than a million strings to build and sort on the GUI thread.
    """

    codes: np.ndarray
    palette: tuple[str, ...]

    @classmethod
    def uniform(cls, n: int, colour: str) -> PointColours:
        return cls(np.zeros(n, dtype=np.int32), (colour,))

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, index) -> np.ndarray | str:
        """The hex colour of a point, or an array of them for several."""
        return np.asarray(self.palette, dtype=object)[self.codes[index]]

    def __iter__(self):
        return iter(self[:])

    def where(self, points: np.ndarray, colour: str) -> PointColours:
        """A copy with ``points`` (indices or a mask) in ``colour``."""
        palette = self.palette if colour in self.palette else (*self.palette, colour)
        codes = self.codes.copy()
        codes[points] = palette.index(colour)
        return PointColours(codes, palette)


def category_colours(labels: np.ndarray) -> PointColours:
    """A colour per item: label k gets CATEGORICAL[k % 20]; -1 (none) is grey."""
    labels = np.asarray(labels)
    codes = np.where(labels < 0, len(CATEGORICAL), labels % len(CATEGORICAL))
    return PointColours(codes.astype(np.int32), CATEGORICAL + (UNGROUPED,))


#: Ten steps of viridis, dark (low) to yellow (high), for per-point scores in [0, 1].
SEQUENTIAL = (
    "#440154",
    "#482878",
    "#3e4989",
    "#31688e",
    "#26828e",
    "#1f9e89",
    "#35b779",
    "#6ece58",
    "#b5de2b",
    "#fde725",
)


def sequential_colours(values: np.ndarray) -> PointColours:
    """A colour per value in [0, 1], binned into the ten SEQUENTIAL steps."""
    steps = np.clip((np.asarray(values) * len(SEQUENTIAL)).astype(int), 0, len(SEQUENTIAL) - 1)
    return PointColours(steps.astype(np.int32), SEQUENTIAL)


#: Steps of the continuous scale that numbers are drawn on: few enough for one brush
#: each and for a density bin's most common colour.
SCALE_STEPS = 48


def scale_palette(steps: int = SCALE_STEPS) -> tuple[str, ...]:
    """``steps`` colours of viridis, low to high, interpolated between SEQUENTIAL's ten
    (as the web map's colour scale is)."""
    anchors = np.array([[int(c[k : k + 2], 16) for k in (1, 3, 5)] for c in SEQUENTIAL], float)
    at = np.linspace(0, len(anchors) - 1, steps)
    rgb = np.stack(
        [np.interp(at, np.arange(len(anchors)), anchors[:, c]) for c in range(3)], axis=1
    )
    return tuple("#" + "".join(f"{c:02x}" for c in row) for row in np.rint(rgb).astype(int))


@dataclass(frozen=True)
class ColourScale:
    """How a colouring by numbers reads: ``palette`` spans ``low`` to ``high`` (values
    beyond are drawn in the end colours), ``missing`` points have no value (grey)."""

    title: str
    low: float
    high: float
    palette: tuple[str, ...]
    missing: int = 0
    #: The values' own range, when the scale leaves out their extremes.
    extent: tuple[float, float] | None = None


def number_colours(
    values: np.ndarray, title: str, clip: float = 1.0
) -> tuple[PointColours, ColourScale]:
    """A colour per value on the viridis scale and the scale; NaN grey. The scale spans
    the values, or the ``clip`` to 100 - ``clip`` percentiles where those cover less
    than half of them: a few outliers (an 80-word caption among 12-word ones) then do
    not squeeze every other point into one end."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    palette = scale_palette()
    if not finite.any():
        scale = ColourScale(title, 0.0, 0.0, palette, len(values))
        return PointColours.uniform(len(values), UNGROUPED), scale
    low, high = (
        float(v) for v in np.percentile(values[finite], [clip, 100 - clip], method="nearest")
    )
    least, most = float(values[finite].min()), float(values[finite].max())
    if high - low >= (most - least) / 2:
        low, high = least, most
    steps = np.zeros(len(values), dtype=np.int32)
    if high > low:
        position = (np.clip(values[finite], low, high) - low) * (len(palette) / (high - low))
        steps[finite] = np.minimum(position.astype(np.int32), len(palette) - 1)
    codes = np.where(finite, steps, len(palette)).astype(np.int32)
    extent = (least, most) if (least, most) != (low, high) else None
    return (
        PointColours(codes, (*palette, UNGROUPED)),
        ColourScale(title, low, high, palette, int(np.count_nonzero(~finite)), extent),
    )
