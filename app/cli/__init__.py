"""``sentspace``: the GUI with no arguments, headless evaluations with a subcommand.

    sentspace                                   open the app on the bundled corpus
    sentspace eval classification --corpus msrp-grouped --encoder bow [--json [PATH]]
    sentspace eval relatedness --corpus STS-FOLDER --encoder minilm --compare mteb-results/
    sentspace eval ranking --corpus msrp-grouped --journal edits.jsonl [--until RECORD]
    sentspace eval relatedness --corpus SICK-FOLDER --where 'words > 12 and split == "test"'
    sentspace corpus info PATH
    sentspace encode --corpus msrp-grouped --encoder bow --out vectors.npy
    sentspace explain --encoder tfidf "sentence A" "sentence B"
    sentspace regions --corpus msrp-grouped --encoder tfidf --csv regions.csv
    sentspace neighbours --corpus msrp --encoder glove-mean [--search ann] "a sentence"
    sentspace suspicious --corpus msrp-grouped --encoder tfidf [--search exact]
    sentspace index DIR --engine local|ray      (DIR written by encode --engine)
    sentspace run WORKSPACE
    sentspace annotations agreement JOURNAL... [--corpus SPEC]
    sentspace annotations merge JOURNAL... --out FILE [--corpus SPEC]
    sentspace annotations batches WORKSPACE_OR_CORPUS --people N --out DIR [--copies K]
    sentspace reproduce PAPER [TABLE] [--quick|--full] [--out DIR] [--data DIR --items I --negatives N]

Every evaluation prints the same rows the GUI's metric panel shows. Bad input exits with
status 2 and one line naming the file, line and problem."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from sentspace.app.base.errors import InputError
from sentspace.app.cli import encode, evaluate, reproduce, review, space
from sentspace.app.cli.common import CORPUS_HELP
from sentspace.app.corpora import DEFAULT_CORPUS
from sentspace.models import DEFAULT_ENCODER, ENCODERS


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sentspace",
        description="Explore and evaluate sentence-embedding spaces. "
        "With no command, opens the app.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    gui = commands.add_parser("gui", help="open the app (the default)")
    gui.add_argument("--corpus", default=DEFAULT_CORPUS, help=CORPUS_HELP)
    gui.add_argument("--encoder", default=DEFAULT_ENCODER, choices=sorted(ENCODERS))
    gui.add_argument("--run", action="store_true", help="run the evaluation once loaded")

    evaluate.add_eval(commands)
    encode.add_encode(commands)
    encode.add_index(commands)
    space.add_explain(commands)
    space.add_regions(commands)
    space.add_export_map(commands)
    space.add_neighbours(commands)
    review.add_suspicious(commands)
    review.add_annotations(commands)
    reproduce.add_reproduce(commands)
    evaluate.add_run(commands)
    space.add_corpus(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command in (None, "gui"):
        from sentspace.app.ui.window.startup import launch  # Qt only when the GUI is wanted

        return launch(
            getattr(args, "corpus", DEFAULT_CORPUS),
            getattr(args, "encoder", DEFAULT_ENCODER),
            getattr(args, "run", False),
        )
    try:
        return args.handler(args)
    except InputError as error:
        print(f"sentspace: error: {error}", file=sys.stderr)
        return 2
