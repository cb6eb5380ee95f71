import csv
import json

import numpy as np
import pytest
from scipy import stats
from sklearn.feature_extraction.text import CountVectorizer

from sentspace.app.analysis.evaluations.relatedness import evaluate_relatedness, run_relatedness
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus, PairTable
from sentspace.models.bow import BagOfWords
from sentspace.models.tokenize import TOKEN_PATTERN

from ._pairs import sick, sts2016


@pytest.fixture(scope="module")
def sick300(shared_data):
    return sick(shared_data, n_per_file=100)


def _independent_cosines(corpus):
    counts = CountVectorizer(token_pattern=TOKEN_PATTERN).fit_transform(corpus.texts)
    counts = counts.toarray().astype(np.float64)
    a, b = counts[corpus.pairs.first], counts[corpus.pairs.second]
    # Cosines equal in exact arithmetic must tie, as Spearman's ranks depend on it.
    return np.round((a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1), 12)


def test_bow_correlations_equal_scipy_on_real_sick_pairs(sick300):
    result = run_job(run_relatedness(sick300, BagOfWords(), split="all", n_resamples=200))
    cosine = _independent_cosines(sick300)
    gold = sick300.pairs.score
    np.testing.assert_allclose(result.cosine, cosine, atol=1e-6)
    assert result.pooled.n_pairs == 300 and result.n_unscored == 0
    assert result.pooled.spearman == pytest.approx(
        stats.spearmanr(cosine, gold).statistic, abs=1e-6
    )
    assert result.pooled.pearson == pytest.approx(stats.pearsonr(cosine, gold).statistic, abs=1e-6)
    # Default mapping: cosine [-1, 1] onto the gold scale read off the data, [1, 5].
    assert result.gold_range == (1.0, 5.0)
    assert result.pooled.mse == pytest.approx(np.mean((1 + (cosine + 1) * 2 - gold) ** 2), abs=1e-6)
    low, high = result.pooled.spearman_ci
    assert low < result.pooled.spearman < high
    mapped = evaluate_relatedness(
        sick300,
        BagOfWords().fit(sick300.texts).encode(sick300.texts),
        cosine_range=(0.0, 1.0),
        n_resamples=0,
    )
    assert mapped.pooled.mse == pytest.approx(np.mean((1 + cosine * 4 - gold) ** 2), abs=1e-6)
    assert mapped.pooled.spearman_ci is None and mapped.provenance.encoder_name == "precomputed"
    test_only = run_job(run_relatedness(sick300, BagOfWords(), splits=("test",), n_resamples=0))
    assert test_only.pooled.n_pairs == 100


def test_sts_subsets_and_unscored_pairs(shared_data):
    corpus = sts2016(shared_data)
    result = run_job(run_relatedness(corpus, BagOfWords(), n_resamples=0))
    assert result.n_unscored == 7997 and result.pooled.n_pairs == 1186
    names = [c.subset for c in result.subsets]
    assert names == ["answer-answer", "headlines", "plagiarism", "postediting", "question-question"]
    headlines = result.subsets[1]
    mask = np.array(result.subset) == "headlines"
    assert headlines.n_pairs == 249
    assert headlines.spearman == pytest.approx(
        stats.spearmanr(result.cosine[mask], result.gold[mask]).statistic
    )


def test_deterministic_and_zero_vectors_counted(sick300):
    embeddings = BagOfWords().fit(sick300.texts).encode(sick300.texts)
    embeddings[[0, 5]] = 0.0
    first = evaluate_relatedness(sick300, embeddings, seed=7, n_resamples=100)
    again = evaluate_relatedness(sick300, embeddings, seed=7, n_resamples=100)
    assert first.pooled == again.pooled
    assert first.n_degenerate_sentences == 2
    involved = np.isin(sick300.pairs.first, [0, 5]) | np.isin(sick300.pairs.second, [0, 5])
    assert first.degenerate.sum() == involved.sum() > 0
    assert np.all(first.cosine[first.degenerate] == 0) and np.isfinite(first.pooled.spearman)


