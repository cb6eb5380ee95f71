"""Small helpers for the window's combo boxes."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox

from models import ENCODERS


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
