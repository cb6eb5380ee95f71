"""Saving the Costra workspace: seconds, size, and the window's longest stall.

    .venv/bin/python bench/bench_workspace.py [--repeat 3] [--no-window]

The session is Costra (all 6,968 sentences of ``costra``) run with bag of words + PCA
and evaluated by the Costra evaluation, built in this process. Timed, best of
``--repeat``:

- reference: the schema-3 writer as it was before workspaces became zips, rebuilt here
  (every array as base64 inside the JSON, each result's whole ``to_dict()`` kept,
  ``json.dumps(indent=1)``), from taking the session to the file written;
- save: ``taken`` (all the window does on its own thread when Save is asked), then in
  the save job ``workspace_from`` (results encoded, corpus files hashed) and
  ``save_workspace`` (a zip of the JSON manifest and each array as a ``.npy`` member);
- open: ``load_workspace`` of the saved file (its arrays read).

With the window (offscreen unless QT_QPA_PLATFORM is set): the session is put in a real
MainWindow and a 10 ms QTimer ticks on the GUI thread; the longest gap between ticks is
the longest the window could not paint or take input, with the CPU the GUI thread spent
in that gap (a gap with little of it was the machine's load or the GIL, not the
window's work). Stall table, ``--repeat`` times each, the worst gap kept:

- reference: the save done on the GUI thread (``workspace_of`` + ``save_workspace``),
  the whole save one stall;
- Save: ``save_workspace_to`` as the menu asks it, from the call until its job has
  ended and the window says saved.

The ratio column is the gap against the reference's in the same run; the target is
under 100 ms. The last column is the GUI thread's CPU from the call to the end, the
least of the runs: the window's own work, which the machine's load does not lengthen.
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
from sentspace.app.workspace.snapshot import taken, workspace_from, workspace_of  # noqa: E402
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


def window_stall(session: Session, folder: Path, repeat: int) -> list[list[str]]:
    """The stall table's rows: per way of saving, the longest GUI-thread gap in ms and
    the GUI thread's CPU in it (worst of ``repeat``), gaps over 100 ms (all runs),
    seconds to the end (slowest) and the GUI thread's CPU from the call to the end
    (least: the window's own work, whatever else ran)."""
    from PySide6.QtCore import QEventLoop, QTimer
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

    def on_gui_thread(path: Path) -> None:
        save_workspace(workspace_of(window.session), path, remember=False)

    def as_the_menu_does(path: Path) -> None:
        # Waits in Qt's event loop (no polling of its own, which would count as the
        # GUI thread's CPU) until the job has ended and the window says saved.
        loop = QEventLoop()
        ended = window.jobs.running_changed.connect(lambda running: running or loop.quit())
        window.files.save_workspace_to(path)
        if window.is_running:
            loop.exec()
        window.jobs.running_changed.disconnect(ended)
        assert not window.files.unsaved, "saved"
        window.files.unsaved = True  # the next Save saves again

    def measured(save, path: Path) -> tuple[float, float, int, float, float]:
        ticks: list[tuple[float, float]] = []
        timer = QTimer()
        timer.timeout.connect(lambda: ticks.append((time.perf_counter(), time.thread_time())))
        timer.start(TICK_MS)
        ticks.append((time.perf_counter(), time.thread_time()))
        save(path)
        ticks.append((time.perf_counter(), time.thread_time()))
        timer.stop()
        deadline = time.perf_counter() + 0.5  # what the save left queued, drawn
        while time.perf_counter() < deadline:
            app.processEvents()
        wall, cpu = np.diff(np.array(ticks), axis=0).T * 1000
        longest = int(wall.argmax())
        whole = ticks[-1][0] - ticks[0][0], cpu.sum()
        return wall[longest], cpu[longest], int((wall > 100).sum()), *whole

    rows = []
    reference = 0.0
    for label, save in [
        ("reference: saved on the GUI thread", on_gui_thread),
        ("Save (save_workspace_to, its job)", as_the_menu_does),
    ]:
        runs = [measured(save, folder / f"window{n}.sentspace") for n in range(repeat)]
        gap, cpu, _, _, _ = max(runs)
        reference = reference or gap
        over = sum(run[2] for run in runs)
        seconds = max(run[3] for run in runs)
        work = min(run[4] for run in runs)
        rows.append(
            [
                label,
                f"{gap:.0f}",
                f"{gap / reference:.3f}",
                f"{cpu:.0f}",
                str(over),
                f"{seconds:.2f}",
                f"{work:.0f}",
            ]
        )
    window.files.unsaved = False
    window.close()
    return rows


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
    took, states = best(args.repeat, lambda: taken(session))
    built, workspace = best(args.repeat, lambda: workspace_from(states))
    saved, _ = best(args.repeat, lambda: save_workspace(workspace, new, remember=False))
    opened, _ = best(args.repeat, lambda: load_workspace(new))
    rows = [
        ["reference: schema-3 JSON, base64 (before)", reference, old.stat().st_size],
        ["taken (the window's own thread, at Save)", took, None],
        ["workspace_from (the save job)", built, None],
        ["save: zip of manifest + .npy", saved, new.stat().st_size],
        ["taken + workspace_from + save", took + built + saved, new.stat().st_size],
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
        rows = window_stall(session, folder, args.repeat)
        print(f"\nwindow stall during Save, worst of {args.repeat} (target < 100 ms):")
        print(
            format_table(
                [
                    "save",
                    "longest gap ms",
                    "ratio",
                    "GUI CPU ms in it",
                    "gaps > 100 ms",
                    "s",
                    "GUI CPU ms, all",
                ],
                rows,
            )
        )
    print(f"load average {', '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()}")


if __name__ == "__main__":
    main()
