"""Regions: nested k-means regions of real layouts at several levels, labelled by
class-based TF-IDF, and where their labels go on screen."""

import csv
import re
from collections import Counter

import numpy as np
import pytest

from sentspace.app.analysis.projection import project
from sentspace.app.analysis.regions import (
    LABEL_WORDS,
    NOISE,
    Regions,
    class_tfidf,
    distinct_labels,
    find_regions,
    place_labels,
    stop_words,
    word_counts,
)
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.workspace.codec import decode_state, encode_state
from sentspace.models import make_encoder


@pytest.fixture(scope="module")
def msrp(grouped):
    encoder = make_encoder("tfidf").fit(grouped.texts)
    embeddings = encoder.encode(grouped.texts)
    layout = run_job(project(embeddings, "pca")).coordinates
    return grouped, encoder, embeddings, layout


def words(text):
    return set(re.findall(r"\w\w+", text.lower()))


def test_no_region_holds_most_of_a_real_map_and_levels_nest(shared_data):
    # SICK's training file (4,802 sentences) by bag of words and PCA: one dense blob.
    corpus = load_corpus(shared_data / "sick" / "SICK_train.txt")
    embeddings = make_encoder("bow").fit(corpus.texts).encode(corpus.texts)
    layout = run_job(project(embeddings, "pca")).coordinates
    regions = run_job(find_regions(corpus, layout))
    levels = regions.levels
    assert levels[0].n_clusters == 8 and 30 < levels[1].n_clusters <= 40
    assert 100 < levels[2].n_clusters <= 200
    assert regions.largest_share < 0.3
    for coarse, fine in zip(levels, levels[1:]):
        # Each fine region lies inside one coarse region: its parent.
        np.testing.assert_array_equal(fine.parents[fine.labels], coarse.labels)
        assert fine.sizes.max() < coarse.sizes.max()
        assert fine.sizes.sum() == len(corpus) and fine.sizes.min() >= 5
    # The finest regions are named by what their sentences say, not by the corpus's
    # commonest words: labels differ across the level.
    names = [levels[2].label(k) for k in range(levels[2].n_clusters)]
    assert len(set(names)) == len(names)
    assert "regions per level, coarse to fine" in dict(regions.summary())


def test_region_labels_name_the_words_a_paraphrase_group_shares(msrp):
    corpus, encoder, embeddings, layout = msrp
    regions = run_job(
        find_regions(
            corpus,
            layout,
            embeddings=embeddings,
            encoder=encoder,
            on="embeddings",
            min_cluster_size=3,
        )
    )
    finest = regions.levels[-1]
    group = corpus.groups.labels(len(corpus))
    group_like = named = 0
    for cluster in range(finest.n_clusters):
        members = np.flatnonzero(finest.labels == cluster)
        groups, counts = np.unique(group[members], return_counts=True)
        if counts.max() < 2 / 3 * len(members):
            continue
        # A cluster that is mostly one paraphrase group: its label (first three
        # keywords) should contain a word every sentence of that group has.
        texts = [corpus.texts[i] for i in np.flatnonzero(group == groups[counts.argmax()])]
        shared = set.intersection(*map(words, texts))
        group_like += 1
        named += bool(shared & set(finest.label(cluster).split(", ")))
    assert group_like > 60
    assert named / group_like > 0.95
    dow = [k for k in range(finest.n_clusters) if "dow" in finest.keywords[k]]
    assert dow and "jones" in finest.keywords[dow[0]]


def test_regions_of_a_level_never_share_a_label_and_name_what_sets_them_apart():
    """Multi30K's 5,070 validation captions by bag of words and PCA: the coarse labels
    named "man" (common to every region) in most of them and two "people, men, man".
    Now no two labels of a level share their words, no word is in more than half of
    them, and every word of a label is commoner in its region than in the others."""
    corpus = load_corpus("multi30k-captions:en:val")
    embeddings = make_encoder("bow").fit(corpus.texts).encode(corpus.texts)
    regions = run_job(find_regions(corpus, run_job(project(embeddings, "pca")).coordinates))
    counts, vocabulary = word_counts(corpus.texts, corpus.language)
    column = {word: k for k, word in enumerate(vocabulary.tolist())}
    for level in regions.levels:
        names = [level.label(k).split(", ") for k in range(level.n_clusters)]
        assert len({frozenset(name) for name in names}) == len(names)  # in any order
        assert all(set(name) <= set(level.keywords[k]) for k, name in enumerate(names))
        used = Counter(word for name in names for word in name)
        assert max(used.values()) <= level.n_clusters // 2, used.most_common(3)
        for k, name in enumerate(names):
            inside = level.labels == k
            for word in name:
                here = counts[inside][:, [column[word]]].sum() / counts[inside].sum()
                rest = counts[~inside][:, [column[word]]].sum() / counts[~inside].sum()
                assert here > rest, (level.label(k), word)
    coarse = [regions.label(k) for k in range(regions.n_clusters)]
    assert sum("man" in label.split(", ") for label in coarse) <= 4, coarse


