"""The state a journal's records give, built record by record.

Records replay in file order (the order the journal's lock gave the writers):

- an edit goes into effect, played onto the corpus as its author may not have seen it
  (:meth:`~sentspace.app.annotations.edits.Working.replay`: a stale "before" is a conflict, the
  later edit applying where it still fits, skipped where it does not);
- ``undo X`` takes edit X out of effect: the corpus is replayed without it, so edits
  after X that relied on it may now conflict, and are listed;
- ``redo X`` puts X back into effect *at that point*, played onto the state as it is
  then (it may conflict with what others did meanwhile).

An undo of an edit not in effect, or a redo of one in effect, changes nothing and is
listed.

A resolution (:class:`~sentspace.app.annotations.edits.ResolveConflict`) is an edit like any
other (its author's undo takes it back): while it is in effect, the edits it overrules
are out of effect (the corpus replays without them, as after an undo, but they stay on
their authors' stacks: undoing the resolution puts them back where they were), and the
conflicts among the records it settles are no longer listed. Each author has an undo stack (their edits in effect, latest (re)applied last)
and a redo stack (their undone edits, cleared by their next edit), so one person's undo
never takes back another's edit; two windows with the same author share one.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from sentspace.app.annotations.edits import Conflict, Edit, ResolveConflict, Working
from sentspace.app.annotations.journal import Record, StackRecord
from sentspace.app.corpora.model import Corpus


class History:
    """Edits in effect, undo/redo stacks per author, conflicts and the corrected corpus
    of ``original`` after the records fed so far.

    Attributes
    ----------
    edits : list of Edit
        The edits in effect, in the order they (re)applied.
    by_id : dict of str to Edit
        Every edit fed, in effect or not.
    """

    def __init__(self, original: Corpus):
        self.original = original
        self.edits: list[Edit] = []
        self._in_effect: set[str] = set()
        self.by_id: dict[str, Edit] = {}
        self._done: dict[str, list[str]] = {}
        self._undone: dict[str, list[str]] = {}
        self._stack_conflicts: list[Conflict] = []
        self._working = Working(original)
        self._played: list[Conflict] = []
        self._stale = False  # an undo took an edit from the middle: replay from the start
        self._corpus: Corpus | None = original
        #: When each edit in effect last went into effect (self.edits is in this order).
        self._rank: dict[str, int] = {}
        self._entered = 0
        #: Edit id -> the id of the resolution in effect that overruled it.
        self._overruled: dict[str, str] = {}

    def feed(self, records: Iterable[Record]) -> None:
        for record in records:
            if isinstance(record, StackRecord):
                self._stack(record)
                continue
            self.by_id[record.id] = record
            self._enter(record)
            self._done.setdefault(record.author, []).append(record.id)
            self._undone.pop(record.author, None)
            self._play(record)
            if isinstance(record, ResolveConflict):
                self._overrule(record)

    def _enter(self, edit: Edit) -> None:
        """Put ``edit`` into effect, after every edit in effect."""
        self._entered += 1
        self._rank[edit.id] = self._entered
        self.edits.append(edit)
        self._in_effect.add(edit.id)

    def _leave(self, edit: Edit) -> None:
        self.edits.remove(edit)
        self._in_effect.discard(edit.id)
        self._stale = True
        self._corpus = None

    def _overrule(self, resolution: ResolveConflict) -> None:
        """Take the edits ``resolution`` overrules out of effect."""
        for edit_id in resolution.settles:
            if edit_id != resolution.stands and edit_id in self._in_effect:
                self._leave(self.by_id[edit_id])
                self._overruled[edit_id] = resolution.id

    def _reinstate(self, resolution: ResolveConflict) -> None:
        """Put back the edits ``resolution`` overruled, where they were."""
        for edit_id in [e for e, by in self._overruled.items() if by == resolution.id]:
            del self._overruled[edit_id]
            edit = self.by_id[edit_id]
            ranks = [self._rank[e.id] for e in self.edits]
            self.edits.insert(bisect.bisect(ranks, self._rank[edit_id]), edit)
            self._in_effect.add(edit_id)
            self._stale = True
            self._corpus = None

    def _stack(self, record: StackRecord) -> None:
        edit = self.by_id[record.edit]
        in_effect = edit.id in self._in_effect
        if (record.op == "undo") != in_effect:
            self._stack_conflicts.append(
                Conflict(
                    record,
                    (
                        f"{edit.describe()} was {'not ' if record.op == 'undo' else ''}in effect "
                        "already"
                    ),
                    applied=False,
                    against=edit,
                )
            )
            return
        done = self._done.setdefault(edit.author, [])
        undone = self._undone.setdefault(edit.author, [])
        if record.op == "undo":
            self._leave(edit)
            if edit.id in done:
                done.remove(edit.id)
            undone.append(edit.id)
            if isinstance(edit, ResolveConflict):
                self._reinstate(edit)
        else:
            if edit.id in undone:
                undone.remove(edit.id)
            done.append(edit.id)
            self._enter(edit)
            self._play(edit)
            if isinstance(edit, ResolveConflict):
                self._overrule(edit)

    def _play(self, edit: Edit) -> None:
        if self._stale:
            return
        conflict = self._working.replay(edit)
        if conflict is not None:
            self._played.append(conflict)
        if edit.changes_corpus:
            self._corpus = None

    def _settle(self) -> None:
        if self._stale:
            self._working, self._played, self._stale = Working(self.original), [], False
            for edit in self.edits:
                self._play(edit)

    @property
    def corpus(self) -> Corpus:
        """The corrected corpus."""
        self._settle()
        if self._corpus is None:
            self._corpus = self._working.corpus_now(self._working.applied)
        return self._corpus

    @property
    def conflicts(self) -> list[Conflict]:
        """The conflicts of the edits in effect (in the order they played), then the
        undo/redo records that found nothing to do; those a resolution in effect
        settles are left out."""
        self._settle()
        settled = {
            record_id
            for edit in self.edits
            if isinstance(edit, ResolveConflict)
            for record_id in edit.settles
        }
        return [
            conflict
            for conflict in [*self._played, *self._stack_conflicts]
            if not (
                conflict.record.id in settled
                and (conflict.against is None or conflict.against.id in settled)
            )
        ]

    @property
    def overruled(self) -> dict[str, str]:
        """The edits out of effect because a resolution in effect overruled them: edit
        id -> the resolution's id."""
        return dict(self._overruled)

    @property
    def decided(self) -> list[Edit]:
        """What each author decided: the edits in effect and those a resolution
        overruled, in the order they went into effect (agreement is measured on it)."""
        return sorted(
            [*self.edits, *(self.by_id[e] for e in self._overruled)],
            key=lambda edit: self._rank[edit.id],
        )

    def undo_target(self, author: str) -> Edit | None:
        """``author``'s latest edit in effect: what their undo takes back (an edit a
        resolution overruled is not in effect: the one before it is)."""
        for edit_id in reversed(self._done.get(author, ())):
            if edit_id in self._in_effect:
                return self.by_id[edit_id]
        return None

    def redo_target(self, author: str) -> Edit | None:
        """``author``'s latest undone edit, unless they edited since."""
        undone = self._undone.get(author)
        return self.by_id[undone[-1]] if undone else None
