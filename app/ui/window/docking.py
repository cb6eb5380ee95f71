"""The window's docks and splitters: built, remembered between sessions (QSettings),
and put back by View > Reset layout."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QByteArray, QEvent, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QWidget,
)

#: Screens narrower than this get one dock column, so the views and tasks get the width.
COMPACT_BELOW = 1600
#: The one dock column's width: the Corpus panel's controls and a short sentence list.
LEFT_WIDTH = 300
#: Raised whenever the built layout changes, so that a layout remembered from an older
#: version (docks that no longer exist or sit elsewhere) is not put back over the new one.
LAYOUT_VERSION = 3
#: The share of the one column's height left to the Corpus panel while the Inspector is in
#: front (its corpus, encoder, Train on and Run stay in sight; the rest scrolls).
CORPUS_SHARE_BESIDE_INSPECTOR = 0.4
#: The most of the screen's height the Corpus panel asks for in the one column; the rest
#: is the window's bars and the tabs below it.
SCREEN_SHARE = 0.6


def small_screen() -> bool:
    screen = QGuiApplication.primaryScreen()
    return screen is None or screen.availableGeometry().width() < COMPACT_BELOW


class _Scrolling(QScrollArea):
    """Its widget, whole, until ``squeezable``: then it may get less, and scrolls. Whole
    or not, it asks for no more than ``SCREEN_SHARE`` of the screen's height: UMAP's
    settings and the progress bar made it push the window past a 1280x800 screen."""

    squeezable = False

    def sizeHint(self):
        return self.widget().sizeHint()

    def minimumSizeHint(self):
        if self.squeezable:
            return super().minimumSizeHint()
        whole = self.widget().minimumSizeHint()
        most = int(self.screen().availableGeometry().height() * SCREEN_SHARE)
        return whole.boundedTo(QSize(whole.width(), most))

    def eventFilter(self, watched, event):
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()  # the widget's minimum is ours: pass it on
        return super().eventFilter(watched, event)


class Docks:
    """The docks of ``window`` and its main splitter."""

    def __init__(self, window: QMainWindow, main_split: QSplitter) -> None:
        self.window, self.main_split = window, main_split
        #: The layout as built, for View > Reset layout (set by :meth:`built`).
        self.default: dict[str, QByteArray] = {}
        self.remembered = False
        #: The Corpus dock's height in the one column before the Inspector came forward.
        self._top_before: int | None = None

    def add(self, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(title)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
        )
        self.window.addDockWidget(area, dock)
        return dock

    def one_column(
        self,
        top: QDockWidget,
        under: QDockWidget,
        docks: dict[QDockWidget, str],
        roomy: QDockWidget,
    ) -> None:
        """Tab ``docks`` with ``under`` (below ``top`` in the left column) under their short
        titles (so four tabs fit), the first in front. ``top`` (the Corpus panel) scrolls,
        so that while ``roomy`` (the Inspector, whose neighbours need rows) is in front,
        the tabs take most of the column; another tab in front gives ``top`` its height
        back."""
        scroll = _Scrolling()
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setWidget(top.widget())
        top.setWidget(scroll)
        for dock, title in docks.items():
            dock.setWindowTitle(title)
            self.window.tabifyDockWidget(under, dock)
        docks = list(docks)
        docks[0].raise_()
        self.window.resizeDocks([under], [LEFT_WIDTH], Qt.Orientation.Horizontal)
        roomy.visibilityChanged.connect(lambda shown: self._share_column(top, under, shown))

    def _share_column(self, top: QDockWidget, tabs: QDockWidget, roomy_shown: bool) -> None:
        if not shiboken6.isValid(self.window):  # hidden as the window is deleted
            return
        top.widget().squeezable = roomy_shown
        top.widget().updateGeometry()
        # The column is as tall as the central widget (no top or bottom docks).
        column = self.window.centralWidget().height()
        if roomy_shown:
            self._top_before = top.height()
            height = min(
                top.widget().widget().minimumSizeHint().height(),
                int(column * CORPUS_SHARE_BESIDE_INSPECTOR),
            )
        elif self._top_before is not None:
            height, self._top_before = self._top_before, None
        else:
            return
        # resizeDocks shares the column in proportion to the sizes: give both.
        QTimer.singleShot(
            0,
            self.window,
            lambda: self.window.resizeDocks(
                [top, tabs], [height, column - height], Qt.Orientation.Vertical
            ),
        )

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
        from sentspace.app.workspace.recent import config_dir

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
