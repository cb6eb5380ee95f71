"""Annotating as a team, for the corpus shown: resolving the conflicts of its edits in a
dialog, splitting its review lists into batches for several people, and bringing their
batches back into its journal (their conflicts then listed for resolution). The work
is the core's (:mod:`sentspace.app.workspace.batches`, :meth:`AnnotationSession.resolve`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtWidgets import QStatusBar, QWidget

from sentspace.app.annotations.session import Changes
from sentspace.app.base.errors import InputError
from sentspace.app.state.session import CorpusState, Session
from sentspace.app.ui.kit.file_dialogs import REVIEW_BATCHES, open_folder
from sentspace.app.ui.panels.batches_dialog import BatchesDialog
from sentspace.app.ui.panels.conflict_dialog import ConflictDialog
from sentspace.app.workspace.batches import bring_back, export_batches


class Teamwork:
    """Team actions on the corpus shown in ``session``; ``status`` is the status bar,
    ``warn(title, text)`` says what cannot be done, ``parent`` owns the dialogs."""

    def __init__(
        self,
        session: Session,
        status: QStatusBar,
        warn: Callable[[str, str], None],
        parent: QWidget,
    ) -> None:
        self.session, self.status, self.warn, self.parent = session, status, warn, parent
        #: The conflict dialog while open, and the corpus it is about.
        self.conflict_dialog: ConflictDialog | None = None
        self._conflicts_of: CorpusState | None = None
        #: The batches dialog last opened.
        self.batches_dialog: BatchesDialog | None = None
        session.edited.connect(self._edited)

    def _state(self) -> CorpusState | None:
        state = self.session.current
        if state is None or state.annotations is None:
            return None
        return state

    def _edited(self, state: CorpusState) -> None:
        """Another window's edit, or our own, on the corpus of the open dialog."""
        dialog = self.conflict_dialog
        if dialog is not None and state is self._conflicts_of and dialog.isVisible():
            dialog.refresh()

    def resolve_conflicts(self) -> ConflictDialog | None:
        """The conflicts of the corpus shown, to resolve (the dialog, open)."""
        state = self._state()
        if state is None:
            return None
        annotations = state.annotations
        assert annotations is not None  # _state() answers only a corpus with annotations
        if self.conflict_dialog is not None:
            self.conflict_dialog.close()
        dialog = ConflictDialog(annotations, self.parent)
        dialog.sentences_selected.connect(
            lambda indices: self.session.selection.select(indices, source="review")
        )
        dialog.resolved.connect(lambda _: self.session.corpus_edited(state.spec))
        self.conflict_dialog, self._conflicts_of = dialog, state
        dialog.open()
        return dialog

    def split_into_batches(self, shown: str | None = None) -> BatchesDialog | None:
        """Split the review lists among people (the list ``shown`` in the Review tab
        chosen) and write their batches (the dialog, open; writing happens when it is
        accepted)."""
        state = self._state()
        if state is None or not state.review_lists:
            self.warn(
                "Nothing to split",
                "Find the suspicious annotations first "
                "(Annotations > Find suspicious annotations).",
            )
            return None
        dialog = BatchesDialog(
            state.review_lists,
            lambda: open_folder(
                self.parent, "Folder for the review batches", purpose=REVIEW_BATCHES
            ),
            self.parent,
            shown,
        )
        dialog.accepted.connect(lambda: self.write_batches(state, dialog))
        self.batches_dialog = dialog
        dialog.open()
        return dialog

    def write_batches(self, state: CorpusState, dialog: BatchesDialog) -> list[Path]:
        """Write the batches ``dialog`` describes; the workspaces written."""
        annotations = state.annotations
        assert annotations is not None  # ``state`` is one _state() answered
        try:
            written = export_batches(
                state.spec,
                state.original,
                state.review_lists,
                dialog.batches,
                dialog.folder(),
                records=annotations.journal.records,
                named=bool(dialog.name_list()),
            )
        except (InputError, OSError) as error:
            self.warn("Cannot write the batches", str(error))
            return []
        self.status.showMessage(
            f"{len(written)} review batches written to {dialog.folder()}: each person "
            "opens their workspace; bring them back with Annotations > Bring back review "
            "batches…"
        )
        return written

    def bring_back(self, paths: Sequence[str | Path] | None = None) -> Changes | None:
        """Bring the decisions of review batches (a folder of batches, one batch, or a
        journal) into the journal of the corpus shown; their conflicts are then offered
        for resolution."""
        state = self._state()
        if state is None:
            return None
        if paths is None:
            folder = open_folder(
                self.parent, "Bring back review batches (their folder)", purpose=REVIEW_BATCHES
            )
            if not folder:
                return None
            paths = [folder]
        annotations = state.annotations
        assert annotations is not None  # _state() answers only a corpus with annotations
        try:
            changes = bring_back(annotations, paths)
        except InputError as error:
            self.warn("Cannot bring the batches back", str(error))
            return None
        if changes:
            self.session.corpus_edited(state.spec)
        count = len(changes.records)
        conflicts = len(annotations.conflicts)
        self.status.showMessage(
            (
                f"Brought back {count} record{'s' if count != 1 else ''} by "
                f"{', '.join(changes.authors)}"
                if count
                else "Nothing new to bring back"
            )
            + (
                f" · {conflicts} conflict{'s' if conflicts != 1 else ''} to resolve"
                if conflicts
                else ""
            )
        )
        if changes.conflicts:
            self.resolve_conflicts()
        return changes
