"""An append-only journal of edits on disk: one JSON line per record, fsync'd.

The first line names the corpus (by fingerprint) the edits apply to; every later line is
an edit (:meth:`Edit.to_dict`) or an ``{"op": "undo"|"redo", "edit": ID}`` record naming
the edit it undoes or redoes, so replaying the file (:class:`~sentspace.app.annotations.history.
History`) reproduces the exact state. Every record has an ``id``; lines written before
ids existed get a stable one derived from their line number and bytes, and their undo /
redo records (which meant "the last one" of a single writer) are resolved to the edit
they undid when read.

Several writers (windows, processes, people on a shared folder) may append to one
journal. Each append holds an inter-process lock (``filelock``, on ``<journal>.lock``)
while it reads what others appended since, and writes its line with one ``write`` to the
file opened with O_APPEND, fsync'd before :meth:`EditJournal.append` returns: once it
returns, a crash or kill cannot lose it, and no two records interleave.

A file is recognised before anything is written to it: only an empty (or new) file or
one whose first line is a journal header is opened; anything else is refused ("not a
sentspace journal") and left as it is. Each header carries the journal's ``id`` (one
written before ids existed is known by a hash of its header line), which tells a journal
from another later made at the same path.

A writer killed in the middle of a write can leave a torn last line (one without its
newline). Reading under the lock finds it, copies its bytes to ``<journal>.torn-<time>``
beside the journal and only then cuts it off, so the next record starts on a line of its
own; a tail that cannot be set aside is left, and nothing is appended after it until it
can be. A complete line that does not parse is corruption and raises
:class:`~sentspace.app.annotations.edits.EditError` naming the file and line; it is never cut.

A write that fails (a full disk, a network drive gone, an fsync that reports an error)
raises :class:`JournalUnavailable` with the reason after cutting the file back to where
it ended, so no partial line is left and the record is not in :attr:`EditJournal.records`:
what a journal holds in memory is what is on disk. Before taking the lock a journal checks
that its path still names the file it has open: a folder that is gone (``filelock`` would
create it again, empty) is :class:`JournalUnavailable`; a file that came back as another
inode (a drive mounted again) is opened again if it begins with every byte read so far.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import hashlib
import heapq
import json
import os
import re
import stat
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import filelock
import platformdirs

from sentspace.app.annotations.edits import (
    Edit,
    EditError,
    check_stamp,
    current_user,
    edit_from_dict,
    new_id,
    now,
)
from sentspace.app.annotations.journal_files import _reason, check_journal
from sentspace.app.base.atomic import read_regular, write_new_atomic, write_text_atomic
from sentspace.app.base.schema import SchemaError, build, describe
from sentspace.app.corpora.model import Corpus

FORMAT = "sentspace-edit-journal"
VERSION = 1
#: The problem said of a file that does not begin with a journal header.
NOT_A_JOURNAL = "not a sentspace journal"
#: Overrides where journals live when no workspace is given (tests set it).
DATA_DIR_ENV = "SENTSPACE_DATA_DIR"
STACK_OPS = ("undo", "redo")
#: Seconds to wait for another writer's lock before giving up (appends hold it briefly).
LOCK_TIMEOUT = 30.0


class JournalUnavailable(EditError):
    """The journal cannot be read or written now: the disk is full, its folder is gone,
    the file was replaced. Nothing was written (the file ends where it did); the record
    may be written later. ``reason`` says why in a few words, ``errno`` is the
    operating system's error number when there is one."""

    def __init__(
        self, reason: str, path: str | Path | None = None, error_number: int | None = None
    ):
        self.reason, self.errno = reason, error_number
        super().__init__(f"not saved: {reason}", path)


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
    """An undo or redo of the edit whose id is ``edit``, journaled like an edit."""

    op: str
    edit: str
    author: str = field(default_factory=current_user)
    time: str = field(default_factory=now)
    id: str = field(default_factory=new_id)

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


Record = Edit | StackRecord


def legacy_journal_id(header_line: bytes) -> str:
    """The id of a journal whose header has none: stable, from the header line's bytes
    (its creation time among them), so another journal later made at its path differs."""
    return hashlib.blake2b(b"journal\n" + header_line, digest_size=16).hexdigest()


