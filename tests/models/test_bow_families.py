"""PCA over bag of words and random bag of words."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sentspace.models import ModelError
from sentspace.models.pca_bow import PcaBagOfWords
from sentspace.models.random_bow import RandomBagOfWords, random_word_vectors
from sentspace.models.tokenize import count_matrix, tokenize


def test_tokenize_keeps_czech_diacritics():
    """Czech words stay whole, with their háčky and čárky, lowercased (Costra, Multi30K cs)."""
    assert tokenize("Žena v ČERVENÉ košili řídí kůň, dítě čte.") == [
        "žena",
        "v",
        "červené",
        "košili",
        "řídí",
        "kůň",
        ",",
        "dítě",
        "čte",
        ".",
    ]
    assert tokenize("Úžasný", lowercase=False) == ["Úžasný"]
    counts, types = count_matrix(["Muž řídí.", "muž neřídí"])
    assert types == ["muž", "řídí", ".", "neřídí"]
    assert counts.toarray().tolist() == [[1, 1, 1, 0], [1, 0, 0, 1]]


def test_count_matrix_counts_types_per_text():
    counts, types = count_matrix(["A b a .", "", "b C"])
    assert types == ["a", "b", ".", "c"]
    assert counts.toarray().tolist() == [[2, 1, 1, 0], [0, 0, 0, 0], [0, 1, 0, 1]]
    assert counts.dtype == np.float32


@pytest.fixture(scope="module")
def halves(msrp):
    """Fit side: the first 137 groups' sentences; the rest is never shown to ``fit``."""
    labels = msrp.groups.labels(len(msrp))
    fit_side = labels < 137
    texts = np.array(msrp.texts, dtype=object)
    return list(texts[fit_side]), list(texts[~fit_side])


def test_pca_bow_fitted_on_a_subset_never_sees_the_rest(halves):
    train, rest = halves
    encoder = PcaBagOfWords().fit(train)
    train_tokens = {token for text in train for token in tokenize(text)}
    assert encoder.vocabulary == train_tokens
    assert encoder.vocabulary != train_tokens | {t for text in rest for t in tokenize(text)}
    fingerprint = encoder.fingerprint()
    both = encoder.encode(train + rest)
    assert encoder.fingerprint() == fingerprint  # encoding learns nothing
    np.testing.assert_array_equal(both[: len(train)], encoder.encode(train))
    # The axes are a function of the fit texts alone ...
    again = PcaBagOfWords().fit(train)
    np.testing.assert_array_equal(again.components_, encoder.components_)
    # ... and they do change when the rest is included.
    everything = PcaBagOfWords().fit(train + rest)
    assert everything.vocabulary > encoder.vocabulary
    assert everything.fingerprint() != fingerprint


def test_pca_bow_words_outside_the_fit_vocabulary_are_dropped(halves):
    train, _ = halves
    encoder = PcaBagOfWords(dimension=20).fit(train)
    unseen = encoder.encode(["zzyzx qwertyuiop"])
    nothing = encoder.encode([""])
    np.testing.assert_array_equal(unseen, nothing)


def test_pca_bow_dimension_is_capped_by_the_data():
    texts = ["the cat sat", "a dog ran", "the bird flew off", "cats and dogs", "a b c"]
    encoder = PcaBagOfWords().fit(texts)
    assert encoder.dim == 4 == encoder.encode(texts).shape[1]  # min(5 texts, vocab) - 1
    assert PcaBagOfWords(dimension=2).fit(texts).dim == 2


ROOT = Path(__file__).resolve().parents[2]
#: Fits PCA-BOW on the first N bundled MSRP sentences and saves their vectors.
FIT_AND_SAVE = """
import sys, numpy as np
from sentspace.app.corpora import load_corpus
from sentspace.models.pca_bow import PcaBagOfWords
texts = list(load_corpus("msrp-grouped").texts)
for n in (120, len(texts)):
    encoder = PcaBagOfWords(seed=0).fit(texts[:n])
    np.save(f"{sys.argv[1]}-{n}.npy", encoder.encode(texts))
"""


