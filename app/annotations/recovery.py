"""Edits a session kept unsaved, mirrored on disk so that a kill loses none of them.

Each writer (one :class:`~sentspace.app.annotations.session.AnnotationSession`: a window, a
process) has a file of its own, ``<data dir>/recovery/<journal id>/<writer>.jsonl``, and
while it lives holds an OS lock on ``<writer>.lock`` beside it (``filelock``: released
when the process ends, kill -9 included). So two windows on one journal never overwrite
each other's kept edits, and discarding drops only one's own.

A new session on a journal (:meth:`KeptEdits.adopt`) takes over the files of that
journal's writers whose lock it can take (they are gone): their edits become its own
kept edits. A live writer's file is never touched. A file kept for an earlier journal
at the same path (deleted or replaced since: another id) is never applied to the new
one: its edits are written beside the journal as a journal of their own
(``<journal stem>.kept-<time>.jsonl``), for the user to review and merge, and the
session says where. Files of the format before writers had their own
(``recovery/<hash of the path>.jsonl``, no journal id) are set aside the same way.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import filelock

from sentspace.app.annotations.edits import Edit, EditError, edit_from_dict, new_id
from sentspace.app.annotations.journal import (
    EditJournal,
    data_dir,
    journal_lines,
    time_stamp,
    write_new_file,
)
from sentspace.app.base.atomic import write_text_atomic

FORMAT = "sentspace-kept-edits"
VERSION = 1


@dataclass(frozen=True)
class Kept:
    """A kept edit as the recovery file holds it."""

    edit: Edit
    new_target: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"edit": self.edit.to_dict(), "new_target": self.new_target}


@dataclass
class Adopted:
    """What :meth:`KeptEdits.adopt` found: the edits taken over (oldest first) and what
    to tell the user (files set aside, files that could not be read)."""

    kept: list[Kept] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def recovery_root() -> Path:
    return data_dir() / "recovery"


def _writer_lock(file: Path) -> filelock.FileLock:
    # No soft-lock fallback: a lock file left by a dead process would look alive forever.
    return filelock.FileLock(file.with_suffix(".lock"), timeout=0, fallback_to_soft=False)


def _claim(file: Path) -> filelock.FileLock | None:
    """The lock of the writer of ``file``, taken: the writer is gone. None while it lives
    (or where it cannot be told)."""
    lock = _writer_lock(file)
    try:
        lock.acquire()
    except (filelock.Timeout, OSError):
        return None
    return lock


def _let_go(lock: filelock.FileLock, remove: bool) -> None:
    """Release ``lock``; with ``remove``, delete its file first (its writer is gone: a
    process that opened it meanwhile then finds no kept edits beside it)."""
    if remove:
        with contextlib.suppress(OSError):
            os.unlink(lock.lock_file)
    with contextlib.suppress(OSError):
        lock.release()


def _read(file: Path) -> tuple[dict, list[Kept]]:
    """The header and kept edits of a recovery file (a file of the first format has no
    header: ``{}``).

    Raises
    ------
    ValueError, KeyError, TypeError, EditError
        The file cannot be read as kept edits.
    """
    lines = [
        json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    top = lines[0] if lines and lines[0].get("format") == FORMAT else {}
    return top, [
        Kept(edit_from_dict(line["edit"]), bool(line.get("new_target", False)))
        for line in lines[1 if top else 0 :]
    ]


def _legacy_file(journal: Path) -> Path:
    """Where the first format kept the edits of the journal at ``journal``."""
    key = hashlib.sha256(str(journal.resolve()).encode("utf-8", "surrogatepass"))
    return recovery_root() / f"{key.hexdigest()[:16]}.jsonl"


class KeptEdits:
    """One writer's recovery file for one journal.

    Attributes
    ----------
    path : Path
        ``<data dir>/recovery/<journal id>/<writer>.jsonl``; absent while nothing is kept.
    """

    def __init__(self, journal: EditJournal, author: str):
        self.journal = journal
        self.author = author
        self.writer = new_id()
        self.path = recovery_root() / journal.id / f"{self.writer}.jsonl"
        self._lock: filelock.FileLock | None = None  # taken when something is first kept

    def _hold(self) -> bool:
        """Hold this writer's lock (taken once, until :meth:`close`): while it is held no
        other session takes this writer's edits."""
        if self._lock is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock = _claim(self.path)
            if lock is None:
                return False
            self._lock = lock
        return True

    def write(self, kept: list[Kept]) -> None:
        """Mirror ``kept`` in this writer's file (removed when nothing is kept). Best
        effort: a data folder that cannot be written (or locked) leaves them kept in this
        session only."""
        try:
            if not kept:
                self.path.unlink(missing_ok=True)
                return
            if not self._hold():
                return
            top = {
                "format": FORMAT,
                "version": VERSION,
                "journal": str(self.journal.path.resolve()),
                "journal_id": self.journal.id,
                "corpus": self.journal.corpus_fingerprint,
                "writer": self.writer,
                "author": self.author,
                "pid": os.getpid(),
            }
            write_text_atomic(
                self.path,
                "".join(
                    json.dumps(line, ensure_ascii=False) + "\n"
                    for line in [top, *(item.to_dict() for item in kept)]
                ),
            )
        except OSError:
            pass

    def adopt(self) -> Adopted:
        """Take over the kept edits of this journal's writers that are gone, and set
        aside those kept for an earlier journal at this path."""
        found = Adopted()
        root = recovery_root()
        here = str(self.journal.path.resolve())
        try:
            files = sorted(root.glob("*/*.jsonl"))
        except OSError:
            return found
        claimed: list[tuple[Path, filelock.FileLock]] = []
        for file in files:
            ours = file.parent.name == self.journal.id
            if not ours and not self._kept_here(file, here):
                continue
            lock = _claim(file)
            if lock is None:
                continue  # its writer lives (or cannot be told): not ours to take
            try:
                top, kept = _read(file)
            except FileNotFoundError:  # saved or taken meanwhile
                _let_go(lock, remove=True)
                continue
            except (OSError, ValueError, KeyError, TypeError, AttributeError, EditError):
                found.notices.append(self._unreadable(file))
                _let_go(lock, remove=True)
                continue
            if ours:
                found.kept += kept
                claimed.append((file, lock))
            else:
                self._set_aside(file, top.get("corpus"), kept, found)
                _let_go(lock, remove=True)
        legacy = _legacy_file(self.journal.path)
        if legacy.is_file():
            try:
                _, kept = _read(legacy)
            except (OSError, ValueError, KeyError, TypeError, AttributeError, EditError):
                found.notices.append(self._unreadable(legacy))
            else:
                self._set_aside(legacy, None, kept, found)
        if claimed:
            found.kept = list({item.edit.id: item for item in found.kept}.values())
            found.kept.sort(key=lambda item: item.edit.time)  # stable: each file's order
            self.write(found.kept)
            taken = not found.kept or self.path.is_file()
            for file, lock in claimed:
                if taken:  # now in this writer's file: theirs goes
                    file.unlink(missing_ok=True)
                _let_go(lock, remove=taken)
            if not taken:  # left for a session that can keep them
                found.kept = []
        return found

    @staticmethod
    def _kept_here(file: Path, here: str) -> bool:
        """Whether ``file`` holds edits kept for a journal at the path ``here``."""
        try:
            with file.open(encoding="utf-8") as handle:
                top = json.loads(handle.readline())
        except (OSError, ValueError):
            return False
        return isinstance(top, dict) and top.get("journal") == here

    def _set_aside(self, file: Path, corpus: str | None, kept: list[Kept], found: Adopted) -> None:
        """Write ``kept`` (edits for an earlier journal at this path) beside the journal
        as a journal of their own, then remove ``file``; where that cannot be written,
        ``file`` stays for a later session."""
        journal = self.journal.path
        if kept:
            stem, stamp, suffix = journal.stem, time_stamp(), journal.suffix
            try:
                aside = write_new_file(
                    lambda n: journal.with_name(f"{stem}.kept-{stamp}{n}{suffix}"),
                    journal_lines(
                        corpus or self.journal.corpus_fingerprint, [item.edit for item in kept]
                    ),
                )
            except OSError as error:
                found.notices.append(
                    f"edits kept for an earlier journal at {journal} could not be set aside "
                    f"beside it ({error.strerror or error}); they stay in {file}"
                )
                return
            count = f"{len(kept)} edit{'s' if len(kept) > 1 else ''}"
            found.notices.append(
                f"{count} kept unsaved for an earlier journal at {journal} (deleted or "
                f"replaced since) set aside in {aside}, not applied; to apply them: "
                f"sentspace annotations merge {journal} {aside} --out {journal}"
            )
        with contextlib.suppress(OSError):
            file.unlink()

    @staticmethod
    def _unreadable(file: Path) -> str:
        aside = file.with_suffix(".unreadable")
        with contextlib.suppress(OSError):
            file.replace(aside)
        return f"kept edits that cannot be read were set aside in {aside}"

    def close(self) -> None:
        """Let go of this writer's lock: edits still kept are taken over by the next
        session on the journal."""
        if self._lock is not None:
            _let_go(self._lock, remove=True)
            self._lock = None
