"""The user's own tables: CSV, TSV, JSON Lines, or plain text with one sentence a line.

Three shapes are understood:

* plain sentences: one text column (a ``.txt`` file, or a single-column table);
* sentence + group or label: the group becomes a :class:`Grouping` (kind "group" for a
  group column, "class" for a label column), one membership per row;
* pairs: ``sentence1`` + ``sentence2`` with a score and/or label (and a split), which
  become a :class:`PairTable`.

Which column is which comes from a :class:`ColumnMapping`: the CLI's options and the GUI's
mapping dialog fill one in, and the fields left ``None`` are found by the obvious header
names (``text``/``sentence``, ``group``, ``label``, ``sentence1``/``sentence2``,
``score``...; see ``ALIASES``). CSV honours quotes; TSV and text treat quotes as literal
characters (the convention of the research datasets), unless the mapping says otherwise.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora.build import (
    MAX_LINE_CHARS,
    SentenceTable,
    corpus_from_columns,
    fallback_warning,
    first_line,
    grouping_from_labels,
    read_decoded,
    split_lines,
)
from sentspace.app.corpora.model import Corpus, PairTable

DELIMITERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
JSONL = {".jsonl", ".ndjson"}
PLAIN = {".txt"}
SUFFIXES = set(DELIMITERS) | JSONL | PLAIN

#: Header names recognised for each role, compared lowercased without spaces, ``_``, ``-``
#: and ``#``.
ALIASES = {
    "text": ("text", "sentence", "sentences", "phrase", "utterance"),
    "sentence1": ("sentence1", "sentencea", "text1", "texta", "s1", "question1", "1string"),
    "sentence2": ("sentence2", "sentenceb", "text2", "textb", "s2", "question2", "2string"),
    "group": (
        "group",
        "groupid",
        "groupindex",
        "paraphrasegroup",
        "paraphrasegroupindex",
        "cluster",
        "topic",
    ),
    "label": ("label", "class", "category", "quality", "goldlabel", "entailmentjudgment"),
    "score": ("score", "similarity", "relatedness", "relatednessscore", "goldscore"),
    "split": ("split", "set", "semevalset"),
    "id": ("id", "sentenceid", "pairid"),
}
ROLES = tuple(ALIASES)


@dataclass(frozen=True)
class ColumnMapping:
    """Which column of a table plays which role: a header name or a 0-based index.

    Roles left ``None`` are found by header name (``ALIASES``). ``header``: whether the
    first row names the columns (``None``: yes when it holds a recognised name or one the
    mapping uses). ``delimiter`` and ``quoted`` override the defaults of the file's
    extension (comma and quotes for ``.csv``, tab and literal quotes otherwise).
    """

    text: str | int | None = None
    sentence1: str | int | None = None
    sentence2: str | int | None = None
    group: str | int | None = None
    label: str | int | None = None
    score: str | int | None = None
    split: str | int | None = None
    id: str | int | None = None
    header: bool | None = None
    delimiter: str | None = None
    quoted: bool | None = None

    def roles(self) -> dict[str, str | int]:
        """The roles given explicitly."""
        return {role: getattr(self, role) for role in ROLES if getattr(self, role) is not None}


class ColumnsUnclear(CorpusError):
    """No column can be taken for the sentences: the user must say which (the GUI then
    offers its column-mapping dialog; the CLI its ``--*-column`` options)."""


def _normal(name: str) -> str:
    return re.sub(r"[\s_\-#]", "", name).lower()


def is_tabular(path: Path) -> bool:
    """A file whose extension is one the tabular reader handles."""
    return path.is_file() and path.suffix.lower() in SUFFIXES


def _table_rows(
    path: Path, text: str, mapping: ColumnMapping
) -> tuple[list[str] | None, Iterator[tuple[int, list[str]]]]:
    """Header cells (or None) and (line, cells) rows of a delimited or plain-text file."""
    lines = split_lines(path, text)
    suffix = path.suffix.lower()
    delimiter = mapping.delimiter or DELIMITERS.get(suffix)
    if delimiter is None:  # plain text: every line is one cell
        rows: Iterator[tuple[int, list[str]]] = (
            (number, [line]) for number, line in enumerate(lines, start=1)
        )
    else:
        quoted = mapping.quoted if mapping.quoted is not None else suffix == ".csv"
        rows = _csv_rows(path, lines, delimiter, quoted)
    rows = ((number, cells) for number, cells in rows if any(c.strip() for c in cells))
    first = next(rows, None)
    if first is None:
        raise CorpusError("no rows", path)
    header = first[1]
    wanted = {v for v in mapping.roles().values() if isinstance(v, str)}
    known = {alias for aliases in ALIASES.values() for alias in aliases}
    # A plain-text file has no header unless told: its first line is a sentence.
    has_header = (
        mapping.header
        if mapping.header is not None
        else delimiter is not None and any(_normal(c) in known or c in wanted for c in header)
    )
    if has_header:
        return [c.strip() for c in header], rows
    return None, _chain(first, rows)


def _chain(
    first: tuple[int, list[str]], rest: Iterator[tuple[int, list[str]]]
) -> Iterator[tuple[int, list[str]]]:
    yield first
    yield from rest


def _csv_rows(
    path: Path, lines: list[str], delimiter: str, quoted: bool
) -> Iterator[tuple[int, list[str]]]:
    reader = csv.reader(
        io.StringIO("\n".join(lines)),
        delimiter=delimiter,
        strict=True,
        quoting=csv.QUOTE_MINIMAL if quoted else csv.QUOTE_NONE,
    )
    start = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise CorpusError(
                f"malformed {'CSV' if delimiter == ',' else 'table'}: {error}",
                path,
                reader.line_num,
            ) from None
        yield start, cells
        start = reader.line_num + 1


def _jsonl_rows(path: Path, text: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Keys (in order of first appearance) and rows of cells aligned to them."""
    records = []
    keys: dict[str, int] = {}
    for number, line in enumerate(split_lines(path, text), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise CorpusError(
                f"not JSON: {error.msg} (column {error.colno})", path, number
            ) from None
        if not isinstance(record, dict):
            raise CorpusError(
                f"expected a JSON object, found {type(record).__name__}", path, number
            )
        for key, value in record.items():
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, str | int | float)
            ):
                raise CorpusError(
                    f"value of {key!r} is {type(value).__name__}, expected text or a number",
                    path,
                    number,
                )
            keys.setdefault(key, len(keys))
        records.append((number, record))
    if not records:
        raise CorpusError("no JSON objects", path)
    rows = [
        (number, ["" if record.get(key) is None else str(record.get(key)) for key in keys])
        for number, record in records
    ]
    return list(keys), rows


