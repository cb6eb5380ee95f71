import json

import numpy as np
from scipy.sparse import csr_array

from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus, Grouping, PairTable
from sentspace.app.corpora.stats import corpus_stats, word_overlap


def test_word_overlap_is_jaccard_of_word_sets():
    words = csr_array(np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0]], dtype=np.float32))
    overlap = word_overlap(words, np.array([0, 0, 2]), np.array([1, 0, 2]))
    assert np.allclose(overlap, [1 / 3, 1.0, 0.0])


def test_small_corpus_stats():
    corpus = Corpus(
        name="toy",
        texts=("A cat sat.", "A cat sat!", "Dogs bark", "Cats sleep"),
        ids=("a", "b", "c", "d"),
        groups=Grouping("class", np.array([0, 1, 2, 3, 3]), np.array([0, 0, 1, 1, 0]), ("x", "y")),
        pairs=PairTable(
            first=np.array([0, 2]),
            second=np.array([1, 3]),
            label=np.array([1, 0]),
            score=np.full(2, np.nan),
            split=("train", "test"),
            subset=("s", "s"),
        ),
    )
    stats = corpus_stats(corpus)
    assert stats.group_sizes.tolist() == [3, 2] and stats.n_grouped_sentences == 4
    assert stats.size_histogram() == [(2, 2, 1), (3, 3, 1)]
    assert stats.tokens_per_sentence.tolist() == [4, 4, 2, 2]
    # a cat sat . ! dogs bark cats sleep
    assert stats.vocabulary_size == 9
    assert stats.overlap_basis == "label 1 vs label 0"
    assert stats.overlap_positive.tolist() == [1.0] and stats.overlap_negative.tolist() == [0.0]
    assert stats.pair_splits == (
        ("train", 1, {"paraphrase": 1}),
        ("test", 1, {"not paraphrase": 1}),
    )
    json.dumps(stats.to_dict())


def test_msrp_overlap_positive_exceeds_negative(shared_data):
    stats = corpus_stats(load_corpus(shared_data / "msrp"))
    assert (len(stats.overlap_positive), len(stats.overlap_negative)) == (3900, 1901)
    assert stats.overlap_positive.mean() > stats.overlap_negative.mean() + 0.1
    assert stats.pair_splits[0][:2] == ("train", 4076)


def test_cli_corpus_info_prints_statistics(shared_data, capsys):
    assert main(["corpus", "info", str(shared_data / "sts" / "STS2014-test")]) == 0
    out = capsys.readouterr().out
    assert "pairs                   3,750" in out
    assert "2014/deft-forum  450" in out
    assert "score >= 4 vs score <= 2" in out


def test_cli_corpus_info_json_and_mapping(tmp_path, capsys):
    table = tmp_path / "mine.tsv"
    table.write_text("a\tb\nx y\tg1\nz\tg1\nw\tg2\n")
    assert (
        main(["corpus", "info", str(table), "--text-column", "a", "--group-column", "1", "--json"])
        == 0
    )
    info = json.loads(capsys.readouterr().out)
    assert info["sentences"] == 3 and info["groups"] == 2 and info["group_kind"] == "group"


def test_cli_corpus_info_bad_file_exits_2(tmp_path, capsys):
    table = tmp_path / "mine.tsv"
    table.write_text("a\tb\nx\n")
    assert main(["corpus", "info", str(table)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "mine.tsv" in err[0]


def test_token_table_is_tokenize_on_every_sentence(shared_data):
    """All at once, the tokens are those of models.tokenize.tokenize one sentence at a
    time: on the full STS and Costra (Czech) files, and on characters past ASCII."""
    from sentspace.app.corpora.stats import token_table
    from sentspace.models.tokenize import tokenize

    odd = (
        "Ünïcode — dash… “quoted” 𝔘𝔫 ǅ x_y",
        "",
        "  ",
        "İstanbul ΣΑΣ café",
        "a\u00a0b\u2003c\u2028d",
        "tab\there",
    )
    for texts in (load_corpus(shared_data / "sts").texts, load_corpus("costra").texts, odd):
        lengths, sentence_of, type_of, is_word, n_types = token_table(texts)
        expected = [tokenize(text) for text in texts]
        assert lengths.tolist() == [len(tokens) for tokens in expected]
        types: dict[str, int] = {}
        flat = [types.setdefault(token, len(types)) for tokens in expected for token in tokens]
        assert n_types == len(types)
        # The same tokens fall in the same types, and words are the \w-runs.
        assert len(set(zip(flat, type_of.tolist()))) == n_types
        assert is_word.tolist() == [
            token[0].isalnum() or token[0] == "_" for tokens in expected for token in tokens
        ]
        assert np.array_equal(sentence_of, np.repeat(np.arange(len(texts)), lengths))
