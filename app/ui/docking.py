"""The window's docks and splitters: built, remembered between sessions (QSettings),
and put back by View > Reset layout."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QMainWindow, QSplitter, QWidget

#: Screens narrower than this get one dock column, so the views and tasks get the width.
COMPACT_BELOW = 1600
#: The one dock column's width: the Corpus panel's controls and a short sentence list.
LEFT_WIDTH = 300
#: Raised whenever the built layout changes, so that a layout remembered from an older
#: version (docks that no longer exist or sit elsewhere) is not put back over the new one.
LAYOUT_VERSION = 2


def small_screen() -> bool:
    screen = QGuiApplication.primaryScreen()
    return screen is None or screen.availableGeometry().width() < COMPACT_BELOW


class Docks:
    """The docks of ``window`` and its main splitter."""

    def __init__(self, window: QMainWindow, main_split: QSplitter) -> None:
        self.window, self.main_split = window, main_split
        #: The layout as built, for View > Reset layout (set by :meth:`built`).
        self.default: dict[str, QByteArray] = {}
        self.remembered = False

    def add(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(title)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.window.addDockWidget(area, dock)
        return dock

    def one_column(self, under: QDockWidget, docks: dict[QDockWidget, str]) -> None:
        """Tab ``docks`` with ``under`` (in the left column) under their short titles
        (so four tabs fit), the first in front."""
        for dock, title in docks.items():
            dock.setWindowTitle(title)
            self.window.tabifyDockWidget(under, dock)
        docks = list(docks)
        docks[0].raise_()
        self.window.resizeDocks([under], [LEFT_WIDTH], Qt.Orientation.Horizontal)

    def built(self) -> None:
        """The window is assembled: its layout is the one Reset layout goes back to."""
        self.default = self.state()

    def state(self) -> dict[str, QByteArray]:
        """Where the docks are and how the splitters are set."""
        return {"docks": self.window.saveState(), "main-split": self.main_split.saveState()}

    def set_state(self, state: dict) -> None:
        if state.get("docks") is not None:
            self.window.restoreState(state["docks"])
        if state.get("main-split") is not None:
            self.main_split.restoreState(state["main-split"])

    def reset(self) -> None:
        """The layout as first built (View > Reset layout)."""
        self.set_state(self.default)
        for dock in self.window.findChildren(QDockWidget):
            dock.show()

    @staticmethod
    def settings() -> QSettings:
        from app.workspace import config_dir

        return QSettings(str(config_dir() / "layout.ini"), QSettings.Format.IniFormat)

    def restore(self) -> None:
        """Bring back the layout the user left (the app calls this; tests keep the
        built one), and remember it on quit."""
        settings = self.settings()
        if settings.value("version") == str(LAYOUT_VERSION):
            self.set_state({key: settings.value(key) for key in self.default})
        self.remembered = True

    def remember(self) -> None:
        if self.remembered:
            settings = self.settings()
            for key, value in self.state().items():
                settings.setValue(key, value)
            settings.setValue("version", str(LAYOUT_VERSION))
            settings.sync()
