"""Filter speed at 1,000,000 sentences (issue 35: a brush updates every view in under
100 ms; ratio against a plain numpy mask).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_filter.py [--rows N]

Synthetic columns of the kinds the Filter panel charts (words 3-60, a gold score, a
split of 3, 40 regions, 20,000 groups with their size), one brush already on the
gold score and a category chosen, as a user builds it. Times, best of 7 in the same
process: the plain numpy mask of the brushed range (the baseline) and of all three
conditions; ``FilterTable.evaluate`` after the brush moves (its own mask recomputed,
the others cached); the cross-filter counts of every chart; both together (what a
brush costs the core); the typed expression against the same numpy; and, with Qt, the
Filter panel redrawing the charts a brush changed, the projection fading what fails
(density image of the whole map), and the whole window: the window's
``Filtering.show`` (evaluate, panel, projection, Corpus table, neighbours) and Qt
drawing it, a new range each time, with the map coloured by ten named colours and
"other" (as Colour by draws groups), by ten colours without "other", and a brush that
jumps (half the rows change: everything recounted). The drawing steps run
``--gui-repeats`` times: fastest, median and slowest wall time, the median CPU time of
the GUI thread (the machine is shared: wall times swing with the others' load, CPU
times much less), the median against the numpy baseline, and the garbage collections
of each generation while they ran.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import Collections, best_of, spread  # noqa: E402

from sentspace.app.analysis.columns import Categories, Numbers  # noqa: E402
from sentspace.app.analysis.filters import Chosen, Filter, FilterTable, Range  # noqa: E402

REPEATS = 7


def columns(n: int, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    words = np.clip(rng.gamma(4.0, 3.0, n).round() + 3, 3, 60)
    score = rng.uniform(1, 5, n)
    split = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    region = rng.integers(-1, 40, n)
    group = rng.integers(0, 20_000, n)
    size = np.bincount(group, minlength=20_000)[group].astype(float)
    return [
        Numbers("Words", words),
        Numbers("Gold score (mean of its pairs)", score),
        Categories("Split", ("train", "test", "trial"), split),
        Categories("Region", tuple(f"region {k}" for k in range(40)), region, none="in no region"),
        Categories("Group", tuple(f"g{k}" for k in range(20_000)), group),
        Numbers("Group size", size),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--gui-repeats", type=int, default=21)
    parser.add_argument(
        "--columns-of",
        metavar="CORPUS",
        help="instead, time building a corpus's columns (the Filter "
        "panel's and Colour by's), e.g. multi30k-captions",
    )
    arguments = parser.parse_args()
    if arguments.columns_of:
        time_columns(arguments.columns_of)
        return
    n = arguments.rows
    made = columns(n)
    started = time.perf_counter()
    table = FilterTable(made)
    build = time.perf_counter() - started
    words, score = made[0].values, made[1].values
    split = made[2].codes
    base = (
        Filter()
        .with_condition(Range("Gold score (mean of its pairs)", 2.0, 4.5))
        .with_condition(Chosen("Split", ("train", "test")))
    )
    table.evaluate(base)
    lows = iter(np.tile(np.arange(5, 25), 100))

    def brush() -> object:
        low = float(next(lows))  # a new range each time: no cache hit
        return table.evaluate(base.with_condition(Range("Words", low, low + 10)))

    def brush_and_counts() -> None:
        evaluated = brush()
        for title in table.charts:
            table.counts(evaluated, title)

    evaluated = brush()
    rows = [
        (
            "numpy mask of the brushed range (baseline)",
            best_of(lambda: (words >= 10) & (words <= 20), REPEATS),
        ),
        (
            "numpy mask of all three conditions",
            best_of(
                lambda: (
                    (words >= 10) & (words <= 20) & (score >= 2) & (score <= 4.5) & (split != 2)
                ),
                REPEATS,
            ),
        ),
        ("FilterTable.evaluate after a brush", best_of(brush, REPEATS)),
        (
            f"cross-filter counts of all {len(table.charts)} charts, afresh",
            best_of(
                lambda: (
                    table._counted.clear(),
                    [table.counts(evaluated, t) for t in table.charts],
                ),
                REPEATS,
            ),
        ),
        ("a brush in the core: mask + every chart's counts", best_of(brush_and_counts, REPEATS)),
        (
            'expression: words > 30 and split == "test"',
            best_of(lambda: table.expression_mask('words > 30 and split == "test"'), REPEATS),
        ),
        ("numpy of the same expression", best_of(lambda: (words > 30) & (split == 1), REPEATS)),
    ]
    baseline = rows[0][1]
    print(
        f"{n:,} sentences, {len(table.charts)} columns; table built once in "
        f"{build * 1000:.0f} ms; best of {REPEATS}"
    )
    print(f"{'step':<58}{'ms':>9}{'x numpy':>10}")
    for name, seconds in rows:
        print(f"{name:<58}{seconds * 1000:>9.2f}{seconds / baseline:>10.1f}")
    drawn = gui_rows(table, base, evaluated, arguments.gui_repeats)
    if not drawn:
        return
    print(
        f"\ndrawn, {arguments.gui_repeats} times (ms; x numpy: the median's)"
        f"\n{'step':<58}{'min':>7}{'median':>8}{'max':>8}{'cpu med':>9}{'x numpy':>9}"
        f"{'gc 0/1/2':>11}"
    )
    for name, (walls, cpus), collections in drawn:
        wall_ms, cpu_ms = np.array(walls) * 1000, np.array(cpus) * 1000
        print(
            f"{name:<58}{wall_ms.min():>7.1f}{np.median(wall_ms):>8.1f}{wall_ms.max():>8.1f}"
            f"{np.median(cpu_ms):>9.1f}{np.median(wall_ms) / 1000 / baseline:>9.0f}"
            f"{collections:>11}"
        )


def time_columns(name: str) -> None:
    from sentspace.app.analysis.columns import sentence_columns
    from sentspace.app.corpora import load_corpus

    corpus = load_corpus(name)
    times = []
    for _ in range(3):
        started = time.perf_counter()
        sentence_columns(corpus)
        times.append(time.perf_counter() - started)
    print(
        f"columns of {name} ({len(corpus):,} sentences): " + ", ".join(f"{t:.2f} s" for t in times)
    )


def gui_rows(table: FilterTable, base: Filter, evaluated, repeats: int) -> list:
    """The panel's charts, the projection and the whole window, offscreen: (name,
    (walls, cpus), collections); none without a Qt platform."""
    try:
        from PySide6.QtCore import QThreadPool
        from PySide6.QtWidgets import QApplication
    except ImportError:
        return []
    app = QApplication.instance() or QApplication([])
    from sentspace.app.base.palette import OTHER, PointColours
    from sentspace.app.corpora.model import Corpus
    from sentspace.app.ui.panels.filter_panel import FilterPanel
    from sentspace.app.ui.views.corpus_browser import CorpusBrowser
    from sentspace.app.ui.views.neighbours_view import NeighboursView
    from sentspace.app.ui.views.projection_view import ProjectionView
    from sentspace.app.ui.window.filtering import Filtering

    panel = FilterPanel()
    panel.resize(400, 900)
    panel.show_filter(table, base, evaluated)
    view = ProjectionView()
    view.resize(800, 600)
    view.show()
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 11, table.n).astype(np.int32)
    named = tuple(f"#{k}0{k}0{k}0" for k in range(10))
    # Ten named colours and the rest "other", as Colour by draws groups.
    with_other = PointColours(codes, (*named, OTHER))
    view.set_points(rng.normal(size=(table.n, 2)).astype(np.float32), with_other, str, ("x", "y"))
    app.processEvents()
    browser = CorpusBrowser()
    browser.set_corpus(
        Corpus("bench", tuple(f"s{k}" for k in range(table.n)), tuple(map(str, range(table.n))))
    )
    for handle in browser._jobs.values():  # its statistics: not what is measured
        handle.cancel()
    QThreadPool.globalInstance().waitForDone()  # nor its thread's allocations
    neighbours = NeighboursView()
    views = SimpleNamespace(corpus_page=SimpleNamespace(is_built=True), corpus_browser=browser)
    window = Filtering(None, panel, view, views, neighbours)  # the window's own path
    lows = iter(np.tile(np.arange(5, 25), 1000))
    jumps = iter(np.tile([5, 40], 1000))

    def moved() -> Filter:
        low = float(next(lows))
        return base.with_condition(Range("Words", low, low + 10))

    def jumped() -> Filter:
        low = float(next(jumps))
        return base.with_condition(Range("Words", low, low + 10))

    def timed(step) -> tuple:
        step()  # one to start from
        with Collections() as collected:
            times = spread(step, repeats)
        return times, "/".join(map(str, collected.counts))

    window.show(table, moved())
    app.processEvents()
    rows = [
        (
            "Filter panel: the charts a brush changed redrawn",
            *timed(
                lambda: (
                    panel.show_filter(table, chosen := moved(), table.evaluate(chosen)),
                    app.processEvents(),
                )
            ),
        ),
        (
            "projection: filtered-out points faded (density image)",
            *timed(lambda: (view.set_passing(table.evaluate(moved()).mask), app.processEvents())),
        ),
        (
            "the whole window: a brush through Filtering.show, drawn",
            *timed(lambda: (window.show(table, moved()), app.processEvents())),
        ),
        (
            "the whole window, a brush jumping (half the rows change)",
            *timed(lambda: (window.show(table, jumped()), app.processEvents())),
        ),
    ]
    view.set_colours(PointColours(codes, (*named, "#a0a0a0")), "")
    rows.append(
        (
            "the whole window, ten colours and no other",
            *timed(lambda: (window.show(table, moved()), app.processEvents())),
        )
    )
    return rows


if __name__ == "__main__":
    main()
