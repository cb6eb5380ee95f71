"""Which items of an evaluation result pass the corpus's filter, so its chart can draw
faint those that do not, as the projection fades the sentences.

An item is what a result records one outcome for: a pair (``pair_index`` into
``corpus.pairs``: its two sentences), a query (``query`` and ``target``: the query and
its partner or translation), a sentence (``sentence_index``) or one of Costra's analogy
questions (a seed group and a transformation type: the seed and the group's sentences
of that type). An item passes when all its sentences pass. The mapping is made once per
result and corpus version (:func:`items_of`); a filter change only reads the pass mask
at the items' sentences, never recomputes an evaluation. What a chart draws from the
passing items (counts per bin, the passing pairs' precision-recall curve) is computed
here too, from the outcomes the result keeps.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.analysis.chart_data import data_bins
from sentspace.app.corpora.model import Corpus

#: The rule, in words, for each kind of item (a chart's tooltip).
RULES = {
    "pairs": "A pair passes the filter when both its sentences pass.",
    "test pairs": "A pair passes the filter when both its sentences pass.",
    "queries": "A query passes the filter when it and its partner both pass.",
    "sentences": "A sentence passes when it passes the filter.",
    "analogy questions": (
        "An analogy question passes the filter when its seed and its group's "
        "sentences of its type all pass."
    ),
}


@dataclass(frozen=True, eq=False)
class Items:
    """A result's items (``noun``) and the sentences each reads: ``sentences`` holds a
    row per item in the result's order, corpus indices, -1 where an item has fewer
    sentences than the widest."""

    noun: str
    sentences: np.ndarray

    def __len__(self) -> int:
        return len(self.sentences)

    @property
    def rule(self) -> str:
        return RULES[self.noun]

    def passing(self, mask: np.ndarray) -> np.ndarray:
        """Whether each item passes: all its sentences pass ``mask`` (one bool per
        sentence of the corpus)."""
        # The extra True is what a padding -1 reads.
        return np.append(np.asarray(mask, dtype=bool), True)[self.sentences].all(axis=1)

    def caption(self, passing: np.ndarray) -> str:
        """ "312 of 1,725 pairs pass the filter"."""
        return f"{int(np.count_nonzero(passing)):,} of {len(self):,} {self.noun} pass the filter"


_made: weakref.WeakKeyDictionary[Any, tuple[str, Items | None]] = weakref.WeakKeyDictionary()


def items_of(result: Any, corpus: Corpus) -> Items | None:
    """The items of ``result`` in ``corpus`` (any version of the corpus it was computed
    on: edits move groups and relabel pairs, never sentences or pair rows); None for a
    result that records no items, or whose items are not this corpus's (the ids it keeps
    differ). Kept per result until the corpus's version changes."""
    kept = _made.get(result)
    if kept is None or kept[0] != corpus.fingerprint:
        kept = _made[result] = (corpus.fingerprint, _items(result, corpus))
    return kept[1]


def passing_items(result: Any, corpus: Corpus, mask: np.ndarray | None) -> np.ndarray | None:
    """Whether each item of ``result`` passes ``mask`` (the filter's pass mask of
    ``corpus``); None when nothing is filtered or the result's items are not known."""
    if mask is None or len(mask) != len(corpus):
        return None
    items = items_of(result, corpus)
    return None if items is None else items.passing(mask)


def _items(result: Any, corpus: Corpus) -> Items | None:
    ids = np.asarray(corpus.ids, dtype=str)
    if hasattr(result, "query") and hasattr(result, "target"):
        rows = np.stack([result.query, result.target], axis=1).astype(np.int64)
        named = [(result.query, result.query_id), (result.target, result.target_id)]
        return Items("queries", rows) if _same_sentences(ids, named) else None
    if hasattr(result, "sentence_index"):
        rows = np.asarray(result.sentence_index, dtype=np.int64)[:, None]
        named = [(result.sentence_index, result.sentence_id)]
        return Items("sentences", rows) if _same_sentences(ids, named) else None
    for field, names, noun in (
        ("pair_index", "pair_id", "pairs"),
        ("test_pair_index", "test_pair_id", "test pairs"),
    ):
        if hasattr(result, field):
            return _pair_items(corpus, getattr(result, field), getattr(result, names), noun)
    if hasattr(result, "cell_group") and hasattr(result, "cell_type"):
        return _analogy_items(result, corpus)
    return None


def _same_sentences(ids: np.ndarray, named: list[tuple[np.ndarray, np.ndarray]]) -> bool:
    for rows, recorded in named:
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) and (rows.min() < 0 or rows.max() >= len(ids)):
            return False
        if not np.array_equal(ids[rows], np.asarray(recorded, dtype=str)):
            return False
    return True


