"""A :class:`~sentspace.app.reproduce.runner.Report` as text tables (CLI), Markdown, a
self-contained HTML page (inline SVG charts, no network) and JSON."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.base.tables import write_json
from sentspace.app.reproduce.findings import ALPHA, NO_DIFFERENCE
from sentspace.app.reproduce.model import NOT_COMPARABLE, OUTSIDE, SAME, WITHIN
from sentspace.app.reproduce.runner import Report, Row

COLUMNS = ("row", "column", "published", "sentspace [95% CI]", "difference", "mark", "reach")


def _number(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:.2f}" if abs(value) >= 10 else f"{value:.4f}"


def cells(row: Row) -> list[str]:
    """A row as the table's text cells (:data:`COLUMNS`)."""
    cell = row.cell
    ours = _number(row.value) if row.value is not None else row.status
    if row.ci is not None:
        ours += f" [{_number(row.ci[0])}, {_number(row.ci[1])}]"
    published = cell.printed or "(not in paper)"
    if cell.published is None and cell.printed:
        published += " (unreadable)"
    reach = row.reach or ""
    if reach == OUTSIDE and not row.cell.outside:
        reach += " (no cause recorded)"
    elif reach == OUTSIDE or (reach == NOT_COMPARABLE and row.cell.incomparable):
        reach += " (see notes)"
    return [cell.row, cell.column, published, ours, _number(row.difference), row.mark, reach]


def by_table(report: Report) -> list[tuple[str, str, list[Row]]]:
    """(table id, title, rows) in the paper's order."""
    return [
        (table.id, table.title, [r for r in report.rows if r.cell.table == table.id])
        for table in report.paper.tables
        if table.id in report.tables
    ]


def tally(report: Report) -> str:
    """What the run counts: published cells re-run, reference rows (sentspace's own, not
    in the paper), and the re-run published cells by reach."""
    published = [r for r in report.rows if r.cell.printed]
    references = {r.cell.row for r in report.rows if not r.cell.printed}
    reference_cells = [r for r in report.rows if not r.cell.printed]
    ran = [r for r in published if r.value is not None]
    reaches = Counter(r.reach for r in ran if r.reach)
    text = f"{len(ran)} of {len(published)} published cells re-run"
    if references:
        reference_ran = sum(r.value is not None for r in reference_cells)
        text += (
            f"; {len(references)} reference rows ({reference_ran} of "
            f"{len(reference_cells)} cells re-run, sentspace's own, not in the paper)"
        )
    if reaches:
        text += " — " + ", ".join(
            f"{reaches[k]} {k}" for k in (WITHIN, OUTSIDE, NOT_COMPARABLE) if reaches[k]
        )
    return text


def header(report: Report) -> list[str]:
    lines = [
        f"{report.paper.title}",
        f"{report.variant} run, seed {report.seed}: {tally(report)}; "
        f"{report.seconds:.0f} s"
        + (f" (--full: {report.paper.full_time})" if report.variant == "quick" else ""),
    ]
    if report.data is not None:
        lines.append(f"data: {report.data}")
    if report.options:
        lines.append("options: " + ", ".join(f"{k} {v}" for k, v in report.options))
    bands = ", ".join(sorted({f"{r.band:g}" for r in report.rows}))
    lines.append(
        f"reach: the 95% interval covers the published value or the difference "
        f"is inside the table's band ({bands}); substitutes and stand-ins are not "
        "comparable"
    )
    lines.append(report.command)
    return lines


def finding_lines(report: Report) -> list[str]:
    """One line per finding: verdict, claim, what was compared, tests, the paper's own."""
    return [f"{f.verdict.upper()}: {f.claim}. {f.evidence}" for f in report.findings]


def outside_notes(rows: Sequence[Row]) -> list[str]:
    """Why each same-setting cell outside its published value's reach lies there, and why
    one is not comparable although its setting is the paper's."""
    return [
        f"{r.cell.row} / {r.cell.column} outside ({_number(r.value)} vs "
        f"{r.cell.printed}): {r.cell.outside or 'no cause recorded'}"
        if r.reach == OUTSIDE
        else f"{r.cell.row} / {r.cell.column} {r.reach_text}"
        for r in rows
        if r.reach == OUTSIDE or (r.reach == NOT_COMPARABLE and r.mark == SAME)
    ]


def to_dict(report: Report) -> dict[str, Any]:
    return {
        "paper": report.paper.name,
        "title": report.paper.title,
        "variant": report.variant,
        "seed": report.seed,
        "seconds": report.seconds,
        "tables": [
            {"id": tid, "title": title, "rows": [r.to_dict() for r in rows]}
            for tid, title, rows in by_table(report)
        ],
        "summary": tally(report),
        "data": None if report.data is None else str(report.data),
        "options": dict(report.options),
        "counts": [c.__dict__ for c in report.counts],
        "findings": [f.to_dict() for f in report.findings],
    }


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + [
        "| " + " | ".join(_md_cell(str(c)) for c in row) + " |" for row in rows
    ]


def to_markdown(report: Report) -> str:
    lines = [f"# Reproducing {report.paper.name}", "", *header(report), ""]
    for tid, title, rows in by_table(report):
        lines += [f"## {tid}: {title}", ""]
        lines += _md_table(COLUMNS, [cells(r) for r in rows])
        notes = {r.cell.note for r in rows if r.cell.note}
        commands = [r.command for r in rows if r.command]
        lines += ["", "Notes:"] + [f"- {n}" for n in sorted(notes)]
        lines += [f"- {n}" for n in outside_notes(rows)]
        if commands:
            lines += ["", "Commands:", "", "```sh", *dict.fromkeys(commands), "```"]
        lines.append("")
    if report.counts:
        lines += ["## Counts stated in the paper", ""]
        lines += _md_table(
            ("what", "paper", "sentspace", "note"),
            [(c.what, c.paper, c.ours, c.note) for c in report.counts],
        )
        lines.append("")
    lines += ["## Findings", ""]
    lines += [f"- **{f.claim}**: {f.verdict}. {f.evidence}" for f in report.findings]
    lines += [
        "",
        f"Verdicts: tests at p < {ALPHA}; *{NO_DIFFERENCE}* when the data cannot "
        "tell the compared numbers apart.",
    ]
    return "\n".join(lines) + "\n"


