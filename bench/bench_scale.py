"""A large corpus end to end on this machine: the map on screen, then neighbours on demand.

N distinct sentences are made from the real ones in ``../shared/data`` (State of the Union,
WordNet definitions, MSRP, SentEval MR and SUBJ; no network): each is the start of one real
sentence joined to the end of another at random word boundaries, so vocabulary and
lengths are real and the sentences do not collapse into duplicates. They are written as a
text file, then timed as a person meets them:

- map on screen, what *Run* does in the window: open (``load_corpus``), then the
  window's job (``explore``: glove-mean through the embedding cache, the window's default
  layout, PCA, and its faithfulness on a 10,000-point sample, whose neighbours come from
  the index that every later neighbour search reuses), then the scatter drawn (the
  window's colours, ``ProjectionView.set_points`` and a paint, offscreen). Its stages are
  timed from the job's own progress reports; no neighbours of every point are computed;
- on demand, what the review tables and a page's neighbour lists ask for: the 10
  nearest neighbours of every point (the index built above), with the recall@10 the
  search reports and the recall@10 on the reference's own 1,000 queries (drawn apart
  from the 1,000 rows the index was tuned on);
- one neighbour query: a typed sentence against the whole corpus;
- corpus statistics (what ``corpus info`` prints); with ``--umap``, the UMAP layout
  (fitted on a 50,000 sample, the rest placed by their nearest sample points);
- peak memory (resident set) against the embedding matrix.

The reference, measured in the same run, is the exact 10-NN of 1,000 queries against the
whole pool: the ratio column says how many such exact batches each stage costs. With
``--transform-check`` it also fits UMAP on 5,000 of the sentences in this process and
places 5,000 others both ways (nearest sample points vs umap-learn's ``transform``),
printing the time and the faithfulness of each. The embeddings and the neighbour index
are cached in a temporary folder, as the app caches them.
Run: ``nice -n 5 python bench/bench_scale.py --sentences 1000000 [--umap] [--transform-check]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sentspace.app.services import format_table  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
SOURCES = (
    "state-union/sentences.txt",
    "senteval-transfer/MR/rt-polarity.pos",
    "senteval-transfer/MR/rt-polarity.neg",
    "senteval-transfer/SUBJ/subj.objective",
    "senteval-transfer/SUBJ/subj.subjective",
)


def real_sentences() -> list[str]:
    """Distinct real sentences of several datasets, in a fixed order."""
    lines: list[str] = []
    for relative in SOURCES:
        lines += (DATA / relative).read_text(encoding="utf-8", errors="replace").splitlines()
    definitions = (
        (DATA / "wordnet-definitions" / "definitions.tsv")
        .read_text(encoding="utf-8")
        .splitlines()[1:]
    )
    lines += [row.rsplit("\t", 1)[-1] for row in definitions]
    from sentspace.app.corpora import load_corpus

    lines += load_corpus(DATA / "msrp").texts
    return sorted({line.strip() for line in lines if len(line.split()) >= 3})


def make_sentences(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct sentences spliced from two real ones each."""
    real = [sentence.split() for sentence in real_sentences()]
    rng = np.random.default_rng(seed)
    made: dict[str, None] = {}
    while len(made) < n:
        size = n - len(made)
        heads, tails = rng.integers(len(real), size=(2, size))
        head_cuts, tail_cuts = rng.random((2, size))
        for h, t, ch, ct in zip(
            heads.tolist(), tails.tolist(), head_cuts.tolist(), tail_cuts.tolist()
        ):
            head, tail = real[h], real[t]
            words = head[: 1 + int(ch * (len(head) - 1))] + tail[int(ct * (len(tail) - 1)) :]
            made[" ".join(words)] = None
    return list(made)[:n]


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=200_000)
    parser.add_argument("--keep", type=Path, help="write the corpus here and keep it")
    parser.add_argument("--umap", action="store_true", help="also time the UMAP layout")
    parser.add_argument(
        "--export-map",
        type=Path,
        metavar="HTML",
        help="instead, time the phases of `sentspace export-map --corpus multi30k-captions "
        "--encoder bow --method pca --regions --out HTML` (145,000 captions)",
    )
    parser.add_argument(
        "--transform-check",
        action="store_true",
        help="compare placement with umap-learn's transform on 5,000 points",
    )
    args = parser.parse_args()
    if args.export_map:
        export_map_phases(args.export_map)
        return
    folder = tempfile.TemporaryDirectory()
    os.environ["SENTSPACE_CACHE_DIR"] = str(Path(folder.name) / "cache")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from sentspace.app.analysis.ann import RECALL_TOLERANCE, iter_knn, knn
    from sentspace.app.analysis.explore import explore
    from sentspace.app.analysis.neighbours import normalise, top_k
    from sentspace.app.analysis.projection import project
    from sentspace.app.base.jobs import run_job
    from sentspace.app.corpora import load_corpus
    from sentspace.app.corpora.stats import corpus_stats
    from sentspace.models import make_encoder

    n = args.sentences
    start = time.perf_counter()
    sentences = make_sentences(n)
    made_s = time.perf_counter() - start
    path = args.keep or Path(folder.name) / f"scale-{n}.txt"
    path.write_text("\n".join(sentences) + "\n", encoding="utf-8")
    del sentences
    print(f"{n:,} sentences made in {made_s:.1f} s -> {path}", flush=True)
    timings: list[tuple[str, float, float, str]] = []

    def timed(label, work, note=""):
        begin, cpu = time.perf_counter(), time.process_time()
        value = work()
        timings.append((label, time.perf_counter() - begin, time.process_time() - cpu, note))
        print(f"  {label}: {timings[-1][1]:.2f} s", flush=True)
        return value

    # The map on screen: what the window does after Open and Run.
    corpus = timed("open (load_corpus)", lambda: load_corpus(path))
    assert len(corpus) == n, len(corpus)
    stages = StageClock()
    exploration = timed(
        "the window's job (explore: encode, PCA, faithfulness)",
        lambda: stages.run(explore(corpus, make_encoder("glove-mean"), method="pca")),
    )
    job_row = len(timings) - 1
    draw_s, draw_cpu = draw_map(exploration)
    timings.append(("the scatter drawn (colours, set_points, paint)", draw_s, draw_cpu, ""))
    on_screen = sum(timings[i][1] for i in (0, job_row, job_row + 1))
    on_screen_cpu = sum(timings[i][2] for i in (0, job_row, job_row + 1))
    faithful = exploration.faithfulness
    timings[job_row] = (*timings[job_row][:3], f"faithfulness {faithful.describe()}")

    embeddings = exploration.embeddings
    unit = normalise(embeddings)
    rng = np.random.default_rng(1)  # not the index's own tuning rows (seed 0)
    queries = np.sort(rng.choice(n, 1_000, replace=False))
    _, reference = timed(
        "reference: exact 10-NN of 1,000 queries",
        lambda: top_k(unit.matrix[queries], unit, 10, exclude=queries),
    )
    reference_s = timings[-1][1]
    # On demand: every point's neighbours, from the index the faithfulness built.
    _, found, search = timed(
        "on demand: 10-NN of every point",
        lambda: knn(unit, unit, 10, exclude=np.arange(n), search="ann"),
    )
    own = float((found[queries] >= reference[:, -1:] - RECALL_TOLERANCE).mean())
    timings[-1] = (
        *timings[-1][:3],
        f"{search.describe()}; recall@10 {own:.3f} on the reference's queries",
    )
    del found
    encoder = exploration.encoder
    query = encoder.encode(["stocks fell on wall street after the report"])
    timed(
        "one neighbour query (index built)",
        lambda: run_job(iter_knn(query, unit, 10, search="ann")),
    )
    timed("corpus statistics", lambda: corpus_stats(corpus))
    if args.umap:
        layout = timed("UMAP: sample fit + placement", lambda: run_job(project(embeddings, "umap")))
        timings[-1] = (*timings[-1][:3], layout.describe())

    rows = [
        [label, f"{seconds:.2f}", f"{cpu:.2f}", f"{seconds / reference_s:.1f}", note]
        for label, seconds, cpu, note in timings
    ]
    for stage, (seconds, cpu) in stages.totals.items():
        rows.insert(
            job_row + 1 + list(stages.totals).index(stage),
            [f"  {stage}", f"{seconds:.2f}", f"{cpu:.2f}", f"{seconds / reference_s:.1f}", ""],
        )
    matrix_mb = embeddings.nbytes / 2**20
    print(
        f"\n{n:,} sentences, glove-mean {embeddings.shape[1]}-d "
        f"({matrix_mb:.0f} MB); ratio = seconds / reference (exact 10-NN of 1,000 queries)"
    )
    print(format_table(["stage", "seconds", "cpu s", "ratio", "note"], rows))
    print(
        f"map on screen (open + the window's job + the scatter drawn, no neighbours of "
        f"every point): {on_screen:.1f} s, {on_screen:.1f} / {reference_s:.2f} = "
        f"{on_screen / reference_s:.1f} references, {on_screen_cpu:.1f} s of CPU"
    )
    print(
        "cpu s: this process's CPU time over all its threads (the indented rows are the "
        "job's stages, by its progress reports; UMAP's fit runs in the layout helper "
        "process and is not in it)"
    )
    print(
        f"peak resident memory {peak_mb():,.0f} MB = {peak_mb() / matrix_mb:.1f}x the "
        "embedding matrix (this process)"
    )
    print(
        f"load average at the end: {', '.join(f'{v:.1f}' for v in os.getloadavg())} "
        f"on {os.cpu_count()} cores"
    )
    if args.transform_check:
        transform_check(embeddings)


