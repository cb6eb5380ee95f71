"""Figures to files."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRect
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QWidget


def save_svg(widget: QWidget, path: str | Path, title: str = "") -> None:
    """Paint ``widget`` as vectors into an SVG file.

    pyqtgraph's SVGExporter fails on Qt 6.8+ path syntax (pyqtgraph issue 3485); Qt's own
    generator paints the same scene.
    """
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(widget.size())
    generator.setViewBox(QRect(0, 0, widget.width(), widget.height()))
    generator.setTitle(title)
    painter = QPainter(generator)
    widget.render(painter)
    painter.end()
