"""Responsiveness: the GUI thread's longest stall while a job runs in the real MainWindow.

    .venv/bin/python bench/bench_responsiveness.py [--sentences 10000] [--repeat 2]
    .venv/bin/python bench/bench_responsiveness.py --sentences 1000000 \
        --encoder glove-mean --repeat 1 --skip umap-warm doc2vec
    .venv/bin/python bench/bench_responsiveness.py --switch --repeat 3

Runs offscreen unless QT_QPA_PLATFORM is set. The corpus is the first ``--sentences``
distinct sentences of MSRP (``../shared/data/msrp/msr_paraphrase_data.txt``), or, for
more than MSRP has, sentences spliced from real ones as ``bench_scale.py`` makes them,
built directly as a Corpus without groups (so the explorer runs no classification:
only the job under test). The embedding cache is a temporary folder. A 10 ms QTimer ticks on the GUI thread; a tick that comes late means
the event loop could not run (paint, input) for that long. Jobs, driven through the
window as a user would:

- ``--encoder`` (bag of words) + PCA: ``run()`` with the default PCA, the reference
  (a short job at 10,000 sentences; at a million, encoding, PCA and faithfulness with
  its neighbour index);
- UMAP, cold: ``project_again()`` with UMAP (n_neighbors 15, PCA to 50 first), the
  first in the process, so ``import umap`` and numba's compilation run in the worker;
- UMAP, warm: the same again (compiled);
- Doc2Vec PV-DM: ``run()`` with ``doc2vec-dm``: training (20 epochs), inference of
  every sentence, PCA and the faithfulness measure.

- switching corpora (``--switch``, alone): MSRP (``msr_paraphrase_data.txt``, 10,948
  sentences) and SICK (``SICK_train.txt``) opened, each run (bag of words + PCA),
  evaluated (ranking; relatedness) and its suspicious annotations found, with the Corpus
  and Neighbours tabs built; then the switch SICK -> MSRP as the Workspace panel asks
  for it, timed to the end of the events it queues (``--repeat`` + 2 times; the
  median and the fastest). The window is shown at 1280x800.

A first row runs the timer for 5 s with no job: the stalls the shared machine causes by
itself. For each job: its wall time, the number of ticks, the largest gap between ticks and
its 99th percentile (expected: 10 ms), the gaps over 100 ms, and the job stage during
which the largest gap began (from the job's progress reports, which arrive as queued
signals on the GUI thread; "result" = the window drawing the result). Each job runs
``--repeat`` times (cold UMAP once); the machine is shared, so the table shows every run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402
from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from sentspace.app.corpora.model import Corpus  # noqa: E402
from sentspace.app.ui.window.main_window import MainWindow  # noqa: E402

MSRP = ROOT.parent / "shared" / "data" / "msrp" / "msr_paraphrase_data.txt"
TICK_MS = 10


def make_corpus(n: int) -> Corpus:
    """MSRP's first ``n`` distinct sentences, or ``n`` spliced ones beyond its size."""
    lines = MSRP.read_text(encoding="utf-8-sig").splitlines()[1:]
    texts, ids, seen = [], [], set()
    for line in lines:
        fields = line.split("\t")
        if len(fields) < 2 or fields[1] in seen:
            continue
        seen.add(fields[1])
        ids.append(fields[0])
        texts.append(fields[1])
        if len(texts) == n:
            break
    if len(texts) < n:
        from bench_scale import make_sentences

        texts = make_sentences(n)
        return Corpus(
            name=f"{n:,} spliced sentences", texts=tuple(texts), ids=tuple(map(str, range(n)))
        )
    return Corpus(name=f"MSRP {len(texts):,} sentences", texts=tuple(texts), ids=tuple(ids))


class Probe:
    """Ticks of a 10 ms timer on the GUI thread, and the job's stage changes."""

    def __init__(self) -> None:
        self.ticks: list[float] = []
        self.stages: list[tuple[float, str]] = []
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(lambda: self.ticks.append(time.perf_counter()))

    def idle(self, seconds: float) -> dict:
        """The same timer with no job: the machine's own scheduling noise."""
        app = QApplication.instance()
        self.ticks.clear()
        self.timer.start()
        began = time.perf_counter()
        self.ticks.append(began)
        while time.perf_counter() - began < seconds:
            app.processEvents()
            time.sleep(0.001)
        self.timer.stop()
        gaps = np.diff(self.ticks) * 1000
        return {
            "wall": seconds,
            "ticks": len(self.ticks),
            "max": float(gaps.max()),
            "p99": float(np.percentile(gaps, 99)),
            "over": int((gaps > 100).sum()),
            "stage": "no job (scheduling noise of the shared machine)",
        }

    def measure(self, window: MainWindow, start) -> dict:
        app = QApplication.instance()
        self.ticks.clear()
        self.stages.clear()
        self.timer.start()
        began = time.perf_counter()
        self.ticks.append(began)
        # Mark when the window starts drawing the result: the session's ``ran`` event
        # calls selecting.draw, looked up on the instance.
        show = window.selecting.draw

        def show_marked(exploration):
            self.stages.append((time.perf_counter(), "result: draw"))
            show(exploration)
            self.stages.append((time.perf_counter(), "after the result"))

        window.selecting.draw = show_marked
        try:
            start()
            handle = window.jobs.job
            assert handle is not None and not handle.done, "the job did not start"
            handle.changed.connect(
                lambda: self.stages.append(
                    (time.perf_counter(), handle.progress.stage if handle.progress else "started")
                )
            )
            while not handle.done:
                app.processEvents()
                time.sleep(0.001)
            wall = time.perf_counter() - began
            # Let the queued result / finished callbacks run, ticking on.
            until = time.perf_counter() + 0.2
            while time.perf_counter() < until:
                app.processEvents()
                time.sleep(0.001)
        finally:
            del window.selecting.draw
        self.timer.stop()
        if handle.state != "done":
            raise RuntimeError(f"job {handle.state}: {handle.error!r}")
        ticks = np.array(self.ticks)
        gaps = np.diff(ticks) * 1000
        worst = int(np.argmax(gaps))
        stage = "before any progress"
        for at, name in self.stages:
            if at <= ticks[worst]:
                stage = name
        return {
            "wall": wall,
            "ticks": len(ticks),
            "max": float(gaps.max()),
            "p99": float(np.percentile(gaps, 99)),
            "over": int((gaps > 100).sum()),
            "stage": stage,
        }


