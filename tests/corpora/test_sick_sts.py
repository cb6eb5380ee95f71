import collections

import numpy as np
import pytest

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.sick import ENTAILMENT_CLASSES, load_sick
from sentspace.app.corpora.sts import load_sts

STS_SUBSETS = {
    "2012": {
        "MSRpar": 750,
        "MSRvid": 750,
        "SMTeuroparl": 459,
        "surprise.OnWN": 750,
        "surprise.SMTnews": 399,
    },
    "2013": {"FNWN": 189, "OnWN": 561, "headlines": 750},
    "2014": {
        "OnWN": 750,
        "deft-forum": 450,
        "deft-news": 300,
        "headlines": 750,
        "images": 750,
        "tweet-news": 750,
    },
    "2015": {
        "answers-forums": 375,
        "answers-students": 750,
        "belief": 375,
        "headlines": 750,
        "images": 750,
    },
    "2016": {
        "answer-answer": 254,
        "headlines": 249,
        "plagiarism": 230,
        "postediting": 244,
        "question-question": 209,
    },
}


def test_sick_counts(shared_data):
    sick = load_sick(shared_data / "sick")
    assert collections.Counter(sick.pairs.split) == {"train": 4500, "trial": 500, "test": 4927}
    assert sick.pairs.label_names == ENTAILMENT_CLASSES
    assert collections.Counter(sick.pairs.label.tolist()) == {1: 5611, 2: 2857, 0: 1459}
    assert sick.pairs.score.min() == 1.0 and sick.pairs.score.max() == 5.0
    assert len(sick) == 6077 and len(set(sick.texts)) == 6077
    first = sick.pairs.first[0]
    assert sick.texts[first].startswith("A group of kids is playing in a yard")
    assert sick.pairs.score[0] == 4.5 and ENTAILMENT_CLASSES[sick.pairs.label[0]] == "NEUTRAL"


def test_sick_single_file_and_detection(shared_data):
    trial = load_corpus(shared_data / "sick" / "SICK_trial.txt")
    assert len(trial.pairs) == 500 and set(trial.pairs.split) == {"trial"}


def test_sick_bad_label_names_line(shared_data, tmp_path):
    lines = (shared_data / "sick" / "SICK_trial.txt").read_text().split("\n")[:10]
    lines[4] = lines[4].replace("NEUTRAL", "MAYBE").replace("ENTAILMENT", "MAYBE")
    (tmp_path / "SICK_trial.txt").write_text("\n".join(lines))
    with pytest.raises(CorpusError, match=r"SICK_trial.txt, line 5: entailment_judgment"):
        load_sick(tmp_path)


@pytest.fixture(scope="module")
def sts(shared_data):
    return load_sts(shared_data / "sts")


def test_sts_counts_per_year_and_subset(sts):
    counts = collections.Counter(sts.pairs.subset)
    for year, subsets in STS_SUBSETS.items():
        for subset, n in subsets.items():
            assert counts.pop(f"{year}/{subset}") == n, (year, subset)
    assert counts == {"STSBenchmark": 5749 + 1500 + 1379}
    years = collections.Counter(s.split("/")[0] for s in sts.pairs.subset)
    assert [years[y] for y in STS_SUBSETS] == [3108, 1500, 3750, 3000, 1186]
    benchmark = np.asarray(sts.pairs.subset) == "STSBenchmark"
    assert collections.Counter(np.asarray(sts.pairs.split)[benchmark]) == {
        "train": 5749,
        "dev": 1500,
        "test": 1379,
    }
    assert set(np.asarray(sts.pairs.split)[~benchmark]) == {"test"}
    assert np.all((sts.pairs.score >= 0) & (sts.pairs.score <= 5))
    assert (sts.pairs.label == -1).all()


def test_sts_reports_unscored_and_input_less_gold(sts):
    assert "2015/answers-forums 1625" in sts.warnings[0]
    assert "2016/postediting 3043" in sts.warnings[0]
    assert any("STS.gs.SMT.txt" in w for w in sts.warnings)
    assert not any("ALL" in w for w in sts.warnings)


def test_sts_2014_alone(shared_data):
    corpus = load_corpus(shared_data / "sts" / "STS2014-test")
    assert len(corpus.pairs) == 3750
    assert collections.Counter(corpus.pairs.subset) == {
        f"2014/{s}": n for s, n in STS_SUBSETS["2014"].items()
    }
    first = corpus.pairs.first[corpus.pairs.subset.index("2014/deft-forum")]
    assert corpus.texts[first] == "How about some testimonies from real health experts?"


def test_sts_single_files(shared_data):
    headlines = load_sts(shared_data / "sts" / "STS2016-test" / "STS2016.input.headlines.txt")
    assert len(headlines.pairs) == 249 and set(headlines.pairs.subset) == {"2016/headlines"}
    dev = load_corpus(shared_data / "sts" / "STSBenchmark" / "sts-dev.csv")
    assert len(dev.pairs) == 1500 and set(dev.pairs.split) == {"dev"}


def test_sts_truncated_gold_names_file(shared_data, tmp_path):
    folder = tmp_path / "STS2014-test"
    folder.mkdir()
    source = shared_data / "sts" / "STS2014-test"
    (folder / "STS.input.images.txt").write_bytes((source / "STS.input.images.txt").read_bytes())
    gold = (source / "STS.gs.images.txt").read_text().split("\n")
    (folder / "STS.gs.images.txt").write_text("\n".join(gold[:700]))
    with pytest.raises(CorpusError) as caught:
        load_sts(folder)
    assert "STS.gs.images.txt has 700 lines but STS.input.images.txt has 750" in str(caught.value)
    assert caught.value.line == 701