class StageClock:
    """Wall and CPU seconds per phase of a job, from its progress reports: the time up
    to a report is the work of the stage it names (a stage reports after each step)."""

    PHASES = (
        ("encod", "encode (glove-mean, through the cache)"),
        ("cached", "encode (glove-mean, through the cache)"),
        ("word vectors", "encode (glove-mean, through the cache)"),
        ("projecting", "layout (PCA)"),
        ("training the neighbour index", "index: train the lists"),
        ("building the neighbour index", "index: fill the lists"),
        ("nearest neighbours", "exact 10-NN of sampled rows (tuning, recall)"),
        ("ordering", "index search"),
        ("searching", "index search"),
        ("measuring", "faithfulness's 2D neighbours"),
    )

    def __init__(self, phases: tuple[tuple[str, str], ...] = PHASES) -> None:
        self.phases = phases
        self.totals: dict[str, tuple[float, float]] = {}
        self.last = (time.perf_counter(), time.process_time())
        self.phase = ""

    def __call__(self, progress) -> None:
        self.phase = next((p for key, p in self.phases if key in progress.stage), progress.stage)
        self.finish()

    def run(self, job):
        """``job`` run to its end, timed by stage."""
        from sentspace.app.base.jobs import run_job

        value = run_job(job, self)
        self.finish()
        return value

    def finish(self) -> None:
        """The time since the last report is its stage's (the job's last step)."""
        now = (time.perf_counter(), time.process_time())
        wall, cpu = self.totals.get(self.phase, (0.0, 0.0))
        self.totals[self.phase] = (wall + now[0] - self.last[0], cpu + now[1] - self.last[1])
        self.last = now


