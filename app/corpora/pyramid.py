"""Pyramid files (DUC/TAC ``.pyr`` XML) and the paraphrase tests derived from them.

A pyramid holds the model summaries of one topic as numbered ``<line>``s and clusters
their fragments into Summary Content Units: ``<scu uid label>`` elements whose
``<contributor label>`` children each mark one or more ``<part label start end/>`` spans
(character offsets into the lines joined with newlines).

Contributors are the sentences. A contributor's text is its parts' labels in text order
joined by a space: the contributor label joins discontinuous parts with "..." (an
annotation artefact that encoders would read as punctuation), while the parts are the
summary's own words. Identical texts within one pyramid are one sentence that belongs to
every SCU it was marked in. Groups are the SCUs (kind "SCU"). A folder of ``.pyr`` files
loads as one corpus; structure never crosses pyramids.

:func:`pyramid_tests` derives the binary and ranking tests of EVALUATIONS.md section 4;
the loader stores the binary pairs as the corpus's pairs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from sentspace.app.base.errors import CorpusError, EvaluationError
from sentspace.app.corpora.model import Corpus, Grouping, PairTable
from sentspace.app.corpora.pyramid_files import _check_uids, _parse, _part_problem, _summary_starts

SUFFIX = ".pyr"

#: Whom the ranking test's distractors resemble (:func:`pyramid_tests`).
DISTRACTORS = {
    "answer": "distractors resemble the answer (the paper's construction)",
    "question": "distractors resemble the question (adversarial for lexical encoders)",
}
#: How a negative pair's shared words are counted.
NEGATIVE_OVERLAP = {
    "tokens": "counted with repetition",
    "types": "distinct words",
}
#: What the binary test pairs: the paper's own examples ("Countries worldwide sent
#: Equipment" / "... sent Relief Workers") read like SCU labels, not contributors.
ITEMS = {
    "contributors": "contributor texts: same SCU positive, different SCUs negative",
    "labels": "SCU labels: a contributor with its SCU's label positive, two SCUs' labels negative",
    "both": "contributors and SCU labels together: same SCU positive, else negative",
}
#: Baumel et al. (2016) over DUC 2005-2007, to read a funnel's counts against.
PAPER_COUNTS = {"positive pairs": 8390, "negative pairs": 189229, "ranking questions": 8755}
#: The paper's positive share of the binary pairs (8,390 of 197,619).
PAPER_POSITIVE_SHARE = PAPER_COUNTS["positive pairs"] / (
    PAPER_COUNTS["positive pairs"] + PAPER_COUNTS["negative pairs"]
)
#: Where the binary test's negative pairs come from: the paper says only that they share
#: "more than 3 words". On DUC 2006 and 2007, within one pyramid the word filter leaves
#: 21% and 18% positives, across the pyramids of a folder 7.4% and 6.0%, within one
#: pyramid unfiltered 0.8% and 1.0%, against the paper's 4.2%: across-pyramids is the
#: nearest reading, hence the default.
NEGATIVES = {
    "across-pyramids": "items of different SCUs anywhere in the folder sharing enough words",
    "within-pyramid": "items of different SCUs of one pyramid sharing enough words",
    "no-overlap-filter": "items of different SCUs of one pyramid, no shared-word filter",
}
#: Rows of the word matrices multiplied at once across pyramids (memory: rows x items).
_ACROSS_BLOCK = 512

#: Words: runs of letters and digits, keeping inner apostrophes ("children's").
WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
#: Personal, possessive and reflexive pronouns: a fragment holding one refers outside
#: itself, so its meaning is not in its words.
PRONOUNS = frozenset(
    """
    i me my mine myself we us our ours ourselves you your yours yourself yourselves he him
    his himself she her hers herself it its itself they them their theirs themselves
""".split()
)
#: Function words, which do not make two fragments lexically different.
FUNCTION_WORDS = PRONOUNS | frozenset(
    """
    a an the and or but nor so yet for of in on at to from by with about as into onto
    over under than then that this these those there here is are was were be been being
    am do does did doing have has had having will would shall should can could may might
    must not no if when while which who whom whose what where why how all any each both
    some such only own same too very just also
