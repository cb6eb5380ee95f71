import json
import warnings
from collections import Counter

import numpy as np
import pytest

from sentspace.app.analysis.evaluations.costra import evaluate_costra, run_costra, seed_group_paths
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Progress, run_job
from sentspace.app.corpora.costra import CLASSES, PARAPHRASE_CLASSES
from sentspace.app.corpora.grouped import load_grouped
from sentspace.models.bow import BagOfWords

#: The keys of ``reference_scores()``: the reference's classes, then Costra's own score.
SCORE_NAMES = ("basic", "modality", "time", "style", "generalization", "opposite_meaning", "costra")


@pytest.fixture(scope="module")
def reference(shared_data):
    """The costra package's evaluator on the same file, its comparisons collected once
    (that pandas loop takes seconds); ``evaluate`` itself runs unchanged."""
    pytest.importorskip("costra")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the package imports the deprecated pkg_resources
        from costra.costra import CostraEvaluator
    evaluator = CostraEvaluator(str(shared_data / "costra" / "data.tsv"))
    collected = evaluator._collect_comparisons()
    evaluator._collect_comparisons = lambda: collected
    return evaluator


@pytest.fixture(scope="module")
def bow_dense(costra):
    texts = costra.metadata["tokenized"]
    return BagOfWords().fit(texts).encode(texts)


@pytest.fixture(scope="module")
def bow_result(costra, bow_dense):
    return evaluate_costra(costra, bow_dense)


def reference_scores(evaluator, embeddings):
    with np.errstate(divide="ignore", invalid="ignore"):  # its zero-vector cosines
        return evaluator.evaluate(embeddings)


def test_comparisons_equal_the_reference_ones(costra, reference):
    result = evaluate_costra(costra, np.eye(len(costra), 8, dtype=np.float32))
    comparisons = result.comparisons
    basic, advanced, _ = reference._collect_comparisons()
    for k, (name, types) in enumerate(CLASSES.items()):
        source = basic if name in PARAPHRASE_CLASSES else advanced
        theirs = Counter(
            ((int(a), int(b)), (int(c), int(d))) for t in types for (a, b), (c, d) in source[t]
        )
        mine = comparisons.class_index == k
        ours = Counter(
            (tuple(more), tuple(less))
            for more, less in zip(
                comparisons.more_similar[mine].tolist(), comparisons.less_similar[mine].tolist()
            )
        )
        assert ours == theirs, name


def test_random_embeddings_equal_the_reference(costra, reference):
    embeddings = np.random.default_rng(0).standard_normal((len(costra), 300), dtype=np.float32)
    result = evaluate_costra(costra, embeddings)
    assert result.reference_scores() == reference_scores(reference, embeddings)
    assert result.reference_scores() == dict(
        zip(SCORE_NAMES, (0.488, 0.494, 0.511, 0.5, 0.498, 0.504, 0.499))
    )
    assert result.class_correct.tolist() == [2148, 1357, 5315, 19130, 5041, 7495]
    # The cosines themselves are bitwise the reference's.
    sample = np.random.default_rng(1).choice(len(result.passed), 3000, replace=False)
    for pairs, cosines in (
        (result.comparisons.more_similar, result.more_similar_cosine),
        (result.comparisons.less_similar, result.less_similar_cosine),
    ):
        theirs = [
            reference.cosine_similarity(embeddings[a], embeddings[b]) for a, b in pairs[sample]
        ]
        assert np.array_equal(np.array(theirs, dtype=np.float32), cosines[sample])


def test_float64_embeddings_equal_the_reference(costra, reference):
    embeddings = np.random.default_rng(2).standard_normal((len(costra), 50))
    result = evaluate_costra(costra, embeddings)
    assert result.more_similar_cosine.dtype == np.float64
    assert result.reference_scores() == reference_scores(reference, embeddings)


def test_bag_of_words_equals_the_reference(reference, bow_dense, bow_result):
    result = bow_result
    assert result.reference_scores() == reference_scores(reference, bow_dense)
    assert result.reference_scores() == dict(
        zip(SCORE_NAMES, (0.086, 0.071, 0.628, 0.579, 0.653, 0.709, 0.454))
    )
    assert result.class_correct.tolist() == [377, 195, 6532, 22131, 6619, 10538]
    # Identical texts give exact ties, which fail.
    ties = result.more_similar_cosine == result.less_similar_cosine
    assert ties.sum() == 4465 and not result.passed[ties].any()


