"""Every file dialog of the window goes through here: each starts in the folder last
chosen for the same purpose (corpora, workspaces, exports...: kept across sessions; before
any, the folder of the workspace or corpus open, else the working folder), and a save dialog's bare name gets the chosen filter's
extension (:func:`sentspace.app.base.file_names.completed_name`)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox, QWidget

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
#: The folder of the workspace or corpus file last opened or saved (None: none yet).
_working_near: Path | None = None


def _settings() -> QSettings:
    return QSettings(str(config_dir() / "dialogs.ini"), QSettings.Format.IniFormat)


def work_near(path: str | Path) -> None:
    """A workspace or corpus file was opened or saved at ``path``: a dialog not used before
    starts in its folder (a name of a built-in corpus, no file, changes nothing)."""
    global _working_near
    path = Path(path).absolute()
    if path.exists():
        _working_near = path if path.is_dir() else path.parent


def last_folder(purpose: str) -> str:
    """Where the next dialog for ``purpose`` starts: the folder last chosen for it if it
    still exists, else that of the workspace or corpus open, else the working folder
    (the home folder sent a user far from the project they work in)."""
    if purpose not in PURPOSES:
        raise ValueError(f"unknown purpose of a file dialog: {purpose!r}")
    folder = str(_settings().value(f"{FOLDER_KEY}/{purpose}", ""))
    if folder and Path(folder).is_dir():
        return folder
    if _working_near is not None and _working_near.is_dir():
        return str(_working_near)
    return str(Path.cwd())


def say_written(widget: QWidget, path: str | Path) -> None:
    """Say in the window's status bar where an export wrote (it said nothing)."""
    found: QWidget | None = widget
    while found is not None and not isinstance(found, QMainWindow):
        found = found.parentWidget()
    if isinstance(found, QMainWindow):
        found.statusBar().showMessage(f"Saved {path}")


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
