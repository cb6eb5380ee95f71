"""Costra 1.1: Czech sentence transformations and their ordering comparisons.

``data.tsv`` (Barancikova & Bojar 2020) has one row per sentence, tab-separated, no
header, nine columns: id, seed-group number, transformation type, sentence, tokenized
sentence, and four comma-separated id lists r1-r4 (r1/r2: sentences on either side of an
ordering judgement, r3: "too similar", r4: "too dissimilar"). See EVALUATIONS.md section 5.

Every row is one corpus entry, in file row order, even where two rows share a text: rows
keep their own id and transformation type, and embeddings align row by row with the
``costra`` package's reference evaluator. The id lists are kept as metadata, and
:func:`costra_comparisons` derives from them the comparisons the evaluation scores.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from importlib import resources
from itertools import chain
from pathlib import Path

import numpy as np

from sentspace.app.base.errors import CorpusError, EvaluationError
from sentspace.app.corpora.build import read_lines
from sentspace.app.corpora.model import Corpus, Grouping

DATA_FILE = "data.tsv"
N_COLUMNS = 9
REFERENCE_COLUMNS = ("r1", "r2", "r3", "r4")

TRANSFORMATIONS = (
    "seed",
    "paraphrase",
    "different meaning",
    "nonsense",
    "minimal change",
    "possibility",
    "ban",
    "future",
    "past",
    "formal sentence",
    "nonstandard sentence",
    "simple sentence",
    "generalization",
    "opposite meaning",
)

#: The scored classes and the transformation types each pools, as in the reference
#: evaluator (``costra.CostraEvaluator.TRANSFORMATION_GROUPS``; it spells the last one
#: "opposite_meaning").
CLASSES: dict[str, tuple[str, ...]] = {
    "basic": ("different meaning", "nonsense", "minimal change"),
    "modality": ("ban", "possibility"),
    "time": ("past", "future"),
    "style": ("formal sentence", "nonstandard sentence", "simple sentence"),
    "generalization": ("generalization",),
    "opposite meaning": ("opposite meaning",),
}
#: Classes scored on seed-paraphrase versus seed-transformation comparisons; the others
#: are scored on the r1-r4 orderings only.
PARAPHRASE_CLASSES = ("basic", "modality")

#: How a comparison was derived, indexed by ``CostraComparisons.rule``.
RULES = (
    "cos(seed, paraphrase) > cos(seed, transformation)",
    "i in r1, j in r2: cos(x, i or j) > cos(i, j)",
    "i in r3, j in r4: cos(x, i) > cos(x, j)",
)


def installed_data_file() -> Path | None:
    """``data.tsv`` of the installed ``costra`` package, or None when it is not installed."""
    try:
        path = resources.files("costra") / "data" / DATA_FILE
    except ModuleNotFoundError:
        return None
    return Path(str(path)) if path.is_file() else None


def _data_path(path: Path) -> Path:
    return path / DATA_FILE if path.is_dir() else path


def is_costra(path: str | Path) -> bool:
    """Whether ``path`` (a file, or a folder holding ``data.tsv``) looks like Costra.

    Only the first line is read: nine tab-separated fields, two integers and a known
    transformation type.
    """
    path = _data_path(Path(path))
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 16).decode("utf-8").rstrip("\r\n")
    except (OSError, UnicodeDecodeError):
        return False
    fields = first.removeprefix("\ufeff").split("\t")
    return (
        len(fields) == N_COLUMNS
        and fields[0].strip().isdigit()
        and fields[1].strip().isdigit()
        and fields[2] in TRANSFORMATIONS
    )


def _parse_id(value: str, what: str, path: Path, line: int) -> int:
    try:
        number = int(value)
    except ValueError:
        raise CorpusError(
            f"{what} must be a non-negative integer, found {value[:40]!r}", path, line
        ) from None
    if number < 0:
        raise CorpusError(f"{what} must be a non-negative integer, found {number}", path, line)
    return number


def load_costra(path: str | Path | None = None, name: str = "costra") -> Corpus:
    """Load Costra 1.1 from ``data.tsv`` (or a folder holding it).

    With ``path=None`` the data file of the installed ``costra`` package is read.

    Returns
    -------
    Corpus
        One sentence per row in file order; ids are the row ids; language "cs"; groups
        are the seed groups (kind "seed group", named by their number, in order of first
        appearance); metadata columns "type", "seed group" (int), "tokenized", "line"
        (int) and "r1"-"r4" (per row, a tuple of the referenced ids as str).

    Raises
    ------
    CorpusError
        No file (and no installed package), empty file, not UTF-8, a row without nine
        columns, a non-integer or duplicate id, an empty sentence, an id list naming an
        id that no row has, or a seed group without exactly one seed.
    """
    if path is None:
        path = installed_data_file()
        if path is None:
            raise CorpusError(
                "no Costra file given, and the costra package that ships "
                "one is not installed (pip install costra==1.1)"
            )
    path = _data_path(Path(path))
    lines = read_lines(path)

    ids: list[str] = []
    line_of_id: dict[str, int] = {}
    group_numbers: list[int] = []
    types: list[str] = []
    texts: list[str] = []
    tokenized: list[str] = []
    line_numbers: list[int] = []
    references: dict[str, list[tuple[str, ...]]] = {c: [] for c in REFERENCE_COLUMNS}
    blank: list[int] = []
    for number, row in enumerate(lines, start=1):
        if not row.strip():
            blank.append(number)
            continue
        fields = row.split("\t")
        if len(fields) != N_COLUMNS:
            raise CorpusError(
                f"expected {N_COLUMNS} tab-separated columns (id, seed group, "
                f"type, sentence, tokenized, r1, r2, r3, r4), found "
                f"{len(fields)}",
                path,
                number,
            )
        row_id = str(_parse_id(fields[0].strip(), "the id", path, number))
        if row_id in line_of_id:
            raise CorpusError(
                f"id {row_id} already used on line {line_of_id[row_id]}", path, number
            )
        if not fields[2].strip() or not fields[3].strip():
            raise CorpusError("empty transformation type or sentence", path, number)
        line_of_id[row_id] = number
        ids.append(row_id)
        group_numbers.append(_parse_id(fields[1].strip(), "the seed-group number", path, number))
        types.append(fields[2].strip())
        texts.append(fields[3])
        tokenized.append(fields[4])
        line_numbers.append(number)
        for column, value in zip(REFERENCE_COLUMNS, fields[5:]):
            # Empty items are skipped, as the reference evaluator does ("3,,4" and "3,4").
            references[column].append(
                tuple(
                    str(_parse_id(item.strip(), f"every id in {column}", path, number))
                    for item in value.split(",")
                    if item.strip()
                )
            )

    for column, lists in references.items():
        for refs, number in zip(lists, line_numbers):
            for ref in refs:
                if ref not in line_of_id:
                    raise CorpusError(
                        f"{column} refers to id {ref}, which no row has", path, number
                    )

    group_of_number: dict[int, int] = {}
    group_index = np.array(
        [group_of_number.setdefault(g, len(group_of_number)) for g in group_numbers], dtype=np.int64
    )
    seeds = np.bincount(group_index[np.asarray(types) == "seed"], minlength=len(group_of_number))
    for number, group in group_of_number.items():
        if seeds[group] != 1:
            first_line = line_numbers[int(np.argmax(group_index == group))]
            raise CorpusError(
                f"seed group {number} has {seeds[group]} rows of type 'seed', expected exactly one",
                path,
                first_line,
            )

    warnings = []
    if blank:
        warnings.append(
            f"skipped {len(blank)} blank lines: {', '.join(map(str, blank[:10]))}"
            + (" ..." if len(blank) > 10 else "")
        )
    unknown = sorted(set(types) - set(TRANSFORMATIONS))
    if unknown:
        warnings.append(f"unknown transformation types, not scored: {', '.join(unknown)}")

    return Corpus(
        name=name,
        texts=tuple(texts),
        ids=tuple(ids),
        language="cs",
        groups=Grouping(
            kind="seed group",
            sentence_index=np.arange(len(texts)),
            group_index=group_index,
            names=tuple(str(number) for number in group_of_number),
        ),
        metadata={
            "type": tuple(types),
            "seed group": tuple(group_numbers),
            "tokenized": tuple(tokenized),
            "line": tuple(line_numbers),
            **{column: tuple(lists) for column, lists in references.items()},
        },
        sources=(str(path),),
        warnings=tuple(warnings),
    )


@dataclass(frozen=True, eq=False)
class CostraComparisons:
    """The scored Costra comparisons: comparison k holds when
    ``cos(*more_similar[k]) > cos(*less_similar[k])``.

    Pairs keep the orientation the reference evaluator gives them, so its comparison
    tuples ``((a, b), (c, d))`` are exactly ``(more_similar[k], less_similar[k])``.

    Attributes
    ----------
    more_similar, less_similar : ndarray of shape (n, 2)
        Sentence indices of the pair expected to be more / less similar. The sentence the
        comparison is about (row x, or the seed) is ``more_similar[:, 0]``.
    class_index : ndarray of shape (n,)
        Index into ``CLASS_NAMES``.
    transformation : ndarray of shape (n,)
        Index into ``transformation_names``: the type the comparison counts under.
    rule : ndarray of shape (n,)
        Index into ``RULES``.
    group : ndarray of shape (n,)
        Seed group (index into ``Corpus.groups.names``) of the sentence it is about.
    pairs : ndarray of shape (n_pairs, 2)
        The distinct sentence pairs compared (smaller index first); cosine is symmetric,
        so an evaluation computes each once.
    more_pair, less_pair : ndarray of shape (n,)
        Row of ``pairs`` of each comparison's more / less similar pair.
    n_unscored : int
        Comparisons the data yields that no class scores, as in the reference: orderings
        of paraphrase and basic/modality rows, r3/r4 pairs of seed rows, and
        seed-paraphrase comparisons against time/style/... transformations.
    """

    more_similar: np.ndarray
    less_similar: np.ndarray
    class_index: np.ndarray
    transformation: np.ndarray
    rule: np.ndarray
    group: np.ndarray
    pairs: np.ndarray
    more_pair: np.ndarray
    less_pair: np.ndarray
    transformation_names: tuple[str, ...]
    n_unscored: int

    CLASS_NAMES = tuple(CLASSES)

    def __post_init__(self) -> None:
        for name in (
            "more_similar",
            "less_similar",
            "class_index",
            "transformation",
            "rule",
            "group",
            "pairs",
            "more_pair",
            "less_pair",
        ):
            getattr(self, name).flags.writeable = False

    def __len__(self) -> int:
        return len(self.class_index)

    @property
    def class_sizes(self) -> dict[str, int]:
        """Number of comparisons per class."""
        counts = np.bincount(self.class_index, minlength=len(self.CLASS_NAMES))
        return dict(zip(self.CLASS_NAMES, counts.tolist()))


def _flatten(
    lists: tuple[tuple[str, ...], ...], row_of_id: dict[str, int]
) -> tuple[np.ndarray, np.ndarray]:
    """(row, referenced row) of every reference in one id-list column, row-major."""
    counts = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    targets = np.fromiter(
        map(row_of_id.__getitem__, chain.from_iterable(lists)),
        dtype=np.int64,
        count=int(counts.sum()),
    )
    return np.repeat(np.arange(len(lists)), counts), targets


def _cross(
    key_a: np.ndarray, value_a: np.ndarray, key_b: np.ndarray, value_b: np.ndarray, n_keys: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (key, a, b) with a from side a and b from side b under the same key.

    Output follows side a's order, each a followed by its b values in side b's order;
    sizes are products of the per-key counts, with no Python loop over them.
    """
    order = np.argsort(key_b, kind="stable")
    value_b = value_b[order]
    count_b = np.bincount(key_b, minlength=n_keys)
    start_b = np.cumsum(count_b) - count_b
    repeats = count_b[key_a]
    a = np.repeat(np.arange(len(key_a)), repeats)
    within = np.arange(len(a)) - np.repeat(np.cumsum(repeats) - repeats, repeats)
    return key_a[a], value_a[a], value_b[start_b[key_a[a]] + within]