""".split()
)


def is_pyramid(path: str | Path) -> bool:
    """Whether ``path`` is a ``.pyr`` file, or a folder holding at least one."""
    path = Path(path)
    if path.is_dir():
        return any(path.glob(f"*{SUFFIX}"))
    return path.suffix.lower() == SUFFIX and path.is_file()


def load_pyramid(path: str | Path, name: str | None = None) -> Corpus:
    """Load one ``.pyr`` file, or every ``.pyr`` file of a folder (sorted by name).

    Returns
    -------
    Corpus
        Contributors as sentences (ids ``"<pyramid>/<scu uid>/<n>"`` of their first
        occurrence), groups = SCUs named ``"<pyramid>/<uid>"``, pairs = the binary test of
        :func:`pyramid_tests` with default constraints, metadata "pyramid", "summary"
        (header name of the model summary, "" when the header regex finds none), "scu
        label" (of the first SCU) and "line" (of the first ``<contributor>`` element).

    Raises
    ------
    CorpusError
        No ``.pyr`` file; for a single file, malformed XML (with its line), a missing
        attribute, a non-integer offset, a contributor without parts or an SCU without
        contributors, duplicate SCU uids. In a folder such a file is skipped and the
        others load, unless none does. A part whose offsets are malformed (start after
        end, outside the text) is skipped wherever it is; ``Corpus.warnings`` names each
        skipped part and file (file, line, problem) and counts them.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob(f"*{SUFFIX}"))
        if not files:
            raise CorpusError(f"no {SUFFIX} files in the folder", path)
    elif path.exists():
        files = [path]
    else:
        raise CorpusError("file not found", path)

    texts: list[str] = []
    ids: list[str] = []
    columns: dict[str, list] = {"pyramid": [], "summary": [], "scu label": [], "line": []}
    memberships: set[tuple[int, int]] = set()
    member_sentence: list[int] = []
    member_group: list[int] = []
    group_names: list[str] = []
    mismatched = 0
    loaded: list[Path] = []
    skipped_files: list[str] = []
    skipped_parts: list[tuple[Path, str]] = []
    for file in files:
        try:
            text, regex, scus = _parse(file)
            _check_uids(file, scus)
        except CorpusError as error:
            if len(files) == 1:
                raise
            # One bad file of a folder leaves the others to load; the warnings say which.
            skipped_files.append(str(error))
            continue
        loaded.append(file)
        starts, summaries = _summary_starts(text, regex)
        sentence_of_text: dict[str, int] = {}
        for scu in scus:
            group = len(group_names)
            group_names.append(f"{file.stem}/{scu.uid}")
            for number, contributor in enumerate(scu.contributors, start=1):
                parts = []
                for label, start, end, line in sorted(contributor.parts, key=lambda p: p[1]):
                    problem = _part_problem(start, end, len(text))
                    if problem:
                        skipped_parts.append((file, str(CorpusError(problem, file, line))))
                        continue
                    parts.append((label, start, end, line))
                    mismatched += " ".join(text[start:end].split()) != " ".join(label.split())
                if not parts:
                    continue
                sentence = " ".join(" ".join(label for label, *_ in parts).split())
                if sentence not in sentence_of_text:
                    sentence_of_text[sentence] = len(texts)
                    texts.append(sentence)
                    ids.append(f"{file.stem}/{scu.uid}/{number}")
                    summary = int(np.searchsorted(starts, parts[0][1], side="right")) - 1
                    columns["pyramid"].append(file.stem)
                    columns["summary"].append(summaries[summary] if summary >= 0 else "")
                    columns["scu label"].append(scu.label)
                    columns["line"].append(contributor.line)
                membership = (sentence_of_text[sentence], group)
                if membership not in memberships:
                    memberships.add(membership)
                    member_sentence.append(membership[0])
                    member_group.append(group)
            if not member_group or member_group[-1] != group:  # every part skipped
                group_names.pop()
    if not loaded:
        raise CorpusError(
            f"none of the {len(files)} {SUFFIX} files loads; the first: {skipped_files[0]}", path
        )
    if not texts:
        raise CorpusError("no <part> lies inside its text", path)

    warnings = (
        *(
            (
                f"skipped {len(skipped_parts)} malformed <part>s in "
                f"{len({file for file, _ in skipped_parts})} of {len(loaded)} files: "
                + "; ".join(problem for _, problem in skipped_parts),
            )
            if skipped_parts
            else ()
        ),
        *(
            (f"skipped {len(skipped_files)} of {len(files)} files: " + "; ".join(skipped_files),)
            if skipped_files
            else ()
        ),
        *(
            (
                f"{mismatched} <part> labels differ from the text at their offsets; "
                "the labels are used",
            )
            if mismatched
            else ()
        ),
    )
    corpus = Corpus(
        name=name or (path.name if path.is_dir() else path.stem),
        texts=tuple(texts),
        ids=tuple(ids),
        language="en",
        groups=Grouping(
            kind="SCU",
            sentence_index=np.asarray(member_sentence),
            group_index=np.asarray(member_group),
            names=tuple(group_names),
        ),
        metadata={column: tuple(values) for column, values in columns.items()},
        sources=tuple(str(file) for file in loaded),
        warnings=warnings,
    )
    return replace(corpus, pairs=pyramid_tests(corpus).pairs)


