"""Regions on real maps: the largest region's share and the time to find regions.

For the 145,000 Multi30K captions and the bundled grouped MSRP, each encoded by bag of
words (the window's default) and laid out by PCA (the default) and by UMAP (its dense
clumps are where a density clustering merges most of the map into one region), this
times ``find_regions`` (nested bisecting k-means
at three levels, class-based TF-IDF labels at each) against the method it replaced,
run in the same process: HDBSCAN (min_cluster_size 0.5% of the clustered points) on a
seeded sample of at most 20,000 layout points, the rest joining the nearest cluster
centre, one level of labels. It prints each method's largest region (share of all
sentences; at each level, coarse to fine, for the new one), its number of regions and
its time, the ratios new / old (coarse level), and how many regions of each level
would share a label by their first keywords and share one as labelled (none).
Both methods run once on a small layout first, so imports are not timed. UMAP of the
captions takes minutes. Run: ``python bench/bench_regions.py [--corpora
multi30k-captions msrp-grouped] [--layouts pca umap]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sentspace.app.analysis.projection import project  # noqa: E402
from sentspace.app.analysis.regions import (  # noqa: E402
    LABEL_WORDS,
    NOISE,
    class_tfidf,
    find_regions,
    word_counts,
)
from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.models import make_encoder  # noqa: E402

OLD_MAX_POINTS = 20_000


def hdbscan_regions(
    texts, layout: np.ndarray, language: str, seed: int = 0
) -> tuple[np.ndarray, int]:
    """The replaced method: each sentence's region (NOISE for none) and their number."""
    from sklearn.cluster import HDBSCAN

    n = len(layout)
    sample = (
        np.sort(np.random.default_rng(seed).choice(n, OLD_MAX_POINTS, replace=False))
        if n > OLD_MAX_POINTS
        else np.arange(n)
    )
    size = max(5, round(0.005 * len(sample)))
    sample_labels = HDBSCAN(min_cluster_size=size, copy=True).fit(layout[sample]).labels_
    n_clusters = int(sample_labels.max(initial=NOISE)) + 1
    labels = np.full(n, NOISE, dtype=np.int64)
    labels[sample] = sample_labels
    if len(sample) < n and n_clusters:
        inside = sample_labels != NOISE
        counts = np.bincount(sample_labels[inside], minlength=n_clusters)
        centres = (
            np.stack(
                [
                    np.bincount(
                        sample_labels[inside],
                        weights=layout[sample[inside], d],
                        minlength=n_clusters,
                    )
                    for d in range(2)
                ],
                axis=1,
            )
            / counts[:, None]
        )
        rest = np.setdiff1d(np.arange(n), sample, assume_unique=True)
        distances = ((layout[rest, None, :] - centres[None]) ** 2).sum(axis=2)
        labels[rest] = np.argmin(distances, axis=1)
    counts_matrix, vocabulary = word_counts(texts, language)
    class_tfidf(counts_matrix, vocabulary, labels, n_clusters)
    return labels, n_clusters


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpora", nargs="+", default=["multi30k-captions", "msrp-grouped"])
    parser.add_argument(
        "--layouts", nargs="+", default=["pca", "umap"], choices=("pca", "umap", "tsne")
    )
    args = parser.parse_args()
    warm = load_corpus("msrp-grouped")
    warm_layout = np.random.default_rng(0).normal(size=(len(warm), 2))
    hdbscan_regions(warm.texts, warm_layout, warm.language)
    run_job(find_regions(warm, warm_layout))
    print(f"{'corpus':<28}{'layout':<8}{'method':<24}{'regions':>16}{'largest':>9}{'time (s)':>10}")
    for name in args.corpora:
        corpus = load_corpus(name)
        embeddings = make_encoder("bow").fit(corpus.texts).encode(corpus.texts)
        for method in args.layouts:
            layout = np.asarray(run_job(project(embeddings, method)).coordinates, dtype=np.float64)
            start = time.perf_counter()
            labels, n_old = hdbscan_regions(corpus.texts, layout, corpus.language)
            old_time = time.perf_counter() - start
            old_share = np.bincount(labels[labels != NOISE]).max() / len(corpus)
            start = time.perf_counter()
            regions = run_job(find_regions(corpus, layout))
            new_time = time.perf_counter() - start
            per_level = " / ".join(str(level.n_clusters) for level in regions.levels)
            shares = " / ".join(
                f"{level.sizes.max() / len(corpus):.1%}" for level in regions.levels
            )
            title = f"{name} ({len(corpus):,})"
            print(
                f"{title:<28}{method:<8}{'HDBSCAN (before)':<24}{n_old:>16}"
                f"{old_share:>9.1%}{old_time:>10.2f}"
            )
            print(
                f"{'':<36}{'bisecting k-means (now)':<24}{per_level:>16}"
                f"{regions.largest_share:>9.1%}{new_time:>10.2f}   largest per level: "
                f"{shares}"
            )
            print(
                f"{'':<36}{'ratio now / before':<24}{'':>16}"
                f"{regions.largest_share / old_share:>9.2f}{new_time / old_time:>10.2f}",
            )
            print(
                f"{'':<36}regions sharing a label per level, by their first keywords / "
                f"as labelled: {sharing(regions)}; coarse: "
                + "; ".join(regions.label(k) for k in range(regions.n_clusters)),
                flush=True,
            )


def sharing(regions) -> str:
    """Per level, regions whose first LABEL_WORDS keywords (in any order) another has,
    and regions whose label (distinct_labels) another has."""

    def shared(names) -> int:
        names = list(names)
        counts = Counter(names)
        return sum(counts[name] > 1 for name in names)

    return " / ".join(
        f"{shared(frozenset(words[:LABEL_WORDS]) for words in level.keywords)}"
        f"->{shared(frozenset(level.label(k).split(', ')) for k in range(level.n_clusters))}"
        for level in regions.levels
    )


if __name__ == "__main__":
    main()
