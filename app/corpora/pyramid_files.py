"""The DUC/TAC pyramid file (``.pyr``) read part by part: its SCUs, contributors and
summaries, each malformed part named by file, line and problem."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.parsers import expat

from sentspace.app.base.errors import CorpusError


@dataclass
class _Contributor:
    text: str
    line: int
    parts: list[tuple[str, int, int, int]] = field(default_factory=list)


@dataclass
class _Scu:
    uid: str
    label: str
    contributors: list[_Contributor] = field(default_factory=list)


def _required(
    attributes: dict[str, str], element: str, names: tuple[str, ...], path: Path, line: int
) -> list[str]:
    missing = [name for name in names if name not in attributes]
    if missing:
        raise CorpusError(f"<{element}> lacks the attribute {missing[0]!r}", path, line)
    return [attributes[name] for name in names]


def _parse(path: Path) -> tuple[str, str | None, list[_Scu]]:
    """(text, startDocumentRegEx or None, SCUs) of one pyramid file."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise CorpusError(f"cannot read: {error.strerror}", path) from None
    if not data.strip():
        raise CorpusError("file is empty", path)
    parser = expat.ParserCreate()
    lines: list[str] = []
    regex: list[str] = []
    scus: list[_Scu] = []
    stack: list[str] = []
    buffer: list[str] = []

    def start(name: str, attributes: dict[str, str]) -> None:
        line = parser.CurrentLineNumber
        if not stack and name != "pyramid":
            raise CorpusError(f"not a pyramid: the root element is <{name}>", path, line)
        if name == "scu":
            uid, label = _required(attributes, name, ("uid", "label"), path, line)
            scus.append(_Scu(uid, label))
        elif name == "contributor":
            if stack[-1] != "scu":
                raise CorpusError("<contributor> outside an <scu>", path, line)
            (label,) = _required(attributes, name, ("label",), path, line)
            scus[-1].contributors.append(_Contributor(label, line))
        elif name == "part":
            if stack[-1] != "contributor":
                raise CorpusError("<part> outside a <contributor>", path, line)
            label, start_, end = _required(attributes, name, ("label", "start", "end"), path, line)
            try:
                offsets = int(start_), int(end)
            except ValueError:
                raise CorpusError(
                    f"<part> offsets must be integers, found start={start_!r} end={end!r}",
                    path,
                    line,
                ) from None
            scus[-1].contributors[-1].parts.append((label, *offsets, line))
        stack.append(name)
        buffer.clear()

    def end(name: str) -> None:
        stack.pop()
        if name == "line":
            lines.append("".join(buffer))
        elif name == "startDocumentRegEx":
            regex.append("".join(buffer))
        elif name == "contributor" and not scus[-1].contributors[-1].parts:
            raise CorpusError("<contributor> without a <part>", path, parser.CurrentLineNumber)
        elif name == "scu" and not scus[-1].contributors:
            raise CorpusError(
                f"<scu uid={scus[-1].uid!r}> without a <contributor>",
                path,
                parser.CurrentLineNumber,
            )

    def refuse_entity(name: str, *_: Any) -> None:
        # Entity declarations can expand without bound; pyramid files never need them.
        raise CorpusError(f"entity declaration {name!r} refused", path, parser.CurrentLineNumber)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = buffer.append
    parser.EntityDeclHandler = refuse_entity
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        raise CorpusError(
            f"malformed XML: {expat.ErrorString(error.code)} (column {error.offset + 1})",
            path,
            error.lineno,
        ) from None
    except LookupError as error:  # an XML declaration naming an unknown encoding
        raise CorpusError(f"malformed XML: {error}", path, parser.CurrentLineNumber) from None
    if not scus:
        raise CorpusError("no <scu> elements", path)
    return "\n".join(lines), (regex[0] if regex else None), scus


def _check_uids(path: Path, scus: list[_Scu]) -> None:
    seen: set[str] = set()
    for scu in scus:
        if scu.uid in seen:
            raise CorpusError(f"SCU uid {scu.uid!r} is used twice", path, scu.contributors[0].line)
        seen.add(scu.uid)


def _part_problem(start: int, end: int, n_characters: int) -> str:
    """What is wrong with a part's offsets into a text of ``n_characters``; "" if nothing."""
    if start > end:
        return f"<part> start {start} lies after its end {end}; the part is skipped"
    if start < 0 or end > n_characters:
        return (
            f"<part> offsets {start}-{end} lie outside the text ({n_characters} "
            "characters); the part is skipped"
        )
    return ""


def _summary_starts(text: str, regex: str | None) -> tuple[list[int], list[str]]:
    """Start offsets and names of the model summaries the header regex finds."""
    if regex is None:
        return [], []
    try:
        headers = list(re.finditer(regex, text))
    except re.error:
        return [], []
    names = [
        next((line.strip() for line in match.group().split("\n") if line.strip().strip("-")), "")
        for match in headers
    ]
    return [match.start() for match in headers], names
