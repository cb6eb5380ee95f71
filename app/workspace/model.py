"""What a workspace file holds: its entries (corpora, encoders, evaluations), the
workspace they make, and the names of its format."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sentspace.app.analysis.results import Provenance
from sentspace.app.base.errors import InputError

FORMAT = "sentspace-workspace"


#: 2 added each corpus's ``state`` and each evaluation's ``state`` and ``label``; 3 keeps
#: named corpora by name and adds ``relative``, each path relative to the workspace file;
#: 4 is a zip of the JSON (:data:`MANIFEST`) and each array as a ``.npy`` member, and keeps
#: of a result with a ``state`` only the head of its ``to_dict()`` (the state holds it all).
SCHEMA = 4


#: The JSON member of a schema-4 workspace; its arrays are members under ARRAYS.
MANIFEST = "workspace.json"


ARRAYS = "arrays/"


#: Array kinds kept as .npy members (bool, integers, floats, fixed-width strings); other
#: arrays (of objects) as lists of items.
ARRAY_KINDS = "biufU"


#: How a zip archive starts (a schema-4 workspace; earlier ones are JSON text).
ZIP_MAGIC = b"PK\x03\x04"


#: What a workspace file is called when the user types a bare name.
EXTENSION = ".sentspace"


class WorkspaceError(InputError):
    """A workspace file cannot be read or used."""


@dataclass(frozen=True)
class CorpusEntry:
    """A corpus as the workspace refers to it.

    Attributes
    ----------
    spec : a corpus name (:func:`~sentspace.app.corpora.names_a_corpus`) or an absolute
        path, what :func:`load_corpus` takes.
    fingerprint : :attr:`Corpus.fingerprint` when saved.
    files : source file path -> sha256 when saved.
    journal : path of its edit journal, or None.
    state : what the session made of it (runs, review lists, view), see
        :func:`sentspace.app.workspace.snapshot.workspace_of`.
    """

    spec: str
    fingerprint: str
    files: dict[str, str]
    journal: str | None = None
    state: dict[str, Any] | None = None


@dataclass(frozen=True)
class EncoderEntry:
    """An encoder: its CLI spec, family and constructor parameters."""

    spec: str
    family: str
    params: dict[str, Any]


@dataclass(frozen=True)
class EvaluationEntry:
    """One evaluation run and its result.

    Attributes
    ----------
    name : key of :data:`sentspace.app.analysis.evaluations.EVALUATIONS`.
    corpus, encoder : indices into the workspace's corpora and encoders.
    seed : passed to the evaluation.
    options : further keyword arguments it was run with.
    corrected : run on the corpus with its journal's edits applied.
    summary : the result's ``summary()`` rows, ``[label, value]``.
    result : the result's ``to_dict()``.
    state : the whole result as :func:`encode_state` writes it (None: only the
        summary and dict were saved, as by schema 1).
    label : its name in the results list when not ``name``.
    """

    name: str
    corpus: int
    encoder: int
    seed: int
    summary: list[list[str]]
    result: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)
    corrected: bool = False
    state: dict[str, Any] | None = None
    label: str | None = None


@dataclass(frozen=True)
class Workspace:
    """Everything a workspace file holds; ``projections`` are free dicts (method, seed,
    parameters, corpus and encoder indices) and ``view`` is the GUI's own state."""

    corpora: tuple[CorpusEntry, ...] = ()
    encoders: tuple[EncoderEntry, ...] = ()
    evaluations: tuple[EvaluationEntry, ...] = ()
    projections: tuple[dict[str, Any], ...] = ()
    view: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "schema": SCHEMA, **asdict(self)}


@dataclass(frozen=True, eq=False)
class SavedResult:
    """An evaluation result of a schema-1 workspace: its summary rows and its dict, so
    views can show it without re-running (the arrays charts draw were not kept)."""

    entry: EvaluationEntry

    @property
    def provenance(self) -> Provenance:
        return Provenance(**self.entry.result["provenance"])

    def summary(self) -> list[tuple[str, str]]:
        return [(label, value) for label, value in self.entry.summary]

    def to_dict(self) -> dict[str, Any]:
        return self.entry.result

    def score_rows(self) -> list[tuple[Any, ...]]:
        """None: a schema-1 file kept the summary's text, not ``Result.score_rows``."""
        return []


def chosen_path(path: str | Path) -> str:
    """``path`` as the user chose it, made absolute; symbolic links are kept, so the
    workspace names what the user named."""
    return os.path.abspath(os.path.expanduser(path))


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two paths name the same file or folder (through any links)."""
    return Path(a).resolve() == Path(b).resolve()


def with_extension(path: str | Path) -> Path:
    """``path``, with :data:`EXTENSION` added when the name has no extension (a bare
    name typed in a save dialog)."""
    path = Path(path)
    return path if path.suffix else path.with_name(path.name + EXTENSION)
