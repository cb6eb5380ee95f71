"""Parquet corpora: a ``text`` column, and optional ``id``, ``group`` and ``label`` ones.

Columns are found by the header names the table reader knows (``ALIASES`` of
:mod:`app.corpora.tabular`: ``sentence`` for the text, ``cluster`` or ``topic`` for the
group...). Only those columns are read, with pyarrow, so a million sentences open in about
a second. As with the other tables, identical texts are one sentence (its id and row are
those of its first row) and every row with a group or label is a membership.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.corpora.build import grouping_from_labels
from app.corpora.model import Corpus
from app.corpora.tabular import ALIASES, _normal
from app.errors import CorpusError

SUFFIXES = {".parquet", ".pq"}
ROLES = ("text", "id", "group", "label")


def is_parquet(path: Path) -> bool:
    """A file with a Parquet extension."""
    return path.is_file() and path.suffix.lower() in SUFFIXES


def _strings(path: Path, table, column: str, role: str) -> list[str | None]:
    """A column as Python strings (numbers written out), None where null."""
    import pyarrow as pa  # noqa: PLC0415
    values = table.column(column)
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)
            or pa.types.is_integer(values.type) or pa.types.is_dictionary(values.type)):
        raise CorpusError(f"{role} column {column!r} holds {values.type}, expected text"
                          f"{'' if role == 'text' else ' or integers'}", path)
    return values.cast(pa.string()).to_pylist()


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
        wanted = {role: next((n for n in names if _normal(n) in ALIASES[role]), None)
                  for role in ROLES}
        if wanted["text"] is None:
            raise CorpusError(f"no text column (columns: {', '.join(names) or 'none'}); "
                              f"name it one of {', '.join(ALIASES['text'])}", path)
        table = pq.read_table(path, columns=[c for c in wanted.values() if c is not None])
    except FileNotFoundError:
        raise CorpusError("file not found", path) from None
    except (OSError, pa.ArrowException) as error:
        raise CorpusError(f"not a readable Parquet file ({error})", path) from None
    texts = _strings(path, table, wanted["text"], "text")
    ids = _strings(path, table, wanted["id"], "id") if wanted["id"] else None
    group_role = "group" if wanted["group"] else "label" if wanted["label"] else None
    labels = _strings(path, table, wanted[group_role], group_role) if group_role else None

    index: dict[str, int] = {}
    first_row: list[int] = []
    id_of: dict[str, tuple[str, int]] = {}
    sentence_of_row = np.empty(len(texts), dtype=np.int64)
    for row, text in enumerate(texts):
        text = text.strip() if text is not None else ""
        if not text:
            raise CorpusError(f"row {row + 1}: empty or missing text", path)
        if ids is not None:
            sentence_id = ids[row] or f"R{row + 1}"
            first = id_of.setdefault(sentence_id, (text, row))
            if first[0] != text:
                raise CorpusError(f"row {row + 1}: id {sentence_id!r} has another text "
                                  f"than row {first[1] + 1}", path)
        sentence_of_row[row] = index.setdefault(text, len(index))
        if sentence_of_row[row] == len(first_row):
            first_row.append(row)
    rows = np.asarray(first_row)
    sentence_ids = ([ids[r] or f"R{r + 1}" for r in first_row] if ids is not None
                    else [f"R{r + 1}" for r in first_row])
    grouping = None
    if labels is not None:
        members = [row for row, label in enumerate(labels) if label]
        if members:
            grouping = grouping_from_labels("group" if group_role == "group" else "class",
                                            sentence_of_row[members].tolist(),
                                            [labels[row] for row in members])
    return Corpus(name=name or path.stem, texts=tuple(index), ids=tuple(sentence_ids),
                  groups=grouping, metadata={"row": tuple((rows + 1).tolist())},
                  sources=(str(path),))
