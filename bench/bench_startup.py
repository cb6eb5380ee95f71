"""Startup: time from process start to a shown, usable main window, against a bare
PySide6 QMainWindow measured in the same run.

    .venv/bin/python bench/bench_startup.py [--repeat 7]
    xvfb-run -a env QT_QPA_PLATFORM=xcb .venv/bin/python bench/bench_startup.py

Runs offscreen unless QT_QPA_PLATFORM is set. Each measurement is a fresh interpreter
(``python -c``), started and timed by this script: the parent passes its
``time.monotonic()`` (CLOCK_MONOTONIC, shared by all processes) just before it spawns
the child, and the child reports how long after that it reached each point:

- bare: ``import PySide6.QtWidgets``, a QApplication, a QMainWindow of the app's size
  shown; done when its native window is exposed and the event loop is idle;
- floor: the same plus the libraries the window cannot open without (numpy, scipy.sparse,
  pyqtgraph with a PlotWidget as the central widget, superqt for the job workers);
- sentspace: the app's own start path (``python -m app`` = ``sentspace.app.__main__.main([])`` ->
  ``sentspace.app.ui.window.startup.launch()``). The child creates the QApplication first (launch
  reuses it) only to install a 5 ms poll; "window" is when the top-level window is
  exposed (with its loading message: only Qt is imported by then), "built" when the
  main window with its menus, docks and views is in it (numpy, pyqtgraph and the
  views imported on a thread meanwhile), "usable" when additionally the bundled corpus
  is loaded (its background job done) and the Run button is enabled. "largest gap" is
  the longest the 5 ms poll went unserved between "window" and "built": how long the
  shown window could not repaint or answer. At "window" and "usable" it also lists
  which of the heavy libraries that must load lazily (umap, gensim, torch,
  sentence_transformers, pandas, pyarrow, numba) are already in ``sys.modules``.

The two kinds alternate, ``--repeat`` times each; the table gives best and median, and
the spread (max - min) as a measure of the noise of the shared machine. Last, one more
sentspace child under ``-X importtime`` gives the top imports by cumulative time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAZY = ("umap", "gensim", "torch", "sentence_transformers", "pandas", "pyarrow", "numba")

BARE = r"""
import json, os, sys, time
T0 = float(os.environ["BENCH_T0"])
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication(sys.argv)
window = QMainWindow()
window.setWindowTitle("bare")
window.resize(1400, 860)
window.show()
def poll():
    handle = window.windowHandle()
    if handle is not None and handle.isExposed():
        t = time.monotonic() - T0
        print("BENCH " + json.dumps({"window": t, "usable": t}), flush=True)
        app.quit()
timer = QTimer(); timer.timeout.connect(poll); timer.start(5)
app.exec()
"""

# The libraries the window cannot open without (its projection view is a pyqtgraph plot;
# corpora and embeddings are numpy/scipy.sparse): the floor of any window built on them.
FLOOR = BARE.replace(
    "from PySide6.QtCore import QTimer",
    """from PySide6.QtCore import QTimer
import numpy, scipy.sparse, pyqtgraph
import superqt.utils""",
).replace(
    "window.resize(1400, 860)",
    """window.resize(1400, 860)
window.setCentralWidget(pyqtgraph.PlotWidget())""",
)

APP = r"""
import json, os, sys, time
T0 = float(os.environ["BENCH_T0"])
LAZY = %r
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)     # launch() reuses it; made here only to install the poll
seen = {"gap": 0.0, "import_gap": 0.0}
last = [None]
def poll():
    now = time.monotonic()
    window = next((w for w in app.topLevelWidgets() if type(w).__name__ == "AppWindow"),
                  None)
    if window is None:
        return
    handle = window.windowHandle()
    if "window" not in seen and handle is not None and handle.isExposed():
        seen["window"] = now - T0
        seen["lazy_loaded"] = sorted(m for m in LAZY if m in sys.modules)
    if "window" in seen and "built" not in seen:
        # The longest the event loop went unserved while the rest loaded behind the window.
        if last[0] is not None:
            seen["gap"] = max(seen["gap"], now - last[0])
            if window.main is None:
                seen["import_gap"] = max(seen["import_gap"], now - last[0])
        last[0] = now
    main = window.main
    if main is None:
        return
    seen.setdefault("built", now - T0)
    if main.corpus is not None and not main.is_running and main.corpus_panel.run_button.isEnabled():
        seen["usable"] = now - T0
        seen["lazy_loaded_usable"] = sorted(m for m in LAZY if m in sys.modules)
        print("BENCH " + json.dumps(seen), flush=True)
        window.close()
        app.quit()
