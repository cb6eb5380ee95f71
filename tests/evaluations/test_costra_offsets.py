"""Costra transformations as directions, on the real Costra 1.1 file."""

import numpy as np
import pytest

from sentspace.app.analysis.evaluations.costra_offsets import (
    evaluate_costra_offsets,
    run_costra_offsets,
)
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.costra import load_costra
from sentspace.models import make_encoder


@pytest.fixture(scope="module")
def bow_result(costra):
    return run_job(run_costra_offsets(costra, make_encoder("bow")))


def offsets_of(costra, embeddings, kind):
    types = np.asarray(costra.metadata["type"])
    group = costra.groups.labels(len(costra))
    seeds = {g: i for i, g in enumerate(group) if types[i] == "seed"}
    rows = np.flatnonzero(types == kind)
    return embeddings[rows] - embeddings[[seeds[g] for g in group[rows]]], group[rows]


def test_consistency_is_the_mean_cosine_of_offsets_from_different_groups(costra, bow_result):
    embeddings = make_encoder("bow").fit(costra.texts).encode(costra.texts)
    offsets, groups = offsets_of(costra, embeddings.astype(np.float64), "ban")
    norms = np.linalg.norm(offsets, axis=1)
    offsets, groups = offsets[norms > 0] / norms[norms > 0, None], groups[norms > 0]
    cosine = offsets @ offsets.T
    different = groups[:, None] != groups[None, :]
    ban = bow_result.type_names.index("ban")
    assert bow_result.consistency[ban] == pytest.approx(cosine[different].mean(), abs=1e-9)


def test_bag_of_words_directions_above_the_shuffled_baseline(bow_result):
    result = bow_result
    assert len(result.type_names) == 13 and "seed" not in result.type_names
    assert result.n_offsets.sum() == 6968 - 126
    head = result.metrics()
    assert head["mean consistency"] > 5 * head["mean shuffled baseline"]
    # Modality adds the same words in every group ("nesmí", "může"): clear directions;
    # a paraphrase has no direction.
    for kind in ("ban", "possibility"):
        index = result.type_names.index(kind)
        assert result.consistency[index] > 0.05 > 10 * result.baseline[index]
    assert abs(result.consistency[result.type_names.index("paraphrase")]) < 0.005
    assert len(result.cell_rank) == 1630
    assert head["analogy accuracy"] > 1 / 13 and 0 < head["analogy MRR"] < 1
    assert (result.cell_rank >= 1).all()
    low, high = result.ci["analogy MRR"]
    assert low < head["analogy MRR"] < high


def test_random_bow_agrees_with_bow_and_is_seeded(costra):
    first = run_job(run_costra_offsets(costra, make_encoder("random-bow"), seed=3))
    again = run_job(run_costra_offsets(costra, make_encoder("random-bow"), seed=3))
    np.testing.assert_array_equal(first.baseline, again.baseline)
    np.testing.assert_array_equal(first.ci["analogy accuracy"], again.ci["analogy accuracy"])
    metrics = first.metrics()
    assert metrics["mean consistency"] > 5 * metrics["mean shuffled baseline"]
    assert first.summary()[-1][0].startswith("offsets of zero")


def test_not_costra_is_refused(shared_data):
    corpus = load_corpus("msrp-grouped")
    with pytest.raises(EvaluationError):
        evaluate_costra_offsets(corpus, np.zeros((len(corpus), 3)))


def test_cli(shared_data, capsys):
    costra = str(shared_data / "costra" / "data.tsv")
    assert main(["eval", "costra-offsets", "--corpus", costra, "--encoder", "random-bow"]) == 0
    out = capsys.readouterr().out
    assert "mean consistency" in out and "analogy MRR" in out


def first_groups_file(source, destination, n_groups):
    """Costra's data.tsv cut to its first ``n_groups`` seed groups, id lists kept within."""
    rows = [
        line.split("\t") for line in source.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    groups = list(dict.fromkeys(row[1] for row in rows))[:n_groups]
    kept = [row for row in rows if row[1] in groups]
    ids = {row[0] for row in kept}
    lines = [
        "\t".join(
            row[:5] + [",".join(i for i in column.split(",") if i in ids) for column in row[5:]]
        )
        for row in kept
    ]
    destination.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return destination


def test_e5_small_makes_modality_and_tense_directions(shared_data, tmp_path):
    from sentspace.models import MultilingualE5

    if not MultilingualE5.available():
        pytest.skip("the multilingual extra is not installed")
    corpus = load_costra(
        first_groups_file(shared_data / "costra" / "data.tsv", tmp_path / "data.tsv", 8)
    )
    result = run_job(run_costra_offsets(corpus, MultilingualE5()))
    for kind in ("ban", "possibility", "past", "future"):
        index = result.type_names.index(kind)
        assert result.consistency[index] > 0.1 > 5 * result.baseline[index]
    metrics = result.metrics()
    assert metrics["mean consistency"] > 5 * metrics["mean shuffled baseline"]
