"""Every file dialog of the window goes through here: each starts in the folder the user
last chose a file or folder in (any dialog, kept across sessions), and a save dialog's
bare name gets the chosen filter's extension (:func:`sentspace.app.file_names.completed_name`)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from sentspace.app.file_names import completed_name
from sentspace.app.workspace import config_dir

FOLDER_KEY = "last-folder"


def _settings() -> QSettings:
    return QSettings(str(config_dir() / "dialogs.ini"), QSettings.Format.IniFormat)


def last_folder() -> str:
    """Where the next dialog starts ("" before any: Qt's working folder)."""
    return str(_settings().value(FOLDER_KEY, ""))


def _remember(path: str) -> str:
    if path:
        folder = Path(path) if Path(path).is_dir() else Path(path).parent
        _settings().setValue(FOLDER_KEY, str(folder))
    return path


def open_file(parent: QWidget, title: str, filters: str) -> str:
    """The file chosen to read ("" when cancelled)."""
    path, _ = QFileDialog.getOpenFileName(parent, title, last_folder(), filters)
    return _remember(path)


def open_folder(parent: QWidget, title: str) -> str:
    """The folder chosen ("" when cancelled)."""
    return _remember(QFileDialog.getExistingDirectory(parent, title, last_folder()))


def save_file(parent: QWidget, title: str, filters: str) -> str:
    """The file to write ("" when cancelled), completed by the filter chosen. The dialog
    asked about replacing only the name typed, so a completed name that exists is asked
    about here."""
    typed, chosen = QFileDialog.getSaveFileName(parent, title, last_folder(), filters)
    if not typed:
        return ""
    path = completed_name(typed, chosen or filters.split(";;")[0], filters)
    if path != Path(typed) and path.exists() and QMessageBox.question(
            parent, title, f"{path.name} already exists. Replace it?") \
            != QMessageBox.StandardButton.Yes:
        return ""
    return _remember(str(path))