#: Comparisons per loaded corpus: deriving them takes longer than scoring them.
_derived: weakref.WeakKeyDictionary[Corpus, CostraComparisons] = weakref.WeakKeyDictionary()


def costra_comparisons(corpus: Corpus) -> CostraComparisons:
    """The comparisons of EVALUATIONS.md section 5, built as the reference evaluator does.

    - basic / modality: for the seed s of each group, every paraphrase p and every row t
      of a basic or modality type in the group: cos(s, p) > cos(s, t), counted under t's
      type.
    - rows x with i in r1 and j in r2: cos(x, i) > cos(i, j) and cos(x, j) > cos(i, j);
      rows x with i in r3 and j in r4: cos(x, i) > cos(x, j). Counted under x's type, but
      for a seed x the r1/r2 comparisons count under the type of the sentence paired with
      x (i for the first, j for the second: the reference's choice). Only the time, style,
      generalization and opposite-meaning classes score these.

    Derived once per corpus object and reused.

    Raises
    ------
    EvaluationError
        The corpus was not loaded from Costra (no seed groups, types or id lists).
    """
    if corpus not in _derived:
        _derived[corpus] = _derive(corpus)
    return _derived[corpus]


def _derive(corpus: Corpus) -> CostraComparisons:
    needed = ("type", *REFERENCE_COLUMNS)
    if corpus.groups is None or any(column not in corpus.metadata for column in needed):
        raise EvaluationError(
            f"Costra comparisons need a corpus loaded from Costra's "
            f"{DATA_FILE}; corpus {corpus.name!r} lacks its seed groups, "
            f"types or r1-r4 id lists"
        )
    n = len(corpus)
    n_groups = corpus.groups.n_groups
    group = corpus.groups.labels(n)
    row_of_id = {sentence_id: row for row, sentence_id in enumerate(corpus.ids)}

    type_names, row_type = np.unique(np.asarray(corpus.metadata["type"]), return_inverse=True)
    class_of_type = {t: k for k, types in enumerate(CLASSES.values()) for t in types}
    type_class = np.array([class_of_type.get(t, -1) for t in type_names], dtype=np.int64)
    paraphrase_classes = [CostraComparisons.CLASS_NAMES.index(c) for c in PARAPHRASE_CLASSES]
    is_seed = np.asarray(type_names == "seed")[row_type]
    seed_of_group = np.empty(n_groups, dtype=np.int64)
    seed_of_group[group[is_seed]] = np.flatnonzero(is_seed)

    # Seed-paraphrase versus seed-transformation, for every transformation row.
    is_paraphrase = np.asarray(type_names == "paraphrase")[row_type]
    transformed = np.flatnonzero(~is_seed & ~is_paraphrase)
    paraphrases = np.flatnonzero(is_paraphrase)
    g0, t0, p0 = _cross(group[transformed], transformed, group[paraphrases], paraphrases, n_groups)
    s0 = seed_of_group[g0]
    type0 = row_type[t0]
    scored0 = np.isin(type_class[type0], paraphrase_classes)

    # r1 x r2: two comparisons per (x, i, j); a seed's count under i's and j's type.
    rows1, targets1 = _flatten(corpus.metadata["r1"], row_of_id)
    rows2, targets2 = _flatten(corpus.metadata["r2"], row_of_id)
    x1, i1, j1 = _cross(rows1, targets1, rows2, targets2, n)
    x1, i1, j1 = np.repeat(x1, 2), np.repeat(i1, 2), np.repeat(j1, 2)
    partner = np.where(np.arange(len(x1)) % 2 == 0, i1, j1)
    type1 = row_type[np.where(is_seed[x1], partner, x1)]

    # r3 x r4: one comparison per (x, i, j), under x's type (seed: no class).
    rows3, targets3 = _flatten(corpus.metadata["r3"], row_of_id)
    rows4, targets4 = _flatten(corpus.metadata["r4"], row_of_id)
    x2, i2, j2 = _cross(rows3, targets3, rows4, targets4, n)
    type2 = row_type[x2]

    more = np.concatenate(
        [np.column_stack([s0, p0]), np.column_stack([x1, partner]), np.column_stack([x2, i2])]
    )
    less = np.concatenate(
        [np.column_stack([s0, t0]), np.column_stack([i1, j1]), np.column_stack([x2, j2])]
    )
    types = np.concatenate([type0, type1, type2])
    rule = np.repeat(np.arange(3, dtype=np.int64), [len(s0), len(x1), len(x2)])
    classes = type_class[types]
    ordered = (classes >= 0) & ~np.isin(classes, paraphrase_classes)
    scored = np.concatenate([scored0, ordered[len(s0) :]])
    more, less = more[scored], less[scored]
    both = np.concatenate([more, less])
    keys, which = np.unique(both.min(axis=1) * n + both.max(axis=1), return_inverse=True)
    more_pair, less_pair = np.split(which, 2)
    return CostraComparisons(
        more_similar=more,
        less_similar=less,
        class_index=classes[scored],
        transformation=types[scored],
        rule=rule[scored],
        group=group[more[:, 0]],
        pairs=np.column_stack(np.divmod(keys, n)),
        more_pair=more_pair,
        less_pair=less_pair,
        transformation_names=tuple(type_names.tolist()),
        n_unscored=int((~scored).sum()),
    )
