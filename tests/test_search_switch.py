"""One switch, ``--search auto|exact|ann``, on every command that looks for nearest
neighbours, on the full MSRP (10,944 sentences) with GloVe means: ``exact`` never builds
an index, ``ann`` always does and says how well it did."""

import json

import numpy as np
import pytest

from sentspace.app.analysis import ann
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main


@pytest.fixture
def no_index(monkeypatch):
    """``auto`` would index MSRP (the limit is 100), and building an index fails."""
    monkeypatch.setattr(ann, "EXACT_LIMIT", 100)

    def refuse(*args, **kwargs):
        raise AssertionError("an index was built")

    monkeypatch.setattr(ann, "iter_build_index", refuse)


QUERY = "The stock market fell sharply on Monday."
SUSPICIOUS = "suspicious --corpus msrp-grouped --encoder glove-mean --top 2".split()


def test_exact_never_builds_an_index(shared_data, no_index, capsys):
    msrp = str(shared_data / "msrp")
    assert (
        main(
            ["neighbours", "--corpus", msrp, "--encoder", "glove-mean", "--search", "exact", QUERY]
        )
        == 0
    )
    assert "Found exactly." in capsys.readouterr().out
    assert main([*SUSPICIOUS, "--search", "exact"]) == 0
    out = capsys.readouterr().out
    assert out.count("neighbour search: exact") == 2 and "approximate" not in out
    assert (
        main(
            [
                "eval",
                "ranking",
                "--corpus",
                msrp,
                "--encoder",
                "glove-mean",
                "--search",
                "exact",
                "--json",
            ]
        )
        == 0
    )
    [result] = json.loads(capsys.readouterr().out)["results"]
    assert result["search"]["method"] == "exact" and "MRC" in result["metrics"]
    # The same switch reaches the explorer's faithfulness.
    from sentspace.app.analysis.explore import explore
    from sentspace.app.corpora import load_corpus
    from sentspace.models import make_encoder

    corpus = load_corpus(shared_data / "msrp")
    exploration = run_job(explore(corpus, make_encoder("glove-mean"), search="exact"))
    assert exploration.faithfulness.search.method == "exact"
    with pytest.raises(AssertionError, match="an index was built"):
        run_job(explore(corpus, make_encoder("glove-mean")))


def test_ann_forced_on_msrp_reports_its_recall(shared_data, capsys):
    msrp = str(shared_data / "msrp")
    assert (
        main(
            [
                "neighbours",
                "--corpus",
                msrp,
                "--encoder",
                "glove-mean",
                "--search",
                "ann",
                "--k",
                "5",
                QUERY,
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "Found approximate (IVF-SQ8, recall@5" in out and "on 1,000 queries" in out
    assert main([*SUSPICIOUS, "--search", "ann"]) == 0
    out = capsys.readouterr().out
    assert out.count("neighbour search: approximate (IVF-SQ8, recall@") == 2
    assert (
        main(["eval", "ranking", "--corpus", msrp, "--encoder", "glove-mean", "--search", "ann"])
        == 0
    )
    out = capsys.readouterr().out
    assert "approximate (IVF-SQ8, recall@101" in out and "\nMRC " not in out
    assert main(["eval", "classification", "--search", "ann"]) == 2
    assert "classification takes no --search" in capsys.readouterr().err


def test_ranking_through_the_index_matches_exact(shared_data):
    """MSRP paraphrase ranking (7,800 queries against the 10,944 sentences) from each
    query's 101 approximate neighbours: every accuracy@k and MRR within 0.002 of the
    exact scan, and the ranks it counts are the exact ones (ties included) for all but
    1% of the queries."""
    from sentspace.app.analysis.evaluations.ranking import iter_evaluate_ranking
    from sentspace.app.corpora import load_corpus
    from sentspace.models import make_encoder

    corpus = load_corpus(shared_data / "msrp")
    embeddings = make_encoder("glove-mean").encode(corpus.texts)
    exact = run_job(iter_evaluate_ranking(corpus, embeddings, n_resamples=0))
    approximate = run_job(iter_evaluate_ranking(corpus, embeddings, n_resamples=0, search="ann"))
    assert not exact.approximate and approximate.approximate
    assert approximate.search.recall >= 0.95 and approximate.search.k == 101
    assert set(exact.metrics()) - set(approximate.metrics()) == {"MRC"}
    for name, value in approximate.metrics().items():
        assert abs(value - exact.metrics()[name]) < 0.002, name
    counted = np.isfinite(approximate.rank)
    assert (exact.rank[~counted] > 100).all()
    assert (approximate.rank[counted] != exact.rank[counted]).mean() < 0.01
    summary = dict(approximate.summary())
    assert summary["partners beyond rank 100"].startswith(f"{(~counted).sum()} ")
    assert summary["neighbour search"].startswith("approximate (IVF-SQ8, recall@101")


def test_neighbours_of_a_corpus_sentence_and_bad_queries(capsys):
    assert (
        main(
            [
                "neighbours",
                "--corpus",
                "msrp-grouped",
                "--encoder",
                "tfidf",
                "--index",
                "0",
                "--k",
                "3",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert out.count("\n") >= 6 and "Found exactly." in out
    assert main(["neighbours", "--corpus", "msrp-grouped", "--index", "859"]) == 2
    assert "--index 859 is not a sentence" in capsys.readouterr().err
    assert main(["neighbours", "--corpus", "msrp-grouped", "--index", "1", "text"]) == 2
    assert "not both" in capsys.readouterr().err
