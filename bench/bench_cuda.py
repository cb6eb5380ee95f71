"""The trained encoders' CUDA path, on a machine with a GPU: does it train, repeat and
reload, and how much faster than the CPU is it?

1. ``nmt:en-de`` at its default sizes trains on Multi30K task 1 (29,000 pairs, 2 epochs)
   twice in this process: the two runs must give the same losses and vectors (seeded,
   deterministic algorithms, cuBLAS's fixed workspace). The trained model translates the
   val set (BLEU beside copying the source), is saved, reloaded and must encode
   bit-identically; a CPU-only subprocess loads the same file and encodes the same
   sentences (CPU and CUDA differ by float rounding: the largest difference is printed).
2. Training speed, examples per second over ``--batches`` batches after one warm-up
   batch: each family on CUDA and in a CPU-only subprocess with torch on 2 threads (the
   2-core machines sentspace's defaults are sized for), on the same machine; and
   ``nmt:en-de`` at the paper's sizes (``paper_params``) on CUDA, with one epoch
   extrapolated.

3. With ``--transformer DIR`` (a sentence-transformers folder, e.g. the bundled
   all-MiniLM-L6-v2): STS-B test's Spearman correlation through sentspace's wrapper on
   CUDA and on the CPU (MTEB publishes 0.8203 for MiniLM), and encoding speed on each.

Needs torch and sacrebleu (no GloVe, no Qt). ``--data DIR`` holds ``multi30k/task1/raw``,
``state-union/sentences.txt`` and ``sts/STSBenchmark/sts-test.csv`` (default
``../shared/data``).
Run: ``python bench/bench_cuda.py [--data DIR] [--batches 30] [--transformer DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Family specs timed on both devices, and the texts they train on.
FAMILIES = {"nmt:en-de": "multi30k", "sdae": "state-union", "skipthought": "state-union"}


def training_texts(kind: str, data: Path) -> list[str]:
    from sentspace.models.neural import read_ordered_text

    if kind == "state-union":
        return read_ordered_text(data / "state-union" / "sentences.txt")
    return []  # nmt:PAIR reads Multi30K itself


def make(spec: str, paper: bool = False):
    from sentspace.models import make_encoder

    encoder = make_encoder(spec)
    if paper:
        encoder = type(encoder)(**{**encoder.params(), **encoder.paper_params})
    # SkipThought's expansion links its words to GloVe's (not carried to a GPU machine);
    # it adds one small matrix, so the timing holds with it.
    encoder.expands_vocabulary = False
    return encoder


def training_rate(spec: str, data: Path, batches: int, paper: bool = False) -> dict:
    """Examples per second over ``batches`` batches after one warm-up batch."""
    from sentspace.models.neural import _remembered

    _remembered.cache_clear()  # a pair trained earlier in this process would not train
    encoder = make(spec, paper)
    job = encoder.iter_fit(training_texts(FAMILIES[spec], data))
    seen, start = 0, None
    for progress in job:
        if not progress.stage.startswith("training"):
            continue
        seen += 1
        if seen == 1:
            start = time.perf_counter()  # after the vocabulary and the first batch
        if seen == batches + 1:
            break
    seconds = time.perf_counter() - start
    job.close()
    examples = batches * encoder.batch_sentences
    per_epoch = progress.total // encoder.epochs
    return {
        "rate": examples / seconds,
        "epoch_s": per_epoch * seconds / batches,
        "batch": encoder.batch_sentences,
    }


def cpu_subprocess(*args: str) -> dict:
    """Run this script's ``--child`` mode with the GPU hidden and torch on 2 threads."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", SENTSPACE_TORCH_THREADS="2")
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def sts_test(data: Path) -> tuple[list[str], list[str], np.ndarray]:
    """STS-B test's sentence pairs and gold scores (tab-separated; column 5 the score)."""
    rows = [
        line.split("\t")
        for line in (data / "sts" / "STSBenchmark" / "sts-test.csv")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    return (
        [row[5] for row in rows],
        [row[6] for row in rows],
        np.array([float(row[4]) for row in rows]),
    )


def transformer_run(model_dir: str, data: Path) -> dict:
    """STS-B test Spearman and encoding speed of the wrapper on this process's device."""
    from scipy.stats import spearmanr

    from sentspace.models.transformer import SentenceTransformerEncoder

    first, second, gold = sts_test(data)
    encoder = SentenceTransformerEncoder(model_dir)
    encoder.encode(first[:64])  # load and warm up
    start = time.perf_counter()
    a, b = encoder.encode(first), encoder.encode(second)
    seconds = time.perf_counter() - start
    cosine = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    return {
        "spearman": float(spearmanr(cosine, gold).statistic),
        "pairs": len(gold),
        "rate": 2 * len(gold) / seconds,
        "device": encoder.device_,
    }


def child(args: list[str]) -> None:
    import torch

    torch.set_num_threads(int(os.environ.get("SENTSPACE_TORCH_THREADS", "2")))
    if args[0] == "rate":
        print(json.dumps(training_rate(args[1], Path(args[2]), int(args[3]))))
    elif args[0] == "transformer":
        print(json.dumps(transformer_run(args[1], Path(args[2]))))
    else:  # encode SAVED_MODEL SENTENCES_JSON OUT_NPY
        from sentspace.models.nmt import NMT

        model = NMT.load(args[1])
        np.save(args[3], model.encode(json.loads(Path(args[2]).read_text())))
        print(json.dumps({"device": "cpu"}))


def nmt_on_cuda(data: Path) -> None:
    from sentspace.app.base.jobs import run_job
    from sentspace.app.corpora.multi30k import read_gz_lines
    from sentspace.models.neural import _remembered
    from sentspace.models.nmt import NMT, multi30k_files

    val = read_gz_lines(multi30k_files("en-de", "val")[0])
    runs = []
    for _ in range(2):
        _remembered.cache_clear()  # else the second run reuses the first's training
        encoder = NMT(pair="en-de")
        start = time.perf_counter()
        run_job(encoder.iter_fit([]))
        runs.append((encoder, time.perf_counter() - start, encoder.encode(val)))
    (first, seconds, vectors), (second, seconds_again, vectors_again) = runs
    print(
        f"nmt:en-de, default sizes, {first.n_training_sentences_:,} pairs x "
        f"{first.epochs} epochs: {seconds:.0f} s and {seconds_again:.0f} s "
        "(training and the val translation score)"
    )
    print(f"  {first.translation_.message()}")
    print(
        f"  repeated run: losses equal {first.losses_ == second.losses_}, vectors equal "
        f"{np.array_equal(vectors, vectors_again)}"
    )
    with tempfile.TemporaryDirectory() as folder:
        saved = first.save(Path(folder) / "nmt-en-de")
        reloaded = NMT.load(saved).encode(val)
        print(f"  saved and reloaded on CUDA: bit-identical {np.array_equal(vectors, reloaded)}")
        sentences = Path(folder) / "val.json"
        sentences.write_text(json.dumps(val))
        on_cpu = Path(folder) / "cpu.npy"
        env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                "encode",
                str(saved),
                str(sentences),
                str(on_cpu),
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        difference = np.abs(np.load(on_cpu) - vectors).max()
        print(
            f"  the same file encoded on the CPU: largest difference {difference:.2e} "
            f"(vector entries up to {np.abs(vectors).max():.2f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--batches", type=int, default=30)
    parser.add_argument("--transformer", help="a sentence-transformers folder")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child)
    os.environ.setdefault("SENTSPACE_MULTI30K", str(args.data / "multi30k"))
    import torch

    from sentspace.models.neural import device

    if device() != "cuda":
        sys.exit("torch sees no GPU: nothing to measure")
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}\n")
    nmt_on_cuda(args.data)
    print(
        f"\ntraining speed, examples/s over {args.batches} batches (CPU: torch on 2 "
        "threads, this machine)"
    )
    print("| family | batch | CUDA | CPU, 2 threads | ratio | one epoch on CUDA |")
    print("|---|---|---|---|---|---|")
    for spec in FAMILIES:
        cuda = training_rate(spec, args.data, args.batches)
        cpu = cpu_subprocess("rate", spec, str(args.data), str(max(3, args.batches // 5)))
        print(
            f"| {spec} | {cuda['batch']} | {cuda['rate']:,.0f} | {cpu['rate']:,.0f} | "
            f"{cuda['rate'] / cpu['rate']:.1f}x | {cuda['epoch_s']:.0f} s |",
            flush=True,
        )
    paper = training_rate("nmt:en-de", args.data, args.batches, paper=True)
    print(
        f"| nmt:en-de, paper sizes | {paper['batch']} | {paper['rate']:,.0f} | | | "
        f"{paper['epoch_s']:.0f} s |"
    )
    if args.transformer:
        cuda = transformer_run(args.transformer, args.data)
        cpu = cpu_subprocess("transformer", args.transformer, str(args.data))
        print(
            f"\n{Path(args.transformer).name} on STS-B test ({cuda['pairs']:,} pairs), "
            f"through sentspace's wrapper:\n| device | Spearman | sentences/s |\n|---|---|---|"
        )
        for row in (cuda, cpu):
            print(f"| {row['device']} | {row['spearman']:.4f} | {row['rate']:,.0f} |")


if __name__ == "__main__":
    main()
