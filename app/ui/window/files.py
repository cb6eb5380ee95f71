"""Files in and out of the window: corpora opened by dialog, exports (embeddings,
projection, figure, the corrected corpus) and workspaces (save, open, recent, the
offer to save on quitting).

A workspace's :class:`~sentspace.app.workspace.paths.Stamp` is taken when it is opened or
saved; a save over a file another window saved since asks first (*Reload*, *Save as…*,
*Overwrite*). A save or export that fails (a full disk, a result a workspace cannot
hold) says why and what was written, and quitting never goes on as if it had saved;
edits the journal could not take are offered for saving before the window closes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMainWindow, QMessageBox

from sentspace.app.annotations.export import ExportError
from sentspace.app.base.errors import InputError
from sentspace.app.base.jobs import Job
from sentspace.app.corpora.listing import first_groups
from sentspace.app.corpora.tabular import ColumnsUnclear
from sentspace.app.exporters.export import export_matrix
from sentspace.app.state.colouring import saved_key
from sentspace.app.state.session import Session
from sentspace.app.ui.charts.figures import save_svg
from sentspace.app.ui.kit.file_dialogs import (
    CORPORA,
    EXPORTS,
    WORKSPACES,
    open_file,
    open_folder,
    save_file,
    work_near,
)
from sentspace.app.ui.panels.mapping_dialog import MappingDialog
from sentspace.app.ui.views.projection_view import ProjectionView
from sentspace.app.ui.window.job_queue import JobQueue
from sentspace.app.ui.window.showing import Showing
from sentspace.app.workspace.format import iter_save_workspace, open_workspace
from sentspace.app.workspace.model import EXTENSION, Workspace, same_file, with_extension
from sentspace.app.workspace.paths import (
    Stamp,
    WorkspaceChanged,
    check_unchanged,
    missing_journals,
    new_journal_path,
    stamp,
    with_new_journals,
)
from sentspace.app.workspace.recent import recent_workspaces
from sentspace.app.workspace.restore import restore_session
from sentspace.app.workspace.snapshot import taken, workspace_from, workspace_of

CORPUS_FILTER = (
    "Corpora (*.txt *.csv *.tsv *.jsonl *.parquet *.pq *.pyr *.label *.data);;"
    "Parquet (*.parquet *.pq);;All files (*)"
)
EXPORT_FILTERS = (
    "NumPy array + JSON sidecar (*.npy);;Parquet (*.parquet);;"
    "Embedding Projector pair (vectors.tsv)"
)


class Files:
    """The file dialogs and writers of the window ``parent``: corpora open through
    ``showing``, exports and workspaces read ``session`` and write in ``jobs``, the
    figure is ``projection``'s plot; ``status`` shows a message, ``warn(title, text)``
    what went wrong."""

    def __init__(
        self,
        session: Session,
        jobs: JobQueue,
        showing: Showing,
        projection: ProjectionView,
        status: Callable[[str], None],
        warn: Callable[[str, str], None],
        parent: QMainWindow,
    ) -> None:
        self.session, self.jobs, self.showing = session, jobs, showing
        self.projection, self.status, self.warn, self.parent = projection, status, warn, parent
        self.workspace_path: Path | None = None
        #: The workspace file as this window last opened or saved it (None: no file).
        self.workspace_stamp: Stamp | None = None
        #: Whether the session changed since it was last saved or opened.
        self.unsaved = False
        #: The question asked when the workspace changed on disk (while it is open).
        self.changed_box: QMessageBox | None = None
        #: The question asked when a workspace's journal is missing (while it is open).
        self.journal_box: QMessageBox | None = None
        #: Changes to the session so far: a save tells whether any came while it wrote.
        self._changes = 0
        session.modified.connect(lambda _: self._changed())

    def _changed(self) -> None:
        self.unsaved = True
        self._changes += 1

    def _titled(self, path: Path, opened: Stamp | None = None) -> None:
        """``path`` is this window's workspace now, as ``opened`` stamps it (by default
        the file as it is now, just saved)."""
        self.workspace_path = Path(path)
        work_near(path)
        self.workspace_stamp = opened if opened is not None else stamp(path)
        self.unsaved = False
        self.parent.setWindowTitle(f"sentspace — {self.workspace_path.name}")

    def fill_recent_menu(self, menu) -> None:
        menu.clear()
        for path in recent_workspaces():
            action = menu.addAction(str(path))
            action.triggered.connect(lambda _=False, p=path: self.open_workspace(p))
        menu.setEnabled(not menu.isEmpty())

    def choose_corpus_file(self) -> None:
        path = open_file(self.parent, "Open a corpus", CORPUS_FILTER, purpose=CORPORA)
        if path:
            self.showing.open_corpus(path)

    def choose_corpus_folder(self) -> None:
        folder = open_folder(self.parent, "Open a corpus folder", purpose=CORPORA)
        if folder:
            self.showing.open_corpus(folder)

    def ask_columns(self, error: ColumnsUnclear) -> MappingDialog:
        """Let the user say which columns hold what, then load the table with that."""
        dialog = MappingDialog(error.path, str(error.problem), self.parent)
        dialog.accepted.connect(
            lambda: self.showing.open_corpus(error.path, mapping=dialog.mapping())
        )
        dialog.open()
        return dialog

    def choose_embeddings_target(self) -> None:
        path = save_file(self.parent, "Export embeddings", EXPORT_FILTERS)
        if path:
            self.export_embeddings(path)

    def choose_projection_target(self) -> None:
        path = save_file(self.parent, "Export projection coordinates", EXPORT_FILTERS)
        if path:
            self.export_projection(path)

    def choose_figure_target(self) -> None:
        path = save_file(self.parent, "Export figure", "PNG image (*.png);;SVG drawing (*.svg)")
        if path:
            self.export_figure(path)

    def choose_map_target(self) -> None:
        path = save_file(self.parent, "Export map as web page", "Web page (*.html)")
        if path:
            self.export_map(path)

    def export_map(self, path: str | Path) -> None:
        """The projection shown as one self-contained web page, written in the
        background (each point's neighbours are searched: a minute at 145,000
        sentences): the groups as edited, its regions, and the corpus's results of this
        version in its provenance."""
        from sentspace.app.analysis.results import Result  # noqa: PLC0415
        from sentspace.app.exporters.web_map import iter_export_map  # noqa: PLC0415 (lazy)

        state = self.session.current
        # A saved result of an old workspace keeps its rows, not the scores a map shows.
        results = [
            run.result
            for run in state.evaluations
            if isinstance(run.result, Result)
            and run.result.provenance.corpus_fingerprint == state.corpus.fingerprint
        ]
        run = state.runs[state.shown]
        command = (
            ""
            if run.training_text is not None
            else state.map_command(
                state.exploration, state.shown, path, regions=state.regions is not None
            )
        )
        self.jobs.start(
            iter_export_map(
                state.exploration,
                path,
                groups=first_groups(state.corpus),
                regions=state.regions,
                results=results,
                command=command,
                seed=state.exploration.projection.parameters.get("seed", 0),
                colour=saved_key(state.view.get("colour")),
            ),
            f"exporting the map to {Path(path).name}",
            queue=True,
            on_result=lambda written: self.status(
                f"Wrote the map to {written}" + (f": {command}" if command else "")
            ),
        )

    def export_embeddings(self, path: str | Path) -> None:
        """Write the current embeddings, one row per corpus entry, in the background."""
        exploration = self.session.current.exploration
        encoder = exploration.encoder
        details = {
            "encoder": {
                "name": encoder.name,
                "family": encoder.family,
                "params": encoder.params(),
                "fingerprint": encoder.fingerprint(),
            }
        }
        self._export_matrix(exploration.embeddings, path, details, "embeddings")

    def export_projection(self, path: str | Path) -> None:
        """Write the 2D coordinates (x, y per sentence) in the background."""
        exploration = self.session.current.exploration
        projection = exploration.projection
        details = {
            "projection": {
                "method": projection.method,
                "parameters": projection.parameters,
                "of_encoder": exploration.encoder.name,
            }
        }
        self._export_matrix(projection.coordinates, path, details, "projection")

    def _export_matrix(self, matrix, path: str | Path, details: dict, what: str) -> None:
        """Write ``matrix`` (a row per sentence of the corpus shown) with ``details`` in
        the background."""
        corpus = self.session.current.exploration.corpus
        self.jobs.start(
            lambda: export_matrix(corpus, matrix, path, details),
            f"exporting {what} to {Path(path).name}",
            on_result=self._exported,
        )

    def export_figure(self, path: str | Path) -> None:
        """Save the projection plot as PNG or SVG (by the file's extension)."""
        path = str(path)
        plot = self.projection.plot
        if path.lower().endswith(".svg"):
            save_svg(plot, path, self.projection.legend.text())
        else:
            from pyqtgraph.exporters import ImageExporter  # noqa: PLC0415 (lazy: start)

            ImageExporter(plot.getPlotItem()).export(path)
        self.status(f"Saved {path}")

    def _exported(self, paths: list[Path]) -> None:
        self.status("Saved " + ", ".join(str(p) for p in paths))

    def choose_corrected_target(self) -> None:
        if self.session.current is None or self.session.current.annotations is None:
            return
        folder = open_folder(self.parent, "Export the corrected corpus to", purpose=EXPORTS)
        if folder:
            self.export_corrected(folder)

    def export_corrected(self, folder: str | Path) -> list[Path]:
        """Write the corrected corpus and its change log into ``folder``; the files
        written. One that cannot be written (a full disk) is said with those that were."""
        try:
            written = self.session.current.annotations.export(folder)
        except ExportError as error:
            self.warn(
                "The corrected corpus is not exported",
                f"{error}.\n\nEach file is written whole or not at all: a file of "
                "the same name from before is kept as it was. The edits are in "
                "their journal; export again when there is room.",
            )
            self.status(f"Not exported: {error.reason}")
            return error.written
        self.status(f"Wrote {len(written)} files to {folder}")
        return written

    def workspace(self) -> Workspace:
        """Everything needed to come back to this session (see
        :func:`sentspace.app.workspace.snapshot.workspace_of`): the current corpus first."""
        self.showing.remember_view()
        return workspace_of(self.session)

    def save_workspace(self, ask: bool = False, then: Callable[[], None] | None = None) -> None:
        """Save to this window's workspace (or one chosen, with ``ask`` or none yet);
        ``then`` is called once the save has ended well."""
        if self.session.current is None:
            return
        path = self.workspace_path
        if ask or path is None:
            chosen = save_file(
                self.parent,
                "Save workspace",
                f"sentspace workspace (*{EXTENSION})",
                purpose=WORKSPACES,
            )
            if not chosen:
                return
            path = Path(chosen)
        self.save_workspace_to(path, then=then)

    def save_workspace_to(
        self, path: str | Path, overwrite: bool = False, then: Callable[[], None] | None = None
    ) -> Path | None:
        """Save the session to ``path`` (``.sentspace`` added to a bare name) in the
        worker, after the jobs before it: the path being written, or None when not
        saved. The session is taken now (:func:`~sentspace.app.workspace.snapshot.taken`:
        a millisecond, nothing copied but its lists), so the file holds it as it is
        when Save is asked; the job builds the workspace from it (results encoded,
        corpus files hashed), writes the file with progress and stamps it, and the
        title says "saving…" until it has ended. This window's workspace changed on disk since it was
        opened or saved (another window saved it) is not overwritten unless
        ``overwrite``: the user is asked (:meth:`offer_changed`). A save that fails (a
        full disk, a result the workspace cannot hold) leaves the file as it was, says
        why in a dialog and leaves the window unsaved; one that ends well calls
        ``then``."""
        path = with_extension(path)
        mine = self.workspace_path is not None and same_file(path, self.workspace_path)
        expect = None if overwrite or not mine else self.workspace_stamp
        try:
            check_unchanged(path, expect)
        except WorkspaceChanged as error:
            self.offer_changed(path, error)
            return None
        self.showing.remember_view()
        states = taken(self.session)
        changes = self._changes

        def saving() -> Job[tuple[Path | None, Stamp | None, Exception | None]]:
            # The end, failed or not, comes back as the result (a worker treats an
            # exception returned as its own failure): the window says why.
            try:
                workspace = workspace_from(states)
                saved = yield from iter_save_workspace(workspace, path, expect=expect)
                return saved, stamp(saved), None
            except Exception as error:  # noqa: BLE001 (whatever stops it, the user is told)
                return None, None, error

        def ended(outcome: tuple[Path | None, Stamp | None, Exception | None]) -> None:
            saved, written, error = outcome
            self.parent.setWindowTitle(title)
            if isinstance(error, WorkspaceChanged):
                self.offer_changed(path, error)
            elif error is not None:
                self._not_saved(path, error)
            else:
                assert saved is not None, "a save that ended well wrote its file"
                self._titled(saved, written)
                # A change made while it was written is not in the file.
                self.unsaved = self._changes != changes
                self.status(f"Saved {self.workspace_path}")
                if then is not None:
                    then()

        title = self.parent.windowTitle()
        self.parent.setWindowTitle(f"sentspace — saving {path.name}…")
        self.jobs.start(saving(), f"saving workspace {path.name}", on_result=ended, queue=True)
        return path

    def _not_saved(self, path: Path, error: Exception) -> None:
        # A full disk, or a result the workspace cannot hold: the window stays unsaved,
        # so quitting still asks.
        reason = (error.strerror if isinstance(error, OSError) else None) or str(error)
        self.warn("The workspace is not saved", f"{path}: {reason}. The file is as it was before.")
        self.status(f"Not saved: {reason}")

    def offer_changed(self, path: Path, error: WorkspaceChanged) -> QMessageBox:
        """Ask what to do with a workspace another window saved since this one opened or
        saved it: *Reload* it (this window's results not saved are dropped; edits are in
        their journals and come back), *Save as…* another file, or *Overwrite* it."""
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "The workspace changed on disk",
            f"{path.name} was saved by another window or program since this "
            "window opened or saved it. Saving now would overwrite what it "
            "saved.\n\nReload: open it as it is now (results of this window "
            "that are not saved are dropped; edits are kept in their "
            "journals). Save as: save this window's session to another "
            "file. Overwrite: replace it with this window's session.",
            QMessageBox.StandardButton.Cancel,
            self.parent,
        )
        box.setObjectName("workspace-changed")
        box.reload = box.addButton("Reload", QMessageBox.ButtonRole.ActionRole)
        box.save_as = box.addButton("Save as…", QMessageBox.ButtonRole.ActionRole)
        box.overwrite = box.addButton("Overwrite", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def answered() -> None:
            clicked = box.clickedButton()
            if clicked is box.reload:
                self.open_workspace(path)
            elif clicked is box.save_as:
                self.save_workspace(ask=True)
            elif clicked is box.overwrite:
                self.save_workspace_to(path, overwrite=True)

        box.finished.connect(lambda _: answered())
        self.changed_box = box
        box.open()
        return box

    def choose_workspace(self) -> None:
        path = open_file(
            self.parent,
            "Open workspace",
            f"sentspace workspace (*{EXTENSION});;All files (*)",
            purpose=WORKSPACES,
        )
        if path:
            self.open_workspace(path)

    def open_workspace(self, path: str | Path) -> None:
        """Open a saved workspace in place of the open corpora: each corpus with its
        edits, runs (the saved layouts), results with their charts, review lists, view
        settings and selection, after the running job if there is one. Files that
        changed since it was saved are listed; nothing is overwritten. A journal that
        is not a file (a FIFO, a device, a folder) is a dialog at once; one that is
        missing is started beside the workspace only once the user agrees."""
        if self.unsaved_edits():
            self.warn(
                "Edits not saved",
                f"{self.unsaved_edits()} edits are not saved yet "
                "(their journal could not be written): Retry saving or Discard them "
                "in Review before opening a workspace.",
            )
            return
        opened = stamp(path)  # before reading: a save after it is a change
        try:
            workspace, changes = open_workspace(path)
            missing = missing_journals(workspace, path)
        except InputError as error:  # the workspace, or a journal that is no file
            self.warn("Cannot open the workspace", str(error))
            return
        gone = {workspace.corpora[index].journal for index in missing}
        changes = [change for change in changes if change.path not in gone]
        if changes:
            self.warn(
                "Files changed since the workspace was saved",
                "\n".join(str(change) for change in changes),
            )
        if missing:
            self.ask_new_journals(workspace, missing, path, opened)
        else:
            self.restore_workspace(workspace, path, opened)

    def ask_new_journals(
        self, workspace: Workspace, missing: list[int], path: str | Path, opened: Stamp | None
    ) -> QMessageBox:
        """A workspace whose journals ``missing`` are not there opens only once the user
        agrees to a journal beside it for each (started empty, or the one started there
        before); else it is not opened, and nothing is made."""
        lines = []
        for index in missing:
            entry, new = workspace.corpora[index], new_journal_path(workspace, index, path)
            start = "use the journal found" if new.exists() else "start a new, empty journal"
            lines.append(
                f"{entry.spec}: {entry.journal} is missing; {start} beside the workspace, "
                f"{new.name}"
            )
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Edit journal missing",
            "\n".join(lines)
            + "\n\nThe edits of a missing journal are not in any other file. Open the "
            "workspace with the journal beside it?",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
            self.parent,
        )
        box.setObjectName("journal-missing")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

        def answered() -> None:
            if box.standardButton(box.clickedButton()) != QMessageBox.StandardButton.Open:
                return
            try:
                chosen = with_new_journals(workspace, missing, path)
            except OSError as error:
                self.warn(
                    "Cannot start the journal",
                    f"{new_journal_path(workspace, missing[0], path).parent}: "
                    f"{error.strerror or error}",
                )
                return
            self.restore_workspace(chosen, path, opened, journals_moved=True)

        box.finished.connect(lambda _: answered())
        self.journal_box = box
        box.open()
        return box

    def restore_workspace(
        self,
        workspace: Workspace,
        path: str | Path,
        opened: Stamp | None,
        journals_moved: bool = False,
    ) -> None:
        """Open ``workspace`` (read from ``path``) in place of the open corpora, after
        the running job; with ``journals_moved`` (a journal now beside it), it is unsaved
        until saved with them."""

        def restore(restored: Session) -> None:
            self.session.replace_with(restored)
            self._titled(path, opened)
            self.unsaved = journals_moved
            # What opening the journals found: a torn line, kept edits set aside.
            notices = [
                warning
                for state in restored.states.values()
                if state.annotations is not None
                for warning in state.annotations.warnings
            ]
            if notices:
                self.status(" · ".join(notices))
            state = self.session.current
            if state is not None and state.review_lists and not state.runs:
                # Review lists and nothing run (a review batch): their rows are what
                # there is to see, in the Review tab, not "Press Run".
                self.session.reviewed.emit(state)

        self.showing.say_loading()
        self.jobs.start(
            restore_session(workspace, path),
            f"opening workspace {Path(path).name}",
            on_result=restore,
            queue=True,
            quiet=True,
        )

    def unsaved_edits(self) -> int:
        """How many edits of the open corpora their journals could not take yet."""
        return sum(
            len(state.annotations.pending)
            for state in self.session.states.values()
            if state.annotations is not None
        )

    def offer_to_save_edits(self) -> QMessageBox:
        """Before the window closes with edits not saved: *Retry* writing them (the
        window closes if all are written), *Discard* them and close, or *Cancel*."""
        buttons = QMessageBox.StandardButton
        reasons = sorted(
            {
                item.reason
                for state in self.session.states.values()
                if state.annotations is not None
                for item in state.annotations.pending
            }
        )
        count = self.unsaved_edits()
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            "Edits not saved",
            f"{count} edit{'s are' if count > 1 else ' is'} not saved: the "
            f"journal could not be written ({'; '.join(reasons)}). Closing "
            f"now loses {'them' if count > 1 else 'it'}.",
            buttons.Retry | buttons.Discard | buttons.Cancel,
            self.parent,
        )
        box.setObjectName("unsaved-edits-dialog")
        box.setDefaultButton(buttons.Retry)

        def answered() -> None:
            choice = box.standardButton(box.clickedButton())
            states = [
                state
                for state in self.session.states.values()
                if state.annotations is not None and state.annotations.pending
            ]
            if choice == buttons.Retry:
                for state in states:
                    state.annotations.save_pending()
                    self.session.corpus_edited(state.spec)
                left = self.unsaved_edits()
                if left:
                    self.status(
                        f"{left} edit{'s' if left > 1 else ''} still not saved: "
                        "the journal cannot be written"
                    )
                    return
            elif choice == buttons.Discard:
                for state in states:
                    state.annotations.discard_pending()
                    self.session.corpus_edited(state.spec)
            else:
                return
            self.parent.window().close()

        box.finished.connect(lambda _: answered())
        box.open()
        return box

    def offer_to_save(self) -> QMessageBox:
        buttons = QMessageBox.StandardButton
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Save the workspace?",
            "This session has results that are not saved in a workspace. "
            "Save them before quitting?",
            buttons.Save | buttons.Discard | buttons.Cancel,
            self.parent,
        )
        box.setObjectName("save-dialog")
        box.setDefaultButton(buttons.Save)

        def answered() -> None:
            choice = box.standardButton(box.clickedButton())
            if choice == buttons.Save:
                # The window closes when the save has ended well; one that fails says
                # why and leaves it open.
                self.save_workspace(then=self.parent.window().close)
            elif choice == buttons.Discard:
                self.unsaved = False
                self.parent.window().close()

        box.finished.connect(lambda _: answered())
        box.open()
        return box
