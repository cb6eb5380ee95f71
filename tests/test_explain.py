"""Similarity attribution: the exact decomposition of additive encoders on real pairs,
occlusion and token alignment for MiniLM, and the CLI."""

import json

import numpy as np
import pytest

from sentspace.app.analysis.explain import EXACT, OCCLUSION, explain_pair, without_word
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus
from sentspace.models import make_encoder
from sentspace.models.tokenize import tokenize
from sentspace.models.word_vectors import load_table

N_PAIRS = 40


@pytest.fixture(scope="module")
def msrp(shared_data):
    return load_corpus(shared_data / "msrp")


def real_pairs(corpus, n=N_PAIRS):
    pairs = corpus.pairs
    return [
        (corpus.texts[i], corpus.texts[j])
        for i, j in zip(pairs.first[:n].tolist(), pairs.second[:n].tolist())
    ]


@pytest.fixture(scope="module")
def cased_vector_file(tmp_path_factory, sick):
    """A word2vec text file with GloVe's vectors for most words of the first pairs,
    written capitalised (so lookups go through the cased fallback), a tenth left out
    (so sentences have unknown tokens)."""
    table = load_table("glove-6b-50d")
    words = sorted(
        {
            token
            for a, b in real_pairs(sick)
            for token in tokenize(a + " " + b)
            if token in table.index
        }
    )
    kept = [word for k, word in enumerate(words) if k % 10 != 3]
    lines = [f"{len(kept)} 50"] + [
        f"{word.capitalize()} {' '.join(f'{x:.6f}' for x in table.vectors[table.index[word]])}"
        for word in kept
    ]
    path = tmp_path_factory.mktemp("vectors") / "cased.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def encoder_cosines(encoder, pairs):
    matrix = encoder.encode([text for pair in pairs for text in pair])
    matrix = matrix.toarray() if hasattr(matrix, "toarray") else matrix
    u, v = matrix[0::2].astype(np.float64), matrix[1::2].astype(np.float64)
    with np.errstate(invalid="ignore"):
        return (u * v).sum(1) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))


@pytest.mark.parametrize(
    "spec", ["bow", "tfidf", "random-bow", "glove-mean", "glove-sum", "path", "path-sum"]
)
@pytest.mark.parametrize("dataset", ["sick", "msrp"])
def test_contributions_sum_to_the_encoders_cosine(spec, dataset, request, cased_vector_file):
    corpus = request.getfixturevalue(dataset)
    pairs = real_pairs(corpus)
    if spec.startswith("path"):
        spec = f"{spec}:{cased_vector_file}"
    encoder = make_encoder(spec)
    if encoder.requires_fit:  # idf from the whole corpus, as an evaluation fits it
        encoder.fit(corpus.texts)
    expected = encoder_cosines(encoder, pairs)
    unknown = 0
    for (a, b), cosine in zip(pairs, expected):
        result = run_job(explain_pair(a, b, encoder, corpus=corpus))
        assert result.method == EXACT
        if np.isnan(cosine):
            assert np.isnan(result.cosine)
            continue
        assert result.cosine == pytest.approx(cosine, abs=1e-6)
        assert result.contribution_a.sum() == pytest.approx(cosine, abs=1e-6)
        assert result.contribution_b.sum() == pytest.approx(cosine, abs=1e-6)
        assert result.pair_contribution.sum() == pytest.approx(cosine, abs=1e-6)
        # The encoder's own tokens: punctuation kept by ours, dropped by scikit-learn's.
        assert len(result.tokens_a) == len(result.contribution_a)
        assert not result.contribution_a[~result.known_a].any()
        unknown += int((~result.known_a).sum() + (~result.known_b).sum())
    if spec.startswith(("path", "bow", "tfidf")) and dataset == "sick":
        # SICK's vocabulary is all in the corpus fit; the cased file misses a tenth.
        assert (unknown > 0) == spec.startswith("path")


@pytest.mark.parametrize("spec", ["word2vec", "fasttext"])
def test_trained_word_vectors_decompose_exactly(spec, sick):
    """Trained on SICK (fastText also gives unseen words their n-gram vectors)."""
    encoder = make_encoder(spec).fit(sick.texts)
    pairs = real_pairs(sick, 20) + [("A zxqwv is sleeping.", "The cat sleeps.")]
    for (a, b), cosine in zip(pairs, encoder_cosines(encoder, pairs)):
        result = run_job(explain_pair(a, b, encoder, corpus=sick))
        assert result.method == EXACT
        assert result.contribution_a.sum() == pytest.approx(cosine, abs=1e-6)
        assert result.contribution_b.sum() == pytest.approx(cosine, abs=1e-6)
    assert result.known_a[1] == (spec == "fasttext")  # "zxqwv": n-grams or nothing


