"""``sentspace reproduce``: a paper's published tables re-run beside its numbers."""

from __future__ import annotations

import argparse
from pathlib import Path

from sentspace.app.analysis.evaluations import OPTIONS
from sentspace.app.base.errors import InputError
from sentspace.app.base.jobs import run_job
from sentspace.app.cli.common import Subcommands, percent_escaped
from sentspace.app.corpora.pyramid import is_pyramid
from sentspace.app.reproduce import FULL, PAPERS, QUICK, run_reproduction
from sentspace.app.reproduce.report import (
    COLUMNS,
    by_table,
    cells,
    finding_lines,
    header,
    outside_notes,
    write_report,
)
from sentspace.app.services import (
    ProgressPrinter,
    format_table,
)


def command_reproduce(args: argparse.Namespace) -> int:

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


def add_reproduce(commands: Subcommands) -> None:
    """``sentspace reproduce``."""
    reproduce = commands.add_parser(
        "reproduce",
        help="re-run a paper's published tables beside its numbers",
        description="Each published cell re-run with sentspace (same setting, a named "
        "substitute, or what a user must supply), with its 95% interval, the difference "
        "and the sentspace eval command; the paper's counts and main claims checked. "
        "Writes PAPER.md, PAPER.html and PAPER.json.",
    )
    reproduce.add_argument("paper", choices=list(PAPERS))
    reproduce.add_argument("table", nargs="?", help="one table id (default: all)")
    variant = reproduce.add_mutually_exclusive_group()
    for flag, what in (
        ("--quick", "a subset of encoders on the full data (the default)"),
        ("--full", "every encoder sentspace can run (each paper states its time)"),
    ):
        variant.add_argument(flag, action="store_true", help=what)
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
