import json

import numpy as np
import pytest

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.tabular import ColumnMapping, load_tabular


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_plain_text_one_sentence_a_line(tmp_path):
    corpus = load_corpus(write(tmp_path / "mine.txt", "Text\nA cat.\n\nA cat.\nA dog.\n"))
    assert corpus.texts == ("Text", "A cat.", "A dog.")  # no header in plain text
    assert corpus.ids == ("L1", "L2", "L5")
    assert corpus.groups is None and corpus.pairs is None


def test_csv_sentence_and_group_with_quotes(tmp_path):
    path = write(
        tmp_path / "groups.csv",
        'Sentence,Group\n"Hello, world",a\n"He said ""hi""",b\nBye,a\nBye,b\n',
    )
    corpus = load_corpus(path)
    assert corpus.texts == ("Hello, world", 'He said "hi"', "Bye")
    groups = corpus.groups
    assert groups.kind == "group" and groups.names == ("a", "b")
    assert groups.sentence_index.tolist() == [0, 1, 2, 2]
    assert groups.group_index.tolist() == [0, 1, 0, 1]


def test_tsv_pairs_with_literal_quotes_score_and_text_labels(tmp_path):
    path = write(
        tmp_path / "pairs.tsv",
        "sentence1\tsentence2\tscore\tlabel\tsplit\n"
        '"A cat\tA dog\t3.5\tyes\ttrain\n'
        "B\tC\t\tno\ttest\nB\tA dog\t1\t\ttest\n",
    )
    pairs = load_corpus(path).pairs
    assert pairs.label.tolist() == [0, 1, -1] and pairs.label_names == ("yes", "no")
    assert np.allclose(pairs.score, [3.5, np.nan, 1.0], equal_nan=True)
    assert pairs.split == ("train", "test", "test") and pairs.subset == ("pairs",) * 3


def test_jsonl_with_integer_labels(tmp_path):
    lines = [{"text": "one", "label": 1}, {"text": "two", "label": 0, "note": None}]
    corpus = load_corpus(write(tmp_path / "s.jsonl", "\n".join(map(json.dumps, lines))))
    assert corpus.groups.kind == "class" and corpus.groups.names == ("1", "0")


def test_explicit_mapping_by_name_and_index(tmp_path):
    path = write(tmp_path / "odd.tsv", "a\tb\tc\nx y\tz w\t4\n")
    with pytest.raises(CorpusError, match=r"cannot tell which column holds the sentences"):
        load_tabular(path)
    corpus = load_tabular(path, ColumnMapping(sentence1="a", sentence2=1, score="c"))
    assert corpus.texts == ("x y", "z w") and corpus.pairs.score.tolist() == [4.0]
    headless = load_tabular(path, ColumnMapping(text=0, header=False))
    assert headless.texts == ("a", "x y")
    with pytest.raises(CorpusError, match=r"no column named 'nope' for group"):
        load_tabular(path, ColumnMapping(text="a", group="nope"))
    with pytest.raises(CorpusError, match=r"text column 7 does not exist"):
        load_tabular(path, ColumnMapping(text=7))


@pytest.mark.parametrize(
    "name, content, fragments",
    [
        ("short.csv", "text,group\na,1\nb\n", ["line 3", "expected 2 columns", "found 1"]),
        ("empty.csv", "", ["file is empty"]),
        ("blank.tsv", "\n\n  \n", ["file is empty"]),
        ("nul.tsv", "text\nab\0c\n", ["line 2", "binary data"]),
        ("quote.csv", 'text\n"never closed\n', ["malformed CSV"]),
        ("bad.jsonl", '{"text": "a"}\n{"text": \n', ["line 2", "not JSON"]),
        ("list.jsonl", '["a"]\n', ["line 1", "expected a JSON object"]),
        ("score.tsv", "sentence1\tsentence2\tscore\na\tb\tnan\n", ["line 2", "not a finite"]),
        ("empty_text.csv", "text,label\n,1\n", ["line 2", "empty text"]),
        ("ids.csv", "id,text\n1,a\n1,b\n", ["line 3", "id '1' has another text than on line 2"]),
    ],
)
def test_bad_tables_name_file_line_and_problem(tmp_path, name, content, fragments):
    path = tmp_path / name
    path.write_bytes(content.encode())
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    message = str(caught.value)
    assert message.startswith(str(path))
    for fragment in fragments:
        assert fragment in message, message


def test_cp1252_fallback_is_reported(tmp_path):
    path = tmp_path / "old.txt"
    path.write_bytes("caf\u00e9 au lait\nplain\nna\u00efve\n".encode("cp1252"))
    corpus = load_corpus(path)
    assert corpus.texts[0] == "caf\u00e9 au lait"
    assert corpus.warnings == ("old.txt: not UTF-8, read as cp1252 (lines 1, 3)",)
