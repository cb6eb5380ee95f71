"""Where a workspace's files are: paths kept absolute and relative to the workspace,
its journals beside it, and the stamp that tells a file another window saved since."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sentspace.app.annotations.journal import write_journal_new
from sentspace.app.annotations.journal_files import JournalMissing, check_journal
from sentspace.app.corpora import (
    names_a_corpus,
)
from sentspace.app.workspace.model import Workspace, WorkspaceError


@dataclass(frozen=True)
class Stamp:
    """What a workspace file was when a window opened or saved it: size, modification
    time (ns) and sha256 of its bytes."""

    size: int
    mtime_ns: int
    sha256: str


def stamp(path: str | Path) -> Stamp | None:
    """The :class:`Stamp` of the file at ``path`` now; None when there is none."""
    try:
        data = Path(path).read_bytes()
        status = os.stat(path)
    except FileNotFoundError:
        return None
    return Stamp(len(data), status.st_mtime_ns, hashlib.sha256(data).hexdigest())


class WorkspaceChanged(WorkspaceError):
    """The workspace file changed on disk since it was opened or saved (another window
    saved it): saving would overwrite that. ``then`` and ``now`` are its stamps."""

    def __init__(self, path: str | Path, then: Stamp, now: Stamp):
        self.then, self.now = then, now
        super().__init__(
            "changed on disk since this window opened or saved it (another "
            "window or program saved it)",
            path,
        )


def check_unchanged(path: str | Path, expect: Stamp | None) -> None:
    """Raise :class:`WorkspaceChanged` when the file at ``path`` is not what ``expect``
    stamps. A file with the same bytes (touched, or saved the same) is unchanged; one
    that is gone is too (saving overwrites nothing); so is any when ``expect`` is None
    (no file there when the window last looked)."""
    if expect is None:
        return
    try:
        status = os.stat(path)
    except FileNotFoundError:
        return
    if (status.st_size, status.st_mtime_ns) == (expect.size, expect.mtime_ns):
        return
    now = stamp(path)
    if now is not None and now.sha256 != expect.sha256:
        raise WorkspaceChanged(path, expect, now)


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def map_paths(workspace: Workspace, where: Callable[[str], str]) -> Workspace:
    """``workspace`` with each absolute path it names replaced by ``where(path)``: corpora
    opened from a path, their files and edit journals, the texts runs were trained on,
    the files encoders read (their parameters, and their specs: ``path:/data/v.txt``),
    with each corpus's references to those specs. Names are not paths."""

    def moved(path: Any) -> Any:
        return where(path) if isinstance(path, str) and os.path.isabs(path) else path

    def spec_moved(spec: str) -> str:
        prefix, colon, rest = spec.partition(":")
        return f"{prefix}:{moved(rest)}" if colon and os.path.isabs(rest) else spec

    specs = {entry.spec: spec_moved(entry.spec) for entry in workspace.encoders}

    def state_moved(state: dict[str, Any] | None) -> dict[str, Any] | None:
        if not state:
            return state
        state = dict(state)
        for key in ("shown", "encoder"):
            if isinstance(state.get(key), str):
                state[key] = specs.get(state[key], state[key])
        if isinstance(state.get("runs"), list):
            state["runs"] = [
                {**run, "training_text": moved(run.get("training_text"))}
                if isinstance(run, dict) and run.get("training_text")
                else run
                for run in state["runs"]
            ]
        if isinstance(state.get("agreements"), list):
            state["agreements"] = [
                {
                    **saved,
                    "encoders": ",".join(
                        specs.get(spec, spec) for spec in saved["encoders"].split(",")
                    ),
                }
                if isinstance(saved, dict) and isinstance(saved.get("encoders"), str)
                else saved
                for saved in state["agreements"]
            ]
        return state

    return dataclasses.replace(
        workspace,
        corpora=tuple(
            dataclasses.replace(
                entry,
                spec=moved(entry.spec),
                journal=moved(entry.journal),
                files={moved(source): digest for source, digest in entry.files.items()},
                state=state_moved(entry.state),
            )
            for entry in workspace.corpora
        ),
        encoders=tuple(
            dataclasses.replace(
                entry,
                spec=specs[entry.spec],
                params={key: moved(value) for key, value in entry.params.items()},
            )
            for entry in workspace.encoders
        ),
    )


