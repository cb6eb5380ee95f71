"""Evaluations of the sentences that pass a filter (``where``): on the real SICK and
MSRP files, the items kept are those an independent reading of the files counts, the
number is the one computed by hand on them, only their sentences are encoded, and the
expression is recorded; evaluations that cannot be restricted say so by name."""

import csv
import dataclasses

import numpy as np
import pytest
from scipy import stats

import sentspace
from sentspace.app.analysis.evaluations import EVALUATIONS
from sentspace.app.analysis.evaluations.passing import FILTERABLE, UNFILTERABLE
from sentspace.app.analysis.evaluations.ranking import ranking_queries
from sentspace.app.base.errors import InputError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Grouping
from sentspace.models import make_encoder
from sentspace.models.base import fitted_copy

LONG = "words > 12"


@pytest.fixture(scope="module")
def sick(shared_data):
    return load_corpus(shared_data / "sick")


class Recording:
    """A model of your own that says which sentences it was asked to encode."""

    def __init__(self):
        self.encoded: list[str] = []

    def encode(self, texts, **options):
        self.encoded += texts
        return np.array([[len(text), text.count(" ") + 1.0] for text in texts])


def long_test_pairs(path):
    """SICK's test pairs whose two sentences have more than 12 words, read from the file."""
    with open(path, encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [
            (row["pair_ID"], row["sentence_A"], row["sentence_B"], float(row["relatedness_score"]))
            for row in rows
            if len(row["sentence_A"].split()) > 12 and len(row["sentence_B"].split()) > 12
        ]


def test_relatedness_of_long_sentences_is_bow_on_those_pairs_by_hand(sick, shared_data):
    result = run_job(
        EVALUATIONS["relatedness"][0](sick, make_encoder("bow"), seed=0, split="test", where=LONG)
    )
    expected = long_test_pairs(shared_data / "sick" / "SICK_test_annotated.txt")
    assert len(expected) == result.pooled.n_pairs == 553 < 4927
    assert sorted(result.pair_id.tolist()) == sorted(pair for pair, *_ in expected)
    assert result.provenance.parameters["where"] == LONG
    assert result.evaluated == "test 553"
    # By hand: bow fitted on every sentence of SICK, as the evaluation fits it.
    bow = run_job(fitted_copy(make_encoder("bow"), sick.texts))
    a = bow.encode([text for _, text, _, _ in expected])
    b = bow.encode([text for _, _, text, _ in expected])
    a, b = (np.asarray(m.todense() if hasattr(m, "todense") else m, float) for m in (a, b))
    cosine = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    cosine = np.round(cosine, 12)  # pairs of equal counts tie exactly, as they should
    by_hand = stats.spearmanr(cosine, [gold for *_, gold in expected]).statistic
    assert result.pooled.spearman == pytest.approx(by_hand, abs=1e-9)
    assert round(result.pooled.spearman, 4) == 0.5838


def test_only_the_sentences_of_the_kept_pairs_are_encoded(sick):
    model = Recording()
    result = sentspace.evaluate("relatedness", sick, model, split="test", where=LONG)
    pairs = sick.checked_pairs
    read = np.union1d(pairs.first[result.pair_index], pairs.second[result.pair_index])
    assert sorted(model.encoded) == sorted(sick.texts[k] for k in read)
    assert all(len(text.split()) > 12 for text in model.encoded)


def test_ranking_ranks_within_the_passing_pool(shared_data):
    corpus = load_corpus("msrp-grouped")
    model = Recording()
    result = sentspace.evaluate("ranking", corpus, model, where="words > 20")
    long = [len(text.split()) > 20 for text in corpus.texts]
    groups = corpus.checked_groups
    members = [
        sum(long[s] for s in groups.members(g)) for g in range(groups.n_groups)
    ]  # the passing members of each group: m of them give m(m - 1) queries
    assert len(result.rank) == sum(m * (m - 1) for m in members) == 722
    assert result.pool_size == sum(long) == len(model.encoded) == 416
    assert all(long[q] and long[t] for q, t in zip(result.query, result.target))
    assert result.rank.max() <= result.pool_size - 1


def test_ranking_counts_the_self_pairs_of_passing_sentences_only():
    """msrp-grouped with each group's first member listed twice: 274 self-pairs, of which
    the filter keeps those of a first member of more than 20 words."""
    corpus = load_corpus("msrp-grouped")
    groups = corpus.checked_groups
    first = np.array([groups.members(g)[0] for g in range(groups.n_groups)])
    twice = dataclasses.replace(
        corpus,
        groups=Grouping(
            groups.kind,
            np.concatenate([groups.sentence_index, first]),
            np.concatenate([groups.group_index, np.arange(groups.n_groups)]),
            groups.names,
        ),
    )
    long_first = sum(len(corpus.texts[s].split()) > 20 for s in first)
    assert ranking_queries(twice)[3] == len(first) == 274
    assert ranking_queries(twice, where="words > 20")[3] == long_first == 140


def test_classification_keeps_groups_with_three_passing_members():
    corpus = load_corpus("msrp-grouped")
    result = sentspace.evaluate("classification", corpus, "bow", where="words > 20")
    groups = corpus.checked_groups
    long = np.array([len(text.split()) > 20 for text in corpus.texts])
    kept = [groups.members(g)[long[groups.members(g)]] for g in range(groups.n_groups)]
    kept = [members for members in kept if len(members) >= 3]
    assert len(result.group_names) == len(kept)
    assert sorted(result.sentence_index.tolist()) == sorted(np.concatenate(kept).tolist())


def long_msrp_test_pairs(path):
    """MSRP's test rows whose two sentences have more than 20 words, read from the file."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    return [row for row in rows if len(row[3].split()) > 20 and len(row[4].split()) > 20]


def test_detection_keeps_the_pairs_of_two_passing_sentences(shared_data):
    path = shared_data / "msrp" / "msr_paraphrase_test.txt"
    result = sentspace.evaluate("detection", str(path), "bow", where="words > 20")
    long = long_msrp_test_pairs(path)
    assert len(result.pair_index) == len(long)
    assert int(result.label.sum()) == sum(row[0] == "1" for row in long)


def test_histograms_count_the_pairs_of_two_passing_sentences(shared_data):
    path = shared_data / "msrp" / "msr_paraphrase_test.txt"
    model = Recording()
    result = sentspace.evaluate("histograms", str(path), model, where="words > 20")
    long = long_msrp_test_pairs(path)
    positive = sum(row[0] == "1" for row in long)
    assert len(result.pair_index) == len(long) == 468
    assert result.cosine_counts.sum(axis=1).tolist() == [positive, len(long) - positive]
    assert result.overlap_counts.sum() == len(long)
    assert sorted(set(model.encoded)) == sorted({text for row in long for text in row[3:5]})
    assert result.provenance.parameters["where"] == "words > 20"


def test_a_bad_expression_and_an_evaluation_without_items_are_named(sick):
    bow = make_encoder("bow")
    with pytest.raises(InputError, match=r"column 1 \('wordz'\): no column is called wordz"):
        run_job(EVALUATIONS["relatedness"][0](sick, bow, where="wordz > 3"))
    for name, reason in UNFILTERABLE.items():
        with pytest.raises(ValueError, match=f"^where: {name} cannot be restricted") as error:
            sentspace.evaluate(name, sick, ["bow", "tfidf"], where=LONG)
        assert reason in str(error.value) and ", ".join(FILTERABLE) in str(error.value)
    assert set(FILTERABLE) | set(UNFILTERABLE) >= set(EVALUATIONS)


def test_a_pair_label_keeps_the_pairs_of_that_label_not_pairs_of_such_sentences(sick, shared_data):
    """The NEUTRAL bar of the Filter panel, written as the expression the window
    evaluates: every NEUTRAL test pair of SICK's file (2,793), where the pair label
    was each sentence's labels merged and 48 pairs were evaluated; the result's line
    says how many of how many."""
    from sentspace.app.analysis.filters import Chosen, Filter, corpus_table

    with open(shared_data / "sick" / "SICK_test_annotated.txt", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    neutral = sorted(row["pair_ID"] for row in rows if row["entailment_judgment"] == "NEUTRAL")
    assert (len(rows), len(neutral)) == (4927, 2793)
    table = corpus_table(sick)
    chart = table.charts["Pair label"]
    assert chart.of_pairs and set(chart.labels) - {""} == {"NEUTRAL", "ENTAILMENT", "CONTRADICTION"}
    where = Filter((Chosen("Pair label", ("NEUTRAL",)),)).as_expression(table)
    assert where == 'label in ["NEUTRAL"]'
    result = run_job(
        EVALUATIONS["relatedness"][0](sick, make_encoder("bow"), seed=0, split="test", where=where)
    )
    assert sorted(result.pair_id.tolist()) == neutral
    assert result.provenance.parameters["evaluated"] == (
        '2,793 of 4,927 test pairs: where label in ["NEUTRAL"]'
    )
    # With a sentence column too: the NEUTRAL test pairs whose both sentences are long.
    both = run_job(
        EVALUATIONS["relatedness"][0](
            sick, make_encoder("bow"), seed=0, split="test", where=f"{where} and {LONG}"
        )
    )
    long_pairs = {
        pair for pair, *_ in long_test_pairs(shared_data / "sick" / "SICK_test_annotated.txt")
    }
    assert sorted(both.pair_id.tolist()) == sorted(long_pairs & set(neutral))
    assert both.provenance.parameters["evaluated"].startswith(
        f"{len(long_pairs & set(neutral)):,} of 4,927 test pairs: where"
    )
    # Detection, histograms and ranking keep pairs alike: MSRP's paraphrases of its
    # test split, by their own label.
    msrp = load_corpus(shared_data / "msrp")
    detected = run_job(
        EVALUATIONS["detection"][0](msrp, make_encoder("bow"), seed=0, where='split == "test"')
    )
    assert len(detected.pair_index) == int(np.sum(np.asarray(msrp.checked_pairs.split) == "test"))
