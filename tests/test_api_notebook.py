"""``import sentspace`` beside sentence-transformers and mteb, from a notebook: errors
``except ValueError`` catches, ``encode`` of one string or a list as
sentence-transformers' ``SentenceTransformer.encode`` answers, and ``evaluate`` passing
encode options (issue 42, items 18-20)."""

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

import sentspace
from tests.test_api_models import LetterCounts

ROOT = Path(__file__).resolve().parents[1]


def test_every_error_is_a_value_error_and_a_missing_file_a_file_not_found_error(
    shared_data, tmp_path
):
    """Was: InputError(Exception), so ``except ValueError`` (the docstrings' promise)
    missed an unknown encoder, a missing corpus and a corpus without pairs."""
    with pytest.raises(ValueError, match="nonsense") as unknown:
        sentspace.encoder("nonsense")
    assert isinstance(unknown.value, sentspace.ModelError)
    missing = tmp_path / "no-such-corpus.txt"
    with pytest.raises(FileNotFoundError) as not_found:
        sentspace.load_corpus(missing)
    assert isinstance(not_found.value, sentspace.CorpusError)
    assert isinstance(not_found.value, (sentspace.NotFoundError, ValueError))
    assert not_found.value.filename == str(missing)
    with pytest.raises(ValueError, match="has no pairs") as no_pairs:
        sentspace.evaluate("relatedness", "msrp-grouped", "bow")
    assert isinstance(no_pairs.value, sentspace.EvaluationError)
    assert all(
        issubclass(getattr(sentspace, name), sentspace.InputError)
        for name in ("NotFoundError", "CorpusError", "ModelError", "EvaluationError")
    )
    with pytest.raises(FileNotFoundError):
        sentspace.read_mteb(tmp_path / "no-such-results")


def test_the_version_is_the_installed_package_s_without_loading_the_core():
    script = "import sys, sentspace\nprint(sentspace.__version__, 'numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [metadata.version("sentspace"), "False"]


def test_one_string_is_one_vector_and_a_list_a_dense_float32_matrix():
    """Was: ``encode("a cat sat")`` gave 9 rows (one per character), bag of words a
    sparse matrix, and no batch_size."""
    texts = ["a cat sat", "a dog ran", "the cat ran"]
    bow = sentspace.encoder("bow").fit(texts)
    one = bow.encode("a cat sat")
    assert type(one) is np.ndarray and one.dtype == np.float32 and one.shape == (bow.dim,)
    rows = bow.encode(texts, batch_size=1, show_progress_bar=True)
    assert type(rows) is np.ndarray and rows.dtype == np.float32 and rows.shape == (3, bow.dim)
    np.testing.assert_array_equal(rows[0], one)
    unit = bow.encode(texts, normalize_embeddings=True)
    np.testing.assert_allclose(np.linalg.norm(unit, axis=1), 1, rtol=1e-6)
    listed = bow.encode(texts, convert_to_numpy=False)
    assert isinstance(listed, list) and len(listed) == 3
    np.testing.assert_array_equal(listed[2], rows[2])
    assert bow.encode(texts, sparse=True).nnz == int((rows != 0).sum())
    with pytest.raises(ValueError, match="device: bow runs on the CPU"):
        bow.encode(texts, device="cuda")
    # sentspace.encode: one sentence, as sentence-transformers answers it.
    vector = sentspace.encode("a cat sat", "bow")
    assert vector.shape == (3,) and vector.dtype == np.float32
    np.testing.assert_array_equal(sentspace.encode(["a cat sat"], "bow")[0], vector)
    assert sentspace.encode("msrp-grouped", "bow").shape[0] == 859  # a corpus by name
    with pytest.raises(FileNotFoundError):
        sentspace.encode("data/no-such-file.txt", "bow")


def test_evaluate_passes_encode_options_to_each_encoder(shared_data):
    """Was: ``evaluate(..., batch_size=64)`` a TypeError, with no way to pass encode
    options."""
    trial = sentspace.load_corpus(shared_data / "sick" / "SICK_trial.txt")
    model = LetterCounts()
    plain = sentspace.evaluate("relatedness", trial, model, encode_kwargs={"batch_size": 8})
    assert model.calls and all(call == {"batch_size": 8} for call in model.calls)

    class Prompted(LetterCounts):
        def encode(self, sentences, prompt=None, **options):
            self.prompts = prompt
            return super().encode([prompt + text for text in sentences], **options)

    prompted_model = Prompted()
    prompted = sentspace.evaluate(
        "relatedness", trial, prompted_model, encode_kwargs={"prompt": "zzzz "}
    )
    assert prompted_model.prompts == "zzzz "
    # The prompt changes the vectors, so the numbers and the cache key.
    assert prompted.pooled.spearman != plain.pooled.spearman
    assert prompted.provenance.encoder_params["prompt"] == "zzzz "
    bow = sentspace.evaluate("relatedness", trial, "bow")
    batched = sentspace.evaluate("relatedness", trial, "bow", encode_kwargs={"batch_size": 7})
    assert batched.pooled.spearman == bow.pooled.spearman
    assert batched.provenance.encoder_fingerprint == bow.provenance.encoder_fingerprint
    with pytest.raises(TypeError, match="encode_kwargs: no option 'colour'"):
        sentspace.evaluate("relatedness", trial, "bow", encode_kwargs={"colour": 1})
    with pytest.raises(ValueError, match="prompt is for your own models"):
        sentspace.evaluate("relatedness", trial, "bow", encode_kwargs={"prompt": "q: "})


def test_results_read_as_mteb_and_pandas_would(shared_data):
    """Was: no main_score, "misclassified 14.0000", frames without corpus, task and
    split, "STSBenchmark spearman" beside an equal "pooled spearman", and paired
    differences of first - other (a better encoder showed a negative number)."""
    classification = sentspace.evaluate("classification", "msrp-grouped", "bow")
    assert classification.main_score == classification.mean_accuracy
    misclassified = len(classification.misclassified)
    assert repr(classification).endswith(f", misclassified {misclassified}>")
    assert f"<td>misclassified</td><td>{misclassified}</td>" in classification._repr_html_()

    benchmark = sentspace.load_corpus(shared_data / "sts" / "STSBenchmark")
    relatedness = sentspace.evaluate("relatedness", benchmark, "bow")
    assert relatedness.main_score == relatedness.pooled.spearman
    frame = relatedness.to_frame()
    assert list(frame.columns[:4]) == ["corpus", "task", "split", "metric"]
    assert set(frame.corpus) == {"STSBenchmark"} and set(frame.task) == {"relatedness"}
    assert set(frame.split) == {"test"}
    assert frame.metric.tolist() == ["pooled spearman", "pooled pearson", "pooled MSE"]

    ranking = sentspace.evaluate("ranking", "msrp-grouped", ["bow", "tfidf"])
    test = ranking.paired["tfidf"]
    # tfidf ranks partners better than bow: its difference from bow is positive.
    assert test.difference == pytest.approx(ranking[1].mrr - ranking[0].mrr)
    assert test.difference > 0
    assert "(other minus first)" in ranking._repr_html_()
