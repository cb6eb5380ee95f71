"""Atomic file writes: a crash or kill leaves either the old file or the new one; and
reads of files the app wrote that never wait on what is not a file."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path


def _create_beside(path: Path) -> Path:
    """A new empty file beside ``path``, created with mode 0666 so the kernel applies the
    user's umask, as editors do (``tempfile.mkstemp`` would force 0600)."""
    while True:
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
        try:
            os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        return temporary


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path``; on success it is fsync'd and renamed onto
    ``path``, on error removed. The file gets the mode of the file it replaces, else the
    user's default (0666 less the umask)."""
    path = Path(path).resolve()
    temporary = _create_beside(path)
    try:
        yield temporary
        with temporary.open("rb+") as written:
            os.fsync(written.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(temporary, stat.S_IMODE(path.stat().st_mode))
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_text_atomic(path: str | Path, text: str) -> None:
    with atomic_path(path) as temporary:
        temporary.write_text(text, encoding="utf-8")


def write_new_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path``, a new file: whole and fsync'd, or not at all (a crash
    or an error leaves no part of it); never over a file there (FileExistsError)."""
    path = Path(path)
    temporary = _create_beside(path)
    try:
        with temporary.open("wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)  # fails, rather than replaces, where a file is
        except OSError as error:
            if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise
            # No hard links there (FAT, some network drives): taken only if still free.
            if os.path.lexists(path):
                raise FileExistsError(errno.EEXIST, "File exists", str(path)) from None
            os.rename(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


#: What a path may name instead of a regular file, by :func:`stat.S_IFMT`.
NOT_FILES = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO (a named pipe)",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}


def read_regular(path: str | Path, size: int = -1) -> bytes:
    """The first ``size`` bytes (all: -1) of the regular file at ``path``, opened
    without waiting: an OSError whose ``strerror`` says what is there instead (a FIFO,
    which would wait for a writer for ever; a device, which may never end; a folder)."""
    handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        kind = NOT_FILES.get(stat.S_IFMT(os.fstat(handle).st_mode))
        if kind is not None:
            raise OSError(errno.EINVAL, f"is {kind}, not a file", str(path))
        with os.fdopen(os.dup(handle), "rb") as file:
            return file.read(size)
    finally:
        os.close(handle)
