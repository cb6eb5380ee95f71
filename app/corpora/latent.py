"""Latent-relatedness probes: ``soup.tsv``, a header ``group<TAB>sentence`` then one
sentence per line with the name of its group (Triantafillou et al. 2016, Figure 7)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.corpora.model import Corpus, Grouping
from app.corpora.textfile import read_lines
from app.errors import CorpusError

HEADER = ("group", "sentence")


def load_latent(path: str | Path, name: str | None = None) -> Corpus:
    """Load a probe file; each sentence keeps its line as id ("L2" for the first one).

    Raises
    ------
    CorpusError
        The file is missing, empty or not UTF-8, the header is not ``group<TAB>sentence``,
        a line has no tab, an empty group or sentence, a sentence repeats, or fewer than
        two groups are given.
    """
    path = Path(path)
    lines = read_lines(path)
    if tuple(cell.strip().lower() for cell in lines[0].split("\t")) != HEADER:
        raise CorpusError(f"expected the header 'group<TAB>sentence', found {lines[0][:80]!r}",
                          path, 1)
    texts: list[str] = []
    ids: list[str] = []
    group_names: list[str] = []
    group_index: list[int] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        group, sep, sentence = line.partition("\t")
        group, sentence = group.strip(), sentence.strip()
        if not sep or not group or not sentence:
            raise CorpusError("expected a group name, a tab and a sentence", path, number)
        if sentence in seen:
            raise CorpusError(f"sentence repeats line {seen[sentence]}", path, number)
        seen[sentence] = number
        if group not in group_names:
            group_names.append(group)
        texts.append(sentence)
        ids.append(f"L{number}")
        group_index.append(group_names.index(group))
    if len(group_names) < 2:
        raise CorpusError("a latent-relatedness probe needs at least two groups", path)
    groups = Grouping("group", np.arange(len(texts)), np.array(group_index), tuple(group_names))
    return Corpus(name=name or path.stem, texts=tuple(texts), ids=tuple(ids), groups=groups,
                  metadata={"line": tuple(int(i[1:]) for i in ids)}, sources=(str(path),))
