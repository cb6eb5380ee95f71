"""Paraphrase ranking on paraphrase-grouped corpora: every ordered pair of two members of
a group is a query (White et al.'s msrp-grouped, Multi30K's captions); MSRP's labelled
pairs keep their queries and numbers."""

import json

import numpy as np
import pytest

from sentspace.app.analysis.evaluations import applicable_evaluations
from sentspace.app.analysis.evaluations.ranking import (
    iter_evaluate_ranking,
    ranking_queries,
    run_ranking,
)
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus, Grouping
from sentspace.app.workspace.codec import decode_state, encode_state
from sentspace.models.bow import BagOfWords


@pytest.fixture(scope="module")
def captions(shared_data):
    return load_corpus("multi30k-captions:en:val")


@pytest.fixture(scope="module")
def captions_bow(captions):
    return run_job(run_ranking(captions, BagOfWords()))


def ordered_pairs_per_group(corpus):
    """Sum of k(k-1) over the group sizes, counted from each sentence's group label."""
    _, sizes = np.unique(corpus.groups.labels(len(corpus)), return_counts=True)
    return int(np.sum(sizes * (sizes - 1)))


@pytest.mark.parametrize(
    "spec, expected", [("msrp-grouped", 1_872), ("multi30k-captions:en:val", 20_280)]
)
def test_every_ordered_pair_within_a_group_is_one_query(shared_data, spec, expected):
    """msrp-grouped: 240 groups of 3, 31 of 4, 3 of 5 give 240*6 + 31*12 + 3*20 = 1,872;
    the val captions: 1,014 images of 5 give 1,014*20 = 20,280."""
    corpus = load_corpus(spec)
    pair_index, query, target, n_self = ranking_queries(corpus)
    assert len(query) == ordered_pairs_per_group(corpus) == expected and n_self == 0
    assert np.all(pair_index == -1)  # no row of corpus.pairs behind them
    label = corpus.groups.labels(len(corpus))
    assert np.all(label[query] == label[target]) and np.all(query != target)
    assert len(set(zip(query.tolist(), target.tolist()))) == expected  # each once
    assert "ranking" in applicable_evaluations(corpus)


def test_groups_of_one_give_no_query_and_other_kinds_are_not_paraphrases():
    texts = ("a cat sits", "a cat is sitting", "a dog runs", "the sky")
    ids = tuple(map(str, range(4)))

    def corpus(kind, groups):
        sentence, group = zip(*[(s, g) for g, members in enumerate(groups) for s in members])
        return Corpus(
            "toy",
            texts,
            ids,
            groups=Grouping(
                kind,
                np.array(sentence),
                np.array(group),
                tuple(f"g{g}" for g in range(len(groups))),
            ),
        )

    toy = corpus("paraphrase group", [(0, 1), (2,), (3,)])
    pair_index, query, target, _ = ranking_queries(toy)
    assert (query.tolist(), target.tolist()) == ([0, 1], [1, 0])
    for kind in ("class", "SCU", "topic"):
        assert "ranking" not in applicable_evaluations(corpus(kind, [(0, 1), (2, 3)]))
    singletons = corpus("paraphrase group", [(0,), (1,), (2,), (3,)])
    assert "ranking" not in applicable_evaluations(singletons)
    with pytest.raises(EvaluationError, match="paraphrase"):
        next(run_ranking(singletons, BagOfWords()))


def test_splits_select_pairs_and_groups_have_none(grouped):
    with pytest.raises(EvaluationError, match="paraphrase groups, which have no pair splits"):
        next(run_ranking(grouped, BagOfWords(), splits=("train",)))


