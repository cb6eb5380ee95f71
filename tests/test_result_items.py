"""Which items of an evaluation result pass the corpus's filter (app/analysis/result_items.py),
the masks the evaluation charts draw faint by: on the real MSRP, grouped MSRP and
Costra files, each count checked against one made from the files' own texts."""

import numpy as np
import pytest
from sklearn.metrics import precision_recall_curve

from sentspace.app.analysis.columns import sentence_columns
from sentspace.app.analysis.evaluations.classification import run_classification
from sentspace.app.analysis.evaluations.costra_offsets import evaluate_costra_offsets
from sentspace.app.analysis.evaluations.detection import run_detection, run_learning_curve
from sentspace.app.analysis.evaluations.histograms import run_histograms
from sentspace.app.analysis.evaluations.ranking import run_ranking
from sentspace.app.analysis.filters import Filter, FilterTable
from sentspace.app.analysis.result_items import (
    accuracy_among,
    group_counts_among,
    histogram_counts,
    items_of,
    passing_items,
    passing_shown,
    precision_recall,
)
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.costra import load_costra
from sentspace.app.corpora.msrp import load_msrp
from sentspace.models.bow import BagOfWords


def filter_mask(corpus, expression):
    table = FilterTable(sentence_columns(corpus), corpus.ids)
    return table.evaluate(Filter(expression=expression)).mask


@pytest.fixture(scope="module")
def msrp(shared_data):
    return load_corpus(shared_data / "msrp")


@pytest.fixture(scope="module")
def long_sentences(msrp):
    return filter_mask(msrp, "words > 20")


def long_pairs_in_file(shared_data, split, folder="msrp"):
    """(first text, second text, quality) of the MSRP file's pairs whose two sentences
    both have more than 20 words, read from the file itself."""
    lines = (shared_data / folder / f"msr_paraphrase_{split}.txt").read_text("utf-8-sig")
    found = []
    for line in lines.splitlines()[1:]:
        quality, _, _, text1, text2 = line.split("\t")
        if len(text1.split()) > 20 and len(text2.split()) > 20:
            found.append((text1, text2, quality))
    return found


def test_a_pair_passes_when_both_its_sentences_do(msrp, long_sentences, shared_data):
    long_pairs = long_pairs_in_file(shared_data, "train") + long_pairs_in_file(shared_data, "test")
    result = run_job(run_detection(msrp, BagOfWords(), n_resamples=0))
    passing, note, rule = passing_shown(result, msrp, long_sentences)
    assert passing.sum() == len(long_pairs) == 1578
    assert note == "1,578 of 5,801 pairs pass the filter"
    assert rule == "A pair passes the filter when both its sentences pass."
    texts, pairs = msrp.texts, msrp.pairs
    assert sorted(
        (texts[pairs.first[k]], texts[pairs.second[k]]) for k in result.pair_index[passing]
    ) == sorted((a, b) for a, b, _ in long_pairs)
    # The passing pairs' curve is the one sklearn makes of them alone.
    recall, precision = precision_recall(result, passing)
    expected_precision, expected_recall, _ = precision_recall_curve(
        result.label[passing], result.cosine[passing]
    )
    assert np.array_equal(recall, expected_recall)
    assert np.array_equal(precision, expected_precision)
    # Nothing filtered, or a mask of another corpus: no mask.
    assert passing_items(result, msrp, None) is None
    assert passing_items(result, msrp, long_sentences[:-1]) is None
    # The mapping is made once per version: a filter change only reads the mask.
    items = items_of(result, msrp)
    assert items_of(result, msrp) is items
    assert (
        passing_items(result, msrp, ~long_sentences).sum()
        == (~long_sentences[items.sentences]).all(axis=1).sum()
    )


