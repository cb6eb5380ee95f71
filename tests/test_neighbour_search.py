"""Nearest neighbours of a query across spaces, headless, on the bundled and MSRP corpora."""

import numpy as np
import pytest

from sentspace.app.analysis.neighbour_search import (
    CANNOT_ENCODE,
    Query,
    check_spaces,
    search_neighbours,
)
from sentspace.app.analysis.neighbours import top_k
from sentspace.app.base.jobs import Progress, run_job
from sentspace.app.corpora import load_corpus
from sentspace.models import make_encoder
from sentspace.models.precomputed import Precomputed

NASDAQ = "The Nasdaq composite index fell"


@pytest.fixture(scope="module")
def grouped():
    return load_corpus("msrp-grouped")


@pytest.fixture(scope="module")
def spaces(grouped):
    fitted = []
    for family in ("bow", "tfidf"):
        encoder = make_encoder(family).fit(grouped.texts)
        fitted.append((family, encoder, encoder.encode(grouped.texts)))
    return fitted


def search(corpus, spaces, query, k=10, pools=None):
    return run_job(search_neighbours(corpus, spaces, pools or [None] * len(spaces), query, k))


def test_a_sentence_finds_its_group_and_not_itself(grouped, spaces):
    assert list(grouped.groups.members(0)) == [0, 1, 2]
    answers, pools = search(grouped, spaces, Query(grouped.texts[0], 0))
    for answer, (_, _, embeddings) in zip(answers, spaces):
        assert len(answer.indices) == 10 and 0 not in answer.indices
        assert sorted(answer.indices[:2]) == [1, 2]
        assert answer.same_group.tolist() == [True, True] + [False] * 8
        # A grouped corpus has no pairs: no partners.
        assert not answer.partner.any() and answer.note == ""
        assert np.all(np.diff(answer.similarities) <= 0) and answer.similarities[0] <= 1
        expected, _ = top_k(embeddings[[0]], embeddings, 10, exclude=np.array([0]))
        assert answer.indices.tolist() == expected[0].tolist()
    # The normalised pools come back for the next query, which then gives the same answer.
    again, reused = search(grouped, spaces, Query(grouped.texts[0], 0), pools=pools)
    assert all(r is p for r, p in zip(reused, pools))
    assert [a.indices.tolist() for a in again] == [a.indices.tolist() for a in answers]


def test_typed_text_is_encoded_by_each_space(grouped, spaces):
    steps = []
    (bow, tfidf), _ = run_job(
        search_neighbours(grouped, spaces, [None, None], Query(NASDAQ), 10), steps.append
    )
    assert steps[-1] == Progress("nearest neighbours", 2, 2)
    # TF-IDF weighs the rare words: the three Nasdaq Composite sentences come first;
    # raw counts are swamped by "the".
    assert sorted(tfidf.indices[:3]) == [3, 4, 5]
    assert "Nasdaq" not in grouped.texts[bow.indices[0]]
    expected, _ = top_k(spaces[0][1].encode([NASDAQ]), spaces[0][2], 10)
    assert bow.indices.tolist() == expected[0].tolist()
    assert not bow.same_group.any() and not tfidf.partner.any()


def test_a_query_without_known_words_says_so(grouped, spaces):
    (bow, _), _ = search(grouped, spaces, Query("zzqx qqzv"))
    assert "no direction in bow" in bow.note and len(bow.indices) == 10
    assert not bow.similarities.any()


def test_partners_on_msrp_pairs(shared_data):
    corpus = load_corpus(shared_data / "msrp")
    encoder = make_encoder("tfidf").fit(corpus.texts)
    pairs = corpus.pairs
    first, second = int(pairs.first[0]), int(pairs.second[0])
    assert pairs.label[0] == 1
    [answer], _ = search(
        corpus,
        [("tfidf", encoder, encoder.encode(corpus.texts))],
        Query(corpus.texts[first], first),
    )
    assert answer.partner[answer.indices.tolist().index(second)]


def test_precomputed_answers_sentences_but_not_new_text(grouped, spaces, tmp_path):
    path = tmp_path / "bow.npy"
    np.save(path, np.asarray(spaces[0][2]))
    precomputed = Precomputed(path, grouped)
    stored = [("precomputed bow", precomputed, precomputed.aligned())]
    [typed], _ = search(grouped, stored, Query(NASDAQ))
    assert typed.note == CANNOT_ENCODE and len(typed.indices) == 0
    [sentence], _ = search(grouped, stored, Query(grouped.texts[0], 0))
    assert sorted(sentence.indices[:2]) == [1, 2] and sentence.note == ""


def test_spaces_must_be_fitted_and_one_row_per_sentence(grouped, spaces):
    check_spaces(grouped, spaces)
    with pytest.raises(ValueError, match="must be fitted"):
        check_spaces(grouped, [("tfidf", make_encoder("tfidf"), spaces[1][2])])
    with pytest.raises(ValueError, match="3 embeddings for 859 sentences"):
        check_spaces(grouped, [("bow", spaces[0][1], spaces[0][2][:3])])


def test_above_the_exact_limit_a_query_says_it_was_approximate(shared_data, monkeypatch):
    """All of MSRP (10,944) with glove-mean, the index forced by a low limit: a sentence and a
    typed query get the exact answer's neighbours, and a note with the index's recall."""
    from sentspace.app.analysis import ann

    corpus = load_corpus(shared_data / "msrp")
    encoder = make_encoder("glove-mean")
    glove = [("glove-mean", encoder, encoder.encode(corpus.texts))]
    exact, pools = search(corpus, glove, Query(NASDAQ))
    assert exact[0].note == ""
    monkeypatch.setattr(ann, "EXACT_LIMIT", 1_000)
    for query in (Query(NASDAQ), Query(corpus.texts[5], 5)):
        [answer], _ = search(corpus, glove, query, pools=pools)
        assert 5 not in answer.indices
        assert answer.note.startswith("Found approximate (IVF-SQ8, recall@10 ")
        recall = float(answer.note.split("recall@10 ")[1].split()[0])
        assert recall >= 0.95
    [typed], _ = search(corpus, glove, Query(NASDAQ), pools=pools)
    assert len(set(typed.indices) & set(exact[0].indices)) >= 9
