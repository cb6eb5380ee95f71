"""Results and arrays as a workspace keeps them: :func:`encode_state` makes a result
dataclass JSON-ready (arrays kept whole, written as ``.npy`` members) and
:func:`decode_state` builds it again, only from the classes :data:`RESULT_TYPES` names,
never code a file names."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import importlib
import io
import math
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.analysis.evaluations.paired import BarsTests, bars_tests_again
from sentspace.app.analysis.evaluations.statistics import PairedTest
from sentspace.app.base.schema import (
    MAX_DEPTH,
    SchemaError,
    check,
    check_fields,
    describe,
    field_hints,
    too_deep,
)
from sentspace.app.corpora.model import Corpus
from sentspace.app.workspace.model import ARRAY_KINDS, ARRAYS, WorkspaceError

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


def to_manifest(value: Any, arrays: list[np.ndarray]) -> Any:
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
        return {key: to_manifest(item, arrays) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_manifest(item, arrays) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_manifest(getattr(value, f.name), arrays) for f in dataclasses.fields(value)
        }
    return value


def with_arrays(data: Any, archive: zipfile.ZipFile, path: Path, where: str = "") -> Any:
    """``data`` (a schema-4 manifest) with each array it names read from its ``.npy``
    member of ``archive`` (never unpickled); :func:`decode_state` checks their dtype
    and shape against the manifest's."""
    if isinstance(data, list):
        return [
            with_arrays(item, archive, path, f"{where}[{number}]")
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
        key: with_arrays(item, archive, path, f"{where}.{key}" if where else key)
        for key, item in data.items()
    }