def legacy_id(line: int, raw: bytes) -> str:
    """The id of a record written before records had ids: stable, and the same in every
    copy of the journal (so merging copies keeps one)."""
    return hashlib.blake2b(b"%d\n%s" % (line, raw), digest_size=16).hexdigest()


#: A JSON escape of a UTF-16 surrogate (``\\udcff``): valid JSON, and text only when
#: it is half of a pair.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _not_text(data: object) -> str | None:
    """The first lone surrogate in ``data``'s strings, keys included (None: none)."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        return error.object[error.start]
    return None


def _encoded(lines: Iterable[Mapping[str, object]]) -> bytes:
    """JSON lines as UTF-8; an EditError for text that is not (a lone surrogate, as
    Python reads a byte of a name or argument that is not UTF-8), before anything is
    written."""
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise EditError(
            f"not written: the record holds \\u{ord(error.object[error.start]):04x}, "
            "which is not text (a byte that is not UTF-8?)"
        ) from None


class _Reader:
    """Turns a journal's lines, in order, into records, checking each; keeps what later
    lines need (the ids seen, the single-writer stacks that resolve legacy undo/redo)."""

    def __init__(self, path: Path, corpus_fingerprint: str | None):
        self.path = path
        self.corpus_fingerprint = corpus_fingerprint
        self.line = 0
        self.journal_id: str | None = None
        self.edit_ids: set[str] = set()
        self.ids: set[str] = set()
        self._done: list[str] = []
        self._undone: list[str] = []

    def parse(self, raw: bytes) -> Record | None:
        """The record on the next line (None for the header and for a legacy undo/redo
        that had nothing to undo/redo)."""
        self.line += 1
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            data = None
            if self.line > 1:
                raise EditError(
                    "not a JSON line; the journal is corrupt", self.path, self.line
                ) from None
        if _SURROGATE_ESCAPE.search(raw):
            alone = _not_text(data)
            if alone is not None:
                raise EditError(
                    f"holds \\u{ord(alone):04x}, half of a UTF-16 pair alone, which is not "
                    "text (no sentspace writes it); the journal is corrupt",
                    self.path,
                    self.line,
                )
        if self.line == 1:
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise EditError(NOT_A_JOURNAL, self.path)
            self.journal_id = str(data.get("id") or legacy_journal_id(raw))
            self.corpus_fingerprint = self.corpus_fingerprint or data.get("corpus")
            if data.get("corpus") != self.corpus_fingerprint:
                raise EditError(
                    f"the journal is for corpus {data.get('corpus')}, not "
                    f"{self.corpus_fingerprint}",
                    self.path,
                    1,
                )
            return None
        try:
            return self._record(data, raw)
        except (EditError, TypeError) as error:
            problem = error.problem if isinstance(error, EditError) else str(error)
            raise EditError(problem, self.path, self.line) from None

    def _record(self, data: object, raw: bytes) -> Record | None:
        if not isinstance(data, dict):
            raise EditError(f"expected an object, found {describe(data)}")
        data.setdefault("id", legacy_id(self.line, raw))
        if not isinstance(data["id"], str):
            raise EditError(f"id: should be a string, found {describe(data['id'])}")
        if data["id"] in self.ids:
            raise EditError(f"a second record with the id {data['id']}")
        if data.get("op") in STACK_OPS:
            undo = data["op"] == "undo"
            source, target = (self._done, self._undone) if undo else (self._undone, self._done)
            if "edit" not in data:  # legacy: the last one of a single writer
                if not source:
                    return None
                data["edit"] = source[-1]
            try:
                stack = build(StackRecord, data)
                check_stamp(stack)
            except SchemaError as error:
                raise EditError(f"malformed {data['op']} record: {error}") from None
            if stack.edit not in self.edit_ids:
                raise EditError(f"{stack.op} of {stack.edit}, which no earlier line holds")
            if stack.edit in source:
                source.remove(stack.edit)
            target.append(stack.edit)
            record: Record = stack
        else:
            record = edit_from_dict(data)
            self.edit_ids.add(record.id)
            self._done.append(record.id)
            self._undone.clear()
        self.ids.add(record.id)
        return record

    def parse_all(self, data: bytes) -> tuple[list[Record], int, bytes]:
        """The records of ``data``'s complete lines, the number of bytes they take, and
        the torn tail after them (a last line without its newline; ``b""`` when none).

        Raises
        ------
        EditError
            The file does not begin with a journal header (:data:`NOT_A_JOURNAL`: a
            first line without its newline too), or a complete line does not parse.
        """
        lines = data.split(b"\n")
        complete, tail = lines[:-1], lines[-1]
        if self.line == 0 and data and not complete:
            raise EditError(NOT_A_JOURNAL, self.path)
        records: list[Record] = []
        used = 0
        for line in complete:
            record = self.parse(line)
            used += len(line) + 1
            if record is not None:
                records.append(record)
        return records, used, tail


def read_journal(
    path: str | Path, corpus_fingerprint: str | None = None
) -> tuple[str, list[Record]]:
    """The corpus fingerprint and the records of the journal at ``path``, read only (no
    lock, no repair: a torn last line, which a writer may be writing, is left out with a
    warning). Raises :class:`EditError` naming the file and the problem, never waiting
    (:func:`check_journal`)."""
    path = check_journal(path)
    try:
        data = read_regular(path)
    except OSError as error:
        raise EditError(f"cannot read the journal: {_reason(error)}", path) from None
    if not data:
        raise EditError(f"{NOT_A_JOURNAL} (an empty file)", path)
    reader = _Reader(path, corpus_fingerprint)
    records, _, tail = reader.parse_all(data)
    if tail:
        warnings.warn(
            f"{path}: ignored a torn last line ({len(tail)} bytes) left by an interrupted write",
            stacklevel=2,
        )
    assert reader.corpus_fingerprint is not None, "read from the header line"
    return reader.corpus_fingerprint, records


def header(corpus_fingerprint: str) -> dict[str, object]:
    """The first line of a new journal, with a new id."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "corpus": corpus_fingerprint,
        "created": now(),
        "id": new_id(),
    }


