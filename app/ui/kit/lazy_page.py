"""A page whose widget is built when it is first shown or asked for."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget


class LazyPage(QWidget):
    """Holds the widget ``build()`` makes, built on the page's first show or the first
    read of :attr:`widget`, whichever comes first.

    The window's hidden tabs (Costra orderings, Compare encoders, Corpus) hold five
    plots and a table between them; building them up front held the first appearance of
    the window back by about 75 ms.
    """

    def __init__(self, build: Callable[[], QWidget], parent: QWidget | None = None):
        super().__init__(parent)
        self._build = build
        self._widget: QWidget | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    @property
    def is_built(self) -> bool:
        return self._widget is not None

    @property
    def widget(self) -> QWidget:
        if self._widget is None:
            self._widget = self._build()
            self._layout.addWidget(self._widget)
        return self._widget

    def showEvent(self, event: QShowEvent) -> None:
        self.widget  # noqa: B018 - built on first show
        super().showEvent(event)
