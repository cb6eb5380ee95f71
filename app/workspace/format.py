"""Workspaces: one file that reopens a session exactly as it was left.

The file is a zip archive (schema 4): a JSON manifest, and each array the results hold
(Costra's orderings, layouts, per-item scores) as a ``.npy`` member, read back without
unpickling. Workspaces of schemas 2 and 3, one JSON text with arrays as base64, still
open. Saving is a job (:func:`iter_save_workspace`), so the window saves in its worker.

A workspace records the corpora (spec as the user gave it, corpus fingerprint, sha256 of
every file read, and the edit journal when there is one), the encoders and their
parameters, evaluation results (``to_dict()`` and ``summary()`` rows, with what ran
them, and the whole result as :func:`encode_state` writes it, so charts come back),
projection parameters, and a free ``view`` dict the GUI fills. Each corpus entry's
``state`` holds what the session made of it (:mod:`sentspace.app.state.session`).

Corpora with a name (built in, from a package, from the shared data folder: ``costra``,
``multi30k-captions:de:val``) are kept by that name, found wherever it finds them. Other
paths are kept as the user chose them (made absolute, symbolic links left alone), so a
workspace still names ``../shared/data/...`` when ``../shared`` is a link; they are
resolved only to tell whether two paths are the same file. Each is also kept relative to
the workspace file (its ``relative`` map), and opening prefers that one where it exists:
a folder holding a workspace and its data can be moved, or opened from anywhere.

Saving is atomic (:mod:`sentspace.app.base.atomic`): a crash mid-save leaves the previous file.
A window remembers the file's :class:`Stamp` when it opens or saves it; saving with
``expect=`` that stamp raises :class:`WorkspaceChanged` instead of overwriting a file
another window saved since (the window then offers to reload, save as, or overwrite).
Opening
checks the file strictly and raises :class:`~sentspace.app.base.errors.InputError` naming the file and
the problem (truncated, not JSON, wrong schema); :func:`verify` then says which of the
files it refers to are missing or changed since. :func:`run_workspace` re-runs the
saved evaluations headless, for ``sentspace run WORKSPACE``."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.analysis.evaluations import EVALUATIONS, OPTIONS
from sentspace.app.analysis.results import SCORE_COLUMNS, Result
from sentspace.app.annotations.edits import EditError
from sentspace.app.annotations.journal_files import JournalMissing, check_journal
from sentspace.app.base.atomic import atomic_path, read_regular
from sentspace.app.base.jobs import Job, Progress, run_job
from sentspace.app.base.schema import (
    MAX_DEPTH,
    SchemaError,
    check,
    check_arguments,
    check_fields,
    describe,
    too_deep,
)
from sentspace.app.corpora import (
    is_corpus_name,
)
from sentspace.app.corpora.model import Corpus
from sentspace.app.workspace.codec import encode_state, to_manifest, with_arrays
from sentspace.app.workspace.model import (
    ARRAYS,
    FORMAT,
    MANIFEST,
    SCHEMA,
    ZIP_MAGIC,
    CorpusEntry,
    EncoderEntry,
    EvaluationEntry,
    SavedResult,
    Workspace,
    WorkspaceError,
    chosen_path,
    with_extension,
)
from sentspace.app.workspace.paths import (
    Stamp,
    check_unchanged,
    file_sha256,
    journals_in,
    located,
    named_again,
    relative_paths,
)
from sentspace.app.workspace.recent import add_recent
from sentspace.models import ENCODERS
from sentspace.models.base import Encoder


def corpus_entry(
    spec: str | Path,
    corpus: Corpus,
    journal: str | Path | None = None,
    *,
    state: dict[str, Any] | None = None,
) -> CorpusEntry:
    """The entry of ``corpus``, loaded from ``spec``, with the hashes of its files now."""
    spec = str(spec) if is_corpus_name(spec) else chosen_path(spec)
    return CorpusEntry(
        spec=spec,
        fingerprint=corpus.fingerprint,
        files={source: file_sha256(source) for source in corpus.sources},
        journal=chosen_path(journal) if journal is not None else None,
        state=state,
    )


def encoder_entry(spec: str, encoder: Encoder) -> EncoderEntry:
    return EncoderEntry(spec=spec, family=encoder.family, params=encoder.params())


def evaluation_entry(
    name: str,
    result: Any,
    *,
    corpus: int,
    encoder: int,
    seed: int,
    options: dict[str, Any] | None = None,
    corrected: bool = False,
    label: str | None = None,
) -> EvaluationEntry:
    """The entry of an evaluation ``result``; ``corpus``/``encoder`` index the
    workspace's lists."""
    state = result.entry.state if isinstance(result, SavedResult) else encode_state(result)
    # The state holds the whole result; of its dict only the head is kept, as the
    # per-item body (Costra's 200,000 comparisons) would be most of the file.
    whole = state is None or not isinstance(result, Result)
    head = (
        result.to_dict()
        if whole
        else {
            "evaluation": result.evaluation,
            "provenance": dataclasses.asdict(result.provenance),
            "metric_table": [dict(zip(SCORE_COLUMNS, score.row())) for score in result.scores()],
        }
    )
    return EvaluationEntry(
        name=name,
        corpus=corpus,
        encoder=encoder,
        seed=seed,
        summary=[[label, value] for label, value in result.summary()],
        result=json.loads(json.dumps(head, default=str)),
        options=dict(options or {}),
        corrected=corrected,
        state=state,
        label=label if label not in (None, name) else None,
    )


