"""Regions: HDBSCAN clusters of the bundled grouped MSRP, labelled by class-based TF-IDF."""

import csv
import re

import numpy as np
import pytest

from sentspace.app.corpora import load_corpus
from sentspace.app.errors import EvaluationError
from sentspace.app.jobs import run_job
from sentspace.app.projection import project
from sentspace.app.regions import NOISE, find_regions
from sentspace.models import make_encoder


@pytest.fixture(scope="module")
def msrp():
    corpus = load_corpus("msrp-grouped")
    encoder = make_encoder("tfidf").fit(corpus.texts)
    embeddings = encoder.encode(corpus.texts)
    layout = run_job(project(embeddings, "pca")).coordinates
    return corpus, encoder, embeddings, layout


def words(text):
    return set(re.findall(r"\w\w+", text.lower()))


def test_cluster_labels_name_the_words_a_paraphrase_group_shares(msrp):
    corpus, encoder, embeddings, layout = msrp
    regions = run_job(find_regions(corpus, layout, embeddings=embeddings, encoder=encoder,
                                   on="embeddings", min_cluster_size=3))
    group = corpus.groups.labels(len(corpus))
    group_like = named = 0
    for cluster in range(regions.n_clusters):
        members = np.flatnonzero(regions.labels == cluster)
        groups, counts = np.unique(group[members], return_counts=True)
        if counts.max() < 2 / 3 * len(members):
            continue
        # A cluster that is mostly one paraphrase group: its label (first three
        # keywords) should contain a word every sentence of that group has.
        texts = [corpus.texts[i] for i in np.flatnonzero(group == groups[counts.argmax()])]
        shared = set.intersection(*map(words, texts))
        group_like += 1
        named += bool(shared & set(regions.label(cluster).split(", ")))
    assert group_like > 200
    assert named / group_like > 0.95
    dow = [k for k in range(regions.n_clusters) if "dow" in regions.keywords[k]]
    assert dow and "jones" in regions.keywords[dow[0]]


def test_layout_clusters_with_a_sample_and_nearest_centres(msrp, tmp_path):
    corpus, encoder, embeddings, layout = msrp
    full = run_job(find_regions(corpus, layout, encoder=encoder))
    assert full.n_clustered == len(corpus) and 5 < full.n_clusters < 80
    sampled = run_job(find_regions(corpus, layout, encoder=encoder, max_points=400, seed=1))
    assert sampled.n_clustered == 400
    # Only sampled points can be noise; every other one joins its nearest centre.
    assert (sampled.labels == NOISE).sum() <= 400
    assert sampled.sizes.sum() + (sampled.labels == NOISE).sum() == len(corpus)
    again = run_job(find_regions(corpus, layout, encoder=encoder, max_points=400, seed=1))
    np.testing.assert_array_equal(sampled.labels, again.labels)
    # Centres are the mean layout position of each cluster's sentences.
    first = np.flatnonzero(sampled.labels == 0)
    np.testing.assert_allclose(sampled.centres[0], layout[first].mean(axis=0), rtol=1e-5)

    path = tmp_path / "regions.csv"
    full.export_csv(corpus.texts, path)
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["sentence", "cluster", "label"] and len(rows) == len(corpus) + 1
    row = next(r for r in rows[1:] if r[1] != "-1")
    assert row[2] == full.label(int(row[1])) and row[2]


def test_bad_input_is_refused(msrp):
    corpus, _, embeddings, layout = msrp
    with pytest.raises(EvaluationError, match="2D coordinates"):
        run_job(find_regions(corpus, layout[:10]))
    with pytest.raises(EvaluationError, match="needs the embeddings"):
        run_job(find_regions(corpus, layout, on="embeddings"))


def test_cli_regions_writes_the_csv(tmp_path, capsys):
    from sentspace.app.cli import main

    path = tmp_path / "out.csv"
    assert main(["regions", "--encoder", "tfidf", "--on", "embeddings",
                 "--min-cluster-size", "3", "--csv", str(path)]) == 0
    assert "clusters" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8").count("\n") == 860
