"""Property tests: corrupted slices of the real files give a corpus or a CorpusError.

Each format gets a small folder cut from its real files (so a load takes milliseconds);
every example restores it, applies one to three corruptions to one of its files (byte
flips, insertions, truncation, line deletion or duplication, a dropped column) and loads
it. Nothing but CorpusError may escape, and whatever loads must be internally consistent.
"""

import csv
import io
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus

EXAMPLES = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def head(path, n):
    """The first ``n`` lines of a file, as bytes ending in a newline."""
    return b"\n".join(path.read_bytes().split(b"\n")[:n]) + b"\n"


def build_msrp(data, folder):
    source = data / "msrp"
    train, test = (
        head(source / "msr_paraphrase_train.txt", 25),
        head(source / "msr_paraphrase_test.txt", 12),
    )
    ids = {
        field
        for line in (train + test).decode("utf-8-sig").split("\n")[1:]
        if line
        for field in line.split("\t")[1:3]
    }
    rows = (source / "msr_paraphrase_data.txt").read_bytes().split(b"\n")
    kept = [rows[0]] + [r for r in rows[1:] if r.split(b"\t")[0].decode() in ids]
    (folder / "msr_paraphrase_train.txt").write_bytes(train)
    (folder / "msr_paraphrase_test.txt").write_bytes(test)
    (folder / "msr_paraphrase_data.txt").write_bytes(b"\n".join(kept))
    return folder


def build_sick(data, folder):
    (folder / "SICK_trial.txt").write_bytes(head(data / "sick" / "SICK_trial.txt", 30))
    (folder / "SICK_train.txt").write_bytes(head(data / "sick" / "SICK_train.txt", 10))
    return folder


def build_sts(data, folder):
    for year, subset, n in (("STS2014-test", "deft-forum", 25), ("STS2015-test", "belief", 25)):
        (folder / year).mkdir()
        for kind in ("input", "gs"):
            name = f"STS.{kind}.{subset}.txt"
            (folder / year / name).write_bytes(head(data / "sts" / year / name, n))
    (folder / "STSBenchmark").mkdir()
    train = (data / "sts" / "STSBenchmark" / "sts-train.csv").read_bytes().split(b"\n")
    rows = train[:15] + [r for r in train if r.count(b"\t") == 8][:3]
    (folder / "STSBenchmark" / "sts-train.csv").write_bytes(b"\n".join(rows) + b"\n")
    return folder


def build_opinosis(data, folder):
    topics = data / "opinosis" / "topics"
    (folder / "topics").mkdir()
    for name in (
        "battery-life_amazon_kindle",
        "parking_bestwestern_hotel_sfo",
        "screen_ipod_nano_8gb",
    ):  # the first two need cp1252
        file = f"{name}.txt.data"
        (folder / "topics" / file).write_bytes(
            head(topics / file, 30 if "kindle" not in name else 80)
        )
    return folder


def build_senteval(data, folder):
    for name in ("custrev.pos", "custrev.neg"):
        lines = (data / "senteval-transfer" / "CR" / name).read_bytes().split(b"\n")
        (folder / name).write_bytes(b"\n".join(lines[:20] + [b""] + lines[20:30]) + b"\n")
    return folder


def build_trec(data, folder):
    trec = data / "senteval-transfer" / "TREC"
    (folder / "train_5500.label").write_bytes(head(trec / "train_5500.label", 70))
    (folder / "TREC_10.label").write_bytes(head(trec / "TREC_10.label", 20))
    return folder


