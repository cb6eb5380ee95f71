"""Saving the Costra workspace: seconds, size, and the window's longest stall.

    .venv/bin/python bench/bench_workspace.py [--repeat 3] [--no-window]

The session is Costra (all 6,968 sentences of ``costra``) run with bag of words + PCA
and evaluated by the Costra evaluation, built in this process. Timed, best of
``--repeat``:

- reference: the schema-3 writer as it was before workspaces became zips, rebuilt here
  (every array as base64 inside the JSON, each result's whole ``to_dict()`` kept,
  ``json.dumps(indent=1)``), from taking the session to the file written;
- save: ``Session.to_workspace`` (what the window does on its own thread) and
  ``save_workspace`` (a zip of the JSON manifest and each array as a ``.npy`` member);
- open: ``load_workspace`` of the saved file (its arrays read).

With the window (offscreen unless QT_QPA_PLATFORM is set): the session is put in a real
MainWindow, then *Save* is asked as the menu does; a 10 ms QTimer ticks on the GUI
thread from the call until the save job has ended, and the longest gap between ticks
is the longest the window could not paint or take input. The ratio column is seconds
against the reference in the same run.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from sentspace.app.analysis.evaluations import EVALUATIONS  # noqa: E402
from sentspace.app.analysis.explore import explore  # noqa: E402
from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.app.services import format_table  # noqa: E402
from sentspace.app.state.session import EvaluationRun, Session  # noqa: E402
from sentspace.app.workspace.codec import Held  # noqa: E402
from sentspace.app.workspace.format import load_workspace, save_workspace  # noqa: E402
from sentspace.app.workspace.model import Workspace  # noqa: E402
from sentspace.app.workspace.paths import relative_paths  # noqa: E402
from sentspace.app.workspace.snapshot import workspace_of  # noqa: E402
from sentspace.models import make_encoder  # noqa: E402

TICK_MS = 10


def costra_session() -> Session:
    session = Session()
    corpus = load_corpus("costra")
    session.open("costra", corpus, None)
    session.add_run("costra", "bow", run_job(explore(corpus, make_encoder("bow"))))
    result = run_job(EVALUATIONS["costra"][0](corpus, make_encoder("bow"), seed=0))
    session.add_evaluation("costra", EvaluationRun("costra", "bow", 0, result, "costra"))
    return session


def schema_3_save(session: Session, path: Path) -> None:
    """The file as the writer before schema 4 made it: arrays as base64 in the JSON,
    each result's whole dict."""
    workspace = workspace_of(session)
    results = [run.result for state in session.states.values() for run in state.evaluations]

    def inline(value):
        if isinstance(value, Held):
            return base64.b64encode(np.ascontiguousarray(value.array).tobytes()).decode()
        if isinstance(value, dict):
            return {
                ("bytes" if isinstance(item, Held) else key): inline(item)
                for key, item in value.items()
            }
        if isinstance(value, (list, tuple)):
            return [inline(item) for item in value]
        return value

    entries = tuple(
        dataclasses.replace(entry, result=json.loads(json.dumps(result.to_dict(), default=str)))
        for entry, result in zip(workspace.evaluations, results)
    )
    data = inline(
        {
            **Workspace.to_dict(dataclasses.replace(workspace, evaluations=entries)),
            "schema": 3,
            "relative": relative_paths(workspace, str(path.parent)),
        }
    )
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n")


def best(repeat: int, work) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = work()
        times.append(time.perf_counter() - start)
    return min(times), value


def window_stall(session: Session, path: Path) -> tuple[float, float, int]:
    """(seconds to the save's end, longest GUI-thread gap in ms, gaps over 100 ms)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from sentspace.app.ui.window.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(1280, 800)
    window.show()
    window.session.replace_with(session)
    deadline = time.perf_counter() + 5
    while time.perf_counter() < deadline:  # the corpus drawn, the window settled
        app.processEvents()
    ticks: list[float] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(TICK_MS)
    start = time.perf_counter()
    ticks.append(start)
    window.files.save_workspace_to(path)
    while window.is_running or window.files.unsaved:
        app.processEvents()
        time.sleep(0.001)
    end = time.perf_counter()
    ticks.append(end)
    timer.stop()
    gaps = np.diff(ticks) * 1000
    window.files.unsaved = False
    window.close()
    return end - start, float(gaps.max()), int((gaps > 100).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-window", action="store_true")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    os.environ["SENTSPACE_CACHE_DIR"] = str(folder / "cache")
    os.environ["SENTSPACE_CONFIG_DIR"] = str(folder / "config")
    start = time.perf_counter()
    session = costra_session()
    print(f"Costra run (bow + PCA) and evaluated in {time.perf_counter() - start:.1f} s")

    old, new = folder / "old.sentspace", folder / "new.sentspace"
    reference, _ = best(args.repeat, lambda: schema_3_save(session, old))
    taken, workspace = best(args.repeat, session.to_workspace)
    saved, _ = best(args.repeat, lambda: save_workspace(workspace, new, remember=False))
    opened, _ = best(args.repeat, lambda: load_workspace(new))
    rows = [
        ["reference: schema-3 JSON, base64 (before)", reference, old.stat().st_size],
        ["to_workspace (the window's own thread)", taken, None],
        ["save: zip of manifest + .npy", saved, new.stat().st_size],
        ["to_workspace + save", taken + saved, new.stat().st_size],
        ["open the saved zip (load_workspace)", opened, None],
    ]
    print(
        format_table(
            ["step", "seconds", "ratio", "MB"],
            [
                [
                    label,
                    f"{seconds:.3f}",
                    f"{seconds / reference:.3f}",
                    "" if size is None else f"{size / 1e6:.2f}",
                ]
                for label, seconds, size in rows
            ],
        )
    )
    if not args.no_window:
        wall, gap, over = window_stall(session, folder / "window.sentspace")
        print(
            f"\nwindow: Save to the end of its job {wall:.2f} s; longest GUI-thread gap "
            f"{gap:.0f} ms ({TICK_MS} ms = none), {over} gaps over 100 ms"
        )
    print(f"load average {', '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()}")


if __name__ == "__main__":
    main()
