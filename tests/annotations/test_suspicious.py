"""Suspicious-annotation finders on the real corpora, checked against brute force."""

import numpy as np
import pytest
import scipy.sparse as sp

from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.evaluations.costra import evaluate_costra
from sentspace.app.analysis.suspicious import (
    close_groups,
    costra_consensus_errors,
    find_suspicious,
    gold_disagreements,
    iter_find_suspicious,
    misgrouped,
    scu_outliers,
    spread_groups,
)
from sentspace.app.annotations.edits import MoveSentence, SplitGroup, apply
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.costra import load_costra
from sentspace.app.corpora.pyramid import load_pyramid
from sentspace.app.corpora.sick import load_sick
from sentspace.models import make_encoder


def encode(corpus, family):
    return run_job(encode_corpus(corpus, make_encoder(family)))


@pytest.fixture(scope="module")
def msrp():
    corpus = load_corpus("msrp-grouped")
    return corpus, {"bow": encode(corpus, "bow")}


def cosine_matrix(embeddings):
    dense = embeddings.toarray() if sp.issparse(embeddings) else embeddings
    unit = dense / np.linalg.norm(dense, axis=1, keepdims=True)
    return unit.astype(np.float64) @ unit.T.astype(np.float64)


def test_misgrouped_on_grouped_msrp_with_bow(msrp):
    corpus, embeddings = msrp
    found = misgrouped(corpus, embeddings)
    names = corpus.groups.names
    assert len(found) == 859  # every sentence is in a group of 3-5
    assert len(found.flagged(0.5)) == 14
    assert len(found.flagged(0.99)) == 9
    assert int((found.share_outside > 0).sum()) == 81
    # The top item: a Supreme Court dissent sentence whose two nearest neighbours are in
    # another group about the same dissent.
    assert corpus.ids[found.sentence[0]] == "L328"
    assert (names[found.group[0]], names[found.likely_group[0]]) == ("107", "228")
    assert found.own_cosine[0] == pytest.approx(0.66512, abs=1e-5)
    assert found.likely_cosine[0] == pytest.approx(0.83785, abs=1e-5)
    assert "228" in found.why(0) and found.key(0) == "sentence:L328"


def test_misgrouped_matches_brute_force(msrp):
    corpus, embeddings = msrp
    found = misgrouped(corpus, embeddings)
    cosine = cosine_matrix(embeddings["bow"])
    labels = corpus.groups.labels(len(corpus))
    sizes = corpus.groups.sizes
    for row in range(0, len(found), 37):
        s, g = found.sentence[row], found.group[row]
        k = min(10, sizes[g] - 1)
        similar = cosine[s].copy()
        similar[s] = -np.inf
        order = np.lexsort((np.arange(len(corpus)), -np.round(similar, 5)))[:k]
        # Ties at the k-th place may resolve either way; compare where they do not.
        if np.isclose(similar[order[-1]], np.sort(similar)[::-1][k]):
            continue
        assert found.share_outside[row] == pytest.approx(np.mean(labels[order] != g))
        others = corpus.groups.members(g)
        others = others[others != s]
        assert found.own_cosine[row] == pytest.approx(cosine[s, others].mean(), abs=1e-5)


def test_a_deliberately_misplaced_sentence_tops_the_list(msrp):
    corpus, embeddings = msrp
    groups = corpus.groups
    wrong = groups.names[groups.labels(len(corpus))[400]]  # an unrelated group
    moved = apply(corpus, [MoveSentence(sentence="L1", source="0", target=wrong)])
    found = misgrouped(moved, embeddings)
    assert found.sentence[0] == 0
    assert moved.groups.names[found.group[0]] == wrong == "130"
    assert moved.groups.names[found.likely_group[0]] == "0"  # where it came from
    assert found.share_outside[0] == 1.0
    assert len(found.flagged(0.5)) == 16


def test_spread_groups_cohesion_is_the_mean_pair_cosine(msrp):
    corpus, embeddings = msrp
    found = spread_groups(corpus, embeddings)
    cosine = cosine_matrix(embeddings["bow"])
    assert len(found) == 274
    assert corpus.groups.names[found.group[0]] == "60"
    assert found.z[0] == pytest.approx(-3.5285, abs=1e-4)
    for row in (0, 100, 273):
        members = corpus.groups.members(found.group[row])
        block = cosine[np.ix_(members, members)]
        expected = (block.sum() - np.trace(block)) / (len(members) * (len(members) - 1))
        assert found.cohesion[row] == pytest.approx(expected, abs=1e-5)
    n = len(corpus)
    assert found.corpus_cosine[0] == pytest.approx((cosine.sum() - n) / (n * (n - 1)), abs=1e-5)
    assert np.all(np.diff(found.z) >= 0)