def _svg_chart(rows: Sequence[Row]) -> str:
    """Horizontal bars, published (grey) beside sentspace (blue) with its interval, for
    the rows on a 0-1 scale that have both numbers."""
    shown = [
        r
        for r in rows
        if r.value is not None
        and r.cell.published is not None
        and 0 <= r.cell.published <= 1
        and 0 <= r.value <= 1
    ]
    if not shown:
        return ""
    label_width, bar_width, step = 300, 360, 26
    height = step * len(shown) + 30
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_width + bar_width + 80}" '
        f'height="{height}" role="img" font-family="sans-serif" font-size="11">'
    ]
    for k, row in enumerate(shown):
        y = 10 + k * step
        assert row.value is not None and row.cell.published is not None, "shown: both"
        label = html.escape(f"{row.cell.row} · {row.cell.column}")
        parts.append(f'<text x="{label_width - 6}" y="{y + 14}" text-anchor="end">{label}</text>')
        parts.append(
            f'<rect x="{label_width}" y="{y}" height="9" width="'
            f'{bar_width * row.cell.published:.1f}" fill="#9e9e9e"><title>published '
            f"{row.cell.printed}</title></rect>"
        )
        parts.append(
            f'<rect x="{label_width}" y="{y + 10}" height="9" width="'
            f'{bar_width * row.value:.1f}" fill="#1f77b4"><title>sentspace '
            f"{row.value:.4f}</title></rect>"
        )
        if row.ci is not None:
            low, high = (label_width + bar_width * max(0.0, min(1.0, x)) for x in row.ci)
            parts.append(
                f'<line x1="{low:.1f}" x2="{high:.1f}" y1="{y + 14.5}" '
                f'y2="{y + 14.5}" stroke="#000" stroke-width="1.5"/>'
            )
    axis_y = 10 + len(shown) * step
    for tick in (0, 0.25, 0.5, 0.75, 1):
        x = label_width + bar_width * tick
        parts.append(f'<text x="{x:.0f}" y="{axis_y + 12}" text-anchor="middle">{tick}</text>')
    parts.append(
        f'<text x="{label_width + bar_width + 8}" y="20" fill="#9e9e9e">paper</text>'
        f'<text x="{label_width + bar_width + 8}" y="34" fill="#1f77b4">sentspace</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


STYLE = (
    "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;"
    "padding:2px 6px;text-align:left}th{background:#f3f3f3}"
    ".same{color:#2e7d32}.substitute{color:#b26a00}.needs{color:#c62828}"
    "code{font-size:12px}"
)


def to_html(report: Report) -> str:
    e = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Reproducing {e(report.paper.name)}</title><style>{STYLE}</style></head>",
        f"<body><h1>Reproducing {e(report.paper.name)}</h1>",
    ]
    out += [f"<p>{e(line)}</p>" for line in header(report)]
    for tid, title, rows in by_table(report):
        out.append(f"<h2>{e(tid)}: {e(title)}</h2>")
        out.append(_svg_chart(rows))
        out.append(
            "<table><tr>"
            + "".join(f"<th>{e(c)}</th>" for c in COLUMNS)
            + "<th>command</th><th>note</th></tr>"
        )
        for row in rows:
            texts = cells(row)
            mark = row.mark.split()[0]
            note = "; ".join(
                n
                for n in (
                    row.cell.note,
                    row.reach_text
                    if row.reach == OUTSIDE or (row.reach == NOT_COMPARABLE and row.mark == SAME)
                    else "",
                )
                if n
            )
            out.append(
                "<tr>"
                + "".join(f"<td>{e(t)}</td>" for t in texts[:-2])
                + f'<td class="{mark}">{e(texts[-2])}</td><td>{e(texts[-1])}</td>'
                + f"<td><code>{e(row.command)}</code></td><td>{e(note)}</td></tr>"
            )
        out.append("</table>")
    if report.counts:
        out.append(
            "<h2>Counts stated in the paper</h2><table><tr><th>what</th><th>paper</th>"
            "<th>sentspace</th><th>note</th></tr>"
        )
        out += [
            f"<tr><td>{e(c.what)}</td><td>{e(c.paper)}</td><td>{e(c.ours)}</td>"
            f"<td>{e(c.note)}</td></tr>"
            for c in report.counts
        ]
        out.append("</table>")
    out.append("<h2>Findings</h2><ul>")
    out += [
        f"<li><b>{e(f.claim)}</b>: {e(f.verdict)}. {e(f.evidence)}</li>" for f in report.findings
    ]
    out.append("</ul></body></html>")
    return "\n".join(out) + "\n"


def write_report(report: Report, folder: str | Path) -> list[Path]:
    """Write ``<paper>.md``, ``<paper>.html`` and ``<paper>.json`` into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / report.paper.name
    write_text_atomic(stem.with_suffix(".md"), to_markdown(report))
    write_text_atomic(stem.with_suffix(".html"), to_html(report))
    write_json(stem.with_suffix(".json"), to_dict(report))
    return [stem.with_suffix(suffix) for suffix in (".md", ".html", ".json")]
