"""Shared pieces of the corpus readers: strict reading of text files and interning sentences.

Every reader goes through :func:`read_lines` (bytes -> decoded lines, with one
:class:`~sentspace.app.base.errors.CorpusError` naming file, line and problem for missing, empty, binary,
mis-encoded or absurdly long input) and collects its sentences in a
:class:`SentenceTable`, which keeps one entry per distinct key (the text, or the dataset's
id where identical texts must stay apart) and builds the :class:`Corpus` only once the
whole input has been read, so a failure never leaves a half-loaded corpus behind.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from pathlib import Path

import numpy as np
from scipy.sparse import coo_array

from sentspace.app.base.errors import CorpusError

# scipy.sparse.csgraph (which pulls scipy.linalg, ~75 ms) is imported where it is used,
# inside the corpus-loading job, so the GUI's window opens without it.
from sentspace.app.corpora.model import Corpus, Grouping, PairTable

#: Longer lines are not sentences: the file is binary, minified or not line-based.
MAX_LINE_CHARS = 100_000


def line_of_offset(data: bytes, offset: int) -> int:
    """1-based line number of byte ``offset`` in ``data``."""
    return data.count(b"\n", 0, offset) + 1


def read_bytes(path: Path) -> bytes:
    """The bytes of ``path``; CorpusError when missing, a folder, unreadable, empty or binary."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError("file not found", path) from None
    except IsADirectoryError:
        raise CorpusError("is a folder, expected a file", path) from None
    except OSError as error:
        raise CorpusError(f"cannot read: {error.strerror}", path) from None
    if not data.strip():
        raise CorpusError("file is empty", path)
    nul = data.find(b"\0")
    if nul >= 0:
        raise CorpusError(
            "binary data (NUL byte), not a text file", path, line_of_offset(data, nul)
        )
    return data


def decode(
    path: Path, data: bytes, encoding: str = "utf-8", fallback: str | None = None
) -> tuple[str, tuple[int, ...]]:
    """Decode a file in ``encoding``; with a ``fallback``, each line that is not valid
    ``encoding`` is decoded on its own in ``fallback``, and only that line: a file with
    one cp1252 line among UTF-8 ones keeps every UTF-8 line as written.

    Returns
    -------
    text : str
        The decoded text without a leading BOM.
    fallback_lines : tuple of int
        1-based lines that are not valid ``encoding``, every one of them (empty when no
        fallback was needed).
    """
    try:
        return data.decode(encoding).removeprefix("\ufeff"), ()
    except UnicodeDecodeError as error:
        first_bad = error.start
    if fallback is None:
        raise CorpusError(
            f"not valid {encoding.upper()} (byte 0x{data[first_bad]:02x})",
            path,
            line_of_offset(data, first_bad),
        )
    # Only lines holding non-ASCII bytes can be invalid in an ASCII-compatible encoding:
    # the runs of lines between them decode at once.
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = np.append(np.flatnonzero(raw == 0x0A), len(data))
    starts = np.insert(ends[:-1] + 1, 0, 0)
    suspect = np.unique(np.searchsorted(ends, np.flatnonzero(raw >= 0x80))).tolist()
    parts, bad, done = [], [], 0
    for line in suspect:
        start, end = int(starts[line]), int(ends[line])
        parts.append(data[done:start].decode(encoding))
        chunk = data[start:end]
        try:
            parts.append(chunk.decode(encoding))
        except UnicodeDecodeError:
            try:
                parts.append(chunk.decode(fallback))
            except UnicodeDecodeError as error:
                raise CorpusError(
                    f"neither {encoding.upper()} nor {fallback} (byte 0x{chunk[error.start]:02x})",
                    path,
                    line + 1,
                ) from None
            bad.append(line + 1)
        done = end
    parts.append(data[done:].decode(encoding))
    return "".join(parts).removeprefix("\ufeff"), tuple(bad)


