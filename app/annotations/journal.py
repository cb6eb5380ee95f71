"""An append-only journal of edits on disk: one JSON line per record, fsync'd.

The first line names the corpus (by fingerprint) the edits apply to; every later line is
an edit (:meth:`Edit.to_dict`) or an ``{"op": "undo"}`` / ``{"op": "redo"}`` record, so
replaying the file reproduces the exact state, undo and redo stacks included. A record
is written with one ``write`` to a file opened for appending and fsync'd before
:meth:`EditJournal.append` returns: once it returns, a crash or kill cannot lose it.

A crash in the middle of a write can leave a torn last line. Opening the journal detects
it, warns, and cuts it off, so the next record starts on a line of its own; every
earlier line is kept. A bad line anywhere else is corruption and raises
:class:`~app.annotations.edits.EditError`.
"""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from app.annotations.edits import Edit, EditError, current_user, edit_from_dict, now
from app.corpora.model import Corpus

FORMAT = "sentspace-edit-journal"
VERSION = 1
#: Overrides where journals live when no workspace is given (tests set it).
DATA_DIR_ENV = "SENTSPACE_DATA_DIR"
STACK_OPS = ("undo", "redo")


def data_dir() -> Path:
    """``$SENTSPACE_DATA_DIR``, else the platform's user data folder for sentspace."""
    return Path(os.environ.get(DATA_DIR_ENV) or platformdirs.user_data_dir("sentspace"))


def journal_path(corpus: Corpus, workspace: str | Path | None = None) -> Path:
    """Where the journal of ``corpus``'s edits lives: beside the workspace file when
    there is one (``<workspace stem>.<fingerprint>.edits.jsonl``), else
    ``<data dir>/journals/<fingerprint>.jsonl``."""
    if workspace is not None:
        workspace = Path(workspace)
        return workspace.with_name(f"{workspace.stem}.{corpus.fingerprint}.edits.jsonl")
    return data_dir() / "journals" / f"{corpus.fingerprint}.jsonl"


@dataclass(frozen=True)
class StackRecord:
    """An undo or redo, journaled like an edit."""

    op: str
    author: str = field(default_factory=current_user)
    time: str = field(default_factory=now)

    def to_dict(self) -> dict[str, str]:
        return {"op": self.op, "author": self.author, "time": self.time}


Record = Edit | StackRecord


def replay(records: list[Record]) -> tuple[list[Edit], list[Edit]]:
    """The edits in effect and the redo stack (next redo last) after ``records``.

    An undo with nothing to undo, or a redo with nothing to redo, changes nothing.
    """
    done: list[Edit] = []
    undone: list[Edit] = []
    for record in records:
        if isinstance(record, StackRecord):
            source, target = (done, undone) if record.op == "undo" else (undone, done)
            if source:
                target.append(source.pop())
        else:
            done.append(record)
            undone.clear()
    return done, undone


def _fsync_folder(folder: Path) -> None:
    """Make a new file's directory entry durable (not possible on every platform)."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass
    finally:
        os.close(handle)


class EditJournal:
    """The journal file of one corpus's edits, open for appending.

    Parameters
    ----------
    path : the journal file; created (with its folders) when missing.
    corpus_fingerprint : :attr:`Corpus.fingerprint` of the *original* corpus.

    Attributes
    ----------
    records : list of Edit or StackRecord
        Every record in the file, in order.
    warnings : list of str
        What opening repaired (a torn last line).

    Raises
    ------
    EditError
        The file is for another corpus, is not a journal, or has a bad line before its
        last.
    """

    def __init__(self, path: str | Path, corpus_fingerprint: str):
        self.path = Path(path)
        self.corpus_fingerprint = corpus_fingerprint
        self.records: list[Record] = []
        self.warnings: list[str] = []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        self._handle = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            self._read()
        except BaseException:
            os.close(self._handle)
            raise
        if created:
            _fsync_folder(self.path.parent)

    def _read(self) -> None:
        data = self.path.read_bytes()
        lines = data.split(b"\n")
        # Everything after the last newline is a torn write (empty when there is none).
        complete, tail = lines[:-1], lines[-1]
        parsed = []
        for number, line in enumerate(complete, start=1):
            try:
                parsed.append(json.loads(line))
            except (json.JSONDecodeError, UnicodeDecodeError):
                if number < len(complete) or tail:
                    raise EditError("not a JSON line; the journal is corrupt", self.path,
                                    number) from None
                # A last line that is not JSON is also a torn write.
                tail = line
                complete = complete[:-1]
        if tail:
            kept = sum(len(line) + 1 for line in complete)
            self.warnings.append(f"{self.path}: ignored a torn last line "
                                 f"({len(tail)} bytes) left by an interrupted write")
            warnings.warn(self.warnings[-1], stacklevel=3)
            os.ftruncate(self._handle, kept)
            os.fsync(self._handle)
        if not parsed:
            self._write({"format": FORMAT, "version": VERSION,
                         "corpus": self.corpus_fingerprint, "created": now()})
            return
        header = parsed[0]
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise EditError("not a sentspace edit journal (bad first line)", self.path, 1)
        if header.get("corpus") != self.corpus_fingerprint:
            raise EditError(f"the journal is for corpus {header.get('corpus')}, not "
                            f"{self.corpus_fingerprint}", self.path, 1)
        for number, record in enumerate(parsed[1:], start=2):
            try:
                if not isinstance(record, dict):
                    raise EditError(f"expected an object, found {record!r}")
                if record.get("op") in STACK_OPS:
                    self.records.append(StackRecord(**record))
                else:
                    self.records.append(edit_from_dict(record))
            except (EditError, TypeError) as error:
                problem = error.problem if isinstance(error, EditError) else str(error)
                raise EditError(problem, self.path, number) from None

    def _write(self, record: dict) -> None:
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        # One write to an O_APPEND file: the line lands whole at the end or, after a
        # crash, as a torn tail that the next open cuts off.
        written = os.write(self._handle, line)
        if written != len(line):
            raise OSError(f"short write to {self.path}")
        os.fsync(self._handle)

    def append(self, record: Record) -> None:
        """Write ``record`` and fsync it; when this returns the record is durable."""
        self._write(record.to_dict())
        self.records.append(record)

    def state(self) -> tuple[list[Edit], list[Edit]]:
        """:func:`replay` of the records: the edits in effect and the redo stack."""
        return replay(self.records)

    def close(self) -> None:
        if self._handle >= 0:
            os.close(self._handle)
            self._handle = -1

    def __enter__(self) -> EditJournal:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()
