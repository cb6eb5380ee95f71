"""The evaluations: ``eval`` (one evaluation, several encoders, paired tests, MTEB
scores beside) and ``run`` (a saved workspace's evaluations again)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from sentspace.app.analysis.evaluations import COMPARISONS, EVALUATIONS, OPTIONS, bitext
from sentspace.app.analysis.evaluations.paired import PAIRED_TESTS, against_first
from sentspace.app.analysis.evaluations.passing import FILTERABLE, check_filterable, passing
from sentspace.app.analysis.mteb_results import (
    IMPORTED,
    TASKS,
    MtebImport,
    beside,
    read_mteb_results,
    same_model,
)
from sentspace.app.analysis.neighbours import run_split
from sentspace.app.base.commands import option_flag
from sentspace.app.base.errors import InputError
from sentspace.app.base.jobs import run_job
from sentspace.app.base.tables import json_text, write_json
from sentspace.app.cli.common import (
    ENCODER_HELP,
    Subcommands,
    TerminalJobs,
    add_version_arguments,
    load_version,
    percent_escaped,
)
from sentspace.app.corpora import BUILTIN, DEFAULT_CORPUS
from sentspace.app.services import (
    build_encoder,
    format_table,
    summary_table,
)
from sentspace.app.workspace.format import load_workspace
from sentspace.app.workspace.restore import changed_summaries, run_workspace
from sentspace.models import DEFAULT_ENCODER, NeuralEncoder
from sentspace.models.base import Encoder


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


def trained_on_their_files(encoders: Sequence[Encoder]) -> list[Encoder]:
    """The networks among ``encoders`` that trained on a file of their own during the
    evaluation, trained (the process remembers each: no second training), so their
    training can be reported."""
    return [
        run_job(encoder.clone().iter_fit([]))
        for encoder in encoders
        if isinstance(encoder, NeuralEncoder) and not encoder.learns_from_data
    ]


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
    with TerminalJobs() as jobs:
        if args.evaluation in COMPARISONS:
            compare, _ = COMPARISONS[args.evaluation]
            results = [jobs.run(compare(corpus, encoders, seed=args.seed))]
        else:
            evaluation, _ = EVALUATIONS[args.evaluation]
            results = [
                jobs.run(evaluation(corpus, encoder, seed=args.seed, **options))
                for encoder in encoders
            ]
        outcomes = (
            jobs.run(against_first(args.evaluation, results, args.seed))
            if args.evaluation in PAIRED_TESTS
            else []
        )
    # The results stand on their own: printed, then why a test was not made. Each test
    # is an encoder (its A) against the first (its B): differences read other - first.
    paired = [(o.b, o.a, o.test) for o in outcomes if o.test is not None]
    unpaired = [(o.b, o.a, o.reason) for o in outcomes if o.test is None]

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
            f"\npaired tests of {what}, each encoder (A) against "
            f"{results[0].provenance.encoder_name} (B)"
        )
        print(
            summary_table(
                [test for _, _, test in paired], [a.provenance.encoder_name for a, _, _ in paired]
            )
        )
    if imported is not None:
        print()
        print(imported_table(imported, results, args.compare))
    print(reasons, end="", file=sys.stderr)
    return status


def command_run(args: argparse.Namespace) -> int:
    workspace = load_workspace(args.workspace)
    with TerminalJobs() as printer:
        results = run_workspace(args.workspace, printer)
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


def add_eval(commands: Subcommands) -> None:
    """``sentspace eval``."""
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


def add_run(commands: Subcommands) -> None:
    """``sentspace run``."""
    run = commands.add_parser(
        "run",
        help="re-run a saved workspace's evaluations; exits 1 "
        "when a number differs from the saved one",
    )
    run.add_argument("workspace", help="a workspace file saved by the app")
    run.set_defaults(handler=command_run)
