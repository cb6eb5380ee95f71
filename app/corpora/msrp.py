"""Microsoft Research Paraphrase Corpus (Dolan & Brockett 2005), as Microsoft distributes it.

``msr_paraphrase_{train,test}.txt``: UTF-8 with BOM, tab-separated, header
``Quality  #1 ID  #2 ID  #1 String  #2 String``, one pair a line; double quotes are
literal characters, so lines are split on tabs and never csv-unquoted.
``msr_paraphrase_data.txt`` (optional): ``Sentence ID  String  Author  URL  Agency  Date
Web Date``, one line per sentence. In the distributed files its 10,948 ids are exactly the
ids of the 5,801 pairs, with the same texts; the loader checks that every pair id is there
with the same text, and adds any further sentences to the pool.

Identical texts: four texts occur under two ids each (the same wire sentence in two
articles). By default each is **one** sentence (``merge_identical=True``: identical
sentences are one node of the paraphrase graph, and a ranking pool must not hold a copy of
a query that ties with it), so the corpus has 10,944 sentences and the positive pairs give
275 groups of >= 3 (862 sentences). With ``merge_identical=False`` sentences are kept by
id, which reproduces the 274 groups / 859 sentences of White et al. (2015) exactly.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora.build import (
    SentenceTable,
    first_line,
    pair_components,
    read_lines,
    require_text,
    split_fields,
)
from sentspace.app.corpora.model import Corpus, PairTable

TRAIN, TEST, DATA = (
    "msr_paraphrase_train.txt",
    "msr_paraphrase_test.txt",
    "msr_paraphrase_data.txt",
)
PAIR_HEADER = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String"
DATA_HEADER = "Sentence ID\tString\tAuthor\tURL\tAgency\tDate\tWeb Date"
DATA_COLUMNS = ("author", "url", "agency", "date", "web_date")


def is_msrp(path: Path) -> bool:
    """A folder holding the MSRP pair files, or a file with the MSRP pair header."""
    if path.is_dir():
        return (path / TRAIN).is_file() or (path / TEST).is_file()
    return first_line(path).strip() in (PAIR_HEADER, DATA_HEADER)


def _split_name(path: Path) -> str:
    name = path.name.lower()
    return "train" if "train" in name else "test" if "test" in name else path.stem


def _check_header(path: Path, lines: list[str], header: str) -> None:
    if lines[0].strip() != header:
        raise CorpusError(f"expected the MSRP header {header!r}, found {lines[0][:80]!r}", path, 1)


def load_msrp(
    path: str | Path,
    *,
    min_group_size: int = 3,
    merge_identical: bool = True,
    name: str | None = None,
) -> Corpus:
    """Load MSRP: its pairs, every distinct sentence, and paraphrase groups.

    Parameters
    ----------
    path : str or Path
        The MSRP folder (train, test and, when present, data file), the data file (which
        stands for its folder), or a single pair file (just those pairs).
    min_group_size : int
        Paraphrase groups (connected components of the positive pairs over all loaded
        splits) with fewer sentences are dropped.
    merge_identical : bool
        Whether identical texts under different ids are one sentence (see module notes).
    name : str, optional
        Display name (default "msrp").

    Returns
    -------
    Corpus
        ``pairs``: label = Quality (1 paraphrase, 0 not), score NaN, split "train"/"test",
        subset "MSRP". ``groups``: kind "paraphrase group". ``ids``: the MSRP sentence id
        (the first one seen for a merged text); metadata ``msrp_ids`` (all ids, space
        separated), ``split`` ("train", "test", "train+test", or "" for a sentence in no
        pair), ``source`` (file:line of the first occurrence) and, with the data file,
        author, url, agency, date and web_date.

    Raises
    ------
    CorpusError
        A file is missing, empty, binary or not UTF-8; a header is wrong; a line does not
        have 5 (pairs) or 7 (data) tab-separated columns; Quality is not 0 or 1; an id
        or sentence is empty; an id repeats in the data file, has two different texts,
        or (with the data file) is not in it.
    """
    path = Path(path)
    if path.is_dir() or path.name == DATA:
        folder = path if path.is_dir() else path.parent
        pair_files = [folder / f for f in (TRAIN, TEST) if (folder / f).is_file()]
        data_file = folder / DATA if (folder / DATA).is_file() else None
        if not pair_files:
            raise CorpusError(f"no MSRP pair file ({TRAIN} or {TEST})", folder)
    else:
        pair_files, data_file = [path], None

    columns = ("source",) + (DATA_COLUMNS if data_file else ())
    table = SentenceTable(columns)
    known: dict[str, tuple[str, Path, int]] = {}  # id -> text, file, line
    ids_of: dict[int, list[str]] = {}

    def add(sentence_id: str, text: str, file: Path, number: int, **metadata: str) -> int:
        if sentence_id in known and known[sentence_id][0] != text:
            _, first_file, first_number = known[sentence_id]
            raise CorpusError(
                f"sentence id {sentence_id} has another text than on "
                f"{first_file.name} line {first_number}",
                file,
                number,
            )
        known.setdefault(sentence_id, (text, file, number))
        index = table.add(
            text,
            sentence_id,
            key=text if merge_identical else sentence_id,
            source=f"{file.name}:{number}",
            **metadata,
        )
        ids = ids_of.setdefault(index, [])
        if sentence_id not in ids:
            ids.append(sentence_id)
        return index

    if data_file is not None:
        lines = read_lines(data_file)
        _check_header(data_file, lines, DATA_HEADER)
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            sentence_id, text, *extra = split_fields(
                data_file, number, line, 7, names=DATA_HEADER.replace("\t", ", ")
            )
            sentence_id = require_text(data_file, number, sentence_id, "sentence id")
            if sentence_id in known:
                raise CorpusError(
                    f"sentence id {sentence_id} repeats line {known[sentence_id][2]}",
                    data_file,
                    number,
                )
            add(
                sentence_id,
                require_text(data_file, number, text),
                data_file,
                number,
                **dict(zip(DATA_COLUMNS, extra)),
            )

    first, second, label, split = [], [], [], []
    for pair_file in pair_files:
        lines = read_lines(pair_file)
        _check_header(pair_file, lines, PAIR_HEADER)
        split_name = _split_name(pair_file)
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            quality, id1, id2, text1, text2 = split_fields(
                pair_file, number, line, 5, names=PAIR_HEADER.replace("\t", ", ")
            )
            if quality.strip() not in ("0", "1"):
                raise CorpusError(
                    f"Quality must be 0 or 1, found {quality[:40]!r}", pair_file, number
                )
            indices = []
            for sentence_id, text in ((id1, text1), (id2, text2)):
                sentence_id = require_text(pair_file, number, sentence_id, "sentence id")
                if data_file is not None and sentence_id not in known:
                    raise CorpusError(
                        f"sentence id {sentence_id} is not in {DATA}", pair_file, number
                    )
                indices.append(
                    add(sentence_id, require_text(pair_file, number, text), pair_file, number)
                )
            first.append(indices[0])
            second.append(indices[1])
            label.append(int(quality))
            split.append(split_name)
    if not first:
        raise CorpusError("no pairs after the header", pair_files[0])

    first_a, second_a, label_a = np.asarray(first), np.asarray(second), np.asarray(label)
    positive = label_a == 1
    groups = pair_components(
        len(table), first_a[positive], second_a[positive], min_size=min_group_size
    )
    split_names = [_split_name(f) for f in pair_files]
    splits_of: list[set[str]] = [set() for _ in range(len(table))]
    for a, b, s in zip(first, second, split):
        splits_of[a].add(s)
        splits_of[b].add(s)
    merged = {index: ids for index, ids in ids_of.items() if len(ids) > 1}
    warnings = (
        [
            f"{len(merged)} texts occur under several ids and are one sentence each: "
            + ", ".join(" = ".join(ids) for ids in merged.values())
        ]
        if merged
        else []
    )
    return table.corpus(
        name or "msrp",
        sources=[*pair_files, *([data_file] if data_file else [])],
        warnings=warnings,
        groups=groups,
        pairs=PairTable(
            first=first_a,
            second=second_a,
            label=label_a,
            score=np.full(len(first), np.nan),
            split=tuple(split),
            subset=("MSRP",) * len(first),
        ),
        metadata={
            "msrp_ids": [" ".join(ids_of[i]) for i in range(len(table))],
            "split": ["+".join(s for s in split_names if s in splits) for splits in splits_of],
        },
    )