timer = QTimer(); timer.timeout.connect(poll); timer.start(5)
sys.argv = ["sentspace"]
from sentspace.app.__main__ import main
main([])
""" % (LAZY,)  # noqa: UP031 (the child's code is full of braces)


def child(code: str, extra: tuple[str, ...] = ()) -> tuple[dict, str]:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    env["BENCH_T0"] = repr(time.monotonic())
    done = subprocess.run(
        [sys.executable, *extra, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    line = next((out for out in done.stdout.splitlines() if out.startswith("BENCH ")), None)
    if line is None:
        raise RuntimeError(f"child failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return json.loads(line[6:]), done.stderr


def top_imports(stderr: str, count: int) -> list[tuple[int, str, int]]:
    """(cumulative us, module, depth) of the ``count`` slowest imports, nested or not."""
    rows = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self, cumulative, name = line.split(":", 1)[1].split("|")
        depth = (len(name) - len(name.lstrip())) // 2
        rows.append((int(cumulative), name.strip(), depth))
    return sorted(rows, reverse=True)[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--top", type=int, default=20)
    args = parser.parse_args()
    platform = os.environ.get("QT_QPA_PLATFORM", "offscreen")
    runs: dict[str, list[dict]] = {"bare": [], "floor": [], "app": []}
    for _ in range(args.repeat):
        runs["bare"].append(child(BARE)[0])
        runs["floor"].append(child(FLOOR)[0])
        runs["app"].append(child(APP)[0])
    bare_best = min(r["usable"] for r in runs["bare"])
    bare_median = statistics.median(r["usable"] for r in runs["bare"])
    print(
        f"platform {platform}, {args.repeat} alternating runs of each, times in seconds "
        f"from process start; ratio = best / best of the bare window, (median / median)\n"
    )
    header = f"{'what':<50} {'best':>7} {'median':>7} {'spread':>7} {'ratio':>7} {'(median)':>9}"
    print(header)
    print("-" * len(header))
    for label, kind, key in (
        ("bare PySide6 QMainWindow shown", "bare", "usable"),
        ("floor: + numpy, scipy.sparse, pyqtgraph, superqt", "floor", "usable"),
        ("sentspace window shown", "app", "window"),
        ("sentspace main window built in it", "app", "built"),
        ("sentspace usable (corpus loaded)", "app", "usable"),
    ):
        values = [r[key] for r in runs[kind]]
        best, median = min(values), statistics.median(values)
        print(
            f"{label:<50} {best:>7.3f} {median:>7.3f} {max(values) - best:>7.3f} "
            f"{best / bare_best:>6.2f}x {median / bare_median:>8.2f}x"
        )
    gaps = [r["gap"] * 1000 for r in runs["app"]]
    import_gaps = [r["import_gap"] * 1000 for r in runs["app"]]
    print(
        f"\nlargest event-loop gap between window shown and built: median "
        f"{statistics.median(gaps):.0f} ms, worst {max(gaps):.0f} ms (poll every 5 ms); "
        f"while importing: median {statistics.median(import_gaps):.0f} ms, worst "
        f"{max(import_gaps):.0f} ms"
    )
    loaded = sorted({m for r in runs["app"] for m in r["lazy_loaded"]})
    loaded_usable = sorted({m for r in runs["app"] for m in r["lazy_loaded_usable"]})
    print(
        f"\nlazy libraries already imported when the window showed: "
        f"{', '.join(loaded) or 'none'}; when usable: {', '.join(loaded_usable) or 'none'}"
        f" (checked: {', '.join(LAZY)})"
    )

    _, stderr = child(APP, ("-X", "importtime"))
    print(
        f"\ntop {args.top} imports by cumulative time (one sentspace start under "
        f"-X importtime, which inflates them; indented = nested):"
    )
    for cumulative, name, depth in top_imports(stderr, args.top):
        print(f"{cumulative / 1000:>9.1f} ms  {'  ' * depth}{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
