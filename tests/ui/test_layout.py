"""Room for each task at 1280x800: the review list, evaluation results and Costra
comparisons show 8 rows or more, and the window never resizes itself."""

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QAbstractItemView, QStyle, QStyleOptionComboBox

from sentspace.app.ui.window.docking import LAYOUT_VERSION, Docks
from sentspace.app.ui.window.main_window import MainWindow
from tests.ui.conftest import (
    costra_shown,
    evaluate_and_wait,
    open_sick,
    run_and_wait,
    wait_for_job,
)

SIZE = QSize(1280, 800)


def visible_rows(table: QAbstractItemView) -> float:
    return table.viewport().height() / table.verticalHeader().defaultSectionSize()


def shows_8_rows_or_all(table: QAbstractItemView) -> bool:
    return visible_rows(table) >= min(8, table.model().rowCount())


def shown_at_1280x800(qtbot, window):
    window.resize(SIZE)
    qtbot.waitExposed(window)
    qtbot.wait(50)
    assert window.size() == SIZE


def test_each_task_shows_8_rows_and_the_window_keeps_its_size(qtbot, window, shared_data):
    shown_at_1280x800(qtbot, window)
    # Before anything runs, the progress area says nothing.
    assert window.jobs.stage.text() == "" and not window.jobs.progress.isVisible()

    run_and_wait(qtbot, window)
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    qtbot.wait(50)
    assert window.review_panel.isVisible() and window.size() == SIZE
    assert window.review_panel.table.model().rowCount() > 8
    assert visible_rows(window.review_panel.table) >= 8

    open_sick(qtbot, window, shared_data, encoder=None)
    evaluate_and_wait(qtbot, window, "relatedness")  # a table and a chart appear
    qtbot.wait(50)
    panel = window.evaluation_panel
    assert panel.isVisible() and panel.charts.isVisible()
    assert window.size() == SIZE
    assert shows_8_rows_or_all(panel.table) and panel.chart.height() > 150
    evaluate_and_wait(qtbot, window, "histograms")
    qtbot.wait(50)
    assert shows_8_rows_or_all(panel.table) and window.size() == SIZE
    # The chart is shown whole (its axis titles were cut off below and at the right).
    chart = panel.chart
    assert chart.height() >= chart.minimumHeight()
    assert chart.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width() <= chart.width()

    costra = costra_shown(qtbot, window)
    assert window.size() == SIZE
    assert costra.model.rowCount() > 8 and visible_rows(costra.table) >= 8


def reopened(qtbot) -> MainWindow:
    """A new window at 1280x800 with the layout the last one left."""
    again = MainWindow()
    qtbot.addWidget(again)
    again.resize(SIZE)
    again.show()
    qtbot.waitExposed(again)
    again.docks.restore()
    return again


def test_layout_is_remembered_and_reset(qtbot, window):
    window.docks.restore()
    window.resize(SIZE)
    qtbot.waitExposed(window)
    built = window.main_split.sizes()
    window.main_split.setSizes([built[0] - 20, built[1] + 20])
    moved = window.main_split.sizes()
    assert moved != built
    assert window.close()
    again = reopened(qtbot)
    assert again.main_split.sizes() == moved
    reset = (
        next(action for action in again.menuBar().actions() if action.text() == "&View")
        .menu()
        .actions()[0]
    )
    reset.trigger()
    assert again.main_split.sizes() != moved
    again.docks.reset()
    again.docks.remembered = False


def test_a_layout_remembered_by_an_older_version_is_not_put_back(qtbot, window):
    """A layout saved before the docks moved would put them back where they were."""
    window.resize(SIZE)
    qtbot.waitExposed(window)
    built = window.main_split.sizes()
    window.docks.restore()
    window.main_split.setSizes([built[0] - 20, built[1] + 20])
    assert window.close()
    settings = Docks.settings()
    settings.setValue("version", str(LAYOUT_VERSION - 1))
    settings.sync()
    again = reopened(qtbot)
    assert again.main_split.sizes() == built
    again.docks.remembered = False


def test_the_views_get_the_width_and_neighbours_read_as_sentences(qtbot, window):
    """At 1280x800 the docks share one column, so the centre is not squeezed between
    two; nearest neighbours of two encoders stack rather than wrap a few words a line."""
    shown_at_1280x800(qtbot, window)
    for encoder in ("bow", "tfidf"):
        window.corpus_panel.choose(encoder)
        run_and_wait(qtbot, window)
    assert not window.group_dock.isFloating()
    assert window.dockWidgetArea(window.group_dock) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert window.views.width() >= 540  # ~420 between two dock columns
    window.views.setCurrentWidget(window.neighbours_view)
    window.select_sentence(0)
    columns = window.neighbours_view.columns
    qtbot.waitUntil(lambda: all(column.table.rowCount() for column in columns))
    assert len(columns) == 2
    for column in columns:
        assert column.table.columnWidth(3) >= 400  # the sentence's column
    assert window.size() == SIZE


def test_nothing_is_cut_at_1280x800(qtbot, window, shared_data):
    """Headings of empty tables, Compare's choices and Colour by's offer fit the corpus."""
    shown_at_1280x800(qtbot, window)
    for page, table in (
        (window.classification, window.classification.metrics),
        (window.evaluation_panel, window.evaluation_panel.table),
    ):
        window.tasks.setCurrentWidget(page)
        qtbot.wait(20)
        header = table.horizontalHeader()
        assert table.rowCount() == 0
        assert header.sectionSize(1) >= header.sectionSizeHint(1)  # "Value" whole

    colours = window.corpus_panel.projection_controls.colour
    offered = lambda: [colours.itemData(i) for i in range(colours.count())]  # noqa: E731
    assert "paraphrase_group" in offered() and colours.currentData() == "paraphrase_group"
    open_sick(qtbot, window, shared_data)
    assert "paraphrase_group" not in offered()  # SICK has none: its pairs' labels
    assert colours.currentData() == "pair_label" and "gold_score" in offered()

    window.views.setCurrentIndex(2)
    qtbot.wait(20)
    compare = window.views.compare_view
    for choice in (compare.alignment, compare.colour, window.analyses.compare_choice):
        assert choice.isVisible() and choice.width() >= choice.sizeHint().width()


