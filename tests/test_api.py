"""``import sentspace``: the stable names, and that they give the CLI's numbers."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sentspace
from sentspace.app.analysis.evaluations.classification import ClassificationResult
from sentspace.app.analysis.results import SCORE_COLUMNS
from sentspace.app.base.jobs import Progress
from sentspace.app.base.tables import json_text
from tests.printed import run_cli

ROOT = Path(__file__).resolve().parents[1]
PUBLIC = set(
    "load_corpus encoder encode evaluate project neighbours explain show evaluations "
    "read_mteb mteb_model where".split()
)
ERRORS = {"InputError", "NotFoundError", "CorpusError", "ModelError", "EvaluationError"}


@pytest.fixture(scope="module")
def corpus():
    return sentspace.load_corpus("msrp-grouped")


def test_the_public_names_exist_and_nothing_else_is_exported():
    assert set(sentspace.__all__) == PUBLIC | ERRORS
    assert all(callable(getattr(sentspace, name)) for name in PUBLIC)
    namespace = {}
    exec("from sentspace import *", namespace)
    assert set(namespace) - {"__builtins__"} == PUBLIC | ERRORS
    assert PUBLIC | ERRORS | {"__version__"} <= set(dir(sentspace))
    with pytest.raises(AttributeError):
        sentspace.Results  # noqa: B018 (returned, never imported by name)


def test_importing_sentspace_loads_nothing_until_a_name_is_used():
    """``python -m sentspace`` shows its window before numpy loads (test_lazy_imports)."""
    script = (
        "import sys, sentspace\nbefore = 'numpy' in sys.modules\n"
        "sentspace.load_corpus\nprint(before, 'numpy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


def test_an_evaluation_gives_the_numbers_sentspace_eval_prints(corpus):
    done = run_cli(*"eval classification --encoder bow --encoder tfidf --seed 3 --json".split())
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)

    results = sentspace.evaluate("classification", corpus, ["bow", "tfidf"], seed=3)
    assert all(isinstance(result, ClassificationResult) for result in results)
    assert [r.to_dict()["metric_table"] for r in results] == [
        r["metric_table"] for r in printed["results"]
    ]
    # Every per-item outcome too: the whole JSON but the time it was made.
    for result, printed_result in zip(results, printed["results"]):
        mine = json.loads(json_text(result.to_dict()))
        for entry in (mine, printed_result):
            del entry["provenance"]["created"]
        assert mine == printed_result
    [test] = printed["paired_tests"]
    assert results.paired["tfidf"].p_value == test["p_value"]
    assert "mean accuracy" in results.table() and "tfidf" in results.table()


def test_to_frame_holds_the_metric_rows(corpus):
    pd = pytest.importorskip("pandas")
    result = sentspace.evaluate("classification", corpus, "bow")
    frame = result.to_frame()
    assert list(frame.columns) == ["corpus", "task", "split", *SCORE_COLUMNS]
    assert set(zip(frame.corpus, frame.task, frame.split)) == {
        ("msrp-grouped", "classification", "all")
    }
    assert frame["metric"].tolist() == [score.name for score in result.scores()]
    assert frame["value"].tolist() == [score.value for score in result.scores()]
    assert frame["n"].tolist() == [859] * len(frame)
    # An interval where the score has one (accuracy's bootstrap), NaN where not.
    assert frame["ci_low"].isna().tolist() == [score.ci is None for score in result.scores()]
    assert frame["ci_low"].notna().any()
    # Several encoders stack, each row naming its encoder.
    both = sentspace.evaluate("classification", corpus, ["bow", "tfidf"]).to_frame()
    assert both["encoder"].tolist() == ["bow"] * len(frame) + ["tfidf"] * len(frame)
    pd.testing.assert_frame_equal(both[both.encoder == "bow"].drop(columns="encoder"), frame)


def test_a_comparison_returns_its_one_result(corpus):
    result = sentspace.evaluate("agreement", corpus, ["bow", "tfidf"])
    assert dict(result.summary())["sentences"] == "859 in 274 groups"
    with pytest.raises(ValueError, match="two or more"):
        sentspace.evaluate("agreement", corpus, ["bow"])


def test_options_are_checked_as_the_cli_checks_them(corpus):
    with pytest.raises(TypeError, match="takes no option 'split'"):
        sentspace.evaluate("classification", corpus, "bow", split="test")
    with pytest.raises(ValueError, match="unknown evaluation"):
        sentspace.evaluate("nonsense", corpus)


def test_a_list_of_texts_is_a_corpus_and_encodes_row_by_row():
    texts = ["the cat sat", "a dog ran", "the cat ran"]
    corpus = sentspace.load_corpus(texts)
    assert corpus.texts == tuple(texts) and corpus.ids == ("0", "1", "2")
    seen = []
    embeddings = sentspace.encode(texts, "bow", progress=seen.append)
    assert embeddings.shape[0] == 3
    assert seen and all(isinstance(step, Progress) for step in seen)
    cat_sat, _, cat_ran = embeddings
    assert cat_sat @ cat_ran == 2  # "the" and "cat"


def test_project_is_repeatable_by_seed(corpus):
    embeddings = sentspace.encode(corpus, "tfidf")
    first = sentspace.project(embeddings, "pca", seed=1)
    assert first.coordinates.shape == (859, 2)
    np.testing.assert_array_equal(
        first.coordinates, sentspace.project(embeddings, "pca", seed=1).coordinates
    )


def test_neighbours_are_the_nearest_by_cosine(corpus):
    embeddings = sentspace.encode(corpus, "tfidf")
    unit = embeddings / np.linalg.norm(embeddings, axis=1, keepdims=True)
    cosines = unit @ unit[10]
    cosines[10] = -np.inf  # a corpus sentence is not its own neighbour
    found = sentspace.neighbours(corpus, embeddings, 10, k=5)
    np.testing.assert_allclose(found.similarities, np.sort(cosines)[::-1][:5], rtol=1e-5)
    assert found.texts == tuple(corpus.texts[i] for i in found.indices)
    assert found.same_group.any()  # msrp-grouped: paraphrases lie close
    # Its text finds the same neighbours; typed text needs the encoder.
    by_text = sentspace.neighbours(corpus, embeddings, corpus.texts[10], k=5)
    np.testing.assert_array_equal(by_text.indices, found.indices)
    with pytest.raises(ValueError, match="pass an encoder"):
        sentspace.neighbours(corpus, embeddings, "no such sentence")
    typed = sentspace.neighbours(corpus, "tfidf", corpus.texts[10], k=1)
    assert typed.indices.tolist() == [10] and typed.similarities[0] == pytest.approx(1)


def test_explain_splits_the_cosine_over_words():
    a, b = "the cat sat on the mat", "the dog sat on the mat"
    explanation = sentspace.explain(a, b, "bow")
    u, v = sentspace.encoder("bow").fit([a, b]).encode([a, b])
    assert explanation.cosine == pytest.approx(u @ v / np.linalg.norm(u) / np.linalg.norm(v))
    assert dict(zip(explanation.tokens_a, explanation.contribution_a))["cat"] == 0
    assert explanation.contribution_a.sum() == pytest.approx(explanation.cosine)


def test_evaluations_are_listed_with_what_a_corpus_needs():
    from sentspace.app.analysis.evaluations import COMPARISONS, EVALUATIONS, applicable_evaluations

    listed = sentspace.evaluations()
    assert [e.name for e in listed] == [*EVALUATIONS, *COMPARISONS]
    assert all(e.description and e.needs and e.applies is None for e in listed)
    msrp = sentspace.load_corpus("msrp-grouped")
    assert [
        e.name for e in sentspace.evaluations(msrp) if e.applies and e.name in EVALUATIONS
    ] == applicable_evaluations(msrp)


def test_every_public_function_has_an_example_and_the_examples_run():
    import doctest

    from sentspace import _api

    without = [name for name in PUBLIC if ">>> " not in (getattr(sentspace, name).__doc__ or "")]
    assert without == []
    failed, tried = doctest.testmod(_api)
    assert failed == 0 and tried >= len(PUBLIC)


def test_mteb_files_are_read_back_as_written(shared_data, tmp_path):
    benchmark = sentspace.load_corpus(shared_data / "sts" / "STSBenchmark")
    result = sentspace.evaluate("relatedness", benchmark, "bow", split="test")
    result.to_mteb(tmp_path)
    [imported] = sentspace.read_mteb(tmp_path).results
    assert (imported.task, imported.model) == ("STSBenchmark", "sentspace/bow")
    # Rounded to 6 decimals, as mteb writes its scores.
    assert imported.main_score == pytest.approx(result.pooled.spearman, abs=5e-7)
