"""Figures to files: a chart as PNG or SVG, written whole or not at all, and a failed
save said in a dialog."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsView, QMessageBox, QWidget

from sentspace.app.base.atomic import atomic_path


def save_svg(widget: QWidget, path: str | Path, title: str = "") -> None:
    """Paint ``widget`` as vectors into an SVG file.

    pyqtgraph's SVGExporter fails on Qt 6.8+ path syntax (pyqtgraph issue 3485); Qt's own
    generator paints the same scene.
    """
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    _paint_svg(generator, widget, title)


def _title_height(widget: QWidget, title: str) -> int:
    """The band above a saved chart that names it (what, whose, of which corpus): a
    file away from the window said none of it."""
    return QFontMetrics(widget.font()).height() + 12 if title else 0


def _paint_title(painter: QPainter, widget: QWidget, title: str, width: int) -> None:
    painter.setFont(widget.font())
    painter.setPen(QColor("black"))
    painter.drawText(
        QRect(6, 0, width - 12, _title_height(widget, title)),
        Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
        title,
    )


def _paint_svg(generator: QSvgGenerator, widget: QWidget, title: str) -> None:
    band = _title_height(widget, title)
    generator.setSize(QSize(widget.width(), widget.height() + band))
    generator.setViewBox(QRect(0, 0, widget.width(), widget.height() + band))
    generator.setTitle(title)
    painter = QPainter(generator)
    if title:
        _paint_title(painter, widget, title, widget.width())
    if isinstance(widget, QGraphicsView):  # renders its scene into a target rectangle
        widget.render(painter, QRectF(0, band, widget.width(), widget.height()))
    else:
        widget.render(painter, QPoint(0, band))
    painter.end()


def chart_bytes(chart: QGraphicsView, svg: bool, title: str = "") -> bytes:
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
        if title:
            band = _title_height(chart, title)
            titled = QImage(image.width(), image.height() + band, QImage.Format.Format_ARGB32)
            titled.fill(QColor("white"))
            painter = QPainter(titled)
            _paint_title(painter, chart, title, image.width())
            painter.drawImage(0, band, image)
            painter.end()
            image = titled
        if not image.save(buffer, "PNG"):
            raise OSError("the chart could not be drawn as PNG")
    # bytes() for the stubs, which give data() as bytes, bytearray or memoryview: PySide6
    # returns bytes, which bytes() returns as it is.
    return bytes(QByteArray(buffer.data()).data())


def save_chart(chart: QGraphicsView, path: str | Path, title: str = "") -> Path:
    """Write ``chart`` to ``path``, SVG by its extension, else PNG, atomically; raises
    OSError (naming the file where the system does) when it cannot be written."""
    path = Path(path)
    data = chart_bytes(chart, path.suffix.lower() == ".svg", title)
    with atomic_path(path) as temporary:
        temporary.write_bytes(data)
    return path


def save_chart_or_say(
    parent: QWidget, chart: QGraphicsView, path: str | Path, title: str = ""
) -> bool:
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
