"""Whether a path can hold a journal at all, checked before anything is opened, locked or
made: no FIFO, device, folder or unreadable name, and a missing journal said as such."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from sentspace.app.annotations.edits import (
    EditError,
)
from sentspace.app.base.atomic import NOT_FILES, read_regular


def _reason(error: OSError) -> str:
    """An OSError in a few words: "No space left on device" (no path, no errno)."""
    return error.strerror or str(error) or type(error).__name__


class JournalMissing(EditError):
    """No file is at a journal's path: one is started there only where the user asked."""


#: What is said of a journal's path where no file is.
MISSING = "missing: no journal file at this path"


def shown_path(path: str | Path) -> Path:
    """``path`` as a one-line message names it: control characters and lone surrogates
    (bytes that are not UTF-8) escaped, a name of thousands of characters cut in the
    middle."""
    return Path(_shown(str(path)))


def _shown(text: str) -> str:
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")  # lone surrogates
    text = text.translate({code: f"\\x{code:02x}" for code in range(32)})
    return text if len(text) <= 200 else f"{text[:120]}…{text[-60:]}"


def check_journal(path: str | Path, *, create: bool = False) -> Path:
    """``path`` as a Path, if a journal can be read there (with ``create``: or nothing
    is there yet, to start one). Decided within moments: a FIFO is never opened, a
    device never read, so nothing waits for a writer that never comes.

    Raises
    ------
    JournalMissing
        No file is there (and not ``create``).
    EditError
        The name names no file (empty, a folder, a NUL byte in it, too long), or what is
        there is not a file (a folder, a FIFO, a device) or cannot be read.
    """
    text = str(path)
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        raise EditError(
            "the journal's name holds half of a UTF-16 pair alone, which no file name does",
            shown_path(text),
        ) from None
    if "\x00" in text:
        raise EditError(
            "the journal's name holds a NUL byte, which no file name does", shown_path(text)
        )
    if not text.strip() or text.endswith(("/", os.sep)) or Path(text).name in ("", ".", ".."):
        raise EditError(f"the journal's name {_shown(text)!r} names no file")
    path = Path(text)
    try:
        kind = NOT_FILES.get(stat.S_IFMT(os.stat(path).st_mode))
    except FileNotFoundError:
        if create:
            return path
        raise JournalMissing(MISSING, shown_path(path)) from None
    except NotADirectoryError:
        raise EditError("a folder on the journal's path is a file", shown_path(path)) from None
    except OSError as error:
        raise EditError(f"cannot read the journal: {_reason(error)}", shown_path(path)) from None
    if kind is not None:
        raise EditError(f"is {kind}, not a journal file", shown_path(path))
    try:
        read_regular(path, 1)  # /proc/self/mem is a "file" nothing can read
    except OSError as error:
        raise EditError(f"cannot read the journal: {_reason(error)}", shown_path(path)) from None
    return path
