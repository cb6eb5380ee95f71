"""Responsiveness: the GUI thread's longest stall while a job runs in the real MainWindow.

    .venv/bin/python bench/bench_responsiveness.py [--sentences 10000] [--repeat 2]
    .venv/bin/python bench/bench_responsiveness.py --sentences 1000000 \
        --encoder glove-mean --repeat 1 --skip umap-warm doc2vec
    .venv/bin/python bench/bench_responsiveness.py --switch --repeat 3 [--profile DIR]
    DISPLAY=:99 QT_QPA_PLATFORM=xcb .venv/bin/python bench/bench_responsiveness.py --switch

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
  and Neighbours tabs built; Costra opened, run, evaluated and left on its Costra tab;
  the 145,000 Multi30K captions (``multi30k-captions``) and ``--switch-sentences``
  spliced sentences (default 1,000,000) opened, each handed a glove-mean + PCA run made
  in this process (no classification: 29,000 caption groups take the explorer minutes).
  Then each pair switched both ways as the Workspace panel's double-click asks,
  ``--repeat`` times: the seconds until the double-click returned with the events it
  posted processed (the new corpus drawn; median and max), the longest gap of the 10
  ms timer from the double-click to 1.5 s later (the GUI thread's longest stall, what
  the switch left queued included), and the ratio of each median to the reference
  SICK -> MSRP's. ``--profile DIR`` writes a cProfile of each switch. The window is
  shown at 1280x800.

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
CAPTIONS = "multi30k-captions"
#: The pairs timed both ways, the reference first (its ratio is 1).
PAIRS = (
    ("SICK", "MSRP"),
    ("costra", "captions"),
    ("captions", "1M"),
    ("1M", "costra"),
)


def handed_run(window: MainWindow, spec: str, encoder_name: str = "glove-mean") -> None:
    """A run of ``encoder_name`` + PCA handed to the session as ``Analyses.run`` hands
    its result, made here without the classification: 29,000 caption groups take the
    explorer minutes, and the switch, not the run, is timed."""
    from sentspace.app.analysis.cache import cached_encode
    from sentspace.app.analysis.explore import Exploration
    from sentspace.app.analysis.projection import project
    from sentspace.app.base.jobs import run_job
    from sentspace.models import make_encoder
    from sentspace.models.base import fitted_copy

    state = window.session.states[spec]
    corpus = state.corpus
    encoder = run_job(fitted_copy(make_encoder(encoder_name), corpus.texts))
    embeddings = run_job(cached_encode(encoder, corpus.fingerprint, corpus.texts))
    projection = run_job(project(embeddings, "pca"))
    exploration = Exploration(corpus, encoder, embeddings, projection, None, None)
    window.session.add_run(spec, encoder_name, exploration)


class Switches:
    """The window with SICK, MSRP, Costra, the Multi30K captions and a million spliced
    sentences open (see the module's docstring), and the switches between them timed
    with the 10 ms probe."""

    def __init__(self, sentences: int, profile: Path | None) -> None:
        self.app = QApplication.instance()
        self.window = window = MainWindow()
        window.resize(1280, 800)
        window.show()
        self.profile = profile
        self.specs: dict[str, str] = {}
        self.seconds: dict[str, float] = {}
        for name, spec, evaluation in (
            ("MSRP", str(MSRP), "ranking"),
            ("SICK", str(SICK), "relatedness"),
            ("costra", "costra", "costra"),
        ):
            began = time.perf_counter()
            window.open_corpus(spec)
            self.settle()
            window.run()
            self.settle()
            window.evaluate(evaluation)
            self.settle()
            if name != "costra":
                window.analyses.find_suspicious()
                self.settle()
            for tab in (3, 4, 0) if name != "costra" else (3, 4, 1):
                window.views.setCurrentIndex(tab)  # Corpus, Neighbours, then the last
                self.settle()
            self.specs[name], self.seconds[name] = spec, time.perf_counter() - began
        began = time.perf_counter()
        window.open_corpus(CAPTIONS)
        self.settle()
        handed_run(window, CAPTIONS)
        self.settle()
        self.specs["captions"], self.seconds["captions"] = CAPTIONS, time.perf_counter() - began
        began = time.perf_counter()
        big = make_corpus(sentences)
        window.showing.set_corpus(big)
        handed_run(window, big.name)
        self.settle()
        self.specs["1M"], self.seconds["1M"] = big.name, time.perf_counter() - began
        self.big = big

    def settle(self, seconds: float = 0.3) -> None:
        until = time.perf_counter() + seconds
        while time.perf_counter() < until or self.window.is_running:
            self.app.processEvents()
            time.sleep(0.005)

    def double_click(self, name: str) -> None:
        """Switch to ``name`` as a double-click in the Workspace panel does."""
        panel = self.window.workspace_panel
        item = panel._corpus_item(self.specs[name])
        panel.tree.itemDoubleClicked.emit(item, 0)

    def switch(self, source: str, target: str, after_s: float = 1.5) -> dict:
        """One switch ``source`` -> ``target``: the seconds until the double-click
        returned with the events it posted processed (the new corpus drawn), and the
        longest gap of the 10 ms timer from the double-click to ``after_s`` later
        (what the switch left to run afterwards included: queued timers, jobs'
        results)."""
        self.double_click(source)
        self.settle(0.5)
        probe = Probe()
        probe.timer.start()
        profiler = None
        if self.profile is not None:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        began = time.perf_counter()
        probe.ticks.append(began)
        self.double_click(target)
        self.app.processEvents()
        returned = time.perf_counter() - began
        while time.perf_counter() - began < after_s:
            self.app.processEvents()
            time.sleep(0.001)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(self.profile / f"{source}-{target}.prof"))
        probe.timer.stop()
        shown = self.window.session.current
        assert shown is not None and shown.spec == self.specs[target], "the switch did not land"
        return {"returned": returned, "stall": float(np.diff(probe.ticks).max())}

    def close(self) -> None:
        self.window.unsaved = False
        self.window.close()


def switch_table(sentences: int, repeat: int, profile: Path | None) -> None:
    """Every pair of ``PAIRS`` both ways, ``repeat`` times each, as a table."""
    switches = Switches(sentences, profile)
    rows = []
    for source, target in PAIRS:
        for a, b in ((source, target), (target, source)):
            runs = [switches.switch(a, b) for _ in range(repeat)]
            rows.append((f"{a} -> {b}", runs))
    switches.close()
    reference = float(np.median([r["returned"] for r in rows[0][1]]))
    print(
        f"platform {QApplication.platformName()}; switching as the Workspace panel's "
        f"double-click asks, {repeat} times a pair; 1M = {switches.big.name}\n"
        f"setup: " + ", ".join(f"{k} {v:.0f} s" for k, v in switches.seconds.items()) + "\n"
    )
    header = f"{'switch':<22} {'median s':>8} {'max s':>6} {'stall ms':>8} {'ratio':>6}"
    print(header)
    print("-" * len(header))
    for label, runs in rows:
        seconds = [r["returned"] for r in runs]
        print(
            f"{label:<22} {np.median(seconds):>8.3f} {max(seconds):>6.3f} "
            f"{max(r['stall'] for r in runs) * 1000:>8.0f} "
            f"{np.median(seconds) / reference:>6.2f}"
        )
    print(
        f"load average {', '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} cores"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--encoder", default="bow", help="the run job's encoder (default bow)")
    parser.add_argument(
        "--skip", nargs="*", default=[], help="jobs to skip: umap umap-warm doc2vec"
    )
    parser.add_argument(
        "--switch", action="store_true", help="time switching between open corpora instead"
    )
    parser.add_argument(
        "--switch-sentences",
        type=int,
        default=1_000_000,
        help="sentences of the large corpus --switch opens (default 1,000,000)",
    )
    parser.add_argument("--profile", help="--switch: write a cProfile of each switch here")
    args = parser.parse_args()
    cache = tempfile.TemporaryDirectory()
    os.environ["SENTSPACE_CACHE_DIR"] = cache.name
    app = QApplication.instance() or QApplication(sys.argv)  # noqa: F841
    if args.switch:
        profile = Path(args.profile) if args.profile else None
        if profile is not None:
            profile.mkdir(parents=True, exist_ok=True)
        switch_table(args.switch_sentences, args.repeat, profile)
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