def test_czech_labels_name_content_words_not_stop_words(shared_data):
    """Costra's regions were labelled "se, že, na" and "jeho, jsem, se": scikit-learn has
    stop words for English only."""
    costra = load_corpus("costra")
    assert costra.language == "cs"
    counts, vocabulary = word_counts(costra.texts, costra.language)
    # Regions as wide as a transformation type, each across every seed sentence's topic.
    types, codes = np.unique(np.asarray(costra.metadata["type"], dtype=str), return_inverse=True)
    keywords, _ = class_tfidf(counts, vocabulary, codes, len(types))
    used = {word for words in keywords for word in words[:LABEL_WORDS]}
    assert not used & {"se", "že", "na", "jeho", "jsem", "je", "to", "za"}
    assert all(len(words) >= LABEL_WORDS for words in keywords)
    assert stop_words("mul") is None and stop_words("en") == "english"


def test_each_sentence_of_a_parallel_corpus_loses_its_own_languages_stop_words(shared_data):
    """Multi30K's four languages were labelled "un, in, une": a sentence loses the stop
    words of its own language only, so English "man" stays though German lists it."""
    parallel = load_corpus("multi30k-parallel")
    languages = parallel.metadata["language"]
    assert parallel.language == "mul" and set(languages) == {"en", "de", "fr", "cs"}
    counts, vocabulary = word_counts(parallel.texts, parallel.language, languages)
    blocks = np.arange(len(parallel)) // 800  # 200 lines of four translations each
    keywords, _ = class_tfidf(counts, vocabulary, blocks, 5)
    used = {word for words in keywords for word in words[:LABEL_WORDS]}
    assert not used & {"un", "une", "in", "ein", "eine", "einem", "na", "se", "the", "de"}
    assert "man" in used and "man" in stop_words("de")


def test_regions_with_no_keyword_to_tell_them_apart_are_numbered():
    keywords = [("a", "b", "c", "d"), ("b", "a", "c"), ("c", "b", "a", "e"), ("a", "b", "d")]
    labels = distinct_labels(keywords, np.array([5, 9, 3, 1]))
    # The largest keeps its words; the next takes "d" for its last, "c" being named;
    # "a" and "b" are then in two labels of four, the most a word may be in.
    assert labels == ("a, b, d", "b, a, c", "c, e", "d")
    assert distinct_labels([("a", "b"), ("a", "b")], np.array([2, 1])) == ("a, b", "a, b (2)")


def test_layout_regions_with_a_sample_and_nearest_centres(msrp, tmp_path):
    corpus, encoder, embeddings, layout = msrp
    full = run_job(find_regions(corpus, layout, encoder=encoder))
    assert full.n_clustered == len(corpus) and full.n_clusters == 8
    sampled = run_job(find_regions(corpus, layout, encoder=encoder, max_points=400, seed=1))
    assert sampled.n_clustered == 400
    # Every sentence is in a region: the sampled ones and those joining a centre.
    assert not (sampled.labels == NOISE).any() and sampled.sizes.sum() == len(corpus)
    again = run_job(find_regions(corpus, layout, encoder=encoder, max_points=400, seed=1))
    for level, same in zip(sampled.levels, again.levels):
        np.testing.assert_array_equal(level.labels, same.labels)
    # Each label's place is among its region's sentences: most of its nearest are.
    for level in sampled.levels[:2]:
        for k, centre in enumerate(level.centres):
            nearest = np.argsort(((layout - centre) ** 2).sum(axis=1))[:10]
            assert np.mean(level.labels[nearest] == k) >= 0.5, (k, level.label(k))

    path = tmp_path / "regions.csv"
    full.export_csv(corpus.texts, path)
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == [
        "sentence",
        "cluster",
        "label",
        "cluster 2",
        "label 2",
        "cluster 3",
        "label 3",
    ]
    assert len(rows) == len(corpus) + 1
    row = rows[1]
    assert row[2] == full.label(int(row[1])) and row[2]
    assert row[6] == full.levels[2].label(int(row[5])) and row[6]


