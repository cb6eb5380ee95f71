"""Shared checks of a reproduction: every published cell has exactly one row."""

from sentspace.app.base.jobs import run_job
from sentspace.app.reproduce.runner import Report, run_reproduction, selected_cells


def reproduced(paper, tables=None) -> Report:
    report = run_job(run_reproduction(paper, tables))
    cells = selected_cells(paper, tables)
    keys = [(c.table, c.row, c.column) for c in cells]
    assert len(set(keys)) == len(keys)
    assert [(r.cell.table, r.cell.row, r.cell.column) for r in report.rows] == keys
    for row in report.rows:
        assert not row.error, (row.cell, row.error)
        if row.cell.run is not None and row.value is not None:
            assert row.command.startswith(f"sentspace eval {row.cell.run.evaluation} ")
    return report


def row(report: Report, table: str, model: str, column: str):
    return next(
        r
        for r in report.rows
        if (r.cell.table, r.cell.row, r.cell.column) == (table, model, column)
    )


def cells_per_table(paper) -> dict[str, int]:
    return {table.id: len(table.cells) for table in paper.tables}
