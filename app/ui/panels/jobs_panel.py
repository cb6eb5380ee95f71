"""Every job of the session: state, progress, elapsed time, error, and Cancel. Names
are elided in the middle (their ends tell jobs apart); the selected job's name and error
are shown whole under the list."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from sentspace.app.ui.kit.workers import JobHandle

COLUMNS = ("Job", "State", "Progress", "Elapsed")
#: Room for "encoding 100%"; a longer stage or an error is elided (whole under the list).
PROGRESS_WIDTH = 90


class WrappedTextArea(QScrollArea):
    """A word-wrapped label as tall as its text at the width it has, up to
    ``MAX_LINES``, and scrolled past that: a long error is never cut at the dock's edge,
    and a short one leaves the room to the list above (which shrinks first)."""

    MAX_LINES = 8

    def __init__(self, label: QLabel):
        super().__init__()
        self.label = label
        label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setWidget(label)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)

    def sizeHint(self) -> QSize:
        line = self.fontMetrics().lineSpacing()
        wanted = self.label.heightForWidth(max(self.viewport().width(), 1))
        return QSize(super().sizeHint().width(), min(max(wanted, line), self.MAX_LINES * line))

    def minimumSizeHint(self) -> QSize:
        return QSize(0, self.fontMetrics().lineSpacing())

    def resizeEvent(self, event) -> None:  # noqa: ANN001 - Qt's event
        super().resizeEvent(event)
        self.updateGeometry()  # the wrapped height follows the width


class JobsPanel(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(COLUMNS)
        self.tree.setRootIsDecorated(False)
        # The name takes what the others leave: at their default 100 px each, the one
        # column at 1280x800 left it "fi…ns".
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.resizeSection(2, PROGRESS_WIDTH)
        self.tree.setColumnHidden(2, True)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.tree.currentItemChanged.connect(lambda *_: self._show_detail())
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail_area = WrappedTextArea(self.detail)
        self.tree.setAccessibleName("jobs")
        self.cancel_button = QPushButton("Cancel selected")
        self.cancel_button.clicked.connect(self.cancel_selected)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.tree)
        layout.addWidget(self.detail_area)
        layout.addLayout(buttons)
        self.jobs: list[JobHandle] = []
        self._items: dict[int, QTreeWidgetItem] = {}
        # Elapsed time moves without progress reports; refresh running rows twice a second.
        self.clock = QTimer(self)
        self.clock.setInterval(500)
        self.clock.timeout.connect(self._tick)

    def add(self, job: JobHandle) -> None:
        item = QTreeWidgetItem([job.label, "", "", ""])
        self.tree.insertTopLevelItem(0, item)
        self.tree.setCurrentItem(item)
        self.jobs.append(job)
        self._items[id(job)] = item
        job.changed.connect(lambda: self._render(job))
        self._render(job)
        self._show_progress_column(not job.done)
        self.clock.start()

    def row_of(self, job: JobHandle) -> list[str]:
        item = self._items[id(job)]
        return [item.text(column) for column in range(len(COLUMNS))]

    def selected_job(self) -> JobHandle | None:
        item = self.tree.currentItem()
        return next((job for job in self.jobs if self._items[id(job)] is item), None)

    def cancel_selected(self) -> None:
        job = self.selected_job()
        if job is not None:
            job.cancel()

    def _show_detail(self) -> None:
        job = self.selected_job()
        error = (
            "" if job is None or job.error is None else f"\n{type(job.error).__name__}: {job.error}"
        )
        self.detail.setText("" if job is None else job.label + error)
        self.detail_area.updateGeometry()

    def _render(self, job: JobHandle) -> None:
        item = self._items[id(job)]
        if not isValid(item):
            return  # the window closed while the job was still being cancelled
        item.setText(1, job.state)
        progress = job.progress
        if progress is not None and not job.done:
            item.setText(2, f"{progress.stage} {progress.fraction:.0%}")
        elif job.done:
            item.setText(2, "")
        item.setText(3, f"{job.elapsed:.1f} s")
        if job.error is not None:
            message = f"{type(job.error).__name__}: {job.error}"
            # Whole wherever the pointer rests: the columns cut it.
            for column in range(len(COLUMNS)):
                item.setToolTip(column, message)
            item.setText(2, message)
            item.setForeground(1, Qt.GlobalColor.red)
        if item is self.tree.currentItem():
            self._show_detail()

    def _tick(self) -> None:
        running = [job for job in self.jobs if not job.done]
        for job in running:
            self._render(job)
        self._show_progress_column(bool(running))
        if not running:
            self.clock.stop()

    def _show_progress_column(self, shown: bool) -> None:
        """Progress only while a job runs: empty, its 90 px cut the names to
        "costra…s: bow" (an error is under the list and in the row's tooltip)."""
        if self.tree.isColumnHidden(2) == shown:
            self.tree.setColumnHidden(2, not shown)
            if shown:
                self.tree.header().resizeSection(2, PROGRESS_WIDTH)