def test_tfidf_weighting_and_mean_versus_sum(sick):
    a, b = real_pairs(sick)[0]
    tfidf = make_encoder("tfidf").fit(sick.texts)
    result = run_job(explain_pair(a, b, tfidf, corpus=sick))
    idf = dict(zip(tfidf.vectorizer_.get_feature_names_out(), tfidf.vectorizer_.idf_))
    shared = [t for t in set(result.tokens_a) & set(result.tokens_b)]
    # A rarer shared word contributes more than a common one (the idf weighting).
    by_idf = sorted(shared, key=idf.get)
    contribution = dict(zip(result.tokens_a, result.contribution_a))
    assert contribution[by_idf[-1]] > contribution[by_idf[0]]
    mean = run_job(explain_pair(a, b, make_encoder("glove-mean")))
    total = run_job(explain_pair(a, b, make_encoder("glove-sum")))
    np.testing.assert_allclose(mean.contribution_a, total.contribution_a, atol=1e-6)


def test_precomputed_embeddings_are_refused(tmp_path):
    from sentspace.app.base.errors import EvaluationError
    from sentspace.app.corpora.model import Corpus
    from sentspace.models.precomputed import Precomputed

    corpus = Corpus(name="two", texts=("a cat", "a dog"), ids=("1", "2"))
    np.save(tmp_path / "vectors.npy", np.eye(2, dtype=np.float32))
    with pytest.raises(EvaluationError, match="precomputed"):
        run_job(explain_pair("a cat", "a dog", Precomputed(tmp_path / "vectors.npy", corpus)))


def test_without_word_joins_the_rest():
    assert without_word("A man, playing.", (2, 5)) == "A , playing."
    assert without_word("guitar", (0, 6)) == ""


@pytest.fixture(scope="module")
def minilm():
    encoder = make_encoder("minilm")
    if not encoder.available():
        pytest.skip("the transformers extra is not installed")
    return encoder


def test_minilm_occlusion_finds_the_content_word(sick, msrp, minilm):
    pairs = [real_pairs(sick)[k] for k in (0, 5)] + [real_pairs(msrp)[1]]
    for a, b in pairs:
        result = run_job(explain_pair(a, b, minilm))
        assert result.method == OCCLUSION
        assert result.cosine == pytest.approx(float(encoder_cosines(minilm, [(a, b)])[0]), abs=1e-5)
        word, drop = result.top_words(0, 1)[0]
        # The word whose removal costs most is a content word the two share (or nearly).
        assert drop > 0 and len(word) > 3 and word.lower() not in {"that", "with", "this"}
        assert word.lower()[:4] in b.lower()
        alignment = result.alignment
        assert alignment.cosine.shape == (len(alignment.tokens_a), len(alignment.tokens_b))
        assert "[CLS]" not in alignment.tokens_a
        best = result.top_pairs(1)[0]
        assert best[2] > 0.7


def test_word_pairs_add_up_over_repeated_words(msrp):
    bow = make_encoder("bow").fit(msrp.texts)
    a = "The stock rose $2.11, or about 11 percent, to close at $21.51 on the exchange."
    b = "The shares jumped 8 percent to $21.03 on the New York Stock Exchange on Friday."
    result = run_job(explain_pair(a, b, bow))
    pairs = result.top_pairs(10_000)
    # One row per pair of words ("." appears twice in A and once in B: one row) ...
    assert len({(x, y) for x, y, _ in pairs}) == len(pairs)
    assert ("the", "the") in {(x, y) for x, y, _ in pairs}
    # ... and the rows still sum exactly to the cosine.
    assert sum(value for _, _, value in pairs) == pytest.approx(result.cosine, abs=1e-6)


def test_cli_explain_prints_words_and_cosine(capsys):
    a, b = "The cat sat on the mat.", "A cat was sitting on a rug."
    assert main(["explain", "--encoder", "bow", a, b]) == 0
    out = capsys.readouterr().out
    assert "cosine" in out and "cat" in out
    assert main(["explain", "--encoder", "random-bow", "--json", a, b]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tokens_a"][1] == "cat"
    assert sum(data["contribution_a"]) == pytest.approx(data["cosine"], abs=1e-6)
