import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline

from sentspace.app.analysis.evaluations.transfer import run_transfer
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus
from sentspace.models.bow import BagOfWords, TfIdf
from sentspace.models.tokenize import TOKEN_PATTERN
from tests.printed import printed_number

from ._pairs import msrp, senteval, sick


def test_msrp_pair_task_equals_an_independent_sklearn_run(shared_data):
    corpus = msrp(shared_data, n_per_file=500)
    result = run_job(run_transfer(corpus, BagOfWords(), seed=1))
    X = CountVectorizer(token_pattern=TOKEN_PATTERN, dtype=np.float32).fit_transform(corpus.texts)
    u, v = X[corpus.pairs.first], X[corpus.pairs.second]
    features = sp.hstack([abs(u - v), u.multiply(v)]).tocsr()
    train = np.array(corpus.pairs.split) == "train"
    classifier = LogisticRegression(max_iter=1000, random_state=1).fit(
        features[train], corpus.pairs.label[train]
    )
    predicted = classifier.predict(features[~train])
    assert result.protocol == "given split" and result.n_train == 500
    np.testing.assert_array_equal(result.predicted_label, predicted)
    assert result.accuracy == np.mean(predicted == corpus.pairs.label[~train])
    assert result.f1 == f1_score(corpus.pairs.label[~train], predicted)
    low, high = result.ci["accuracy"]
    assert low < result.accuracy < high


def test_cross_validated_sentence_task_refits_tfidf_per_fold(shared_data):
    corpus = senteval(shared_data, "CR", limit=300)
    result = run_job(run_transfer(corpus, TfIdf(), seed=2, n_resamples=0))
    labels = corpus.groups.labels(len(corpus))
    pipeline = make_pipeline(
        TfidfVectorizer(token_pattern=TOKEN_PATTERN, dtype=np.float32),
        LogisticRegression(max_iter=1000, random_state=2),
    )
    folds = StratifiedKFold(n_splits=10, shuffle=True, random_state=2)
    expected = cross_val_score(pipeline, list(corpus.texts), labels, cv=folds)
    np.testing.assert_allclose(result.fold_accuracy, expected, atol=1e-12)
    assert (
        result.protocol == "10-fold CV"
        and result.provenance.parameters["refit_on_training_side"] is True
    )
    again = run_job(run_transfer(corpus, TfIdf(), seed=2, n_resamples=0))
    np.testing.assert_array_equal(again.predicted_label, result.predicted_label)


def test_given_sentence_split_and_three_way_pairs(shared_data):
    trec = senteval(shared_data, "TREC", limit=400)
    result = run_job(run_transfer(trec, BagOfWords(), n_resamples=0))
    assert result.protocol == "given split" and len(result.item_index) == 400
    assert result.f1 is None and result.accuracy > 0.5
    entailment = run_job(
        run_transfer(
            sick(shared_data, n_per_file=200, files=("train", "test_annotated")),
            BagOfWords(),
            n_resamples=0,
        )
    )
    assert len(entailment.class_names) == 3 and len(entailment.item_index) == 200


def test_refuses_corpus_without_labels():
    with pytest.raises(EvaluationError, match="class"):
        next(run_transfer(Corpus("x", ("a", "b"), ("1", "2")), BagOfWords()))


# The five SentEval tasks on their full files, one sample per non-blank line (SentEval's
# counts include CR's 4 and MPQA's 3 blank lines: 3,775 and 10,606), with the accuracy of
# bag of words measured with seed 0 (the same as `sentspace eval transfer`). A flipped
# prediction moves an accuracy by 1e-4 to 3e-4, so BLAS differences stay inside 0.002.
@pytest.mark.parametrize(
    "task, tested, accuracy",
    [
        ("MR", 10662, 0.7696),
        ("CR", 3771, 0.7998),
        ("SUBJ", 10000, 0.9116),
        ("MPQA", 10603, 0.8414),
        ("TREC", 500, 0.8500),
    ],
)
def test_full_senteval_tasks_one_sample_per_line(shared_data, task, tested, accuracy):
    corpus = load_corpus(shared_data / "senteval-transfer" / task)
    result = run_job(run_transfer(corpus, BagOfWords(), seed=0, n_resamples=0))
    assert len(result.item_index) == tested
    if task == "TREC":
        assert len(corpus) == 5452 + 500 and result.n_train == 5452
        assert result.protocol == "given split"
    else:
        assert len(corpus) == tested and result.protocol == "10-fold CV"
    assert result.accuracy == pytest.approx(accuracy, abs=0.002)


def test_cli_transfer_on_cr_whose_texts_repeat(shared_data, capsys):
    # CR repeats a few lines, MPQA also has 98 texts in both classes: both used to exit 2.
    cr = str(shared_data / "senteval-transfer" / "CR")
    assert main(["eval", "transfer", "--corpus", cr, "--encoder", "bow"]) == 0
    out = capsys.readouterr().out
    assert printed_number(out, "tested items") == 3771
    assert printed_number(out, "accuracy") == pytest.approx(0.7998, abs=0.002)


def test_sick_entailment_classes_are_named(shared_data):
    sick = load_corpus(shared_data / "sick")
    result = run_job(run_transfer(sick, BagOfWords(), n_resamples=0))
    assert result.class_names == ("CONTRADICTION", "NEUTRAL", "ENTAILMENT")
    assert result.to_dict()["classes"] == list(result.class_names)
    assert len(result.item_index) == 4927 and result.n_train == 4500
