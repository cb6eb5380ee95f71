"""The space from the shell: ``explain``, ``regions``, ``export-map``, ``neighbours``
and ``corpus info``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sentspace.app.analysis.ann import SEARCHES
from sentspace.app.analysis.explain import explain_pair
from sentspace.app.analysis.explore import explore
from sentspace.app.analysis.neighbour_search import Query, search_neighbours
from sentspace.app.analysis.projection import DEFAULTS as PROJECTION_DEFAULTS
from sentspace.app.analysis.projection import project
from sentspace.app.analysis.regions import find_regions
from sentspace.app.base.commands import LAYOUT_PARAMETERS, Version, export_map_command, option_flag
from sentspace.app.base.errors import InputError
from sentspace.app.base.tables import json_text
from sentspace.app.cli.common import (
    CORPUS_HELP,
    ENCODER_HELP,
    SEARCH_HELP,
    Subcommands,
    TerminalJobs,
    add_version_arguments,
    fitted_embeddings,
    load_version,
)
from sentspace.app.corpora import DEFAULT_CORPUS, ColumnMapping, load_corpus
from sentspace.app.corpora.stats import corpus_stats
from sentspace.app.corpora.tabular import ROLES as MAPPING_ROLES
from sentspace.app.exporters.web_map import iter_export_map
from sentspace.app.services import build_encoder, format_table, run_in_terminal, summary_table
from sentspace.models import DEFAULT_ENCODER


def command_explain(args: argparse.Namespace) -> int:

    corpus = load_corpus(args.corpus)
    encoder = build_encoder(args.encoder, corpus)
    result = run_in_terminal(explain_pair(args.sentence_a, args.sentence_b, encoder, corpus=corpus))
    if args.json:
        print(json_text(result.to_dict()), end="")
        return 0
    print(
        f"cosine {result.cosine:.4f} by {encoder.name} ({result.method}"
        f"{f', fitted on {corpus.name}' if encoder.requires_fit else ''})"
    )
    for side, name in ((0, "A"), (1, "B")):
        print(f"\nwords of {name}: {result.texts[side]}")
        print(
            format_table(
                ["word", "contribution"],
                [[word, f"{value:+.4f}"] for word, value in result.top_words(side, args.top)],
            )
        )
    if pairs := result.top_pairs(args.top):
        print(f"\n{result.pair_label}")
        print(format_table(["A", "B", "value"], [[a, b, f"{value:+.4f}"] for a, b, value in pairs]))
    return 0


def command_regions(args: argparse.Namespace) -> int:

    corpus = load_corpus(args.corpus)
    encoder = build_encoder(args.encoder, corpus)
    fitted = encoder.fit(corpus.texts) if encoder.requires_fit else encoder
    with TerminalJobs() as jobs:
        embeddings = jobs.run(fitted.iter_encode(corpus.texts))
        layout = jobs.run(project(embeddings, args.layout, seed=args.seed))
        regions = jobs.run(
            find_regions(
                corpus,
                layout.coordinates,
                embeddings=embeddings,
                encoder=encoder,
                on=args.on,
                min_cluster_size=args.min_cluster_size,
                seed=args.seed,
            )
        )
    print(
        f"regions of {corpus.name} ({len(corpus)} sentences) by {encoder.name}, "
        f"{args.layout.upper()} layout, clustered on the {args.on}"
    )
    print(summary_table([regions]))
    if args.csv:
        regions.export_csv(corpus.texts, Path(args.csv))
        print(f"sentence, region and label at each level written to {args.csv}")
    return 0


def command_export_map(args: argparse.Namespace) -> int:

    corpus, edited = load_version(args.corpus, args.journal, args.until)
    encoder = build_encoder(args.encoder, corpus)
    layout = {name: getattr(args, name) for name in LAYOUT_PARAMETERS if hasattr(args, name)}
    unknown = set(layout) - set(PROJECTION_DEFAULTS[args.method])
    if unknown:
        raise InputError(
            f"--method {args.method} takes no "
            f"{', '.join(option_flag(name) for name in sorted(unknown))}"
        )
    command = export_map_command(
        args.corpus,
        args.encoder,
        args.method,
        args.seed,
        args.out,
        layout=layout,
        regions=args.regions,
        search=args.search,
        version=Version(tuple(args.journal or ()), args.until),
    )
    with TerminalJobs() as jobs:
        exploration = jobs.run(
            explore(
                corpus,
                encoder,
                method=args.method,
                seed=args.seed,
                projection_parameters=layout,
                search=args.search,
            )
        )
        regions = (
            jobs.run(
                find_regions(
                    corpus,
                    exploration.projection.coordinates,
                    encoder=exploration.encoder,
                    seed=args.seed,
                )
            )
            if args.regions
            else None
        )
        path = jobs.run(
            iter_export_map(
                exploration,
                args.out,
                regions=regions,
                search=args.search,
                seed=args.seed,
                command=command,
            )
        )
    print(
        f"map of {corpus.name} ({len(corpus):,} sentences) by {encoder.name}, "
        f"{args.method.upper()} layout, written to {path} "
        f"({path.stat().st_size / 1e6:.1f} MB)" + (f", {edited}" if edited else "")
    )
    return 0


def command_neighbours(args: argparse.Namespace) -> int:

    corpus = load_corpus(args.corpus)
    if args.index is not None and not 0 <= args.index < len(corpus):
        raise InputError(
            f"--index {args.index} is not a sentence of {corpus.name} (0 to {len(corpus) - 1})"
        )
    if (args.index is None) == (args.query is None):
        raise InputError("give a query sentence or --index N, not both")
    query = Query(args.query) if args.index is None else Query(corpus.texts[args.index], args.index)
    with TerminalJobs() as jobs:
        encoder, embeddings = fitted_embeddings(args.encoder, corpus, jobs)
        [answer], _ = jobs.run(
            search_neighbours(
                corpus,
                [(encoder.name, encoder, embeddings)],
                [None],
                query,
                args.k,
                search=args.search,
            )
        )
    print(
        f"nearest {len(answer.indices)} of {query.text!r} in {corpus.name} "
        f"({len(corpus):,} sentences) by {encoder.name}"
    )
    print(
        format_table(
            ["rank", "cosine", "sentence", "index"],
            [
                [str(rank), f"{similarity:.4f}", corpus.texts[index], str(index)]
                for rank, (index, similarity) in enumerate(
                    zip(answer.indices.tolist(), answer.similarities.tolist()), 1
                )
            ],
        )
    )
    print(answer.note or "Found exactly.")
    return 0


def command_corpus_info(args: argparse.Namespace) -> int:
    roles = {role: getattr(args, f"{role}_column") for role in MAPPING_ROLES}
    roles = {
        role: int(value) if value.isdigit() else value
        for role, value in roles.items()
        if value is not None
    }
    mapping = (
        ColumnMapping(**roles, delimiter=args.delimiter, header=False if args.no_header else None)
        if roles or args.delimiter or args.no_header
        else None
    )
    corpus = load_corpus(args.path, mapping)
    stats = corpus_stats(corpus)
    if args.json:
        print(
            json_text(
                {
                    **stats.to_dict(),
                    "fingerprint": corpus.fingerprint,
                    "sources": list(corpus.sources),
                    "warnings": list(corpus.warnings),
                }
            ),
            end="",
        )
        return 0
    rows = [[label, value] for label, value in stats.rows()]
    rows.insert(3, ["fingerprint", corpus.fingerprint])
    print(format_table(["property", "value"], rows))
    if len(stats.group_sizes):
        print(f"\n{stats.group_kind} sizes")
        print(
            format_table(
                ["size", stats.groups_label],
                [
                    [f"{lo}" if lo == hi else f"{lo}-{hi}", f"{n:,}"]
                    for lo, hi, n in stats.size_histogram()
                ],
            )
        )
    for title, table in (("split", stats.pair_splits), ("subset", stats.pair_subsets)):
        if len(table) > 1 or (table and title == "split"):
            print(f"\npairs by {title}")
            print(
                format_table(
                    [title, "pairs", "labels"],
                    [
                        [
                            name or "-",
                            f"{n:,}",
                            ", ".join(f"{label} {count:,}" for label, count in labels.items()),
                        ]
                        for name, n, labels in table
                    ],
                )
            )
    if stats.overlap_basis:
        edges, positive, negative = stats.overlap_histogram()
        print(f"\nword overlap (Jaccard of word sets), positive vs negative: {stats.overlap_basis}")
        print(
            format_table(
                ["overlap", "positive", "negative"],
                [
                    [f"{lo:.1f}-{hi:.1f}", f"{p:,}", f"{n:,}"]
                    for lo, hi, p, n in zip(edges, edges[1:], positive, negative)
                ],
            )
        )
    for warning in corpus.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def add_explain(commands: Subcommands) -> None:
    """``sentspace explain``."""
    explain = commands.add_parser(
        "explain",
        help="which words make two sentences similar under an encoder",
        description="Attribute the cosine of two sentences to their words: exactly for "
        "additive encoders (bag of words, TF-IDF, random-bow, word-vector mean/sum), by "
        "leave-one-word-out occlusion for the others (with the token alignment of "
        "sentence-transformers models).",
    )
    explain.add_argument("sentence_a")
    explain.add_argument("sentence_b")
    explain.add_argument("--encoder", default=DEFAULT_ENCODER, help=ENCODER_HELP)
    explain.add_argument(
        "--corpus",
        default=DEFAULT_CORPUS,
        help="what encoders that need fitting (vocabulary, idf) are fitted "
        f"on, with the two sentences (default {DEFAULT_CORPUS})",
    )
    explain.add_argument("--top", type=int, default=8, help="rows per table (default 8)")
    explain.add_argument("--json", action="store_true", help="print the whole explanation as JSON")
    explain.set_defaults(handler=command_explain)


def add_regions(commands: Subcommands) -> None:
    """``sentspace regions``."""
    regions = commands.add_parser(
        "regions",
        help="split a layout into regions at three levels, each named by its keywords",
        description="Nested bisecting k-means regions of the 2D layout (or of the "
        "embeddings): 8 coarse, each split into up to 5, twice; each labelled by "
        "class-based TF-IDF against the rest of the corpus.",
    )
    regions.add_argument("--corpus", default=DEFAULT_CORPUS, help=CORPUS_HELP)
    regions.add_argument("--encoder", default=DEFAULT_ENCODER, help=ENCODER_HELP)
    regions.add_argument("--layout", default="pca", choices=("pca", "umap", "tsne"))
    regions.add_argument(
        "--on",
        default="layout",
        choices=("layout", "embeddings"),
        help="cluster the 2D layout (default) or the embeddings",
    )
    regions.add_argument(
        "--min-cluster-size",
        type=int,
        help="the fewest sentences a region is split down to "
        "(default: 0.2%% of the sentences, at least 5)",
    )
    regions.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    regions.add_argument(
        "--csv", metavar="PATH", help="write each sentence with its region and label at each level"
    )
    regions.set_defaults(handler=command_regions)


def add_export_map(commands: Subcommands) -> None:
    """``sentspace export-map``."""
    export = commands.add_parser(
        "export-map",
        help="write a projection as one self-contained web page",
        description="One HTML file (WebGL, data inline): histograms and bar charts of "
        "every column that filter the map and a sortable table together, box/lasso "
        "selections and the table exported as CSV or JSONL, ranked word search, colour by "
        "any column, each point's nearest neighbours in the original space, region "
        "labels and the run's provenance. Opens from disk in any browser.",
    )
    export.add_argument("--corpus", default=DEFAULT_CORPUS, help=CORPUS_HELP)
    add_version_arguments(export)
    export.add_argument("--encoder", default=DEFAULT_ENCODER, help=ENCODER_HELP)
    export.add_argument("--method", default="pca", choices=("pca", "umap", "tsne"))
    layout_flags: dict[str, tuple[Callable[[str], Any], str]] = {
        "n_neighbors": (int, "UMAP's neighbours per point (default 15)"),
        "min_dist": (float, "UMAP's minimum distance (default 0.1)"),
        "metric": (str, "UMAP's metric: cosine (default) or euclidean"),
        "perplexity": (float, "t-SNE's perplexity (default 30)"),
        "pca_dims": (
            lambda value: None if value == "none" else int(value),
            "UMAP and t-SNE: reduce to this many dimensions first (default 50; none: skip)",
        ),
    }
    for name in LAYOUT_PARAMETERS:
        kind, about = layout_flags[name]
        export.add_argument(option_flag(name), type=kind, default=argparse.SUPPRESS, help=about)
    export.add_argument(
        "--regions",
        action="store_true",
        help="find regions on the layout and label them on the map",
    )
    export.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    export.add_argument(
        "--search",
        choices=SEARCHES,
        default="auto",
        help="how faithfulness and each point's neighbours are found (default auto)",
    )
    export.add_argument("--out", required=True, metavar="PATH", help="the .html to write")
    export.set_defaults(handler=command_export_map)


def add_neighbours(commands: Subcommands) -> None:
    """``sentspace neighbours``."""
    neighbours = commands.add_parser(
        "neighbours", help="the nearest sentences of a query sentence or a corpus sentence"
    )
    neighbours.add_argument("query", nargs="?", help="a sentence (or give --index)")
    neighbours.add_argument("--index", type=int, help="query corpus sentence N (0-based)")
    neighbours.add_argument("--corpus", default=DEFAULT_CORPUS, help=CORPUS_HELP)
    neighbours.add_argument("--encoder", default=DEFAULT_ENCODER, help=ENCODER_HELP)
    neighbours.add_argument("--k", type=int, default=10, help="neighbours (default 10)")
    neighbours.add_argument("--search", choices=SEARCHES, default="auto", help=SEARCH_HELP)
    neighbours.set_defaults(handler=command_neighbours)


def add_corpus(commands: Subcommands) -> None:
    """``sentspace corpus info``."""
    corpus = commands.add_parser("corpus", help="inspect a corpus")
    corpus_commands = corpus.add_subparsers(dest="corpus_command", required=True)
    info = corpus_commands.add_parser(
        "info",
        help="print a corpus's statistics",
        description="Counts, group sizes, vocabulary, tokens per sentence and the word "
        "overlap of positive vs negative pairs. For your own CSV/TSV/JSONL, columns named "
        "text/sentence, group, label, sentence1/sentence2, score are found by name; the "
        "--*-column options name others (a header name or a 0-based index).",
    )
    info.add_argument("path", help="built-in corpus name or path")
    info.add_argument("--json", action="store_true", help="print JSON instead of tables")
    for role in MAPPING_ROLES:
        info.add_argument(
            f"--{role}-column",
            metavar="COLUMN",
            help=f"column holding the {role} (name or 0-based index)",
        )
    info.add_argument(
        "--delimiter",
        help="column separator of a table (default: by extension, comma for .csv, tab otherwise)",
    )
    info.add_argument(
        "--no-header", action="store_true", help="the table's first row is data, not column names"
    )
    info.set_defaults(handler=command_corpus_info)
