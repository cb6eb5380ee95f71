"""Embeddings written for elsewhere: ``encode`` (a file, or shards on Ray) and ``index``."""

from __future__ import annotations

import argparse
from pathlib import Path

from sentspace.app.analysis.distributed import (
    DEFAULT_SHARD_ROWS,
    ENGINES,
    encode_shards,
    index_shards,
)
from sentspace.app.cli.common import (
    CORPUS_HELP,
    ENCODER_HELP,
    Subcommands,
    TerminalJobs,
    add_ray_arguments,
    fitted_embeddings,
)
from sentspace.app.corpora import DEFAULT_CORPUS, load_corpus
from sentspace.app.exporters.export import export_matrix
from sentspace.app.services import (
    run_in_terminal,
)
from sentspace.models import DEFAULT_ENCODER


def command_encode(args: argparse.Namespace) -> int:
    if args.engine:
        return command_encode_shards(args)
    corpus = load_corpus(args.corpus)
    with TerminalJobs() as jobs:
        encoder, matrix = fitted_embeddings(args.encoder, corpus, jobs)
    written = export_matrix(
        corpus,
        matrix,
        Path(args.out),
        {
            "encoder": {
                "name": encoder.name,
                "family": encoder.family,
                "params": encoder.params(),
                "fingerprint": encoder.fingerprint(),
                "training": encoder.training_scores,
            }
        },
    )
    print(
        f"{matrix.shape[0]} x {matrix.shape[1]} embeddings of {corpus.name} by "
        f"{encoder.name}: {', '.join(str(path) for path in written)}"
    )
    if encoder.training_report:
        print(f"{encoder.name}: {encoder.training_report}")
    return 0


def command_encode_shards(args: argparse.Namespace) -> int:
    done = run_in_terminal(
        encode_shards(
            args.corpus,
            args.encoder,
            args.out,
            shard_rows=args.shard_rows,
            engine=args.engine,
            address=args.address,
            num_cpus=args.num_cpus,
            workers=args.workers,
        )
    )
    print(
        f"{done.rows} x {done.dim} embeddings in {done.shards} shards ({done.written} "
        f"encoded by {done.engine}, {done.reused} kept from an earlier run): {done.out_dir}"
    )
    return 0


def command_index(args: argparse.Namespace) -> int:
    built = run_in_terminal(
        index_shards(args.folder, engine=args.engine, address=args.address, num_cpus=args.num_cpus)
    )
    print(
        f"IVF-SQ8 index of {built.rows:,} rows ({built.lists} lists, {built.shards} "
        f"shards added by {built.engine}), {built.search.describe()}: {built.path}"
    )
    return 0


def add_encode(commands: Subcommands) -> None:
    """``sentspace encode``."""
    encode = commands.add_parser("encode", help="write a corpus's embeddings to a file")
    encode.add_argument("--corpus", default=DEFAULT_CORPUS, help=CORPUS_HELP)
    encode.add_argument("--encoder", default=DEFAULT_ENCODER, help=ENCODER_HELP)
    encode.add_argument(
        "--out",
        required=True,
        help="*.npy (+ JSON sidecar), *.parquet, or vectors.tsv / a folder "
        "(Embedding Projector pair); with --engine, a folder of "
        "Parquet shards and manifest.json (precomputed:DIR reads it)",
    )
    encode.add_argument(
        "--engine",
        choices=ENGINES,
        help="encode in shards, resumable: in this process (local) or on "
        "Ray Data (ray; needs the ray extra)",
    )
    add_ray_arguments(
        encode,
        "with --engine ray: the Ray cluster to join "
        "(auto, ray://HOST:10001, HOST:6379); default: start a local one",
    )
    encode.add_argument(
        "--workers", type=int, help="Ray actors (default: one per GPU, else one per CPU)"
    )
    encode.add_argument(
        "--shard-rows",
        type=int,
        default=DEFAULT_SHARD_ROWS,
        help=f"sentences per shard, rounded up to whole encoder batches "
        f"(default {DEFAULT_SHARD_ROWS})",
    )
    encode.set_defaults(handler=command_encode)


def add_index(commands: Subcommands) -> None:
    """``sentspace index``."""
    index = commands.add_parser(
        "index",
        help="build the approximate neighbour index of a folder of shards",
        description="An IVF-SQ8 index trained on a seeded sample of the shards' rows, each "
        "shard's rows added in this process (local) or in a Ray task (ray), kept in the "
        "cache where searching precomputed:FOLDER approximately finds it.",
    )
    index.add_argument("folder", help="a folder written by sentspace encode --engine")
    index.add_argument("--engine", choices=ENGINES, default="local")
    add_ray_arguments(index, "with --engine ray: the Ray cluster to join")
    index.set_defaults(handler=command_index)