def _resolve(
    path: Path, header: list[str] | None, n_columns: int, mapping: ColumnMapping
) -> dict[str, int]:
    """Column index of every role the mapping names or the header reveals."""
    columns: dict[str, int] = {}
    for role, given in mapping.roles().items():
        if isinstance(given, int):
            if not 0 <= given < n_columns:
                raise CorpusError(
                    f"{role} column {given} does not exist (the table has "
                    f"{n_columns} columns, 0-{n_columns - 1})",
                    path,
                )
            columns[role] = given
        elif header is None or given not in header:
            raise CorpusError(
                f"no column named {given!r} for {role}"
                + (
                    f" (columns: {', '.join(header)})"
                    if header
                    else " (the file has no header row)"
                ),
                path,
            )
        else:
            columns[role] = header.index(given)
    if header is not None:
        normal = [_normal(name) for name in header]
        for role, aliases in ALIASES.items():
            if role not in columns:
                found = next(
                    (
                        i
                        for i, name in enumerate(normal)
                        if name in aliases and i not in columns.values()
                    ),
                    None,
                )
                if found is not None:
                    columns[role] = found
    if "text" not in columns and not {"sentence1", "sentence2"} <= columns.keys():
        if n_columns == 1:
            columns["text"] = 0
        else:
            names = ", ".join(header) if header else f"{n_columns} unnamed columns"
            raise ColumnsUnclear(
                f"cannot tell which column holds the sentences ({names}): "
                "name a text column, or sentence1 and sentence2 columns",
                path,
            )
    return columns