def test_bag_of_words_finds_another_caption_of_the_image_far_above_chance(captions_bow):
    """Val captions, 20,280 queries against 5,069 other sentences. Chance is rank ~2,535
    (accuracy@100 100/5,069 = 0.020, MRR 0.0018); bag of words: accuracy@1 0.066, @10
    0.202, @100 0.375, MRR 0.113, MRC 1,035. Four partners compete for rank 1, so a
    perfect ranking scores accuracy@1 1/4 and MRR (1 + 1/2 + 1/3 + 1/4) / 4."""
    result = captions_bow
    metrics = result.metrics()
    assert len(result.rank) == 20_280 and result.pool_size == 5_070
    assert result.from_groups and not result.approximate
    assert 0.05 <= metrics["accuracy@1"] <= 0.09
    assert 0.17 <= metrics["accuracy@10"] <= 0.24
    assert 0.33 <= metrics["accuracy@100"] <= 0.42  # 17x chance
    assert 0.09 <= metrics["MRR"] <= 0.14  # 60x chance
    assert 900 <= metrics["MRC"] <= 1_200  # chance: 2,535
    perfect = result.perfect_metrics()
    assert perfect["accuracy@1"] == 0.25 and perfect["accuracy@10"] == 1.0
    assert perfect["MRR"] == pytest.approx(25 / 48) and perfect["MRC"] == 2.5
    rows = dict(result.summary())
    assert rows["queries from"] == "ordered pairs within paraphrase groups"
    assert rows["a perfect ranking scores"] == "accuracy@1 0.2500, MRR 0.5208"


def test_intervals_resample_whole_images(captions_bow):
    """The 20 queries of one image are not 20 observations: the interval resamples the
    1,014 images, and is wider than one that resamples the 20,280 queries."""
    from sentspace.app.analysis.evaluations import statistics

    result = captions_bow
    hits = (result.rank <= 1).astype(np.float64)
    by_query = statistics.cis(
        {"a": (statistics.mean, hits, None)}, n_resamples=1000, confidence=0.95, seed=0
    )["a"]
    low, high = result.ci["accuracy@1"]
    assert low < result.metrics()["accuracy@1"] < high
    # Measured: 0.0085 wide by image against 0.0066 by query (1.29x).
    assert high - low > 1.15 * (by_query[1] - by_query[0])


def test_json_names_each_query_by_its_group_and_a_workspace_keeps_it(captions, captions_bow):
    result = captions_bow
    record = json.loads(json.dumps(result.to_dict()))
    first = record["queries"][0]
    assert set(first) == {"group", "query", "target", "rank", "similarity"}
    members = captions.groups.members(0)
    assert first["group"] == captions.groups.names[0]
    assert (first["query"], first["target"]) == (captions.ids[members[0]], captions.ids[members[1]])
    assert record["queries_from"] == "paraphrase groups"
    assert record["perfect"]["accuracy@1"] == 0.25
    kept = decode_state(encode_state(result), captions)
    assert kept.from_groups and kept.summary() == result.summary()
    for name in ("pair_index", "pair_id", "query", "target", "rank"):
        np.testing.assert_array_equal(getattr(kept, name), getattr(result, name))


def test_msrp_pair_ranking_is_unchanged(shared_data):
    """MSRP's 3,900 positive pairs both ways against its 10,944 sentences, bag of words,
    the counts and MRR computed before ranking took groups."""
    msrp = load_corpus(shared_data / "msrp")
    result = run_job(run_ranking(msrp, BagOfWords(), n_resamples=0))
    assert len(result.rank) == 7_800 and result.pool_size == 10_944
    assert not result.from_groups and np.all(result.pair_index >= 0)
    assert [int(np.sum(result.rank <= k)) for k in (1, 10, 100)] == [6_420, 7_562, 7_733]
    assert result.rank.sum() == 47_092
    assert result.mrr == pytest.approx(0.8857780366387176, abs=1e-12)
    assert "queries from" not in dict(result.summary())
    assert set(result.to_dict()["queries"][0]) == {
        "pair",
        "row",
        "query",
        "target",
        "rank",
        "similarity",
    }


def test_approximate_search_of_groups_counts_ranks_as_exact(grouped):
    """Through the index (forced on msrp-grouped's 859 sentences), each sentence is
    searched once for its two to four partners; the ranks it counts within 100 are the
    exact ones for all but 1% of the 1,872 queries (0.2% with bag of words)."""
    X = BagOfWords().fit(grouped.texts).encode(grouped.texts)
    exact = run_job(iter_evaluate_ranking(grouped, X, n_resamples=0, search="exact"))
    approximate = run_job(iter_evaluate_ranking(grouped, X, n_resamples=0, search="ann"))
    assert approximate.approximate and "MRC" not in approximate.metrics()
    within = exact.rank <= 100
    assert np.mean(approximate.rank[within] == exact.rank[within]) >= 0.99
    assert np.all(np.isinf(approximate.rank[~within]))
    for k in (1, 10, 100):
        assert abs(approximate.accuracy_at(k) - exact.accuracy_at(k)) <= 0.005
