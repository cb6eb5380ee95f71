"""``import sentspace`` with your own model or array, one return type for ``encode``,
short reprs for notebooks, clear errors for empty input, and relatedness encoding only
the sentences its pairs read."""

import numpy as np
import pytest
import scipy.sparse as sp

import sentspace
from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.evaluations.relatedness import evaluate_relatedness
from sentspace.app.base.jobs import run_job
from sentspace.models.bow import BagOfWords
from sentspace.models.transformer import SentenceTransformerEncoder

#: `sentspace eval relatedness --encoder minilm` on SICK's trial file (its test split:
#: 0.771469, minutes of MiniLM on a busy CPU where the trial file takes one).
MINILM_SICK_TRIAL_SPEARMAN = 0.798005
TRIAL_SENTENCES = 924


class LetterCounts:
    """A user's own model: counts of each letter, nothing to do with sentspace."""

    def __init__(self):
        self.encoded = 0
        self.calls: list[dict] = []

    def encode(self, sentences, **options):
        self.encoded += len(sentences)
        self.calls.append(options)
        return np.stack(
            [np.bincount([ord(c) % 64 for c in text.lower()], minlength=64) for text in sentences]
        ).astype(np.float64)


@pytest.fixture(scope="module")
def sick(shared_data):
    return sentspace.load_corpus(shared_data / "sick")


@pytest.fixture(scope="module")
def sick_trial(shared_data):
    return sentspace.load_corpus(shared_data / "sick" / "SICK_trial.txt")


@pytest.fixture(scope="module")
def stsb(shared_data):
    return sentspace.load_corpus(shared_data / "sts" / "STSBenchmark")


@pytest.fixture(scope="module")
def msrp():
    return sentspace.load_corpus("msrp-grouped")


@pytest.fixture(scope="module")
def mixed(sick_trial):
    """A spec, a user's model and an array in one comparison, on SICK's trial file (a
    paired permutation test over SICK test's 4,927 pairs takes minutes on a busy
    machine)."""
    return sentspace.evaluate(
        "relatedness", sick_trial, ["bow", LetterCounts(), sentspace.encode(sick_trial, "bow")]
    )


def test_a_sentence_transformers_model_is_evaluated_as_its_spec_is(sick_trial):
    """Was: AttributeError: 'Transformer' object has no attribute 'startswith'."""
    if not SentenceTransformerEncoder.available():
        pytest.skip("the transformers extra is not installed")
    model = SentenceTransformerEncoder()._model()  # the bundled all-MiniLM-L6-v2
    assert type(model).__name__ == "SentenceTransformer"
    result = sentspace.evaluate("relatedness", sick_trial, model)
    assert result.provenance.encoder_name == "SentenceTransformer"
    assert result.evaluated == "trial 500"
    # What `sentspace eval relatedness --encoder minilm` gives on the same pairs.
    assert result.pooled.spearman == pytest.approx(MINILM_SICK_TRIAL_SPEARMAN, abs=1e-4)
    # Its weights fingerprint it, so a second run reads the cache.
    wrapped = sentspace.encoder(model)
    assert wrapped.cacheable and wrapped.fingerprint() == result.provenance.encoder_fingerprint


def test_any_object_with_encode_is_an_encoder(sick_trial):
    """Was: TypeError: 'LetterCounts' object is not iterable."""
    model = LetterCounts()
    result = sentspace.evaluate("relatedness", sick_trial, model)
    assert result.provenance.encoder_name == "LetterCounts"
    assert result.pooled.n_pairs == 500 and 0.3 < result.pooled.spearman < 0.7
    # With a fingerprint the cache keeps it (the first run, without one, cached
    # nothing: nothing tells when such an object changes); the name is the user's.
    named = sentspace.encoder(model, name="letters", fingerprint="letters v1")
    before = model.encoded
    first = sentspace.evaluate("relatedness", sick_trial, named)
    assert model.encoded == 2 * before
    second = sentspace.evaluate("relatedness", sick_trial, named)
    assert model.encoded == 2 * before
    assert first.provenance.encoder_name == "letters"
    assert second.pooled.spearman == first.pooled.spearman == result.pooled.spearman


