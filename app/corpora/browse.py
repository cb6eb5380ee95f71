"""What the corpus browser shows, computed without Qt: each sentence's groups and pair
count, sort orders, the filter's search text and matches, and the pairs of a sentence
with their labels in words (:meth:`PairTable.label_text`). ``app/ui/views/corpus_browser.py``
only renders these.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from sentspace.app.corpora.model import Corpus
from sentspace.app.corpora.stats import CorpusStats, corpus_stats

_DIGITS = re.compile(r"(\d+)")


def _natural_key(text: str) -> tuple:
    """Sort key that puts "L2" before "L10": digit runs compare as numbers."""
    return tuple(int(part) if part.isdigit() else part.casefold() for part in _DIGITS.split(text))


def _str_order(values) -> np.ndarray:
    return np.asarray(sorted(range(len(values)), key=values.__getitem__), dtype=np.int64)


def sentence_haystack(corpus: Corpus, group_labels: list[str]) -> list[str]:
    """What the filter searches for each sentence: id, text and group names."""
    return [f"{i}\t{t}\t{g}" for i, t, g in zip(corpus.ids, corpus.texts, group_labels)]


def match_sentences(haystack: list[str], pattern: re.Pattern) -> np.ndarray:
    """Whether ``pattern`` occurs in each sentence's haystack; bool, shape (n,)."""
    return np.fromiter(
        (pattern.search(s) is not None for s in haystack), dtype=bool, count=len(haystack)
    )


@dataclass(frozen=True, eq=False)
class SentenceColumns:
    """What the table shows of every sentence, besides its id and text.

    Attributes
    ----------
    group_start, group_stop : ndarray of shape (n_sentences,)
        Each sentence's memberships are ``group_of_membership[start:stop]``.
    group_of_membership : ndarray of shape (n_memberships,)
        Group indices, grouped by sentence (membership order within a sentence).
    first_group : ndarray of shape (n_sentences,)
        The first group of each sentence, -1 for none (the group column's sort key).
    pair_count : ndarray of shape (n_sentences,) or None when the corpus has no pairs.
    """

    group_start: np.ndarray
    group_stop: np.ndarray
    group_of_membership: np.ndarray
    first_group: np.ndarray
    pair_count: np.ndarray | None

    @classmethod
    def of(cls, corpus: Corpus) -> SentenceColumns:
        """Vectorised over the memberships and pairs: milliseconds at 100,000 sentences."""
        n = len(corpus)
        groups, pairs = corpus.groups, corpus.pairs
        if groups is not None:
            by_sentence = np.argsort(groups.sentence_index, kind="stable")
            sentence = groups.sentence_index[by_sentence]
            start = np.searchsorted(sentence, np.arange(n), side="left")
            stop = np.searchsorted(sentence, np.arange(n), side="right")
            members, first = groups.group_index[by_sentence], groups.first_group(n)
        else:
            start = stop = np.zeros(n, dtype=np.int64)
            members, first = np.zeros(0, dtype=np.int64), np.full(n, -1, dtype=np.int64)
        count = None
        if pairs is not None:
            # A pair of a sentence with itself counts once.
            count = (
                np.bincount(pairs.first, minlength=n)
                + np.bincount(pairs.second, minlength=n)
                - np.bincount(pairs.first[pairs.first == pairs.second], minlength=n)
            )
        return cls(start, stop, members, first, count)

    def groups_of(self, sentence: int) -> np.ndarray:
        return self.group_of_membership[self.group_start[sentence] : self.group_stop[sentence]]

    def group_label(self, corpus: Corpus, sentence: int) -> str:
        """The names of the sentence's groups, comma-separated; "" for none."""
        if corpus.groups is None:
            return ""
        names = corpus.groups.names
        return ", ".join(names[g] for g in self.groups_of(sentence))


def sentence_order(
    corpus: Corpus, columns: SentenceColumns, key: str, descending: bool
) -> np.ndarray:
    """Permutation of the sentence indices sorted by column ``key``; shape (n,).

    ``key`` is "index", "id" (digit runs as numbers), "text" (case-insensitive), "group"
    (dataset order of the first group; ungrouped last) or "pairs". Ties keep corpus order.
    """
    n = len(corpus)
    index = np.arange(n)
    if key == "index":
        order = index
    elif key == "id":
        order = _str_order([_natural_key(i) for i in corpus.ids])
    elif key == "text":
        order = _str_order([t.casefold() for t in corpus.texts])
    elif key == "group":
        group = np.where(columns.first_group < 0, np.iinfo(np.int64).max, columns.first_group)
        order = np.lexsort((index, group))
    elif key == "pairs":
        assert columns.pair_count is not None, "sorted by pairs only when there are some"
        order = np.lexsort((index, columns.pair_count))
    else:
        raise ValueError(f"unknown sort key {key!r}")
    return order[::-1].copy() if descending else order


def browser_index(
    corpus: Corpus, columns: SentenceColumns, stats: CorpusStats | None
) -> tuple[list[str], CorpusStats]:
    """The filter's haystack and the statistics (``stats`` when already computed)."""
    labels = [columns.group_label(corpus, i) for i in range(len(corpus))]
    return sentence_haystack(corpus, labels), stats if stats is not None else corpus_stats(corpus)


@dataclass(frozen=True)
class PairRow:
    """One pair of a sentence as the browser lists it."""

    pair: int
    pair_id: str  # the dataset's id of the pair, "" when it gives none
    label: str  # in words: SICK's NEUTRAL, "paraphrase", "unlabelled"
    score: str  # "" when unscored
    split: str
    partner: int  # the other sentence (corpus index)


def pairs_of(corpus: Corpus, sentence: int) -> list[PairRow]:
    """The pairs containing ``sentence``, in pair-table order; [] without pairs."""
    pairs = corpus.pairs
    if pairs is None:
        return []
    rows = []
    for pair in np.flatnonzero((pairs.first == sentence) | (pairs.second == sentence)).tolist():
        partner = int(pairs.second[pair] if pairs.first[pair] == sentence else pairs.first[pair])
        score = float(pairs.score[pair])
        rows.append(
            PairRow(
                pair,
                pairs.ids[pair] if pairs.ids else "",
                pairs.label_text(int(pairs.label[pair])),
                "" if math.isnan(score) else f"{score:g}",
                pairs.split[pair],
                partner,
            )
        )
    return rows


def stats_rows(stats: CorpusStats) -> list[tuple[str, str]]:
    """The statistics table: the headline rows, then pairs per split and subset with
    their labels in words, when there are several."""
    rows = list(stats.rows())
    for title, groups in (("split", stats.pair_splits), ("subset", stats.pair_subsets)):
        if len(groups) > 1:
            for name, n, labels in groups:
                detail = ", ".join(f"{label} {count:,}" for label, count in labels.items())
                rows.append((f"pairs in {title} {name}", f"{n:,} ({detail})"))
    return rows
