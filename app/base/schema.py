"""Checking what a file holds against the type its reader builds from it.

The records sentspace writes (journal edits, undo/redo records, result dataclasses in a
workspace, review batches) are dataclasses or declared field tables; their annotations
are the schema. :func:`check` tests a value read from a file against such an annotation
and :func:`build` makes a dataclass from a dict of fields, so one description (the code's
own types) says what every file may hold, and a wrong value is a :class:`SchemaError`
naming where it is ("pair", "runs[0].encoder") instead of a TypeError far from the file.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import types
import typing
from typing import Any

#: Deeper JSON is no file sentspace wrote (the deepest is a result's few levels).
MAX_DEPTH = 64


class SchemaError(ValueError):
    """A value read from a file is not what its format allows. ``where`` is the key
    path ("runs[0].encoder"), ``problem`` what is wrong there."""

    def __init__(self, where: str, problem: str):
        self.where, self.problem = where, problem
        super().__init__(f"{where}: {problem}" if where else problem)


def describe(value: Any) -> str:
    """A value as an error message shows it: short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _name(hint: Any) -> str:
    if hint is type(None):
        return "null"
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(map(_name, typing.get_args(hint)))
    if origin is not None:
        return {tuple: "a list", list: "a list", dict: "an object"}.get(origin, str(origin))
    return {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
        dict: "an object",
        list: "a list",
        tuple: "a list",
    }.get(hint, getattr(hint, "__name__", str(hint)))


def check(value: Any, hint: Any, where: str = "") -> Any:
    """``value`` if it is of type ``hint`` (``str``, ``int``, ``float | None``,
    ``tuple[str, ...]``, ``dict[str, Any]``, a class...), with lists read for tuples made
    tuples; else :class:`SchemaError`. An int is a float, a bool is not a number."""
    if hint is Any or hint is object:
        return value
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(hint):
            try:
                return check(value, option, where)
            except SchemaError:
                continue
        raise SchemaError(where, f"should be {_name(hint)}, found {describe(value)}")
    kind = origin or hint
    if not isinstance(kind, type):
        return value  # a hint this checker cannot read: the constructor judges
    if kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind is tuple:
        ok = isinstance(value, (tuple, list))
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise SchemaError(where, f"should be {_name(hint)}, found {describe(value)}")
    arguments = typing.get_args(hint)
    if kind is tuple and arguments:
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return tuple(
                check(item, arguments[0], f"{where}[{number}]") for number, item in enumerate(value)
            )
        if len(value) != len(arguments):
            raise SchemaError(where, f"should hold {len(arguments)} values, found {len(value)}")
        return tuple(
            check(item, argument, f"{where}[{number}]")
            for number, (item, argument) in enumerate(zip(value, arguments))
        )
    if kind is tuple:
        return tuple(value)
    if kind is list and arguments:
        return [
            check(item, arguments[0], f"{where}[{number}]") for number, item in enumerate(value)
        ]
    if kind is dict and arguments:
        return {
            check(key, arguments[0], f"{where} key"): check(item, arguments[1], f"{where}.{key}")
            for key, item in value.items()
        }
    return value


@functools.cache
def field_hints(cls: type) -> dict[str, Any]:
    """The type of each field of the dataclass ``cls``; a hint that cannot be resolved
    (a name only imported for type checkers) is Any, which checks nothing."""
    try:
        hints = typing.get_type_hints(cls)
    except (NameError, TypeError):
        hints = {}
    return {f.name: hints.get(f.name, Any) for f in dataclasses.fields(cls)}


def field_types(cls: type) -> dict[str, tuple[Any, bool]]:
    """``cls``'s fields set by its constructor: name -> (type, required)."""
    hints = field_hints(cls)
    return {
        f.name: (
            hints[f.name],
            f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
        )
        for f in dataclasses.fields(cls)
        if f.init
    }


def check_fields(
    values: dict[str, Any], fields: dict[str, tuple[Any, bool]], where: str = ""
) -> dict[str, Any]:
    """``values`` checked against ``fields`` (name -> (type, required)): no unknown or
    missing field, each of its type; lists read for tuples made tuples."""
    prefix = f"{where}." if where else ""
    if not isinstance(values, dict):
        raise SchemaError(where, f"should be an object, found {describe(values)}")
    unknown = [name for name in values if name not in fields]
    if unknown:
        raise SchemaError(
            where, f"unknown field{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}"
        )
    missing = [name for name, (_, required) in fields.items() if required and name not in values]
    if missing:
        raise SchemaError(where, f"lacks {', '.join(map(repr, missing))}")
    return {name: check(value, fields[name][0], prefix + name) for name, value in values.items()}


def build(cls: type, values: dict[str, Any], where: str = "") -> Any:
    """An instance of the dataclass ``cls`` from ``values`` (its init fields), checked
    with :func:`check_fields`; a constructor that refuses them is a SchemaError too."""
    checked = check_fields(values, field_types(cls), where)
    try:
        return cls(**checked)
    except (TypeError, ValueError) as error:
        raise SchemaError(where, str(error)) from None


def finite(value: float | None, where: str) -> float | None:
    """``value`` unless it is NaN or infinite (JSON as Python reads it allows both)."""
    if value is not None and not math.isfinite(value):
        raise SchemaError(where, f"should be a finite number, found {value}")
    return value


def too_deep(value: Any, where: str = "", limit: int = MAX_DEPTH) -> str | None:
    """The key path of the first list or object of ``value`` (parsed JSON) nested more
    than ``limit`` deep, or None; walked without recursion (a hostile file may nest
    thousands deep, past Python's own limit)."""
    stack = [(value, 1, where)]
    while stack:
        item, level, path = stack.pop()
        if not isinstance(item, (list, dict)):
            continue
        if level > limit:
            return path
        children = item.items() if isinstance(item, dict) else enumerate(item)
        stack.extend(
            (
                child,
                level + 1,
                f"{path}.{key}"
                if isinstance(item, dict) and path
                else str(key)
                if isinstance(item, dict)
                else f"{path}[{key}]",
            )
            for key, child in children
        )
    return None


def check_arguments(function: Any, values: dict[str, Any], where: str = "") -> None:
    """``values`` as keyword arguments of ``function`` (a class: its constructor): each a
    parameter it takes by name, of the type its annotation says."""
    parameters = inspect.signature(function).parameters
    try:
        hints = typing.get_type_hints(function.__init__ if inspect.isclass(function) else function)
    except (NameError, TypeError):
        hints = {}
    prefix = f"{where}." if where else ""
    for name, value in values.items():
        parameter = parameters.get(name)
        if parameter is None or parameter.kind not in (
            parameter.KEYWORD_ONLY,
            parameter.POSITIONAL_OR_KEYWORD,
        ):
            raise SchemaError(where, f"takes no {name!r}")
        check(value, hints.get(name, Any), prefix + name)
