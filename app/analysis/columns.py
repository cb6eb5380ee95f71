"""The columns the views chart, filter and colour by: what each sentence of a corpus
is (its group and the group's size, region, misclassified or not, words, faithfulness,
what its pairs say of it, each metadata column) as categories, numbers or free text.

The web map (``app/exporters/web_map.py``) and the window's Filter panel and *Colour by* read the
same columns, so a column means the same thing in each."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sentspace.app.analysis.regions import NOISE, Regions
from sentspace.app.annotations.edits import Edit
from sentspace.app.annotations.session import item_keys
from sentspace.app.base.palette import CATEGORICAL, MISCLASSIFIED
from sentspace.app.corpora.model import Corpus

if TYPE_CHECKING:
    from sentspace.app.analysis.explore import Exploration

#: Categories a legend or chart names when a column has more than the categorical
#: palette tells apart: the most frequent; the rest are one "(other N)".
TOP = 10


def named_count(categories: int) -> int:
    """How many of a column's ``categories`` its legend, its chart and the web page's
    name, each in a colour of its own: all of them where the categorical palette has a
    distinct colour for each (Costra's 14 transformation types), else the :data:`TOP`
    most frequent."""
    return categories if categories <= len(CATEGORICAL) else TOP


@dataclass(frozen=True, eq=False)
class OfPairs:
    """What a pair column (split, subset, label, gold score) holds of each pair itself:
    ``column`` has a code or value per pair, whose sentences are ``first`` and
    ``second``. The filter charts and evaluates it per pair; the column it belongs to
    says, per sentence, what its pairs hold, for colours, the page and exports."""

    column: Categories | Numbers
    first: np.ndarray
    second: np.ndarray


@dataclass(frozen=True, eq=False)
class Categories:
    """One way to colour the points: ``codes`` (n,) index ``names`` (-1: ``none``)."""

    title: str
    names: tuple[str, ...]
    codes: np.ndarray
    colours: tuple[str, ...] = ()
    none: str = "none"
    #: A pair column's own values per pair (None: a column of sentences only).
    of_pairs: OfPairs | None = None
    #: The corpus's own groups: charted however many there are (see ``Chart.informative``).
    grouping: bool = False

    @classmethod
    def of_values(cls, title: str, values: Sequence[Any], none: str = "none") -> Categories:
        """A colouring by per-point values (strings, numbers); "" or None is ``none``.
        Categories come most frequent first (ties in natural order: "2" before "10"), so
        those named (:func:`named_count`) get the palette's first, most distinct colours."""
        return cls.of_encoded(title, *_encoded(values), none=none)

    @classmethod
    def of_encoded(
        cls, title: str, names: Sequence[str], codes: np.ndarray, none: str = "none"
    ) -> Categories:
        """:meth:`of_values` of values already encoded: ``codes`` index ``names``."""
        counts = np.bincount(codes[codes >= 0], minlength=len(names))
        order = _ranked(names, counts)
        rank = np.empty(len(names) + 1, dtype=np.int64)
        rank[order], rank[-1] = np.arange(len(names)), -1
        return cls(title, tuple(names[k] for k in order), rank[codes], none=none)

    def with_pairs(self, of_pairs: OfPairs) -> Categories:
        return dataclasses.replace(self, of_pairs=of_pairs)

    def palette(self) -> tuple[str, ...]:
        return self.colours or tuple(
            CATEGORICAL[k % len(CATEGORICAL)] for k in range(len(self.names))
        )


@dataclass(frozen=True, eq=False)
class Numbers:
    """A numeric column: ``values`` (n,), NaN where a point has none. The page draws it
    as a histogram and colours by it on a continuous scale."""

    title: str
    values: np.ndarray
    #: A pair column's own values per pair (None: a column of sentences only).
    of_pairs: OfPairs | None = None
    #: The sizes of the corpus's own groups: charted even when all are one size.
    grouping: bool = False


@dataclass(frozen=True, eq=False)
class Texts:
    """A column of free text (an id of the source, a note): shown in the table and the
    point's fields, exported, neither charted nor a colouring."""

    title: str
    values: tuple[str, ...]


Column = Categories | Numbers | Texts


_DIGITS = re.compile(r"(\d+)")  # compiled: 29,000 group names are keyed in half the time


def _natural(text: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part.lower() for part in _DIGITS.split(text))


def _ranked(names: Sequence[str], counts: np.ndarray) -> list[int]:
    """Indices of ``names`` most frequent first, ties in natural order."""
    keys = _natural_keys(names)
    if keys is None:
        return sorted(range(len(names)), key=lambda k: (-counts[k], _natural(names[k])))
    return np.lexsort((keys, -counts)).tolist()


_NATURAL_WIDTH = 24


def _natural_keys(names: Sequence[str]) -> np.ndarray | None:
    """Strings that sort as :func:`_natural` orders ``names`` (lower case, each digit
    run zero-padded behind a NUL, which sorts before any character, so "a" < "a-1"
    stays), made in one regex pass: 29,000 caption groups in 0.03 s, not 0.2 s. None
    where that does not hold (not ASCII, a NUL or newline, a number too long)."""
    joined = "\n".join(names)
    if (
        not names
        or not joined.isascii()
        or "\x00" in joined
        or joined.count("\n") != len(names) - 1
    ):
        return None
    if any(len(run) > _NATURAL_WIDTH for run in _DIGITS.findall(joined)):
        return None
    padded = _DIGITS.sub(lambda run: "\x00" + run.group().zfill(_NATURAL_WIDTH), joined.lower())
    return np.array(padded.split("\n"), dtype=str)


def _texts(values: Sequence[Any]) -> Sequence[str]:
    """Each value as text, "" for None (the values themselves when all are text)."""
    if set(map(type, values)) <= {str}:
        return values
    return ["" if v is None else str(v) for v in values]


def _encoded(values: Sequence[Any]) -> tuple[list[str], np.ndarray]:
    """The distinct texts of ``values`` ("" and None left out) and each value's index
    among them (-1: none). Sorted as a fixed-width numpy string array, in C: as Python
    objects, 2.5x slower on the 145,000 captions."""
    text = np.array(_texts(values), dtype=str)
    names, codes = np.unique(text, return_inverse=True)
    codes = codes.ravel().astype(np.int64)
    if len(names) and names[0] == "":
        names, codes = names[1:], codes - 1
    return names.tolist(), codes


def word_counts(texts: Sequence[str]) -> np.ndarray:
    """Words of each text, as ``len(text.split())`` counts them (Unicode whitespace).
    Python's own split through ``map``: pyarrow's utf8_split_whitespace and a regex
    count were slower on the 145,000 captions."""
    return np.fromiter(map(len, map(str.split, texts)), np.float64, len(texts))


def exploration_columns(
    exploration: Exploration,
    *,
    groups: np.ndarray | None = None,
    regions: Regions | None = None,
    labels: dict[str, Sequence[Any]] | None = None,
) -> list[Column]:
    """The columns of an exploration: group and its size, region, misclassified or not,
    words, faithfulness, each given label, what its pairs say of each sentence and each
    metadata column."""
    return sentence_columns(
        exploration.corpus,
        groups=groups,
        regions=regions,
        classification=exploration.classification,
        faithfulness=exploration.faithfulness,
        labels=labels,
    )


def sentence_columns(
    corpus: Corpus,
    *,
    groups: np.ndarray | None = None,
    regions: Regions | None = None,
    classification: Any = None,
    faithfulness: Any = None,
    labels: dict[str, Sequence[Any]] | None = None,
    edits: Sequence[Edit] = (),
) -> list[Column]:
    """:func:`exploration_columns` of a corpus with what is known of it so far (no run
    yet: no region, classification or faithfulness), and, from its annotation
    session's ``edits``, which sentences were edited or reviewed."""
    columns: list[Column] = []
    if corpus.groups is not None:
        codes = np.asarray(corpus.groups.first_group(len(corpus)) if groups is None else groups)
        columns.append(
            Categories(
                corpus.groups.kind.capitalize() or "Group",
                tuple(corpus.groups.names),
                codes,
                none="no group",
                grouping=True,
            )
        )
        sizes = np.bincount(codes[codes >= 0], minlength=len(corpus.groups.names))
        columns.append(
            Numbers("Group size", np.where(codes >= 0, sizes[codes], np.nan), grouping=True)
        )
    if regions is not None:
        columns.append(
            Categories(
                "Region",
                tuple(regions.label(c) for c in range(regions.n_clusters)),
                np.where(regions.labels == NOISE, -1, regions.labels),
                none="in no region",
            )
        )
    result = classification
    if result is not None:
        codes = np.full(len(corpus), -1)
        codes[result.sentence_index] = 0
        codes[result.misclassified] = 1
        columns.append(
            Categories(
                "Misclassified or not",
                ("right", "misclassified"),
                codes,
                ("#4a90d9", MISCLASSIFIED),
                "not evaluated",
            )
        )
    columns.append(Numbers("Words", word_counts(corpus.texts)))
    faithful = faithfulness
    if faithful is not None:
        columns.append(Numbers(f"Faithfulness ({faithful.k} neighbours kept)", faithful.overlap))
    if edits:
        columns.append(review_column(corpus, edits))
    for title, values in (labels or {}).items():
        columns.append(Categories.of_values(title, values))
    return _unique_titles(columns + pair_columns(corpus), metadata_columns(corpus))


def _unique_titles(computed: list[Column], metadata: list[Column]) -> list[Column]:
    """``computed`` and each ``metadata`` column under a title of its own, as the Filter
    panel and expressions key columns by title: one that repeats a computed column's
    title is left out when it groups the sentences as that column does (Costra's "seed
    group" numbers, its groups again), else called "<title> (file)"."""
    by_title = {column.title: column for column in computed}
    kept = list(computed)
    for column in metadata:
        same = by_title.get(column.title)
        if same is None:
            kept.append(column)
        elif not _same_partition(_partition(same), _partition(column)):
            kept.append(_retitled(column, f"{column.title} (file)"))
    return kept


def _partition(column: Column) -> np.ndarray:
    """Each sentence's class under ``column``: equal values, one class (none: one too)."""
    if isinstance(column, Categories):
        return np.asarray(column.codes)
    values = np.asarray(column.values if isinstance(column, Numbers) else _texts(column.values))
    return np.unique(values, return_inverse=True)[1].ravel()


def _same_partition(first: np.ndarray, second: np.ndarray) -> bool:
    """Whether two labellings put the same sentences together: as many distinct
    (first, second) pairs as distinct labels in each."""
    a, b = np.unique(first, return_inverse=True)[1], np.unique(second, return_inverse=True)[1]
    pairs = len(np.unique(a.ravel() * (int(b.max(initial=0)) + 1) + b.ravel()))
    return pairs == a.max(initial=-1) + 1 == b.max(initial=-1) + 1


def _retitled(column: Column, title: str) -> Column:
    return dataclasses.replace(column, title=title)


def review_column(corpus: Corpus, edits: Sequence[Edit]) -> Categories:
    """Each sentence edited (moved, split off, in a merged group or a re-scored pair),
    else reviewed (marked, noted, a conflict about it settled), else neither."""

    row_of = {sentence_id: row for row, sentence_id in enumerate(corpus.ids)}
    groups, pairs = corpus.groups, corpus.pairs
    codes = np.full(len(corpus), -1)
    for edit in edits:
        code = 0 if edit.changes_corpus else 1
        for key in item_keys(edit):
            kind, _, name = key.partition(":")
            if kind == "sentence" and name in row_of:
                rows = np.array([row_of[name]])
            elif kind == "pair" and pairs is not None and name.isdigit() and int(name) < len(pairs):
                rows = np.array([pairs.first[int(name)], pairs.second[int(name)]])
            elif kind == "group" and groups is not None and name in groups.names:
                rows = groups.sentence_index[groups.group_index == groups.names.index(name)]
            else:
                continue
            codes[rows] = np.where(codes[rows] == 0, 0, code)
    return Categories(
        "Edited or reviewed", ("edited", "reviewed"), codes, ("#d62728", "#2ca02c"), "neither"
    )


def pair_columns(corpus: Corpus) -> list[Column]:
    """What a corpus's pairs say of each sentence: its number of pairs, their splits,
    subsets and labels (several joined by " + "), and their mean gold score; each but
    the number also keeps every pair's own value (:class:`OfPairs`), which the filter
    charts and keeps pairs by."""
    pairs = corpus.pairs
    if pairs is None or not len(pairs):
        return []
    n = len(corpus)
    first, second = np.asarray(pairs.first), np.asarray(pairs.second)
    ends = np.concatenate([first, second])
    columns: list[Column] = [Numbers("Pairs", np.bincount(ends, minlength=n).astype(float))]
    labelled = [pairs.label_text(int(label)) if label >= 0 else None for label in pairs.label]
    for title, values in (
        ("Split", pairs.split),
        ("Subset", pairs.subset),
        ("Pair label", labelled),
    ):
        if len({v for v in values if v is not None}) > 1:
            own = Categories.of_values(title, values, none="no value")
            columns.append(
                Categories.of_values(
                    title, _joined(n, ends, [*values, *values]), none="in no pair"
                ).with_pairs(OfPairs(own, first, second))
            )
    scores = np.concatenate([pairs.score, pairs.score])
    scored = np.isfinite(scores)
    if scored.any():
        total = np.bincount(ends[scored], weights=scores[scored], minlength=n)
        count = np.bincount(ends[scored], minlength=n)
        title = "Gold score (mean of its pairs)"
        own_scores = Numbers(title, np.asarray(pairs.score, dtype=np.float64))
        with np.errstate(invalid="ignore", divide="ignore"):
            columns.append(Numbers(title, total / count, OfPairs(own_scores, first, second)))
    return columns


def _joined(n: int, ends: np.ndarray, values: Sequence[str | None]) -> Sequence[str]:
    """Each sentence's distinct values among its pairs' ends, joined by " + " in
    natural order ("" for none). Each sentence's set is a bit mask of the few values,
    so only the distinct sets are joined in Python."""
    names, codes = _encoded(values)
    if len(names) > 62:
        seen: list[set[str]] = [set() for _ in range(n)]
        for sentence, code in zip(ends.tolist(), codes.tolist()):
            if code >= 0:
                seen[sentence].add(names[code])
        return [" + ".join(sorted(kept, key=_natural)) for kept in seen]
    masks = np.zeros(n, dtype=np.int64)
    kept = codes >= 0
    np.bitwise_or.at(masks, ends[kept], np.left_shift(1, codes[kept]))
    distinct, inverse = np.unique(masks, return_inverse=True)
    joined = np.array(
        [
            " + ".join(
                sorted((names[k] for k in range(len(names)) if int(mask) >> k & 1), key=_natural)
            )
            for mask in distinct
        ],
        dtype=object,
    )
    return joined[inverse.ravel()].tolist()


def metadata_columns(corpus: Corpus) -> list[Column]:
    """Each metadata column: numbers when every value is one; free text when values
    are lists (Costra's ids of related sentences) or rarely repeat (fewer than two
    sentences a value, on average, among those with one); else categories."""
    columns: list[Column] = []
    for name, values in corpus.metadata.items():
        title = name[:1].upper() + name[1:]
        if any(kind in _CONTAINERS for kind in set(map(type, values))):
            columns.append(
                Texts(
                    title,
                    tuple(
                        ", ".join(map(str, v))
                        if type(v) in _CONTAINERS
                        else ""
                        if v is None
                        else str(v)
                        for v in values
                    ),
                )
            )
            continue
        numbers = _as_numbers(values)
        if numbers is not None:
            columns.append(Numbers(title, numbers))
            continue
        names, codes = _encoded(values)
        if 1 < len(names) and 2 * len(names) <= np.count_nonzero(codes >= 0):
            columns.append(Categories.of_encoded(title, names, codes))
        else:
            columns.append(Texts(title, tuple(_texts(values))))
    return columns


_CONTAINERS = (tuple, list, set, frozenset, dict)


def _as_numbers(values: Sequence[Any]) -> np.ndarray | None:
    kinds = set(map(type, values))
    if kinds & {bool, np.bool_}:  # yes/no: two categories, not 0 and 1
        return None
    if kinds <= {str}:
        numbers = _parsed(values)
    elif kinds <= {int, float, type(None)}:
        numbers = np.array(values, dtype=np.float64)  # None: NaN
    else:
        try:
            numbers = np.array([np.nan if v is None or v == "" else float(v) for v in values])
        except (TypeError, ValueError):
            return None
    return numbers if numbers is not None and np.isfinite(numbers).any() else None


def _parsed(texts: Sequence[str]) -> np.ndarray | None:
    """Texts as numbers ("" none), None when one is not a number."""
    first = next((text for text in texts if text), "")
    try:
        float(first)
    except ValueError:
        return None  # text, as most such columns show at once
    array = np.array(texts, dtype=str)
    try:
        return np.where(array == "", "nan", array).astype(np.float64)
    except ValueError:
        try:  # what numpy's parser refuses and Python's takes
            return np.array([np.nan if v == "" else float(v) for v in texts])
        except ValueError:
            return None
