"""Pair-trained encoders: the pairs file, training on SICK, and evaluations that train
them on training pairs only."""

import re

import numpy as np
import pytest

from sentspace.app.analysis.evaluations.classification import run_classification
from sentspace.app.analysis.evaluations.relatedness import run_relatedness
from sentspace.app.analysis.evaluations.transfer import run_transfer
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.models import ModelError, load_trained, make_encoder
from sentspace.models.pairs import (
    PairBOW,
    PairRNN,
    TrainingPairs,
    corpus_pairs,
    read_pairs_file,
    resolved_objective,
    training_targets,
)

pytest.importorskip("torch")

#: Sizes small enough for a test to train in seconds on 2 cores.
SMALL = dict(embedding_size=16, hidden_size=16, classifier_size=16, batch_sentences=256)


@pytest.fixture(scope="module")
def sick(shared_data):
    return load_corpus(shared_data / "sick")


def test_pairs_file_and_its_errors(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text(
        'sentence1,sentence2,label\nA dog runs.,"A dog, running.",yes\n'
        "A cat sleeps.,Nobody sleeps.,no\n"
    )
    pairs = read_pairs_file(path)
    assert pairs.first == ("A dog runs.", "A cat sleeps.")
    assert pairs.second[0] == "A dog, running." and pairs.label == ("yes", "no")
    assert np.isnan(pairs.score).all()
    path.write_text("sentence1,sentence2,score\nA,B,4.5\nC,D,high\n")
    with pytest.raises(ModelError, match=r"pairs.csv, line 3: score 'high' is not a number"):
        read_pairs_file(path)
    path.write_text("sentence1,sentence2,score\nA,B,4.5\n\nC,D\n")
    with pytest.raises(ModelError, match=r"pairs.csv, line 4: 2 fields where the header has 3"):
        read_pairs_file(path)
    path.write_text("first,second,label\nA,B,1\n")
    with pytest.raises(ModelError, match=r"pairs.csv, line 1: the header must name sentence1"):
        read_pairs_file(path)
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text("sentence1\tsentence2\tlabel\tscore\nA\tB\t\t\n")
    with pytest.raises(ModelError, match=r"pairs.tsv, line 2: neither a label nor a score"):
        read_pairs_file(tsv)
    tsv.write_text("sentence1\tsentence2\tlabel\tscore\nA\tB\tyes\t\n")
    assert read_pairs_file(tsv).label == ("yes",)
    with pytest.raises(ModelError, match="training row 1: .*not single sentences"):
        PairBOW().fit(["A sentence of the corpus, not a pair."])


def test_objectives_say_what_trains_and_in_which_order():
    """ "both" learns labels and scores from the same batches; "labels-then-scores" makes
    a pass on the labelled pairs, then one on the scored pairs (SBERT's recipe)."""
    pairs = TrainingPairs(
        ("a", "b", "c"), ("x", "y", "z"), ("yes", "no", ""), np.array([1.0, np.nan, 3.0])
    )
    classes, [both] = training_targets(pairs, "both")
    assert classes == ("no", "yes") and both.examples.tolist() == [0, 1, 2]
    assert both.labels.tolist() == [1, 0, -1]
    np.testing.assert_array_equal(both.scores, [0.0, np.nan, 1.0])
    _, (labels, scores) = training_targets(pairs, "labels-then-scores")
    assert labels.examples.tolist() == [0, 1] and np.isnan(labels.scores).all()
    assert scores.examples.tolist() == [0, 2] and (scores.labels == -1).all()
    assert training_targets(pairs, "scores")[0] == ()
    assert [p.examples.tolist() for p in training_targets(pairs, "labels")[1]] == [[0, 1]]
    assert resolved_objective("auto") == "labels-then-scores"
    assert resolved_objective("auto", pairs, auto="scores") == "scores"
    unscored = TrainingPairs(pairs.first, pairs.second, pairs.label, np.full(len(pairs), np.nan))
    assert resolved_objective("auto", unscored, auto="scores") == "labels"
    with pytest.raises(ModelError, match="objective must be one of auto, "):
        PairBOW(objective="mixed")


def test_trains_on_sick_train_and_round_trips(sick, tmp_path):
    """SICK train's entailment labels and relatedness scores: the loss falls, and the
    saved model encodes exactly as the trained one."""
    pairs = corpus_pairs(sick)
    assert len(pairs) == 4_500 and set(pairs.label) == {"CONTRADICTION", "NEUTRAL", "ENTAILMENT"}
    encoder = run_job(PairBOW(epochs=3, **SMALL).iter_fit_pairs(pairs))
    losses = np.array(encoder.losses_)
    assert encoder.classes_ == ("CONTRADICTION", "ENTAILMENT", "NEUTRAL")
    assert losses[-6:].mean() < 0.9 * losses[:6].mean()
    # The classifier is gone once trained: no held-out loss, said as such.
    with pytest.raises(ModelError, match="no held-out loss"):
        encoder.held_out_loss(corpus_pairs(sick).rows()[:100])
    texts = list(sick.texts[:50])
    loaded = load_trained(encoder.save(tmp_path))
    assert loaded.fingerprint() == encoder.fingerprint()
    assert np.array_equal(loaded.encode(texts), encoder.encode(texts))


def test_rnn_trains_from_a_pairs_file(sick, tmp_path):
    """``pair-rnn:FILE`` trains on the file's pairs (here 300 SICK train pairs)."""
    pairs = corpus_pairs(sick)
    path = tmp_path / "sick.tsv"
    rows = ["sentence1\tsentence2\tlabel\tscore"] + pairs.rows()[:300]
    path.write_text("\n".join(rows) + "\n")
    encoder = make_encoder(f"pair-rnn:{path}")
    assert not encoder.learns_from_pairs and not encoder.learns_from_data
    encoder = PairRNN(epochs=2, training_file=str(path), **SMALL).fit([])
    assert encoder.n_training_sentences_ == 300 and encoder.encode(["A dog."]).shape == (1, 16)


class Recording(PairBOW):
    """A small pair-bow that keeps every pair it was trained on. Its sizes are class
    defaults: a constructor taking ``**params`` is given every parameter, defaults
    included, by ``inherit_parameters``, and would train the full-size family."""

    seen: list[TrainingPairs] = []
    defaults = {**SMALL, "epochs": 1}

    def iter_fit_pairs(self, pairs):
        Recording.seen.append(pairs)
        return (yield from super().iter_fit_pairs(pairs))


def test_evaluations_train_on_training_pairs_only(sick):
    """Relatedness on SICK test and SICK-E transfer train on exactly the pairs of the
    other splits, so no evaluated pair's gold is seen. (SICK itself repeats text across
    its splits: 49 test pairs have the same two sentences as a train pair, 45 more the
    same two reversed, and 3,743 of the test's 5,007 distinct sentences occur in train
    pairs; those are the dataset's, not a leak.)"""
    split = np.asarray(sick.pairs.split, dtype=object)
    Recording.seen.clear()
    result = run_job(run_relatedness(sick, Recording(), splits=("test",), n_resamples=0))
    assert result.pooled.n_pairs == 4_927
    run_job(run_transfer(sick, Recording(), n_resamples=0))
    relatedness_pairs, transfer_pairs = Recording.seen
    assert relatedness_pairs.rows() == corpus_pairs(sick, np.flatnonzero(split != "test")).rows()
    assert transfer_pairs.rows() == corpus_pairs(sick, np.flatnonzero(split == "train")).rows()
    # "not-train" evaluates trial and test, training on train alone.
    held_out = run_job(run_relatedness(sick, Recording(), split="not-train", n_resamples=0))
    assert held_out.pooled.n_pairs == 4_927 + 500
    assert held_out.trained_on == "train 4,500"
    assert Recording.seen[-1].rows() == transfer_pairs.rows()


def test_cli_evaluates_a_pair_trained_encoder_on_the_held_out_split(
    sick, shared_data, monkeypatch, capsys
):
    """``sentspace eval relatedness --encoder pair-bow`` evaluates SICK test only and says
    which pairs it trained on; ``--split`` chooses otherwise, and "all" (nothing left to
    train on) is refused before any training."""
    import json

    import sentspace.models
    from sentspace.app.cli import main

    monkeypatch.setitem(sentspace.models.ENCODERS, "pair-bow", Recording)
    Recording.seen.clear()
    corpus = str(shared_data / "sick")
    assert main(["eval", "relatedness", "--corpus", corpus, "--encoder", "pair-bow", "--json"]) == 0
    [result] = json.loads(capsys.readouterr().out)["results"]
    assert (result["evaluated"], result["trained_on"]) == ("test 4,927", "train 4,500 + trial 500")
    assert result["pooled"]["n_pairs"] == 4_927
    assert result["provenance"]["parameters"]["splits"] == ["test"]
    [pairs] = Recording.seen
    assert (
        pairs.rows()
        == corpus_pairs(
            sick, np.flatnonzero(np.asarray(sick.pairs.split, dtype=object) != "test")
        ).rows()
    )
    assert main(["eval", "relatedness", "--corpus", corpus, "--encoder", "pair-bow"]) == 0
    printed = capsys.readouterr().out
    assert "pairs evaluated                      test 4,927" in printed
    assert "encoder trained on pairs             train 4,500 + trial 500" in printed
    assert (
        main(["eval", "relatedness", "--corpus", corpus, "--encoder", "pair-bow", "--split", "all"])
        == 2
    )
    assert "needs a train split apart from the evaluated pairs" in capsys.readouterr().err
    assert len(Recording.seen) == 2
    # Other encoders keep every pair unless a split is asked for.
    assert (
        main(
            [
                "eval",
                "relatedness",
                "--corpus",
                corpus,
                "--encoder",
                "bow",
                "--split",
                "test",
                "--json",
            ]
        )
        == 0
    )
    [bow] = json.loads(capsys.readouterr().out)["results"]
    assert (bow["evaluated"], bow["trained_on"]) == ("test 4,927", "")


def test_pair_encoder_without_pairs_says_what_to_do(msrp):
    """Grouped MSRP has paraphrase groups but no pairs to train on."""
    assert msrp.pairs is None
    with pytest.raises(ModelError, match="trains on labelled sentence pairs.*pair-bow:FILE"):
        run_job(run_classification(msrp, PairBOW()))


def test_cli_compares_every_encoder_on_the_pairs_a_pair_trained_one_leaves_out(
    sick, shared_data, monkeypatch, capsys
):
    """One run of bow beside pair-bow on SICK with the default split evaluates both on
    SICK test (and says so), so the paired test is made; detection on MSRP, which has
    no split option, evaluates bow on every pair and pair-bow on test: both results are
    printed, then why no paired test was made (exit 2)."""
    import sentspace.models
    from sentspace.app.cli import main

    monkeypatch.setitem(sentspace.models.ENCODERS, "pair-bow", Recording)
    assert (
        main(
            [
                "eval",
                "relatedness",
                "--corpus",
                str(shared_data / "sick"),
                "--encoder",
                "bow",
                "--encoder",
                "pair-bow",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "split auto: the test split, as SentEval, MTEB and the papers report it" in printed
    assert re.search(r"pairs evaluated +test 4,927 +test 4,927\n", printed)
    assert "paired tests of pooled Spearman" in printed
    assert (
        main(
            [
                "eval",
                "detection",
                "--corpus",
                str(shared_data / "msrp"),
                "--encoder",
                "bow",
                "--encoder",
                "pair-bow",
            ]
        )
        == 2
    )
    out, err = capsys.readouterr()
    assert "average precision" in out and "paired tests" not in out
    assert err.startswith(
        "sentspace: error: no paired test of pair-bow against bow: the two "
        "results were computed on different items"
    )
