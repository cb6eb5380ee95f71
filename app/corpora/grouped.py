"""Paraphrase-grouped corpora: ``phrases.txt`` + ``phrase_groups.csv`` (White et al. 2015).

``phrases.txt`` holds one sentence per line; ``phrase_groups.csv`` has the header
``phrase_index,paraphrase_group_index`` and one row per sentence, both 0-based.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora.build import read_lines
from sentspace.app.corpora.model import Corpus, Grouping

PHRASES = "phrases.txt"
GROUPS = "phrase_groups.csv"
HEADER = "phrase_index,paraphrase_group_index"


def is_grouped_corpus(path: Path) -> bool:
    folder = path if path.is_dir() else path.parent
    return (folder / PHRASES).exists() or (folder / GROUPS).exists()


def load_grouped(path: str | Path, name: str | None = None) -> Corpus:
    """Load a paraphrase-grouped corpus from its folder (or either of its two files).

    Every sentence keeps its line as id (``"L1"`` for the first line) and its group's
    index from the csv as group name. Sentences listed in no group stay in the corpus
    without a group; the loader says how many in ``Corpus.warnings``.

    Raises
    ------
    CorpusError
        A file is missing, empty, not UTF-8, or the csv has a bad header, a row that is
        not two integers, an index outside ``phrases.txt``, or lists a sentence twice.
    """
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    phrases_path, groups_path = folder / PHRASES, folder / GROUPS
    for required in (phrases_path, groups_path):
        if not required.exists():
            raise CorpusError(
                f"missing {required.name}: a grouped corpus needs "
                f"{PHRASES} and {GROUPS} in one folder",
                required,
            )

    texts = read_lines(phrases_path)
    for number, text in enumerate(texts, start=1):
        if not text.strip():
            raise CorpusError("empty sentence", phrases_path, number)

    rows = read_lines(groups_path)
    if rows[0].strip().lstrip("\ufeff") != HEADER:
        raise CorpusError(f"expected the header {HEADER!r}, found {rows[0][:80]!r}", groups_path, 1)
    sentence_index: list[int] = []
    group_label: list[int] = []
    first_seen: dict[int, int] = {}
    for number, row in enumerate(rows[1:], start=2):
        if not row.strip():
            continue
        fields = row.split(",")
        try:
            phrase, group = (int(field) for field in fields)
        except ValueError:
            raise CorpusError(
                f"expected two integers 'phrase_index,group_index', found {row[:80]!r}",
                groups_path,
                number,
            ) from None
        if not 0 <= phrase < len(texts):
            raise CorpusError(
                f"phrase index {phrase} is outside {PHRASES}, which has "
                f"{len(texts)} lines (indices 0-{len(texts) - 1})",
                groups_path,
                number,
            )
        if group < 0:
            raise CorpusError(f"negative group index {group}", groups_path, number)
        if phrase in first_seen:
            raise CorpusError(
                f"phrase index {phrase} is listed twice (first on line {first_seen[phrase]})",
                groups_path,
                number,
            )
        first_seen[phrase] = number
        sentence_index.append(phrase)
        group_label.append(group)
    if not sentence_index:
        raise CorpusError("no rows after the header", groups_path)

    group_values, group_index = np.unique(np.asarray(group_label), return_inverse=True)
    ungrouped = len(texts) - len(sentence_index)
    warnings = (f"{ungrouped} sentences of {PHRASES} are in no group",) if ungrouped else ()
    return Corpus(
        name=name or folder.name,
        texts=tuple(texts),
        ids=tuple(f"L{line}" for line in range(1, len(texts) + 1)),
        groups=Grouping(
            kind="paraphrase group",
            sentence_index=np.asarray(sentence_index),
            group_index=group_index,
            names=tuple(str(g) for g in group_values),
        ),
        metadata={"line": tuple(range(1, len(texts) + 1))},
        sources=(str(phrases_path), str(groups_path)),
        warnings=warnings,
    )
