"""``sentspace``: the GUI with no arguments, headless evaluations with a subcommand.

    sentspace                                   open the app on the bundled corpus
    sentspace eval classification --corpus msrp-grouped --encoder bow [--json [PATH]]
    sentspace corpus info PATH
    sentspace encode --corpus msrp-grouped --encoder bow --out vectors.npy
    sentspace run WORKSPACE

Every evaluation prints the same rows the GUI's metric panel shows. Bad input exits with
status 2 and one line naming the file, line and problem.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from app.atomic import write_text_atomic
from app.corpora import BUILTIN, DEFAULT_CORPUS, ColumnMapping, load_corpus
from app.corpora.stats import corpus_stats
from app.corpora.tabular import ROLES as MAPPING_ROLES
from app.errors import InputError
from app.evaluations import COMPARISONS, EVALUATIONS
from app.evaluations.paired import PAIRED_TESTS, paired_test
from app.workspace import changed_summaries, load_workspace, run_workspace
from app.corpora.model import Corpus
from app.export import export_matrix
from app.jobs import Progress, run_job
from app.neighbours import fitted_on_training_side
from models import DEFAULT_ENCODER, ENCODERS, make_encoder
from models.base import Encoder
from models.precomputed import Precomputed

PRECOMPUTED = "precomputed:"
ENCODER_HELP = (f"encoder: {', '.join(ENCODERS)}, or {PRECOMPUTED}PATH for embeddings "
                "computed elsewhere (.npy, .npz, vectors.tsv, .parquet)")



def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(cell).ljust(w) for cell, w in zip(row, widths)).rstrip()
             for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


class ProgressPrinter:
    """One self-overwriting progress line on stderr when it is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, progress: Progress) -> None:
        if self.enabled:
            print(f"\r{progress.stage}: {progress.done}/{progress.total}\033[K", end="",
                  file=sys.stderr, flush=True)

    def clear(self) -> None:
        if self.enabled:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def build_encoder(spec: str, corpus: Corpus) -> Encoder:
    """An encoder from its CLI spelling; precomputed embeddings are aligned to ``corpus``."""
    if spec.startswith(PRECOMPUTED):
        return Precomputed(spec.removeprefix(PRECOMPUTED), corpus)
    try:
        return make_encoder(spec)
    except ValueError as error:
        raise InputError(str(error)) from None


def command_eval(args: argparse.Namespace) -> int:
    corpus = load_corpus(args.corpus)
    specs = args.encoder or [DEFAULT_ENCODER]
    if args.evaluation in COMPARISONS and len(specs) < 2:
        raise InputError(f"{args.evaluation} compares encoders: give two or more --encoder")
    encoders = [build_encoder(spec, corpus) for spec in specs]
    printer = ProgressPrinter()
    if args.evaluation in COMPARISONS:
        compare, _ = COMPARISONS[args.evaluation]
        results = [run_job(compare(corpus, encoders, seed=args.seed), printer)]
    else:
        evaluation, _ = EVALUATIONS[args.evaluation]
        results = [run_job(evaluation(corpus, encoder, seed=args.seed), printer)
                   for encoder in encoders]
    printer.clear()
    paired = []
    if args.evaluation in PAIRED_TESTS:
        paired = [(results[0], other, paired_test(args.evaluation, results[0], other,
                                                  seed=args.seed))
                  for other in results[1:]]

    payload = {"evaluation": args.evaluation, "results": [r.to_dict() for r in results],
               "paired_tests": [{"a": a.provenance.encoder_name,
                                 "b": b.provenance.encoder_name, **test.__dict__}
                                for a, b, test in paired]}
    text = json.dumps(payload, indent=2, default=float)
    if args.json == "-":
        print(text)
        return 0
    if args.json:
        write_text_atomic(Path(args.json), text + "\n")
    first = results[0].provenance
    print(f"{args.evaluation} on {first.corpus_name} ({len(corpus)} sentences, "
          f"corpus {first.corpus_fingerprint}), seed {args.seed}")
    print(summary_table(results))
    if paired:
        what = PAIRED_TESTS[args.evaluation][0]
        print(f"\npaired tests of {what}, each encoder against "
              f"{results[0].provenance.encoder_name}")
        print(summary_table([test for _, _, test in paired],
                            [b.provenance.encoder_name for _, b, _ in paired]))
    return 0


