"""A pyqtgraph scatter whose points take their brushes from a short palette.

``ScatterPlotItem`` looks every point's style up in its symbol atlas through Python
tuples made per point (and a brush list per point when brushes are given per point):
25 ms and some 40,000 short-lived containers for 10,000 points, which also set off full
collections of the whole heap. Here the atlas is asked once per palette brush and each
point gets its colour's atlas rectangle (and brush) by indexing arrays.
"""

from __future__ import annotations

import functools

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QBrush


@functools.cache
def brush(colour: str | tuple[int, ...]) -> QBrush:
    """One shared brush per colour: pyqtgraph's atlas keys symbols by the brush object,
    so a brush made anew for every drawing would add a symbol to it each time."""
    return pg.mkBrush(colour)


class PaletteScatter(pg.ScatterPlotItem):
    """Points shown with :meth:`set_coloured` (any other ``setData`` draws as pyqtgraph
    does). Point i's brush is ``palette[codes[i]]``, readable in ``data["brush"]``."""

    _codes = np.empty(0, dtype=np.intp)
    _palette = np.empty(0, dtype=object)

    def set_coloured(
        self,
        x: np.ndarray,
        y: np.ndarray,
        codes: np.ndarray,
        palette: np.ndarray,
        data: np.ndarray,
    ) -> None:
        """Show the points (``x``, ``y``), each in brush ``palette[codes[i]]`` (an object
        array of QBrush) and holding ``data[i]``."""
        self._codes = np.asarray(codes, dtype=np.intp)
        self._palette = palette
        self.setData(x=x, y=y, data=data)

    def updateSpots(self, dataSet=None) -> None:  # pyqtgraph's name, which setData calls
        if dataSet is None:
            dataSet = self.data
        cached = self.opts["pxMode"] and self.opts["useCache"]
        if len(dataSet) != len(self._codes) or not len(dataSet) or not cached:
            super().updateSpots(dataSet)
            return
        dataSet["brush"] = self._palette[self._codes]
        stale = dataSet["sourceRect"]["w"] == 0
        if stale.any():
            styles = [
                (self.opts["symbol"], self.opts["size"], self.opts["pen"], colour)
                for colour in self._palette
            ]
            rectangles = np.array(
                [tuple(r) for r in self.fragmentAtlas[styles]], dtype=dataSet["sourceRect"].dtype
            )
            dataSet["sourceRect"][stale] = rectangles[self._codes[stale]]
            self.invalidate()
        self._updateMaxSpotSizes(data=dataSet)