def split_lines(path: Path, text: str) -> list[str]:
    """Lines of ``text`` without LF / CRLF endings; the final newline ends, not adds, a line."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    longest = int(lengths.argmax()) if len(lines) else 0
    if len(lines) and lengths[longest] > MAX_LINE_CHARS:
        raise CorpusError(
            f"line of {lengths[longest]:,} characters (limit "
            f"{MAX_LINE_CHARS:,}): not a file of sentences",
            path,
            longest + 1,
        )
    return [line.removesuffix("\r") for line in lines]


def read_decoded(
    path: Path, encoding: str = "utf-8", fallback: str | None = None
) -> tuple[str, tuple[int, ...]]:
    """:func:`read_bytes` then :func:`decode`; CorpusError when no text is left."""
    text, bad = decode(path, read_bytes(path), encoding, fallback)
    if not text.strip():  # whitespace other than ASCII, or a lone BOM
        raise CorpusError("file is empty", path)
    return text, bad


def read_lines(
    path: Path,
    encoding: str = "utf-8",
    fallback: str | None = None,
    warnings: list[str] | None = None,
) -> list[str]:
    """Decoded lines of ``path`` (see :func:`decode` and :func:`split_lines`).

    When ``fallback`` was needed, a warning naming the file and its lines is appended
    to ``warnings``.
    """
    text, bad = read_decoded(path, encoding, fallback)
    if bad and warnings is not None:
        assert fallback is not None, "decode reads lines in a fallback only when given one"
        warnings.append(fallback_warning(path, bad, encoding, fallback))
    return split_lines(path, text)


def fallback_warning(
    path: Path, lines: Iterable[int], encoding: str = "utf-8", fallback: str = "cp1252"
) -> str:
    """What a corpus warns of the ``lines`` that were not ``encoding``: each was read
    as ``fallback`` (the others as ``encoding``)."""
    lines = list(lines)
    return (
        f"{path.name}: not {encoding.upper()}, read as {fallback} "
        f"(line{'s' if len(lines) > 1 else ''} {format_lines(lines)})"
    )


def format_lines(lines: Iterable[int], limit: int = 20) -> str:
    """``"3, 17, 45"``, or the first ``limit`` followed by ``"... (N in all)"``."""
    lines = list(lines)
    shown = ", ".join(map(str, lines[:limit]))
    return shown if len(lines) <= limit else f"{shown}... ({len(lines)} in all)"


def split_fields(
    path: Path, number: int, line: str, expected: int, *, at_least: bool = False, names: str = ""
) -> list[str]:
    """The tab-separated fields of one line; CorpusError unless there are ``expected``.

    With ``at_least``, extra trailing fields are allowed and dropped.
    """
    fields = line.split("\t")
    if len(fields) < expected or (len(fields) > expected and not at_least):
        wanted = f"{'at least ' if at_least else ''}{expected} tab-separated columns"
        raise CorpusError(
            f"expected {wanted}{f' ({names})' if names else ''}, found {len(fields)}", path, number
        )
    return fields[:expected]


def parse_float(
    path: Path, number: int, value: str, what: str, low: float = -math.inf, high: float = math.inf
) -> float:
    """``value`` as a finite float in ``[low, high]``, else CorpusError naming the line."""
    try:
        result = float(value)
    except ValueError:
        raise CorpusError(f"{what} is not a number: {value[:40]!r}", path, number) from None
    if not low <= result <= high:  # also rejects NaN
        raise CorpusError(f"{what} {value[:40]!r} is outside {low:g}-{high:g}", path, number)
    return result


def require_text(path: Path, number: int, text: str, what: str = "sentence") -> str:
    """``text`` stripped of surrounding whitespace; CorpusError when nothing is left."""
    text = text.strip()
    if not text:
        raise CorpusError(f"empty {what}", path, number)
    return text


class SentenceTable:
    """Distinct sentences collected while reading, one per key, in first-seen order.

    Parameters
    ----------
    columns : tuple of str
        Metadata columns every :meth:`add` call gives a value for (kept from the
        sentence's first occurrence).
    """

    def __init__(self, columns: tuple[str, ...] = ()) -> None:
        self.columns = columns
        self._index: dict[Hashable, int] = {}
        self.texts: list[str] = []
        self.ids: list[str] = []
        self.metadata: dict[str, list] = {column: [] for column in columns}

    def __len__(self) -> int:
        return len(self.texts)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._index

    def add(
        self, text: str, sentence_id: str, key: Hashable | None = None, **metadata: object
    ) -> int:
        """Index of the sentence with ``key`` (default: the text), added if new."""
        key = text if key is None else key
        index = self._index.get(key)
        if index is None:
            index = self._index[key] = len(self.texts)
            self.texts.append(text)
            self.ids.append(sentence_id)
            for column in self.columns:
                self.metadata[column].append(metadata[column])
        return index

    def corpus(
        self,
        name: str,
        *,
        sources: Iterable[Path | str],
        warnings: Iterable[str] = (),
        groups: Grouping | None = None,
        pairs: PairTable | None = None,
        language: str = "en",
        metadata: dict[str, list] | None = None,
    ) -> Corpus:
        """The finished corpus; extra ``metadata`` columns are added to the table's own."""
        columns = {
            column: tuple(values)
            for column, values in {**self.metadata, **(metadata or {})}.items()
        }
        return Corpus(
            name=name,
            texts=tuple(self.texts),
            ids=tuple(self.ids),
            language=language,
            groups=groups,
            pairs=pairs,
            metadata=columns,
            sources=tuple(str(source) for source in sources),
            warnings=tuple(warnings),
        )


def grouping_from_labels(
    kind: str, sentence_index: Iterable[int], group_label: Iterable[str], names: Iterable[str] = ()
) -> Grouping:
    """A :class:`Grouping` with one membership per (sentence, label) item.

    Groups are numbered in the order of ``names`` followed by labels not in it, in order
    of first appearance.
    """
    order = {name: i for i, name in enumerate(names)}
    labels = list(group_label)
    for label in labels:
        order.setdefault(label, len(order))
    return Grouping(
        kind=kind,
        sentence_index=np.fromiter(sentence_index, dtype=np.int64),
        group_index=np.fromiter(
            (order[label] for label in labels), dtype=np.int64, count=len(labels)
        ),
        names=tuple(order),
    )


def pair_components(
    n_sentences: int,
    first: np.ndarray,
    second: np.ndarray,
    min_size: int = 3,
    kind: str = "paraphrase group",
) -> Grouping:
    """Connected components of the graph whose edges are the given pairs, as groups.

    Parameters
    ----------
    n_sentences : int
        Number of nodes.
    first, second : ndarray of shape (n_edges,)
        Sentence indices of each (undirected) edge.
    min_size : int
        Components with fewer sentences are dropped (a sentence in no pair is a
        component of one).

    Returns
    -------
    Grouping
        Groups numbered by their lowest sentence index, members in sentence order.
    """
    graph = coo_array(
        (np.ones(len(first), dtype=np.int8), (first, second)), shape=(n_sentences, n_sentences)
    )
    from scipy.sparse.csgraph import connected_components  # noqa: PLC0415 (lazy: slow)

    _, component = connected_components(graph, directed=False)
    sizes = np.bincount(component)
    members = np.flatnonzero(sizes[component] >= min_size)
    # connected_components numbers components by their lowest node, so this keeps order.
    _, group_index = np.unique(component[members], return_inverse=True)
    order = np.lexsort((members, group_index))
    n_groups = int(group_index.max()) + 1 if len(members) else 0
    return Grouping(
        kind=kind,
        sentence_index=members[order],
        group_index=group_index[order],
        names=tuple(str(g) for g in range(n_groups)),
    )


def first_line(path: Path, limit: int = 4096) -> str:
    """The first line of a file (BOM dropped, undecodable bytes replaced), for detection."""
    try:
        with path.open("rb") as handle:
            head = handle.read(limit)
    except OSError:
        return ""
    return head.split(b"\n", 1)[0].decode("utf-8", "replace").removeprefix("\ufeff").rstrip("\r")


def corpus_from_columns(
    path: Path,
    name: str,
    texts,
    ids=None,
    labels=None,
    *,
    group_kind: str = "group",
    numbers: np.ndarray | None = None,
    where: str = "row",
    warnings: Iterable[str] = (),
) -> Corpus:
    """A corpus of sentences from whole columns (pyarrow arrays, one value per row),
    without a Python step per row: what the table reader makes of the same rows.

    Parameters
    ----------
    texts, ids, labels : pyarrow arrays of strings (ids and labels optional; null or
        empty cells mean none).
    group_kind : the kind of the groups the labels make.
    numbers : int array, optional
        The file's number of each row (its line); default 1, 2, ...
    where : "line" or "row": what ``numbers`` count, in ids (``"L12"``), metadata and
        error messages.

    Raises
    ------
    CorpusError
        An empty or missing text, or an id repeated with another text, at the first
        offending row.
    """
    import pyarrow as pa  # noqa: PLC0415 - not on the GUI's start path
    import pyarrow.compute as pc  # noqa: PLC0415

    n = len(texts)
    numbers = np.arange(1, n + 1) if numbers is None else np.asarray(numbers)

    def fail(row: int, problem: str) -> CorpusError:
        if where == "line":
            return CorpusError(problem, path, int(numbers[row]))
        return CorpusError(f"row {numbers[row]}: {problem}", path)

    stripped = pc.utf8_trim_whitespace(texts.cast(pa.string()))
    # pyarrow-stubs 20 takes no Python number where pyarrow compares with a scalar.
    empty = pc.fill_null(
        pc.equal(pc.utf8_length(stripped), 0),  # type: ignore[call-overload]
        True,
    ).to_numpy(zero_copy_only=False)
    if empty.any():
        raise fail(int(empty.argmax()), "empty or missing text")
    # Codes in order of first appearance: identical texts are one sentence.
    encoded = pc.dictionary_encode(stripped)
    sentence_of_row = encoded.indices.to_numpy().astype(np.int64)
    _, first_row = np.unique(sentence_of_row, return_index=True)
    positional = np.char.add(
        "L" if where == "line" else "R", numbers[first_row].astype(str)
    ).tolist()
    if ids is not None:
        id_text = pc.utf8_trim_whitespace(ids.cast(pa.string()))
        given = pc.fill_null(
            pc.greater(pc.utf8_length(id_text), 0),  # type: ignore[call-overload]
            False,
        ).to_numpy(zero_copy_only=False)
        id_codes = pc.dictionary_encode(id_text).indices.to_numpy(zero_copy_only=False)
        rows = np.flatnonzero(given)
        _, first_of_id = np.unique(id_codes[rows], return_index=True)
        first_text = np.empty(int(id_codes[rows].max(initial=-1)) + 1, dtype=np.int64)
        first_text[id_codes[rows][first_of_id]] = sentence_of_row[rows][first_of_id]
        clash = rows[sentence_of_row[rows] != first_text[id_codes[rows]]]
        if len(clash):
            row = int(clash[0])
            first = int(rows[np.flatnonzero(id_codes[rows] == id_codes[row])[0]])
            raise fail(
                row,
                f"id {id_text[row].as_py()!r} has another text than on {where} {numbers[first]}",
            )
        id_values = id_text.take(pa.array(first_row)).to_pylist()
        sentence_ids = [value or fallback for value, fallback in zip(id_values, positional)]
    else:
        sentence_ids = positional
    groups = None
    if labels is not None:
        label_text = pc.utf8_trim_whitespace(labels.cast(pa.string()))
        members = np.flatnonzero(
            pc.fill_null(
                pc.greater(pc.utf8_length(label_text), 0),  # type: ignore[call-overload]
                False,
            ).to_numpy(zero_copy_only=False)
        )
        if len(members):
            named = pc.dictionary_encode(label_text.take(pa.array(members)))
            groups = Grouping(
                group_kind,
                sentence_of_row[members],
                named.indices.to_numpy().astype(np.int64),
                tuple(named.dictionary.to_pylist()),
            )
    return Corpus(
        name=name,
        texts=tuple(encoded.dictionary.to_pylist()),
        ids=tuple(sentence_ids),
        groups=groups,
        metadata={where: tuple(numbers[first_row].tolist())},
        sources=(str(path),),
        warnings=tuple(warnings),
    )
