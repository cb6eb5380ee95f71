"""Scatter speed: ProjectionView (density image when zoomed out, visible points when
zoomed in) against a plain pyqtgraph ScatterPlotItem holding every point, same run.

    .venv/bin/python bench/bench_scatter.py [--sizes 100000 1000000] [--frames 5]

Runs offscreen unless QT_QPA_PLATFORM is set (under xvfb-run: QT_QPA_PLATFORM=xcb).
The points are a mixture of 300 Gaussian clusters coloured by cluster, as a projection
of a grouped corpus looks. Measured, per size:

- load: from handing over the arrays to the first frame painted (ProjectionView:
  ``set_points``, which also builds the hover k-d tree; plain: ``setData`` with one
  brush per point);
- frame: one pan step at each zoom level (zoom 1 = all points in view, zoom z = 1/z of
  the width and height, centred on the densest cluster): move the range, redraw for it
  (ProjectionView's refresh runs on every frame here, the worst case), and repaint the
  plot synchronously; the view redraws only when the view leaves what it drew;
- redraw: ProjectionView's forced recomputation for that zoom (visibility test, then
  the points' setData or the density binning), the cost of a frame that needs one;
- hover: ``point_at`` at 1,000 random positions in the plot.
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
from PySide6.QtCore import QPointF  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from sentspace.app.base.palette import category_colours  # noqa: E402
from sentspace.app.ui.views.projection_view import ProjectionView  # noqa: E402

ZOOMS = (1, 4, 16, 64, 256)
SIZE = (1000, 700)


def clusters(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points in 300 Gaussian clusters of uneven size, and a colour per point."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=10.0, size=(300, 2))
    spread = rng.uniform(0.2, 1.5, size=300)
    label = rng.choice(300, size=n, p=rng.dirichlet(np.ones(300)))
    points = centres[label] + rng.normal(size=(n, 2)) * spread[label, None]
    return points.astype(np.float32), category_colours(label)


def paint(widget: pg.PlotWidget) -> None:
    widget.viewport().repaint()
    QApplication.processEvents()


def zoom_range(points: np.ndarray, zoom: int) -> tuple[float, float, float, float]:
    """(x0, x1, y0, y1) of 1/zoom of the data's extent, centred on its densest spot."""
    low, high = points.min(axis=0), points.max(axis=0)
    counts, xs, ys = np.histogram2d(points[:, 0], points[:, 1], bins=64)
    i, j = np.unravel_index(np.argmax(counts), counts.shape)
    centre = ((xs[i] + xs[i + 1]) / 2, (ys[j] + ys[j + 1]) / 2) if zoom > 1 else ((low + high) / 2)
    half = (high - low) / (2 * zoom)
    return (
        float(centre[0] - half[0]),
        float(centre[0] + half[0]),
        float(centre[1] - half[1]),
        float(centre[1] + half[1]),
    )


def frame_ms(
    widget: pg.PlotWidget, view_box: pg.ViewBox, region, frames: int, redraw=None
) -> float:
    """Median time of one pan step (1% of the width) plus a synchronous repaint."""
    x0, x1, y0, y1 = region
    step = (x1 - x0) / 100
    times = []
    for k in range(frames + 1):
        start = time.perf_counter()
        view_box.setRange(xRange=(x0 + k * step, x1 + k * step), yRange=(y0, y1), padding=0)
        if redraw is not None:
            redraw()
        paint(widget)
        times.append(time.perf_counter() - start)
    return float(np.median(times[1:])) * 1000  # the first settles the range


def bench_plain(points, colours, frames):
    widget = pg.PlotWidget(background="w")
    widget.resize(*SIZE)
    widget.show()
    QApplication.processEvents()
    scatter = pg.ScatterPlotItem(size=7, pen=None, pxMode=True)
    widget.addItem(scatter)
    start = time.perf_counter()
    brushes = {colour: pg.mkBrush(colour) for colour in set(colours)}
    scatter.setData(pos=points, brush=[brushes[c] for c in colours], data=np.arange(len(points)))
    widget.getPlotItem().getViewBox().autoRange()
    paint(widget)
    load = time.perf_counter() - start
    view_box = widget.getPlotItem().getViewBox()
    per_zoom = {
        zoom: frame_ms(widget, view_box, zoom_range(points, zoom), frames) for zoom in ZOOMS
    }
    widget.close()
    return load, per_zoom


def bench_view(points, colours, frames):
    view = ProjectionView()
    view.resize(*SIZE)
    view.show()
    QApplication.processEvents()
    start = time.perf_counter()
    view.set_points(points, colours, str, ("x", "y"))
    paint(view.plot)
    load = time.perf_counter() - start
    per_zoom, modes, redraw = {}, {}, {}
    for zoom in ZOOMS:
        per_zoom[zoom] = frame_ms(
            view.plot, view.view_box, zoom_range(points, zoom), frames, redraw=view.refresh
        )
        times = []
        for _ in range(3):
            start = time.perf_counter()
            view.refresh(force=True)
            times.append(time.perf_counter() - start)
        redraw[zoom] = 1000 * float(np.median(times))
        modes[zoom] = (
            f"{view.mode} ({len(view.points.data):,} pts)" if view.mode == "points" else view.mode
        )
    view.view_box.setRange(
        xRange=zoom_range(points, 1)[:2], yRange=zoom_range(points, 1)[2:], padding=0
    )
    view.refresh()
    rect = view.view_box.sceneBoundingRect()
    rng = np.random.default_rng(1)
    targets = [
        QPointF(
            rect.left() + rng.uniform() * rect.width(), rect.top() + rng.uniform() * rect.height()
        )
        for _ in range(1000)
    ]
    hits, times = 0, []
    for target in targets:
        start = time.perf_counter()
        hits += view.point_at(target) >= 0
        times.append(time.perf_counter() - start)
    view.close()
    return (
        load,
        per_zoom,
        redraw,
        modes,
        1000 * float(np.mean(times)),
        1000 * float(np.max(times)),
        hits,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--frames", type=int, default=5)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv)
    print(
        f"platform {app.platformName()}, plot {SIZE[0]}x{SIZE[1]} px, "
        f"median of {args.frames} pan frames per zoom\n"
    )
    header = (
        f"{'points':>9}  {'what':<12} {'plain':>9} {'view':>9} {'view fps':>9} "
        f"{'plain/view':>10} {'redraw':>8}  view draws"
    )
    print(header)
    print("-" * len(header))
    for n in args.sizes:
        points, colours = clusters(n)
        plain_load, plain_frames = bench_plain(points, colours, args.frames)
        load, frames, redraw, modes, hover_mean, hover_max, hits = bench_view(
            points, colours, args.frames
        )
        print(
            f"{n:>9,}  {'load (s)':<12} {plain_load:>9.2f} {load:>9.2f} {'':>9} "
            f"{plain_load / load:>10.1f}x"
        )
        for zoom in ZOOMS:
            print(
                f"{n:>9,}  {f'zoom {zoom} (ms)':<12} {plain_frames[zoom]:>9.1f} "
                f"{frames[zoom]:>9.1f} {1000 / frames[zoom]:>9.0f} "
                f"{plain_frames[zoom] / frames[zoom]:>10.1f}x {redraw[zoom]:>8.1f}  "
                f"{modes[zoom]}"
            )
        print(
            f"{n:>9,}  {'hover (ms)':<12} {'':>9} {hover_mean:>9.3f} {'':>9} {'':>10}  "
            f"max {hover_max:.3f} ms, {hits} of 1000 positions on a point"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
