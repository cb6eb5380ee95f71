"""The top-level window shows first, then builds the main window inside it."""

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox

import sentspace.app.ui.window.startup as startup
from sentspace.app.ui.window.startup import AppWindow
from tests.ui.conftest import JOB_TIMEOUT_MS, wait_for_job


@pytest.fixture
def app_window(qtbot):
    window = AppWindow(encoder="tfidf")
    qtbot.addWidget(window)
    window.show()
    assert window.loading.text() == "Loading sentspace…"
    window.load()
    qtbot.waitUntil(lambda: window.main is not None, timeout=JOB_TIMEOUT_MS)
    qtbot.waitUntil(lambda: window.main.corpus is not None, timeout=JOB_TIMEOUT_MS)
    wait_for_job(qtbot, window.main)
    yield window
    if window.main.is_running:
        window.main.cancel()
        wait_for_job(qtbot, window.main)


def test_main_window_is_built_inside_and_opens_the_request(app_window):
    main = app_window.main
    assert app_window.centralWidget() is main
    assert not main.isWindow() and main.isVisible()
    assert main.window() is app_window
    assert len(main.corpus.texts) == 859
    assert main.corpus_panel.encoder_choice.currentData() == "tfidf"
    assert main.corpus_panel.run_button.isEnabled()


def test_title_follows_the_main_window(app_window):
    app_window.main.setWindowTitle("sentspace — study.json")
    assert app_window.windowTitle() == "sentspace — study.json"


def test_quit_closes_the_top_level_window(app_window, qtbot):
    quit_action = next(
        action for action in app_window.main.findChildren(QAction) if action.text() == "&Quit"
    )
    quit_action.trigger()
    qtbot.waitUntil(lambda: not app_window.isVisible())
    assert not app_window.main.isVisible()


def test_closing_the_window_cancels_the_running_job(app_window, qtbot):
    main = app_window.main
    main.corpus_panel.run_button.click()
    assert main.is_running
    app_window.close()
    wait_for_job(qtbot, main)
    assert not main.is_running
    assert not app_window.isVisible()


def test_a_failed_import_is_reported_not_fatal(qtbot, monkeypatch):
    monkeypatch.setattr(startup, "MAIN_MODULE", "sentspace.app.ui.no_such_module")
    window = AppWindow()
    qtbot.addWidget(window)
    window.show()
    window.load()
    qtbot.waitUntil(lambda: window.findChild(QMessageBox) is not None)
    box = window.findChild(QMessageBox)
    assert "No module named 'sentspace.app.ui.no_such_module'" in box.detailedText()
    assert window.main is None
    assert "could not start" in window.loading.text()
    box.button(QMessageBox.StandardButton.Close).click()
    qtbot.waitUntil(lambda: not window.isVisible())


def test_a_window_that_fails_to_build_is_reported(qtbot, monkeypatch):
    import sentspace.app.ui.window.main_window as main_window

    def broken():
        raise RuntimeError("no display for the plots")

    monkeypatch.setattr(main_window, "MainWindow", broken)
    window = AppWindow()
    qtbot.addWidget(window)
    window.show()
    window.load()
    qtbot.waitUntil(lambda: window.findChild(QMessageBox) is not None)
    assert "no display for the plots" in window.findChild(QMessageBox).detailedText()
    assert window.main is None
