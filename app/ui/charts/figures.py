"""Figures to files: a chart as PNG or SVG, written whole or not at all, and a failed
save said in a dialog."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QMessageBox, QWidget

from sentspace.app.base.atomic import atomic_path


def save_svg(widget: QWidget, path: str | Path, title: str = "") -> None:
    """Paint ``widget`` as vectors into an SVG file.

    pyqtgraph's SVGExporter fails on Qt 6.8+ path syntax (pyqtgraph issue 3485); Qt's own
    generator paints the same scene.
    """
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    _paint_svg(generator, widget, title)


def _paint_svg(generator: QSvgGenerator, widget: QWidget, title: str) -> None:
    generator.setSize(widget.size())
    generator.setViewBox(QRect(0, 0, widget.width(), widget.height()))
    generator.setTitle(title)
    painter = QPainter(generator)
    widget.render(painter)
    painter.end()


def chart_bytes(chart, svg: bool, title: str = "") -> bytes:
    """A chart (a pyqtgraph ``GraphicsView``) as the bytes of an SVG or PNG file."""
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if svg:
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        _paint_svg(generator, chart, title)
    else:
        # Lazy: only saving a figure needs the exporters (tests/test_lazy_imports.py).
        from pyqtgraph.exporters import ImageExporter  # noqa: PLC0415

        image = ImageExporter(chart.scene()).export(toBytes=True)
        if not image.save(buffer, "PNG"):
            raise OSError("the chart could not be drawn as PNG")
    return QByteArray(buffer.data()).data()


def save_chart(chart, path: str | Path, title: str = "") -> Path:
    """Write ``chart`` to ``path``, SVG by its extension, else PNG, atomically; raises
    OSError (naming the file where the system does) when it cannot be written."""
    path = Path(path)
    data = chart_bytes(chart, path.suffix.lower() == ".svg", title)
    with atomic_path(path) as temporary:
        temporary.write_bytes(data)
    return path


def save_chart_or_say(parent: QWidget, chart, path: str | Path, title: str = "") -> bool:
    """:func:`save_chart`, with a dialog over ``parent`` saying why when it fails."""
    try:
        save_chart(chart, path, title)
    except OSError as error:
        reason = error.strerror or str(error)
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "The chart is not saved",
            f"{path} could not be written: {reason}.",
            QMessageBox.StandardButton.Ok,
            parent,
        )
        box.setObjectName("error-dialog")
        box.open()
        return False
    return True