def _pair_items(corpus: Corpus, pair_index: np.ndarray, recorded: np.ndarray, noun: str):
    pairs = corpus.pairs
    index = np.asarray(pair_index, dtype=np.int64)
    if pairs is None or (len(index) and (index.min() < 0 or index.max() >= len(pairs))):
        return None
    if not np.array_equal(pairs.names(corpus.ids, index), np.asarray(recorded, dtype=str)):
        return None
    return Items(noun, np.stack([pairs.first[index], pairs.second[index]], axis=1))


def _analogy_items(result: Any, corpus: Corpus) -> Items | None:
    """Costra's questions: each (seed group, type) cell reads the group's seed and the
    group's sentences of that type, as ``costra_offsets`` asks it."""
    groups = corpus.groups
    types = corpus.metadata.get("type")
    if groups is None or types is None or tuple(groups.names) != tuple(result.group_names):
        return None
    group = groups.labels(len(corpus))
    row_type = np.asarray(types, dtype=str)
    is_seed = row_type == "seed"
    seed_of_group = np.full(groups.n_groups, -1, dtype=np.int64)
    seed_of_group[group[is_seed]] = np.flatnonzero(is_seed)
    names = np.asarray(result.type_names, dtype=str)
    rows = np.flatnonzero(~is_seed & np.isin(row_type, names) & (group >= 0))
    cell_of_row = np.searchsorted(names, row_type[rows]) * groups.n_groups + group[rows]
    cells = np.asarray(result.cell_type) * groups.n_groups + np.asarray(result.cell_group)
    # Each question's sentences: its seed, then its cell's rows in a padded row.
    order = np.argsort(cell_of_row, kind="stable")
    sorted_cells, sorted_rows = cell_of_row[order], rows[order]
    start = np.searchsorted(sorted_cells, cells, side="left")
    count = np.searchsorted(sorted_cells, cells, side="right") - start
    offsets = np.arange(int(count.max(initial=0)))
    positions = np.minimum(start[:, None] + offsets, max(len(sorted_rows) - 1, 0))
    members = np.where(offsets < count[:, None], sorted_rows[positions], -1)
    return Items(
        "analogy questions",
        np.column_stack([seed_of_group[np.asarray(result.cell_group)], members]),
    )


# --- what the charts draw of the passing items ---------------------------------------


def histogram_counts(result: Any, name: str, passing: np.ndarray) -> np.ndarray:
    """A histograms result's counts of histogram ``name`` ("cosine" or "overlap") over
    the passing pairs only, in the bins its chart draws (``chart_data.data_bins``):
    shape (2, bins), the positive (high) side first."""

    edges, _ = data_bins(result, name)
    values = getattr(result, name)
    return np.stack(
        [np.histogram(values[passing & (result.side == s)], bins=edges)[0] for s in (1, 0)]
    )


def precision_recall(result: Any, passing: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(recall, precision) of a detection result's passing pairs over every cosine
    threshold, as its whole curve was made; None when they hold no paraphrase or no
    other pair, which make no curve."""
    label, cosine = result.label[passing], result.cosine[passing]
    if not (label == 1).any() or (label == 1).all():
        return None
    from sklearn.metrics import precision_recall_curve  # noqa: PLC0415 (lazy: slow)

    precision, recall, _ = precision_recall_curve(label, cosine)
    return recall, precision


def accuracy_among(result: Any, passing: np.ndarray) -> np.ndarray:
    """A learning curve's test accuracy at each training size over the passing test
    pairs only (NaN where none passes)."""
    if not passing.any():
        return np.full(len(result.n_train), np.nan)
    return result.correct[:, passing].mean(axis=1)


def group_counts_among(result: Any, passing: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A classification's (evaluated, misclassified) members of each group among its
    passing sentences, as ``ClassificationResult.group_counts`` counts all."""
    wrong = result.predicted_group != result.true_group
    return (
        np.bincount(result.true_group[passing], minlength=result.n_groups),
        np.bincount(result.true_group[passing & wrong], minlength=result.n_groups),
    )


def passing_shown(
    result: Any, corpus: Corpus | None, mask: np.ndarray | None
) -> tuple[np.ndarray | None, str, str]:
    """What a chart of ``result`` shows of the filter ``mask`` of ``corpus``: (whether
    each item passes, "312 of 1,725 pairs pass the filter", the rule in words); (None,
    "", "") when nothing is filtered or the items are not known."""
    if corpus is None or mask is None or len(mask) != len(corpus):
        return None, "", ""
    items = items_of(result, corpus)
    if items is None:
        return None, "", ""
    passing = items.passing(mask)
    return passing, items.caption(passing), items.rule
