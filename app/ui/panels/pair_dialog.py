"""The dialog that edits one pair's gold score and label: it shows what is edited (the
pair's id, its two sentences, its current score and label in words) and takes an
optional reason, which the change log keeps."""

from __future__ import annotations

import html
import math

import numpy as np
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QWidget,
)

from sentspace.app.corpora.model import Corpus
from sentspace.app.ui.kit.reason_form import ReasonForm


def _label_values(corpus: Corpus) -> list[int]:
    """The labels a pair of ``corpus`` may take: its named classes, else the paraphrase
    judgements 0 and 1 when it has any; [] for unlabelled corpora."""
    pairs = corpus.checked_pairs
    if pairs.label_names:
        return list(range(len(pairs.label_names)))
    return [0, 1] if np.any(pairs.label >= 0) else []


class PairEditDialog(QDialog):
    """Edit pair ``pair`` of ``corpus`` (its state now, edits included).

    After ``accepted``, :meth:`changes` gives (score, label, reason) with None for a value
    left as it was.
    """

    def __init__(self, corpus: Corpus, pair: int, parent: QWidget | None = None):
        super().__init__(parent)
        pairs = corpus.checked_pairs
        self.pair = pair
        self._score = float(pairs.score[pair])
        self._label = int(pairs.label[pair])
        self._labels = _label_values(corpus)
        name = pairs.ids[pair] if pairs.ids else ""
        self.setWindowTitle(f"Edit pair {name}" if name else "Edit pair")

        first, second = int(pairs.first[pair]), int(pairs.second[pair])
        current = []
        if not math.isnan(self._score):
            current.append(f"score {self._score:g}")
        if self._labels:
            current.append(f"label {pairs.label_text(self._label)}")
        self.shown = QLabel(
            "".join(
                f"<p><b>{html.escape(corpus.ids[s])}</b>: {html.escape(corpus.texts[s])}</p>"
                for s in (first, second)
            )
            + f"<p>Now: {', '.join(current) or 'no gold value'}</p>"
        )
        self.shown.setWordWrap(True)
        self.shown.setAccessibleName("the pair being edited")

        form = QFormLayout()
        self.score = QDoubleSpinBox()
        self.score.setAccessibleName("new score")
        self.score.setRange(-1e6, 1e6)
        self.score.setDecimals(2)
        self._scored = bool(np.any(~np.isnan(pairs.score)))
        self.score.setValue(0.0 if math.isnan(self._score) else self._score)
        if self._scored:
            form.addRow("Score:", self.score)
        self.label = QComboBox()
        self.label.setAccessibleName("new label")
        self.label.addItems([pairs.label_text(value) for value in self._labels])
        if self._label in self._labels:
            self.label.setCurrentIndex(self._labels.index(self._label))
        if self._labels:
            form.addRow("Label:", self.label)
        self.reason_form = ReasonForm(self)
        self.reason = self.reason_form.reason
        self.buttons = self.reason_form.buttons
        self.reason_form.lay_out(self, self.shown, form)

    def changes(self) -> tuple[float | None, int | None, str]:
        """(new score, new label, reason); None where the value was left unchanged."""
        score = self.score.value() if self._scored else None
        if score == round(self._score, self.score.decimals()):  # shown, not changed
            score = None
        label = self._labels[self.label.currentIndex()] if self._labels else None
        if label == self._label:
            label = None
        return score, label, self.reason.text().strip()
