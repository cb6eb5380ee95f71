"""Corrections to a corpus's annotations, as small immutable records.

Every edit says who made it, when and why, names sentences by id and groups by name (so
it reads the same in a journal, a change log and a review), and keeps the value it
replaces where it replaces one. :func:`apply` plays a sequence of edits onto a corpus and
returns a new :class:`~sentspace.app.corpora.model.Corpus`; the original is never touched. An edit
that does not fit the corpus (a sentence not in the group it is said to leave, a group
that does not exist) raises :class:`EditError` and changes nothing.

Each edit has an ``id`` (a uuid4 hex) that undo and redo records name. When several
people edit one corpus, an edit can meet a state its author did not see;
:func:`replay_edits` plays edits leniently and lists such meetings as :class:`Conflict`
(see :meth:`Working.replay` for the rules).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import getpass
import math
import uuid
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from sentspace.app.base.errors import InputError
from sentspace.app.base.schema import SchemaError, build, describe, finite
from sentspace.app.corpora.model import Corpus, Grouping, label_text

#: Kind of the grouping created when a corpus without groups gets its first one.
NEW_GROUPING_KIND = "group"


class EditError(InputError):
    """An edit does not fit the corpus it is applied to."""


def now() -> str:
    """The current UTC time as ISO 8601 with seconds, as every record stores it."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def new_id() -> str:
    return uuid.uuid4().hex


def current_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name in some containers
        return "unknown"


