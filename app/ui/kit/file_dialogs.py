"""Every file dialog of the window goes through here: each starts in the folder last
chosen for the same purpose (corpora, workspaces, exports...: kept across sessions, the
home folder before any), and a save dialog's bare name gets the chosen filter's
extension (:func:`sentspace.app.base.file_names.completed_name`)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from sentspace.app.base.file_names import completed_name
from sentspace.app.workspace.recent import config_dir

#: What a dialog is for; each remembers its own last folder, so exporting a figure does
#: not send the next Open corpus to the figures' folder.
CORPORA, WORKSPACES, EXPORTS, ENCODERS, JOURNALS, REVIEW_BATCHES, RESULTS = (
    "corpora",
    "workspaces",
    "exports",
    "encoders",
    "journals",
    "review-batches",
    "results",
)
PURPOSES = (CORPORA, WORKSPACES, EXPORTS, ENCODERS, JOURNALS, REVIEW_BATCHES, RESULTS)
FOLDER_KEY = "last-folder"


def _settings() -> QSettings:
    return QSettings(str(config_dir() / "dialogs.ini"), QSettings.Format.IniFormat)


def last_folder(purpose: str) -> str:
    """Where the next dialog for ``purpose`` starts: the folder last chosen for it if it
    still exists, else the home folder (not the working folder the app started in)."""
    if purpose not in PURPOSES:
        raise ValueError(f"unknown purpose of a file dialog: {purpose!r}")
    folder = str(_settings().value(f"{FOLDER_KEY}/{purpose}", ""))
    return folder if folder and Path(folder).is_dir() else str(Path.home())


def _remember(path: str, purpose: str) -> str:
    if path:
        folder = Path(path) if Path(path).is_dir() else Path(path).parent
        _settings().setValue(f"{FOLDER_KEY}/{purpose}", str(folder))
    return path


def open_file(parent: QWidget, title: str, filters: str, *, purpose: str) -> str:
    """The file chosen to read ("" when cancelled)."""
    path, _ = QFileDialog.getOpenFileName(parent, title, last_folder(purpose), filters)
    return _remember(path, purpose)


def open_folder(parent: QWidget, title: str, *, purpose: str) -> str:
    """The folder chosen ("" when cancelled)."""
    return _remember(QFileDialog.getExistingDirectory(parent, title, last_folder(purpose)), purpose)


def save_file(parent: QWidget, title: str, filters: str, *, purpose: str = EXPORTS) -> str:
    """The file to write ("" when cancelled), completed by the filter chosen. The dialog
    asked about replacing only the name typed, so a completed name that exists is asked
    about here."""
    typed, chosen = QFileDialog.getSaveFileName(parent, title, last_folder(purpose), filters)
    if not typed:
        return ""
    path = completed_name(typed, chosen or filters.split(";;")[0], filters)
    if (
        path != Path(typed)
        and path.exists()
        and QMessageBox.question(parent, title, f"{path.name} already exists. Replace it?")
        != QMessageBox.StandardButton.Yes
    ):
        return ""
    return _remember(str(path), purpose)
