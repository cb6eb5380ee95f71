"""Small real pair corpora read straight from ../shared/data, independent of the readers
under test elsewhere, so the evaluations can be checked on real sentences."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from sentspace.app.corpora.model import Corpus, Grouping, PairTable

ENTAILMENT = ("NEUTRAL", "ENTAILMENT", "CONTRADICTION")


def _corpus(name: str, rows: list[tuple[str, str, str, str, int, float, str, str]]) -> Corpus:
    """rows: (id1, text1, id2, text2, label, score, split, subset); equal ids are one
    sentence."""
    index: dict[str, int] = {}
    texts: list[str] = []
    ids: list[str] = []

    def sentence(sid: str, text: str) -> int:
        if sid not in index:
            index[sid] = len(texts)
            texts.append(text)
            ids.append(sid)
        return index[sid]

    first, second, label, score, split, subset = [], [], [], [], [], []
    for id1, text1, id2, text2, lab, sc, sp, sub in rows:
        first.append(sentence(id1, text1))
        second.append(sentence(id2, text2))
        label.append(lab)
        score.append(sc)
        split.append(sp)
        subset.append(sub)
    return Corpus(
        name=name,
        texts=tuple(texts),
        ids=tuple(ids),
        pairs=PairTable(
            np.array(first),
            np.array(second),
            np.array(label),
            np.array(score),
            tuple(split),
            tuple(subset),
        ),
    )


def sick(
    shared_data: Path,
    n_per_file: int | None = None,
    files: tuple[str, ...] = ("train", "trial", "test_annotated"),
) -> Corpus:
    """SICK pairs (label = entailment class index in ENTAILMENT, score = relatedness);
    sentences are identified by their text."""
    rows = []
    for part in files:
        with open(shared_data / "sick" / f"SICK_{part}.txt", encoding="utf-8") as handle:
            reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            next(reader)
            for k, row in enumerate(reader):
                if n_per_file is not None and k >= n_per_file:
                    break
                rows.append(
                    (
                        row[1],
                        row[1],
                        row[2],
                        row[2],
                        ENTAILMENT.index(row[4]),
                        float(row[3]),
                        part.removesuffix("_annotated"),
                        "SICK",
                    )
                )
    return _corpus("sick", rows)


def msrp(shared_data: Path, n_per_file: int | None = None) -> Corpus:
    """MSRP train+test pairs (label 1/0, no score), sentences identified by MSRP id."""
    rows = []
    for part in ("train", "test"):
        path = shared_data / "msrp" / f"msr_paraphrase_{part}.txt"
        with open(path, encoding="utf-8-sig") as handle:
            reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            next(reader)
            for k, row in enumerate(reader):
                if n_per_file is not None and k >= n_per_file:
                    break
                rows.append((row[1], row[3], row[2], row[4], int(row[0]), np.nan, part, "MSRP"))
    return _corpus("msrp", rows)


def sts2016(shared_data: Path) -> Corpus:
    """STS 2016 test pairs with per-subset names; empty gold lines give NaN scores."""
    folder = shared_data / "sts" / "STS2016-test"
    rows = []
    for gold_path in sorted(folder.glob("STS2016.gs.*.txt")):
        name = gold_path.name.removeprefix("STS2016.gs.").removesuffix(".txt")
        inputs = (folder / f"STS2016.input.{name}.txt").read_text(encoding="utf-8")
        golds = gold_path.read_text(encoding="utf-8").split("\n")
        for k, line in enumerate(inputs.rstrip("\n").split("\n")):
            a, b = line.split("\t")[:2]
            gold = golds[k].strip() if k < len(golds) else ""
            rows.append((a, a, b, b, -1, float(gold) if gold else np.nan, "test", name))
    return _corpus("sts2016", rows)


def senteval(shared_data: Path, task: str, limit: int | None = None) -> Corpus:
    """A SentEval sentence task as a corpus with a Grouping of kind "class": CR/MR/SUBJ/
    MPQA (two files, no split; the first ``limit`` lines of each) or TREC (coarse label,
    sentence metadata "split")."""
    folder = shared_data / "senteval-transfer" / task
    files = {
        "CR": ("custrev.neg", "custrev.pos"),
        "MR": ("rt-polarity.neg", "rt-polarity.pos"),
        "SUBJ": ("subj.objective", "subj.subjective"),
        "MPQA": ("mpqa.neg", "mpqa.pos"),
    }
    texts, ids, label, split = [], [], [], []
    if task == "TREC":
        names: list[str] = []
        for part, name in (("train", "train_5500.label"), ("test", "TREC_10.label")):
            lines = (folder / name).read_text(encoding="latin-1").splitlines()
            for k, line in enumerate(lines[:limit]):
                coarse, text = line.split(" ", 1)
                coarse = coarse.split(":")[0]
                if coarse not in names:
                    names.append(coarse)
                texts.append(text)
                ids.append(f"{part}:{k + 1}")
                label.append(names.index(coarse))
                split.append(part)
        metadata = {"split": tuple(split)}
    else:
        names = ["neg", "pos"] if task != "SUBJ" else ["objective", "subjective"]
        for cls, name in enumerate(files[task]):
            lines = (folder / name).read_text(encoding="utf-8", errors="replace").splitlines()
            for k, line in enumerate(lines[:limit]):
                if line.strip():
                    texts.append(line)
                    ids.append(f"{name}:{k + 1}")
                    label.append(cls)
        metadata = {}
    groups = Grouping("class", np.arange(len(texts)), np.array(label), tuple(names))
    return Corpus(
        name=task.lower(), texts=tuple(texts), ids=tuple(ids), groups=groups, metadata=metadata
    )
