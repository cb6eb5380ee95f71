"""Annotations: ``suspicious`` (what the space disagrees with) and ``annotations``
(agreement, merge and batches of a team's journals)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from sentspace.app.analysis.ann import SEARCHES
from sentspace.app.analysis.suspicious import iter_find_suspicious
from sentspace.app.annotations.agreement import agreement, author_pairs
from sentspace.app.annotations.history import History
from sentspace.app.annotations.journal import merge_into, read_journal
from sentspace.app.base.errors import InputError
from sentspace.app.cli.common import (
    CORPUS_HELP,
    ENCODER_HELP,
    SEARCH_HELP,
    Subcommands,
    journal_records,
    naming_the_corpus,
)
from sentspace.app.corpora import BUILTIN, DEFAULT_CORPUS, load_corpus
from sentspace.app.services import (
    build_encoder,
    format_table,
    run_in_terminal,
)
from sentspace.app.workspace.batches import batch_journals, export_batches, split_batches
from sentspace.app.workspace.format import load_workspace
from sentspace.app.workspace.model import EXTENSION
from sentspace.app.workspace.paths import workspace_journal
from sentspace.app.workspace.restore import load_workspace_corpus, saved_review_lists
from sentspace.models import DEFAULT_ENCODER


def suspicious_lists(corpus, encoder_specs: list[str] | None, search: str) -> dict:
    """The suspicious-annotation lists of ``corpus`` by the encoders named (default:
    the default encoder), with a progress bar; InputError when it has nothing to check."""

    encoders = [build_encoder(spec, corpus) for spec in encoder_specs or [DEFAULT_ENCODER]]
    tables = run_in_terminal(iter_find_suspicious(corpus, encoders, search=search))
    if not tables:
        raise InputError(
            f"corpus {corpus.name!r} has no groups, scored pairs or Costra orderings to check"
        )
    return tables


def command_suspicious(args: argparse.Namespace) -> int:
    tables = suspicious_lists(load_corpus(args.corpus), args.encoder, args.search)
    for table in tables.values():
        print(f"{table.title}: {len(table):,} (first {min(args.top, len(table))})")
        for search in table.searches:
            print(f"neighbour search: {search.describe()}")
        columns = table.columns()
        print(
            format_table(
                [header for header, _ in columns],
                [
                    [
                        f"{values[row]:.3f}" if isinstance(values[row], float) else str(values[row])
                        for _, values in columns
                    ]
                    for row in range(min(args.top, len(table)))
                ],
            )
            + "\n"
        )
    return 0


def command_annotations_agreement(args: argparse.Namespace) -> int:

    corpus = load_corpus(args.corpus)
    records = journal_records(args.journals, corpus, args.corpus)
    result = agreement(corpus, records)
    if not result.kinds:
        raise InputError(
            f"no item was decided by two or more authors in {', '.join(args.journals)}"
        )
    print(f"{corpus.name}: decisions of {', '.join(result.authors)}")
    for kind in result.kinds:
        value = "undefined" if kind.value != kind.value else f"{kind.value:.3f}"
        print(
            f"\n{kind.kind} decisions: {kind.statistic} {value} over {kind.n_items} "
            f"items ({len(kind.decisions)} decided by two or more)"
        )
        for first, second in author_pairs(kind) if kind.kind != "score" else ():
            categories, matrix = kind.confusion(first, second)
            statistic, pair_value, items = kind.pairwise(first, second)
            print(
                f"{first} and {second}: {statistic} "
                f"{'undefined' if math.isnan(pair_value) else f'{pair_value:.3f}'} over the {items} "
                f"item{'s' if items != 1 else ''} both decided"
            )
            print(f"confusion: rows {first}, columns {second}")
            print(
                format_table(
                    [f"{first} \\ {second}", *map(str, categories)],
                    [[str(c), *map(str, row)] for c, row in zip(categories, matrix.tolist())],
                )
            )
        disagreements = kind.disagreements()
        print(f"disagreements: {len(disagreements)}")
        if disagreements:
            print(
                format_table(
                    ["item", *kind.authors],
                    [
                        [item, *(str(by.get(author, "")) for author in kind.authors)]
                        for item, by in disagreements
                    ],
                )
            )
    return 0


def command_annotations_merge(args: argparse.Namespace) -> int:

    corpus = load_corpus(args.corpus)
    with naming_the_corpus(args.corpus):
        records, appended = merge_into(args.out, batch_journals(args.journals), corpus.fingerprint)
    history = History(corpus)
    history.feed(records)
    print(
        f"{len(records)} records ({len(history.edits)} edits in effect) from "
        f"{len(args.journals)} journals in {args.out} ({appended} appended)"
    )
    print(f"conflicts: {len(history.conflicts)}")
    for conflict in history.conflicts:
        print(f"- {conflict.describe()}")
    return 0


def command_annotations_batches(args: argparse.Namespace) -> int:

    source = Path(args.source)
    records: list = []
    if source.suffix == EXTENSION and source.is_file():
        # The review lists a workspace saved, on the corpus as its journal left it.
        workspace = load_workspace(source)
        number = next(
            (
                n
                for n, entry in enumerate(workspace.corpora)
                if (entry.state or {}).get("review_lists")
            ),
            None,
        )
        if number is None:
            raise InputError(
                "the workspace holds no review lists; find the suspicious "
                "annotations in it first, or give a corpus",
                source,
            )
        entry = workspace.corpora[number]
        spec = entry.spec
        original = load_workspace_corpus(workspace, number, source)
        journal = workspace_journal(workspace, number, source)
        if journal is not None:
            records = read_journal(journal, original.fingerprint)[1]
        history = History(original)
        history.feed(records)
        assert entry.state is not None, "found by its review lists"
        lists = saved_review_lists(
            entry.state["review_lists"],
            history.corpus,
            f"corpora[{number}].state.review_lists",
            source,
        )
    else:
        spec, original = args.source, load_corpus(args.source)
        if args.journal:
            records = journal_records([args.journal], original, spec)
        history = History(original)
        history.feed(records)
        lists = suspicious_lists(history.corpus, args.encoder, args.search)
    names = [name for name in (args.names or "").split(",") if name.strip()]
    batches = split_batches(lists, args.people, copies=args.copies, top=args.top, names=names)
    written = export_batches(
        spec, original, lists, batches, args.out, records=records, named=bool(names)
    )
    print(
        f"{original.name}: {', '.join(f'{len(items):,} {kind}' for kind, items in lists.items())}"
        f" suspicious rows{f' (the first {args.top} of each)' if args.top else ''}, "
        f"split among {args.people} ({args.copies} per item)"
    )
    print(
        format_table(
            ["batch", "person", *lists, "workspace"],
            [
                [
                    str(batch.number),
                    batch.person,
                    *(str(batch.counts()[kind]) for kind in lists),
                    str(path),
                ]
                for batch, path in zip(batches, written)
            ],
        )
    )
    print(
        "Each person opens their workspace (File > Open workspace); bring their "
        "decisions back with Annotations > Bring back review batches… or: sentspace "
        f"annotations merge {args.out} --out team.jsonl"
    )
    return 0


def add_suspicious(commands: Subcommands) -> None:
    """``sentspace suspicious``."""
    suspicious = commands.add_parser(
        "suspicious", help="annotations the embedding space disagrees with, for review"
    )
    suspicious.add_argument("--corpus", default=DEFAULT_CORPUS, help=CORPUS_HELP)
    suspicious.add_argument(
        "--encoder",
        action="append",
        help=f"{ENCODER_HELP}; repeat for several (default {DEFAULT_ENCODER})",
    )
    suspicious.add_argument("--search", choices=SEARCHES, default="auto", help=SEARCH_HELP)
    suspicious.add_argument("--top", type=int, default=10, help="rows per table (default 10)")
    suspicious.set_defaults(handler=command_suspicious)


def add_annotations(commands: Subcommands) -> None:
    """``sentspace annotations agreement|merge|batches``."""
    annotations = commands.add_parser("annotations", help="annotation journals of a team")
    annotations_commands = annotations.add_subparsers(dest="annotations_command", required=True)
    agreement = annotations_commands.add_parser(
        "agreement",
        help="how much the authors of edit journals agree",
        description="Over the items two or more authors decided (sentences moved or "
        "marked reviewed, pairs labelled, scored or marked reviewed): Cohen's kappa (two "
        "authors) or Fleiss' kappa (more) for group and label decisions, Krippendorff's "
        "alpha (interval) for scores, a confusion table and the disagreements.",
    )
    agreement.add_argument("journals", nargs="+", metavar="JOURNAL")
    merge = annotations_commands.add_parser(
        "merge",
        help="merge several edit journals of one corpus into one",
        description="Every record of every journal, once (by id), ordered by time; the "
        "conflicts of the merged edits are listed.",
    )
    merge.add_argument("journals", nargs="+", metavar="JOURNAL")
    merge.add_argument(
        "--out",
        required=True,
        help="the merged journal: a new file, or one of the JOURNALs (what "
        "it lacks is appended, under its lock)",
    )
    for command, handler in (
        (agreement, command_annotations_agreement),
        (merge, command_annotations_merge),
    ):
        command.add_argument(
            "--corpus",
            default=DEFAULT_CORPUS,
            help=f"the corpus the journals edit (default {DEFAULT_CORPUS})",
        )
        command.set_defaults(handler=handler)
    journals_help = (
        " A JOURNAL may also be a folder written by 'annotations batches' "
        "(every batch's journal), one batch's folder, or a workspace."
    )
    agreement.description = f"{agreement.description or ''}{journals_help}"
    merge.description = f"{merge.description or ''}{journals_help}"
    batches = annotations_commands.add_parser(
        "batches",
        help="split the suspicious-annotation lists among N reviewers",
        description="The suspicious-annotation lists (those a workspace saved, or found "
        "on a corpus with --encoder) dealt item by item, in rank order, into one batch "
        "per person, stratified by list; each batch is written as a folder holding a "
        "workspace with its rows as the review lists and its own journal. Bring the "
        "decisions back with 'annotations merge DIR' or the Review panel's Bring back.",
    )
    batches.add_argument(
        "source",
        metavar="WORKSPACE_OR_CORPUS",
        help="a .sentspace workspace with review lists, or a corpus "
        f"(built-in: {', '.join(BUILTIN)}, or a path)",
    )
    batches.add_argument("--people", type=int, required=True, help="how many reviewers")
    batches.add_argument("--out", required=True, help="the folder to write (new or empty)")
    batches.add_argument(
        "--copies",
        type=int,
        default=1,
        help="reviewers per item (default 1; 2 for a double review)",
    )
    batches.add_argument(
        "--top", type=int, help="only the N most suspicious rows of each list (default all)"
    )
    batches.add_argument("--names", help="the reviewers' names, comma-separated")
    batches.add_argument(
        "--journal", help="a corpus's edit journal: the lists are found on the corpus it corrects"
    )
    batches.add_argument(
        "--encoder",
        action="append",
        help=f"{ENCODER_HELP}; repeat for several (default {DEFAULT_ENCODER}; a corpus only)",
    )
    batches.add_argument("--search", choices=SEARCHES, default="auto", help=SEARCH_HELP)
    batches.set_defaults(handler=command_annotations_batches)
