"""Parquet corpora: a ``text`` column, and optional ``id``, ``group`` and ``label`` ones.

Columns are found by the header names the table reader knows (``ALIASES`` of
:mod:`sentspace.app.corpora.tabular`: ``sentence`` for the text, ``cluster`` or ``topic`` for the
group...). Only those columns are read, with pyarrow, so a million sentences open in about
a second. As with the other tables, identical texts are one sentence (its id and row are
those of its first row) and every row with a group or label is a membership.
"""

from __future__ import annotations

from pathlib import Path

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora.build import corpus_from_columns
from sentspace.app.corpora.model import Corpus
from sentspace.app.corpora.tabular import ALIASES, _normal

SUFFIXES = {".parquet", ".pq"}
ROLES = ("text", "id", "group", "label")


def is_parquet(path: Path) -> bool:
    """A file with a Parquet extension."""
    return path.is_file() and path.suffix.lower() in SUFFIXES


def _check_type(path: Path, table, column: str, role: str) -> None:
    """CorpusError unless the column holds text (or, for ids and labels, integers)."""
    import pyarrow as pa  # noqa: PLC0415

    kind = table.schema.field(column).type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if not (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or (role != "text" and pa.types.is_integer(kind))
    ):
        raise CorpusError(
            f"{role} column {column!r} holds {kind}, expected text"
            f"{'' if role == 'text' else ' or integers'}",
            path,
        )


def load_parquet(path: str | Path, name: str | None = None) -> Corpus:
    """Load a Parquet table of sentences.

    Returns
    -------
    Corpus
        Distinct sentences, ids from the ``id`` column or ``"R<row>"`` (1-based) of the
        first occurrence, metadata ``row``; a ``Grouping`` from the group column (kind
        "group") or else the label column (kind "class").

    Raises
    ------
    CorpusError
        The file cannot be read as Parquet, has no text column, a text is empty or null,
        a column has the wrong type, or an id repeats with another text.
    """
    import pyarrow as pa  # noqa: PLC0415 - not on the GUI's start path
    import pyarrow.parquet as pq  # noqa: PLC0415

    path = Path(path)
    try:
        names = pq.read_schema(path).names
        wanted = {
            role: next((n for n in names if _normal(n) in ALIASES[role]), None) for role in ROLES
        }
        if wanted["text"] is None:
            raise CorpusError(
                f"no text column (columns: {', '.join(names) or 'none'}); "
                f"name it one of {', '.join(ALIASES['text'])}",
                path,
            )
        table = pq.read_table(path, columns=[c for c in wanted.values() if c is not None])
    except FileNotFoundError:
        raise CorpusError("file not found", path) from None
    except (OSError, pa.ArrowException) as error:
        raise CorpusError(f"not a readable Parquet file ({error})", path) from None
    for role, header in wanted.items():
        if header is not None:
            _check_type(path, table, header, role)
    if not len(table):
        raise CorpusError("no rows", path)
    table = table.combine_chunks()
    group_role = "group" if wanted["group"] else "label" if wanted["label"] else None

    def column(role: str):
        header = wanted[role]
        assert header is not None, f"a {role} column is read only when named"
        return table.column(header).chunk(0)

    return corpus_from_columns(
        path,
        name or path.stem,
        column("text"),
        column("id") if wanted["id"] else None,
        column(group_role) if group_role else None,
        group_kind="group" if group_role == "group" else "class",
    )
