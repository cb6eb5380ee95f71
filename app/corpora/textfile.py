"""Reading text files at the edge: decoding with line-accurate errors."""

from __future__ import annotations

from pathlib import Path

from app.errors import CorpusError


def line_of_offset(data: bytes, offset: int) -> int:
    """1-based line number of byte ``offset`` in ``data``."""
    return data.count(b"\n", 0, offset) + 1


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """The text of ``path``, decoded strictly; a leading BOM is dropped.

    Raises CorpusError naming the file (and the line, for a bad byte) when the file is
    missing, unreadable, binary or not valid in ``encoding``.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError("file not found", path) from None
    except IsADirectoryError:
        raise CorpusError("is a folder, expected a file", path) from None
    except OSError as error:
        raise CorpusError(f"cannot read: {error.strerror}", path) from None
    nul = data.find(b"\0")
    if nul >= 0:
        raise CorpusError("binary data (NUL byte), not a text file", path,
                          line_of_offset(data, nul))
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        raise CorpusError(f"not valid {encoding.upper()} (byte 0x{data[error.start]:02x})",
                          path, line_of_offset(data, error.start)) from None
    return text.removeprefix("\ufeff")


def read_lines(path: Path, encoding: str = "utf-8") -> list[str]:
    """Lines of ``path`` without their line endings (LF or CRLF); an empty file is an error."""
    text = read_text(path, encoding)
    if not text.strip():
        raise CorpusError("file is empty", path)
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]
