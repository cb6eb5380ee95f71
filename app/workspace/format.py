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
saved evaluations headless, for ``sentspace run WORKSPACE``.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import importlib
import io
import json
import math
import os
import re
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs

from sentspace.app.analysis.evaluations import EVALUATIONS, OPTIONS
from sentspace.app.analysis.evaluations.paired import BarsTests, bars_tests_again
from sentspace.app.analysis.evaluations.statistics import PairedTest
from sentspace.app.analysis.results import SCORE_COLUMNS, Provenance, Result
from sentspace.app.annotations.edits import EditError
from sentspace.app.annotations.history import History
from sentspace.app.annotations.journal import (
    JournalMissing,
    check_journal,
    read_journal,
    write_journal_new,
)
from sentspace.app.base.atomic import atomic_path, read_regular, write_text_atomic
from sentspace.app.base.errors import InputError
from sentspace.app.base.jobs import Job, Progress, run_job
from sentspace.app.base.schema import (
    MAX_DEPTH,
    SchemaError,
    check,
    check_arguments,
    check_fields,
    describe,
    field_hints,
    too_deep,
)
from sentspace.app.corpora import (
    is_corpus_name,
    load_corpus,
    load_named_corpus,
    names_a_corpus,
)
from sentspace.app.corpora.model import Corpus
from sentspace.models import ENCODERS, make_encoder
from sentspace.models.base import Encoder

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
#: Overrides where the recent-workspaces list lives (tests set it).
CONFIG_DIR_ENV = "SENTSPACE_CONFIG_DIR"
RECENT_LIMIT = 10


class WorkspaceError(InputError):
    """A workspace file cannot be read or used."""


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
        :meth:`sentspace.app.state.session.Session.to_workspace`.
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


# --- results as JSON ---------------------------------------------------------------

#: Every kind of result a session keeps with a corpus (a field of
#: :class:`sentspace.app.state.session.CorpusState`), with the modules (``name.``) and classes
#: under ``sentspace.app`` whose dataclasses make it up. A workspace holds these, and
#: opening one builds only these (never code named by the file);
#: tests/test_workspace_results.py builds each kind on real data and reopens it.
RESULT_TYPES: dict[str, tuple[str, ...]] = {
    # Every evaluation's and comparison's result, with their provenance and scores; the
    # pyramid result keeps its tests (pairs, questions, funnels), Costra's its comparisons.
    "evaluations": (
        "analysis.evaluations.",
        "analysis.results.",
        "analysis.ann.",
        "corpora.pyramid.",
        "corpora.model.PairTable",
        "corpora.costra.CostraComparisons",
    ),
    # An encoder run: its layout, faithfulness and classification (an evaluation's).
    "runs": ("analysis.projection.",),
    "comparison": ("analysis.compare.",),
    "review_lists": ("analysis.suspicious.",),
    "regions": ("analysis.regions.",),
    "explanation": ("analysis.explain.",),
    "imported": ("analysis.mteb_results.",),
    # The paired tests of bars across encoders (their results by position).
    "paired_tests": ("analysis.evaluations.",),
}
STATE_MODULES = tuple(
    dict.fromkeys(f"sentspace.app.{name}" for names in RESULT_TYPES.values() for name in names)
)
#: Where the classes a workspace names lived when it was written: before the code was
#: imported as sentspace.app, and before the core was put in layers.
MOVED_MODULES = {
    "app.": "sentspace.app.",
    **{
        f"sentspace.app.{old}.": f"sentspace.app.{new}."
        for old, new in {
            "evaluations": "analysis.evaluations",
            "results": "analysis.results",
            "ann": "analysis.ann",
            "projection": "analysis.projection",
            "compare": "analysis.compare",
            "annotations.suspicious": "analysis.suspicious",
            "regions": "analysis.regions",
            "explain": "analysis.explain",
            "mteb_results": "analysis.mteb_results",
        }.items()
    },
}


def current_name(name: str) -> str:
    """The class a workspace names, under the module it lives in now."""
    for old, new in MOVED_MODULES.items():
        if name.startswith(old):
            name = new + name.removeprefix(old)
    return name