def build_tables(data, folder):
    # A real SICK file read as a generic table (its column names are recognised)...
    (folder / "sick.tsv").write_bytes(head(data / "sick" / "SICK_trial.txt", 25))
    # ...real grouped sentences as CSV, and real STS pairs as JSON lines.
    white = data / "white2015-paraphrase-grouped" / "msrp_distribute"
    phrases = (white / "phrases.txt").read_text().split("\n")[:25]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["sentence", "group"])
    writer.writerows([text, i // 3] for i, text in enumerate(phrases))
    (folder / "groups.csv").write_text(out.getvalue())
    sts = data / "sts" / "STS2014-test"
    inputs = (sts / "STS.input.images.txt").read_text().split("\n")[:20]
    golds = (sts / "STS.gs.images.txt").read_text().split("\n")[:20]
    records = [
        {"sentence1": a, "sentence2": b, "score": float(g)}
        for (a, b), g in zip((line.split("\t") for line in inputs), golds)
    ]
    (folder / "pairs.jsonl").write_text("\n".join(map(json.dumps, records)) + "\n")
    return folder


def build_grouped(data, folder):
    source = data / "white2015-paraphrase-grouped" / "opinosis_distribute"
    (folder / "phrases.txt").write_bytes(head(source / "phrases.txt", 40))
    rows = (source / "phrase_groups.csv").read_text().split("\n")
    kept = [rows[0]] + [r for r in rows[1:] if r and int(r.split(",")[0]) < 40]
    (folder / "phrase_groups.csv").write_text("\n".join(kept) + "\n")
    return folder


BUILDERS = {
    "msrp": build_msrp,
    "sick": build_sick,
    "sts": build_sts,
    "opinosis": build_opinosis,
    "senteval": build_senteval,
    "trec": build_trec,
    "tables": build_tables,
    "grouped": build_grouped,
}


class Slice(tuple):
    """(format name, folder of the clean slice, its files' bytes by relative path), shown
    by name in failure reports."""

    def __repr__(self) -> str:
        return f"<{self[0]} slice in {self[1]}>"


@pytest.fixture(scope="module", params=sorted(BUILDERS))
def pristine(request, shared_data, tmp_path_factory):
    folder = BUILDERS[request.param](shared_data, tmp_path_factory.mktemp(request.param))
    files = {
        p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }
    return Slice((request.param, folder, files))


def corrupt(data: bytes, draw) -> bytes:
    """One corruption of ``data``, chosen by ``draw``."""
    kind = draw(
        st.sampled_from(
            ["flip", "insert", "truncate", "delete line", "duplicate line", "drop column"]
        )
    )
    if kind in ("flip", "insert", "truncate"):
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "truncate":
            return data[:at]
        byte = bytes([draw(st.integers(0, 255))])
        return data[:at] + byte + data[at + (kind == "flip") :]
    lines = data.split(b"\n")
    k = draw(st.integers(0, len(lines) - 1))
    if kind == "delete line":
        del lines[k]
    elif kind == "duplicate line":
        lines.insert(k, lines[k])
    else:
        separator = b"\t" if b"\t" in lines[k] else b","
        fields = lines[k].split(separator)
        del fields[draw(st.integers(0, len(fields) - 1))]
        lines[k] = separator.join(fields)
    return b"\n".join(lines)


def check_consistent(corpus: Corpus) -> None:
    n = len(corpus)
    assert n > 0 and len(corpus.ids) == n
    assert all(text.strip() for text in corpus.texts)
    if corpus.groups is not None:
        assert np.all((corpus.groups.sentence_index >= 0) & (corpus.groups.sentence_index < n))
        assert np.all(corpus.groups.group_index < corpus.groups.n_groups)
    if corpus.pairs is not None:
        for side in (corpus.pairs.first, corpus.pairs.second):
            assert np.all((side >= 0) & (side < n))


@EXAMPLES
@given(data=st.data())
def test_corrupted_files_give_a_corpus_or_a_corpus_error(pristine, data):
    name, folder, files = pristine
    for relative, content in files.items():
        (folder / relative).write_bytes(content)
    target = data.draw(st.sampled_from(sorted(files)), label="file")
    content = files[target]
    for _ in range(data.draw(st.integers(1, 3), label="corruptions")):
        content = corrupt(content, data.draw)
    (folder / target).write_bytes(content)
    path = folder / target if name == "tables" else folder
    try:
        corpus = load_corpus(path)
    except CorpusError as error:
        assert error.path is not None, f"{name}: {error} names no file"
        return
    check_consistent(corpus)


def test_the_pristine_slices_load(pristine):
    name, folder, files = pristine
    for relative, content in files.items():
        (folder / relative).write_bytes(content)
    paths = [folder / r for r in files] if name == "tables" else [folder]
    for path in paths:
        check_consistent(load_corpus(path))
