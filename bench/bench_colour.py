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
  switch costs); "per-point brushes": a brush made per point, as pyqtgraph is often fed;
- gc: the garbage collections of each generation during the switches.

Then points mode, as a corpus of at most 20,000 sentences is always drawn (the full SICK:
``--corpus ../shared/data/sick``; else its first 20,000 points): ``--recolours`` switches
cycling the colourings, each drawn by pyqtgraph's own path (a ``ScatterPlotItem`` given a
brush per point, as the view did before) and by the view's ``PaletteScatter`` (a brush
per palette colour), each in a plot of its own and repainted; per path the median,
fastest and slowest switch (wall and this thread's CPU: the machine is shared), the
garbage collections each generation ran during them and the longest one.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pyqtgraph as pg  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from timing import Collections, best_of  # noqa: E402

from sentspace.app.analysis.columns import sentence_columns  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.app.state.colouring import colour_by, colourings  # noqa: E402
from sentspace.app.ui.kit.palette_scatter import PaletteScatter, brush  # noqa: E402
from sentspace.app.ui.views.projection_view import POINT_LIMIT, ProjectionView  # noqa: E402

COLOURINGS = ("paraphrase_group", "words", "image", "line", "group_size")


def layout(groups: np.ndarray, seed: int = 0) -> np.ndarray:
    """A point per sentence near its group's centre."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=10.0, size=(groups.max() + 1, 2))
    return (centres[groups] + rng.normal(scale=0.6, size=(len(groups), 2))).astype(np.float32)


def paint(view: ProjectionView) -> None:
    view.plot.viewport().repaint()
    QApplication.processEvents()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="multi30k-captions", help="a corpus spec")
    parser.add_argument("--repeat", type=int, default=3, help="timings kept: the best")
    parser.add_argument("--recolours", type=int, default=60, help="switches in points mode")
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
    # The captions' colourings; of another corpus (SICK), its own.
    keys = list(COLOURINGS) if offered.keys() >= set(COLOURINGS) else list(offered)
    groups = (
        corpus.groups.first_group(len(corpus))
        if corpus.groups is not None
        else np.zeros(len(corpus), dtype=np.int64)
    )
    points = layout(groups)
    first = colour_by(offered[keys[0]])
    view.set_points(points, first.colours, str, ("x", "y"), first.legend, first.scale)
    paint(view)
    # Python floats: pyqtgraph compares ranges with float64 limits near 1e307.
    low, high = points.min(axis=0).astype(float), points.max(axis=0).astype(float)
    print(
        f"{'colouring':<18}{'palette':>8}{'zoom':>6}{'colours s':>11}{'switch s':>10}"
        f"{'repaint s':>11}{'ratio':>7}{'per-point brushes s':>21}{'ratio':>7}"
        f"{'gc 0/1/2':>11}"
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
        for key in keys:
            column = offered[key]
            colours = best_of(lambda column=column: colour_by(column), args.repeat)

            def switch(column=column) -> None:
                colouring = colour_by(column)
                view.set_colours(colouring.colours, colouring.legend, colouring.scale)
                paint(view)

            with Collections() as collected:
                switched = best_of(switch, args.repeat)

            def repaint() -> None:
                view.refresh(force=True)
                paint(view)

            repainted = best_of(repaint, args.repeat)
            hexes = colour_by(column).colours[:]
            per_point = best_of(lambda hexes=hexes: [pg.mkBrush(c) for c in hexes], 1)
            palette = len(colour_by(column).colours.palette)
            print(
                f"{key:<18}{palette:>8}{zoom:>6}{colours:>11.3f}{switched:>10.3f}"
                f"{repainted:>11.3f}{switched / repainted:>7.1f}{per_point:>21.3f}"
                f"{switched / per_point:>7.2f}{'/'.join(map(str, collected.counts)):>11}"
            )
    view.close()
    app.processEvents()
    points_mode(points[:POINT_LIMIT], [offered[key] for key in keys], args)
    return 0


def points_mode(points: np.ndarray, columns: list, args) -> None:
    """Recolouring the points drawn as points: pyqtgraph's per-point path against the
    palette scatter, in the same process."""
    n = len(points)
    palettes = [colour_by(column).colours for column in columns]
    plots, items = [], {}
    for name, item in (
        ("pyqtgraph, a brush per point", pg.ScatterPlotItem(size=7, pen=None, pxMode=True)),
        ("PaletteScatter, a brush per colour", PaletteScatter(size=7, pen=None, pxMode=True)),
    ):
        plot = pg.PlotWidget(background="w")
        plot.resize(1000, 700)
        plot.addItem(item)
        plot.show()
        plots.append(plot)
        items[name] = (plot, item)
    x, y = points[:, 0], points[:, 1]
    indices = np.arange(n)

    def per_point(item, colours) -> None:  # ProjectionView's drawing before PaletteScatter
        brushes = np.empty(len(colours.palette), dtype=object)
        brushes[:] = [pg.mkBrush(c) for c in colours.palette]
        item.setData(x=x, y=y, brush=brushes[colours.codes[:n]], data=indices)

    def palette(item, colours) -> None:
        brushes = np.empty(len(colours.palette), dtype=object)
        brushes[:] = [brush(c) for c in colours.palette]
        item.set_coloured(x, y, colours.codes[:n], brushes, indices)

    print(
        f"\npoints mode: {n:,} points, {args.recolours} switches cycling "
        f"{len(palettes)} colourings (ms; gc: collections of generations 0/1/2)"
    )
    print(
        f"{'path':<38}{'median':>8}{'min':>7}{'max':>7}{'cpu med':>9}"
        f"{'gc 0/1/2':>14}{'longest gc':>12}"
    )
    medians = {}
    for (name, (plot, item)), draw in zip(items.items(), (per_point, palette)):
        walls, cpus = [], []
        gc.collect()
        with Collections() as collected:
            for k in range(args.recolours):
                colours = palettes[k % len(palettes)]
                wall, cpu = time.perf_counter(), time.thread_time()
                draw(item, colours)
                plot.viewport().repaint()
                walls.append(time.perf_counter() - wall)
                cpus.append(time.thread_time() - cpu)
        walls_ms, cpu_ms = np.array(walls) * 1000, np.array(cpus) * 1000
        medians[name] = np.median(walls_ms)
        print(
            f"{name:<38}{np.median(walls_ms):>8.1f}{walls_ms.min():>7.1f}{walls_ms.max():>7.1f}"
            f"{np.median(cpu_ms):>9.1f}{'/'.join(map(str, collected.counts)):>14}"
            f"{collected.longest * 1000:>12.1f}"
        )
    first, second = medians.values()
    print(f"ratio of medians: {first / second:.1f}x")
    for plot in plots:
        plot.close()


if __name__ == "__main__":
    raise SystemExit(main())
