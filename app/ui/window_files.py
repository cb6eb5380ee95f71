"""Files in and out of the window: corpora, encoders, exports and workspaces."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QFileDialog,
    QMessageBox,
)

from app.corpora.tabular import ColumnsUnclear
from app.errors import InputError
from app.export import export_matrix, export_sentences
from app.session import (
    Session,
    restore_session,
)
from app.ui.figures import save_svg
from app.ui.mapping_dialog import MappingDialog
from app.ui.window_helpers import (
    EXPORT_FILTERS,
)
from app.workspace import (
    EXTENSION,
    Workspace,
    WorkspaceError,
    open_workspace,
    save_workspace,
)
from models import make_encoder
from models.precomputed import Precomputed
from models.word2vec import read_training_text

CORPUS_FILTER = ("Corpora (*.txt *.csv *.tsv *.jsonl *.parquet *.pq *.pyr *.label *.data);;"
                 "Parquet (*.parquet *.pq);;All files (*)")


class FilesMixin:
    """Part of :class:`app.ui.main_window.MainWindow`: files in and out; corpora,
    encoders, exports and workspaces."""

    def _choose_corpus_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open a corpus", "", CORPUS_FILTER)
        if path:
            self.open_corpus(path)

    def _choose_corpus_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open a corpus folder")
        if folder:
            self.open_corpus(folder)

    def ask_columns(self, error: ColumnsUnclear) -> MappingDialog:
        """Let the user say which columns hold what, then load the table with that."""
        dialog = MappingDialog(error.path, str(error.problem), self)
        dialog.accepted.connect(lambda: self.open_corpus(error.path,
                                                         mapping=dialog.mapping()))
        dialog.open()
        return dialog

    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        paths = [url.toLocalFile() for url in event.mimeData().urls() if url.isLocalFile()]
        if paths:
            self.open_corpus(paths[0])
            event.acceptProposedAction()

    def _choose_embeddings(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Load embeddings", "",
            "Embeddings (*.npy *.npz *.tsv *.parquet);;All files (*)")
        if path:
            self.load_embeddings(path)

    def _choose_encoder_file(self, prefix: str) -> None:
        if prefix == "st:":
            path = QFileDialog.getExistingDirectory(self, "A sentence-transformers model folder")
        else:
            path, _ = QFileDialog.getOpenFileName(
                self, "Word vectors", "", "Word vectors (*.txt *.vec *.bin *.gz);;All files (*)")
        if path:
            self.add_encoder(prefix + path)

    def add_encoder(self, spec: str) -> None:
        """Offer the encoder ``spec`` (``path:FILE``, ``path-sum:FILE``, ``st:FOLDER``) in
        the encoder choice; a bad file or folder is said at once."""
        try:
            encoder = make_encoder(spec)
        except InputError as error:
            self._warn("Cannot use this encoder", str(error))
            return
        if self.encoder_choice.findData(spec) < 0:
            self.encoder_choice.addItem(f"{encoder.title}: {Path(spec.split(':', 1)[1]).name}",
                                        spec)
        self.encoder_choice.setCurrentIndex(self.encoder_choice.findData(spec))

    def load_embeddings(self, path: str | Path) -> None:
        """Read and align a file of embeddings in the background; it becomes an encoder."""
        if self.corpus is None or self.is_running:
            return
        corpus, spec = self.corpus, self.corpus_spec

        def loaded(encoder: Precomputed) -> None:
            key = f"precomputed:{encoder.path}"
            self.session.add_precomputed(spec, key, encoder)
            if spec == self.corpus_spec:
                self.encoder_choice.setCurrentIndex(self.encoder_choice.findData(key))

        self._start(lambda: Precomputed(path, corpus), f"loading embeddings {Path(path).name}",
                    on_result=loaded)

    def _offer_precomputed(self, key: str, encoder: Precomputed) -> None:
        if self.encoder_choice.findData(key) < 0:
            self.encoder_choice.addItem(f"{encoder.name} ({encoder.dim}-d, aligned by "
                                        f"{encoder.aligned_by})", key)

    def _training_text_chosen(self, index: int) -> None:
        if self.training_text.itemData(index) != "choose":
            return
        path, _ = QFileDialog.getOpenFileName(self, "Training text (one sentence a line)",
                                              "", "Text (*.txt);;All files (*)")
        if path:
            self.load_training_text(path)
        else:
            self.training_text.setCurrentIndex(0)

    def load_training_text(self, path: str | Path) -> None:
        """Read a plain text file in the background; trained encoders learn from it."""
        def loaded(sentences: list[str]) -> None:
            self.training_sets[str(path)] = sentences
            label = f"{Path(path).name} ({len(sentences):,} sentences)"
            index = self.training_text.findData(str(path))
            if index < 0:
                self.training_text.insertItem(1, label, str(path))
                index = 1
            self.training_text.setCurrentIndex(index)

        def failed_back() -> None:
            if self.training_text.currentData() == "choose":
                self.training_text.setCurrentIndex(0)

        self._start(lambda: read_training_text(path), f"reading {Path(path).name}",
                    on_result=loaded)
        self.job.worker.finished.connect(failed_back)

    def _save_target(self, title: str, filters: str) -> str:
        path, _ = QFileDialog.getSaveFileName(self, title, "", filters)
        return path

    def _choose_embeddings_target(self) -> None:
        path = self._save_target("Export embeddings", EXPORT_FILTERS)
        if path:
            self.export_embeddings(path)

    def _choose_projection_target(self) -> None:
        path = self._save_target("Export projection coordinates", EXPORT_FILTERS)
        if path:
            self.export_projection(path)

    def _choose_figure_target(self) -> None:
        path = self._save_target("Export figure", "PNG image (*.png);;SVG drawing (*.svg)")
        if path:
            self.export_figure(path)

    def export_embeddings(self, path: str | Path) -> None:
        """Write the current embeddings, one row per corpus entry, in the background."""
        exploration = self.exploration
        encoder = exploration.encoder
        details = {"encoder": {"name": encoder.name, "family": encoder.family,
                               "params": encoder.params(),
                               "fingerprint": encoder.fingerprint()}}
        self._start(lambda: export_matrix(exploration.corpus, exploration.embeddings, path,
                                          details),
                    f"exporting embeddings to {Path(path).name}", on_result=self._exported)

    def export_projection(self, path: str | Path) -> None:
        """Write the 2D coordinates (x, y per sentence) in the background."""
        exploration = self.exploration
        projection = exploration.projection
        details = {"projection": {"method": projection.method,
                                  "parameters": projection.parameters,
                                  "of_encoder": exploration.encoder.name}}
        self._start(lambda: export_matrix(exploration.corpus, projection.coordinates, path,
                                          details),
                    f"exporting projection to {Path(path).name}", on_result=self._exported)

    def export_figure(self, path: str | Path) -> None:
        """Save the projection plot as PNG or SVG (by the file's extension)."""
        path = str(path)
        plot = self.projection.plot
        if path.lower().endswith(".svg"):
            save_svg(plot, path, self.projection.legend.text())
        else:
            from pyqtgraph.exporters import ImageExporter  # noqa: PLC0415 (lazy: start)
            ImageExporter(plot.getPlotItem()).export(path)
        self.statusBar().showMessage(f"Saved {path}")

    def _exported(self, paths: list[Path]) -> None:
        self.statusBar().showMessage("Saved " + ", ".join(str(p) for p in paths))

    def export_selection(self, path: str | Path) -> None:
        """The listed sentences as CSV: index, id, text, group."""
        export_sentences(self.corpus, self.listed_sentences(), path)

    def _choose_selection_target(self) -> None:
        if self.group_list.count():
            path, _ = QFileDialog.getSaveFileName(self, "Export sentences", "", "CSV (*.csv)")
            if path:
                self.export_selection(path)

    def _choose_corrected_target(self) -> None:
        if self.annotations is None:
            return
        folder = QFileDialog.getExistingDirectory(self, "Export the corrected corpus to")
        if folder:
            self.export_corrected(folder)

    def export_corrected(self, folder: str | Path) -> list[Path]:
        written = self.annotations.export(folder)
        self.statusBar().showMessage(f"Wrote {len(written)} files to {folder}")
        return written

    def workspace(self) -> Workspace:
        """Everything needed to come back to this session (see
        :meth:`app.session.Session.to_workspace`): the current corpus first."""
        self._remember_view()
        return self.session.to_workspace()

    def _save_workspace(self, ask: bool = False) -> None:
        if self.corpus is None:
            return
        path = self.workspace_path
        if ask or path is None:
            dialog = QFileDialog(self, "Save workspace", "",
                                 f"sentspace workspace (*{EXTENSION})")
            dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
            dialog.setDefaultSuffix(EXTENSION.lstrip("."))
            if not dialog.exec():
                return
            path = Path(dialog.selectedFiles()[0])
        self.save_workspace_to(path)

    def save_workspace_to(self, path: str | Path) -> Path:
        """Save the session to ``path`` (``.sentspace`` added to a bare name)."""
        self.workspace_path = save_workspace(self.workspace(), path)
        self.unsaved = False
        self.setWindowTitle(f"sentspace — {self.workspace_path.name}")
        self.statusBar().showMessage(f"Saved {self.workspace_path}")
        return self.workspace_path

    def _choose_workspace(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open workspace", "",
                                              "sentspace workspace (*.sentspace);;All files (*)")
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
            self._warn("Cannot open the workspace", str(error))
            return
        if changes:
            self._warn("Files changed since the workspace was saved",
                       "\n".join(str(change) for change in changes))

        def restore(restored: Session) -> None:
            self.session.replace_with(restored)
            self.workspace_path = Path(path)
            self.unsaved = False
            self.setWindowTitle(f"sentspace — {self.workspace_path.name}")

        if not self.is_running:
            self.corpus_name.setText("Loading…")
        self._start(restore_session(workspace, path), f"opening workspace {Path(path).name}",
                    on_result=restore, queue=True, quiet=True)

    def closeEvent(self, event) -> None:
        if self.unsaved:
            # Results not in a workspace would be lost (edits are in their journals).
            event.ignore()
            self._offer_to_save()
            return
        if self.is_running:
            self.job.cancel()
        self._remember_layout()
        self.session.close_all()
        super().closeEvent(event)

    def _offer_to_save(self) -> QMessageBox:
        buttons = QMessageBox.StandardButton
        box = QMessageBox(QMessageBox.Icon.Question, "Save the workspace?",
                          "This session has results that are not saved in a workspace. "
                          "Save them before quitting?",
                          buttons.Save | buttons.Discard | buttons.Cancel, self)
        box.setObjectName("save-dialog")
        box.setDefaultButton(buttons.Save)

        def answered() -> None:
            choice = box.standardButton(box.clickedButton())
            if choice == buttons.Save:
                self._save_workspace()
            elif choice == buttons.Discard:
                self.unsaved = False
            if not self.unsaved:
                self.window().close()

        box.finished.connect(lambda _: answered())
        box.open()
        return box
