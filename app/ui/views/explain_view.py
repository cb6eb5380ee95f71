"""Why two sentences are close: both sentences with their words shaded by contribution.

:class:`ExplainView` shows an :class:`sentspace.app.analysis.explain.PairExplanation`: the cosine and how it
was attributed, each sentence as a row of word chips shaded on a diverging scale (red:
the word makes the sentences closer, blue: further apart, white: nothing), a legend of
the scale, and the top word pairs (exact contributions, or the token alignment of a
transformer). Clicking a word emits :attr:`ExplainView.word_clicked` so the window can
search the corpus for it.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import (
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.explain import EXACT, PairExplanation
from sentspace.app.ui.kit.flow_layout import FlowLayout

#: Ends of the diverging scale (ColorBrewer RdBu): negative, positive.
NEGATIVE_RGB = np.array([33, 102, 172])
POSITIVE_RGB = np.array([178, 24, 43])
WHITE_RGB = np.array([255, 255, 255])
TOP_PAIRS = 10


def diverging_colour(value: float, scale: float) -> str:
    """Hex colour of ``value`` on a white-centred red/blue scale saturating at ``scale``."""
    share = 0.0 if scale <= 0 or not np.isfinite(value) else float(np.clip(value / scale, -1, 1))
    end = POSITIVE_RGB if share >= 0 else NEGATIVE_RGB
    rgb = np.rint(WHITE_RGB + abs(share) * (end - WHITE_RGB)).astype(int)
    return "#{:02x}{:02x}{:02x}".format(*rgb)


class WordChip(QLabel):
    """One word, shaded by its contribution; clicking it emits ``clicked(word)``."""

    clicked = Signal(str)

    def __init__(self, word: str, value: float, scale: float, known: bool) -> None:
        super().__init__(word)
        self.word, self.value = word, value
        colour = diverging_colour(value, scale)
        text_colour = "#ffffff" if scale > 0 and abs(value) / scale > 0.6 else "#000000"
        style = "" if known else "font-style: italic; text-decoration: line-through;"
        self.setStyleSheet(
            f"background: {colour}; color: {text_colour}; padding: 2px 4px;"
            f" border: 1px solid #c0c0c0; {style}"
        )
        self.setToolTip(f"{word}: {value:+.4f}" + ("" if known else " (no vector)"))
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.word)
        super().mousePressEvent(event)


HINT = "Select two sentences and choose Explain similarity."


class ExplainView(QWidget):
    """An explanation of one pair, or a hint when there is none.

    Signals
    -------
    word_clicked(str) : a word chip was clicked (search the corpus for it).
    """

    word_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.explanation: PairExplanation | None = None
        self.heading = QLabel(HINT)
        self.heading.setWordWrap(True)
        self.sentences = [QWidget(), QWidget()]
        self.chips: list[list[WordChip]] = [[], []]
        self.legend = QLabel()
        self.pairs = QTableWidget(0, 3)
        self.pairs.setHorizontalHeaderLabels(["word of A", "word of B", "value"])
        self.pairs.verticalHeader().hide()
        self.pairs.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        for name, sentence in zip("AB", self.sentences):
            layout.addWidget(QLabel(f"<b>{name}</b>"))
            FlowLayout(sentence)  # chips wrap at the panel's width
            layout.addWidget(sentence)
        layout.addWidget(self.legend)
        layout.addWidget(self.pairs, stretch=1)

    def clear(self) -> None:
        """The hint alone: the corpus shown has no pair explained."""
        self.explanation = None
        self.heading.setText(HINT)
        self._set_chips([[], []], 0.0)
        self.legend.clear()
        self.pairs.setRowCount(0)

    def _set_chips(self, sides: Iterable[Iterable[tuple[str, float, bool]]], scale: float) -> None:
        """Word chips for each side: (tokens, values, known) each."""
        for side, words in enumerate(sides):
            flow = self.sentences[side].layout()
            assert flow is not None  # each sentence has its FlowLayout from __init__
            for chip in self.chips[side]:
                flow.removeWidget(chip)
                chip.deleteLater()
            self.chips[side] = []
            for token, value, has_vector in words:
                chip = WordChip(token, value, scale, has_vector)
                chip.clicked.connect(self.word_clicked)
                flow.addWidget(chip)
                self.chips[side].append(chip)

    def set_explanation(self, explanation: PairExplanation | None) -> None:
        if explanation is None:
            self.clear()
            return
        self.explanation = explanation
        contributions = (explanation.contribution_a, explanation.contribution_b)
        finite = np.concatenate(contributions)
        finite = finite[np.isfinite(finite)]
        scale = float(np.abs(finite).max()) if finite.size else 0.0
        provenance = explanation.provenance
        meaning = (
            "contributions sum to the cosine"
            if explanation.method == EXACT
            else "cosine lost when the word is removed"
        )
        self.heading.setText(
            f"cosine <b>{explanation.cosine:.4f}</b> by "
            f"{provenance.encoder_name} ({explanation.method}; {meaning})"
        )
        self._set_chips(
            [
                zip(tokens, values.tolist(), known.tolist())
                for tokens, values, known in (
                    (explanation.tokens_a, explanation.contribution_a, explanation.known_a),
                    (explanation.tokens_b, explanation.contribution_b, explanation.known_b),
                )
            ],
            scale,
        )
        self.legend.setText(
            f"<span style='background:{diverging_colour(-scale, scale)}'>&nbsp;"
            f"{-scale:+.3f}&nbsp;</span> further apart &nbsp; "
            f"<span style='background:#ffffff'>&nbsp;0&nbsp;</span> &nbsp; closer "
            f"<span style='background:{diverging_colour(scale, scale)};color:#ffffff'>"
            f"&nbsp;{scale:+.3f}&nbsp;</span>"
        )
        pairs = explanation.top_pairs(TOP_PAIRS)
        self.pairs.setHorizontalHeaderItem(2, QTableWidgetItem(explanation.pair_label))
        self.pairs.setRowCount(len(pairs))
        for row, (a, b, value) in enumerate(pairs):
            for column, text in enumerate((a, b, f"{value:+.4f}")):
                self.pairs.setItem(row, column, QTableWidgetItem(text))
        self.pairs.resizeColumnsToContents()
