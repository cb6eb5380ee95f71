"""Switching *Colour by* on the 145,000 Multi30K captions, against references in the
same process.

    .venv/bin/python bench/bench_colour.py [--corpus multi30k-captions] [--repeat 3]

Runs offscreen unless QT_QPA_PLATFORM is set. The columns are the corpus's own
(``sentence_columns``: its 29,000 groups, words, the images, ...), computed once, as
the window keeps them; the layout is a mixture of Gaussians, one per group (the colours,
not the layout, are measured). Per colouring and zoom (1: all points in view, drawn as
the density image; 64: a few thousand, drawn as points):

- colours: ``colour_by`` (the point colours, the top-10 legend or the scale), once per
  column as the window makes it (then kept);
- switch: ``colour_by`` + ``ProjectionView.set_colours`` + a synchronous repaint, what a
  change of *Colour by* costs;
- reference "repaint": the same view redrawn with its colours unchanged (the least any
  switch costs); "per-point brushes": a brush made per point, as pyqtgraph is often fed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pyqtgraph as pg  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from sentspace.app.colouring import colour_by, colourings  # noqa: E402
from sentspace.app.columns import sentence_columns  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.app.ui.views.projection_view import ProjectionView  # noqa: E402

COLOURINGS = ("paraphrase_group", "words", "image", "line", "group_size")


def layout(groups: np.ndarray, seed: int = 0) -> np.ndarray:
    """A point per sentence near its group's centre."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=10.0, size=(groups.max() + 1, 2))
    return (centres[groups] + rng.normal(scale=0.6, size=(len(groups), 2))).astype(np.float32)


def paint(view: ProjectionView) -> None:
    view.plot.viewport().repaint()
    QApplication.processEvents()


def best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="multi30k-captions")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv)
    corpus = load_corpus(args.corpus)
    start = time.perf_counter()
    offered = colourings(sentence_columns(corpus))
    print(
        f"{args.corpus}: {len(corpus):,} sentences; columns made once in "
        f"{time.perf_counter() - start:.2f} s: {', '.join(offered)}"
    )
    view = ProjectionView()
    view.resize(1000, 700)
    view.show()
    points = layout(corpus.groups.first_group(len(corpus)))
    first = colour_by(offered[COLOURINGS[0]])
    view.set_points(points, first.colours, str, ("x", "y"), first.legend, first.scale)
    paint(view)
    # Python floats: pyqtgraph compares ranges with float64 limits near 1e307.
    low, high = points.min(axis=0).astype(float), points.max(axis=0).astype(float)
    print(
        f"{'colouring':<18}{'palette':>8}{'zoom':>6}{'colours s':>11}{'switch s':>10}"
        f"{'repaint s':>11}{'ratio':>7}{'per-point brushes s':>21}{'ratio':>7}"
    )
    for zoom in (1, 64):
        half = (high - low) / (2 * zoom)
        centre = points[0].astype(float) if zoom > 1 else (low + high) / 2
        view.view_box.setRange(
            xRange=(centre[0] - half[0], centre[0] + half[0]),
            yRange=(centre[1] - half[1], centre[1] + half[1]),
            padding=0,
        )
        view.refresh(force=True)
        paint(view)
        for key in COLOURINGS:
            column = offered[key]
            colours = best(lambda column=column: colour_by(column), args.repeat)

            def switch(column=column) -> None:
                colouring = colour_by(column)
                view.set_colours(colouring.colours, colouring.legend, colouring.scale)
                paint(view)

            switched = best(switch, args.repeat)

            def repaint() -> None:
                view.refresh(force=True)
                paint(view)

            repainted = best(repaint, args.repeat)
            hexes = colour_by(column).colours[:]
            per_point = best(lambda hexes=hexes: [pg.mkBrush(c) for c in hexes], 1)
            palette = len(colour_by(column).colours.palette)
            print(
                f"{key:<18}{palette:>8}{zoom:>6}{colours:>11.3f}{switched:>10.3f}"
                f"{repainted:>11.3f}{switched / repainted:>7.1f}{per_point:>21.3f}"
                f"{switched / per_point:>7.2f}"
            )
    view.close()
    app.processEvents()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