def export_map_phases(out: Path) -> None:
    """The web map of the 145,000 Multi30K captions by bag of words, as the command
    makes it (in this process, its jobs timed by stage); pynndescent's numba code
    compiles on a first run into ``$NUMBA_CACHE_DIR`` (or beside its modules)."""
    from sentspace.app.cli import common
    from sentspace.app.cli import main as command

    clock = StageClock(phases=())
    common.TerminalJobs.run = lambda self, job: clock.run(job)  # type: ignore[method-assign]
    begin, cpu = time.perf_counter(), time.process_time()
    command(
        [
            "export-map",
            "--corpus",
            "multi30k-captions",
            "--encoder",
            "bow",
            "--method",
            "pca",
            "--regions",
            "--out",
            str(out),
        ]
    )
    total, total_cpu = time.perf_counter() - begin, time.process_time() - cpu
    rows = [
        [stage, f"{seconds:.2f}", f"{cpu:.2f}", f"{seconds / total:.2f}"]
        for stage, (seconds, cpu) in clock.totals.items()
    ]
    rows.append(
        [
            "all (reading the corpus, imports and writing included)",
            f"{total:.2f}",
            f"{total_cpu:.2f}",
            "1.00",
        ]
    )
    print(format_table(["stage", "seconds", "cpu s", "share"], rows))
    print(
        f"numba cache {os.environ.get('NUMBA_CACHE_DIR', 'beside the modules')}; load average "
        f"at the end: {', '.join(f'{v:.1f}' for v in os.getloadavg())} on {os.cpu_count()} cores"
    )


