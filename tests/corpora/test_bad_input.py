"""Each reader answers hostile input with one CorpusError naming file, line and problem."""

import pytest

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.build import MAX_LINE_CHARS

PNG = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10"


def copy_files(source, target, *names, lines=None):
    target.mkdir(parents=True, exist_ok=True)
    for name in names:
        data = (source / name).read_bytes()
        if lines:
            data = b"\n".join(data.split(b"\n")[:lines]) + b"\n"
        (target / name).write_bytes(data)
    return target


@pytest.fixture
def corpora(shared_data, tmp_path):
    """Small writable copies of each format, by name: (folder, the file to damage)."""
    data = shared_data
    return {
        "msrp": copy_files(data / "msrp", tmp_path / "msrp", "msr_paraphrase_train.txt", lines=30)
        / "msr_paraphrase_train.txt",
        "sick": copy_files(data / "sick", tmp_path / "sick", "SICK_trial.txt", lines=30)
        / "SICK_trial.txt",
        "sts": copy_files(
            data / "sts" / "STS2014-test",
            tmp_path / "STS2014-test",
            "STS.input.images.txt",
            "STS.gs.images.txt",
        )
        / "STS.input.images.txt",
        "opinosis": copy_files(
            data / "opinosis" / "topics", tmp_path / "opinosis", "speed_windows7.txt.data"
        )
        / "speed_windows7.txt.data",
        "senteval": copy_files(
            data / "senteval-transfer" / "MR",
            tmp_path / "MR",
            "rt-polarity.pos",
            "rt-polarity.neg",
            lines=50,
        )
        / "rt-polarity.pos",
        "table": copy_files(data / "latent-relatedness", tmp_path / "latent", "soup.tsv")
        / "soup.tsv",
    }


FORMATS = ["msrp", "sick", "sts", "opinosis", "senteval", "table"]


def load_error(path):
    with pytest.raises(CorpusError) as caught:
        load_corpus(path if path.suffix == ".tsv" else path.parent)
    return caught.value


@pytest.mark.parametrize("name", FORMATS)
def test_fifty_megabyte_line(corpora, name):
    path = corpora[name]
    lines = path.read_bytes().split(b"\n")
    lines[2] = b"x" * 50_000_000
    path.write_bytes(b"\n".join(lines))
    error = load_error(path)
    assert error.path == path and error.line == 3
    assert f"line of 50,000,000 characters (limit {MAX_LINE_CHARS:,})" in error.problem


@pytest.mark.parametrize("name", FORMATS)
def test_binary_file(corpora, name):
    path = corpora[name]
    path.write_bytes(PNG)
    error = load_error(path)
    assert error.path == path and "binary data" in error.problem and error.line == 3


@pytest.mark.parametrize("name", FORMATS)
def test_empty_file(corpora, name):
    path = corpora[name]
    path.write_bytes(b"\xef\xbb\xbf\n \n")
    error = load_error(path)
    assert error.path == path and error.problem == "file is empty"


@pytest.mark.parametrize("name", ["msrp", "sick", "sts", "table"])
def test_line_missing_a_column(corpora, name):
    path = corpora[name]
    lines = path.read_text(encoding="utf-8-sig").split("\n")
    lines[3] = lines[3].split("\t")[0]
    path.write_text("\n".join(lines), encoding="utf-8")
    error = load_error(path)
    assert error.path == path and error.line == 4 and "column" in error.problem


@pytest.mark.parametrize("name", ["msrp", "sick", "sts"])
def test_bad_utf8_is_not_guessed_in_utf8_formats(corpora, name):
    path = corpora[name]
    lines = path.read_bytes().split(b"\n")
    lines[4] += b" caf\xe9"
    path.write_bytes(b"\n".join(lines))
    error = load_error(path)
    assert error.line == 5 and "not valid UTF-8 (byte 0xe9)" in error.problem


def test_truncated_msrp_last_line(corpora):
    path = corpora["msrp"]
    data = path.read_bytes()
    path.write_bytes(data[: data.rindex(b"\t") - 5])
    error = load_error(path)
    assert error.line == 30 and "found 4" in error.problem


def test_folder_of_something_else(tmp_path):
    (tmp_path / "notes.md").write_text("hello")
    with pytest.raises(CorpusError, match="unrecognised corpus format"):
        load_corpus(tmp_path)


def test_missing_path_names_builtin_corpora(tmp_path):
    with pytest.raises(CorpusError, match="not a built-in corpus"):
        load_corpus(tmp_path / "nope")