def click_dock_tab(qtbot, window, title):
    from PySide6.QtWidgets import QTabBar

    bar, index = next(
        (bar, i)
        for bar in window.findChildren(QTabBar)
        for i in range(bar.count())
        if bar.tabText(i) == title
    )
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    qtbot.wait(50)


def test_the_inspector_shows_8_neighbours_in_the_one_column(qtbot, window):
    """At 1280x800 the Inspector is a tab under the Corpus panel: in front, it takes most
    of the column (the panel scrolls) and shows its neighbours one line each; another tab
    in front gives the panel its height back."""
    shown_at_1280x800(qtbot, window)
    run_and_wait(qtbot, window)
    corpus_scroll = window.corpus_panel.widget.parentWidget().parentWidget()
    window.select_sentence(61)
    click_dock_tab(qtbot, window, "Inspector")
    inspector = window.inspecting.inspector
    qtbot.waitUntil(lambda: inspector.neighbours.rowCount() == 10)
    # The dock settles its height over a few layout passes on a busy machine.
    qtbot.waitUntil(lambda: visible_rows(inspector.neighbours) >= 8)
    assert inspector.isVisible()
    assert (
        window.corpus_panel.run_button.visibleRegion().boundingRect().height()
        == window.corpus_panel.run_button.height()
    )  # Run stays in sight
    click_dock_tab(qtbot, window, "Selected")
    qtbot.waitUntil(lambda: not corpus_scroll.verticalScrollBar().isVisible())
    assert window.size() == SIZE


def test_the_window_never_grows_past_the_screen(qtbot, window):
    """UMAP's settings, the progress bar and long job names and messages: the Corpus
    panel scrolls rather than grow the window (it grew to 1280x827, hiding the status
    bar), and the stage line keeps one line, elided, whole in its tooltip."""
    shown_at_1280x800(qtbot, window)
    screen = window.screen().availableGeometry()
    controls = window.corpus_panel.projection_controls
    controls.method.setCurrentIndex(controls.method.findData("umap"))
    long = "UMAP of Doc2Vec (dm, 300 dimensions, trained on a-very-long-file-name.txt) " * 3
    window.jobs.progress.setVisible(True)  # as while a job runs
    stage = window.jobs.stage
    stage.setText(f"Failed: {long}")
    qtbot.wait(100)
    assert window.height() <= screen.height() and window.size() == SIZE
    assert window.statusBar().isVisible()
    assert stage.height() < 2 * stage.fontMetrics().height()  # one line
    assert stage.toolTip() == f"Failed: {long}"


def test_jobs_are_named_whole_somewhere_and_8_selected_sentences_show(qtbot, window):
    """Job names are elided in the middle in the list and shown whole, with the error,
    under it; the Selected sentences list shows 8 rows or more."""
    shown_at_1280x800(qtbot, window)
    click_dock_tab(qtbot, window, "Jobs")
    name = "evaluation of " + "a-corpus-with-a-very-long-file-name-" * 4 + "end.txt"
    message = "the file ends in the middle of a row: " + "row 12 has 3 fields, " * 10

    def failing():
        raise ValueError(message)
        yield

    window.jobs.start(failing(), name, lambda _: None)
    wait_for_job(qtbot, window)
    qtbot.wait(50)
    panel = window.jobs.panel
    assert panel.tree.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert panel.tree.header().sectionSize(0) >= panel.tree.viewport().width() / 3
    assert not panel.tree.horizontalScrollBar().isVisible()
    assert panel.detail.text() == f"{name}\nValueError: {message}"
    assert panel.detail.isVisible()
    # Whole: laid out at its full wrapped height, and scrolled to where the dock is short.
    detail, area = panel.detail, panel.detail_area
    qtbot.waitUntil(lambda: detail.height() >= detail.heightForWidth(detail.width()))
    assert area.viewport().height() >= detail.height() or area.verticalScrollBar().maximum() > 0
    assert detail.width() <= area.viewport().width()
    assert window.size() == SIZE

    click_dock_tab(qtbot, window, "Selected")
    window.selecting.select_items(list(range(40)), "chart")  # a chart's bin
    qtbot.wait(50)
    listed = window.selecting.list
    assert listed.count() >= 8
    rows = [listed.visualItemRect(listed.item(i)) for i in range(listed.count())]
    assert (
        sum(
            0 <= row.top()
            and row.bottom() < listed.viewport().height()
            and row.right() < listed.viewport().width()
            for row in rows
        )
        >= 8
    )
    assert window.size() == SIZE


def test_the_review_list_title_is_whole(qtbot, window):
    """The chosen list's title, its count included, fits its box at 1280x800."""
    shown_at_1280x800(qtbot, window)
    run_and_wait(qtbot, window)
    window.analyses.find_suspicious()
    wait_for_job(qtbot, window)
    qtbot.wait(50)
    kind = window.review_panel.kind
    option = QStyleOptionComboBox()
    kind.initStyleOption(option)
    field = kind.style().subControlRect(
        QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, kind
    )
    for i in range(kind.count()):
        assert kind.fontMetrics().horizontalAdvance(kind.itemText(i)) <= field.width()
