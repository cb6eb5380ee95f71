"""How much annotators agree, over the items two or more of them decided.

A *decision* is what one author's edits in effect say about an item, replayed on the
original corpus with only that author's edits:

- ``group`` (item ``sentence:ID``): the groups of a sentence the author moved, split off
  or merged, or marked reviewed (kept where it was);
- ``label`` / ``score`` (item ``pair:N``): a pair's label / score the author set, or
  kept by marking the pair reviewed.

Group and label decisions are compared with Cohen's kappa (scikit-learn) for two
authors and Fleiss' kappa (statsmodels) for more, over the items every author decided;
scores with Krippendorff's alpha at the interval level (the ``krippendorff`` package),
which takes the items any two decided. None of them is computed here.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.annotations.edits import (
    EditPair,
    MarkReviewed,
    MergeGroups,
    MoveSentence,
    SplitGroup,
    replay_edits,
)
from sentspace.app.annotations.history import History
from sentspace.app.annotations.journal import Record
from sentspace.app.corpora.model import Corpus

KINDS = ("group", "label", "score")


@dataclass(frozen=True)
class KindAgreement:
    """Agreement on one kind of decision.

    ``decisions``: item -> author -> decision, for the items two or more authors
    decided; ``statistic`` and ``value`` (NaN when undefined: one category only, no
    item every author decided); ``n_items``: the items the value is over.
    """

    kind: str
    authors: tuple[str, ...]
    decisions: dict[str, dict[str, Any]]
    statistic: str
    value: float
    n_items: int

    def disagreements(self) -> list[tuple[str, dict[str, Any]]]:
        """The items whose authors decided differently, with each one's decision."""
        return [(item, by) for item, by in self.decisions.items() if len(set(by.values())) > 1]

    def pairwise(self, first: str, second: str) -> tuple[str, float, int]:
        """The statistic, its value and the items it is over for ``first`` and
        ``second`` alone, over the items both decided: Cohen's kappa (groups, labels) or
        Krippendorff's alpha (scores). With three authors or more, the kind's own value
        is over the items *every* author decided, which a third person who decided a
        few items (a lead settling disagreements by moving sentences) cuts down to those
        few; the pair's value keeps the double review's."""
        both = {
            item: {first: by[first], second: by[second]}
            for item, by in self.decisions.items()
            if first in by and second in by
        }
        return _statistic(self.kind, (first, second), both)

    def confusion(self, first: str, second: str) -> tuple[list[Any], np.ndarray]:
        """The categories and the count matrix (rows: ``first``'s decision, columns:
        ``second``'s) over the items both decided."""
        both = [
            (by[first], by[second])
            for by in self.decisions.values()
            if first in by and second in by
        ]
        categories = sorted({value for pair in both for value in pair}, key=_natural)
        index = {category: i for i, category in enumerate(categories)}
        matrix = np.zeros((len(categories), len(categories)), dtype=np.int64)
        for a, b in both:
            matrix[index[a], index[b]] += 1
        return categories, matrix


@dataclass(frozen=True)
class Agreement:
    authors: tuple[str, ...]
    kinds: tuple[KindAgreement, ...]


def decisions(original: Corpus, records: Sequence[Record]) -> dict[str, dict[str, dict[str, Any]]]:
    """kind -> item -> author -> decision, for every item any author decided."""
    history = History(original)
    history.feed(records)
    by_kind: dict[str, dict[str, dict[str, Any]]] = {kind: {} for kind in KINDS}
    # What each author decided, also where a resolution overruled them since.
    for author in sorted({edit.author for edit in history.decided}):
        edits = [edit for edit in history.decided if edit.author == author]
        corrected, conflicts = replay_edits(original, edits)
        # An edit that did not apply (a label this corpus does not have) decided nothing.
        skipped = {conflict.record.id for conflict in conflicts if not conflict.applied}
        edits = [edit for edit in edits if edit.id not in skipped]
        for kind, item, value in _decided(original, corrected, edits):
            by_kind[kind].setdefault(item, {})[author] = value
    return by_kind


