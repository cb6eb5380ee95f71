"""Errors raised at the edge, where user input enters the core.

Each is a ValueError (the Python API's promise: ``except ValueError`` catches what a
bad argument or file raises); a file or folder that does not exist is a
:class:`NotFoundError`, a FileNotFoundError as well.
"""

from __future__ import annotations

from pathlib import Path


class InputError(ValueError):
    """A file or argument the user gave cannot be used.

    The message names the file, the line (1-based) when one applies, and the problem, so
    the CLI can print it as one line and the GUI can show it in a dialog.
    """

    def __init__(self, problem: str, path: str | Path | None = None, line: int | None = None):
        self.problem = problem
        self.path = Path(path) if path is not None else None
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = str(self.path)
            if self.line is not None:
                where += f", line {self.line}"
            where += ": "
        return where + self.problem


class NotFoundError(InputError, FileNotFoundError):
    """A file or folder the user named does not exist (``filename`` names it, as
    FileNotFoundError's does)."""

    def __init__(self, problem: str, path: str | Path | None = None, line: int | None = None):
        super().__init__(problem, path, line)
        self.filename = None if self.path is None else str(self.path)


class CorpusError(InputError):
    """A corpus file is missing, malformed or inconsistent."""


class CorpusNotFoundError(CorpusError, NotFoundError):
    """A corpus path that names no file or folder (and no built-in corpus)."""


class EvaluationError(InputError):
    """An evaluation was asked of data that lacks what it needs."""
