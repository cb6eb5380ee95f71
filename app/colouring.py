"""Colours of a projection's points, by the scheme chosen in the Projection panel, and
the legend that explains them."""

from __future__ import annotations

import html

import numpy as np

from sentspace.app.corpora.model import Corpus
from sentspace.app.evaluations.classification import ClassificationResult
from sentspace.app.explore import Exploration
from sentspace.app.palette import (
    MISCLASSIFIED,
    UNGROUPED,
    PointColours,
    category_colours,
    sequential_colours,
)
from sentspace.app.regions import Regions
from sentspace.app.session import version_note

#: Prefix of the colour schemes that colour by a metadata column.
METADATA = "metadata:"
COLOUR_TITLES = {
    "group": "Group",
    "misclassified": "Misclassified or not",
    "faithfulness": "Projection faithfulness",
    "cluster": "Region",
}
#: Schemes that colour by the corpus's groups.
NEEDS_GROUPS = ("group", "misclassified")
METHOD_TITLES = {"pca": "PCA", "umap": "UMAP", "tsne": "t-SNE"}


def cluster_colours(regions: Regions) -> PointColours:
    """A hex colour per sentence by its cluster (the categorical palette; noise grey)."""
    return category_colours(regions.labels)


def categorical_columns(corpus: Corpus, most: int = 30) -> list[str]:
    """Metadata columns worth colouring by: a few distinct values, repeated."""
    columns = []
    for column, values in corpus.metadata.items():
        distinct = len(set(map(str, values)))
        if 1 < distinct <= min(most, len(corpus) // 2):
            columns.append(column)
    return columns


def is_stale(result: ClassificationResult, corpus: Corpus) -> bool:
    """Whether ``result`` describes another version of ``corpus`` than it is now: its
    rings are drawn grey, not red."""
    return result.provenance.corpus_fingerprint != corpus.fingerprint


def ring_caption(result: ClassificationResult, corpus: Corpus) -> str:
    """What the rings round misclassified sentences are: whose classification, of
    which version of ``corpus`` (as it is now, or stale)."""
    provenance = result.provenance
    whose = f"misclassified by {provenance.encoder_name} on {provenance.corpus_name}"
    if not is_stale(result, corpus):
        edits = corpus.edits
        return (f"Red ring: {whose} as "
                + (f"edited ({edits} edit{'s' if edits != 1 else ''})" if edits
                   else "loaded") + ".")
    note = version_note(result, corpus)
    version = (f"the corpus {note}" if note.startswith("before")
               else "another version of the corpus (edits since taken back)")
    return f"Grey ring: {whose}, {version}; stale, run again to update."


def point_colours(exploration: Exploration, scheme: str, groups: np.ndarray,
                  regions: Regions | None = None,
                  classification: ClassificationResult | None = None,
                  corpus: Corpus | None = None) -> tuple[PointColours, str]:
    """One colour per sentence for ``scheme`` (a key of ``COLOUR_TITLES`` or
    ``METADATA + column``), and the legend; ``groups`` is each sentence's group (-1:
    none) in ``corpus`` as edited (default: the one run); ``regions`` those found on
    this layout, if any; ``classification`` the result its rings and "misclassified"
    colours show (``CorpusState.classification``; default: the run's own)."""
    projection = exploration.projection
    corpus = corpus if corpus is not None else exploration.corpus
    ratio = projection.explained_variance_ratio
    legend = f"{METHOD_TITLES[projection.method]} of {exploration.encoder.name} embeddings"
    if projection.fitted_on is not None:
        legend += f" ({projection.describe()}, the rest placed by their nearest)"
    if ratio:
        legend += f" (PC 1 {ratio[0]:.1%}, PC 2 {ratio[1]:.1%} of variance)"
    faithful = exploration.faithfulness
    if faithful is not None:
        legend += (f"; faithfulness {faithful.share(faithful.mean_overlap)} (mean share of "
                   f"{faithful.k} nearest neighbours kept in 2D, {faithful.describe()})")
    result = classification if classification is not None else exploration.classification
    if scheme.startswith(METADATA):
        column = scheme.removeprefix(METADATA)
        values, codes = np.unique(np.asarray(corpus.metadata[column], dtype=str),
                                  return_inverse=True)
        key = " ".join(f"<span style='color:{colour}'>&#9632;</span> {html.escape(value)}"
                       for value, colour in zip(values, category_colours(
                           np.arange(len(values)))))
        return category_colours(codes), f"{legend}. Colour: {html.escape(column)}: {key}"
    legend += f". Colour: {COLOUR_TITLES[scheme].lower()}"
    if scheme == "faithfulness" and faithful is not None:
        # Points outside the measured sample are NaN: grey, not the colour of 0.
        unmeasured = np.isnan(faithful.overlap)
        colours = sequential_colours(np.nan_to_num(faithful.overlap)).where(
            unmeasured, UNGROUPED)
        grey = "; grey: not measured" if unmeasured.any() else ""
        return colours, legend + f" (dark: neighbours lost, yellow: kept{grey})."
    if scheme == "cluster" and regions is not None:
        return (cluster_colours(regions),
                legend + f" ({regions.n_clusters} found by View > Find regions; grey: in none).")
    if scheme == "cluster":
        legend += " (View > Find regions first; meanwhile by group)"
    if scheme == "misclassified" and result is not None:
        colours = (PointColours.uniform(len(corpus), "#c8c8c8")
                   .where(result.sentence_index, "#4a90d9")
                   .where(result.misclassified, MISCLASSIFIED))
        return colours, legend + (f" (red: misclassified, blue: right, grey: not "
                                  f"evaluated; {ring_caption(result, corpus)[:-1]})")
    suffix = f". {ring_caption(result, corpus)}" if result is not None else "."
    return category_colours(groups), legend + suffix
