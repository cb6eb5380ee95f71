"""A large corpus end to end on this machine: open, encode, neighbours, layout, memory.

N distinct sentences are made from the real ones in ``../shared/data`` (State of the Union,
WordNet definitions, MSRP, SentEval MR and SUBJ; no network): each is the start of one real
sentence joined to the end of another at random word boundaries, so vocabulary and
lengths are real and the sentences do not collapse into duplicates. They are written as a
text file, then:

- open: ``load_corpus`` of the file, and ``corpus_stats`` (what ``corpus info`` prints);
- encode: glove-mean;
- ANN: index build + the 10 nearest neighbours of every point, recall@10 against the
  exact scan on 1,000 sampled queries;
- UMAP: fitted on a 50,000 sample, the rest placed by their nearest sample points;
- one neighbour query: a typed sentence against the whole corpus, the index built;
- faithfulness on a 10,000-point sample;
- peak memory (resident set) against the embedding matrix.

The reference, measured in the same run, is the exact 10-NN of 1,000 queries against the
whole pool: the ratio column says how many such exact batches each stage costs. With
``--transform-check`` it also fits UMAP on 5,000 of the sentences in this process and
places 5,000 others both ways (nearest sample points vs umap-learn's ``transform``),
printing the time and the faithfulness of each. The neighbour index is cached in a
temporary folder, so later stages reuse it as the app does.
Run: ``python bench/bench_scale.py --sentences 200000 [--transform-check]``.
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
    parser.add_argument(
        "--transform-check",
        action="store_true",
        help="compare placement with umap-learn's transform on 5,000 points",
    )
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory()
    os.environ["SENTSPACE_CACHE_DIR"] = str(Path(folder.name) / "cache")

    from sentspace.app.analysis.ann import iter_knn, knn
    from sentspace.app.analysis.neighbours import normalise, top_k
    from sentspace.app.analysis.projection import faithfulness, project
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
    print(f"{n:,} sentences made in {made_s:.1f} s -> {path}", flush=True)
    timings: list[tuple[str, float, str]] = []

    def timed(label, work, note=""):
        begin, cpu = time.perf_counter(), time.process_time()
        value = work()
        timings.append((label, time.perf_counter() - begin, note, time.process_time() - cpu))
        print(f"  {label}: {timings[-1][1]:.2f} s", flush=True)
        return value

    corpus = timed("open (load_corpus)", lambda: load_corpus(path))
    assert len(corpus) == n, len(corpus)
    timed("corpus statistics", lambda: corpus_stats(corpus))
    encoder = make_encoder("glove-mean")
    embeddings = timed("encode glove-mean", lambda: encoder.encode(corpus.texts))
    unit = normalise(embeddings)
    rng = np.random.default_rng(0)
    queries = np.sort(rng.choice(n, 1_000, replace=False))
    reference = timed(
        "reference: exact 10-NN of 1,000 queries",
        lambda: top_k(unit.matrix[queries], unit, 10, exclude=queries),
    )
    del reference
    _, _, search = timed(
        "ANN build + 10-NN of every point",
        lambda: knn(unit, unit, 10, exclude=np.arange(n), search="ann"),
    )
    timings[-1] = (*timings[-1][:2], search.describe(), timings[-1][3])
    layout = timed("UMAP: sample fit + placement", lambda: run_job(project(embeddings, "umap")))
    timings[-1] = (*timings[-1][:2], layout.describe(), timings[-1][3])
    # What a click costs: the index, and its recall@10 (measured as it was tuned), built.
    query = encoder.encode(["stocks fell on wall street after the report"])
    timed(
        "one neighbour query (index built)",
        lambda: run_job(iter_knn(query, unit, 10, search="ann")),
    )
    faithful = timed(
        "faithfulness", lambda: faithfulness(embeddings, layout.coordinates, search="ann")
    )
    timings[-1] = (
        *timings[-1][:2],
        f"{faithful.mean_overlap:.3f} {faithful.describe()}",
        timings[-1][3],
    )

    reference_s = timings[3][1]
    rows = [
        [label, f"{seconds:.2f}", f"{cpu:.2f}", f"{seconds / reference_s:.1f}", note]
        for label, seconds, note, cpu in timings
    ]
    matrix_mb = embeddings.nbytes / 2**20
    print(
        f"\n{n:,} sentences, glove-mean {embeddings.shape[1]}-d "
        f"({matrix_mb:.0f} MB); ratio = seconds / reference (exact 10-NN of 1,000 queries)"
    )
    print(format_table(["stage", "seconds", "cpu s", "ratio", "note"], rows))
    print(
        "cpu s: this process's CPU time over all its threads (UMAP's fit runs in the "
        "layout helper process and is not in it)"
    )
    print(
        f"peak resident memory {peak_mb():,.0f} MB = {peak_mb() / matrix_mb:.1f}x the "
        "embedding matrix (this process; UMAP fits in the layout helper process)"
    )
    print(
        f"load average at the end: {', '.join(f'{v:.1f}' for v in os.getloadavg())} "
        f"on {os.cpu_count()} cores"
    )
    if args.transform_check:
        transform_check(embeddings)


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
