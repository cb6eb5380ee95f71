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
status 2 and one line naming the file, line and problem.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from sentspace.app.ann import EXACT_LIMIT, SEARCHES
from sentspace.app.cache import cached_encode
from sentspace.app.commands import LAYOUT_PARAMETERS, Version, export_map_command, option_flag
from sentspace.app.corpora import BUILTIN, DEFAULT_CORPUS, ColumnMapping, load_corpus
from sentspace.app.corpora.model import Corpus
from sentspace.app.corpora.stats import corpus_stats
from sentspace.app.corpora.tabular import ROLES as MAPPING_ROLES
from sentspace.app.distributed import (
    DEFAULT_RAY_CPUS,
    DEFAULT_SHARD_ROWS,
    ENGINES,
    encode_shards,
    index_shards,
)
from sentspace.app.errors import InputError
from sentspace.app.evaluations import COMPARISONS, EVALUATIONS, OPTIONS, bitext
from sentspace.app.evaluations.paired import PAIRED_TESTS, against_first
from sentspace.app.evaluations.passing import FILTERABLE, check_filterable, passing
from sentspace.app.export import export_matrix, json_text, write_json
from sentspace.app.jobs import Progress, run_job
from sentspace.app.mteb_results import (
    IMPORTED,
    TASKS,
    MtebImport,
    beside,
    read_mteb_results,
    same_model,
)
from sentspace.app.neighbours import fitted_on_training_side, run_split
from sentspace.app.reproduce import FULL, PAPERS, QUICK, run_reproduction
from sentspace.app.workspace import changed_summaries, load_workspace, run_workspace
from sentspace.models import DEFAULT_ENCODER, ENCODERS, NeuralEncoder, make_encoder
from sentspace.models.base import Encoder
from sentspace.models.precomputed import Precomputed