def journal_lines(corpus_fingerprint: str, records: Iterable[Record]) -> bytes:
    """A new journal's bytes: its header, then ``records``."""
    return _encoded([header(corpus_fingerprint), *(record.to_dict() for record in records)])


def time_stamp() -> str:
    """The UTC time now for a file name: ``20261127T135100Z``."""
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def write_new_file(name: Callable[[str], Path], data: bytes) -> Path:
    """Write ``data`` to a file that did not exist, fsync'd: ``name("")``, else
    ``name("-2")``, ``name("-3")``...; never over another file. The path written."""
    for number in range(1, 1000):
        path = name(f"-{number}" if number > 1 else "")
        try:
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view) :]
            os.fsync(handle)
        except OSError:
            os.close(handle)
            path.unlink(missing_ok=True)
            raise
        os.close(handle)
        _fsync_folder(path.parent)
        return path
    raise FileExistsError(errno.EEXIST, "no free name", str(name("")))


def write_journal(path: str | Path, corpus_fingerprint: str, records: Iterable[Record]) -> Path:
    """Write a new journal holding ``records`` (atomically: the old file or the new)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, journal_lines(corpus_fingerprint, records).decode("utf-8"))
    return path


def write_journal_new(path: str | Path, corpus_fingerprint: str) -> Path:
    """Start an empty journal at ``path``, where no file is: whole or not at all, never
    over another file (FileExistsError)."""
    write_new_atomic(path, journal_lines(corpus_fingerprint, []))
    return Path(path)


def merge_journals(
    paths: Iterable[str | Path], corpus_fingerprint: str | None = None
) -> tuple[str, list[Record]]:
    """The records of several journals of one corpus as one sequence: ordered by time,
    each journal's own order kept (equal times: the earlier journal first), a record
    present in several (a shared start, a journal merged before) kept once.

    Raises
    ------
    EditError
        A journal is unreadable, or is for another corpus than ``corpus_fingerprint``
        (by default the first journal's).
    """
    fingerprint = corpus_fingerprint
    sequences = []
    for path in paths:
        fingerprint, records = read_journal(path, fingerprint)
        sequences.append(records)
    if fingerprint is None:
        raise EditError("no journal to merge")
    merged: list[Record] = []
    seen: set[str] = set()
    for record in heapq.merge(*sequences, key=lambda record: record.time):
        if record.id not in seen:
            seen.add(record.id)
            merged.append(record)
    return fingerprint, merged


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def merge_into(
    out: str | Path, paths: Iterable[str | Path], corpus_fingerprint: str | None = None
) -> tuple[list[Record], int]:
    """Merge the journals at ``paths`` (:func:`merge_journals`) into the journal ``out``:
    a new file, written whole or not at all, or one of ``paths``, where under ``out``'s
    lock, after reading what other writers appended meanwhile, the records it lacks (by
    id) are appended: nothing in it is rewritten, and a window writing to it goes on
    writing. Every record ``out`` holds then, and how many were appended.

    Raises
    ------
    EditError
        ``out`` exists and is not one of ``paths`` (it is left as it is), or a journal
        cannot be merged (see :func:`merge_journals`).
    """
    out, paths = Path(out), [Path(path) for path in paths]
    exists = EditError(
        "exists and is not one of the journals merged: give a new file, "
        "or name it among the journals to merge into it",
        out,
    )
    new = not out.exists()
    if not new and not any(_same_file(out, Path(path)) for path in paths):
        raise exists
    fingerprint, records = merge_journals(paths, corpus_fingerprint)
    if new:
        # Written whole or not at all: a merge that fails leaves no file in the way.
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            write_new_atomic(out, journal_lines(fingerprint, records))
        except FileExistsError:
            raise exists from None
        except OSError as error:
            raise JournalUnavailable(_reason(error), out, error.errno) from None
        return records, len(records)
    with EditJournal(out, fingerprint) as journal, journal.locked():
        journal.read_new()
        held = {record.id for record in journal.records}
        missing = [record for record in records if record.id not in held]
        if missing:
            journal.extend(missing)
        return list(journal.records), len(missing)


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


def _refuse_a_foreign_file(path: Path) -> None:
    """Raise :data:`NOT_A_JOURNAL` for a file that holds something and does not begin
    with a journal header line (checked again under the lock: a header never changes)."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 16)
    except OSError:  # none yet, or unreadable: opening it says so
        return
    if first:
        _Reader(path, None).parse_all(first)


class EditJournal:
    """The journal file of one corpus's edits, open for appending, shared with any
    number of other writers.

    Parameters
    ----------
    path : the journal file; created (with its folders) when missing, unless ``create``
        is False (:class:`JournalMissing`: a journal a workspace names and the user has
        not agreed to start).
    corpus_fingerprint : :attr:`Corpus.fingerprint` of the *original* corpus.

    Attributes
    ----------
    records : list of Edit or StackRecord
        Every record read or written so far, in file order; :meth:`read_new` adds those
        other writers appended since.
    lock : filelock.FileLock
        Held around every read and append; :meth:`locked` around :meth:`read_new`, a
        check and :meth:`append` makes the three one step.
    warnings : list of str
        What reading repaired (a torn last line set aside).

    Raises
    ------
    EditError
        The file is not a journal (:data:`NOT_A_JOURNAL`; left as it is), is for another
        corpus, or has a complete line that does not parse; the path names no file, or
        something else than a file (:func:`check_journal`).
    """

    def __init__(self, path: str | Path, corpus_fingerprint: str, *, create: bool = True):
        # First what is there: a folder, FIFO, device or bad name is refused before
        # anything (its lock file, folders) is made beside it.
        self.path = check_journal(path, create=create)
        self.corpus_fingerprint = corpus_fingerprint
        self.records: list[Record] = []
        self.warnings: list[str] = []
        self.lock = filelock.FileLock(
            self.path.with_name(self.path.name + ".lock"), timeout=LOCK_TIMEOUT
        )
        self._reader = _Reader(self.path, corpus_fingerprint)
        self._offset = 0
        #: SHA-256 of the file's first ``_offset`` bytes: a file that comes back (a drive
        #: mounted again) is taken only if it begins with them.
        self._digest = hashlib.sha256()
        self._handle = -1
        #: Why a torn last line is still in the file (it could not be set aside): no
        #: record may be written after it. None when there is none.
        self._torn: str | None = None
        #: The torn tail last set aside and where, so a cut that failed is not kept twice.
        self._set_aside: tuple[bytes, Path] | None = None
        _refuse_a_foreign_file(self.path)  # before its lock file is made beside it
        lock_file = self.lock.lock_file
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # A lock file that cannot be made is said now: filelock would wait
            # LOCK_TIMEOUT for it as for a lock another process holds.
            os.close(os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o644))
        except OSError as error:
            raise JournalUnavailable(
                f"cannot make the lock file {lock_file}: {_reason(error)}",
                self.path,
                error.errno,
            ) from None
        with self.locked():
            created = not self.path.exists()
            try:
                self._handle = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
                if not stat.S_ISREG(os.fstat(self._handle).st_mode):  # replaced meanwhile
                    raise OSError(errno.EINVAL, "not a regular file")
            except OSError as error:
                self.close()
                raise JournalUnavailable(_reason(error), self.path, error.errno) from None
            try:
                self.read_new()  # refuses a file that is not a journal: nothing written
                if self._offset == 0:
                    first = header(corpus_fingerprint)
                    self._write([first])
                    self._reader.parse(json.dumps(first).encode())
            except BaseException:
                self.close()
                raise
        if created:
            _fsync_folder(self.path.parent)

    @property
    def id(self) -> str:
        """The journal's id, from its header: another journal later made at this path
        (the file deleted or replaced) has another."""
        assert self._reader.journal_id is not None
        return self._reader.journal_id

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the journal's inter-process lock (reentrant); a writer holding it too
        long is an error naming the lock file. First the path must still name the file
        this journal has open (:class:`JournalUnavailable` when its folder is gone)."""
        self._check_file()
        try:
            self.lock.acquire()
        except filelock.Timeout:
            raise EditError(
                f"another process has held the lock {self.lock.lock_file} "
                f"for over {LOCK_TIMEOUT:.0f} s",
                self.path,
            ) from None
        except OSError as error:
            raise JournalUnavailable(
                f"cannot take the lock {self.lock.lock_file}: {_reason(error)}",
                self.path,
                error.errno,
            ) from None
        try:
            yield
        finally:
            with contextlib.suppress(OSError):  # a lock on a drive gone is gone with it
                self.lock.release()

    def _check_file(self) -> None:
        """Refuse a journal whose file is gone, before ``filelock`` creates its folder
        again (empty, where a network drive was); open a file that came back as another
        inode again, if it begins with what was read."""
        if self._handle < 0:
            return
        try:
            on_disk = os.stat(self.path)
        except FileNotFoundError:
            where = "file" if self.path.parent.is_dir() else "folder"
            raise JournalUnavailable(
                f"the journal's {where} is gone (a drive away?)", self.path, errno.ENOENT
            ) from None
        except OSError as error:
            raise JournalUnavailable(_reason(error), self.path, error.errno) from None
        try:
            mine = os.fstat(self._handle)
        except OSError:
            mine = None
        if mine is None or (mine.st_dev, mine.st_ino) != (on_disk.st_dev, on_disk.st_ino):
            self._reopen()

    def _reopen(self) -> None:
        """Open the file now at :attr:`path` in place of the one open, if its first bytes
        are those read so far (the same journal, back); otherwise refuse."""
        try:
            handle = os.open(self.path, os.O_RDWR | os.O_APPEND)
        except OSError as error:
            raise JournalUnavailable(_reason(error), self.path, error.errno) from None
        try:
            digest, done = hashlib.sha256(), 0
            while done < self._offset:
                block = os.pread(handle, min(1 << 20, self._offset - done), done)
                if not block:
                    break
                digest.update(block)
                done += len(block)
        except OSError as error:
            os.close(handle)
            raise JournalUnavailable(_reason(error), self.path, error.errno) from None
        if done < self._offset or digest.digest() != self._digest.digest():
            os.close(handle)
            raise JournalUnavailable(
                "the journal was replaced by a file that does not hold what this window "
                "read; reopen the corpus to use it",
                self.path,
            )
        with contextlib.suppress(OSError):
            os.close(self._handle)
        self._handle = handle

    def read_new(self) -> list[Record]:
        """Read the records other writers appended since the last read (also kept in
        :attr:`records`); a torn last line left by a writer that died is set aside and
        cut off (:meth:`_cut_torn`)."""
        with self.locked():
            try:
                size = os.fstat(self._handle).st_size
                data = os.pread(self._handle, size - self._offset, self._offset)
            except OSError as error:
                raise JournalUnavailable(
                    f"cannot read the journal: {_reason(error)}", self.path, error.errno
                ) from None
            records, used, tail = self._reader.parse_all(data)
            self._offset += used
            self._digest.update(data[:used])
            self._torn = None
            if tail:
                # Under the lock nobody is writing: the tail is a dead writer's.
                self._cut_torn(tail)
        self.records += records
        return records

    def _cut_torn(self, tail: bytes) -> None:
        """Copy a torn last line to ``<journal>.torn-<time>`` beside the journal, then
        cut it off. Where either fails the tail stays, and no record is written after it
        (:attr:`_torn` says why) until a later read manages both."""
        try:
            if self._set_aside is None or self._set_aside[0] != tail:
                stamp = time_stamp()
                kept = write_new_file(
                    lambda n: self.path.with_name(f"{self.path.name}.torn-{stamp}{n}"), tail
                )
                self._set_aside = tail, kept
            kept = self._set_aside[1]
            os.ftruncate(self._handle, self._offset)
            os.fsync(self._handle)
        except OSError as error:
            self._torn = (
                f"a torn last line ({len(tail)} bytes) could not be set aside: {_reason(error)}"
            )
            warning = f"{self.path}: {self._torn}; nothing is written after it until it is"
        else:
            warning = (
                f"{self.path}: cut a torn last line ({len(tail)} bytes) left by an "
                f"interrupted write; its bytes are kept in {kept}"
            )
        self.warnings.append(warning)
        warnings.warn(warning, stacklevel=4)

    def _write(self, records: list[dict]) -> None:
        """Write ``records`` as lines at the end, in one write, fsync'd."""
        if self._torn is not None:
            raise JournalUnavailable(self._torn, self.path)
        try:
            lines = _encoded(records)
        except EditError as error:
            raise EditError(error.problem, self.path) from None
        # One write to an O_APPEND file: the lines land whole at the end or, after a
        # crash, end in a torn tail that the next read under the lock sets aside. A short
        # write (a disk filling up) goes on with the rest, still under the lock, so the
        # error that stops it is the one said ("No space left on device").
        try:
            written = 0
            while written < len(lines):
                done = os.write(self._handle, lines[written:])
                if done == 0:
                    raise OSError(
                        errno.ENOSPC, f"only {written} of {len(lines)} bytes could be written"
                    )
                written += done
            os.fsync(self._handle)
        except OSError as error:
            # Not saved: take back whatever part of the lines landed (lines written but
            # not fsync'd too), so the file ends where it did and holds no partial line.
            with contextlib.suppress(OSError):
                os.ftruncate(self._handle, self._offset)
                os.fsync(self._handle)
            raise JournalUnavailable(_reason(error), self.path, error.errno) from None
        self._offset += len(lines)
        self._digest.update(lines)

    def append(self, record: Record) -> None:
        """Write ``record`` after whatever others appended (read first, into
        :attr:`records`) and fsync it; when this returns the record is durable."""
        self.extend([record])

    def extend(self, records: Sequence[Record]) -> None:
        """Append ``records`` in order, as :meth:`append` does, with one write and one
        fsync (a merge's many records)."""
        with self.locked():
            self.read_new()
            self._write([record.to_dict() for record in records])
            for record in records:
                self._reader.parse(json.dumps(record.to_dict()).encode())
        self.records += records

    def close(self) -> None:
        if self._handle >= 0:
            os.close(self._handle)
            self._handle = -1

    def __enter__(self) -> EditJournal:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()
