"""The name a save dialog's answer stands for. Qt's dialogs (native or not) return the
name as typed, so a bare ``rel-glove`` would be written without the extension its
writer needs; :func:`completed_name` adds the one of the filter chosen."""

from __future__ import annotations

import re
from pathlib import Path


def filter_patterns(name_filter: str) -> list[str]:
    """The patterns of one Qt name filter, in order: ``"CSV (*.csv)"`` -> ``["*.csv"]``,
    ``"Embedding Projector pair (vectors.tsv)"`` -> ``["vectors.tsv"]``."""
    found = re.search(r"\(([^)]*)\)\s*$", name_filter)
    return (found.group(1) if found else name_filter).split()


def _extensions(filters: str) -> list[str]:
    return [
        pattern[1:].lower()
        for name_filter in filters.split(";;")
        for pattern in filter_patterns(name_filter)
        if pattern.startswith("*.") and "*" not in pattern[1:]
    ]


def completed_name(path: str | Path, chosen: str, filters: str = "") -> Path:
    """``path`` as typed under the name filter ``chosen`` (one of ``filters``, a Qt
    ``;;`` list): a name already ending in an extension any of ``filters`` offers is
    kept (``plot.svg`` under *PNG*); else the chosen filter's first extension is added
    (``rel-glove`` -> ``rel-glove.json``, ``glove.6B`` -> ``glove.6B.json``), or its
    fixed name replaces the name (the Projector's ``vectors.tsv``). ``*`` keeps it."""
    path = Path(path)
    if any(path.name.lower().endswith(extension) for extension in _extensions(filters or chosen)):
        return path
    first = next(iter(filter_patterns(chosen)), "*")
    if first.startswith("*.") and "*" not in first[1:]:
        return path.with_name(path.name + first[1:])
    return path if "*" in first else path.with_name(first)
