"""Opinosis raw topics (Ganesan et al. 2010): ``topics/<topic>.txt.data``, one review
sentence a line, CRLF.

17 of the 51 files hold single Windows-1252 bytes (curly quotes, pound signs), so each file
is decoded as UTF-8 and, failing that, as cp1252; ``Corpus.warnings`` names every file and
line that needed the fallback. Surrounding whitespace is stripped and blank lines are
skipped. Identical sentences, within a topic or across topics (the same review sentence is
filed under several aspects of a product), are one sentence with one membership per line
it occurs on.
"""

from __future__ import annotations

from pathlib import Path

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora.build import SentenceTable, grouping_from_labels, read_lines
from sentspace.app.corpora.model import Corpus

SUFFIX = ".txt.data"
TOPICS = "topics"


def _topic_files(path: Path) -> list[Path]:
    folder = path / TOPICS if (path / TOPICS).is_dir() else path
    return sorted(p for p in folder.iterdir() if p.name.endswith(SUFFIX) and p.is_file())


def is_opinosis(path: Path) -> bool:
    """An Opinosis folder (or its ``topics/``), or one ``*.txt.data`` topic file."""
    if path.is_dir():
        return bool(_topic_files(path))
    return path.name.endswith(SUFFIX)


def load_opinosis(path: str | Path, name: str | None = None) -> Corpus:
    """Load Opinosis topics as sentences grouped by topic.

    Parameters
    ----------
    path : str or Path
        The Opinosis folder, its ``topics/`` folder, or one topic file.

    Returns
    -------
    Corpus
        ``groups``: kind "topic", one per file (name = file name without ``.txt.data``),
        one membership per non-empty line. ``ids``: ``"<topic>:<line>"`` of the first
        occurrence; metadata ``topic`` and ``line`` likewise.

    Raises
    ------
    CorpusError
        No topic files; a file is empty, binary, decodes in neither UTF-8 nor cp1252, or
        has an absurdly long line.
    """
    path = Path(path)
    files = _topic_files(path) if path.is_dir() else [path]
    if not files:
        raise CorpusError(f"no Opinosis topic files (*{SUFFIX})", path)
    table = SentenceTable(("topic", "line"))
    members: list[int] = []
    topics: list[str] = []
    warnings: list[str] = []
    for file in files:
        topic = file.name.removesuffix(SUFFIX)
        for number, line in enumerate(
            read_lines(file, fallback="cp1252", warnings=warnings), start=1
        ):
            text = line.strip()
            if text:
                members.append(table.add(text, f"{topic}:{number}", topic=topic, line=number))
                topics.append(topic)
    if not members:
        raise CorpusError("no sentences in the topic files", path)
    return table.corpus(
        name or "opinosis",
        sources=files,
        warnings=warnings,
        groups=grouping_from_labels(
            "topic", members, topics, names=[f.name.removesuffix(SUFFIX) for f in files]
        ),
    )