def test_close_groups_cross_cosine_and_no_positive_margin_on_msrp(msrp):
    corpus, embeddings = msrp
    found = close_groups(corpus, embeddings)
    cosine = cosine_matrix(embeddings["bow"])
    names = corpus.groups.names
    assert (names[found.first[0]], names[found.second[0]]) == ("69", "217")
    assert found.margin[0] == pytest.approx(-0.0196, abs=1e-4)
    # White et al.'s groups are well separated under bag of words: no pair is closer
    # across than within.
    assert int((found.margin > 0).sum()) == 0
    a, b = corpus.groups.members(found.first[0]), corpus.groups.members(found.second[0])
    assert found.cross_cosine[0] == pytest.approx(cosine[np.ix_(a, b)].mean(), abs=1e-5)
    assert len(found) <= corpus.groups.n_groups * 5


def test_merging_a_split_group_is_proposed(msrp):
    corpus, embeddings = msrp
    members = corpus.groups.members(0)
    split = apply(corpus, [SplitGroup(group="0", members=(corpus.ids[members[0]],), target="1000")])
    found = close_groups(split, embeddings)
    names = split.groups.names
    assert {names[found.first[0]], names[found.second[0]]} == {"0", "1000"}
    assert found.margin[0] > 0


def test_gold_disagreements_on_sick(shared_data):
    corpus = load_sick(shared_data / "sick")
    found = gold_disagreements(corpus, {"bow": encode(corpus, "bow")})
    assert len(found) == 9927
    top = found.pair[0]
    assert corpus.texts[corpus.pairs.first[top]] == "A woman is playing a flute"
    assert found.gold[0] == 5.0
    assert found.cosine[0] == pytest.approx(0.33541, abs=1e-5)
    assert found.disagreement[0] == pytest.approx(0.8776, abs=1e-4)
    assert np.all(np.diff(found.disagreement) <= 0)
    # The pair column names SICK's pair_ID, not the row in corpus.pairs.
    shown = dict(found.columns())["pair"]
    assert list(shown) == [corpus.pairs.ids[p] for p in found.pair.tolist()]
    assert shown[0] != str(top)


def test_scu_outliers_and_costra_consensus(shared_data):
    pyramid = load_pyramid(shared_data / "pyramid-sample" / "T0001.pyr")
    scu = scu_outliers(pyramid, {"bow": encode(pyramid, "bow")})
    assert len(scu) == 14 and scu.share_outside[0] == 0.5
    with pytest.raises(EvaluationError, match="not SCUs"):
        scu_outliers(load_corpus("msrp-grouped"), {"bow": np.zeros((859, 2), np.float32)})

    costra = load_costra(shared_data / "costra")
    embeddings = {"bow": encode(costra, "bow"), "tfidf": encode(costra, "tfidf")}
    found = costra_consensus_errors(costra, embeddings)
    failing = [~evaluate_costra(costra, m).passed for m in embeddings.values()]
    assert len(found) == int(np.logical_and(*failing).sum()) == 29306
    assert np.all(found.margin_by_encoder[np.isfinite(found.margin_by_encoder)] <= 0)
    assert found.best_margin[0] == pytest.approx(-0.937, abs=1e-3)


def test_find_suspicious_runs_what_applies_with_several_encoders(msrp):
    corpus, _ = msrp
    found = run_job(iter_find_suspicious(corpus, [make_encoder("bow"), make_encoder("tfidf")]))
    assert list(found) == ["misgrouped", "split", "merge"]
    table = found["misgrouped"]
    assert table.encoder_names == ("bow", "tfidf")
    assert table.share_outside_by_encoder.shape == (859, 2)
    assert np.allclose(table.share_outside, table.share_outside_by_encoder.mean(axis=1))
    headers = [header for header, _ in table.columns()]
    assert "share outside [tfidf]" in headers
    assert all(len(values) == len(table) for _, values in table.columns())
    assert find_suspicious(corpus, {"bow": encode(corpus, "bow")}).keys() == found.keys()


def test_the_tables_report_progress_inside_the_neighbour_search_and_cancel(monkeypatch):
    """What a million sentences need in the GUI: each table is a stage, the index build
    and search report their own progress, and closing the job at any of those steps
    stops it (grouped MSRP with glove-mean, the index forced by a low limit)."""
    from sentspace.app.analysis import ann
    from sentspace.app.base.jobs import Progress

    corpus = load_corpus("msrp-grouped")
    glove = {"glove-mean": encode(corpus, "glove-mean")}
    monkeypatch.setattr(ann, "EXACT_LIMIT", 100)
    monkeypatch.setattr(ann, "BUILD_CHUNK", 200)
    job = iter_find_suspicious(corpus, [make_encoder("glove-mean")])
    stages = []
    for step in job:
        assert isinstance(step, Progress)
        stages.append(step.stage)
        if step.stage.startswith("building the neighbour index") and step.done:
            job.close()  # as Cancel does, between two chunks of the build
            break
    assert "finding sentences that may be in the wrong group" in stages
    with pytest.raises(StopIteration):
        next(job)
    stages = [
        step.stage for step in _steps(iter_find_suspicious(corpus, [make_encoder("glove-mean")]))
    ]
    assert stages.index("finding groups that may need merging") > stages.index(
        "searching the neighbour index"
    )
    assert find_suspicious(corpus, glove)["merge"].searches[0].approximate


def _steps(job):
    while True:
        try:
            yield next(job)
        except StopIteration:
            return
