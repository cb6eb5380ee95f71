"""Files in and out of the window: corpora opened by dialog, exports (embeddings,
projection, figure, the corrected corpus) and workspaces (save, open, recent, the
offer to save on quitting)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox

from sentspace.app.corpora.tabular import ColumnsUnclear
from sentspace.app.export import export_matrix
from sentspace.app.session import Session, restore_session
from sentspace.app.ui.charts.figures import save_svg
from sentspace.app.ui.kit.file_dialogs import open_file, open_folder, save_file
from sentspace.app.ui.panels.mapping_dialog import MappingDialog
from sentspace.app.workspace import (
    EXTENSION,
    Workspace,
    WorkspaceError,
    open_workspace,
    recent_workspaces,
    save_workspace,
)

CORPUS_FILTER = ("Corpora (*.txt *.csv *.tsv *.jsonl *.parquet *.pq *.pyr *.label *.data);;"
                 "Parquet (*.parquet *.pq);;All files (*)")
EXPORT_FILTERS = ("NumPy array + JSON sidecar (*.npy);;Parquet (*.parquet);;"
                  "Embedding Projector pair (vectors.tsv)")


class Files:
    """The file dialogs and writers of ``window``."""

    def __init__(self, window) -> None:
        self.window = window
        self.workspace_path: Path | None = None
        self.export_actions: list[QAction] = []
        #: Whether the session changed since it was last saved or opened.
        self.unsaved = False
        window.session.modified.connect(lambda _: setattr(self, "unsaved", True))

    def fill_recent_menu(self, menu) -> None:
        menu.clear()
        for path in recent_workspaces():
            action = menu.addAction(str(path))
            action.triggered.connect(lambda _=False, p=path: self.open_workspace(p))
        menu.setEnabled(not menu.isEmpty())

    def choose_corpus_file(self) -> None:
        path = open_file(self.window, "Open a corpus", CORPUS_FILTER)
        if path:
            self.window.open_corpus(path)

    def choose_corpus_folder(self) -> None:
        folder = open_folder(self.window, "Open a corpus folder")
        if folder:
            self.window.open_corpus(folder)

    def ask_columns(self, error: ColumnsUnclear) -> MappingDialog:
        """Let the user say which columns hold what, then load the table with that."""
        dialog = MappingDialog(error.path, str(error.problem), self.window)
        dialog.accepted.connect(lambda: self.window.open_corpus(error.path,
                                                                mapping=dialog.mapping()))
        dialog.open()
        return dialog

    def choose_embeddings_target(self) -> None:
        path = save_file(self.window, "Export embeddings", EXPORT_FILTERS)
        if path:
            self.export_embeddings(path)

    def choose_projection_target(self) -> None:
        path = save_file(self.window, "Export projection coordinates", EXPORT_FILTERS)
        if path:
            self.export_projection(path)

    def choose_figure_target(self) -> None:
        path = save_file(self.window, "Export figure", "PNG image (*.png);;SVG drawing (*.svg)")
        if path:
            self.export_figure(path)

    def choose_map_target(self) -> None:
        path = save_file(self.window, "Export map as web page", "Web page (*.html)")
        if path:
            self.export_map(path)

    def export_map(self, path: str | Path) -> Path:
        """The projection shown as one self-contained web page: the groups as edited,
        its regions, and the corpus's results of this version in its provenance."""
        from sentspace.app.results import Result  # noqa: PLC0415
        from sentspace.app.web_map import export_map  # noqa: PLC0415 (lazy: plotly.js)

        state = self.window.current
        # A saved result of an old workspace keeps its rows, not the scores a map shows.
        results = [run.result for run in state.evaluations if isinstance(run.result, Result)
                   and run.result.provenance.corpus_fingerprint == state.corpus.fingerprint]
        written = export_map(state.exploration, path,
                             groups=self.window.selecting.sentence_groups,
                             regions=state.regions, results=results)
        self.window.statusBar().showMessage(f"Wrote the map to {written}")
        return written

    def export_embeddings(self, path: str | Path) -> None:
        """Write the current embeddings, one row per corpus entry, in the background."""
        exploration = self.window.exploration
        encoder = exploration.encoder
        details = {"encoder": {"name": encoder.name, "family": encoder.family,
                               "params": encoder.params(),
                               "fingerprint": encoder.fingerprint()}}
        self.window.jobs.start(
            lambda: export_matrix(exploration.corpus, exploration.embeddings, path, details),
            f"exporting embeddings to {Path(path).name}", on_result=self._exported)

    def export_projection(self, path: str | Path) -> None:
        """Write the 2D coordinates (x, y per sentence) in the background."""
        exploration = self.window.exploration
        projection = exploration.projection
        details = {"projection": {"method": projection.method,
                                  "parameters": projection.parameters,
                                  "of_encoder": exploration.encoder.name}}
        self.window.jobs.start(
            lambda: export_matrix(exploration.corpus, projection.coordinates, path, details),
            f"exporting projection to {Path(path).name}", on_result=self._exported)

    def export_figure(self, path: str | Path) -> None:
        """Save the projection plot as PNG or SVG (by the file's extension)."""
        path = str(path)
        plot = self.window.projection.plot
        if path.lower().endswith(".svg"):
            save_svg(plot, path, self.window.projection.legend.text())
        else:
            from pyqtgraph.exporters import ImageExporter  # noqa: PLC0415 (lazy: start)
            ImageExporter(plot.getPlotItem()).export(path)
        self.window.statusBar().showMessage(f"Saved {path}")

    def _exported(self, paths: list[Path]) -> None:
        self.window.statusBar().showMessage("Saved " + ", ".join(str(p) for p in paths))

    def choose_corrected_target(self) -> None:
        if self.window.annotations is None:
            return
        folder = open_folder(self.window, "Export the corrected corpus to")
        if folder:
            self.export_corrected(folder)

    def export_corrected(self, folder: str | Path) -> list[Path]:
        written = self.window.annotations.export(folder)
        self.window.statusBar().showMessage(f"Wrote {len(written)} files to {folder}")
        return written

    def workspace(self) -> Workspace:
        """Everything needed to come back to this session (see
        :meth:`sentspace.app.session.Session.to_workspace`): the current corpus first."""
        self.window.showing.remember_view()
        return self.window.session.to_workspace()

    def save_workspace(self, ask: bool = False) -> None:
        if self.window.corpus is None:
            return
        path = self.workspace_path
        if ask or path is None:
            chosen = save_file(self.window, "Save workspace",
                               f"sentspace workspace (*{EXTENSION})")
            if not chosen:
                return
            path = Path(chosen)
        self.save_workspace_to(path)

    def save_workspace_to(self, path: str | Path) -> Path:
        """Save the session to ``path`` (``.sentspace`` added to a bare name)."""
        self.workspace_path = save_workspace(self.workspace(), path)
        self.unsaved = False
        self.window.setWindowTitle(f"sentspace — {self.workspace_path.name}")
        self.window.statusBar().showMessage(f"Saved {self.workspace_path}")
        return self.workspace_path

    def choose_workspace(self) -> None:
        path = open_file(self.window, "Open workspace",
                         f"sentspace workspace (*{EXTENSION});;All files (*)")
        if path:
            self.open_workspace(path)

    def open_workspace(self, path: str | Path) -> None:
        """Open a saved workspace in place of the open corpora: each corpus with its
        edits, runs (the saved layouts), results with their charts, review lists, view
        settings and selection, after the running job if there is one. Files that
        changed since it was saved are listed; nothing is overwritten."""
        try:
            workspace, changes = open_workspace(path)
        except WorkspaceError as error:
            self.window.warn("Cannot open the workspace", str(error))
            return
        if changes:
            self.window.warn("Files changed since the workspace was saved",
                             "\n".join(str(change) for change in changes))

        def restore(restored: Session) -> None:
            self.window.session.replace_with(restored)
            self.workspace_path = Path(path)
            self.unsaved = False
            self.window.setWindowTitle(f"sentspace — {self.workspace_path.name}")

        if not self.window.jobs.is_running:
            self.window.corpus_panel.corpus_name.setText("Loading…")
        self.window.jobs.start(restore_session(workspace, path),
                               f"opening workspace {Path(path).name}",
                               on_result=restore, queue=True, quiet=True)

    def offer_to_save(self) -> QMessageBox:
        buttons = QMessageBox.StandardButton
        box = QMessageBox(QMessageBox.Icon.Question, "Save the workspace?",
                          "This session has results that are not saved in a workspace. "
                          "Save them before quitting?",
                          buttons.Save | buttons.Discard | buttons.Cancel, self.window)
        box.setObjectName("save-dialog")
        box.setDefaultButton(buttons.Save)

        def answered() -> None:
            choice = box.standardButton(box.clickedButton())
            if choice == buttons.Save:
                self.save_workspace()
            elif choice == buttons.Discard:
                self.unsaved = False
            if not self.unsaved:
                self.window.window().close()

        box.finished.connect(lambda _: answered())
        box.open()
        return box