def draw_map(exploration) -> tuple[float, float]:
    """Seconds (wall, CPU) from a finished run to its map painted in the window's
    scatter: the colours the window chooses for the corpus, ``set_points``, a paint."""
    from PySide6.QtWidgets import QApplication

    from sentspace.app.analysis.columns import sentence_columns
    from sentspace.app.state.colouring import (
        colour_by,
        colourings,
        default_colouring,
        point_colours,
    )
    from sentspace.app.ui.views.projection_view import ProjectionView

    app = QApplication.instance() or QApplication([])
    view = ProjectionView()
    view.resize(1000, 700)
    view.show()
    app.processEvents()
    begin, cpu = time.perf_counter(), time.process_time()
    corpus = exploration.corpus
    offered = colourings(sentence_columns(corpus, faithfulness=exploration.faithfulness))
    key = default_colouring(corpus, offered)
    colouring = point_colours(exploration, colour_by(offered[key], key), None, corpus)
    view.set_points(
        exploration.projection.coordinates,
        colouring.colours,
        str,
        exploration.projection.axis_labels,
        colouring.legend,
        colouring.scale,
    )
    view.plot.viewport().repaint()
    app.processEvents()
    seconds = time.perf_counter() - begin, time.process_time() - cpu
    view.close()
    return seconds


def transform_check(embeddings: np.ndarray, size: int = 5_000) -> None:
    """UMAP fitted on ``size`` points here, ``size`` others placed by nearest sample
    points and by umap-learn's transform: seconds and faithfulness of the placed ones."""
    import umap

    from sentspace.app.analysis.projection import faithfulness, place_by_neighbours
    from sentspace.app.base.jobs import run_job

    rng = np.random.default_rng(1)
    chosen = np.sort(rng.choice(len(embeddings), 2 * size, replace=False))
    data = embeddings[chosen]
    fitted = np.arange(0, 2 * size, 2)
    placed = np.arange(1, 2 * size, 2)
    reducer = umap.UMAP(n_components=2, random_state=0, n_jobs=1, metric="cosine")
    reducer.fit(data[fitted])
    begin = time.perf_counter()
    ours = run_job(place_by_neighbours(data, fitted, reducer.embedding_))
    ours_s = time.perf_counter() - begin
    begin = time.perf_counter()
    theirs = np.empty_like(ours)
    theirs[fitted] = reducer.embedding_
    theirs[placed] = reducer.transform(data[placed])
    theirs_s = time.perf_counter() - begin
    rows = []
    for label, layout, seconds in (
        ("nearest sample points", ours, ours_s),
        ("umap-learn transform", theirs, theirs_s),
    ):
        overlap = faithfulness(data, layout).overlap
        rows.append(
            [
                label,
                f"{seconds:.2f}",
                f"{seconds / ours_s:.1f}",
                f"{overlap[placed].mean():.3f}",
                f"{overlap[fitted].mean():.3f}",
            ]
        )
    print(f"\nplacing {size:,} points beside a UMAP fitted on {size:,} (same run)")
    print(
        format_table(
            ["placement", "seconds", "ratio", "faithfulness placed", "faithfulness fitted"], rows
        )
    )


if __name__ == "__main__":
    main()