#: Seconds between a save's progress reports: each is a signal the window draws on its
#: own thread, and one per array (24 for Costra) kept it busy 50 ms of a 0.2 s save.
REPORT_EVERY = 0.1


def save_workspace(
    workspace: Workspace, path: str | Path, *, remember: bool = True, expect: Stamp | None = None
) -> Path:
    """:func:`iter_save_workspace` run to the end in this thread."""
    return run_job(iter_save_workspace(workspace, path, remember=remember, expect=expect))


def iter_save_workspace(
    workspace: Workspace, path: str | Path, *, remember: bool = True, expect: Stamp | None = None
) -> Job[Path]:
    """Write ``workspace`` to ``path`` (:data:`EXTENSION` added to a bare name)
    atomically, a job that reports each array written; with ``remember``, put it first
    in the recent-workspaces list. With ``expect`` (the file's :class:`Stamp` when this
    window opened or last saved it), a file changed since is not overwritten:
    :class:`WorkspaceChanged`.

    The file is a zip (schema 4): the JSON :data:`MANIFEST`, each array of the results
    in it replaced by the name of its ``.npy`` member under :data:`ARRAYS`. Progress is
    reported at the start and every :data:`REPORT_EVERY` seconds of writing.
    """
    path = with_extension(path)
    check_unchanged(path, expect)
    arrays: list[np.ndarray] = []
    manifest = to_manifest(
        {
            "format": FORMAT,
            "schema": SCHEMA,
            **{f.name: getattr(workspace, f.name) for f in dataclasses.fields(workspace)},
            "relative": relative_paths(workspace, os.path.abspath(path.parent)),
        },
        arrays,
    )
    stage = f"saving the workspace {path.name}"
    total = sum(array.nbytes for array in arrays) + 1
    yield Progress(stage, 0, total)
    reported = time.monotonic()
    with atomic_path(path) as temporary:
        # Level 1: most of what deflate saves on orderings and layouts, at a few times
        # the speed of its default.
        with zipfile.ZipFile(
            temporary, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1
        ) as archive:
            archive.writestr(MANIFEST, json.dumps(manifest, ensure_ascii=False, default=str))
            done = 1
            for number, array in enumerate(arrays):
                with archive.open(f"{ARRAYS}{number}.npy", "w", force_zip64=True) as member:
                    np.save(member, np.ascontiguousarray(array), allow_pickle=False)
                done += array.nbytes
                if time.monotonic() - reported >= REPORT_EVERY:
                    reported = time.monotonic()
                    yield Progress(stage, done, total)
    if remember:
        add_recent(path)
    return path


def _expect(value: Any, kind: Any, where: str) -> Any:
    check(value, kind, where)
    return value


