import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

from sentspace.app.analysis.evaluations.classification import run_classification
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus, Grouping
from sentspace.models.bow import BagOfWords, TfIdf
from sentspace.models.tokenize import TOKEN_PATTERN


@pytest.fixture(scope="module")
def corpus():
    return load_corpus("msrp-grouped")


def test_bow_recovers_paraphrase_groups(corpus):
    result = run_job(run_classification(corpus, BagOfWords()))
    assert result.mean_accuracy > 0.95
    assert len(result.fold_accuracy) == 3
    assert len(result.sentence_index) == 859 and result.n_groups == 274
    # Stratified 3-fold on groups of 3-5: every group has a member in every test fold.
    for k in range(3):
        assert len(np.unique(result.true_group[result.fold == k])) == 274
    wrong = result.predicted_group != result.true_group
    assert np.array_equal(result.misclassified, result.sentence_index[wrong])
    assert result.provenance.corpus_fingerprint == corpus.fingerprint
    assert result.provenance.parameters["refit_per_fold"] is False


def test_tfidf_matches_an_independent_sklearn_pipeline(corpus):
    result = run_job(run_classification(corpus, TfIdf(), seed=3))
    labels = corpus.groups.labels(len(corpus))
    pipeline = make_pipeline(
        TfidfVectorizer(token_pattern=TOKEN_PATTERN, dtype=np.float32),
        LinearSVC(class_weight="balanced", random_state=3),
    )
    folds = StratifiedKFold(n_splits=3, shuffle=True, random_state=3)
    expected = cross_val_score(pipeline, list(corpus.texts), labels, cv=folds)
    np.testing.assert_allclose(result.fold_accuracy, expected, rtol=0, atol=1e-12)
    assert result.provenance.parameters["refit_per_fold"] is True


def test_tfidf_is_refitted_on_training_folds_only(corpus, monkeypatch):
    fitted_on: list[list[str]] = []
    original_fit = TfIdf.fit

    def recording_fit(self, texts):
        fitted_on.append(list(texts))
        return original_fit(self, texts)

    monkeypatch.setattr(TfIdf, "fit", recording_fit)
    result = run_job(run_classification(corpus, TfIdf()))
    monkeypatch.undo()
    assert len(fitted_on) == 3
    for k, fit_texts in enumerate(fitted_on):
        test_texts = {corpus.texts[i] for i in result.sentence_index[result.fold == k]}
        train_texts = {corpus.texts[i] for i in result.sentence_index[result.fold != k]}
        assert set(fit_texts) == train_texts
        assert not set(fit_texts) & test_texts
        # A word seen only in this test fold is outside the fold's fitted vocabulary.
        vocabulary = TfIdf().fit(fit_texts).vocabulary
        test_only = TfIdf().fit(sorted(test_texts)).vocabulary - vocabulary
        assert test_only and not test_only & vocabulary


def test_same_seed_same_numbers_other_seed_other_folds(corpus):
    a = run_job(run_classification(corpus, BagOfWords(), seed=7))
    b = run_job(run_classification(corpus, BagOfWords(), seed=7))
    c = run_job(run_classification(corpus, BagOfWords(), seed=8))
    assert a.fold_accuracy == b.fold_accuracy
    assert np.array_equal(a.predicted_group, b.predicted_group)
    assert not np.array_equal(a.fold, c.fold)


def test_progress_is_reported_per_fold(corpus):
    stages = [p for p in run_classification(corpus, TfIdf()) if p.stage == "classifying folds"]
    assert [(p.done, p.total) for p in stages] == [(1, 3), (2, 3), (3, 3)]