@dataclass(frozen=True, eq=False)
class Held:
    """An array a workspace's state holds, written as a ``.npy`` member when saved;
    equal to another of the same dtype and values, so workspaces compare as before."""

    array: np.ndarray

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Held)
            and self.array.dtype == other.array.dtype
            and np.array_equal(self.array, other.array)
        )

    __hash__ = None  # type: ignore[assignment]


def encode_state(value: Any) -> Any:
    """``value`` (a result dataclass, arrays, tuples, dicts...) as JSON-ready data that
    :func:`decode_state` turns back into an equal value. Arrays keep dtype and shape
    exactly: numbers and strings are held as the array (:func:`iter_save_workspace`
    writes each as a ``.npy`` member of the file), other values as a list of items; a
    :class:`Corpus` field is written as a reference to the corpus it belongs to."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float, np.integer, np.floating, np.bool_)):
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(value, Corpus):
        return {"__corpus__": value.fingerprint}
    if isinstance(value, np.ndarray):
        if value.dtype.kind in ARRAY_KINDS:
            # Kept as the array itself, not copied (results are never changed in place
            # once made): saving writes it as a .npy member of the workspace.
            return {"__array__": value.dtype.str, "shape": list(value.shape), "array": Held(value)}
        return {
            "__array__": value.dtype.str if value.dtype.kind == "U" else "object",
            "shape": list(value.shape),
            "items": value.ravel().tolist(),
        }
    if isinstance(value, tuple):
        return {"__tuple__": [encode_state(item) for item in value]}
    if isinstance(value, list):
        return [encode_state(item) for item in value]
    if isinstance(value, dict):
        if all(isinstance(key, str) and not key.startswith("__") for key in value):
            return {key: encode_state(item) for key, item in value.items()}
        return {"__items__": [[encode_state(k), encode_state(v)] for k, v in value.items()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        name = f"{kind.__module__}.{kind.__qualname__}"
        if not name.startswith(STATE_MODULES):
            raise TypeError(f"a workspace cannot hold a {name}")
        return {
            "__dataclass__": name,
            "fields": {
                f.name: encode_state(getattr(value, f.name)) for f in dataclasses.fields(value)
            },
        }
    raise TypeError(f"a workspace cannot hold a {type(value).__name__}")


def decode_state(
    data: Any,
    corpus: Corpus | None = None,
    *,
    where: str = "state",
    path: str | Path | None = None,
    kind: Any = Any,
) -> Any:
    """The value :func:`encode_state` wrote, which must be a ``kind`` (a type hint:
    ``dict[str, ReviewList]``, ``Result``...); ``corpus`` stands for its corpus fields.
    ``where`` (the key path of ``data`` in the workspace) and ``path`` (its file) name
    the place of a problem.

    Raises
    ------
    WorkspaceError
        The data names a class outside :data:`STATE_MODULES`, nests deeper than any
        state does, or is malformed (an array whose shape, dtype or bytes do not agree,
        a dataclass field missing, unknown or of the wrong type); the message names the
        key path.
    """
    deep = too_deep(data, where)
    if deep is not None:
        raise WorkspaceError(
            f"{deep}: nested more than {MAX_DEPTH} levels deep; no workspace state is", path
        )
    try:
        return check(_decode(data, corpus, where), kind, where)
    except SchemaError as error:
        raise WorkspaceError(str(error), path) from None


def _decode(data: Any, corpus: Corpus | None, where: str) -> Any:
    if isinstance(data, list):
        return [_decode(item, corpus, f"{where}[{number}]") for number, item in enumerate(data)]
    if not isinstance(data, dict):
        return data
    if "__corpus__" in data:
        return corpus
    if "__tuple__" in data:
        items = check(data["__tuple__"], list, f"{where}.__tuple__")
        return tuple(
            _decode(item, corpus, f"{where}[{number}]") for number, item in enumerate(items)
        )
    if "__items__" in data:
        decoded = {}
        for number, pair in enumerate(check(data["__items__"], list, f"{where}.__items__")):
            key, value = check(pair, tuple[Any, Any], f"{where}.__items__[{number}]")
            key = _decode(key, corpus, f"{where}.__items__[{number}][0]")
            try:
                hash(key)
            except TypeError:
                raise SchemaError(
                    f"{where}.__items__[{number}][0]", f"a key cannot be {describe(key)}"
                ) from None
            decoded[key] = _decode(value, corpus, f"{where}[{key!r}]")
        return decoded
    if "__array__" in data:
        return _array(data, where)
    if "__dataclass__" in data:
        name = check(data["__dataclass__"], str, f"{where}.__dataclass__")
        fields = check(data.get("fields"), dict, f"{where}.fields")
        return _build_dataclass(
            name,
            {key: _decode(item, corpus, f"{where}.{key}") for key, item in fields.items()},
            where,
            corpus,
        )
    return {key: _decode(item, corpus, f"{where}.{key}") for key, item in data.items()}


def _array(data: dict[str, Any], where: str) -> np.ndarray:
    """The array :func:`encode_state` wrote: the array itself (from its ``.npy`` member),
    numbers as base64 bytes (schemas 2 and 3), or a list of items; shape, dtype and
    length must agree."""
    shape = tuple(check(data.get("shape"), tuple[int, ...], f"{where}.shape"))
    if any(size < 0 for size in shape):
        raise SchemaError(f"{where}.shape", f"negative size in {list(shape)}")
    count = math.prod(shape)
    name = check(data["__array__"], str, f"{where}.__array__")
    if "array" in data:
        # Held in memory, or read from the workspace's .npy member.
        held = data["array"]
        array = held.array if isinstance(held, Held) else held
        if not isinstance(array, np.ndarray):
            raise SchemaError(f"{where}.npy", f"{describe(array)} is not an array")
        if array.dtype.str != name:
            raise SchemaError(f"{where}.npy", f"an array of {array.dtype.str}, not {name}")
        if array.shape != shape:
            raise SchemaError(
                f"{where}.npy", f"an array of shape {list(array.shape)}, not {list(shape)}"
            )
        return array
    if "bytes" in data:  # schemas 2 and 3: base64 in the JSON
        try:
            dtype = np.dtype(name)
        except (TypeError, ValueError):
            dtype = None
        if dtype is None or dtype.kind not in "biuf":
            raise SchemaError(f"{where}.__array__", f"{describe(name)} is not a numeric dtype")
        text = check(data["bytes"], str, f"{where}.bytes")
        try:
            raw = base64.b64decode(text, validate=True)
        except binascii.Error as error:
            raise SchemaError(f"{where}.bytes", f"not base64 ({error})") from None
        if len(raw) != count * dtype.itemsize:
            raise SchemaError(
                f"{where}.bytes",
                f"{len(raw)} bytes for shape {list(shape)} of {dtype} ({count * dtype.itemsize})",
            )
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    items = check(data.get("items"), list, f"{where}.items")
    if len(items) != count:
        raise SchemaError(f"{where}.items", f"{len(items)} items for shape {list(shape)}")
    if name == "object":
        dtype = np.dtype(object)
        allowed: type | tuple[type, ...] = (str, int, float, bool, type(None))
    else:
        try:
            dtype = np.dtype(name)
        except (TypeError, ValueError):
            dtype = None
        if dtype is None or dtype.kind != "U":
            raise SchemaError(
                f"{where}.__array__", f"{describe(name)} is not a dtype kept as items"
            )
        allowed = str
    for number, item in enumerate(items):
        if not isinstance(item, allowed):
            raise SchemaError(
                f"{where}.items[{number}]", f"{describe(item)} cannot be an item of a {name} array"
            )
    array = np.empty(count, dtype=dtype)
    array[:] = items
    return array.reshape(shape)


def _build_dataclass(
    name: str, values: dict[str, Any], where: str = "state", corpus: Corpus | None = None
) -> Any:
    name = current_name(name)
    if not name.startswith(STATE_MODULES):
        raise SchemaError(where, f"a workspace may not build a {name}")
    module_name, _, class_name = name.rpartition(".")
    try:
        kind = getattr(importlib.import_module(module_name), class_name, None)
    except ImportError:
        kind = None
    if not isinstance(kind, type) or not dataclasses.is_dataclass(kind):
        raise SchemaError(where, f"{name} is not a result this version knows")
    fields = {f.name: f for f in dataclasses.fields(kind)}
    # A field added since the workspace was saved takes its default; any other mismatch
    # means the file describes something else.
    missing = {
        key
        for key, f in fields.items()
        if key not in values
        and f.default is dataclasses.MISSING
        and f.default_factory is dataclasses.MISSING
    }
    if missing or set(values) - set(fields):
        raise SchemaError(where, f"{name} has fields {sorted(values)}, expected {sorted(fields)}")
    hints = field_hints(kind)
    for key, value in values.items():
        if value is not corpus:  # the corpus stand-in (None when decoded without one)
            check(value, hints.get(key, Any), f"{where}.{key}")
    try:
        instance = kind(**{k: v for k, v in values.items() if fields[k].init})
    except Exception as error:  # noqa: BLE001 - whatever its checks raise, the file is wrong
        raise SchemaError(where, f"not a valid {class_name}: {error}") from None
    for key, value in values.items():
        if not fields[key].init:
            object.__setattr__(instance, key, value)
    return instance


# --- paired tests of the bars across encoders ----------------------------------------

#: A saved set of bars' paired tests: the evaluation, each bar as its position in its
#: corpus's results, and each test (bar ``b`` against bar ``a``, or why none was made).
SAVED_BARS_TESTS = {
    "evaluation": (str, True),
    "bars": (list[int], True),
    "outcomes": (list[dict], True),
}
SAVED_OUTCOME = {"a": (int, True), "b": (int, True), "test": (Any, True), "reason": (str, False)}


def bars_tests_entry(bars: BarsTests, results: list[Any]) -> dict[str, Any] | None:
    """``bars`` as a workspace keeps them, each bar by its position in ``results`` (its
    corpus's, in order): the numbers whole, the results not again. None when a bar is
    no longer one of ``results`` (replaced by a later run of the same request)."""
    positions = []
    for result, _ in bars.runs:
        position = next((k for k, other in enumerate(results) if other is result), None)
        if position is None:
            return None
        positions.append(position)
    bar_of = {id(result): k for k, (result, _) in enumerate(bars.runs)}
    return {
        "evaluation": bars.evaluation,
        "bars": positions,
        "outcomes": [
            {
                "a": bar_of[id(outcome.a)],
                "b": bar_of[id(outcome.b)],
                "test": encode_state(outcome.test),
                "reason": outcome.reason,
            }
            for command in bars.tests
            for outcome in command.outcomes
        ],
    }


def bars_tests_of_entry(
    data: Any, listed: list[tuple[str, Any, str]], where: str, path: str | Path
) -> BarsTests | None:
    """The paired tests :func:`bars_tests_entry` saved, of the bars they name among
    ``listed`` (the corpus's results as reopened: ``(label, result, command)`` each);
    None when they no longer describe those bars (a position past the results, a bar of
    another evaluation or version, commands that group the bars otherwise), so the
    window makes them again.

    Raises
    ------
    WorkspaceError
        ``data`` is not such an entry (a field missing or of the wrong type).
    """
    try:
        entry = check_fields(data, SAVED_BARS_TESTS, where)
        outcomes = [
            check_fields(outcome, SAVED_OUTCOME, f"{where}.outcomes[{number}]")
            for number, outcome in enumerate(entry["outcomes"])
        ]
    except SchemaError as error:
        raise WorkspaceError(str(error), path) from None
    bars = entry["bars"]
    if not all(0 <= position < len(listed) for position in bars):
        return None
    runs = [(listed[position][1], listed[position][2]) for position in bars]
    if {listed[position][0] for position in bars} != {entry["evaluation"]} or len(
        {result.provenance.corpus_fingerprint for result, _ in runs}
    ) != 1:
        return None
    tests = {
        (outcome["a"], outcome["b"]): (
            decode_state(
                outcome["test"],
                where=f"{where}.outcomes[{number}].test",
                path=path,
                kind=PairedTest | None,
            ),
            outcome.get("reason", ""),
        )
        for number, outcome in enumerate(outcomes)
    }
    return bars_tests_again(entry["evaluation"], runs, tests)


# --- saving and opening -------------------------------------------------------------


def with_extension(path: str | Path) -> Path:
    """``path``, with :data:`EXTENSION` added when the name has no extension (a bare
    name typed in a save dialog)."""
    path = Path(path)
    return path if path.suffix else path.with_name(path.name + EXTENSION)


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
    in it replaced by the name of its ``.npy`` member under :data:`ARRAYS`.
    """
    path = with_extension(path)
    check_unchanged(path, expect)
    arrays: list[np.ndarray] = []
    manifest = _manifest(
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
                yield Progress(stage, done, total)
    if remember:
        add_recent(path)
    return path


def _manifest(value: Any, arrays: list[np.ndarray]) -> Any:
    """``value`` (the workspace's entries and their encoded states) as JSON-ready data,
    each array :func:`encode_state` holds appended to ``arrays`` and named in its place."""
    if isinstance(value, dict):
        if isinstance(value.get("array"), Held) and "__array__" in value:
            arrays.append(value["array"].array)
            return {
                "__array__": value["__array__"],
                "shape": value["shape"],
                "npy": f"{ARRAYS}{len(arrays) - 1}.npy",
            }
        return {key: _manifest(item, arrays) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_manifest(item, arrays) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: _manifest(getattr(value, f.name), arrays) for f in dataclasses.fields(value)
        }
    return value


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


def _expect(value: Any, kind: Any, where: str) -> Any:
    check(value, kind, where)
    return value


def _entries(data: dict, key: str, cls: type, fields: dict[str, Any]) -> tuple:
    """Build ``cls`` from each dict of ``data[key]``, checking each field's type
    (:func:`sentspace.app.base.schema.check_fields`); values are kept as read."""
    entries = []
    for number, item in enumerate(_expect(data.get(key, []), list, key)):
        check_fields(item, fields, f"{key}[{number}]")
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
        data = _with_arrays(data, archive, path)
    schema = data.get("schema")
    if not isinstance(schema, int) or schema > SCHEMA:
        raise WorkspaceError(
            f"workspace schema {schema!r} is not one this version reads "
            f"(up to {SCHEMA}); a newer sentspace wrote it?",
            path,
        )
    try:
        workspace = Workspace(
            corpora=_entries(
                data,
                "corpora",
                CorpusEntry,
                {
                    "spec": (str, True),
                    "fingerprint": (str, True),
                    "files": (dict[str, str], True),
                    "journal": (str | None, False),
                    "state": (dict | None, False),
                },
            ),
            encoders=_entries(
                data,
                "encoders",
                EncoderEntry,
                {"spec": (str, True), "family": (str, True), "params": (dict[str, Any], True)},
            ),
            evaluations=_entries(
                data,
                "evaluations",
                EvaluationEntry,
                {
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
            ),
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


def _with_arrays(data: Any, archive: zipfile.ZipFile, path: Path, where: str = "") -> Any:
    """``data`` (a schema-4 manifest) with each array it names read from its ``.npy``
    member of ``archive`` (never unpickled); :func:`decode_state` checks their dtype
    and shape against the manifest's."""
    if isinstance(data, list):
        return [
            _with_arrays(item, archive, path, f"{where}[{number}]")
            for number, item in enumerate(data)
        ]
    if not isinstance(data, dict):
        return data
    if "__array__" in data and "npy" in data:
        member = data["npy"]
        try:
            if not isinstance(member, str):
                raise ValueError(f"{describe(member)} is not a member's name")
            with archive.open(member) as f:
                array = np.load(io.BytesIO(f.read()), allow_pickle=False)
        except KeyError:
            raise WorkspaceError(
                f"{where}.npy: the archive has no member {member!r}", path
            ) from None
        except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as error:
            raise WorkspaceError(f"{where}.npy: not a readable array ({error})", path) from None
        return {key: value for key, value in data.items() if key != "npy"} | {"array": Held(array)}
    return {
        key: _with_arrays(item, archive, path, f"{where}.{key}" if where else key)
        for key, item in data.items()
    }


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


def load_workspace_corpus(
    workspace: Workspace, index: int, path: str | Path, *, corrected: bool = False
) -> Corpus:
    """Load corpus ``index`` of the workspace saved at ``path``; with ``corrected``, with
    its journal's edits applied.

    Raises
    ------
    WorkspaceError
        A file it needs no longer exists, or the files now load into another corpus.
    """
    entry = workspace.corpora[index]
    named = not os.path.isabs(entry.spec)
    # A named corpus is wherever its name finds it now (a package, the shared data
    # folder): its fingerprint says whether it is the one saved.
    missing = [] if named else [source for source in entry.files if not Path(source).is_file()]
    if not named and not Path(entry.spec).exists():
        missing.insert(0, entry.spec)
    if missing:
        raise WorkspaceError(f"corpus {index} refers to {missing[0]}, which no longer exists", path)
    corpus = load_named_corpus(entry.spec) if named else load_corpus(entry.spec)
    if corpus.fingerprint != entry.fingerprint:
        raise WorkspaceError(
            f"corpus {entry.spec} has changed since the workspace was "
            f"saved (fingerprint {corpus.fingerprint}, saved "
            f"{entry.fingerprint})",
            path,
        )
    if not corrected:
        return corpus
    journal = workspace_journal(workspace, index, path)
    if journal is None:
        raise WorkspaceError(f"corpus {entry.spec} was saved without an edit journal", path)
    history = History(corpus)
    history.feed(read_journal(journal, corpus.fingerprint)[1])
    return history.corpus


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


def make_workspace_encoder(entry: EncoderEntry, path: str | Path | None = None) -> Encoder:
    """The encoder an entry describes: its family with the saved parameters, or its spec
    for encoders outside the registry (word-vector files, precomputed). Parameters the
    family does not take (or refuses) are a :class:`WorkspaceError` naming ``path``."""
    if entry.family in ENCODERS:
        try:
            return ENCODERS[entry.family](**entry.params)
        except (TypeError, ValueError) as error:
            raise WorkspaceError(
                f"encoder {entry.spec}: its saved parameters do not fit {entry.family} ({error})",
                path,
            ) from None
    return make_encoder(entry.spec)


def run_workspace(
    path: str | Path, on_progress: Callable[[Progress], Any] | None = None
) -> list[Any]:
    """Re-run every evaluation of the workspace at ``path``, in order, headless.

    Each runs as saved (corpus, corrected or not, encoder with its parameters, seed,
    options); the results' ``summary()`` rows are those the workspace saved when nothing
    has changed (compare with :func:`changed_summaries`).

    Raises
    ------
    WorkspaceError
        The workspace is corrupt or a file it needs is missing or changed.
    """
    workspace = load_workspace(path)
    corpora: dict[tuple[int, bool], Corpus] = {}
    results = []
    for entry in workspace.evaluations:
        key = (entry.corpus, entry.corrected)
        if key not in corpora:
            corpora[key] = load_workspace_corpus(
                workspace, entry.corpus, path, corrected=entry.corrected
            )
        encoder = make_workspace_encoder(workspace.encoders[entry.encoder], path)
        run, _ = EVALUATIONS[entry.name]
        results.append(
            run_job(run(corpora[key], encoder, seed=entry.seed, **entry.options), on_progress)
        )
    return results


def changed_summaries(
    workspace: Workspace, results: list[Any]
) -> list[tuple[int, list[list[str]], list[list[str]]]]:
    """``(evaluation index, saved rows, new rows)`` for each result whose summary
    differs from the saved one; empty when the run reproduced the workspace."""
    return [
        (number, entry.summary, new)
        for number, (entry, result) in enumerate(zip(workspace.evaluations, results))
        if (new := [[label, value] for label, value in result.summary()]) != entry.summary
    ]


# --- recent workspaces ------------------------------------------------------------


def config_dir() -> Path:
    """``$SENTSPACE_CONFIG_DIR``, else the platform's user config folder for sentspace."""
    return Path(os.environ.get(CONFIG_DIR_ENV) or platformdirs.user_config_dir("sentspace"))


def _recent_file() -> Path:
    return config_dir() / "recent-workspaces.json"


def recent_workspaces() -> list[Path]:
    """Recently saved or opened workspaces, most recent first; an unreadable list is
    treated as empty (it is a convenience, never worth an error)."""
    try:
        paths = json.loads(_recent_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(paths, list):
        return []
    return [Path(p) for p in paths if isinstance(p, str)]


def add_recent(path: str | Path) -> list[Path]:
    """Put ``path`` first in the recent list (atomically), keeping
    :data:`RECENT_LIMIT`."""
    path = Path(chosen_path(path))
    paths = [
        path,
        *(p for p in recent_workspaces() if not (p == path or p.exists() and same_file(p, path))),
    ][:RECENT_LIMIT]
    _recent_file().parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(_recent_file(), json.dumps([str(p) for p in paths], indent=1) + "\n")
    return paths