def test_pca_bow_same_vectors_with_any_blas_thread_count(tmp_path):
    # The first 120 sentences span 118 dimensions once centred: the 119th component ARPACK
    # returned was an arbitrary null-space direction, different with the thread count.
    # The fit is float64, so a thread count changes its rounding by about 1e-15, which
    # moves a few float32 outputs by a rounding step (8 of 257,700 values when fitted on
    # all 859 sentences, by at most 7.5e-9): values reach 10, so 1e-6 is a few float32
    # steps, and a different null-space direction would differ by whole units.
    for threads in ("1", "2"):
        env = {
            **os.environ,
            "OMP_NUM_THREADS": threads,
            "OPENBLAS_NUM_THREADS": threads,
            "MKL_NUM_THREADS": threads,
        }
        subprocess.run(
            [sys.executable, "-c", FIT_AND_SAVE, str(tmp_path / threads)],
            cwd=ROOT,
            env=env,
            check=True,
        )
    for n in (120, 859):
        one, two = np.load(tmp_path / f"1-{n}.npy"), np.load(tmp_path / f"2-{n}.npy")
        assert one.shape == (859, 118 if n == 120 else 300)
        np.testing.assert_allclose(one, two, rtol=0, atol=1e-6)


def test_pca_bow_keeps_the_numerical_rank_and_svd_flip_signs(msrp):
    encoder = PcaBagOfWords().fit(list(msrp.texts[:120]))
    assert encoder.dim == 118 == encoder.encode(["a"]).shape[1]  # not min(120, 737) - 1
    largest = np.abs(encoder.components_).argmax(axis=1)
    assert (encoder.components_[np.arange(encoder.dim), largest] > 0).all()
    duplicated = PcaBagOfWords().fit(["the cat sat", "a dog ran", "the cat sat", "a b"])
    assert duplicated.dim == 2
    with pytest.raises(ModelError, match="differ in their words"):
        PcaBagOfWords().fit(["same words", "words same"])


@pytest.mark.parametrize("texts", [[], ["only one"], ["", "   "]])
def test_pca_bow_refuses_data_it_cannot_fit(texts):
    with pytest.raises(ModelError, match="at least two"):
        PcaBagOfWords().fit(texts)


def test_pca_bow_centres_the_counts(halves):
    train, _ = halves
    encoder = PcaBagOfWords(dimension=50).fit(train)
    assert np.abs(encoder.encode(train).mean(axis=0)).max() < 1e-4


def test_random_word_vector_depends_only_on_word_and_seed():
    alone = random_word_vectors(["cat"], 620, seed=0)
    among = random_word_vectors(["dog", "cat", "unseenword123"], 620, seed=0)
    np.testing.assert_array_equal(alone[0], among[1])
    assert not np.allclose(random_word_vectors(["cat"], 620, seed=1), alone)
    # Pinned so a numpy upgrade cannot silently change cached embeddings.
    np.testing.assert_allclose(alone[0, :3], [0.0877820, 0.0244874, 0.0345609], atol=1e-6)


def test_random_word_vectors_are_standard_normal_over_sqrt_dim():
    vectors = random_word_vectors([f"w{i}" for i in range(2000)], 620, seed=3)
    values = vectors.ravel() * np.sqrt(620)
    assert abs(values.mean()) < 0.01 and abs(values.std() - 1) < 0.01
    assert abs(np.linalg.norm(vectors, axis=1).mean() - 1) < 0.01
    assert abs(np.corrcoef(vectors[:, 0], vectors[:, 310])[0, 1]) < 0.1  # cos/sin halves


def test_random_bow_is_the_sum_of_its_word_vectors():
    encoder = RandomBagOfWords(dimension=16, seed=5)
    words = random_word_vectors(["the", "cat", "."], 16, seed=5)
    np.testing.assert_allclose(
        encoder.encode(["The cat the ."])[0], 2 * words[0] + words[1] + words[2], rtol=1e-6
    )
    assert np.abs(encoder.encode(["never seen before"])).sum() > 0


def test_dimension_must_be_positive():
    with pytest.raises(ModelError):
        RandomBagOfWords(dimension=0)
    with pytest.raises(ModelError):
        PcaBagOfWords(dimension=0)