def test_histogram_counts_of_the_passing_pairs(msrp, long_sentences, shared_data):
    long_pairs = long_pairs_in_file(shared_data, "train") + long_pairs_in_file(shared_data, "test")
    result = run_job(run_histograms(msrp, BagOfWords()))
    passing = passing_items(result, msrp, long_sentences)
    positives = sum(quality == "1" for *_, quality in long_pairs)
    for name in ("cosine", "overlap"):
        counts = histogram_counts(result, name, passing)
        assert (
            counts.sum(axis=1).tolist()
            == [positives, len(long_pairs) - positives]
            == [
                1299,
                279,
            ]
        )


def test_test_pairs_and_their_accuracy(tmp_path, shared_data):
    # The first 200 training and 200 test pairs: a learning curve in a second.
    for split, lines in (("train", 200), ("test", 200)):
        source = shared_data / "msrp" / f"msr_paraphrase_{split}.txt"
        kept = source.read_text(encoding="utf-8-sig").splitlines()[: lines + 1]
        (tmp_path / source.name).write_text("\n".join(kept) + "\n", encoding="utf-8")
    corpus = load_msrp(tmp_path)
    result = run_job(
        run_learning_curve(corpus, BagOfWords(), fractions=(0.5, 1.0), n_resamples=0, max_iter=200)
    )
    passing = passing_items(result, corpus, filter_mask(corpus, "words > 20"))
    assert passing.sum() == len(long_pairs_in_file(tmp_path, "test", folder="")) > 0
    assert items_of(result, corpus).caption(passing).endswith("of 200 test pairs pass the filter")
    accuracy = accuracy_among(result, passing)
    assert accuracy.tolist() == [result.correct[k][passing].mean() for k in range(2)]


def test_a_query_passes_when_it_and_its_partner_do(msrp, long_sentences, shared_data):
    long_pairs = long_pairs_in_file(shared_data, "test")
    result = run_job(run_ranking(msrp, BagOfWords(), splits=("test",), n_resamples=0))
    passing = passing_items(result, msrp, long_sentences)
    # Each paraphrase is asked both ways.
    paraphrases = sum(quality == "1" for *_, quality in long_pairs)
    assert passing.sum() == 2 * paraphrases == 758
    assert items_of(result, msrp).caption(passing) == "758 of 2,294 queries pass the filter"
    # A result of MSRP names no sentences of another corpus.
    assert items_of(result, load_corpus("msrp-grouped")) is None


def test_sentences_and_their_groups():
    corpus = load_corpus("msrp-grouped")
    result = run_job(run_classification(corpus, BagOfWords(), n_resamples=0))
    mask = filter_mask(corpus, "words > 20")
    passing = passing_items(result, corpus, mask)
    long = [len(corpus.texts[k].split()) > 20 for k in result.sentence_index]
    assert passing.tolist() == long and 0 < sum(long) < len(long)
    members, wrong = group_counts_among(result, passing)
    misclassified = result.predicted_group != result.true_group
    assert members.sum() == sum(long)
    assert wrong.sum() == (misclassified & passing).sum()


def test_an_analogy_question_reads_its_seed_and_its_sentences_of_the_type(shared_data):
    costra = load_costra(shared_data / "costra" / "data.tsv")
    # The questions depend on the corpus only: any embeddings make them.
    embeddings = np.random.default_rng(0).normal(size=(len(costra), 8)).astype(np.float32)
    result = evaluate_costra_offsets(costra, embeddings, n_shuffles=1, n_resamples=0)
    mask = filter_mask(costra, "words > 8")
    passing = passing_items(result, costra, mask)
    types = costra.metadata["type"]
    group = costra.groups.labels(len(costra))
    by_group: dict[int, list[int]] = {}
    for row, g in enumerate(group.tolist()):
        by_group.setdefault(g, []).append(row)
    expected = []
    for g, t in zip(result.cell_group.tolist(), result.cell_type.tolist()):
        rows = [row for row in by_group[g] if types[row] in ("seed", result.type_names[t])]
        expected.append(all(mask[row] for row in rows))
    assert passing.tolist() == expected and 0 < sum(expected) < len(expected)