def relative_paths(workspace: Workspace, folder: str) -> dict[str, str]:
    """Each absolute path ``workspace`` names, and that path relative to ``folder``."""
    relative: dict[str, str] = {}

    def note(path: str) -> str:
        try:
            relative[path] = os.path.relpath(path, folder)
        except ValueError:  # another drive (Windows): only the absolute path reaches it
            pass
        return path

    map_paths(workspace, note)
    return relative


def located(workspace: Workspace, relative: dict[str, str], folder: str) -> Workspace:
    """``workspace`` with each path that ``relative`` gives relative to ``folder`` (the
    workspace file's, now) taken from there where it exists; else the absolute path as
    saved."""

    def where(path: str) -> str:
        there = relative.get(path)
        if isinstance(there, str):
            candidate = os.path.normpath(os.path.join(folder, there))
            if os.path.exists(candidate):
                return candidate
        return path

    return map_paths(workspace, where)


def named_again(workspace: Workspace) -> Workspace:
    """A schema-2 workspace saved named corpora but the bundled one as paths in the
    working folder (``/where/it/ran/costra``): each such path that is not there is taken
    back as the name."""
    return dataclasses.replace(
        workspace,
        corpora=tuple(
            dataclasses.replace(entry, spec=os.path.basename(entry.spec))
            if os.path.isabs(entry.spec)
            and not os.path.exists(entry.spec)
            and names_a_corpus(os.path.basename(entry.spec))
            else entry
            for entry in workspace.corpora
        ),
    )


def journals_in(workspace: Workspace, folder: str) -> Workspace:
    """``workspace`` with each relative journal path (a file made by hand) taken in the
    workspace's ``folder``, not the working folder: one workspace opened from two
    folders uses one journal. A journal named "" is left for its opener to refuse."""
    return dataclasses.replace(
        workspace,
        corpora=tuple(
            dataclasses.replace(entry, journal=os.path.join(folder, entry.journal))
            if entry.journal and not os.path.isabs(entry.journal)
            else entry
            for entry in workspace.corpora
        ),
    )


#: What to do about a workspace's journal that is missing, said where it is refused.
START_A_JOURNAL = (
    "open the workspace in the window (File > Open workspace), which offers to start "
    "a new journal beside it"
)


def workspace_journal(workspace: Workspace, index: int, path: str | Path) -> Path | None:
    """The edit journal of corpus ``index`` of the workspace saved at ``path`` (None:
    saved without one), checked within moments (:func:`check_journal`).

    Raises
    ------
    JournalMissing
        No file is there: the message says how to start one.
    EditError
        What is there is not a journal file (a FIFO, a device, a folder), or its name
        names none.
    """
    entry = workspace.corpora[index]
    if entry.journal is None:
        return None
    try:
        return check_journal(entry.journal)
    except JournalMissing as error:
        raise JournalMissing(
            f"{error.problem} (the edit journal of corpus {entry.spec} in "
            f"{Path(path).name}); {START_A_JOURNAL}",
            error.path,
        ) from None


def missing_journals(workspace: Workspace, path: str | Path) -> list[int]:
    """The corpora of the workspace at ``path`` whose journal is missing, which the
    window asks to start again (:func:`with_new_journals`); an EditError for a journal
    that cannot be opened otherwise."""
    missing = []
    for index in range(len(workspace.corpora)):
        try:
            workspace_journal(workspace, index, path)
        except JournalMissing:
            missing.append(index)
    return missing


def new_journal_path(workspace: Workspace, index: int, path: str | Path) -> Path:
    """Where corpus ``index`` of the workspace at ``path`` gets a journal when its own
    is missing: beside the workspace, named as
    :func:`~sentspace.app.annotations.journal.journal_path` names it; never
    where the missing one was (a folder that may be anywhere)."""
    path = Path(os.path.abspath(path))
    return path.with_name(f"{path.stem}.{workspace.corpora[index].fingerprint}.edits.jsonl")


def with_new_journals(workspace: Workspace, indices: list[int], path: str | Path) -> Workspace:
    """``workspace`` with corpora ``indices`` each given the journal
    :func:`new_journal_path` names, started there empty unless a file already is (one
    started before, opened and checked as any journal): what the user agreed to when
    their journals were missing. An OSError when it cannot be written."""
    corpora = list(workspace.corpora)
    for index in indices:
        entry = corpora[index]
        journal = new_journal_path(workspace, index, path)
        if not os.path.lexists(journal):
            write_journal_new(journal, entry.fingerprint)
        corpora[index] = dataclasses.replace(entry, journal=str(journal))
    return dataclasses.replace(workspace, corpora=tuple(corpora))