#: The fields of each kind of entry a workspace lists: field -> (type, required).
ENTRY_FIELDS: dict[type, dict[str, tuple[Any, bool]]] = {
    CorpusEntry: {
        "spec": (str, True),
        "fingerprint": (str, True),
        "files": (dict[str, str], True),
        "journal": (str | None, False),
        "state": (dict | None, False),
    },
    EncoderEntry: {"spec": (str, True), "family": (str, True), "params": (dict[str, Any], True)},
    EvaluationEntry: {
        "name": (str, True),
        "corpus": (int, True),
        "encoder": (int, True),
        "seed": (int, True),
        "summary": (list[tuple[str, str]], True),
        "result": (dict, True),
        "options": (dict[str, Any], False),
        "corrected": (bool, False),
        "state": (dict | None, False),
        "label": (str | None, False),
    },
}


def _entries(data: dict, key: str, cls: type) -> tuple:
    """Build ``cls`` from each dict of ``data[key]``, checking each field's type
    (:data:`ENTRY_FIELDS`, :func:`sentspace.app.base.schema.check_fields`); values are
    kept as read."""
    entries = []
    for number, item in enumerate(_expect(data.get(key, []), list, key)):
        check_fields(item, ENTRY_FIELDS[cls], f"{key}[{number}]")
        entries.append(cls(**item))
    return tuple(entries)


def _check_run(entry: EvaluationEntry, where: str) -> None:
    """An evaluation entry's seed must be one numpy takes, and its options keyword
    arguments its run takes, of their types, one of the choices where it offers
    choices."""
    if not 0 <= entry.seed < 2**32:
        raise SchemaError(f"{where}.seed", f"{entry.seed} is not a seed (0 to 2**32 - 1)")
    run, _ = EVALUATIONS[entry.name]
    options = {name: value for name, value in entry.options.items() if name != "seed"}
    if "seed" in entry.options:
        raise SchemaError(f"{where}.options", "takes no 'seed' (the entry has its own)")
    check_arguments(run, options, f"{where}.options")
    for option, value in options.items():
        choices = OPTIONS.get(entry.name, {}).get(option)
        if choices is not None and value not in choices.choices:
            raise SchemaError(
                f"{where}.options.{option}",
                f"{describe(value)} is not one of {', '.join(choices.choices)}",
            )


NOT_A_WORKSPACE = "not a sentspace workspace"


#: How every workspace begins (``Workspace.to_dict`` puts the format first).
_WORKSPACE_START = re.compile(r'\s*\{\s*"format"\s*:\s*"' + re.escape(FORMAT) + '"')


def _unreadable(text: str, error: json.JSONDecodeError, path: Path) -> WorkspaceError:
    """Why ``text`` (not JSON) is no workspace: empty; another kind of file (a corpus
    chosen by mistake); or a workspace cut short (the parser ran out of text: an
    unterminated string or nothing left where a value was due) or damaged inside."""
    if not text.strip():
        return WorkspaceError("the file is empty", path)
    if not _WORKSPACE_START.match(text):
        return WorkspaceError(NOT_A_WORKSPACE + " (not JSON)", path)
    where = f"{error.msg}, column {error.colno}"
    if error.msg.startswith("Unterminated string") or error.pos >= len(text.rstrip()):
        return WorkspaceError(
            f"the workspace is truncated: it ends inside its JSON ({where})", path, error.lineno
        )
    return WorkspaceError(f"the workspace is damaged: not valid JSON ({where})", path, error.lineno)


