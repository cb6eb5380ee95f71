"""Colours of a projection's points by any column of :mod:`sentspace.app.analysis.columns` (the
Projection panel's *Colour by*: the columns the web map offers), and the legend that
explains them. Categories come most frequent first (ties in natural order: "2" before
"10"), each in a colour of its own where the palette has one for each, else the top ten,
the rest in one colour, said as "(other N)" (``columns.named_count``); numbers are drawn
on viridis with a colour bar, NaN grey."""

from __future__ import annotations

import heapq
import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sentspace.app.analysis.columns import (
    Categories,
    Column,
    Numbers,
    Texts,
    _natural,
    _natural_keys,
    named_count,
)
from sentspace.app.analysis.evaluations.classification import ClassificationResult
from sentspace.app.analysis.explore import Exploration
from sentspace.app.analysis.regions import NOISE, Regions
from sentspace.app.base.palette import (
    CATEGORICAL,
    OTHER,
    UNGROUPED,
    ColourScale,
    PointColours,
    number_colours,
)
from sentspace.app.corpora.model import Corpus
from sentspace.app.state.session import version_note

#: Longest category name a legend shows whole.
NAME_CHARS = 40
METHOD_TITLES = {"pca": "PCA", "umap": "UMAP", "tsne": "t-SNE"}

Colourable = Categories | Numbers


@dataclass(frozen=True, eq=False)
class Colouring:
    """Every point's colour by the column ``key``, the legend's words (HTML) and, for
    numbers, the scale the view's colour bar shows."""

    key: str
    colours: PointColours
    legend: str
    scale: ColourScale | None = None


def column_key(column: Column) -> str:
    """The name a colouring is kept under in the corpus's view (and the workspace):
    its title up to any parenthesis, in lower case, words joined by "_"."""
    return _slug(column.title.split(" (")[0])


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_") or "column"


#: Colourings as workspaces saved before any column could colour named them.
EARLIER_KEYS = {"cluster": "region", "misclassified": "misclassified_or_not"}


def saved_key(key: str | None) -> str | None:
    """The key of a colouring kept in a corpus's view, as it is named now
    ("metadata:type" and "cluster" of older workspaces are "type" and "region"; their
    "group" is the default of a grouped corpus)."""
    if key is not None and key.startswith("metadata:"):
        return _slug(key.removeprefix("metadata:"))
    return EARLIER_KEYS.get(key, key) if key is not None else None


def colourings(columns: Sequence[Column]) -> dict[str, Colourable]:
    """The columns that can colour points, by key, in order (free text cannot; of two
    with one key, such as Costra's seed group and its metadata column, the first)."""
    offered: dict[str, Colourable] = {}
    for column in columns:
        if not isinstance(column, Texts):
            offered.setdefault(column_key(column), column)
    return offered


def default_colouring(corpus: Corpus, offered: Mapping[str, Colourable]) -> str:
    """What a corpus is coloured by until its user chooses: its groups, else what its
    pairs say (label, gold score, split), else a label, score or split of its own, else
    sentence length. Groups come first however many there are (the 29,000 caption
    groups of Multi30K too, ten of them named): a user opening a grouped corpus looks
    for its groups first, and found the map coloured by length."""
    preferred = ["pair_label", "gold_score", "split", "label", "score", "words"]
    if corpus.groups is not None:  # the group column's title is the grouping's kind
        preferred.insert(0, _slug(corpus.groups.kind or "group"))
    return next((key for key in preferred if key in offered), next(iter(offered), "words"))