def _decided(original: Corpus, corrected: Corpus, edits: list) -> list[tuple[str, str, Any]]:
    reviewed = {edit.item for edit in edits if isinstance(edit, MarkReviewed)}
    found: list[tuple[str, str, Any]] = []
    if corrected.groups is not None:
        sentences = {
            key.removeprefix("sentence:") for key in reviewed if key.startswith("sentence:")
        }
        for edit in edits:
            if isinstance(edit, MoveSentence):
                sentences.add(edit.sentence)
            elif isinstance(edit, SplitGroup):
                sentences.update(edit.members)
        if any(isinstance(edit, MergeGroups) for edit in edits):
            before, after = _groups_of(original), _groups_of(corrected)
            sentences.update(original.ids[s] for s in after if after[s] != before.get(s))
        groups_of = _groups_of(corrected)
        index = {id_: i for i, id_ in enumerate(original.ids)}
        found += [
            ("group", f"sentence:{id_}", "|".join(groups_of.get(index[id_], ())) or "(none)")
            for id_ in sorted(sentences)
            if id_ in index
        ]
    pairs = corrected.pairs
    if pairs is not None:
        kept = {
            int(key.removeprefix("pair:"))
            for key in reviewed
            if key.startswith("pair:") and key.removeprefix("pair:").isdigit()
        }
        labelled = kept | {e.pair for e in edits if isinstance(e, EditPair) and e.label is not None}
        scored = kept | {e.pair for e in edits if isinstance(e, EditPair) and e.score is not None}
        found += [
            ("label", f"pair:{p}", pairs.label_text(int(pairs.label[p])))
            for p in sorted(labelled)
            if 0 <= p < len(pairs) and pairs.label[p] >= 0
        ]
        found += [
            ("score", f"pair:{p}", float(pairs.score[p]))
            for p in sorted(scored)
            if 0 <= p < len(pairs) and math.isfinite(pairs.score[p])
        ]
    return found


def _groups_of(corpus: Corpus) -> dict[int, tuple[str, ...]]:
    groups = corpus.checked_groups
    found: dict[int, list[str]] = {}
    for s, g in zip(groups.sentence_index.tolist(), groups.group_index.tolist()):
        found.setdefault(s, []).append(groups.names[g])
    return {s: tuple(sorted(names)) for s, names in found.items()}


def agreement(original: Corpus, records: Sequence[Record]) -> Agreement:
    """The agreement of the authors of ``records`` (one journal, or several merged with
    :func:`~sentspace.app.annotations.journal.merge_journals`) on ``original``'s annotations; a
    kind appears when two or more authors decided one of its items."""
    kinds = []
    for kind, items in decisions(original, records).items():
        shared = {item: by for item, by in items.items() if len(by) >= 2}
        if not shared:
            continue
        authors = tuple(sorted({author for by in shared.values() for author in by}))
        kinds.append(KindAgreement(kind, authors, shared, *_statistic(kind, authors, shared)))
    return Agreement(tuple(sorted({a for k in kinds for a in k.authors})), tuple(kinds))


def _natural(value: Any) -> list[Any]:
    """Sort key reading the digits of a name as a number: group 2 before group 10."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", str(value))]


def _statistic(
    kind: str, authors: tuple[str, ...], shared: dict[str, dict[str, Any]]
) -> tuple[str, float, int]:
    # Lazy: the window imports this module, and these libraries take a second to load.
    import krippendorff  # noqa: PLC0415
    from sklearn.metrics import cohen_kappa_score  # noqa: PLC0415
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa  # noqa: PLC0415

    with warnings.catch_warnings():
        # One category only: the libraries warn and give NaN, which is the answer.
        warnings.simplefilter("ignore")
        if kind == "score":
            data = np.array(
                [[by.get(author, np.nan) for by in shared.values()] for author in authors],
                dtype=float,
            )
            try:
                value = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
            except ValueError:  # every score the same
                value = math.nan
            return "Krippendorff's alpha (interval)", float(value), len(shared)
        everyone = [by for by in shared.values() if len(by) == len(authors)]
        if len(authors) == 2 and not everyone:
            return "Cohen's kappa", math.nan, 0
        if len(authors) == 2:
            first, second = authors
            value = cohen_kappa_score(
                [by[first] for by in everyone], [by[second] for by in everyone]
            )
            return "Cohen's kappa", float(value), len(everyone)
        if not everyone:
            return "Fleiss' kappa", math.nan, 0
        categories = {
            value: i
            for i, value in enumerate(
                sorted({value for by in everyone for value in by.values()}, key=str)
            )
        }
        table, _ = aggregate_raters(
            np.array([[categories[by[a]] for a in authors] for by in everyone])
        )
        return "Fleiss' kappa", float(fleiss_kappa(table)), len(everyone)


def item_sentences(corpus: Corpus, item: str) -> list[int]:
    """The sentences (indices into ``corpus``) an item key names: "sentence:ID",
    "pair:N" (its two sentences) or "group:NAME" (its members); none for another key."""
    kind, _, name = item.partition(":")
    if kind == "sentence" and name in corpus.ids:
        return [corpus.ids.index(name)]
    if (
        kind == "pair"
        and corpus.pairs is not None
        and name.isdigit()
        and int(name) < len(corpus.pairs)
    ):
        return [int(corpus.pairs.first[int(name)]), int(corpus.pairs.second[int(name)])]
    if kind == "group" and corpus.groups is not None and name in corpus.groups.names:
        return corpus.groups.members(corpus.groups.names.index(name)).tolist()
    return []


def author_pairs(kind: KindAgreement) -> list[tuple[str, str]]:
    """The pairs of authors a confusion table is shown for."""
    return list(itertools.combinations(kind.authors, 2))