class _Refuse(BagOfWords):
    def fit(self, texts):
        raise AssertionError("encoder used before the corpus was checked")


def test_refuses_corpus_without_scores_before_any_work():
    unscored = Corpus(
        "x", ("a b", "a c"), ("1", "2"), pairs=PairTable([0], [1], [1], [np.nan], ("test",), ("s",))
    )
    with pytest.raises(EvaluationError, match="gold similarity"):
        run_job(run_relatedness(unscored, _Refuse()))
    with pytest.raises(EvaluationError, match="no pairs"):
        run_job(run_relatedness(Corpus("y", ("a",), ("1",)), _Refuse()))
    with pytest.raises(EvaluationError, match="no split"):
        run_job(run_relatedness(unscored, _Refuse(), splits=("dev",)))


def _sick_rows(folder) -> dict[str, tuple[str, str]]:
    """pair_ID -> (sentence_A, sentence_B), read straight from the release files
    (trailing spaces dropped, as the reader does)."""
    rows = {}
    for path in sorted(folder.glob("SICK_*.txt")):
        with path.open(encoding="utf-8", newline="") as handle:
            for record in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                rows[record["pair_ID"]] = (
                    record["sentence_A"].strip(),
                    record["sentence_B"].strip(),
                )
    return rows


def test_json_names_every_pair_by_its_sick_pair_id(shared_data):
    """The JSON names each pair by SICK's pair_ID, and that pair's sentences in the
    release files are the ones the row points at (row numbers and ids differ)."""
    corpus = load_corpus(shared_data / "sick")
    released = _sick_rows(shared_data / "sick")
    result = run_job(run_relatedness(corpus, BagOfWords(), split="all", n_resamples=0))
    pairs = json.loads(json.dumps(result.to_dict()))["pairs"]
    assert len(pairs) == len(released) == len(corpus.pairs)
    assert sum(entry["pair"] != str(entry["row"]) for entry in pairs) > 9000
    for entry in pairs:
        row = entry["row"]
        assert released[entry["pair"]] == (
            corpus.texts[corpus.pairs.first[row]],
            corpus.texts[corpus.pairs.second[row]],
        )
    table = {row["metric"]: row for row in result.to_dict()["metric_table"]}
    assert table["pooled spearman"]["value"] == result.pooled.spearman
    assert table["pooled spearman"]["n"] == len(released)


def test_a_learned_similarity_trains_on_the_other_pairs_and_beats_cosine(shared_data):
    """SICK test (4,927 pairs) scored by a classifier over the score classes trained on
    train + trial's [|u-v|, u*v] (Tai et al.'s sparse targets): bag of words goes from
    Spearman 0.53 by cosine to 0.742 (Pearson 0.784, MSE 0.40), and never sees a test
    pair."""
    corpus = load_corpus(shared_data / "sick")
    cosine = run_job(run_relatedness(corpus, BagOfWords(), n_resamples=0))
    learned = run_job(run_relatedness(corpus, BagOfWords(), similarity="learned", n_resamples=0))
    assert learned.evaluated == cosine.evaluated == "test 4,927"
    assert learned.learned_from == "train 4,500 + trial 500"
    assert 0.70 <= learned.pooled.spearman <= 0.78 and 0.75 <= learned.pooled.pearson <= 0.82
    assert learned.pooled.spearman > cosine.pooled.spearman + 0.15
    assert learned.pooled.mse < 0.5 < cosine.pooled.mse
    assert 1 <= learned.cosine.min() and learned.cosine.max() <= 5  # on the gold scale
    rows = dict(learned.summary())
    assert rows["similarity"].startswith("learned from train 4,500 + trial 500")
    assert learned.provenance.parameters["similarity"] == "learned"
    with pytest.raises(EvaluationError, match="evaluate its test split"):
        run_job(run_relatedness(corpus, BagOfWords(), split="all", similarity="learned"))