PRECOMPUTED = "precomputed:"
ENCODER_HELP = (
    f"encoder: {', '.join(ENCODERS)}, FAMILY:FILE to train a family "
    "(word2vec, doc2vec-dbow, fastsent, dictrep-bow, sdae, skipthought...) on a "
    "text file, or "
    f"{PRECOMPUTED}PATH for embeddings computed elsewhere (.npy, .npz, "
    "vectors.tsv, .parquet, or a folder of shards)"
)


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(str(cell).ljust(w) for cell, w in zip(row, widths)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


class ProgressPrinter:
    """One self-overwriting progress line on stderr when it is a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()

    def __call__(self, progress: Progress) -> None:
        if self.enabled:
            print(
                f"\r{progress.stage}: {progress.done}/{progress.total}\033[K",
                end="",
                file=sys.stderr,
                flush=True,
            )

    def clear(self) -> None:
        if self.enabled:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def build_encoder(spec: str, corpus: Corpus | None) -> Encoder:
    """An encoder from its CLI spelling; precomputed embeddings are aligned to ``corpus``
    (which they need)."""
    if spec.startswith(PRECOMPUTED):
        assert corpus is not None, "precomputed embeddings are read with their corpus"
        return Precomputed(spec.removeprefix(PRECOMPUTED), corpus)
    try:
        return make_encoder(spec)
    except ValueError as error:
        raise InputError(str(error)) from None


@contextlib.contextmanager
def naming_the_corpus(spec: str) -> Iterator[None]:
    """A journal found to edit another corpus than the one opened from ``spec`` says
    which was given and what to do."""
    from sentspace.app.annotations.edits import EditError

    try:
        yield
    except EditError as error:
        if error.line == 1 and "is for corpus" in error.problem:
            raise EditError(
                f"{error.problem} ({spec}): give --corpus the corpus the journal edits",
                error.path,
                1,
            ) from None
        raise


def journal_records(journals: Sequence[str], corpus: Corpus, spec: str) -> list:
    """The records of ``journals`` (files, batch folders, workspaces) merged as
    ``annotations merge`` merges them, checked to edit ``corpus`` (opened from
    ``spec``)."""
    from sentspace.app.annotations.batches import gather

    with naming_the_corpus(spec):
        return gather(journals, corpus.fingerprint)[1]


def load_version(
    spec: str, journals: Sequence[str] | None, until: str | None
) -> tuple[Corpus, str]:
    """(the corpus ``spec`` as the records of ``journals`` leave it, up to and including
    the record ``until``, replayed as the window replays them; a line saying so, "" for
    the corpus as loaded)."""
    from sentspace.app.annotations.history import History

    corpus = load_corpus(spec)
    if not journals:
        if until is not None:
            raise InputError("--until names a record of an edit journal: give --journal")
        return corpus, ""
    records = journal_records(journals, corpus, spec)
    if until is not None:
        ids = [record.id for record in records]
        if until not in ids:
            raise InputError(f"--until {until}: no such record in {', '.join(journals)}")
        records = records[: ids.index(until) + 1]
    history = History(corpus)
    history.feed(records)
    conflicts = len(history.conflicts)
    return history.corpus, (
        f"as edited by {', '.join(journals)}: {len(records)} record"
        f"{'s' if len(records) != 1 else ''} replayed, "
        f"{len(history.edits)} in effect" + (f", {conflicts} conflicts" if conflicts else "")
    )


def command_eval(args: argparse.Namespace) -> int:
    corpus, edited = load_version(args.corpus, args.journal, args.until)
    specs = args.encoder or [DEFAULT_ENCODER]
    if args.evaluation in COMPARISONS and len(specs) < 2:
        raise InputError(f"{args.evaluation} compares encoders: give two or more --encoder")
    options = evaluation_options(args)
    check_filterable(args.evaluation, args.where)
    mask = passing(corpus, args.where)  # before any work: a bad expression stops here
    if mask is not None:
        options["where"] = args.where.strip()
    encoders = [build_encoder(spec, corpus) for spec in specs]
    imported = None
    if args.compare:
        if args.evaluation != "relatedness":
            raise InputError(
                f"--compare reads MTEB's STS results, which compare with "
                f"relatedness, not {args.evaluation}"
            )
        imported = read_mteb_results(args.compare)  # before any work: a bad file stops here
    note = ""
    if "split" in OPTIONS.get(args.evaluation, {}):
        options["split"], note = run_split(corpus, encoders, options.get("split", "auto"))
    printer = ProgressPrinter()
    if args.evaluation in COMPARISONS:
        compare, _ = COMPARISONS[args.evaluation]
        results = [run_job(compare(corpus, encoders, seed=args.seed), printer)]
    else:
        evaluation, _ = EVALUATIONS[args.evaluation]
        results = [
            run_job(evaluation(corpus, encoder, seed=args.seed, **options), printer)
            for encoder in encoders
        ]
    outcomes = (
        run_job(against_first(args.evaluation, results, args.seed), printer)
        if args.evaluation in PAIRED_TESTS
        else []
    )
    printer.clear()
    # The results stand on their own: printed, then why a test was not made.
    paired = [(o.a, o.b, o.test) for o in outcomes if o.test is not None]
    unpaired = [(o.a, o.b, o.reason) for o in outcomes if o.test is None]

    trained = trained_on_their_files(encoders)
    payload = {
        "evaluation": args.evaluation,
        "results": [r.to_dict() for r in results],
        "training": {encoder.name: encoder.training_scores for encoder in trained},
        "paired_tests": [
            {
                "a": a.provenance.encoder_name,
                "b": b.provenance.encoder_name,
                **test.__dict__,
                "verdict": test.verdict(),
            }
            for a, b, test in paired
        ]
        + [
            {"a": a.provenance.encoder_name, "b": b.provenance.encoder_name, "error": reason}
            for a, b, reason in unpaired
        ],
    }
    if imported is not None:
        payload["imported"] = [
            {
                **score.to_dict(),
                "label": score.label,
                "beside": [
                    {
                        "encoder": result.provenance.encoder_name,
                        "spearman": found.spearman,
                        "n_pairs": found.n_pairs,
                        "metrics": list(found.metrics),
                        "same_model": same_model(score, result.provenance),
                    }
                    for result, found in beside(score, results)
                ],
            }
            for score in imported.results
        ]
    status = 2 if unpaired else 0
    reasons = "".join(f"sentspace: error: {o.why_not}\n" for o in outcomes if o.test is None)
    if args.json == "-":
        print(json_text(payload), end="")
        print(reasons, end="", file=sys.stderr)
        return status
    if args.json:
        write_json(args.json, payload)
    first = results[0].provenance
    print(
        f"{args.evaluation} on {first.corpus_name} ({len(corpus)} sentences, "
        f"corpus {first.corpus_fingerprint}), seed {args.seed}"
    )
    if edited:
        print(edited)
    if mask is not None:
        print(f"where {args.where.strip()}: {mask.sum():,} of {len(corpus):,} sentences pass")
    if note:
        print(note)
    print(summary_table(results))
    for encoder in trained:
        print(f"{encoder.name}: {encoder.training_report}")
    if args.evaluation == bitext.NAME:
        title, header, rows = bitext.length_table(
            results, [r.provenance.encoder_name for r in results]
        )
        print(f"\n{title}")
        print(format_table(header, rows))
    if paired:
        what = PAIRED_TESTS[args.evaluation][0]
        print(
            f"\npaired tests of {what}, each encoder against {results[0].provenance.encoder_name}"
        )
        print(
            summary_table(
                [test for _, _, test in paired], [b.provenance.encoder_name for _, b, _ in paired]
            )
        )
    if imported is not None:
        print()
        print(imported_table(imported, results, args.compare))
    print(reasons, end="", file=sys.stderr)
    return status


def imported_table(imported: MtebImport, results, source: str) -> str:
    """MTEB's published scores, a row each, beside each run's Spearman over the same
    task's pairs ("-" where the run did not evaluate exactly those pairs)."""
    names = [r.provenance.encoder_name for r in results]
    rows, missing = [], []
    for score in imported.results:
        found = {
            id(result): (result, counterpart) for result, counterpart in beside(score, results)
        }
        cells = []
        for result in results:
            if id(result) not in found:
                cells.append("-")
                continue
            cells.append(
                f"{found[id(result)][1].spearman:.4f}"
                + (" (same model)" if same_model(score, result.provenance) else "")
            )
        if not found:
            missing.append(score.task)
        task = TASKS[score.task]
        rows.append(
            [
                score.task,
                f"{score.split} {task.n_pairs:,}",
                score.label,
                f"{score.main_score:.4f}",
                "per cent /100" if score.per_cent else "0-1",
                *cells,
            ]
        )
    lines = [
        f"Imported from {source}: {imported.describe()}. MTEB's published cosine "
        f"Spearman ({IMPORTED}): no interval, in no paired test",
        format_table(["MTEB task", "pairs", "model", "MTEB", "file scale", *names], rows),
    ]
    for name in dict.fromkeys(missing):
        task = TASKS[name]
        lines.append(
            f"-: no run evaluated exactly {name}'s pairs ({task.about}, "
            f"{task.n_pairs:,}: the {task.corpus}/ folder with --split "
            f"{task.split or 'all'})"
        )
    return "\n".join(lines)


def evaluation_options(args: argparse.Namespace) -> dict[str, str]:
    """The ``--option`` values given, checked against what the evaluation takes."""
    offered = OPTIONS.get(args.evaluation, {})
    given = {
        name: value
        for name in {n for o in OPTIONS.values() for n in o}
        if (value := getattr(args, name)) is not None
    }
    unknown = sorted(set(given) - set(offered))
    if unknown:
        flags = ", ".join(option_flag(name) for name in unknown)
        raise InputError(f"{args.evaluation} takes no {flags}")
    return given


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
        print(
            f"{entry.name}: {provenance.encoder_name} on {provenance.corpus_name}"
            f"{' (corrected)' if entry.corrected else ''}, seed {entry.seed}"
        )
        print(summary_table([result]) + "\n")
    changed = changed_summaries(workspace, results)
    for index, _, _ in changed:
        print(
            f"evaluation {index + 1} ({workspace.evaluations[index].name}) differs from "
            f"the saved result",
            file=sys.stderr,
        )
    return 1 if changed else 0


def command_encode(args: argparse.Namespace) -> int:
    if args.engine:
        return command_encode_shards(args)
    corpus = load_corpus(args.corpus)
    printer = ProgressPrinter()
    encoder = run_job(
        fitted_on_training_side(build_encoder(args.encoder, corpus), corpus, corpus.texts, None),
        printer,
    )
    matrix = run_job(cached_encode(encoder, corpus.fingerprint, corpus.texts), printer)
    printer.clear()
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


def trained_on_their_files(encoders: Sequence[Encoder]) -> list[Encoder]:
    """The networks among ``encoders`` that trained on a file of their own during the
    evaluation, trained (the process remembers each: no second training), so their
    training can be reported."""
    return [
        run_job(encoder.clone().iter_fit([]))
        for encoder in encoders
        if isinstance(encoder, NeuralEncoder) and not encoder.learns_from_data
    ]


def command_encode_shards(args: argparse.Namespace) -> int:
    printer = ProgressPrinter()
    done = run_job(
        encode_shards(
            args.corpus,
            args.encoder,
            args.out,
            shard_rows=args.shard_rows,
            engine=args.engine,
            address=args.address,
            num_cpus=args.num_cpus,
            workers=args.workers,
        ),
        printer,
    )
    printer.clear()
    print(
        f"{done.rows} x {done.dim} embeddings in {done.shards} shards ({done.written} "
        f"encoded by {done.engine}, {done.reused} kept from an earlier run): {done.out_dir}"
    )
    return 0


def command_index(args: argparse.Namespace) -> int:
    printer = ProgressPrinter()
    built = run_job(
        index_shards(args.folder, engine=args.engine, address=args.address, num_cpus=args.num_cpus),
        printer,
    )
    printer.clear()
    print(
        f"IVF-SQ8 index of {built.rows:,} rows ({built.lists} lists, {built.shards} "
        f"shards added by {built.engine}), {built.search.describe()}: {built.path}"
    )
    return 0


def command_explain(args: argparse.Namespace) -> int:
    from sentspace.app.explain import explain_pair

    corpus = load_corpus(args.corpus)
    encoder = build_encoder(args.encoder, corpus)
    printer = ProgressPrinter()
    result = run_job(
        explain_pair(args.sentence_a, args.sentence_b, encoder, corpus=corpus), printer
    )
    printer.clear()
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
    from sentspace.app.projection import project
    from sentspace.app.regions import find_regions

    corpus = load_corpus(args.corpus)
    encoder = build_encoder(args.encoder, corpus)
    printer = ProgressPrinter()
    fitted = encoder.fit(corpus.texts) if encoder.requires_fit else encoder
    embeddings = run_job(fitted.iter_encode(corpus.texts), printer)
    layout = run_job(project(embeddings, args.layout, seed=args.seed), printer)
    regions = run_job(
        find_regions(
            corpus,
            layout.coordinates,
            embeddings=embeddings,
            encoder=encoder,
            on=args.on,
            min_cluster_size=args.min_cluster_size,
            seed=args.seed,
        ),
        printer,
    )
    printer.clear()
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
    from sentspace.app.explore import explore
    from sentspace.app.projection import DEFAULTS as PROJECTION_DEFAULTS
    from sentspace.app.regions import find_regions
    from sentspace.app.web_map import iter_export_map

    corpus, edited = load_version(args.corpus, args.journal, args.until)
    encoder = build_encoder(args.encoder, corpus)
    layout = {name: getattr(args, name) for name in LAYOUT_PARAMETERS if hasattr(args, name)}
    unknown = set(layout) - set(PROJECTION_DEFAULTS[args.method])
    if unknown:
        raise InputError(
            f"--method {args.method} takes no "
            f"{', '.join(option_flag(name) for name in sorted(unknown))}"
        )
    printer = ProgressPrinter()
    exploration = run_job(
        explore(
            corpus,
            encoder,
            method=args.method,
            seed=args.seed,
            projection_parameters=layout,
            search=args.search,
        ),
        printer,
    )
    regions = (
        run_job(
            find_regions(
                corpus,
                exploration.projection.coordinates,
                encoder=exploration.encoder,
                seed=args.seed,
            ),
            printer,
        )
        if args.regions
        else None
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
    path = run_job(
        iter_export_map(
            exploration,
            args.out,
            regions=regions,
            search=args.search,
            seed=args.seed,
            command=command,
        ),
        printer,
    )
    printer.clear()
    print(
        f"map of {corpus.name} ({len(corpus):,} sentences) by {encoder.name}, "
        f"{args.method.upper()} layout, written to {path} "
        f"({path.stat().st_size / 1e6:.1f} MB)" + (f", {edited}" if edited else "")
    )
    return 0


def command_neighbours(args: argparse.Namespace) -> int:
    from sentspace.app.neighbour_search import Query, search_neighbours

    corpus = load_corpus(args.corpus)
    if args.index is not None and not 0 <= args.index < len(corpus):
        raise InputError(
            f"--index {args.index} is not a sentence of {corpus.name} (0 to {len(corpus) - 1})"
        )
    if (args.index is None) == (args.query is None):
        raise InputError("give a query sentence or --index N, not both")
    printer = ProgressPrinter()
    encoder = run_job(
        fitted_on_training_side(build_encoder(args.encoder, corpus), corpus, corpus.texts, None),
        printer,
    )
    embeddings = run_job(cached_encode(encoder, corpus.fingerprint, corpus.texts), printer)
    query = Query(args.query) if args.index is None else Query(corpus.texts[args.index], args.index)
    [answer], _ = run_job(
        search_neighbours(
            corpus, [(encoder.name, encoder, embeddings)], [None], query, args.k, search=args.search
        ),
        printer,
    )
    printer.clear()
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


def suspicious_lists(corpus, encoder_specs: list[str] | None, search: str) -> dict:
    """The suspicious-annotation lists of ``corpus`` by the encoders named (default:
    the default encoder), with a progress bar; InputError when it has nothing to check."""
    from sentspace.app.annotations.suspicious import iter_find_suspicious

    encoders = [build_encoder(spec, corpus) for spec in encoder_specs or [DEFAULT_ENCODER]]
    printer = ProgressPrinter()
    tables = run_job(iter_find_suspicious(corpus, encoders, search=search), printer)
    printer.clear()
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
    import math

    from sentspace.app.annotations.agreement import agreement, author_pairs

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
    from sentspace.app.annotations.batches import batch_journals
    from sentspace.app.annotations.history import History
    from sentspace.app.annotations.journal import merge_into

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
    from sentspace.app.annotations.batches import export_batches, split_batches
    from sentspace.app.annotations.history import History
    from sentspace.app.annotations.journal import read_journal
    from sentspace.app.session import saved_review_lists
    from sentspace.app.workspace import EXTENSION, load_workspace_corpus, workspace_journal

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


def command_reproduce(args: argparse.Namespace) -> int:
    from sentspace.app.corpora.pyramid import is_pyramid
    from sentspace.app.reproduce.report import (
        COLUMNS,
        by_table,
        cells,
        finding_lines,
        header,
        outside_notes,
        write_report,
    )

    paper = PAPERS[args.paper]
    if args.table and args.table not in {table.id for table in paper.tables}:
        raise InputError(
            f"{args.paper} has no table {args.table!r} (tables: "
            f"{', '.join(table.id for table in paper.tables)})"
        )
    reads_duc = any(c.run is not None and c.run.reads_duc for t in paper.tables for c in t.cells)
    options = {
        name: value
        for name in ("items", "negatives")
        if (value := getattr(args, f"reproduce_{name}")) is not None
    }
    if (args.data or options) and not reads_duc:
        raise InputError(
            f"{args.paper} reads no pyramid data: --data, --items and --negatives are for baumel"
        )
    data = Path(args.data).expanduser() if args.data else None
    if data is not None and not is_pyramid(data):
        raise InputError(f"{data}: not a folder of DUC .pyr files")
    printer = ProgressPrinter()
    report = run_job(
        run_reproduction(
            paper,
            [args.table] if args.table else None,
            variant=FULL if args.full else QUICK,
            seed=args.seed,
            data=data,
            options=options,
        ),
        printer,
    )
    printer.clear()
    print("\n".join(header(report)))
    for table_id, title, rows in by_table(report):
        print(f"\n{table_id}: {title}")
        print(format_table(COLUMNS, [cells(row) for row in rows]))
        for note in outside_notes(rows):
            print(f"  {note}")
    if report.counts:
        print("\ncounts stated in the paper")
        print(
            format_table(
                ["what", "paper", "sentspace"], [[c.what, c.paper, c.ours] for c in report.counts]
            )
        )
    print("\nfindings")
    for line in finding_lines(report):
        print(f"- {line}")
    written = write_report(report, args.out)
    print(f"\nreport: {', '.join(str(path) for path in written)}")
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


def add_version_arguments(parser: argparse.ArgumentParser) -> None:
    """--journal and --until: work on the corpus as edit journals leave it."""
    parser.add_argument(
        "--journal",
        action="append",
        metavar="FILE",
        help="an edit journal of the corpus (or a batch folder or "
        "workspace, as 'annotations merge' takes): the corpus as its "
        "records leave it, undo and redo included, replayed as the "
        "window replays them; repeat to merge several by time",
    )
    parser.add_argument(
        "--until",
        metavar="RECORD",
        help="with --journal: replay the records up to and including this "
        "one (its id; the command the window shows names the last "
        "record its result saw)",
    )


def percent_escaped(text: str) -> str:
    """``text`` as argparse help, which formats it with %: a "4.2%" would stop --help."""
    return text.replace("%", "%%")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sentspace",
        description="Explore and evaluate sentence-embedding spaces. "
        "With no command, opens the app.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    gui = commands.add_parser("gui", help="open the app (the default)")
    gui.add_argument(
        "--corpus", default=DEFAULT_CORPUS, help=f"built-in corpus ({', '.join(BUILTIN)}) or path"
    )
    gui.add_argument("--encoder", default=DEFAULT_ENCODER, choices=sorted(ENCODERS))
    gui.add_argument("--run", action="store_true", help="run the evaluation once loaded")

    evaluate = commands.add_parser("eval", help="run an evaluation headless")
    evaluate.add_argument(
        "evaluation",
        choices=[*EVALUATIONS, *COMPARISONS],
        metavar="EVALUATION",
        help="; ".join(
            f"{name}: {about}" for name, (_, about) in {**EVALUATIONS, **COMPARISONS}.items()
        ),
    )
    evaluate.add_argument(
        "--corpus",
        default=DEFAULT_CORPUS,
        help=f"built-in corpus ({', '.join(BUILTIN)}) or path (default {DEFAULT_CORPUS})",
    )
    evaluate.add_argument(
        "--encoder",
        action="append",
        help=f"{ENCODER_HELP}; repeat to compare several (default {DEFAULT_ENCODER})",
    )
    add_version_arguments(evaluate)
    evaluate.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    for name, option in {n: o for options in OPTIONS.values() for n, o in options.items()}.items():
        evaluate.add_argument(
            option_flag(name),
            choices=list(option.choices),
            help=percent_escaped(
                f"{option.help}: "
                + "; ".join(f"{value}, {meaning}" for value, meaning in option.choices.items())
                + f" (default {option.default})"
            ),
        )
    evaluate.add_argument(
        "--where",
        default="",
        metavar="EXPR",
        help="evaluate only the items whose sentences all pass this filter expression "
        "(the window's Filter panel's: 'words > 12 and split == \"test\"'): pairs, "
        "queries and their pool, group members; "
        f"{', '.join(FILTERABLE)}",
    )
    evaluate.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="PATH",
        help="print JSON instead of the table, or write it to PATH",
    )
    evaluate.add_argument(
        "--compare",
        metavar="PATH",
        help="relatedness: MTEB result files to show beside the run, "
        "labelled imported: one <Task>.json or a results folder "
        "(<model>/<revision>/<Task>.json); STSBenchmark, SICK-R, "
        "STS12-STS16",
    )
    evaluate.set_defaults(handler=command_eval)

    encode = commands.add_parser("encode", help="write a corpus's embeddings to a file")
    encode.add_argument(
        "--corpus", default=DEFAULT_CORPUS, help=f"built-in corpus ({', '.join(BUILTIN)}) or path"
    )
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
    encode.add_argument(
        "--address",
        help="with --engine ray: the Ray cluster to join "
        "(auto, ray://HOST:10001, HOST:6379); default: start a local one",
    )
    encode.add_argument(
        "--num-cpus",
        type=int,
        default=DEFAULT_RAY_CPUS,
        help=f"CPUs of the local Ray instance (default {DEFAULT_RAY_CPUS})",
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

    index = commands.add_parser(
        "index",
        help="build the approximate neighbour index of a folder of shards",
        description="An IVF-SQ8 index trained on a seeded sample of the shards' rows, each "
        "shard's rows added in this process (local) or in a Ray task (ray), kept in the "
        "cache where searching precomputed:FOLDER approximately finds it.",
    )
    index.add_argument("folder", help="a folder written by sentspace encode --engine")
    index.add_argument("--engine", choices=ENGINES, default="local")
    index.add_argument("--address", help="with --engine ray: the Ray cluster to join")
    index.add_argument(
        "--num-cpus",
        type=int,
        default=DEFAULT_RAY_CPUS,
        help=f"CPUs of the local Ray instance (default {DEFAULT_RAY_CPUS})",
    )
    index.set_defaults(handler=command_index)

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

    regions = commands.add_parser(
        "regions",
        help="split a layout into regions at three levels, each named by its keywords",
        description="Nested bisecting k-means regions of the 2D layout (or of the "
        "embeddings): 8 coarse, each split into up to 5, twice; each labelled by "
        "class-based TF-IDF against the rest of the corpus.",
    )
    regions.add_argument(
        "--corpus", default=DEFAULT_CORPUS, help=f"built-in corpus ({', '.join(BUILTIN)}) or path"
    )
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

    export = commands.add_parser(
        "export-map",
        help="write a projection as one self-contained web page",
        description="One HTML file (plotly.js inline, WebGL): histograms and bar charts of "
        "every column that filter the map and a sortable table together, box/lasso "
        "selections and the table exported as CSV or JSONL, ranked word search, colour by "
        "any column, each point's nearest neighbours in the original space, region "
        "labels and the run's provenance. Opens from disk in any browser.",
    )
    export.add_argument(
        "--corpus", default=DEFAULT_CORPUS, help=f"built-in corpus ({', '.join(BUILTIN)}) or path"
    )
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

    search_help = (
        "how nearest neighbours are found: auto (exact up to "
        f"{EXACT_LIMIT:,} sentences, "
        "an approximate index above; the default), exact, or ann (an index "
        "always; the output gives its measured recall)"
    )
    neighbours = commands.add_parser(
        "neighbours", help="the nearest sentences of a query sentence or a corpus sentence"
    )
    neighbours.add_argument("query", nargs="?", help="a sentence (or give --index)")
    neighbours.add_argument("--index", type=int, help="query corpus sentence N (0-based)")
    neighbours.add_argument(
        "--corpus", default=DEFAULT_CORPUS, help=f"built-in corpus ({', '.join(BUILTIN)}) or path"
    )
    neighbours.add_argument("--encoder", default=DEFAULT_ENCODER, help=ENCODER_HELP)
    neighbours.add_argument("--k", type=int, default=10, help="neighbours (default 10)")
    neighbours.add_argument("--search", choices=SEARCHES, default="auto", help=search_help)
    neighbours.set_defaults(handler=command_neighbours)

    suspicious = commands.add_parser(
        "suspicious", help="annotations the embedding space disagrees with, for review"
    )
    suspicious.add_argument(
        "--corpus", default=DEFAULT_CORPUS, help=f"built-in corpus ({', '.join(BUILTIN)}) or path"
    )
    suspicious.add_argument(
        "--encoder",
        action="append",
        help=f"{ENCODER_HELP}; repeat for several (default {DEFAULT_ENCODER})",
    )
    suspicious.add_argument("--search", choices=SEARCHES, default="auto", help=search_help)
    suspicious.add_argument("--top", type=int, default=10, help="rows per table (default 10)")
    suspicious.set_defaults(handler=command_suspicious)

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
    batches.add_argument("--search", choices=SEARCHES, default="auto", help=search_help)
    batches.set_defaults(handler=command_annotations_batches)

    reproduce = commands.add_parser(
        "reproduce",
        help="re-run a paper's published tables beside its numbers",
        description="Each published cell re-run with sentspace (same setting, a named "
        "substitute, or what a user must supply), with its 95%% interval, the difference "
        "and the sentspace eval command; the paper's counts and main claims checked. "
        "Writes PAPER.md, PAPER.html and PAPER.json.",
    )
    reproduce.add_argument("paper", choices=list(PAPERS))
    reproduce.add_argument("table", nargs="?", help="one table id (default: all)")
    variant = reproduce.add_mutually_exclusive_group()
    variant.add_argument(
        "--quick", action="store_true", help="a subset of encoders on the full data (the default)"
    )
    variant.add_argument(
        "--full",
        action="store_true",
        help="every encoder sentspace can run (each paper states its time)",
    )
    reproduce.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    reproduce.add_argument(
        "--out", default="reproduce", help="folder for the report (default ./reproduce)"
    )
    reproduce.add_argument(
        "--data",
        metavar="DIR",
        help="baumel: a folder of DUC .pyr files (else $SENTSPACE_DUC, "
        "else the 14-contributor sample, not comparable)",
    )
    for name in ("items", "negatives"):
        option = OPTIONS["pyramid"][name]
        reproduce.add_argument(
            f"--{name}",
            dest=f"reproduce_{name}",
            choices=list(option.choices),
            help=percent_escaped(f"baumel: {option.help} (default: the paper's reading)"),
        )
    reproduce.set_defaults(handler=command_reproduce)

    run = commands.add_parser(
        "run",
        help="re-run a saved workspace's evaluations; exits 1 "
        "when a number differs from the saved one",
    )
    run.add_argument("workspace", help="a workspace file saved by the app")
    run.set_defaults(handler=command_run)

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