def summary_table(results, names: Sequence[str] | None = None) -> str:
    """The results' ``summary()`` rows side by side, one column per result."""
    names = names or [r.provenance.encoder_name for r in results]
    summaries = [dict(r.summary()) for r in results]
    labels = list(dict.fromkeys(label for summary in summaries for label in summary))
    rows = [[label, *(summary.get(label, "") for summary in summaries)] for label in labels]
    return format_table(["metric", *names], rows)


def command_run(args: argparse.Namespace) -> int:
    workspace = load_workspace(args.workspace)
    printer = ProgressPrinter()
    results = run_workspace(args.workspace, printer)
    printer.clear()
    for entry, result in zip(workspace.evaluations, results):
        provenance = result.provenance
        print(f"{entry.name}: {provenance.encoder_name} on {provenance.corpus_name}"
              f"{' (corrected)' if entry.corrected else ''}, seed {entry.seed}")
        print(summary_table([result]) + "\n")
    changed = changed_summaries(workspace, results)
    for index, _, _ in changed:
        print(f"evaluation {index + 1} ({workspace.evaluations[index].name}) differs from "
              f"the saved result", file=sys.stderr)
    return 1 if changed else 0


def command_encode(args: argparse.Namespace) -> int:
    corpus = load_corpus(args.corpus)
    printer = ProgressPrinter()
    encoder = run_job(fitted_on_training_side(build_encoder(args.encoder, corpus), corpus,
                                              corpus.texts, None), printer)
    matrix = run_job(encoder.iter_encode(corpus.texts), printer)
    printer.clear()
    written = export_matrix(corpus, matrix, Path(args.out), {
        "encoder": {"name": encoder.name, "family": encoder.family,
                    "params": encoder.params(), "fingerprint": encoder.fingerprint()}})
    print(f"{matrix.shape[0]} x {matrix.shape[1]} embeddings of {corpus.name} by "
          f"{encoder.name}: {', '.join(str(path) for path in written)}")
    return 0


