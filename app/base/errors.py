"""Errors raised at the edge, where user input enters the core."""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
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


class CorpusError(InputError):
    """A corpus file is missing, malformed or inconsistent."""


class EvaluationError(InputError):
    """An evaluation was asked of data that lacks what it needs."""