@dataclass(frozen=True)
class Funnel:
    """Candidates of one kind and how many each constraint removed, applied in order."""

    what: str
    candidates: int
    removed: tuple[tuple[str, int], ...]

    @property
    def kept(self) -> int:
        return self.candidates - sum(count for _, count in self.removed)

    def rows(self) -> list[tuple[str, str]]:
        """(label, count) rows for tables: candidates, each removal, kept (beside the
        paper's total where it gives one)."""
        paper = PAPER_COUNTS.get(self.what)
        kept = str(self.kept) + (f" (paper, DUC 2005-2007: {paper:,})" if paper else "")
        return (
            [(f"{self.what}: candidates", str(self.candidates))]
            + [(f"{self.what}: removed, {why}", str(count)) for why, count in self.removed]
            + [(f"{self.what}: kept", kept)]
        )


@dataclass(frozen=True, eq=False)
class PyramidTests:
    """The binary and ranking tests of one pyramid corpus, and what each constraint cut.

    Attributes
    ----------
    pairs : PairTable
        Binary test: label 1 when the two sentences share an SCU, 0 for sentences of
        different SCUs (of one pyramid or across pyramids: ``parameters["negatives"]``);
        subset = pyramid name ("A|B" for a pair across two).
    question, answer : ndarray of shape (n_questions,)
        Sentence indices; the answer shares an SCU with the question.
    distractors : ndarray of shape (n_questions, n_distractors)
        Sentences of the question's pyramid sharing an SCU with neither the question nor
        the answer, with the highest word Jaccard similarity to the answer (or to the
        question: ``parameters["distractors"]``), most similar first (ties: lower index).
    distractor_overlap : ndarray of shape (n_questions, n_distractors)
        That Jaccard similarity.
    funnels : contributors, positive pairs, negative pairs, ranking questions (and SCU
        labels when the binary items include them).
    parameters : the constraints used.
    label_texts, label_ids : the SCU labels among the binary test's items (``items``
        "labels" or "both"): item ``len(corpus) + k`` is label ``k``, named
        ``"<pyramid>/<uid>/label"``; empty for contributors alone.
    """

    pairs: PairTable
    question: np.ndarray
    answer: np.ndarray
    distractors: np.ndarray
    distractor_overlap: np.ndarray
    funnels: tuple[Funnel, ...]
    parameters: dict[str, int | str]
    label_texts: tuple[str, ...] = ()
    label_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("question", "answer", "distractors", "distractor_overlap"):
            getattr(self, name).flags.writeable = False

    @property
    def n_questions(self) -> int:
        return len(self.question)

    def summary(self) -> list[tuple[str, str]]:
        positive, negative = PAPER_COUNTS["positive pairs"], PAPER_COUNTS["negative pairs"]
        share = float(np.mean(self.pairs.label == 1)) if len(self.pairs) else 0.0
        return [row for funnel in self.funnels for row in funnel.rows()] + [
            (
                "binary pairs: positive share",
                f"{share:.1%} (paper: {positive / (positive + negative):.1%})",
            ),
            ("ranking distractors", DISTRACTORS[str(self.parameters["distractors"])]),
        ]


