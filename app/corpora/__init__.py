"""Corpus readers, one per format, all returning :class:`~sentspace.app.corpora.model.Corpus`.

:func:`load_corpus` accepts a built-in corpus name or any path and picks the reader with
the first matching entry of :data:`FORMATS`: specific formats (recognised by file names,
headers or folder layout) come first, the generic table reader last.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from sentspace.app.base.errors import CorpusError, CorpusNotFoundError
from sentspace.app.corpora.grouped import is_grouped_corpus, load_grouped
from sentspace.app.corpora.model import Corpus, Grouping, PairTable
from sentspace.app.corpora.msrp import is_msrp, load_msrp
from sentspace.app.corpora.opinosis import is_opinosis, load_opinosis
from sentspace.app.corpora.parquet import is_parquet, load_parquet
from sentspace.app.corpora.pyramid import is_pyramid, load_pyramid
from sentspace.app.corpora.senteval import is_senteval, load_senteval
from sentspace.app.corpora.sick import is_sick, load_sick
from sentspace.app.corpora.sts import is_sts, load_sts
from sentspace.app.corpora.tabular import ColumnMapping, is_tabular, load_tabular
from sentspace.resources import CORPORA


def _imported_on_call(module: str, function: str) -> Callable:
    """``module.function``, imported when first called: keeps a reader that the GUI's
    start path never needs off it (tests/test_lazy_imports.py)."""

    def call(*args, **kwargs):
        return getattr(importlib.import_module(module), function)(*args, **kwargs)

    return call


is_costra = _imported_on_call("sentspace.app.corpora.costra", "is_costra")
load_costra = _imported_on_call("sentspace.app.corpora.costra", "load_costra")
_MULTI30K = "sentspace.app.corpora.multi30k"
#: Corpora shipped in ``resources/corpora``, by the name the CLI and GUI accept.
BUILTIN = {"msrp-grouped": CORPORA / "msrp-grouped"}
DEFAULT_CORPUS = "msrp-grouped"
#: Corpora that installed packages provide, by name (Costra 1.1 from the ``costra``
#: package, so users get it without a file).
FROM_PACKAGES = {"costra": load_costra}
#: Corpora read from the shared data folder, by name; ``NAME:PART:PART`` picks a
#: language or split (``multi30k-captions:de:val``), given to the loader as "de:val".
FROM_DATA = {
    "multi30k-captions": _imported_on_call(_MULTI30K, "load_captions_spec"),
    "multi30k-parallel": _imported_on_call(_MULTI30K, "load_parallel_spec"),
}


class Format(NamedTuple):
    """A corpus format: its name, whether a path holds it, and how to load it."""

    name: str
    detect: Callable[[Path], bool]
    load: Callable[[Path], Corpus]


#: Tried in order; the first whose ``detect`` is true loads the path.
FORMATS: list[Format] = [
    Format("MSRP", is_msrp, load_msrp),
    Format("SICK", is_sick, load_sick),
    Format("STS", is_sts, load_sts),
    Format("Opinosis", is_opinosis, load_opinosis),
    Format("SentEval", is_senteval, load_senteval),
    Format("paraphrase-grouped", is_grouped_corpus, load_grouped),
    Format("Costra", is_costra, load_costra),
    Format("pyramid", is_pyramid, load_pyramid),
    Format(
        "Multi30K captions",
        _imported_on_call(_MULTI30K, "is_multi30k_captions"),
        _imported_on_call(_MULTI30K, "load_multi30k_captions"),
    ),
    Format(
        "Multi30K parallel",
        _imported_on_call(_MULTI30K, "is_multi30k_parallel"),
        _imported_on_call(_MULTI30K, "load_multi30k_parallel"),
    ),
    Format("Parquet", is_parquet, load_parquet),
    Format("table", is_tabular, load_tabular),
]


def detect_format(path: Path) -> Format:
    """The first format of :data:`FORMATS` that recognises ``path``."""
    for candidate in FORMATS:
        try:
            if candidate.detect(path):
                return candidate
        except OSError as error:
            raise CorpusError(f"cannot read: {error.strerror}", path) from None
    names = ", ".join(f.name for f in FORMATS)
    raise CorpusError(
        f"unrecognised corpus format (known: {names}; tables need a .csv, "
        ".tsv, .jsonl, .txt or .parquet extension)",
        path,
    )


def names_a_corpus(name: str) -> bool:
    """Whether a corpus is called ``name``: built in, from a package or the shared data
    folder (``NAME:PART:PART``)."""
    return name in BUILTIN or name in FROM_PACKAGES or name.partition(":")[0] in FROM_DATA


def is_corpus_name(spec: str | Path) -> bool:
    """Whether :func:`load_corpus` reads ``spec`` as the name of a corpus rather than a
    path: a name of :data:`BUILTIN`, or another name when no file or folder here is
    called that."""
    spec = str(spec)
    return spec in BUILTIN or (names_a_corpus(spec) and not Path(spec).exists())


def load_named_corpus(name: str) -> Corpus:
    """The corpus called ``name`` (see :func:`is_corpus_name`), whatever the working
    folder holds: a workspace names it so, to find it from anywhere.

    Raises
    ------
    CorpusError
        No corpus has that name.
    """
    if name in BUILTIN:
        return load_grouped(BUILTIN[name], name=name)
    if name in FROM_PACKAGES:
        return FROM_PACKAGES[name]()
    family, _, parts = name.partition(":")
    if family in FROM_DATA:
        return FROM_DATA[family](parts)
    known = ", ".join(sorted({*BUILTIN, *FROM_PACKAGES, *FROM_DATA}))
    raise CorpusError(f"no corpus is called {name!r} (known: {known})")


def load_corpus(spec: str | Path, mapping: ColumnMapping | None = None) -> Corpus:
    """Load a built-in corpus by name, or a corpus from a path, detecting its format.

    A ``mapping`` (columns chosen by the user) means the path is read as a table.
    """
    if is_corpus_name(spec):
        return load_named_corpus(str(spec))
    path = Path(spec)
    if not path.exists():
        known = ", ".join(sorted({*BUILTIN, *FROM_PACKAGES, *FROM_DATA}))
        raise CorpusNotFoundError(
            f"no such file or folder, and not a built-in corpus ({known})", path
        )
    if mapping is not None:
        return load_tabular(path, mapping)
    return detect_format(path).load(path)


__all__ = [
    "BUILTIN",
    "DEFAULT_CORPUS",
    "FORMATS",
    "FROM_DATA",
    "ColumnMapping",
    "Corpus",
    "Format",
    "Grouping",
    "PairTable",
    "detect_format",
    "is_corpus_name",
    "load_corpus",
    "load_named_corpus",
    "names_a_corpus",
]