def test_a_comparison_mixes_specs_models_and_arrays_with_paired_tests(mixed):
    """Was: AttributeError: 'numpy.ndarray' object has no attribute 'startswith'."""
    assert [r.provenance.encoder_name for r in mixed] == ["bow", "LetterCounts", "array"]
    assert set(mixed.paired) == {"LetterCounts", "array"}
    # The array holds bow's rows: bow's numbers, and no difference.
    assert mixed[2].pooled.spearman == mixed[0].pooled.spearman
    assert mixed.paired["array"].difference == 0
    test = mixed.paired["LetterCounts"]
    assert test.n_items == 500 and 0 < test.p_value <= 1
    # LetterCounts minus bow, the first: other - first.
    assert test.difference == pytest.approx(mixed[1].pooled.spearman - mixed[0].pooled.spearman)


def test_arrays_of_one_name_are_told_apart(msrp):
    tfidf = sentspace.encode(msrp, "tfidf")
    results = sentspace.evaluate("classification", msrp, [tfidf, tfidf * 2])
    assert [r.provenance.encoder_name for r in results] == ["array", "array #2"]
    assert set(results.paired) == {"array #2"}


@pytest.mark.parametrize(
    "bad, problem",
    [
        (
            lambda n: np.ones((n - 1, 4)),
            f"{TRIAL_SENTENCES - 1} rows for {TRIAL_SENTENCES} sentences",
        ),
        (lambda n: np.full((n, 4), np.nan), "row 0 holds NaN"),
        (lambda n: np.ones(n), "expected 2 dimensions"),
        (lambda n: np.array([np.ones(3)] * (n - 1) + [np.ones(2)], dtype=object), "not one real"),
        (lambda n: [[1.0, 2.0]] * n, "not a list"),
    ],
)
def test_an_unusable_array_is_a_value_error_naming_the_argument(sick_trial, bad, problem):
    with pytest.raises(ValueError, match=rf"encoders\[1\]: .*{problem}"):
        sentspace.evaluate("relatedness", sick_trial, ["bow", bad(len(sick_trial))])
    with pytest.raises(ValueError, match=f"space: .*{problem}"):
        sentspace.neighbours(sick_trial, bad(len(sick_trial)), 0)


def test_a_model_returning_the_wrong_rows_is_named(msrp):
    class Broken:
        def encode(self, sentences):
            return np.ones((len(sentences) + 1, 3))

    with pytest.raises(ValueError, match=r"Broken.encode: .* rows for"):
        sentspace.encode(msrp, Broken())


def test_encode_returns_dense_float32_unless_asked_for_sparse(msrp):
    """Was: the bag-of-words families gave a scipy CSR matrix, the others numpy."""
    dense = sentspace.encode(msrp, "bow")
    assert type(dense) is np.ndarray and dense.dtype == np.float32
    assert dense.shape == (859, dense.shape[1])
    kept = sentspace.encode(msrp, "bow", sparse=True)
    assert sp.issparse(kept) and kept.dtype == np.float32
    np.testing.assert_array_equal(kept.toarray(), dense)
    unit = sentspace.encode(msrp, "tfidf", normalize_embeddings=True)
    np.testing.assert_allclose(np.linalg.norm(unit, axis=1), 1, rtol=1e-5)
    assert sp.issparse(sentspace.encode(msrp, "tfidf", normalize_embeddings=True, sparse=True))


def test_encode_passes_batch_size_and_device_to_models_that_take_them(msrp):
    model = LetterCounts()
    matrix = sentspace.encode(msrp, model, batch_size=16, device="cpu", progress=True)
    assert matrix.shape == (859, 64) and matrix.dtype == np.float32
    assert model.calls and all(call == {"batch_size": 16, "device": "cpu"} for call in model.calls)
    with pytest.raises(ValueError, match="device: bow runs on the CPU"):
        sentspace.encode(msrp, "bow", device="cuda")
    with pytest.raises(ValueError, match="batch_size"):
        sentspace.encode(msrp, "bow", batch_size=0)

    class NoOptions:
        def encode(self, sentences):
            return np.ones((len(sentences), 2))

    with pytest.raises(ValueError, match="NoOptions.encode takes no device"):
        sentspace.encode(msrp, NoOptions(), device="cpu")