def _word_matrix(word_lists: list[list[str]], keep: frozenset[str] | None = None) -> sp.csr_array:
    """Sentence x word-type matrix of word counts, optionally without the words in
    ``keep``'s complement (``keep=None``: all words)."""
    vocabulary: dict[str, int] = {}
    indptr: list[int] = [0]
    indices: list[int] = []
    for words in word_lists:
        indices.extend(
            vocabulary.setdefault(w, len(vocabulary))
            for w in words
            if keep is None or w not in keep
        )
        indptr.append(len(indices))
    data = np.ones(len(indices), dtype=np.int64)
    counts = sp.csr_array((data, indices, indptr), shape=(len(word_lists), len(vocabulary)))
    counts.sum_duplicates()
    return counts


def _shared_words(counts: sp.csr_array, reading: str) -> np.ndarray:
    """Words each pair of rows shares: distinct words ("types") or words counted with
    repetition ("tokens": the sum over words of the smaller count)."""
    if reading == "types":
        present = (counts > 0).astype(np.int64)
        return (present @ present.T).toarray()
    # min(a, b) = the number of k >= 1 with a >= k and b >= k.
    shared = np.zeros((counts.shape[0],) * 2, dtype=np.int64)
    for k in range(1, int(counts.data.max(initial=0)) + 1):
        at_least = (counts >= k).astype(np.int64)
        shared += (at_least @ at_least.T).toarray()
    return shared


def _scu_labels(corpus: Corpus) -> tuple[list[str], list[str], list[int], list[str]]:
    """(texts, ids, SCU, pyramid) of each SCU's label, read from the "scu label" of a
    member sentence first seen in that SCU (its id starts with the SCU's name); an SCU
    none of whose sentences was first seen there keeps no label."""
    texts, ids, groups, pyramids = [], [], [], []
    labelled: set[int] = set()
    groups_of = corpus.checked_groups
    for sentence, group in zip(groups_of.sentence_index.tolist(), groups_of.group_index.tolist()):
        name = groups_of.names[group]
        if group not in labelled and corpus.ids[sentence].startswith(name + "/"):
            labelled.add(group)
            texts.append(" ".join(str(corpus.metadata["scu label"][sentence]).split()))
            ids.append(f"{name}/label")
            groups.append(group)
            pyramids.append(corpus.metadata["pyramid"][sentence])
    return texts, ids, groups, pyramids