def test_corpus_without_enough_groups_is_refused_before_work():
    texts = ("a b", "a c", "d e", "d f")
    tiny = Corpus(
        "tiny",
        texts,
        ("1", "2", "3", "4"),
        groups=Grouping("paraphrase group", [0, 1, 2, 3], [0, 0, 1, 1], ("x", "y")),
    )
    with pytest.raises(EvaluationError, match="at least 2 groups of 3"):
        next(run_classification(tiny, BagOfWords()))
    ungrouped = Corpus("plain", texts, ("1", "2", "3", "4"))
    with pytest.raises(EvaluationError, match="has none"):
        next(run_classification(ungrouped, BagOfWords()))


def test_too_many_groups_for_one_svm_each_are_refused_before_work(corpus, monkeypatch):
    """A million sentences in 290,000 groups would fit an SVM per group for days: the
    evaluation says so at once (the explorer then notes it skipped), here with the limit
    lowered below grouped MSRP's 274 groups x 859 sentences."""
    from sentspace.app.analysis.evaluations import classification

    monkeypatch.setattr(classification, "SVM_LIMIT", 274 * 859 - 1)
    with pytest.raises(EvaluationError, match="274 groups of 859 sentences would take"):
        next(run_classification(corpus, BagOfWords()))
    monkeypatch.setattr(classification, "SVM_LIMIT", 274 * 859)
    assert next(run_classification(corpus, BagOfWords())) is not None


def test_interval_resamples_whole_groups_of_opinosis(shared_data):
    """Opinosis's paraphrase groups (up to 33 sentences each) are right or wrong
    together: resampling whole groups gives a wider interval than resampling sentences
    as if independent, around the reported mean of the folds' accuracies."""
    from sentspace.app.analysis.evaluations import statistics

    opinosis = load_corpus(shared_data / "white2015-paraphrase-grouped" / "opinosis_distribute")
    result = run_job(run_classification(opinosis, BagOfWords()))
    assert len(result.sentence_index) == 521 and result.n_groups == 89
    low, high = result.ci
    assert 0.45 < low < result.mean_accuracy < high < 0.8
    correct = (result.predicted_group == result.true_group).astype(float)
    sentences = statistics.cis(
        {"a": (statistics.fold_mean, correct, result.fold)},
        n_resamples=1000,
        confidence=0.95,
        seed=0,
    )["a"]
    assert high - low > 1.3 * (sentences[1] - sentences[0])
    # The metric with every weight 1 is the reported value.
    assert statistics.fold_mean(correct, result.fold)[0] == pytest.approx(
        result.mean_accuracy, abs=1e-12
    )
    again = run_job(run_classification(opinosis, BagOfWords()))
    assert again.ci == result.ci
    shown = dict(result.summary())["mean accuracy"]
    assert shown == f"{result.mean_accuracy:.4f} [{low:.4f}, {high:.4f}]"
    assert result.intervals() == {"mean accuracy": (result.mean_accuracy, result.ci)}
    data = result.to_dict()
    assert data["mean_accuracy_ci"] == [low, high]
    assert data["metric_table"][0] == {
        "metric": "mean accuracy",
        "value": result.mean_accuracy,
        "ci_low": low,
        "ci_high": high,
        "n": 521,
    }
    assert sum(group["misclassified"] for group in data["groups"]) == len(result.misclassified)


def test_no_resamples_no_interval(corpus):
    result = run_job(run_classification(corpus, BagOfWords(), n_resamples=0))
    assert result.ci is None and result.intervals() == {}
    assert dict(result.summary())["mean accuracy"] == f"{result.mean_accuracy:.4f}"


def test_groups_ranked_by_their_misclassified(corpus):
    result = run_job(run_classification(corpus, BagOfWords()))
    members, wrong = result.group_counts()
    assert members.sum() == 859 and wrong.sum() == len(result.misclassified) == 14
    worst = result.worst_groups()
    assert np.all(wrong[worst] > 0) and len(worst) == np.count_nonzero(wrong)
    assert np.all(np.diff(wrong[worst]) <= 0)
    first = int(worst[0])
    assert set(result.group_sentences(first)) == set(
        corpus.groups.members(corpus.groups.names.index(result.group_names[first]))
    )
