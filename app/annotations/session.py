"""One linguist's correction session on one corpus: edits, undo/redo, the journal.

:class:`AnnotationSession` is what the review panel calls. Every method that edits
validates the edit against the current corrected corpus, journals it (durably), then
updates the state; a rejected edit raises :class:`~app.annotations.edits.EditError`
and is neither journaled nor applied. Opening a session on a corpus whose journal has
records replays them, so closing and reopening the app loses nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from app.annotations.edits import (
    AddNote, Edit, EditError, EditPair, MarkReviewed, MergeGroups, MoveSentence,
    SplitGroup, apply, current_user, new_group_name,
)
from app.annotations.export import FORMATS, export_change_log, export_corpus
from app.annotations.journal import EditJournal, StackRecord, journal_path
from app.corpora.model import Corpus


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
    """

    def __init__(self, original: Corpus, journal: EditJournal, author: str | None = None):
        self.original = original
        self.journal = journal
        self.author = author or current_user()
        self.edits, self._redo = journal.state()
        self.corpus = apply(original, self.edits)

    @classmethod
    def open(cls, original: Corpus, path: str | Path | None = None, *,
             workspace: str | Path | None = None, author: str | None = None
             ) -> AnnotationSession:
        """Open (or start) the journal of ``original`` at ``path``, by default
        :func:`~app.annotations.journal.journal_path` (beside ``workspace`` if given)."""
        path = Path(path) if path is not None else journal_path(original, workspace)
        return cls(original, EditJournal(path, original.fingerprint), author)

    def close(self) -> None:
        self.journal.close()

    # --- state ------------------------------------------------------------------

    @property
    def can_undo(self) -> bool:
        return bool(self.edits)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

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

    def record(self, edit: Edit) -> Edit:
        """Validate ``edit`` against the corrected corpus, journal it, apply it."""
        corrected = apply(self.corpus, [edit]) if edit.changes_corpus else self.corpus
        self.journal.append(edit)
        self.edits.append(edit)
        self._redo.clear()
        self.corpus = corrected
        return edit

    def _stamp(self, reason: str) -> dict[str, str]:
        return {"author": self.author, "reason": reason}

    def move(self, sentence: int, target: str | None = None, *, source: str | None = None,
             reason: str = "") -> Edit:
        """Move sentence ``sentence`` (index) into group ``target`` (a new group when
        None), out of ``source`` (by default its only or first group)."""
        if source is None:
            current = self.group_names_of(sentence)
            source = current[0] if current else None
        return self.record(MoveSentence(
            sentence=self.original.ids[sentence], source=source,
            target=target if target is not None else new_group_name(self.corpus),
            **self._stamp(reason)))

    def split(self, group: str, sentences: Sequence[int], *, reason: str = "") -> Edit:
        """Move ``sentences`` (indices, members of ``group``) into a new group."""
        return self.record(SplitGroup(
            group=group, members=tuple(self.original.ids[s] for s in sentences),
            target=new_group_name(self.corpus), **self._stamp(reason)))

    def merge(self, groups: Sequence[str], *, reason: str = "") -> Edit:
        """Merge ``groups`` into the first of them."""
        return self.record(MergeGroups(groups=tuple(groups), target=groups[0],
                                       **self._stamp(reason)))

    def edit_pair(self, pair: int, *, score: float | None = None, label: int | None = None,
                  reason: str = "") -> Edit:
        """Set pair ``pair``'s gold score and/or label."""
        pairs = self.corpus.pairs
        if pairs is None or not 0 <= pair < len(pairs):
            raise EditError(f"no pair {pair}")
        old_score = float(pairs.score[pair])
        return self.record(EditPair(
            pair=pair, score=score, label=label,
            old_score=old_score if old_score == old_score else None,
            old_label=int(pairs.label[pair]), pair_id=pairs.ids[pair] if pairs.ids else "",
            label_names=pairs.label_names, **self._stamp(reason)))

    def mark_reviewed(self, item: str, *, reason: str = "") -> Edit:
        return self.record(MarkReviewed(item=item, **self._stamp(reason)))

    def note(self, item: str, text: str) -> Edit:
        return self.record(AddNote(item=item, text=text, author=self.author))

    def undo(self) -> Edit | None:
        """Undo the latest edit in effect (journaled); the edit undone, or None."""
        if not self.edits:
            return None
        self.journal.append(StackRecord("undo", author=self.author))
        edit = self.edits.pop()
        self._redo.append(edit)
        self.corpus = apply(self.original, self.edits)
        return edit

    def redo(self) -> Edit | None:
        """Redo the latest undone edit (journaled); the edit redone, or None."""
        if not self._redo:
            return None
        self.journal.append(StackRecord("redo", author=self.author))
        edit = self._redo.pop()
        self.edits.append(edit)
        self.corpus = apply(self.corpus, [edit]) if edit.changes_corpus else self.corpus
        return edit

    # --- sharing ------------------------------------------------------------------

    def export(self, folder: str | Path, formats: Sequence[str] = FORMATS) -> list[Path]:
        """Write the corrected corpus (:func:`~app.annotations.export.export_corpus`) and
        the change log of the edits in effect into ``folder``; the files written."""
        return [*export_corpus(self.corpus, folder, formats),
                *export_change_log(self.edits, folder)]
