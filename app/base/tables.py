"""Tables and JSON as the files the app writes: text built in one place, written
atomically, so a CSV of the CLI, the window and an export reads the same."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from sentspace.app.base.atomic import write_text_atomic


def json_text(payload: Any) -> str:
    """``payload`` as indented JSON ending in a newline; numpy scalars become floats."""
    return json.dumps(payload, indent=2, default=float) + "\n"


def write_json(path: str | Path, payload: Any) -> Path:
    """Write :func:`json_text` of ``payload`` to ``path``."""
    write_text_atomic(path, json_text(payload))
    return Path(path)


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A header row and ``rows`` as CSV, one ``\\n``-terminated line each."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def write_csv(path: str | Path, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Path:
    """Write :func:`csv_text` of the header and rows to ``path``."""
    write_text_atomic(path, csv_text(header, rows))
    return Path(path)
