"""SemEval STS 2012-2016 test sets and the STS Benchmark, as distributed.

Year folders (``STS2014-test/``...) hold ``STS.input.<subset>.txt`` (``sentence1<TAB>
sentence2``, in 2016 two source-note columns after them, named
``STS2016.input.<subset>.txt``) and ``STS.gs.<subset>.txt`` (one gold score 0-5 a line, in
the same order; an empty gold line means the pair was not scored and it is skipped). A gold
file without an input (2013 SMT, not redistributable; 2012 ``ALL``) is skipped with a
warning. The STS Benchmark folder holds ``sts-{train,dev,test}.csv``: tab-separated genre,
file, years, id, score, sentence1, sentence2, and on a few rows two source columns more,
which are ignored. Quotes are literal in all of them.

Loading the ``sts/`` folder reads every year folder and the benchmark into one corpus:
``pairs.subset`` is ``"<year>/<subset>"`` ("2014/deft-forum") or ``"STSBenchmark"``,
``pairs.split`` is "test" for the yearly sets and train/dev/test for the benchmark.
Sentences carry no ids: a sentence's id is where it first occurs
(``"2014/deft-forum:12:1"``, file line and side).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora.build import (
    SentenceTable,
    parse_float,
    read_lines,
    require_text,
    split_fields,
)
from sentspace.app.corpora.model import Corpus, PairTable

_INPUT = re.compile(r"^STS(?:\d{4})?\.input\.(?P<subset>.+)\.txt$")
_GOLD = re.compile(r"^STS(?:\d{4})?\.gs\.(?P<subset>.+)\.txt$")
_YEAR = re.compile(r"(?:19|20)\d\d")
BENCHMARK_FILES = {"sts-train.csv": "train", "sts-dev.csv": "dev", "sts-test.csv": "test"}
BENCHMARK_COLUMNS = "genre, file, years, id, score, sentence1, sentence2"
BENCHMARK = "STSBenchmark"
#: Gold files that are concatenations of the others, not subsets of their own.
AGGREGATE_SUBSETS = {"ALL"}


def _subset(input_file: Path) -> str:
    """The subset an input file of a year holds ("MSRpar" of STS.input.MSRpar.txt)."""
    match = _INPUT.match(input_file.name)
    assert match is not None, f"{input_file.name} is not an STS input file"
    return match["subset"]


def _year_inputs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if _INPUT.match(p.name) and p.is_file())


def _benchmark_files(folder: Path) -> list[Path]:
    return [folder / f for f in BENCHMARK_FILES if (folder / f).is_file()]


def _parts(path: Path) -> list[Path]:
    """Year folders and benchmark folders under ``path`` (itself, or its children)."""
    if _year_inputs(path) or _benchmark_files(path):
        return [path]
    return sorted(
        child
        for child in path.iterdir()
        if child.is_dir() and (_year_inputs(child) or _benchmark_files(child))
    )


def is_sts(path: Path) -> bool:
    """An STS year or benchmark folder, a folder of them, or one STS input / benchmark file."""
    if path.is_dir():
        return bool(_parts(path))
    return bool(_INPUT.match(path.name)) or path.name in BENCHMARK_FILES


class _Reader:
    """Accumulates pairs from several STS files into one sentence table."""

    def __init__(self) -> None:
        self.table = SentenceTable(("source",))
        self.first: list[int] = []
        self.second: list[int] = []
        self.score: list[float] = []
        self.split: list[str] = []
        self.subset: list[str] = []
        self.sources: list[Path] = []
        self.warnings: list[str] = []
        self.unscored: dict[str, int] = {}

    def pair(
        self, file: Path, number: int, text1: str, text2: str, score: float, split: str, subset: str
    ) -> None:
        source = f"{subset}:{number}"
        self.first.append(
            self.table.add(
                require_text(file, number, text1, "sentence 1"),
                f"{source}:1",
                source=f"{file.name}:{number}",
            )
        )
        self.second.append(
            self.table.add(
                require_text(file, number, text2, "sentence 2"),
                f"{source}:2",
                source=f"{file.name}:{number}",
            )
        )
        self.score.append(score)
        self.split.append(split)
        self.subset.append(subset)

    def year_subset(self, input_file: Path, prefix: str, gold_required: bool = False) -> None:
        subset = _subset(input_file)
        gold_file = input_file.with_name(input_file.name.replace(".input.", ".gs.", 1))
        if not gold_file.is_file():
            if gold_required:
                raise CorpusError(f"no gold file {gold_file.name} beside it", input_file)
            self.warnings.append(
                f"{input_file.name}: no gold file {gold_file.name}; its pairs are skipped"
            )
            return
        inputs, golds = read_lines(input_file), read_lines(gold_file)
        if len(golds) != len(inputs):
            shorter = gold_file if len(golds) < len(inputs) else input_file
            raise CorpusError(
                f"{gold_file.name} has {len(golds)} lines but "
                f"{input_file.name} has {len(inputs)}: one of them is "
                "truncated or has extra lines",
                shorter,
                min(len(golds), len(inputs)) + 1,
            )
        name = f"{prefix}{subset}"
        unscored = 0
        for number, (line, gold) in enumerate(zip(inputs, golds), start=1):
            if not gold.strip():
                unscored += 1
                continue
            text1, text2 = split_fields(
                input_file, number, line, 2, at_least=True, names="sentence1, sentence2"
            )
            score = parse_float(gold_file, number, gold, "gold score", 0.0, 5.0)
            self.pair(input_file, number, text1, text2, score, "test", name)
        if unscored:
            self.unscored[name] = unscored
        self.sources += [input_file, gold_file]

    def year_folder(self, folder: Path, prefix: str) -> None:
        for input_file in _year_inputs(folder):
            self.year_subset(input_file, prefix)
        inputs = {_subset(p) for p in _year_inputs(folder)}
        for gold_file in sorted(folder.iterdir()):
            match = _GOLD.match(gold_file.name)
            if match and match["subset"] not in inputs | AGGREGATE_SUBSETS:
                self.warnings.append(
                    f"{folder.name}/{gold_file.name}: gold scores without an input file; skipped"
                )

    def benchmark(self, file: Path) -> None:
        split = BENCHMARK_FILES.get(file.name, file.stem)
        for number, line in enumerate(read_lines(file), start=1):
            if not line.strip():
                continue
            *_, score, text1, text2 = split_fields(
                file, number, line, 7, at_least=True, names=BENCHMARK_COLUMNS
            )
            self.pair(
                file,
                number,
                text1,
                text2,
                parse_float(file, number, score, "score", 0.0, 5.0),
                split,
                BENCHMARK,
            )
        self.sources.append(file)


def _prefix(folder: Path) -> str:
    year = _YEAR.search(folder.name)
    return f"{year.group()}/" if year else ""


def load_sts(path: str | Path, name: str | None = None) -> Corpus:
    """Load STS pairs from the ``sts/`` folder, one year or benchmark folder, or one file.

    Returns
    -------
    Corpus
        ``pairs``: score = gold similarity 0-5, label -1, split and subset as in the module
        notes. Metadata ``source``: file:line of each sentence's first occurrence.
        ``warnings`` says how many unscored pairs each subset skipped and which gold
        files had no input.

    Raises
    ------
    CorpusError
        A file is missing, empty, binary or not UTF-8; an input and its gold file differ
        in length; a line has too few columns, an empty sentence, or a score that is not
        a number in 0-5.
    """
    path = Path(path)
    reader = _Reader()
    if path.is_dir():
        parts = _parts(path)
        if not parts:
            raise CorpusError(
                "no STS input files (STS.input.*.txt) or STS Benchmark csv "
                "files here or in the folders below",
                path,
            )
        for part in parts:
            for file in _benchmark_files(part):
                reader.benchmark(file)
            reader.year_folder(part, _prefix(part))
    elif path.name in BENCHMARK_FILES or path.suffix == ".csv":
        reader.benchmark(path)
    elif _INPUT.match(path.name):
        reader.year_subset(path, _prefix(path.parent), gold_required=True)
    else:
        raise CorpusError(
            "not an STS file: expected STS.input.<subset>.txt or sts-<split>.csv", path
        )
    if not reader.first:
        raise CorpusError("no scored STS pairs", path)
    if reader.unscored:
        reader.warnings.insert(
            0,
            "skipped pairs with an empty gold line (unscored): "
            + ", ".join(f"{subset} {count}" for subset, count in reader.unscored.items()),
        )
    n = len(reader.first)
    return reader.table.corpus(
        name or (path.name if path.is_dir() else path.stem),
        sources=reader.sources,
        warnings=reader.warnings,
        pairs=PairTable(
            first=np.asarray(reader.first),
            second=np.asarray(reader.second),
            label=np.full(n, -1),
            score=np.asarray(reader.score),
            split=tuple(reader.split),
            subset=tuple(reader.subset),
        ),
    )