def _read_rows(
    path: Path, mapping: ColumnMapping
) -> tuple[list[str] | None, list[tuple[int, list[str]]], tuple[int, ...]]:
    """(header or None, (line, cells) rows, lines that needed cp1252) of a table file."""
    text, fallback_lines = read_decoded(path, "utf-8", "cp1252")
    if path.suffix.lower() in JSONL:
        return (*_jsonl_rows(path, text), fallback_lines)
    header, rows_iter = _table_rows(path, text, mapping)
    return header, list(rows_iter), fallback_lines


def preview_table(
    path: str | Path, mapping: ColumnMapping | None = None, n_rows: int = 8
) -> tuple[list[str], list[list[str]]]:
    """Column names (the header's, or "column 1"...) and the first rows, for a dialog
    where the user picks each column's role."""
    path = Path(path)
    header, rows, _ = _read_rows(path, mapping or ColumnMapping())
    width = len(header) if header is not None else max(len(cells) for _, cells in rows)
    names = header if header is not None else [f"column {i + 1}" for i in range(width)]
    return names, [cells for _, cells in rows[:n_rows]]


def load_tabular(
    path: str | Path, mapping: ColumnMapping | None = None, name: str | None = None
) -> Corpus:
    """Load a user's CSV / TSV / JSONL / text file.

    Parameters
    ----------
    path : str or Path
        The file; its extension picks the syntax (``.csv``, ``.tsv``/``.tab``,
        ``.jsonl``/``.ndjson``, ``.txt``).
    mapping : ColumnMapping, optional
        Explicit roles of columns; the rest are detected by header name.

    Returns
    -------
    Corpus
        Distinct sentences (identical texts are one sentence), ids from the ``id``
        column or ``"L<line>"`` of the first occurrence, metadata ``line``; with pairs, a
        ``PairTable`` (label -1 / score NaN where a cell is empty; text labels numbered in
        order of first appearance, names in ``pairs.label_names``; split "" when no split
        column; subset = file name), else with a group or label column a ``Grouping``.

    Raises
    ------
    CorpusError
        The file is missing, empty, binary or undecodable; a row has a different number
        of columns than the first; a sentence is empty; a score is not a finite number; an
        id repeats with another text; a mapped column does not exist; or no column can
        be taken for the sentences.
    """
    path = Path(path)
    mapping = mapping or ColumnMapping()
    warnings: list[str] = []
    if path.suffix.lower() in PLAIN and mapping == ColumnMapping():
        return _plain_text(path, name, warnings)
    if path.suffix.lower() in DELIMITERS and mapping == ColumnMapping():
        fast = _columnar_sentences(path, name)
        if fast is not None:
            return fast
    header, rows, fallback_lines = _read_rows(path, mapping)
    if fallback_lines:
        warnings.append(fallback_warning(path, fallback_lines))
    if not rows:
        raise CorpusError("no rows after the header", path)
    n_columns = len(header) if header is not None else len(rows[0][1])
    for number, cells in rows:
        if len(cells) != n_columns:
            raise CorpusError(
                f"expected {n_columns} columns like the "
                f"{'header' if header is not None else 'first row'}, found "
                f"{len(cells)}",
                path,
                number,
            )
    columns = _resolve(path, header, n_columns, mapping)
    if {"sentence1", "sentence2"} <= columns.keys():
        return _pairs(path, rows, columns, name, warnings)
    return _sentences(path, rows, columns, name, warnings, header)