def test_reprs_are_short_and_notebooks_get_tables(sick, mixed):
    """Was: repr(corpus) 578,208 characters, repr(result) 41,239; no HTML."""
    assert repr(sick) == "<Corpus 'sick': 6,077 sentences, 9,927 pairs, language en>"
    page = sick._repr_html_()
    assert "<table>" in page and "6,072 more" in page and len(page) < 2000
    result = mixed[0]
    assert len(repr(result)) < 300 and repr(result).startswith(
        "<RelatednessResult: relatedness of bow on sick: pooled spearman 0.5601 [0.5011, "
    )
    assert "<td>pooled spearman</td><td>0.5601</td><td>[0.5011, 0.6123]</td><td>500" in (
        result._repr_html_()
    )
    assert repr(mixed) == (
        "<Results: relatedness of 3 encoders (bow, LetterCounts, array) "
        "on sick; paired tests against bow: 2>"
    )
    page = mixed._repr_html_()
    assert "Paired tests" in page and "paired permutation" in page
    assert "<td>array</td><td>paired permutation (10000 swaps)</td><td>+0.0000</td>" in page
    assert len(page) < 10_000


def test_empty_and_degenerate_input_is_a_value_error_naming_the_argument(msrp):
    """Was: accepted silently, scikit-learn's "empty vocabulary", nan, AttributeError."""
    with pytest.raises(ValueError, match="corpus: no sentences"):
        sentspace.load_corpus([])
    with pytest.raises(ValueError, match="corpus: every sentence is empty"):
        sentspace.encode([""], "bow")
    with pytest.raises(ValueError, match="corpus: no sentences"):
        sentspace.encode([], "bow")
    with pytest.raises(ValueError, match="corpus: no sentences"):
        sentspace.evaluate("classification", [], "bow")
    with pytest.raises(ValueError, match="text_a: an empty sentence"):
        sentspace.explain("", "A man.", "bow")
    with pytest.raises(ValueError, match="text_b: an empty sentence"):
        sentspace.explain("A man.", "  ", "bow")
    with pytest.raises(ValueError, match="embeddings: expected an array .* not a list"):
        sentspace.project([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="embeddings: a layout needs two rows or more"):
        sentspace.project(np.ones((1, 3)))
    with pytest.raises(ValueError, match="encoders: no encoder"):
        sentspace.evaluate("classification", msrp, [])
    with pytest.raises(ValueError, match="query: an empty sentence"):
        sentspace.neighbours(msrp, "bow", "")
    with pytest.raises(ValueError, match="corpus: neighbours need two sentences"):
        sentspace.neighbours(["one sentence"], "bow", 0)
    with pytest.raises(ValueError, match="encoder: explaining .* an array"):
        sentspace.explain("a cat", "a dog", np.ones((2, 3)), corpus=["a cat", "a dog"])
    # One sentence encodes; some empty sentences among others are zero rows.
    assert sentspace.encode(["a cat sat"], "bow").shape == (1, 3)
    assert not sentspace.encode(["a cat sat", ""], "bow")[1].any()


def test_relatedness_encodes_only_the_sentences_its_pairs_read(stsb):
    """Was: STS-B's test split encoded all 15,457 sentences for its 2,552."""
    model = LetterCounts()
    result = sentspace.evaluate("relatedness", stsb, model, split="test")
    assert len(stsb) == 15_457 and result.pooled.n_pairs == 1379
    assert model.encoded == 2552
    # The same numbers as from the whole corpus's embeddings.
    whole = run_job(encode_corpus(stsb, sentspace.encoder(model)))
    expected = evaluate_relatedness(stsb, whole, splits=("test",))
    assert result.pooled.spearman == pytest.approx(expected.pooled.spearman, abs=1e-12)
    # A fitted family: the fit on every sentence as before, so the same numbers; and the
    # cache keeps the part under its own key, never as the corpus's embeddings.
    bow = sentspace.evaluate("relatedness", stsb, "bow", split="test")
    full = run_job(encode_corpus(stsb, BagOfWords()))
    test = np.isin(stsb.pairs.split, ["test"])
    unread = np.setdiff1d(
        np.arange(len(stsb)), np.concatenate([stsb.pairs.first[test], stsb.pairs.second[test]])
    )
    assert full.shape[0] == 15_457 and full[unread].nnz > 0
    assert bow.pooled.spearman == evaluate_relatedness(stsb, full, splits=("test",)).pooled.spearman
