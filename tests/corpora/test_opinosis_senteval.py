import collections

import numpy as np
import pytest

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.opinosis import load_opinosis
from sentspace.app.corpora.senteval import TREC_CLASSES, load_senteval


def test_opinosis_topics_and_fallback_lines(shared_data):
    corpus = load_opinosis(shared_data / "opinosis")
    groups = corpus.groups
    assert groups.kind == "topic" and groups.n_groups == 51
    assert groups.sizes.sum() == 7086  # one membership per non-empty line
    assert len(corpus) == 6402
    assert np.bincount(groups.sentence_index).max() > 1  # shared between topics
    # 17 files need cp1252; each warning names its file and lines.
    assert len(corpus.warnings) == 17
    assert all("not UTF-8, read as cp1252 (line" in w for w in corpus.warnings)
    assert (
        "room_holiday_inn_london.txt.data: not UTF-8, read as cp1252 (lines 115, 131"
        in "\n".join(corpus.warnings)
    )
    topic = groups.names.index("room_holiday_inn_london")
    assert groups.sizes[topic] == 575
    assert any(
        "\u2019" in corpus.texts[i] or "\u00a3" in corpus.texts[i] for i in groups.members(topic)
    )
    assert all(text == text.strip() and text for text in corpus.texts)


def test_opinosis_single_topic(shared_data):
    topics = shared_data / "opinosis" / "topics"
    corpus = load_corpus(topics / "accuracy_garmin_nuvi_255W_gps.txt.data")
    assert corpus.groups.names == ("accuracy_garmin_nuvi_255W_gps",) and len(corpus) == 67


# One sentence per non-blank line, as SentEval counts samples. SOURCE.txt counts lines incl.
# blanks (CR 2,407 + 1,368 = 3,775; MPQA 3,312 + 7,294 = 10,606): the blank ones are
# skipped and listed, since an empty text has no embedding.
@pytest.mark.parametrize(
    "task, sizes, distinct_texts, blank",
    [
        ("MR", {"negative": 5331, "positive": 5331}, 10662, 0),
        ("CR", {"negative": 1366, "positive": 2405}, 3765, 4),
        ("SUBJ", {"objective": 5000, "subjective": 5000}, 10000, 0),
        ("MPQA", {"negative": 7292, "positive": 3311}, 8240, 3),
    ],
)
def test_binary_tasks_keep_one_sentence_per_line(shared_data, task, sizes, distinct_texts, blank):
    corpus = load_corpus(shared_data / "senteval-transfer" / task)
    groups = corpus.groups
    assert groups.kind == "class"
    assert dict(zip(groups.names, groups.sizes.tolist())) == sizes
    assert len(corpus) == sum(sizes.values()) and len(set(corpus.texts)) == distinct_texts
    assert len(set(corpus.ids)) == len(corpus)
    assert (groups.labels(len(corpus)) >= 0).all()  # every line is one sample of one class
    skipped = sum(
        len(w.split("line")[1].split(",")) for w in corpus.warnings if "skipped blank" in w
    )
    assert skipped == blank


def test_mpqa_text_in_both_classes_is_one_sample_per_line(shared_data):
    corpus = load_senteval(shared_data / "senteval-transfer" / "MPQA")
    labels = corpus.groups.labels(len(corpus))
    classes_of = collections.defaultdict(set)
    for text, label in zip(corpus.texts, labels):
        classes_of[text].add(label)
    assert sum(len(c) == 2 for c in classes_of.values()) == 98
    first = corpus.texts.index("not")
    assert corpus.ids[first].startswith("mpqa.neg:")


def test_trec(shared_data):
    corpus = load_corpus(shared_data / "senteval-transfer" / "TREC")
    groups = corpus.groups
    assert groups.names == TREC_CLASSES
    assert len(corpus) == groups.sizes.sum() == 5452 + 500
    split = np.asarray(corpus.metadata["split"])
    assert collections.Counter(split) == {"train": 5452, "test": 500}
    labels = groups.labels(len(corpus))
    test_sizes = collections.Counter(groups.names[g] for g in labels[split == "test"])
    assert test_sizes == {"DESC": 138, "NUM": 113, "ENTY": 94, "LOC": 81, "HUM": 65, "ABBR": 9}
    assert corpus.warnings == ("train_5500.label: not UTF-8, read as latin-1 (line 66)",)
    # "What are the twin cities ?" is DESC in training and LOC in the test file.
    twin = [
        i for i, text in enumerate(corpus.texts) if text.lower() == "what are the twin cities ?"
    ]
    assert sorted((split[i], groups.names[labels[i]]) for i in twin) == [
        ("test", "LOC"),
        ("train", "DESC"),
    ]


def test_raw_harvardnlp_needs_a_task(shared_data):
    folder = shared_data / "senteval-transfer" / "raw-harvardnlp"
    with pytest.raises(CorpusError, match="several SentEval tasks"):
        load_corpus(folder)
    mr = load_corpus(folder / "rt-polarity.pos")
    assert mr.groups.sizes.tolist() == [5331, 5331]
    assert any("rt-polarity.neg: not UTF-8, read as cp1252" in w for w in mr.warnings)
    assert len(load_senteval(folder, task="trec").groups.names) == 6


def test_trec_bad_label_names_line(tmp_path):
    (tmp_path / "train_5500.label").write_text("DESC:manner How ?\nWHAT:x Why ?\n")
    (tmp_path / "TREC_10.label").write_text("NUM:count How many ?\n")
    with pytest.raises(CorpusError, match=r"train_5500.label, line 2: expected 'COARSE:fine"):
        load_senteval(tmp_path)
