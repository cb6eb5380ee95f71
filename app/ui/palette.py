"""Colours for categorical data (paraphrase groups, labels)."""

from __future__ import annotations

import numpy as np

# Tableau 20, reordered so neighbouring group numbers get contrasting hues.
CATEGORICAL = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94",
    "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
)
UNGROUPED = "#b0b0b0"
MISCLASSIFIED = "#d00000"
SELECTED = "#000000"
FOUND = "#ff8c00"


def category_colours(labels: np.ndarray) -> np.ndarray:
    """A hex colour per item: label k gets CATEGORICAL[k % 20]; -1 (none) is grey."""
    palette = np.asarray(CATEGORICAL + (UNGROUPED,), dtype=object)
    index = np.where(labels < 0, len(CATEGORICAL), labels % len(CATEGORICAL))
    return palette[index]

#: Ten steps of viridis, dark (low) to yellow (high), for per-point scores in [0, 1].
SEQUENTIAL = ("#440154", "#482878", "#3e4989", "#31688e", "#26828e", "#1f9e89",
              "#35b779", "#6ece58", "#b5de2b", "#fde725")


def sequential_colours(values: np.ndarray) -> np.ndarray:
    """A hex colour per value in [0, 1], binned into the ten SEQUENTIAL steps."""
    steps = np.clip((np.asarray(values) * len(SEQUENTIAL)).astype(int), 0, len(SEQUENTIAL) - 1)
    return np.asarray(SEQUENTIAL, dtype=object)[steps]