def load_workspace(path: str | Path) -> Workspace:
    """Read a workspace file, strictly.

    Raises
    ------
    WorkspaceError
        The file is missing or unreadable, not JSON (truncated), not a workspace, of a
        newer schema, or a field is missing, of the wrong type or points outside its
        list; the message names the file and the problem.
    """
    path = Path(path)
    archive = None
    try:
        raw = read_regular(path)
        if raw.startswith(ZIP_MAGIC):
            archive = zipfile.ZipFile(io.BytesIO(raw))
            raw = archive.read(MANIFEST)
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise WorkspaceError("no such workspace file", path) from None
    except UnicodeDecodeError:
        raise WorkspaceError(NOT_A_WORKSPACE + " (not a text file)", path) from None
    except KeyError:
        raise WorkspaceError(
            NOT_A_WORKSPACE + f" (a zip archive without {MANIFEST})", path
        ) from None
    except (zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise WorkspaceError(
            f"the workspace is truncated or damaged: not a whole zip archive ({error})", path
        ) from None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the name
        reason = getattr(error, "strerror", None) or error
        raise WorkspaceError(f"cannot read the workspace: {reason}", path) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _unreadable(text, error, path) from None
    except RecursionError:
        raise WorkspaceError(
            f"the workspace is damaged: its JSON nests deeper than "
            f"Python reads (no workspace nests over {MAX_DEPTH})",
            path,
        ) from None
    deep = too_deep(data)
    if deep is not None:
        raise WorkspaceError(
            f"wrong schema: {deep} is nested more than {MAX_DEPTH} levels deep; no workspace is",
            path,
        )
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise WorkspaceError(NOT_A_WORKSPACE + f' (a JSON file without "format": "{FORMAT}")', path)
    if archive is not None:
        data = with_arrays(data, archive, path)
    schema = data.get("schema")
    if not isinstance(schema, int) or schema > SCHEMA:
        raise WorkspaceError(
            f"workspace schema {schema!r} is not one this version reads "
            f"(up to {SCHEMA}); a newer sentspace wrote it?",
            path,
        )
    try:
        workspace = Workspace(
            corpora=_entries(data, "corpora", CorpusEntry),
            encoders=_entries(data, "encoders", EncoderEntry),
            evaluations=_entries(data, "evaluations", EvaluationEntry),
            projections=tuple(_expect(data.get("projections", []), list[dict], "projections")),
            view=_expect(data.get("view", {}), dict, "view"),
        )
        for number, entry in enumerate(workspace.evaluations):
            if entry.name not in EVALUATIONS:
                raise ValueError(
                    f"evaluations[{number}] names an unknown evaluation {entry.name!r}"
                )
            if not (
                0 <= entry.corpus < len(workspace.corpora)
                and 0 <= entry.encoder < len(workspace.encoders)
            ):
                raise ValueError(
                    f"evaluations[{number}] refers to a corpus or encoder "
                    "the workspace does not list"
                )
            _check_run(entry, f"evaluations[{number}]")
        for number, encoder_entry in enumerate(workspace.encoders):
            if encoder_entry.family in ENCODERS:
                check_arguments(
                    ENCODERS[encoder_entry.family],
                    encoder_entry.params,
                    f"encoders[{number}].params",
                )
        relative = _expect(data.get("relative", {}), dict[str, str], "relative")
    except ValueError as error:
        raise WorkspaceError(f"wrong schema: {error}", path) from None
    folder = os.path.abspath(path.parent)
    workspace = journals_in(located(workspace, relative, folder), folder)
    return named_again(workspace) if schema < 3 else workspace


@dataclass(frozen=True)
class FileChange:
    """A file a workspace refers to that is not as it was saved.

    ``problem`` is "missing", "hash differs" or "corpus differs" (the files load into a
    corpus with another fingerprint, checked by :func:`load_workspace_corpus`).
    """

    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


def verify(workspace: Workspace) -> list[FileChange]:
    """What changed on disk since the workspace was saved: each corpus file and journal
    that is missing, each corpus file whose sha256 differs."""
    changes = []
    for entry in workspace.corpora:
        for source, digest in entry.files.items():
            if not Path(source).is_file():
                # A named corpus is read wherever its name finds it now.
                if os.path.isabs(entry.spec):
                    changes.append(FileChange(source, "missing"))
            elif file_sha256(source) != digest:
                changes.append(FileChange(source, "hash differs"))
        if entry.journal is not None:
            try:
                check_journal(entry.journal)
            except JournalMissing:
                changes.append(FileChange(entry.journal, "missing"))
            except EditError as error:
                changes.append(FileChange(entry.journal, error.problem))
    return changes


def open_workspace(path: str | Path) -> tuple[Workspace, list[FileChange]]:
    """:func:`load_workspace` and :func:`verify`: the workspace and what changed."""
    workspace = load_workspace(path)
    return workspace, verify(workspace)
