"""The corpus browser's Qt-free parts (app/corpora/browse.py) on the real SICK and MSRP."""

import numpy as np
import pytest

from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.browse import SentenceColumns, pairs_of, sentence_order, stats_rows
from sentspace.app.corpora.stats import corpus_stats


@pytest.fixture(scope="module")
def sick(shared_data):
    return load_corpus(shared_data / "sick")


@pytest.fixture
def edited_sick(sick, tmp_path):
    """SICK after one gold-score edit: the corpus every view shows once a user corrects."""
    session = AnnotationSession.open(sick, tmp_path / "journal.jsonl")
    session.edit_pair(0, score=4.0, reason="checked")
    yield session.corpus
    session.close()


def test_sick_pairs_and_statistics_name_labels_after_an_edit(edited_sick):
    pairs = edited_sick.pairs
    assert pairs.label_names == ("CONTRADICTION", "NEUTRAL", "ENTAILMENT")
    assert pairs.score[0] == 4.0 and pairs.ids[0] == "1"  # SICK's pair_ID, kept
    # SICK_train's first pair, pair_ID 1, is NEUTRAL: it used to read "paraphrase".
    (row,) = [r for r in pairs_of(edited_sick, int(pairs.first[0])) if r.pair == 0]
    assert (row.pair_id, row.label, row.score, row.split) == ("1", "NEUTRAL", "4", "train")
    assert row.partner == int(pairs.second[0])
    entailment = int(np.flatnonzero(pairs.label == 2)[0])
    assert {
        r.label for r in pairs_of(edited_sick, int(pairs.first[entailment])) if r.pair == entailment
    } == {"ENTAILMENT"}
    rows = dict(stats_rows(corpus_stats(edited_sick)))
    assert rows["pairs in split train"] == (
        "4,500 (CONTRADICTION 665, NEUTRAL 2,536, ENTAILMENT 1,299)"
    )
    assert rows["pairs in split test"] == (
        "4,927 (CONTRADICTION 720, NEUTRAL 2,793, ENTAILMENT 1,414)"
    )


def test_msrp_paraphrase_judgements_in_words(shared_data):
    msrp = load_corpus(shared_data / "msrp")
    labels = {r.label for s in range(200) for r in pairs_of(msrp, s)}
    assert labels == {"paraphrase", "not paraphrase"}
    assert all(r.pair_id == "" for r in pairs_of(msrp, 0))  # MSRP has no pair ids
    train = dict(stats_rows(corpus_stats(msrp)))["pairs in split train"]
    assert "not paraphrase 1," in train and ", paraphrase 2," in train


def test_sentence_columns_and_orders_on_sick(sick):
    columns = SentenceColumns.of(sick)
    assert columns.pair_count.sum() == 2 * len(sick.pairs) and columns.first_group.max() == -1
    by_pairs = sentence_order(sick, columns, "pairs", descending=True)
    assert columns.pair_count[by_pairs[0]] == columns.pair_count.max()
    by_text = sentence_order(sick, columns, "text", descending=False)
    texts = [sick.texts[i].casefold() for i in by_text[:50]]
    assert texts == sorted(texts)
    by_id = sentence_order(sick, columns, "id", descending=False)
    assert [sick.ids[i] for i in by_id[:3]] == ["1A", "1B", "2A"]
