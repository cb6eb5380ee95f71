"""Word-vector files (word2vec, GloVe, fastText), coverage reporting, bad files."""

import logging

import numpy as np
import pytest

from sentspace.models import ModelError, make_encoder
from sentspace.models.word_vectors import DEFAULT_SOURCE, WordVectorMean, WordVectorSum, load_table

WORDS = {"the": [1, 0, 0, 0], "cat": [0, 1, 0, 0], "Dog": [0, 0, 1, 0], "sat": [0, 0, 0, 2]}


def write_text(path, header=True, words=WORDS):
    lines = [f"{len(words)} {len(next(iter(words.values())))}"] if header else []
    lines += [f"{word} {' '.join(map(str, vector))}" for word, vector in words.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_default_vectors_are_glove_6b_50d():
    table = load_table(DEFAULT_SOURCE)
    assert table.vectors.shape == (400_000, 50) and table.vectors.dtype == np.float32
    assert table.lowercased
    np.testing.assert_allclose(
        table.vectors[table.index["the"], :3], [0.418, 0.24968, -0.41242], rtol=1e-5
    )


def test_glove_matches_its_lowercased_training():
    encoder = make_encoder("glove-mean")
    np.testing.assert_array_equal(
        encoder.encode(["THE Cat Sat."]), encoder.encode(["the cat sat."])
    )
    assert encoder.coverage_.n_unknown == 0


def test_coverage_on_msrp(msrp):
    encoder = make_encoder("glove-mean")
    encoder.encode(msrp.texts)
    coverage = encoder.coverage_
    assert coverage.n_sentences == 859 and coverage.n_tokens == 21_277
    assert coverage.n_unknown == 39 and coverage.n_unknown_types == 19
    assert coverage.top_unknown[:2] == (("djihad", 5), ("celf", 4))
    assert coverage.zero_rows == ()
    assert coverage.share_unknown == pytest.approx(39 / 21_277)


def test_sentences_without_known_words_are_counted_and_logged(caplog):
    encoder = make_encoder("glove-sum")
    with caplog.at_level(logging.WARNING, logger="sentspace.models.word_vectors"):
        matrix = encoder.encode(["the cat", "", "qzxwvk vbnmqz", "qzxwvk the"])
    assert encoder.coverage_.zero_rows == (1, 2)
    assert not matrix[[1, 2]].any() and matrix[[0, 3]].any(axis=1).all()
    assert encoder.coverage_.top_unknown == (("qzxwvk", 2), ("vbnmqz", 1))
    assert "2 of 4 sentences have no known word" in caplog.text


def test_zero_rows_are_numbered_across_batches(monkeypatch):
    monkeypatch.setattr(WordVectorMean, "batch_size", 2)
    encoder = make_encoder("glove-mean")
    encoder.encode(["the", "cat", "dog", "qzxwvk", "sat", ""])
    assert encoder.coverage_.zero_rows == (3, 5)


@pytest.mark.parametrize(
    "kind", ["word2vec-text", "fasttext-vec", "glove", "word2vec-binary", "fasttext-bin"]
)
def test_loads_every_word_vector_format(kind, tmp_path):
    if kind in ("word2vec-text", "fasttext-vec"):
        path = write_text(tmp_path / ("v.txt" if kind == "word2vec-text" else "v.vec"))
    elif kind == "glove":
        path = write_text(tmp_path / "glove.txt", header=False)
    elif kind == "word2vec-binary":
        from gensim.models import KeyedVectors

        vectors = KeyedVectors.load_word2vec_format(str(write_text(tmp_path / "v.txt")))
        path = tmp_path / "v.bin"
        vectors.save_word2vec_format(str(path), binary=True)
    else:
        from gensim.models import FastText
        from gensim.models.fasttext import save_facebook_model

        model = FastText(
            [["the", "cat", "sat"], ["the", "Dog", "sat"]] * 5,
            vector_size=8,
            min_count=1,
            epochs=1,
            seed=1,
            workers=1,
        )
        path = tmp_path / "v.bin"
        save_facebook_model(model, str(path))
    encoder = make_encoder(f"path:{path}")
    assert encoder.name == f"path:{path.name}"
    matrix = encoder.encode(["The cat", "the DOG sat", "unknownword"])
    assert matrix.shape == (3, encoder.dim) and matrix.dtype == np.float32
    assert encoder.coverage_.zero_rows == (2,)
    if kind != "fasttext-bin":
        # Cased vocabulary: "The" falls back to "the", "DOG" to "Dog".
        np.testing.assert_allclose(matrix[0], [0.5, 0.5, 0, 0])
        np.testing.assert_allclose(matrix[1], [1 / 3, 0, 1 / 3, 2 / 3], rtol=1e-6)
        assert encoder.coverage_.n_unknown == 1


def test_path_sum_and_fingerprint_follow_the_file(tmp_path):
    path = write_text(tmp_path / "v.vec")
    total = make_encoder(f"path-sum:{path}")
    assert isinstance(total, WordVectorSum)
    np.testing.assert_allclose(total.encode(["the cat cat"])[0], [1, 2, 0, 0])
    fingerprint = total.fingerprint()
    assert fingerprint == WordVectorSum(source=str(path)).fingerprint()
    assert fingerprint != make_encoder(f"path:{path}").fingerprint()
    write_text(path, words={**WORDS, "cat": [0, 3, 0, 0]})
    assert total.fingerprint() != fingerprint  # new content, new fingerprint


def test_the_folder_a_vector_file_is_reached_through_changes_nothing(tmp_path):
    """The same file through a linked folder: the path kept as named, the same
    fingerprint (so the same cache entry), vectors and name."""
    (tmp_path / "real").mkdir()
    path = write_text(tmp_path / "real" / "v.vec")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    direct = make_encoder(f"path:{path}")
    linked = make_encoder(f"path:{tmp_path / 'link' / 'v.vec'}")
    assert linked.source == str(tmp_path / "link" / "v.vec")
    assert linked.fingerprint() == direct.fingerprint() and linked.name == "path:v.vec"
    np.testing.assert_array_equal(linked.encode(["the cat"]), direct.encode(["the cat"]))


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(ModelError, match="no such word-vector file"):
        make_encoder(f"path:{tmp_path / 'missing.vec'}")
    with pytest.raises(ModelError, match="is a folder"):
        WordVectorMean(source=str(tmp_path)).encode(["x"])


BAD_FILES = {
    "wrong-header.vec": (b"x y\nthe 1 2 3 4\n", "neither a 'count dimension' header"),
    "short-header.vec": (
        b"2 4\nthe 1 2 3 4\ncat 0 1 0 1\ndog 1 0 1 0\n",
        "announces 2 words but the file has 3",
    ),
    "long-header.vec": (b"5 4\nthe 1 2 3 4\ncat 0 1 0 1\n", "unexpected end of input"),
    "header-dim.vec": (
        b"2 5\nthe 1 2 3 4\ncat 0 1 0 1\n",
        "line 2: 4 values where the header announces 5",
    ),
    "mixed.txt": (b"the 1 2 3 4\ncat 0 1 0\n", "line 2: 3 values where the first vector has 4"),
    "garbage.bin": (
        bytes(np.random.default_rng(0).integers(0, 256, 4000, dtype=np.uint8)),
        "binary data",
    ),
    "empty.vec": (b"", "empty"),
    "nan.txt": (b"the 1 nan 3\ncat 0 1 0\n", "NaN or infinity"),
    "zero.vec": (b"0 50\n", "announces 0 words"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_files_give_a_clear_error(name, tmp_path):
    content, problem = BAD_FILES[name]
    path = tmp_path / name
    path.write_bytes(content)
    encoder = make_encoder(f"path:{path}")
    with pytest.raises(ModelError, match=problem) as caught:
        encoder.encode(["the cat"])
    assert str(caught.value).startswith(str(path))


def test_truncated_binary_file(tmp_path):
    from gensim.models import KeyedVectors

    vectors = KeyedVectors.load_word2vec_format(str(write_text(tmp_path / "v.txt")))
    path = tmp_path / "v.bin"
    vectors.save_word2vec_format(str(path), binary=True)
    path.write_bytes(path.read_bytes()[:-7])
    with pytest.raises(ModelError, match="not a valid word2vec binary file"):
        make_encoder(f"path:{path}").encode(["the"])
