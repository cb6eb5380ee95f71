"""SICK (Marelli et al. 2014), the SemEval-2014 Task 1 release files.

``SICK_train.txt``, ``SICK_trial.txt``, ``SICK_test_annotated.txt``: UTF-8, tab-separated,
header ``pair_ID  sentence_A  sentence_B  relatedness_score  entailment_judgment``.
Columns are found by name, so the full ``SICK.txt`` (12 columns, split in ``SemEval_set``)
loads too. Sentences carry no ids of their own: a sentence's id is the pair and side where
it first occurs (``"12A"``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora.build import (
    SentenceTable,
    first_line,
    parse_float,
    read_lines,
    require_text,
)
from sentspace.app.corpora.model import Corpus, PairTable

FILES = {"SICK_train.txt": "train", "SICK_trial.txt": "trial", "SICK_test_annotated.txt": "test"}
REQUIRED = ("pair_ID", "sentence_A", "sentence_B", "relatedness_score", "entailment_judgment")
SPLIT_COLUMN = "SemEval_set"
#: Entailment classes in SentEval's order, so label indices match its SICK-E task.
ENTAILMENT_CLASSES = ("CONTRADICTION", "NEUTRAL", "ENTAILMENT")


def is_sick(path: Path) -> bool:
    """A folder holding SICK release files, or a file with the SICK header."""
    if path.is_dir():
        return any((path / name).is_file() for name in FILES)
    header = first_line(path).split("\t")
    return all(column in header for column in REQUIRED)


def _split_of(path: Path) -> str:
    return FILES.get(path.name, path.stem)


def load_sick(path: str | Path, name: str | None = None) -> Corpus:
    """Load SICK pairs from a folder of release files or from one file.

    Returns
    -------
    Corpus
        ``pairs``: score = relatedness (1-5), label = index into ``ENTAILMENT_CLASSES``
        (also ``pairs.label_names``), split "train" / "trial" / "test" (or the
        ``SemEval_set`` column lowercased), subset "SICK". Metadata ``source``: file:line
        of each sentence's first occurrence.

    Raises
    ------
    CorpusError
        A file is missing, empty, binary or not UTF-8; a required column is missing; a
        line has the wrong number of columns, an empty sentence, a relatedness that is
        not a number in 1-5, or an unknown entailment judgment; a pair_ID repeats.
    """
    path = Path(path)
    if path.is_dir():
        files = [path / f for f in FILES if (path / f).is_file()]
        if not files:
            raise CorpusError(f"no SICK file ({', '.join(FILES)})", path)
    else:
        files = [path]

    table = SentenceTable(("source",))
    first, second, label, score, split, pair_ids = [], [], [], [], [], []
    seen_pairs: dict[str, tuple[str, int]] = {}
    for file in files:
        lines = read_lines(file)
        header = lines[0].split("\t")
        missing = [column for column in REQUIRED if column not in header]
        if missing:
            raise CorpusError(f"not a SICK header: missing column(s) {', '.join(missing)}", file, 1)
        pair_id_at, a_at, b_at, score_at, label_at = (header.index(c) for c in REQUIRED)
        split_at = header.index(SPLIT_COLUMN) if SPLIT_COLUMN in header else None
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            fields = line.split("\t")
            if len(fields) != len(header):
                raise CorpusError(
                    f"expected {len(header)} tab-separated columns like the "
                    f"header, found {len(fields)}",
                    file,
                    number,
                )
            pair_id = require_text(file, number, fields[pair_id_at], "pair_ID")
            if pair_id in seen_pairs:
                where = seen_pairs[pair_id]
                raise CorpusError(
                    f"pair_ID {pair_id} repeats {where[0]} line {where[1]}", file, number
                )
            seen_pairs[pair_id] = (file.name, number)
            pair_ids.append(pair_id)
            judgment = fields[label_at].strip().upper()
            if judgment not in ENTAILMENT_CLASSES:
                raise CorpusError(
                    f"entailment_judgment must be one of "
                    f"{', '.join(ENTAILMENT_CLASSES)}, found "
                    f"{fields[label_at][:40]!r}",
                    file,
                    number,
                )
            source = f"{file.name}:{number}"
            first.append(
                table.add(require_text(file, number, fields[a_at]), f"{pair_id}A", source=source)
            )
            second.append(
                table.add(require_text(file, number, fields[b_at]), f"{pair_id}B", source=source)
            )
            score.append(parse_float(file, number, fields[score_at], "relatedness_score", 1.0, 5.0))
            label.append(ENTAILMENT_CLASSES.index(judgment))
            split.append(
                _split_of(file)
                if split_at is None
                else require_text(file, number, fields[split_at], SPLIT_COLUMN).lower()
            )
    if not first:
        raise CorpusError("no pairs after the header", files[0])
    return table.corpus(
        name or "sick",
        sources=files,
        pairs=PairTable(
            first=np.asarray(first),
            second=np.asarray(second),
            label=np.asarray(label),
            score=np.asarray(score),
            split=tuple(split),
            subset=("SICK",) * len(first),
            label_names=ENTAILMENT_CLASSES,
            ids=tuple(pair_ids),
        ),
    )
