import os

# GUI tests run headless unless a display is asked for explicitly.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402
from PySide6.QtCore import Qt  # noqa: E402

from sentspace.app.ui.window.main_window import MainWindow  # noqa: E402

# Fixtures: the bundled corpus and its bow and tfidf spaces, as the core's tests query
# them (test_neighbours_view.py).
from tests.test_neighbour_search import grouped, spaces  # noqa: E402, F401

JOB_TIMEOUT_MS = 60_000
LEFT = Qt.MouseButton.LeftButton


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
def no_folder_of_another_test(monkeypatch):
    """File dialogs start beside the workspace or corpus file last opened in the
    process (one window per app); each test starts without one."""
    from sentspace.app.ui.kit import file_dialogs

    monkeypatch.setattr(file_dialogs, "_working_near", None)


@pytest.fixture(autouse=True)
def fresh_journals(monkeypatch, tmp_path):
    """Each test starts without edits: journals of corrections made by other tests are
    replayed otherwise, as they are for a user."""
    from sentspace.app.annotations.journal import DATA_DIR_ENV

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


def reopened_in_new_window(qtbot, path):
    """A new window, shown, with the workspace at ``path`` opened in it."""
    main_window = MainWindow()
    qtbot.addWidget(main_window)
    main_window.show()
    main_window.files.open_workspace(path)
    wait_for_job(qtbot, main_window)
    return main_window


def save_and_wait(qtbot, main_window, path, **options):
    """Save the window's workspace to ``path`` (a job) and wait for it to be written;
    the path, or None when the window did not save."""
    saved = main_window.files.save_workspace_to(path, **options)
    wait_for_job(qtbot, main_window)
    return saved


def show_widget(qtbot, widget, size):
    """``widget`` shown at ``size`` (width, height), closed after the test."""
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    return widget


def show_chart(qtbot, chart, size):
    """``chart`` shown at ``size``, exposed, its axes laid out."""
    show_widget(qtbot, chart, size)
    qtbot.waitExposed(chart)
    qtbot.wait(50)  # let axes take their text width before mapping data to pixels
    return chart


# --- steps the window tests share: what a user does, as a user does it ------------


def settle(qtbot, window):
    qtbot.waitExposed(window)
    qtbot.wait(100)  # let docks and plots take their size before mapping to pixels


def run_and_wait(qtbot, window):
    """Run (encode, project, classify) with the encoder chosen, to the end."""
    window.run()
    wait_for_job(qtbot, window)


def evaluate_and_wait(qtbot, window, name):
    window.evaluate(name)
    wait_for_job(qtbot, window)


def open_and_wait(qtbot, window, spec):
    window.open_corpus(spec)
    wait_for_job(qtbot, window)
    return str(spec)


def evaluation_chosen(qtbot, spec, encoder, evaluation):
    """A new window with the corpus ``spec`` open, ``encoder`` chosen and
    ``evaluation`` picked in the Evaluations panel, shown; (window, panel)."""
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    open_and_wait(qtbot, window, spec)
    window.corpus_panel.choose(encoder)
    panel = window.evaluation_panel
    window.tasks.setCurrentWidget(panel)
    panel.choice.setCurrentIndex(panel.choice.findData(evaluation))
    return window, panel


def open_sick(qtbot, window, shared_data, encoder="tfidf"):
    """SICK's trial pairs opened, ``encoder`` chosen (None: left as it was); its spec."""
    spec = open_and_wait(qtbot, window, shared_data / "sick" / "SICK_trial.txt")
    if encoder is not None:
        window.corpus_panel.choose(encoder)
    return spec


def costra_shown(qtbot, window):
    """Costra run and evaluated, its orderings tab shown; the Costra view."""
    open_and_wait(qtbot, window, "costra")
    run_and_wait(qtbot, window)
    evaluate_and_wait(qtbot, window, "costra")
    window.views.setCurrentIndex(1)
    settle(qtbot, window)
    return window.views.costra_view


def double_click_corpus(qtbot, window, spec):
    """Switch corpus as a user does: double-click it in the Workspace panel."""
    tree = window.workspace_panel.tree
    item = window.workspace_panel._corpus_item(spec)
    position = tree.visualItemRect(item).center()
    # A double click is a click and a double-click event (Qt's item views need both).
    qtbot.mouseClick(tree.viewport(), LEFT, pos=position)
    qtbot.mouseDClick(tree.viewport(), LEFT, pos=position)


def click_row(qtbot, table, row, column=0):
    """Click a cell of a table widget or of a table view over a model."""
    index = table.model().index(row, column)
    table.scrollTo(index)
    qtbot.mouseClick(table.viewport(), LEFT, pos=table.visualRect(index).center())


def shift_drag(qtbot, viewport, start, end):
    from PySide6.QtCore import QEvent, QPointF
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    shift = Qt.KeyboardModifier.ShiftModifier
    qtbot.mousePress(viewport, LEFT, shift, start)
    for step in range(1, 11):
        point = QPointF(start + (end - start) * step / 10)
        QApplication.sendEvent(
            viewport,
            QMouseEvent(
                QEvent.Type.MouseMove,
                point,
                viewport.mapToGlobal(point),
                Qt.MouseButton.NoButton,
                LEFT,
                shift,
            ),
        )
    qtbot.mouseRelease(viewport, LEFT, shift, end)


def click_relatedness_point(qtbot, window):
    """Click a point of the relatedness chart shown (one pair); (result, its row)."""
    import numpy as np
    from PySide6.QtCore import QPointF

    chart = window.evaluation_panel.chart
    result = window.evaluation_panel.current[1]
    k = int(np.argmax(result.gold - result.cosine * 5))  # far from the diagonal's crowd
    chart.plot.setRange(
        xRange=(result.gold[k] - 0.05, result.gold[k] + 0.05),
        yRange=(result.cosine[k] - 0.01, result.cosine[k] + 0.01),
        padding=0,
    )
    qtbot.wait(50)
    position = chart.mapFromScene(
        chart.plot.vb.mapViewToScene(QPointF(result.gold[k], result.cosine[k]))
    )
    qtbot.mouseClick(chart.viewport(), LEFT, pos=position)
    return result, k


def sick_pair_clicked(qtbot, window, shared_data, run=True):
    """SICK with TF-IDF (run first, or not), relatedness evaluated and a point of its
    chart clicked; (result, its row)."""
    open_sick(qtbot, window, shared_data)
    if run:
        run_and_wait(qtbot, window)
    evaluate_and_wait(qtbot, window, "relatedness")
    settle(qtbot, window)
    return click_relatedness_point(qtbot, window)


def drawn_colours(projection):
    """Each point's colour as the projection draws it (hex, by point index; points are
    drawn grey ones first, so not in their own order)."""
    import numpy as np

    drawn = projection.points.data
    colours = np.empty(projection.point_count, dtype=object)
    colours[drawn["data"].astype(int)] = [brush.color().name() for brush in drawn["brush"]]
    return colours