@dataclass(frozen=True, kw_only=True)
class Edit:
    """What every edit records besides its change: ``author``, ``time`` (ISO 8601 UTC),
    ``reason`` (free text, may be empty) and ``id`` (unique; undo and redo name it)."""

    op: ClassVar[str]
    #: Whether the edit changes the corpus (review marks and notes do not).
    changes_corpus: ClassVar[bool] = True

    author: str = dataclasses.field(default_factory=current_user)
    time: str = dataclasses.field(default_factory=now)
    reason: str = ""
    id: str = dataclasses.field(default_factory=new_id)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict with an ``"op"`` key that :func:`edit_from_dict` reads."""
        return {
            "op": self.op,
            **{f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)},
        }

    def describe(self) -> str:
        """What the edit does, in one line for a change log."""
        raise NotImplementedError


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@dataclass(frozen=True, kw_only=True)
class MoveSentence(Edit):
    """Move ``sentence`` out of group ``source`` (None: it was in no group) into group
    ``target``, which is created when no group has that name."""

    op: ClassVar[str] = "move"
    sentence: str
    source: str | None
    target: str

    def describe(self) -> str:
        return f"move {self.sentence} from {self.source or 'no group'} to {self.target}"


@dataclass(frozen=True, kw_only=True)
class SplitGroup(Edit):
    """Move ``members`` (sentence ids) of ``group`` into the new group ``target``."""

    op: ClassVar[str] = "split"
    group: str
    members: tuple[str, ...]
    target: str

    def describe(self) -> str:
        return f"split {', '.join(self.members)} off {self.group} into {self.target}"


@dataclass(frozen=True, kw_only=True)
class MergeGroups(Edit):
    """Merge ``groups`` into ``target`` (one of them); the others disappear."""

    op: ClassVar[str] = "merge"
    groups: tuple[str, ...]
    target: str

    def describe(self) -> str:
        return f"merge {', '.join(self.groups)} into {self.target}"


@dataclass(frozen=True, kw_only=True)
class EditPair(Edit):
    """Set the gold ``score`` and/or ``label`` of pair ``pair`` (index into
    ``Corpus.pairs``); None leaves a field as it is. ``old_score`` / ``old_label`` are
    the values replaced (None for an unscored pair's NaN). ``pair_id`` (the dataset's id
    of the pair) and ``label_names`` are for the change log, which names, not numbers,
    what changed."""

    op: ClassVar[str] = "pair"
    pair: int
    score: float | None = None
    label: int | None = None
    old_score: float | None = None
    old_label: int | None = None
    pair_id: str = ""
    label_names: tuple[str, ...] = ()

    def describe(self) -> str:
        changes = []
        if self.score is not None:
            changes.append(f"score {self.old_score} -> {self.score}")
        if self.label is not None:
            old = self.old_label if self.old_label is not None else -1
            changes.append(
                f"label {label_text(old, self.label_names)} -> "
                f"{label_text(self.label, self.label_names)}"
            )
        return f"pair {self.pair_id or self.pair}: {', '.join(changes)}"


@dataclass(frozen=True, kw_only=True)
class MarkReviewed(Edit):
    """Record that a suspicious item (a :meth:`ReviewList.key`) was looked at.

    ``group``: for a sentence, the group it was in as its reviewer saw it (the mark
    affirms it there); replayed where the sentence has left that group meanwhile
    (another writer's move the reviewer had not seen), the mark is a conflict."""

    op: ClassVar[str] = "reviewed"
    changes_corpus: ClassVar[bool] = False
    item: str
    group: str | None = None

    def describe(self) -> str:
        return f"reviewed {self.item}"


@dataclass(frozen=True, kw_only=True)
class AddNote(Edit):
    """Attach a free-text note to an item (a sentence, group, pair or comparison key)."""

    op: ClassVar[str] = "note"
    changes_corpus: ClassVar[bool] = False
    item: str
    text: str

    def describe(self) -> str:
        return f"note on {self.item}: {self.text}"


@dataclass(frozen=True, kw_only=True)
class ResolveConflict(Edit):
    """Settle a conflict: the decision whose id is ``stands`` stays in effect and the
    other edits of ``settles`` (the records in conflict) are overruled, taken out of
    effect as long as this resolution is (undoing it puts them back); ``stands`` ""
    overrules them all, or, for a conflict of undo/redo records (nothing to overrule),
    acknowledges it. The ``reason`` is required. ``items`` (review-list keys) and
    ``decision`` (what stands, in words) are for the change log and the Review panel."""

    op: ClassVar[str] = "resolve"
    changes_corpus: ClassVar[bool] = False
    settles: tuple[str, ...]
    stands: str = ""
    items: tuple[str, ...] = ()
    decision: str = ""

    def describe(self) -> str:
        return f"resolve the conflict on {', '.join(self.items) or 'an item'}: {self.decision}"


EDIT_TYPES: dict[str, type[Edit]] = {
    cls.op: cls
    for cls in (
        MoveSentence,
        SplitGroup,
        MergeGroups,
        EditPair,
        MarkReviewed,
        AddNote,
        ResolveConflict,
    )
}


def check_stamp(record: Edit | Any) -> None:
    """What every record must hold besides its types: an id (undo, redo and merging
    name records by it)."""
    if not record.id:
        raise SchemaError("id", "should not be empty")


def edit_from_dict(record: dict[str, Any]) -> Edit:
    """The edit a :meth:`Edit.to_dict` record describes, checked against its class's
    fields (:mod:`sentspace.app.base.schema`): every field of its type, scores finite.

    Raises
    ------
    EditError
        Unknown ``op``, fields missing, unknown or of the wrong type; the problem names
        the field.
    """
    if not isinstance(record, dict):
        raise EditError(f"expected an object, found {describe(record)}")
    record = dict(record)
    op = record.pop("op", None)
    cls = EDIT_TYPES.get(op) if isinstance(op, str) else None
    if cls is None:
        raise EditError(f"op: unknown edit {describe(op)} (known: {', '.join(EDIT_TYPES)})")
    try:
        edit = build(cls, record)
        check_stamp(edit)
        if isinstance(edit, EditPair):
            finite(edit.score, "score")
            finite(edit.old_score, "old_score")
    except SchemaError as error:
        raise EditError(f"malformed {cls.op} edit: {error}") from None
    return edit


@dataclass(frozen=True)
class Conflict:
    """An edit (or undo/redo record) that met a state its author did not see.

    ``problem`` says what was found; ``applied``: whether it still took effect (the
    later edit wins) or was skipped; ``against``: the edit in effect that last changed
    what it concerns (whose author to show), None when no edit did.
    """

    record: Any
    problem: str
    applied: bool
    against: Edit | None = None

    def describe(self) -> str:
        what = getattr(self.record, "describe", lambda: self.record.op)()
        after = (
            f" (after {self.against.author}'s {self.against.describe()})"
            if self.against is not None
            else ""
        )
        return (
            f"{self.record.author}'s {what}: {self.problem}{after}; "
            f"{'applied anyway' if self.applied else 'skipped'}"
        )


def _same(recorded: float | int | None, current: float | int) -> bool:
    """Whether a recorded value equals the current one (None: NaN for a score, -1 for
    a label; scores compare to float32 precision)."""
    if recorded is None:
        return current != current or current == -1
    return math.isclose(recorded, current, rel_tol=1e-6)


def new_group_name(corpus: Corpus, taken: tuple[str, ...] = ()) -> str:
    """A group name no group of ``corpus`` (nor ``taken``) has: the next integer when
    every name is one (so grouped corpora export as they were), else ``"new-N"``."""
    names = set(corpus.groups.names if corpus.groups is not None else ()) | set(taken)
    if all(name.isdigit() for name in names):
        return str(max((int(name) for name in names), default=-1) + 1)
    number = 1
    while f"new-{number}" in names:
        number += 1
    return f"new-{number}"


class Working:
    """A mutable copy of a corpus's annotations that edits are played onto."""

    def __init__(self, corpus: Corpus):
        self.corpus = corpus
        groups = corpus.groups
        self.kind = groups.kind if groups is not None else NEW_GROUPING_KIND
        self.sentence = (
            groups.sentence_index.copy() if groups is not None else np.empty(0, dtype=np.int64)
        )
        self.group = (
            groups.group_index.copy() if groups is not None else np.empty(0, dtype=np.int64)
        )
        self.names = list(groups.names) if groups is not None else []
        self.group_of_name = {name: g for g, name in enumerate(self.names)}
        self.pairs = corpus.pairs
        self.label = corpus.pairs.label.copy() if corpus.pairs is not None else None
        self.score = corpus.pairs.score.copy() if corpus.pairs is not None else None
        self.changed_groups = self.changed_pairs = False
        self._sentence_of_id: dict[str, int] | None = None
        #: Item key ("sentence:L1", "group:5", "pair:3") -> (order, the edit that last
        #: changed it), to name the other side of a conflict.
        self.last: dict[str, tuple[int, Edit]] = {}
        self.applied = 0

    def sentence_of(self, sentence_id: str) -> int:
        if self._sentence_of_id is None:
            self._sentence_of_id = {id_: i for i, id_ in enumerate(self.corpus.ids)}
        try:
            return self._sentence_of_id[sentence_id]
        except KeyError:
            raise EditError(f"no sentence has the id {sentence_id!r}") from None

    def existing_group(self, name: str) -> int:
        try:
            return self.group_of_name[name]
        except KeyError:
            raise EditError(f"no {self.kind} is named {name!r}") from None

    def group_for(self, name: str) -> int:
        """The group named ``name``, created (empty) when there is none."""
        if name not in self.group_of_name:
            self.group_of_name[name] = len(self.names)
            self.names.append(name)
        return self.group_of_name[name]

    def join(self, rows: np.ndarray, target: int) -> None:
        """Reassign membership ``rows`` to group ``target``; a sentence already in
        ``target`` keeps its one membership."""
        self.group[rows] = target
        keys = self.sentence * len(self.names) + self.group
        _, first = np.unique(keys, return_index=True)
        keep = np.zeros(len(keys), dtype=bool)
        keep[first] = True
        self.sentence, self.group = self.sentence[keep], self.group[keep]
        self.changed_groups = True

    def check(self, edit: Edit) -> None:
        """Refuse values this corpus cannot hold, whoever recorded them: a sentence or
        pair it does not have (also in a review mark's or note's item), a label outside
        its label set, a score outside the range of its scores."""
        if isinstance(edit, (MarkReviewed, AddNote)):
            kind, _, name = edit.item.partition(":")
            if kind == "sentence":
                self.sentence_of(name)
            elif kind == "pair" and not (
                name.isdigit() and self.pairs is not None and int(name) < len(self.pairs)
            ):
                raise EditError(f"no pair {name}")
        if not isinstance(edit, EditPair):
            return
        if self.pairs is None or not 0 <= edit.pair < len(self.pairs):
            raise EditError(f"no pair {edit.pair}")
        if edit.label is not None and edit.label not in self.labels:
            known = ", ".join(
                f"{label} {label_text(label, self.pairs.label_names)}"
                for label in sorted(self.labels)
            )
            raise EditError(f"label {edit.label} is not a label of this corpus ({known})")
        if edit.score is not None:
            scored = self.pairs.score[np.isfinite(self.pairs.score)]
            if not len(scored):
                raise EditError("this corpus's pairs have no scores to correct")
            low, high = float(scored.min()), float(scored.max())
            if not low <= edit.score <= high:
                raise EditError(
                    f"score {edit.score:g} is outside this corpus's scores ({low:g} to {high:g})"
                )

    @functools.cached_property
    def labels(self) -> set[int]:
        """The labels a pair may have: one per label name, else a paraphrase judgement
        (0, 1) or a number the corpus uses."""
        pairs = self.pairs
        assert pairs is not None, "asked only of a corpus with pairs"
        if pairs.label_names:
            return set(range(len(pairs.label_names)))
        return {0, 1} | set(np.unique(pairs.label[pairs.label >= 0]).tolist())

    def play(self, edit: Edit) -> None:
        self.check(edit)
        keys = self._keys(edit)
        if isinstance(edit, MergeGroups):  # its sentences change group too
            merged = np.isin(self.group, [self.group_of_name.get(n, -1) for n in edit.groups])
            keys += [f"sentence:{self.corpus.ids[s]}" for s in self.sentence[merged].tolist()]
        self._play(edit)
        if edit.changes_corpus:
            self._changed(edit, keys)

    def _play(self, edit: Edit) -> None:
        if isinstance(edit, MoveSentence):
            sentence = self.sentence_of(edit.sentence)
            target = self.group_for(edit.target)
            if edit.source is None:
                if np.any(self.sentence == sentence):
                    raise EditError(
                        f"{edit.sentence} is in a {self.kind} already; say which one it leaves"
                    )
                self.sentence = np.append(self.sentence, sentence)
                self.group = np.append(self.group, target)
                self.changed_groups = True
                return
            source = self.existing_group(edit.source)
            rows = np.flatnonzero((self.sentence == sentence) & (self.group == source))
            if len(rows) == 0:
                raise EditError(f"{edit.sentence} is not in {self.kind} {edit.source}")
            self.join(rows, target)
        elif isinstance(edit, SplitGroup):
            group = self.existing_group(edit.group)
            if edit.target in self.group_of_name:
                raise EditError(f"a {self.kind} named {edit.target!r} exists already")
            members = np.asarray([self.sentence_of(m) for m in edit.members], dtype=np.int64)
            rows = np.flatnonzero((self.group == group) & np.isin(self.sentence, members))
            if len(rows) != len(set(edit.members)) or len(rows) == 0:
                raise EditError(f"not every sentence to split off is in {self.kind} {edit.group}")
            self.join(rows, self.group_for(edit.target))
        elif isinstance(edit, MergeGroups):
            if edit.target not in edit.groups or len(set(edit.groups)) < 2:
                raise EditError("a merge needs two or more groups, the target among them")
            merged = [self.existing_group(name) for name in edit.groups]
            self.join(np.flatnonzero(np.isin(self.group, merged)), self.existing_group(edit.target))
        elif isinstance(edit, EditPair):
            assert self.score is not None and self.label is not None, "checked: pairs"
            if edit.score is not None:
                self.score[edit.pair] = edit.score
            if edit.label is not None:
                self.label[edit.pair] = edit.label
            self.changed_pairs = True

    def replay(self, edit: Edit) -> Conflict | None:
        """Play ``edit`` as recorded by someone who may not have seen the current state.

        An edit whose recorded "before" no longer holds is a conflict: a move whose
        sentence is no longer in ``source`` (nor already in ``target``) still moves it
        from the one group it is in now; a pair edit whose ``old_score`` / ``old_label``
        differ from the current value (and its new value too) still sets it. An edit
        that does not fit at all (a group gone, a split whose members left, a sentence in
        several groups) is skipped. Both are returned as a :class:`Conflict`; nothing
        raises.
        """
        # The other side: the edit that last changed the sentence or pair itself, else
        # the last to change a group it concerns.
        keys = self._keys(edit)
        against = None
        for candidates in ([k for k in keys if k.startswith(("sentence:", "pair:"))], keys):
            against = max(
                (self.last[key] for key in candidates if key in self.last),
                default=(0, None),
                key=lambda entry: entry[0],
            )[1]
            if against is not None:
                break
        problem, recorded = "", edit
        try:
            if isinstance(edit, MoveSentence):
                now_in = [
                    self.names[g]
                    for g in self.group[self.sentence == self.sentence_of(edit.sentence)]
                ]
                expected = [edit.source] if edit.source is not None else []
                if edit.target in now_in and edit.source not in now_in:
                    return None  # already where this edit puts it: no disagreement
                if now_in != expected and edit.source not in now_in:
                    problem = (
                        f"{edit.sentence} was in {edit.source or 'no ' + self.kind} "
                        f"and is now in {', '.join(now_in) or 'no ' + self.kind}"
                    )
                    if len(now_in) > 1:
                        raise EditError(problem)
                    edit = dataclasses.replace(edit, source=now_in[0] if now_in else None)
            elif isinstance(edit, MarkReviewed) and edit.group is not None:
                sentence = self.sentence_of(edit.item.removeprefix("sentence:"))
                now_in = [self.names[g] for g in self.group[self.sentence == sentence]]
                if edit.group not in now_in:
                    problem = (
                        f"{edit.item.removeprefix('sentence:')} was in "
                        f"{edit.group} when reviewed and is now in "
                        f"{', '.join(now_in) or 'no ' + self.kind}"
                    )
            elif (
                isinstance(edit, EditPair)
                and self.pairs is not None
                and (0 <= edit.pair < len(self.pairs))
            ):
                assert self.score is not None and self.label is not None, "the corpus's"
                stale = []
                if (
                    edit.score is not None
                    and not _same(edit.old_score, self.score[edit.pair])
                    and not _same(edit.score, self.score[edit.pair])
                ):
                    stale.append(f"score was {edit.old_score}, is {self.score[edit.pair]}")
                if (
                    edit.label is not None
                    and edit.old_label is not None
                    and not _same(edit.old_label, self.label[edit.pair])
                    and not _same(edit.label, self.label[edit.pair])
                ):
                    stale.append(
                        f"label was {label_text(edit.old_label, edit.label_names)}, "
                        f"is {label_text(self.label[edit.pair], edit.label_names)}"
                    )
                problem = "; ".join(stale)
            self.play(edit)
        except EditError as error:
            return Conflict(recorded, error.problem, applied=False, against=against)
        return Conflict(recorded, problem, applied=True, against=against) if problem else None

    def _keys(self, edit: Edit) -> list[str]:
        """The items ``edit`` concerns, as keys of :attr:`last`."""
        if isinstance(edit, MoveSentence):
            return [
                f"sentence:{edit.sentence}",
                f"group:{edit.target}",
                *([f"group:{edit.source}"] if edit.source is not None else []),
            ]
        if isinstance(edit, SplitGroup):
            return [
                f"group:{edit.group}",
                f"group:{edit.target}",
                *(f"sentence:{m}" for m in edit.members),
            ]
        if isinstance(edit, MergeGroups):
            return [f"group:{name}" for name in edit.groups]
        if isinstance(edit, EditPair):
            return [f"pair:{edit.pair}"]
        if isinstance(edit, MarkReviewed) and edit.group is not None:
            return [edit.item, f"group:{edit.group}"]
        return []

    def _changed(self, edit: Edit, keys: list[str]) -> None:
        self.applied += edit.changes_corpus
        for key in keys:
            self.last[key] = (self.applied, edit)

    def corpus_now(self, edits: int) -> Corpus:
        """The corpus as the edits left it; ``edits`` of them changed it."""
        changes: dict[str, Any] = {}
        if self.changed_groups:
            # Groups left empty disappear; the rest keep their order, new ones last.
            used = np.zeros(len(self.names), dtype=bool)
            used[self.group] = True
            renumber = np.cumsum(used) - 1
            changes["groups"] = Grouping(
                kind=self.kind,
                sentence_index=self.sentence,
                group_index=renumber[self.group],
                names=tuple(name for name, u in zip(self.names, used) if u),
            )
        if self.changed_pairs:
            assert self.pairs is not None and self.label is not None and self.score is not None
            # replace() keeps what edits do not touch: label names, the dataset's ids.
            # Copies: the table freezes its arrays, and a History plays on after this.
            changes["pairs"] = dataclasses.replace(
                self.pairs, label=self.label.copy(), score=self.score.copy()
            )
        if not changes:
            return self.corpus
        return dataclasses.replace(self.corpus, **changes, edits=self.corpus.edits + edits)


def apply(corpus: Corpus, edits: list[Edit] | tuple[Edit, ...]) -> Corpus:
    """``corpus`` with ``edits`` played in order; a new Corpus (the same object when no
    edit changes it).

    Raises
    ------
    EditError
        An edit does not fit the corpus as the earlier edits left it; the message says
        which edit (1-based) and why.
    """
    working = Working(corpus)
    for number, edit in enumerate(edits, start=1):
        try:
            working.play(edit)
        except EditError as error:
            raise EditError(f"edit {number} ({edit.describe()}): {error.problem}") from None
    return working.corpus_now(sum(edit.changes_corpus for edit in edits))


def replay_edits(
    corpus: Corpus, edits: list[Edit] | tuple[Edit, ...]
) -> tuple[Corpus, list[Conflict]]:
    """``corpus`` with ``edits`` replayed leniently (:meth:`Working.replay`), and the
    conflicts met, in order; never raises for an edit that does not fit."""
    working = Working(corpus)
    conflicts = [c for c in map(working.replay, edits) if c is not None]
    return working.corpus_now(working.applied), conflicts
