"""One linguist's correction session on one corpus: edits, undo/redo, the journal.

:class:`AnnotationSession` is what the review panel calls. Every method that edits
takes the journal's lock, reads what other writers appended, validates the edit against
that fresh state, journals it (durably), then updates the state; an edit that no longer
fits raises :class:`~sentspace.app.annotations.edits.EditError` and is neither journaled nor
applied. An edit made on a stale view (its "before" no longer holds) is journaled, takes
effect, and is listed in :attr:`AnnotationSession.conflicts`. Opening a session replays
the journal, so closing and reopening the app loses nothing; :meth:`refresh` replays
what other writers appended since, for a window that follows the file live.

An edit that cannot be journaled now (a full disk, the journal's folder gone: the
journal raises :class:`~sentspace.app.annotations.journal.JournalUnavailable` and leaves
the file as it was) is not applied: the session's state stays what the journal holds,
and the edit is kept in :attr:`AnnotationSession.pending` with the reason.
:meth:`AnnotationSession.save_pending` writes the kept edits in the order they were made
(the next edit, undo or redo tries that first); :meth:`discard_pending` drops them.
The kept edits are also written to this session's own recovery file outside the
journal's folder (:class:`~sentspace.app.annotations.recovery.KeptEdits`, in the user's
data folder, by journal id and writer), so when a session ends before they are saved
(the app killed, the machine off) the next session on that journal finds them kept
again; a live session's kept edits are never taken by another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from sentspace.app.annotations.edits import (
    AddNote,
    Conflict,
    Edit,
    EditError,
    EditPair,
    MarkReviewed,
    MergeGroups,
    MoveSentence,
    ResolveConflict,
    SplitGroup,
    apply,
    current_user,
    new_group_name,
    replay_edits,
)
from sentspace.app.annotations.export import FORMATS, export_all
from sentspace.app.annotations.history import History
from sentspace.app.annotations.journal import (
    EditJournal,
    JournalUnavailable,
    Record,
    StackRecord,
    journal_path,
)
from sentspace.app.annotations.recovery import Kept, KeptEdits
from sentspace.app.corpora.model import Corpus


def item_keys(edit: Edit) -> tuple[str, ...]:
    """The review-list keys (:meth:`ReviewList.key`) an edit decides."""
    if isinstance(edit, (MarkReviewed, AddNote)):
        return (edit.item,)
    if isinstance(edit, MoveSentence):
        return (f"sentence:{edit.sentence}",)
    if isinstance(edit, SplitGroup):
        return (f"group:{edit.group}", *(f"sentence:{member}" for member in edit.members))
    if isinstance(edit, MergeGroups):
        return tuple(f"group:{group}" for group in edit.groups)
    if isinstance(edit, EditPair):
        return (f"pair:{edit.pair}",)
    if isinstance(edit, ResolveConflict):
        return edit.items
    return ()


def conflict_items(conflict: Conflict) -> tuple[str, ...]:
    """The review-list keys a conflict is about: those its record and the edit it met
    decide (an undo/redo record: the edit it names)."""
    keys = [
        key
        for edit in (conflict.record, conflict.against)
        if isinstance(edit, Edit)
        for key in item_keys(edit)
    ]
    return tuple(dict.fromkeys(keys))


def decisions_of(conflict: Conflict) -> list[Edit]:
    """The competing decisions of a conflict, the earlier first: the edit it met (when
    one did) and its own record (when an edit); one of them may stand."""
    return [edit for edit in (conflict.against, conflict.record) if isinstance(edit, Edit)]


def same_conflict(a: Conflict, b: Conflict) -> bool:
    """Whether two conflicts are the same meeting of the same records (a conflict is
    found again, as a new object, on every replay)."""
    return a.record.id == b.record.id and (a.against.id if a.against else None) == (
        b.against.id if b.against else None
    )


@dataclass(frozen=True)
class Changes:
    """What other writers appended to the journal since the last :meth:`refresh`.

    ``records``: their edits and undo/redo records, in journal order; ``conflicts``: the
    conflicts in effect now that were not before.
    """

    records: tuple[Record, ...]
    conflicts: tuple[Conflict, ...]
    corpus_changed: bool

    def __bool__(self) -> bool:
        return bool(self.records)

    @property
    def authors(self) -> list[str]:
        return sorted({record.author for record in self.records})


#: Why a kept edit restored from the recovery file was not saved.
RESTORED = "kept from a session that ended before they could be saved"


@dataclass(frozen=True)
class Pending:
    """An edit made while the journal could not be written: not in effect, kept until
    it is saved or discarded. ``view`` is the corrected corpus as the window showed it
    (the edit is checked against it again when saved), ``reason`` why the last try
    failed, ``new_target`` whether its target names a new group (named afresh when
    saved if another writer took the name meanwhile)."""

    edit: Edit
    view: Corpus
    reason: str
    new_target: bool = False


@dataclass(frozen=True)
class Saved:
    """What :meth:`AnnotationSession.save_pending` did: the edits it wrote, those it
    dropped because they no longer fit (with why), and the error that stopped it (the
    rest stay pending) or None."""

    saved: tuple[Edit, ...] = ()
    dropped: tuple[tuple[Edit, str], ...] = ()
    error: JournalUnavailable | None = None


class AnnotationSession:
    """The original corpus, its journal, and the corrected corpus the edits give.

    Parameters
    ----------
    original : the corpus as loaded.
    journal : its open journal; its records are replayed.
    author : recorded on every edit; the login name by default.

    Attributes
    ----------
    corpus : Corpus
        The corrected corpus: ``apply(original, edits)``.
    edits : list of Edit
        The edits in effect, oldest first.
    pending : list of Pending
        Edits not saved yet (the journal could not be written), oldest first; not in
        effect.
    dropped : list of (Edit, str)
        Kept edits that no longer fitted when saved, with why; the window says so and
        clears it.
    kept : KeptEdits
        This session's recovery file, mirroring :attr:`pending`.
    warnings : list of str
        What opening found to tell the user: a torn line set aside, kept edits of an
        earlier journal at this path set aside in a file of their own.
    """

    def __init__(self, original: Corpus, journal: EditJournal, author: str | None = None):
        self.original = original
        self.journal = journal
        self.author = author or current_user()
        self.history = History(original)
        self.history.feed(journal.records)
        self._fed = len(journal.records)
        self._own: set[str] = set()  # ids this session wrote
        self._unreported: list[Record] = []  # read from others, not yet refreshed
        self._reported_conflicts = set(map(_conflict_key, self.history.conflicts))
        self._reported_corpus = self.history.corpus
        self.kept = KeptEdits(journal, self.author)
        adopted = self.kept.adopt()
        self.pending = [
            Pending(item.edit, self.corpus, RESTORED, item.new_target) for item in adopted.kept
        ]
        self._own.update(item.edit.id for item in self.pending)
        self.dropped: list[tuple[Edit, str]] = []
        self.warnings = [*journal.warnings, *adopted.notices]

    @classmethod
    def open(
        cls,
        original: Corpus,
        path: str | Path | None = None,
        *,
        workspace: str | Path | None = None,
        author: str | None = None,
        create: bool = True,
    ) -> AnnotationSession:
        """Open (or start, with ``create``) the journal of ``original`` at ``path``, by
        default :func:`~sentspace.app.annotations.journal.journal_path` (beside
        ``workspace`` if given)."""
        path = path if path is not None else journal_path(original, workspace)
        return cls(original, EditJournal(path, original.fingerprint, create=create), author)

    def close(self) -> None:
        """Let go of the journal; edits still kept are the next session's to save."""
        self.kept.close()
        self.journal.close()

    @property
    def corpus(self) -> Corpus:
        """The corrected corpus: the journal's edits in effect, replayed."""
        return self.history.corpus

    @property
    def edits(self) -> list[Edit]:
        """The edits in effect, in the order they (re)applied."""
        return self.history.edits

    @property
    def conflicts(self) -> list[Conflict]:
        """Every conflict of the edits in effect (see :mod:`sentspace.app.annotations.history`)."""
        return self.history.conflicts

    @property
    def last_replayed(self) -> str | None:
        """The id of the last journal record :attr:`corpus` replays (None: none), which
        ``sentspace eval --journal ... --until`` names to make it again."""
        return self.journal.records[self._fed - 1].id if self._fed else None

    def _sync(self) -> None:
        """Replay what other writers appended since we last read."""
        self.journal.read_new()
        new = self.journal.records[self._fed :]
        self._fed = len(self.journal.records)
        self.history.feed(new)
        self._unreported += [record for record in new if record.id not in self._own]

    def refresh(self) -> Changes:
        """Read and replay the records other writers appended since the last refresh
        (also those read while journaling an edit); what changed, with its authors.
        A window calls it when the journal file changes."""
        with self.journal.locked():
            self._sync()
        records, self._unreported = tuple(self._unreported), []
        current = self.conflicts
        conflicts = tuple(c for c in current if _conflict_key(c) not in self._reported_conflicts)
        # A conflict settled and back (its resolution undone) is new again.
        self._reported_conflicts = set(map(_conflict_key, current))
        corpus = self.corpus
        changed, self._reported_corpus = corpus is not self._reported_corpus, corpus
        return Changes(records, conflicts, changed)

    def _append(self, record: Record) -> None:
        self.journal.append(record)
        self._own.add(record.id)
        self._fed += 1
        self.history.feed([record])

    # --- state ------------------------------------------------------------------

    @property
    def can_undo(self) -> bool:
        return self.history.undo_target(self.author) is not None

    @property
    def can_redo(self) -> bool:
        return self.history.redo_target(self.author) is not None

    @property
    def deciders(self) -> dict[str, tuple[str, ...]]:
        """Who decided each item, by review-list key ("sentence:L12", "group:57",
        "pair:3"...), in the order they first did: every edit in effect that marks,
        notes, moves, splits, merges or re-scores it."""
        found: dict[str, dict[str, None]] = {}
        for edit in self.edits:
            for key in item_keys(edit):
                found.setdefault(key, {})[edit.author] = None
        return {key: tuple(authors) for key, authors in found.items()}

    @property
    def reviewed(self) -> set[str]:
        """Item keys marked reviewed by the edits in effect."""
        return {edit.item for edit in self.edits if isinstance(edit, MarkReviewed)}

    @property
    def notes(self) -> dict[str, list[str]]:
        """Notes by item key, oldest first."""
        notes: dict[str, list[str]] = {}
        for edit in self.edits:
            if isinstance(edit, AddNote):
                notes.setdefault(edit.item, []).append(edit.text)
        return notes

    def group_names_of(self, sentence: int) -> list[str]:
        """Names of the groups sentence ``sentence`` belongs to in the corrected corpus."""
        groups = self.corpus.groups
        if groups is None:
            return []
        return [groups.names[g] for g in groups.group_index[groups.sentence_index == sentence]]

    # --- editing ------------------------------------------------------------------

    def record(self, edit: Edit, view: Corpus | None = None, *, new_target: bool = False) -> Edit:
        """Check ``edit`` against ``view`` (the corrected corpus as this session showed
        it; by default now), then journal it after what others appended, if it still
        fits there; apply it. ``new_target``: the edit's target is a new group's name,
        named afresh if another writer took it.

        Raises
        ------
        EditError
            The edit does not fit: refused, not kept.
        JournalUnavailable
            The journal cannot be written now: the edit is kept in :attr:`pending`
            (after any kept before), not applied.
        """
        view = view if view is not None else self.corpus
        apply(view, [edit])  # a mistake (or a value the corpus cannot hold): refused
        if self.pending:
            saved = self.save_pending()  # the edits kept earlier go first, in order
            if saved.error is not None:
                self._keep(edit, view, saved.error, new_target)
                raise saved.error
        try:
            return self._write(edit, view, new_target)
        except JournalUnavailable as error:
            self._keep(edit, view, error, new_target)
            raise

    def _write(self, edit: Edit, view: Corpus, new_target: bool) -> Edit:
        """Journal ``edit`` (made on ``view``) after what others appended, if it still
        fits; the edit written (renamed when its new group's name was taken)."""
        with self.journal.locked():
            self._sync()
            if edit.id in self.history.by_id:
                return edit  # a write reported as failed had landed after all
            if new_target:
                assert isinstance(edit, MoveSentence | SplitGroup), "the edits making a group"
                if edit.target in self._names(self.corpus):
                    edit = replace(edit, target=self._new_group_name(view))
            if edit.changes_corpus and self.corpus is not view:
                _, conflicts = replay_edits(self.corpus, [edit])
                if conflicts and not conflicts[0].applied:
                    raise EditError(
                        f"{conflicts[0].problem} since this window last showed it",
                        self.journal.path,
                    )
            self._append(edit)
        return edit

    @staticmethod
    def _names(corpus: Corpus) -> tuple[str, ...]:
        return tuple(corpus.groups.names) if corpus.groups is not None else ()

    def _keep(self, edit: Edit, view: Corpus, error: JournalUnavailable, new_target: bool) -> None:
        self.pending.append(Pending(edit, view, error.reason, new_target))
        self._own.add(edit.id)  # if it landed after all, it is not another writer's
        self._write_recovery()

    def _write_recovery(self) -> None:
        """Mirror :attr:`pending` in this session's recovery file."""
        self.kept.write([Kept(item.edit, item.new_target) for item in self.pending])

    def save_pending(self) -> Saved:
        """Write the edits kept while the journal could not be written, oldest first,
        each checked again against what others did meanwhile (one that no longer fits
        is dropped and listed in :attr:`dropped`). Stops at the first that cannot be
        written: it and the rest stay pending."""
        saved: list[Edit] = []
        dropped: list[tuple[Edit, str]] = []
        while self.pending:
            item = self.pending[0]
            try:
                saved.append(self._write(item.edit, item.view, item.new_target))
            except JournalUnavailable as error:
                self.pending[0] = replace(item, reason=error.reason)
                self.dropped += dropped
                return Saved(tuple(saved), tuple(dropped), error)
            except EditError as error:
                dropped.append((item.edit, error.problem))
            self.pending.pop(0)
            self._write_recovery()
        self.dropped += dropped
        return Saved(tuple(saved), tuple(dropped))

    def discard_pending(self) -> list[Edit]:
        """Forget the edits not saved (this session's own: those another window keeps
        are its own to save or discard); those forgotten."""
        edits = [item.edit for item in self.pending]
        self.pending.clear()
        self._write_recovery()
        return edits

    def _stamp(self, reason: str) -> dict[str, str]:
        return {"author": self.author, "reason": reason}

    def move(
        self,
        sentence: int,
        target: str | None = None,
        *,
        source: str | None = None,
        reason: str = "",
    ) -> Edit:
        """Move sentence ``sentence`` (index) into group ``target`` (a new group when
        None), out of ``source`` (by default its only or first group as this session
        last saw it: if another writer moved it since, the move is a conflict)."""
        if source is None:
            current = self.group_names_of(sentence)
            source = current[0] if current else None
        view = self.corpus
        # A new group's name must be new to every writer: record() names it again, under
        # the journal's lock, if another took it.
        return self.record(
            MoveSentence(
                sentence=self.original.ids[sentence],
                source=source,
                target=target if target is not None else self._new_group_name(view),
                **self._stamp(reason),
            ),
            view,
            new_target=target is None,
        )

    def split(self, group: str, sentences: Sequence[int], *, reason: str = "") -> Edit:
        """Move ``sentences`` (indices, members of ``group``) into a new group."""
        view = self.corpus
        return self.record(
            SplitGroup(
                group=group,
                members=tuple(self.original.ids[s] for s in sentences),
                target=self._new_group_name(view),
                **self._stamp(reason),
            ),
            view,
            new_target=True,
        )

    def _new_group_name(self, view: Corpus) -> str:
        """A group name new both to ``view`` and to the journal's latest state."""
        return new_group_name(self.corpus, view.groups.names if view.groups else ())

    def merge(self, groups: Sequence[str], *, reason: str = "") -> Edit:
        """Merge ``groups`` into the first of them."""
        return self.record(
            MergeGroups(groups=tuple(groups), target=groups[0], **self._stamp(reason))
        )

    def edit_pair(
        self, pair: int, *, score: float | None = None, label: int | None = None, reason: str = ""
    ) -> Edit:
        """Set pair ``pair``'s gold score and/or label."""
        pairs = self.corpus.pairs
        if pairs is None or not 0 <= pair < len(pairs):
            raise EditError(f"no pair {pair}")
        old_score = float(pairs.score[pair])
        return self.record(
            EditPair(
                pair=pair,
                score=score,
                label=label,
                old_score=old_score if old_score == old_score else None,
                old_label=int(pairs.label[pair]),
                pair_id=pairs.ids[pair] if pairs.ids else "",
                label_names=pairs.label_names,
                **self._stamp(reason),
            )
        )

    def mark_reviewed(self, item: str, *, reason: str = "") -> Edit:
        """Mark ``item`` reviewed; a sentence's mark records the one group this session
        shows it in (:class:`MarkReviewed`), so a move it had not seen is a conflict."""
        group = None
        if item.startswith("sentence:"):
            try:
                shown = self.group_names_of(
                    list(self.original.ids).index(item.removeprefix("sentence:"))
                )
            except ValueError:  # no such sentence: the mark records no group
                shown = []
            group = shown[0] if len(shown) == 1 else None
        return self.record(MarkReviewed(item=item, group=group, **self._stamp(reason)))

    def note(self, item: str, text: str) -> Edit:
        return self.record(AddNote(item=item, text=text, author=self.author))

    def resolve(self, conflict: Conflict, stands: Edit | None, reason: str) -> ResolveConflict:
        """Settle ``conflict`` (one of :attr:`conflicts`): the decision ``stands`` (one
        of :func:`decisions_of`; None: neither, or for an undo/redo record, acknowledged)
        stays, the other is overruled; journaled with this author and ``reason``
        (required). Undone like any edit.

        Raises
        ------
        EditError
            No reason; ``stands`` is not one of its decisions; or the conflict is no
            longer listed (someone resolved it meanwhile, or an undo made it go away).
        """
        if not reason.strip():
            raise EditError("say why: a resolution needs a reason")
        decisions = decisions_of(conflict)
        if stands is not None and stands.id not in {edit.id for edit in decisions}:
            raise EditError(f"{stands.describe()} is not a decision of this conflict")
        with self.journal.locked():
            self._sync()
            if not any(same_conflict(conflict, c) for c in self.conflicts):
                by = [
                    edit
                    for edit in self.edits
                    if isinstance(edit, ResolveConflict) and conflict.record.id in edit.settles
                ]
                raise EditError(
                    f"resolved meanwhile by {by[-1].author} ({by[-1].decision})"
                    if by
                    else "no longer a conflict (an edit in it was undone meanwhile)",
                    self.journal.path,
                )
            overruled = [edit for edit in decisions if edit is not stands]
            if stands is not None:
                decision = f"{stands.author}'s {stands.describe()} stands" + "".join(
                    f" over {edit.author}'s {edit.describe()}" for edit in overruled
                )
            elif decisions:
                decision = (
                    "neither stands: "
                    + " and ".join(f"{edit.author}'s {edit.describe()}" for edit in decisions)
                    + " overruled"
                )
            else:
                decision = f"acknowledged: {conflict.describe()}"
            settles = tuple(
                dict.fromkeys(
                    record.id
                    for record in (conflict.record, conflict.against)
                    if record is not None
                )
            )
            resolution = ResolveConflict(
                settles=settles,
                stands=stands.id if stands is not None else "",
                items=conflict_items(conflict),
                decision=decision,
                **self._stamp(reason.strip()),
            )
            self._append(resolution)
        return resolution

    def take_in(self, records: Sequence[Record]) -> Changes:
        """Append the ``records`` (other people's, e.g. from their journals: see
        :func:`~sentspace.app.annotations.journal.merge_journals`) that this journal does not
        hold yet (by id), in their order, after what others appended; then replay them
        as :meth:`refresh` does: what changed, with its authors and new conflicts."""
        with self.journal.locked():
            self._sync()
            held = {record.id for record in self.journal.records}
            for record in records:
                if record.id not in held:
                    self.journal.append(record)
                    held.add(record.id)
            return self.refresh()

    def undo(self) -> Edit | None:
        """Undo this author's latest edit in effect (journaled by its id); the edit
        undone, or None."""
        return self._stack("undo", self.history.undo_target)

    def redo(self) -> Edit | None:
        """Redo this author's latest undone edit (journaled by its id); the edit redone,
        or None."""
        return self._stack("redo", self.history.redo_target)

    def _stack(self, op: str, target_of) -> Edit | None:
        """Journal an undo or redo; the kept edits are saved first (the latest of them
        is what an undo takes back). Not kept itself: :class:`JournalUnavailable` means
        nothing was undone or redone."""
        if self.pending:
            saved = self.save_pending()
            if saved.error is not None:
                raise saved.error
        with self.journal.locked():
            self._sync()
            edit = target_of(self.author)
            if edit is not None:
                self._append(StackRecord(op, edit=edit.id, author=self.author))
        return edit

    # --- sharing ------------------------------------------------------------------

    def export(self, folder: str | Path, formats: Sequence[str] = FORMATS) -> list[Path]:
        """Write the corrected corpus (:func:`~sentspace.app.annotations.export.export_corpus`) and
        the change log of the edits in effect into ``folder``; the files written.
        :class:`~sentspace.app.annotations.export.ExportError` says which file could not
        be written (a full disk) and which were."""
        return export_all(self.corpus, self.edits, folder, formats)


def _conflict_key(conflict: Conflict) -> tuple[str, str]:
    return conflict.record.id, conflict.problem