def command_corpus_info(args: argparse.Namespace) -> int:
    roles = {role: getattr(args, f"{role}_column") for role in MAPPING_ROLES}
    roles = {role: int(value) if value.isdigit() else value
             for role, value in roles.items() if value is not None}
    mapping = (ColumnMapping(**roles, delimiter=args.delimiter,
                             header=False if args.no_header else None)
               if roles or args.delimiter or args.no_header else None)
    corpus = load_corpus(args.path, mapping)
    stats = corpus_stats(corpus)
    if args.json:
        print(json.dumps({**stats.to_dict(), "fingerprint": corpus.fingerprint,
                          "sources": list(corpus.sources),
                          "warnings": list(corpus.warnings)}, indent=2))
        return 0
    rows = [[label, value] for label, value in stats.rows()]
    rows.insert(3, ["fingerprint", corpus.fingerprint])
    print(format_table(["property", "value"], rows))
    if len(stats.group_sizes):
        print(f"\n{stats.group_kind} sizes")
        print(format_table(["size", stats.groups_label],
                           [[f"{lo}" if lo == hi else f"{lo}-{hi}", f"{n:,}"]
                            for lo, hi, n in stats.size_histogram()]))
    for title, table in (("split", stats.pair_splits), ("subset", stats.pair_subsets)):
        if len(table) > 1 or (table and title == "split"):
            print(f"\npairs by {title}")
            print(format_table([title, "pairs", "labels"], [
                [name or "-", f"{n:,}",
                 ", ".join(f"{label} {count:,}" for label, count in labels.items())]
                for name, n, labels in table]))
    if stats.overlap_basis:
        edges, positive, negative = stats.overlap_histogram()
        print(f"\nword overlap (Jaccard of word sets), positive vs negative: "
              f"{stats.overlap_basis}")
        print(format_table(["overlap", "positive", "negative"],
                           [[f"{lo:.1f}-{hi:.1f}", f"{p:,}", f"{n:,}"] for lo, hi, p, n
                            in zip(edges, edges[1:], positive, negative)]))
    for warning in corpus.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sentspace", description="Explore and evaluate sentence-embedding spaces. "
        "With no command, opens the app.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    gui = commands.add_parser("gui", help="open the app (the default)")
    gui.add_argument("--corpus", default=DEFAULT_CORPUS,
                     help=f"built-in corpus ({', '.join(BUILTIN)}) or path")
    gui.add_argument("--encoder", default=DEFAULT_ENCODER, choices=sorted(ENCODERS))
    gui.add_argument("--run", action="store_true", help="run the evaluation once loaded")

    evaluate = commands.add_parser("eval", help="run an evaluation headless")
    evaluate.add_argument("evaluation", choices=[*EVALUATIONS, *COMPARISONS],
                          metavar="EVALUATION",
                          help="; ".join(f"{name}: {about}" for name, (_, about)
                                         in {**EVALUATIONS, **COMPARISONS}.items()))
    evaluate.add_argument("--corpus", default=DEFAULT_CORPUS,
                          help=f"built-in corpus ({', '.join(BUILTIN)}) or path "
                               f"(default {DEFAULT_CORPUS})")
    evaluate.add_argument("--encoder", action="append",
                          help=f"{ENCODER_HELP}; repeat to compare several "
                               f"(default {DEFAULT_ENCODER})")
    evaluate.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    evaluate.add_argument("--json", nargs="?", const="-", metavar="PATH",
                          help="print JSON instead of the table, or write it to PATH")
    evaluate.set_defaults(handler=command_eval)

    encode = commands.add_parser("encode", help="write a corpus's embeddings to a file")
    encode.add_argument("--corpus", default=DEFAULT_CORPUS,
                        help=f"built-in corpus ({', '.join(BUILTIN)}) or path")
    encode.add_argument("--encoder", default=DEFAULT_ENCODER, help=ENCODER_HELP)
    encode.add_argument("--out", required=True,
                        help="*.npy (+ JSON sidecar), *.parquet, or vectors.tsv / a folder "
                             "(Embedding Projector pair)")
    encode.set_defaults(handler=command_encode)

    run = commands.add_parser("run", help="re-run a saved workspace's evaluations; exits 1 "
                              "when a number differs from the saved one")
    run.add_argument("workspace", help="a workspace file saved by the app")
    run.set_defaults(handler=command_run)

    corpus = commands.add_parser("corpus", help="inspect a corpus")
    corpus_commands = corpus.add_subparsers(dest="corpus_command", required=True)
    info = corpus_commands.add_parser(
        "info", help="print a corpus's statistics",
        description="Counts, group sizes, vocabulary, tokens per sentence and the word "
        "overlap of positive vs negative pairs. For your own CSV/TSV/JSONL, columns named "
        "text/sentence, group, label, sentence1/sentence2, score are found by name; the "
        "--*-column options name others (a header name or a 0-based index).")
    info.add_argument("path", help="built-in corpus name or path")
    info.add_argument("--json", action="store_true", help="print JSON instead of tables")
    for role in MAPPING_ROLES:
        info.add_argument(f"--{role}-column", metavar="COLUMN",
                          help=f"column holding the {role} (name or 0-based index)")
    info.add_argument("--delimiter", help="column separator of a table (default: by "
                      "extension, comma for .csv, tab otherwise)")
    info.add_argument("--no-header", action="store_true",
                      help="the table's first row is data, not column names")
    info.set_defaults(handler=command_corpus_info)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in (None, "gui"):
        from app.ui.startup import launch  # Qt only when the GUI is wanted

        return launch(getattr(args, "corpus", DEFAULT_CORPUS),
                      getattr(args, "encoder", DEFAULT_ENCODER), getattr(args, "run", False))
    try:
        return args.handler(args)
    except InputError as error:
        print(f"sentspace: error: {error}", file=sys.stderr)
        return 2
