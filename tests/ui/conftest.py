import os

# GUI tests run headless unless a display is asked for explicitly.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from app.ui.main_window import MainWindow  # noqa: E402

JOB_TIMEOUT_MS = 60_000


@pytest.fixture(autouse=True)
def no_window_outlives_its_test(qapp):
    """A window holding unsaved results refuses pytest-qt's close and asks to save; left
    open, it and its question would sit over the next tests' widgets and take their
    mouse events. Discard and close them once the test is over."""
    yield
    from PySide6.QtWidgets import QApplication, QMessageBox

    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, MainWindow):
            widget.unsaved = False
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QMessageBox) and widget.isVisible():
            widget.reject()
        elif isinstance(widget, MainWindow) and widget.isVisible():
            widget.close()
    QApplication.processEvents()


@pytest.fixture(autouse=True)
def fresh_journals(monkeypatch, tmp_path):
    """Each test starts without edits: journals of corrections made by other tests are
    replayed otherwise, as they are for a user."""
    from app.annotations.journal import DATA_DIR_ENV

    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "journals"))


@pytest.fixture
def window(qtbot):
    """The main window with the bundled corpus loaded."""
    main_window = MainWindow()
    qtbot.addWidget(main_window)
    main_window.show()
    main_window.open_corpus("msrp-grouped")
    wait_for_job(qtbot, main_window)
    assert main_window.corpus is not None
    yield main_window
    if main_window.is_running:
        main_window.cancel()
        wait_for_job(qtbot, main_window)


def wait_for_job(qtbot, main_window):
    """Block (running the event loop) until the window's current job has finished."""
    qtbot.waitUntil(lambda: not main_window.is_running, timeout=JOB_TIMEOUT_MS)