def _pairs_between(mask: np.ndarray, pyramid_of: np.ndarray) -> int:
    """Unordered pairs of items in ``mask`` that lie in different pyramids."""
    sizes = np.bincount(pyramid_of[mask])
    return int((sizes.sum() ** 2 - (sizes**2).sum()) // 2)


def _negatives_across(
    pyramid_of: np.ndarray,
    word_counts: sp.csr_array,
    reading: str,
    min_shared: int,
    long_enough: np.ndarray,
    valid: np.ndarray,
    is_label: np.ndarray,
    items: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Negative pairs whose items lie in different pyramids (no SCU spans two pyramids):
    ([candidates, too short, pronoun, too few shared words], first, second), the items
    multiplied a block of rows at a time so memory stays bounded at a year of DUC."""
    allowed = {"contributors": ~is_label, "labels": is_label}.get(items, np.ones_like(is_label))
    candidates = _pairs_between(allowed, pyramid_of)
    both_long = _pairs_between(allowed & long_enough, pyramid_of)
    both_ok = _pairs_between(allowed & valid, pyramid_of)
    rows = np.flatnonzero(allowed & valid)
    counts = word_counts[rows]
    levels = (
        [(counts > 0).astype(np.int64)]
        if reading == "types"
        else [(counts >= k).astype(np.int64) for k in range(1, int(counts.data.max(initial=0)) + 1)]
    )
    transposed = [level.T.tocsr() for level in levels]
    first, second = [], []
    for start in range(0, len(rows), _ACROSS_BLOCK):
        block = slice(start, start + _ACROSS_BLOCK)
        shared = sum((level[block] @ t).toarray() for level, t in zip(levels, transposed))
        i, j = np.nonzero(shared >= min_shared)
        i += start
        keep = (j > i) & (pyramid_of[rows[i]] != pyramid_of[rows[j]])
        first.append(rows[i[keep]])
        second.append(rows[j[keep]])
    first_items = np.concatenate(first) if first else np.zeros(0, np.int64)
    second_items = np.concatenate(second) if second else np.zeros(0, np.int64)
    kept = len(first_items)
    return (
        np.array([candidates, candidates - both_long, both_long - both_ok, both_ok - kept]),
        first_items,
        second_items,
    )


def pyramid_tests(
    corpus: Corpus,
    *,
    min_words: int = 3,
    min_shared_negative: int = 4,
    n_distractors: int = 3,
    distractors: str = "answer",
    negative_overlap: str = "tokens",
    items: str = "contributors",
    negatives: str = "across-pyramids",
) -> PyramidTests:
    """Derive the binary and ranking tests of EVALUATIONS.md section 4.

    Constraints, applied in this order (each funnel counts what every step removed):
    items need at least ``min_words`` words and no pronoun (:data:`PRONOUNS`); a positive
    pair (and a question with its answer) must be lexically varied, their sets of content
    words (words outside :data:`FUNCTION_WORDS`) differing; a negative pair must share at
    least ``min_shared_negative`` words (the paper's "more than 3"), counted by
    ``negative_overlap`` (:data:`NEGATIVE_OVERLAP`), drawn as ``negatives`` says
    (:data:`NEGATIVES`: across the pyramids of the corpus, within one, or within one
    without the word filter); a question needs ``n_distractors``
    valid sentences sharing an SCU with neither the question nor its answer. Every ordered
    pair of valid sentences sharing an SCU is a question. Words are lowercased
    :data:`WORD` runs. ``items`` (:data:`ITEMS`) says what the binary test pairs:
    contributors, SCU labels (each positive pair a contributor with its SCU's label), or
    both; the ranking test always asks about contributors.

    Distractors are the eligible sentences with the highest word Jaccard similarity to
    the answer (``distractors="answer"``, as in the paper's Figure 3: each distractor
    resembles the answer, so the test asks whether the encoder sees which of several
    look-alikes means what the question means), or to the question
    (``distractors="question"``: adversarial for lexical encoders, whose cosine is
    close to the very similarity that chose the distractors).

    Raises
    ------
    EvaluationError
        The corpus has no SCUs or no "pyramid" column (it was not loaded from .pyr
        files), or an option has an unknown value.
    """
    if corpus.groups is None or "pyramid" not in corpus.metadata:
        raise EvaluationError(
            f"pyramid tests need a corpus loaded from {SUFFIX} files; "
            f"corpus {corpus.name!r} has no SCUs"
        )
    for option, value, allowed in (
        ("distractors", distractors, DISTRACTORS),
        ("negative_overlap", negative_overlap, NEGATIVE_OVERLAP),
        ("items", items, ITEMS),
        ("negatives", negatives, NEGATIVES),
    ):
        if value not in allowed:
            raise EvaluationError(f"{option} must be one of {', '.join(allowed)}; got {value!r}")
    n = len(corpus)
    label_texts, label_ids, label_groups, label_pyramids = (
        _scu_labels(corpus) if items != "contributors" else ([], [], [], [])
    )
    m = len(label_texts)
    # Items: the corpus's sentences, then the SCU labels (label k is item n + k).
    words = [WORD.findall(text.lower()) for text in [*corpus.texts, *label_texts]]
    is_label = np.arange(n + m) >= n
    long_enough = np.array([len(w) >= min_words for w in words], dtype=bool)
    pronoun_free = np.array([PRONOUNS.isdisjoint(w) for w in words], dtype=bool)
    valid = long_enough & pronoun_free
    word_counts = _word_matrix(words)
    all_words = (word_counts > 0).astype(np.int64)
    content = (_word_matrix(words, keep=FUNCTION_WORDS) > 0).astype(np.int64)
    n_content = content.sum(axis=1)
    membership = sp.csr_array(
        (
            np.ones(len(corpus.groups.sentence_index) + m, dtype=np.int64),
            (
                np.concatenate([corpus.groups.sentence_index, n + np.arange(m)]),
                np.concatenate([corpus.groups.group_index, np.asarray(label_groups, np.int64)]),
            ),
        ),
        shape=(n + m, corpus.groups.n_groups),
    )
    pyramids, pyramid_of = np.unique(
        np.asarray([*corpus.metadata["pyramid"], *label_pyramids]), return_inverse=True
    )

    first, second, label, subset = [], [], [], []
    question, answer, chosen, overlap = [], [], [], []
    # Per funnel (positive pairs, negative pairs, questions): candidates, then removals.
    counts = np.zeros((3, 5), dtype=np.int64)
    for p, pyramid in enumerate(pyramids):
        members = np.flatnonzero(pyramid_of == p)
        shared_scu = (membership[members] @ membership[members].T).toarray() > 0
        shared = (all_words[members] @ all_words[members].T).toarray()
        shared_negative = _shared_words(word_counts[members], negative_overlap)
        shared_content = (content[members] @ content[members].T).toarray()
        sizes = np.diag(shared)
        varied = n_content[members, None] + n_content[None, members] > 2 * shared_content
        ok = valid[members]
        long = long_enough[members]
        label_row = is_label[members][:, None]
        label_column = is_label[members][None, :]
        contributors = ~label_row & ~label_column
        if items == "contributors":
            positive_items, negative_items = contributors, contributors
        elif items == "labels":
            positive_items, negative_items = label_row != label_column, label_row & label_column
        else:
            positive_items = negative_items = np.ones_like(contributors)

        upper = np.triu(np.ones_like(shared_scu), k=1)
        both_long = long[:, None] & long[None, :]
        both_ok = ok[:, None] & ok[None, :]
        for row, (kind, extra) in enumerate(
            (
                (upper & shared_scu & positive_items, varied),
                (
                    upper & ~shared_scu & negative_items,
                    shared_negative >= min_shared_negative
                    if negatives != "no-overlap-filter"
                    else np.ones_like(upper),
                ),
            )
        ):
            counts[row, :4] += [
                kind.sum(),
                (kind & ~both_long).sum(),
                (kind & both_long & ~both_ok).sum(),
                (kind & both_ok & ~extra).sum(),
            ]
            i, j = np.nonzero(kind & both_ok & extra)
            first.append(members[i])
            second.append(members[j])
            label.append(np.full(len(i), 1 - row))
            subset.extend([str(pyramid)] * len(i))

        # The ranking test asks about contributors only, whatever the binary items.
        pairs = shared_scu & ~np.eye(len(members), dtype=bool) & contributors
        counts[2, :4] += [
            pairs.sum(),
            (pairs & ~both_long).sum(),
            (pairs & both_long & ~both_ok).sum(),
            (pairs & both_ok & ~varied).sum(),
        ]
        q, a = np.nonzero(pairs & both_ok & varied)
        # Distractors: the valid sentences sharing an SCU with neither, most word-
        # overlapping (Jaccard) with the answer or the question first.
        union = sizes[:, None] + sizes[None, :] - shared
        jaccard = np.where(union > 0, shared / np.maximum(union, 1), 0.0)
        similarity = jaccard[a if distractors == "answer" else q]
        eligible = ~shared_scu[q] & ~shared_scu[a] & (ok & ~is_label[members])[None, :]
        ranked = np.argsort(np.where(eligible, -similarity, np.inf), axis=1, kind="stable")
        top = ranked[:, :n_distractors]
        enough = eligible.sum(axis=1) >= n_distractors
        counts[2, 4] += int((~enough).sum())
        question.append(members[q[enough]])
        answer.append(members[a[enough]])
        chosen.append(members[top[enough]])
        overlap.append(np.take_along_axis(similarity[enough], top[enough], axis=1))

    if negatives == "across-pyramids":
        across = _negatives_across(
            pyramid_of,
            word_counts,
            negative_overlap,
            min_shared_negative,
            long_enough,
            valid,
            is_label,
            items,
        )
        counts[1, :4] += across[0]
        first.append(across[1])
        second.append(across[2])
        label.append(np.zeros(len(across[1]), dtype=np.int64))
        subset.extend(
            f"{pyramids[pyramid_of[i]]}|{pyramids[pyramid_of[j]]}"
            for i, j in zip(across[1].tolist(), across[2].tolist())
        )

    no_pronoun = "a sentence contains a pronoun"
    too_short = f"a sentence has fewer than {min_words} words"
    contributor = ~is_label
    funnels = (
        Funnel(
            "contributors",
            n,
            (
                (f"fewer than {min_words} words", int((~long_enough & contributor).sum())),
                ("contains a pronoun", int((long_enough & ~pronoun_free & contributor).sum())),
            ),
        ),
        *(
            (
                Funnel(
                    "SCU labels",
                    m,
                    (
                        (f"fewer than {min_words} words", int((~long_enough & is_label).sum())),
                        ("contains a pronoun", int((long_enough & ~pronoun_free & is_label).sum())),
                    ),
                ),
            )
            if m
            else ()
        ),
        Funnel(
            "positive pairs",
            int(counts[0, 0]),
            (
                (too_short, int(counts[0, 1])),
                (no_pronoun, int(counts[0, 2])),
                ("no content word differs", int(counts[0, 3])),
            ),
        ),
        Funnel(
            "negative pairs",
            int(counts[1, 0]),
            (
                (too_short, int(counts[1, 1])),
                (no_pronoun, int(counts[1, 2])),
                (
                    f"share fewer than {min_shared_negative} words "
                    f"({NEGATIVE_OVERLAP[negative_overlap]})"
                    if negatives != "no-overlap-filter"
                    else "no shared-word filter",
                    int(counts[1, 3]),
                ),
            ),
        ),
        Funnel(
            "ranking questions",
            int(counts[2, 0]),
            (
                (too_short, int(counts[2, 1])),
                (no_pronoun, int(counts[2, 2])),
                ("no content word differs from the answer", int(counts[2, 3])),
                (f"fewer than {n_distractors} distractors", int(counts[2, 4])),
            ),
        ),
    )
    n_pairs = sum(map(len, first))
    return PyramidTests(
        pairs=PairTable(
            first=np.concatenate(first),
            second=np.concatenate(second),
            label=np.concatenate(label),
            score=np.full(n_pairs, np.nan),
            split=("test",) * n_pairs,
            subset=tuple(subset),
        ),
        question=np.concatenate(question),
        answer=np.concatenate(answer),
        distractors=np.concatenate(chosen).reshape(-1, n_distractors),
        distractor_overlap=np.concatenate(overlap).reshape(-1, n_distractors),
        funnels=funnels,
        parameters={
            "min_words": min_words,
            "min_shared_negative": min_shared_negative,
            "n_distractors": n_distractors,
            "distractors": distractors,
            "negative_overlap": negative_overlap,
            "items": items,
            "negatives": negatives,
        },
        label_texts=tuple(label_texts),
        label_ids=tuple(label_ids),
    )