def test_sparse_bag_of_words_gives_the_same_cosines(costra, bow_result):
    # run_costra encodes with the sparse matrix the encoder returns.
    sparse = run_job(run_costra(costra, BagOfWords(), tokenized=True))
    assert np.array_equal(sparse.more_similar_cosine, bow_result.more_similar_cosine)
    assert np.array_equal(sparse.less_similar_cosine, bow_result.less_similar_cosine)


def test_zero_vectors_fail_and_are_counted(costra, reference):
    embeddings = np.random.default_rng(3).standard_normal((len(costra), 20), dtype=np.float32)
    embeddings[:40] = 0
    result = evaluate_costra(costra, embeddings)
    assert result.n_degenerate == 40
    assert result.reference_scores() == reference_scores(reference, embeddings)
    touches = (result.comparisons.more_similar < 40).any(axis=1)
    assert touches.sum() > 0 and not result.passed[touches].any()
    assert ("zero or non-finite embeddings", "40") in result.summary()


def test_all_ties_score_zero(costra, reference):
    embeddings = np.ones((len(costra), 4), dtype=np.float32)
    result = evaluate_costra(costra, embeddings)
    assert result.reference_scores() == reference_scores(reference, embeddings)
    assert set(result.reference_scores().values()) == {0.0}


def test_run_costra_encodes_fits_and_records(costra, bow_result):
    job = run_costra(costra, BagOfWords(), seed=5, tokenized=True)
    stages = []
    while True:
        try:
            progress = next(job)
        except StopIteration as stop:
            result = stop.value
            break
        assert isinstance(progress, Progress)
        stages.append(progress.stage)
    # Through the embedding cache: looked up (encoded on a miss), then compared.
    assert stages[0] == "looking for cached bow embeddings" and stages[-1] == "comparing"
    assert result.provenance.parameters == {"seed": 5, "tokenized": True}
    assert result.provenance.encoder_family == "bow"
    assert np.array_equal(result.passed, bow_result.passed)
    assert result.summary()[0] == ("basic", "0.086 (377 of 4406)")
    assert result.summary()[-1] == ("mean", "0.454")
    assert len(result.failing) == 80798 - 46392
    record = json.loads(json.dumps(result.to_dict()))
    assert record["scores"]["costra"] == 0.454
    assert len(record["comparisons"]) == 80798
    assert record["comparisons"][0]["rule"].startswith("cos(seed, paraphrase)")


def test_bad_input_is_refused_before_work(costra, shared_data):
    with pytest.raises(EvaluationError, match="one embedding per sentence"):
        evaluate_costra(costra, np.zeros((10, 3), dtype=np.float32))
    grouped = load_grouped(shared_data / "white2015-paraphrase-grouped" / "msrp_distribute")
    with pytest.raises(EvaluationError, match="Costra"):
        next(run_costra(grouped, BagOfWords()))


def test_paths_follow_the_r1_r2_orderings(costra):
    group = costra.groups.names.index("1")
    seed, paths, spokes = seed_group_paths(costra, group)
    assert costra.ids[seed] == "68" and costra.metadata["type"][seed] == "seed"
    # data.tsv, seed group 1, formal sentence: 12 has only the seed in r1 and everything
    # else in r2; 14 has every other one in r1.
    formal = [costra.ids[row] for row in paths["formal sentence"]]
    assert formal[:2] == ["68", "12"] and formal[-1] == "14" and len(formal) == 10
    # Opposite meaning keeps the seed in r2: the orientation flips; 46 lies between the
    # seed and 47, 48, 51, and 48 between 46 and the rest.
    opposite = [costra.ids[row] for row in paths["opposite meaning"]]
    assert opposite[:3] == ["68", "46", "48"] and opposite[-1] == "51"
    assert set(spokes) == {
        "ban",
        "different meaning",
        "minimal change",
        "nonsense",
        "paraphrase",
        "possibility",
    }
    every = (
        [seed]
        + [r for rows in paths.values() for r in rows[1:]]
        + [r for rows in spokes.values() for r in rows]
    )
    assert sorted(every) == sorted(costra.groups.members(group).tolist())
