"""Corpus readers, one per format, all returning :class:`~app.corpora.model.Corpus`."""

from __future__ import annotations

from pathlib import Path

from app.corpora.grouped import is_grouped_corpus, load_grouped
from app.corpora.model import Corpus, Grouping, PairTable
from app.errors import CorpusError
from resources import CORPORA

#: Corpora shipped in ``resources/corpora``, by the name the CLI and GUI accept.
BUILTIN = {"msrp-grouped": CORPORA / "msrp-grouped"}
DEFAULT_CORPUS = "msrp-grouped"


def load_corpus(spec: str | Path) -> Corpus:
    """Load a built-in corpus by name, or a corpus from a path, detecting its format."""
    if str(spec) in BUILTIN:
        return load_grouped(BUILTIN[str(spec)], name=str(spec))
    path = Path(spec)
    if not path.exists():
        known = ", ".join(sorted(BUILTIN))
        raise CorpusError(f"no such file or folder, and not a built-in corpus ({known})", path)
    if is_grouped_corpus(path):
        return load_grouped(path)
    raise CorpusError("unrecognised corpus format", path)


__all__ = ["BUILTIN", "DEFAULT_CORPUS", "Corpus", "Grouping", "PairTable", "load_corpus"]
