"""A file of UTF-8 lines with a few in cp1252 (a line pasted from an old spreadsheet) is
decoded line by line: the UTF-8 lines stay as written and the warning names every line
that was read as cp1252. Whole-file decoding used to turn every UTF-8 line into mojibake
("Der BÃ¤r schlÃ¤ft.")."""

import csv
import gzip

import pytest

from sentspace.app.corpora import load_corpus


@pytest.fixture(scope="module")
def german(shared_data):
    """Multi30K's full German validation captions (1,014 lines, umlauts and ß)."""
    path = shared_data / "multi30k" / "task1" / "raw" / "val.de.gz"
    return gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()


#: Lines (0-based) written in cp1252, as an old tool would; each has a non-ASCII letter.
LEGACY = (4, 250, 1013)


def mixed_bytes(lines, legacy, prefix=b"", quote=False):
    rows = [f'"{line}"' if quote else line for line in lines]
    return (
        prefix
        + b"\n".join(
            row.encode("cp1252") if number in legacy else row.encode("utf-8")
            for number, row in enumerate(rows)
        )
        + b"\n"
    )


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".tsv"])
def test_one_legacy_line_leaves_the_utf8_lines_as_written(german, tmp_path, suffix):
    legacy = [n for n in LEGACY if not german[n].isascii()]
    assert legacy, "the chosen lines hold umlauts"
    header = b"" if suffix == ".txt" else b"text\n"
    path = tmp_path / f"captions{suffix}"
    path.write_bytes(mixed_bytes(german, legacy, header, quote=suffix == ".csv"))
    corpus = load_corpus(path)
    first = 2 if header else 1  # the file line of german[0]
    texts = set(corpus.texts)
    assert set(german) == texts  # cp1252 lines read back as well, nothing garbled
    assert not any("Ã" in text for text in texts)
    lines = ", ".join(str(n + first) for n in legacy)
    assert corpus.warnings == (f"{path.name}: not UTF-8, read as cp1252 (lines {lines})",)


def test_every_legacy_line_is_named(german, tmp_path):
    legacy = [n for n, line in enumerate(german) if not line.isascii()][:30]
    path = tmp_path / "captions.txt"
    path.write_bytes(mixed_bytes(german, legacy))
    corpus = load_corpus(path)
    assert set(corpus.texts) == set(german)
    [warning] = corpus.warnings
    named = ", ".join(str(n + 1) for n in legacy[:20])
    assert warning == (f"{path.name}: not UTF-8, read as cp1252 (lines {named}... (30 in all))")


def test_a_table_of_pairs_keeps_its_utf8_rows(german, tmp_path):
    path = tmp_path / "pairs.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sentence1", "sentence2", "score"])
        for first, second in zip(german[0:400:2], german[1:400:2]):
            writer.writerow([first, second, "3.0"])
    rows = path.read_bytes().split(b"\n")
    number = next(n for n, row in enumerate(rows[1:], start=1) if not row.decode("utf-8").isascii())
    rows[number] = rows[number].decode("utf-8").encode("cp1252")
    path.write_bytes(b"\n".join(rows))
    corpus = load_corpus(path)
    assert set(corpus.texts) == set(german[0:400])
    assert corpus.warnings == (f"pairs.csv: not UTF-8, read as cp1252 (line {number + 1})",)


def test_a_utf8_line_that_is_no_cp1252_does_not_sink_the_file(shared_data, tmp_path):
    """Multi30K's full German training captions with one line in cp1252: whole-file
    fallback refused all 29,000 lines, since a UTF-8 line holds a byte cp1252 lacks."""
    path = shared_data / "multi30k" / "task1" / "raw" / "train.de.gz"
    lines = gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    assert any("\x9d" in line.encode("utf-8").decode("latin-1") for line in lines)
    legacy = next(n for n, line in enumerate(lines) if not line.isascii())
    text = tmp_path / "train.de.txt"
    text.write_bytes(mixed_bytes(lines, {legacy}))
    corpus = load_corpus(text)
    assert set(corpus.texts) == {line.strip() for line in lines} - {""}
    assert corpus.warnings == (f"train.de.txt: not UTF-8, read as cp1252 (line {legacy + 1})",)
