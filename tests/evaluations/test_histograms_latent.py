import numpy as np
import pytest

from sentspace.app.analysis.evaluations.histograms import run_histograms, word_overlap
from sentspace.app.analysis.evaluations.latent import run_latent
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus, PairTable
from sentspace.models.bow import BagOfWords

from ._pairs import msrp, sick


def test_similarity_and_overlap_histograms_on_real_pairs(shared_data):
    corpus = msrp(shared_data, n_per_file=300)
    result = run_job(run_histograms(corpus, BagOfWords()))
    positive = corpus.pairs.label == 1
    assert result.side_names == ("positive", "negative")
    np.testing.assert_array_equal(result.cosine_edges, np.linspace(-1, 1, 41))
    np.testing.assert_array_equal(
        result.cosine_counts[0], np.histogram(result.cosine[positive], result.cosine_edges)[0]
    )
    assert result.overlap_counts.sum() == len(corpus.pairs)
    # "Amrozi accused ... evidence." pair: 12 shared of 18 distinct words.
    assert result.overlap[0] == pytest.approx(
        len(
            set(
                "amrozi accused his brother whom he called the witness of deliberately "
                "distorting evidence".split()
            )
            & set(
                "referring to him as only the witness amrozi accused his brother of "
                "deliberately distorting evidence".split()
            )
        )
        / 18
    )
    scored = run_job(run_histograms(sick(shared_data, n_per_file=100), BagOfWords(), threshold=4.0))
    assert scored.side_names == ("score >= 4", "score < 4")
    assert scored.cosine_counts[0].sum() == np.sum(
        sick(shared_data, n_per_file=100).pairs.score >= 4
    )


def test_overlap_of_sentences_without_words_is_zero():
    corpus = Corpus("x", ("...", "!"), ("1", "2"))
    assert word_overlap(corpus, np.array([0]), np.array([1]))[0] == 0.0


def test_latent_probe_on_the_soup_sentences(shared_data):
    corpus = load_corpus(shared_data / "latent-relatedness" / "soup.tsv")
    assert len(corpus) == 6 and corpus.groups.names == ("1", "2")
    result = run_job(run_latent(corpus, BagOfWords()))
    n = 6
    assert result.rank.shape == (n, n) and np.all(np.diag(result.rank) == 0)
    for i in range(n):
        others = np.sort(result.rank[i][np.arange(n) != i])
        assert others[-1] == n - 1  # pessimistic ranks reach the end
    same = result.group[:, None] == result.group[None, :]
    i = 0
    sims = result.similarity[i]
    assert result.gap[i] == pytest.approx(
        np.nanmin(np.where(same[i], sims, np.nan)) - np.max(sims[~same[i]])
    )
    assert 0 < result.mean_average_precision <= 1
    with pytest.raises(EvaluationError, match="groups"):
        next(run_latent(Corpus("x", ("a",), ("1",)), BagOfWords()))


def test_histograms_refuse_pairs_without_labels_or_scores():
    corpus = Corpus(
        "x", ("a", "b"), ("1", "2"), pairs=PairTable([0], [1], [-1], [np.nan], ("test",), ("s",))
    )
    with pytest.raises(EvaluationError):
        next(run_histograms(corpus, BagOfWords()))