def test_a_workspace_saved_before_levels_still_opens(msrp):
    corpus, encoder, _, layout = msrp
    regions = run_job(find_regions(corpus, layout, encoder=encoder))
    saved = encode_state(regions)
    reopened = decode_state(saved, corpus, kind=Regions)
    assert [level.n_clusters for level in reopened.levels] == [
        level.n_clusters for level in regions.levels
    ]
    del saved["fields"]["finer"]
    old = decode_state(saved, corpus, kind=Regions)
    assert len(old.levels) == 1 and np.array_equal(old.labels, regions.labels)


def test_labels_keep_clear_of_each_other_and_of_marked_points():
    frame = (0.0, 0.0, 400.0, 300.0)
    sizes = np.array([(80, 20), (80, 20), (60, 20), (60, 20)], dtype=float)
    # Two labels on the same spot, one near the edge, one out of view.
    anchors = np.array([(200, 150), (205, 152), (395, 150), (500, 100)], dtype=float)
    placed = place_labels(anchors, sizes, frame, margin=2)
    assert np.isnan(placed[3]).all()
    boxes = [
        (x - w / 2 - 2, y - h / 2 - 2, x + w / 2 + 2, y + h / 2 + 2)
        for (x, y), (w, h) in zip(placed[:3], sizes)
    ]
    for i, a in enumerate(boxes):
        assert frame[0] <= a[0] and a[2] <= frame[2]
        for b in boxes[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
    np.testing.assert_allclose(placed[0], (200, 150))  # the first keeps its place
    # A search hit under the first label moves it beside its place, off the hit.
    hit = np.array([(210, 150)])
    moved = place_labels(anchors[:1], sizes[:1], frame, marked=hit, margin=2)[0]
    assert not np.allclose(moved, (200, 150))
    assert abs(moved[0] - 210) > 42 or abs(moved[1] - 150) > 12
    # Hits wherever the label could go: it is dropped rather than hide one.
    around = np.stack(np.meshgrid(np.arange(100, 301, 10), np.arange(90, 211, 10)), -1)
    assert len(around.reshape(-1, 2)) <= 300
    assert np.isnan(
        place_labels(anchors[:1], sizes[:1], frame, marked=around.reshape(-1, 2), margin=2)
    ).all()
    # So many hits that every place covers some: the label takes the place covering
    # the fewest rather than leave the map unnamed.
    dense = np.stack(np.meshgrid(np.arange(0, 401, 5), np.arange(0, 166, 5)), -1)
    sparse = np.stack(np.meshgrid(np.arange(0, 401, 20), np.arange(170, 301, 20)), -1)
    everywhere = np.concatenate([dense.reshape(-1, 2), sparse.reshape(-1, 2)])
    crowded = place_labels(anchors[:1], sizes[:1], frame, marked=everywhere, margin=2)[0]
    np.testing.assert_allclose(crowded, (200, 150 + 2 * 24))  # two rows down, sparse


def test_bad_input_is_refused(msrp):
    corpus, _, embeddings, layout = msrp
    with pytest.raises(EvaluationError, match="2D coordinates"):
        run_job(find_regions(corpus, layout[:10]))
    with pytest.raises(EvaluationError, match="needs the embeddings"):
        run_job(find_regions(corpus, layout, on="embeddings"))


def test_cli_regions_writes_the_csv(tmp_path, capsys):
    from sentspace.app.cli import main

    path = tmp_path / "out.csv"
    assert (
        main(
            [
                "regions",
                "--encoder",
                "tfidf",
                "--on",
                "embeddings",
                "--min-cluster-size",
                "3",
                "--csv",
                str(path),
            ]
        )
        == 0
    )
    assert "regions per level" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8").count("\n") == 860