SICK = ROOT.parent / "shared" / "data" / "sick" / "SICK_train.txt"


def switch_times(repeat: int) -> list[float]:
    """Seconds each switch SICK -> MSRP takes, both corpora loaded, run, evaluated and
    reviewed (see the module's docstring)."""
    app = QApplication.instance()
    window = MainWindow()
    window.resize(1280, 800)
    window.show()

    def settle(seconds: float = 0.3) -> None:
        until = time.perf_counter() + seconds
        while time.perf_counter() < until or window.is_running:
            app.processEvents()
            time.sleep(0.005)

    for spec, evaluation in ((MSRP, "ranking"), (SICK, "relatedness")):
        window.open_corpus(str(spec))
        settle()
        window.run()
        settle()
        window.evaluate(evaluation)
        settle()
        window.analyses.find_suspicious()
        settle()
        for tab in (3, 4, 0):  # Corpus, Neighbours, then the projection
            window.views.setCurrentIndex(tab)
            settle()
    times = []
    for _ in range(repeat):
        window.showing.switch_corpus(str(SICK))
        settle(0.5)
        began = time.perf_counter()
        window.showing.switch_corpus(str(MSRP))
        app.processEvents()
        times.append(time.perf_counter() - began)
        settle(0.5)
    window.unsaved = False
    window.close()
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--encoder", default="bow", help="the run job's encoder (default bow)")
    parser.add_argument(
        "--skip", nargs="*", default=[], help="jobs to skip: umap umap-warm doc2vec"
    )
    parser.add_argument(
        "--switch", action="store_true", help="time switching SICK -> MSRP instead (both loaded)"
    )
    args = parser.parse_args()
    cache = tempfile.TemporaryDirectory()
    os.environ["SENTSPACE_CACHE_DIR"] = cache.name
    app = QApplication.instance() or QApplication(sys.argv)  # noqa: F841
    if args.switch:
        times = switch_times(args.repeat + 2)
        print(
            f"switch SICK -> MSRP ({len(times)} times, both loaded, run, evaluated and "
            f"reviewed): median {np.median(times):.3f} s, fastest {min(times):.3f} s "
            f"({', '.join(f'{t:.3f}' for t in times)})"
        )
        print(
            f"load average {', '.join(f'{v:.1f}' for v in os.getloadavg())} on "
            f"{os.cpu_count()} cores"
        )
        return 0
    window = MainWindow()
    window.resize(1400, 860)
    window.show()
    app.processEvents()
    corpus = make_corpus(args.sentences)
    window.showing.set_corpus(corpus)
    probe = Probe()
    controls = window.corpus_panel.projection_controls

    def choose(encoder: str, method: str):
        def start():
            window.corpus_panel.choose(encoder)
            controls.method.setCurrentIndex(controls.method.findData(method))

        return start

    def run_with(encoder: str):
        def start():
            choose(encoder, "pca")()
            window.run()

        return start

    def umap_again():
        controls.method.setCurrentIndex(controls.method.findData("umap"))
        window.analyses.project_again()

    rows = [("idle, no job", probe.idle(5.0))]
    for _ in range(args.repeat):
        rows.append((f"{args.encoder} + PCA (run)", probe.measure(window, run_with(args.encoder))))
    if "umap" not in args.skip:
        rows.append(("UMAP, cold: import + numba JIT", probe.measure(window, umap_again)))
        for _ in range(0 if "umap-warm" in args.skip else args.repeat):
            rows.append(("UMAP, warm (project_again)", probe.measure(window, umap_again)))
    if "doc2vec" not in args.skip:
        for _ in range(args.repeat):
            rows.append(
                ("Doc2Vec PV-DM (run: train+infer)", probe.measure(window, run_with("doc2vec-dm")))
            )
    window.close()

    print(
        f"platform {QApplication.platformName()}, {corpus.name}, "
        f"{TICK_MS} ms GUI timer; gaps in ms (a gap of {TICK_MS} = no stall)\n"
    )
    header = (
        f"{'job':<34} {'wall s':>7} {'ticks':>6} {'max gap':>8} {'p99 gap':>8} "
        f"{'>100ms':>6}  largest gap began during"
    )
    print(header)
    print("-" * len(header))
    for label, r in rows:
        print(
            f"{label:<34} {r['wall']:>7.1f} {r['ticks']:>6} {r['max']:>8.0f} "
            f"{r['p99']:>8.0f} {r['over']:>6}  {r['stage'][:60]}"
        )
    print(
        f"load average {', '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