def top_categories(
    names: Sequence[str], codes: np.ndarray, top: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The codes of the ``top`` most frequent categories (ties in natural order of their
    names; by default as many as a legend names, :func:`named_count`) and every
    category's count."""
    codes = np.asarray(codes)
    top = named_count(len(names)) if top is None else top
    counts = np.bincount(codes[codes >= 0], minlength=len(names))
    # Only categories that can reach the top need their names compared.
    threshold = np.partition(counts, -top)[-top] if len(counts) > top else 0
    candidates = np.flatnonzero((counts >= threshold) & (counts > 0))
    texts = [str(names[k]) for k in candidates.tolist()]
    keys: np.ndarray | None
    if all(text.isdigit() for text in texts):  # numbered groups: 29,000 in 0.01 s
        keys = np.array([int(text) for text in texts], dtype=np.float64)
    else:  # as sortable strings in one regex pass: 29,000 file names in 0.02 s
        keys = _natural_keys(texts)
    if keys is not None:
        order = candidates[np.lexsort((keys, -counts[candidates]))].tolist()
    else:
        # sorted(...)[:top] holding ``top`` keys, not one per candidate at once (29,000
        # tuples alive set off dozens of garbage collections).
        order = heapq.nsmallest(
            top, candidates.tolist(), key=lambda k: (-counts[k], _natural(str(names[k])))
        )
    return np.array(order[:top], dtype=np.int64), counts


def category_colours(
    names: Sequence[str], codes: np.ndarray, colours: Sequence[str] = ()
) -> tuple[PointColours, str]:
    """A colour per point of categories ``codes`` (-1: none) and the legend's key: the
    categories named (:func:`named_count`) in ``colours`` (by code) or the categorical
    palette's first colours, the rest in ``OTHER``, none in grey."""
    codes = np.asarray(codes)
    top, counts = top_categories(names, codes)
    shown = [colours[k] if colours else CATEGORICAL[rank] for rank, k in enumerate(top)]
    slot = np.full(len(names) + 1, len(top), dtype=np.int32)  # last: code -1, none
    slot[top] = np.arange(len(top), dtype=np.int32)
    slot[-1] = len(top) + 1
    key = [
        _swatch(colour, f"{_short(str(names[k]))} ({counts[k]:,})") for colour, k in zip(shown, top)
    ]
    others = np.count_nonzero(counts) - len(top)
    if others:
        rest = int(counts.sum() - counts[top].sum())
        key.append(_swatch(OTHER, f"(other {others:,}: {rest:,} sentences)"))
    return PointColours(slot[codes], (*shown, OTHER, UNGROUPED)), "&nbsp; ".join(key)


def _swatch(colour: str, text: str) -> str:
    return f"<span style='color:{colour}'>&#9632;</span>&nbsp;{html.escape(text)}"


def _short(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:.3g}"


def colour_by(column: Colourable, key: str | None = None) -> Colouring:
    """Colours of the points by ``column``, and the legend's words for it."""
    key = key or column_key(column)
    title = html.escape(column.title)
    if isinstance(column, Numbers):
        colours, scale = number_colours(column.values, column.title)
        legend = f"Colour: {title}, {_number(scale.low)} to {_number(scale.high)} on the bar"
        if scale.extent is not None:
            legend += (
                f" (values from {_number(scale.extent[0])} to "
                f"{_number(scale.extent[1])}: beyond the bar in its end colours)"
            )
        if scale.missing:
            legend += f"; {_swatch(UNGROUPED, f'no value ({scale.missing:,})')}"
        return Colouring(key, colours, legend + ".", scale)
    colours, entries = category_colours(column.names, column.codes, column.colours)
    none = int(np.count_nonzero(np.asarray(column.codes) < 0))
    if none:
        entries += f"&nbsp; {_swatch(UNGROUPED, f'{column.none} ({none:,})')}"
    return Colouring(key, colours, f"Colour: {title}: {entries}")


def cluster_colours(regions: Regions) -> PointColours:
    """A colour per sentence by its region, as *Colour by* Region draws it."""
    names = [regions.label(c) for c in range(regions.n_clusters)]
    return category_colours(names, np.where(regions.labels == NOISE, -1, regions.labels))[0]


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
        return (
            f"Red ring: {whose} as "
            + (f"edited ({edits} edit{'s' if edits != 1 else ''})" if edits else "loaded")
            + "."
        )
    note = version_note(result, corpus)
    version = (
        f"the corpus {note}"
        if note.startswith("before")
        else "another version of the corpus (edits since taken back)"
    )
    return f"Grey ring: {whose}, {version}; stale, run again to update."


def layout_caption(exploration: Exploration) -> str:
    """What the layout is: method, encoder, sample, variance kept, faithfulness."""
    projection = exploration.projection
    ratio = projection.explained_variance_ratio
    legend = f"{METHOD_TITLES[projection.method]} of {exploration.encoder.name} embeddings"
    if projection.fitted_on is not None:
        legend += f" ({projection.describe()}, the rest placed by their nearest)"
    if ratio:
        legend += f" (PC 1 {ratio[0]:.1%}, PC 2 {ratio[1]:.1%} of variance)"
    faithful = exploration.faithfulness
    if faithful is not None:
        legend += (
            f"; faithfulness {faithful.share(faithful.mean_overlap)} (mean share of "
            f"{faithful.k} nearest neighbours kept in 2D, {faithful.describe()})"
        )
    return legend


def point_colours(
    exploration: Exploration,
    colouring: Colouring,
    classification: ClassificationResult | None = None,
    corpus: Corpus | None = None,
) -> Colouring:
    """``colouring`` (of :func:`colour_by`) with the whole legend: the layout, the
    colours, and the rings of ``classification`` (``CorpusState.classification``) on
    ``corpus`` as edited."""
    corpus = corpus if corpus is not None else exploration.corpus
    legend = f"{layout_caption(exploration)}. {colouring.legend}"
    if classification is not None:
        legend += f" {ring_caption(classification, corpus)}"
    return Colouring(colouring.key, colouring.colours, legend, colouring.scale)
