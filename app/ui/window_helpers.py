"""Small helpers the main window's parts share."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QComboBox

from app.corpora.model import Corpus
from models import ENCODERS


def first_groups(corpus: Corpus) -> np.ndarray:
    """Each sentence's first group, -1 for none (every sentence when ungrouped)."""
    if corpus.groups is None:
        return np.full(len(corpus), -1, dtype=np.int64)
    return corpus.groups.first_group(len(corpus))


#: How Selected sentences says where a selection came from.
SOURCES = {"chart": "behind the chart element; ", "review": "of the review row; ",
           "costra": "of the Costra comparison; ", "search": "matching the search; ",
           "cluster": "of the clicked region; "}

EXPORT_FILTERS = ("NumPy array + JSON sidecar (*.npy);;Parquet (*.parquet);;"
                  "Embedding Projector pair (vectors.tsv)")


def narrow_choice(choice: QComboBox, length: int = 14) -> None:
    """Long titles (file names of precomputed embeddings) must not widen a panel."""
    choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    choice.setMinimumContentsLength(length)


def fill_encoder_choice(choice: QComboBox) -> None:
    """Every registered encoder; those whose optional packages are missing are listed,
    greyed out, with the command that installs them."""
    for family, cls in ENCODERS.items():
        choice.addItem(f"{cls.title} ({family})", family)
        available = getattr(cls, "available", None)
        if available is not None and not available():
            item = choice.model().item(choice.count() - 1)
            item.setEnabled(False)
            item.setToolTip(f"not installed: {cls.install_hint}")