def _plain_text(path: Path, name: str | None, warnings: list[str]) -> Corpus:
    """A text file of one sentence a line, read without a row-by-row table: what
    :func:`_sentences` makes of it, at a million lines a second."""
    text, fallback_lines = read_decoded(path, "utf-8", "cp1252")
    if fallback_lines:
        warnings.append(fallback_warning(path, fallback_lines))
    lines = [line.strip() for line in split_lines(path, text)]
    distinct = dict.fromkeys(lines)  # in order of first appearance
    distinct.pop("", None)
    if not distinct:
        raise CorpusError("no rows", path)
    # Reversed, so each sentence keeps the number of its first line.
    first_line = dict(zip(reversed(lines), range(len(lines), 0, -1)))
    texts = list(distinct)
    numbers = [first_line[text] for text in texts]
    return Corpus(
        name=name or path.stem,
        texts=tuple(texts),
        ids=tuple(f"L{number}" for number in numbers),
        metadata={"line": tuple(numbers)},
        sources=(str(path),),
        warnings=tuple(warnings),
    )


def _columnar_sentences(path: Path, name: str | None) -> Corpus | None:
    """A CSV/TSV of sentences (with id, group or label columns) read by pyarrow's CSV
    reader, column by column: what the row-by-row reader makes of the same file, ten
    times faster. None when the file is anything but plain (no header, pairs, invalid
    UTF-8, blank or multi-line rows, a row pyarrow rejects): the row-by-row reader then
    reads it, and names the line of any problem."""
    import pyarrow as pa  # noqa: PLC0415 - not on the GUI's start path
    import pyarrow.compute as pc  # noqa: PLC0415
    import pyarrow.csv as pv  # noqa: PLC0415

    delimiter = DELIMITERS[path.suffix.lower()]
    quoted = path.suffix.lower() == ".csv"
    try:
        header = next(
            csv.reader(
                [first_line(path)],
                delimiter=delimiter,
                quoting=csv.QUOTE_MINIMAL if quoted else csv.QUOTE_NONE,
            )
        )
    except (csv.Error, StopIteration):
        return None
    header = [cell.strip() for cell in header]
    known = {alias for aliases in ALIASES.values() for alias in aliases}
    if len(set(header)) != len(header) or not any(_normal(c) in known for c in header):
        return None
    try:
        columns = _resolve(path, header, len(header), ColumnMapping())
    except CorpusError:
        return None
    if "text" not in columns:
        return None
    group_role = "group" if "group" in columns else "label" if "label" in columns else None
    wanted = {role: header[columns[role]] for role in ("text", "id", group_role) if role in columns}
    if len(wanted) < len(header):
        return None  # columns kept as metadata: the row reader keeps them
    try:
        table = pv.read_csv(
            path,
            read_options=pv.ReadOptions(column_names=header, skip_rows=1),
            parse_options=pv.ParseOptions(delimiter=delimiter, quote_char='"' if quoted else False),
            convert_options=pv.ConvertOptions(
                include_columns=list(wanted.values()),
                column_types={column: pa.string() for column in header},
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
        data = path.read_bytes()
    except (OSError, pa.ArrowException):
        return None
    # NUL bytes (binary), and quotes the csv module is stricter about than pyarrow: an
    # unclosed one, or text right after a closing one. The row reader says where.
    if b"\0" in data or (
        quoted and (data.count(b'"') % 2 or re.search(rb'[^,\n\r"]"[^,\n\r"]', data))
    ):
        return None
    lines, size, ends_with_newline = data.count(b"\n"), len(data), data.endswith(b"\n")
    del data
    # A blank line or a quoted newline would shift the line numbers the ids are made of.
    if not len(table) or not size or len(table) != lines - ends_with_newline:
        return None
    table = table.combine_chunks()
    column = lambda role: table.column(wanted[role]).chunk(0) if role else None  # noqa: E731
    if pc.max(pc.utf8_length(table.column(wanted["text"]).chunk(0))).as_py() > MAX_LINE_CHARS:
        return None
    try:
        return corpus_from_columns(
            path,
            name or path.stem,
            column("text"),
            column("id" if "id" in wanted else None),
            column(group_role),
            group_kind="group" if group_role == "group" else "class",
            numbers=np.arange(2, len(table) + 2),
            where="line",
        )
    except CorpusError:
        return None


def _cell(row: list[str], columns: dict[str, int], role: str) -> str:
    return row[columns[role]].strip() if role in columns else ""


def _text(path: Path, number: int, row: list[str], columns: dict[str, int], role: str) -> str:
    text = _cell(row, columns, role)
    if not text:
        raise CorpusError(f"empty {role}", path, number)
    return text


def _sentences(
    path: Path,
    rows: list[tuple[int, list[str]]],
    columns: dict[str, int],
    name: str | None,
    warnings: list[str],
    header: list[str] | None = None,
) -> Corpus:
    group_role = "group" if "group" in columns else "label" if "label" in columns else None
    # Every other column of a header is kept (the first value of a sentence), so a
    # file the Filter panel exported opens with its columns.
    used = {columns[role] for role in ("text", "id", group_role) if role in columns}
    kept = {
        (name if name != "line" else "line (file)"): at
        for at, name in enumerate(header or ())
        if at not in used and name
    }
    table = SentenceTable(("line", *kept))
    id_first: dict[str, tuple[str, int]] = {}
    members: list[int] = []
    groups: list[str] = []
    for number, row in rows:
        text = _text(path, number, row, columns, "text")
        sentence_id = _cell(row, columns, "id") or f"L{number}"
        if "id" in columns:
            first = id_first.setdefault(sentence_id, (text, number))
            if first[0] != text:
                raise CorpusError(
                    f"id {sentence_id!r} has another text than on line {first[1]}", path, number
                )
        index = table.add(
            text, sentence_id, line=number, **{name: row[at].strip() for name, at in kept.items()}
        )
        group = _cell(row, columns, group_role) if group_role else ""
        if group:
            members.append(index)
            groups.append(group)
    grouping = (
        grouping_from_labels("group" if group_role == "group" else "class", members, groups)
        if members
        else None
    )
    return table.corpus(name or path.stem, sources=[path], warnings=warnings, groups=grouping)


def _pairs(
    path: Path,
    rows: list[tuple[int, list[str]]],
    columns: dict[str, int],
    name: str | None,
    warnings: list[str],
) -> Corpus:
    table = SentenceTable(("line",))
    first, second, scores, labels, splits = [], [], [], [], []
    for number, row in rows:
        sentence_id = _cell(row, columns, "id") or f"L{number}"
        first.append(
            table.add(
                _text(path, number, row, columns, "sentence1"), f"{sentence_id}:1", line=number
            )
        )
        second.append(
            table.add(
                _text(path, number, row, columns, "sentence2"), f"{sentence_id}:2", line=number
            )
        )
        score = _cell(row, columns, "score")
        try:
            value = float(score) if score else math.nan
        except ValueError:
            raise CorpusError(f"score is not a number: {score[:40]!r}", path, number) from None
        if math.isinf(value) or (score and math.isnan(value)):
            raise CorpusError(f"score is not a finite number: {score[:40]!r}", path, number)
        scores.append(value)
        labels.append(_cell(row, columns, "label"))
        splits.append(_cell(row, columns, "split"))
    label_index, label_names = _number_labels(labels)
    return table.corpus(
        name or path.stem,
        sources=[path],
        warnings=warnings,
        pairs=PairTable(
            first=np.asarray(first),
            second=np.asarray(second),
            label=label_index,
            score=np.asarray(scores),
            split=tuple(splits),
            subset=(path.stem,) * len(first),
            label_names=label_names,
        ),
    )


def _number_labels(labels: list[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Integer labels as they are when all are integers >= 0; else classes numbered in
    order of first appearance, with their names. Empty cells are -1 (unlabelled)."""
    given = [label for label in labels if label]
    if all(re.fullmatch(r"\d{1,18}", label) for label in given):
        return np.array([int(label) if label else -1 for label in labels], dtype=np.int64), ()
    names = tuple(dict.fromkeys(given))
    index = {label: i for i, label in enumerate(names)}
    return np.array([index.get(label, -1) for label in labels], dtype=np.int64), names
