"""Opening the window before the libraries behind it have loaded.

A bare PySide6 window is on screen 0.1 s after launch here, but numpy, pyqtgraph and
superqt, which every view is built on, take another 0.4-0.5 s to import, and our own
modules more. So this module, which imports nothing but Qt, shows the top-level window
at once with a loading message, imports :mod:`sentspace.app.ui.window.main_window` on a background thread
while the event loop keeps the window painting, moving and resizing, then builds the
:class:`~sentspace.app.ui.window.main_window.MainWindow` inside it. The corpus then loads in a job, as
ever.
"""

from __future__ import annotations

import importlib
import sys
import threading
import traceback
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMessageBox

#: The module the window needs, imported off the GUI thread.
MAIN_MODULE = "sentspace.app.ui.window.main_window"

if TYPE_CHECKING:  # the type alone: the module itself is imported on a thread
    from sentspace.app.ui.window.main_window import MainWindow


class _Importer(QObject):
    """Imports :data:`MAIN_MODULE` on a thread; its signals arrive on the GUI thread."""

    imported = Signal()
    failed = Signal(str)

    def start(self) -> None:
        threading.Thread(target=self._run, name="sentspace-import", daemon=True).start()

    def _run(self) -> None:
        try:
            importlib.import_module(MAIN_MODULE)
        except BaseException:  # shown in the window; the GUI thread decides what follows
            self.failed.emit(traceback.format_exc())
        else:
            self.imported.emit()


class AppWindow(QMainWindow):
    """The application's top-level window: a loading message, then the main window.

    Parameters
    ----------
    corpus, encoder : what to open once loaded (None: the bundled defaults).
    run : start the chosen evaluation once the corpus is loaded.

    Attributes
    ----------
    main : the :class:`~sentspace.app.ui.window.main_window.MainWindow` inside, None while loading.
    """

    def __init__(self, corpus: str | None = None, encoder: str | None = None, run: bool = False):
        super().__init__()
        self.setWindowTitle("sentspace")
        # MainWindow's own size, so nothing jumps; never more than the screen holds.
        screen = QGuiApplication.primaryScreen()
        room = screen.availableSize() if screen is not None else QSize(1400, 860)
        self.resize(min(1400, room.width()), min(860, room.height()))
        self.main: MainWindow | None = None
        self._request = (corpus, encoder, run)
        loading = QLabel("Loading sentspace…")
        loading.setAlignment(Qt.AlignmentFlag.AlignCenter)
        loading.setStyleSheet("color: gray; font-size: 16pt")
        self.setCentralWidget(loading)
        self.loading: QLabel | None = loading  # None once the main window is built
        self._importer = _Importer(self)
        self._importer.imported.connect(self._build)
        self._importer.failed.connect(self._fail)

    def load(self) -> None:
        """Import the main window's modules in the background, then build it."""
        self._importer.start()

    def _build(self) -> None:
        try:
            main = sys.modules[MAIN_MODULE].MainWindow()
        except Exception:  # a slot's exception would leave "Loading…" up for good
            self._fail(traceback.format_exc())
            return
        # A QMainWindow nested as a plain widget keeps its menus, docks and status bar.
        main.setWindowFlags(Qt.WindowType.Widget)
        main.windowTitleChanged.connect(self.setWindowTitle)
        self.setWindowTitle(main.windowTitle())
        self.setCentralWidget(main)
        self.loading = None
        self.main = main
        main.docks.restore()
        main.open_startup(*self._request)

    def _fail(self, details: str) -> None:
        # A failure comes before the main window is built, with the message still up.
        if self.loading is not None:
            self.loading.setText("sentspace could not start: see the message")
        box = QMessageBox(
            QMessageBox.Icon.Critical,
            "sentspace could not start",
            "sentspace failed to load or build its window. Reinstalling "
            "the environment (python3 tasks.py app) usually fixes a "
            "broken library; the details say what failed.",
            QMessageBox.StandardButton.Close,
            self,
        )
        box.setDetailedText(details)
        box.finished.connect(lambda _: self.close())
        box.open()

    def closeEvent(self, event: QCloseEvent) -> None:
        # A nested window gets no close event of its own when its top level closes.
        if self.main is not None and not self.main.close():
            event.ignore()
            return
        super().closeEvent(event)


def launch(corpus: str | None = None, encoder: str | None = None, run: bool = False) -> int:
    """Show the window, load the rest behind it, and run the event loop."""
    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("sentspace")
    window = AppWindow(corpus, encoder, run)
    window.show()
    window.load()
    return app.exec()
