"""The paired tests under the *Across encoders* bars: the tests the command shown above
them prints (``sentspace eval`` with an ``--encoder`` each), made by the same core job
(:func:`sentspace.app.analysis.evaluations.paired.paired_tests_of_runs`) in the background.

Only the metric a test compares gets rows (``TESTED_SCORES``); another metric says which
one. A permutation test takes seconds: the job is cancelled when the bars change, and
the tests of a set of bars are kept with the corpus's results (``CorpusState.paired_tests``,
saved in a workspace), so going back to them, or reopening the workspace, shows them at
once; they are made again only for bars they were not made of.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.evaluations.paired import (
    PAIRED_TESTS,
    TESTED_SCORES,
    BarsTests,
    CommandTests,
    paired_tests_of_runs,
)
from sentspace.app.ui.kit.workers import JobHandle, start_job

COLUMNS = ("A vs B", "test", "A − B, 95% CI", "p-value", "verdict")
#: Sets of bars whose tests a corpus keeps.
KEPT = 16
#: Rows in view before the table scrolls.
ROWS_SHOWN = 4


class PairedTestsView(QWidget):
    """A line saying what is tested (or why nothing is), and a row per test."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.heading.setStyleSheet("color: #555")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setAccessibleName("paired tests")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # The words share what is left, on more lines in a narrow panel.
        for column in (1, len(COLUMNS) - 1):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        # Words wrap anew whenever a column takes another width.
        header.sectionResized.connect(lambda *_: self._fit_rows())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.table)
        #: The job making the tests of ``self.key``'s bars, while it runs.
        self.handle: JobHandle | None = None
        #: What the bars shown are: (evaluation, (id of result, command) each).
        self.key: tuple | None = None
        #: The tests made of the corpus's bars, most recent last: its state's
        #: ``paired_tests`` in a window (``EvaluationPanel`` points it there).
        self.kept: list[BarsTests] = []
        self.show_runs(None, None, [], start=False)

    def show_runs(
        self,
        evaluation: str | None,
        metric: str | None,
        runs: list[tuple[Any, str]],
        *,
        start: bool = True,
    ) -> None:
        """The tests of ``runs`` (``(result, command)`` each, the bars of ``metric`` of
        ``evaluation``): kept ones at once, else made in the background when ``start``
        (the page is in view). Any other set's job is cancelled."""
        tested = TESTED_SCORES.get(evaluation)
        key = (
            (evaluation, tuple((id(result), command) for result, command in runs))
            if tested is not None and metric == tested
            else None
        )
        if self.handle is not None and key != self.key:
            self.handle.cancel()
            self.handle = None
        self.key = key
        self.table.clearSpans()
        self.table.setRowCount(0)
        # One encoder has nothing to be paired with: no heading takes the table's room.
        tests_made = evaluation in PAIRED_TESTS and len(runs) > 1
        self.setVisible(tests_made)
        if not tests_made:
            return
        made = next((bars for bars in self.kept if bars.of(evaluation, runs)), None)
        if key is None:
            self._say(f"Paired tests compare {tested}: choose it above to see them.")
        elif made is not None:
            self.kept.remove(made)
            self.kept.append(made)
            self._show(list(made.tests))
        elif self.handle is None and start:
            self._say("computing paired tests…")
            kept = self.kept  # the corpus's, even if another is shown when they come
            self.handle = start_job(
                paired_tests_of_runs(evaluation, list(runs)),
                "paired tests",
                on_error=lambda error: self._failed(key, error),
                on_result=lambda tests: self._made(
                    key, kept, BarsTests(evaluation, tuple(runs), tuple(tests))
                ),
                owner=self,
            )
        elif self.handle is None:
            self._say("")

    def _made(self, key: tuple, kept: list[BarsTests], bars: BarsTests) -> None:
        kept.append(bars)
        del kept[:-KEPT]
        if key == self.key:
            self.handle = None
            self._show(list(bars.tests))

    def _failed(self, key: tuple, error: Exception) -> None:
        if key == self.key:
            self.handle = None
            self._say(f"paired tests failed: {error}")

    def _say(self, text: str) -> None:
        self.heading.setText(text)
        self.table.setVisible(False)

    def _show(self, tests: list[CommandTests]) -> None:
        """A row per test (or per test not made, saying why), as the command prints it."""
        outcomes = [outcome for command in tests for outcome in command.outcomes]
        if not outcomes:
            self._say("Paired tests need a second encoder evaluated the same way.")
            return
        evaluation = self.key[0]
        firsts = ", ".join(dict.fromkeys(c.outcomes[0].a.provenance.encoder_name for c in tests))
        several = f" (per command: {len(tests)} commands make the bars)" if len(tests) > 1 else ""
        self.heading.setText(
            f"Paired tests of {PAIRED_TESTS[evaluation][0]}, each against "
            f"{firsts}, as the command prints them{several}"
        )
        self.table.setRowCount(len(outcomes))
        row = 0
        for command in tests:
            for outcome in command.outcomes:
                a = outcome.a.provenance.encoder_name
                b = outcome.b.provenance.encoder_name
                # The test is b (its A) against the first, a (its B).
                self._cell(row, 0, f"{b} vs {a}", command.command)
                if outcome.test is None:
                    self._cell(row, 1, outcome.why_not, outcome.why_not)
                    self.table.setSpan(row, 1, 1, len(COLUMNS) - 1)
                else:
                    test = outcome.test
                    summary = dict(test.summary())
                    difference = summary["A - B"]
                    if "95% CI of A - B" in summary:
                        difference += "\n" + summary["95% CI of A - B"]
                    # Every row the command prints for it, in the tooltip.
                    rows = "\n".join(f"{label}: {value}" for label, value in test.summary())
                    self._cell(row, 1, test.method, rows)
                    self._cell(row, 2, difference, rows, right=True)
                    self._cell(row, 3, summary["p-value"], rows, right=True)
                    self._cell(row, 4, test.verdict(b, a), rows)
                row += 1
        self.table.setVisible(True)
        self._fit_rows()

    def _fit_rows(self) -> None:
        """Rows as tall as their wrapped words, the table as tall as ``ROWS_SHOWN`` of
        them."""
        self.table.resizeRowsToContents()
        shown = min(self.table.rowCount(), ROWS_SHOWN)
        self.table.setFixedHeight(
            self.table.horizontalHeader().sizeHint().height()
            + 2 * self.table.frameWidth()
            + sum(self.table.rowHeight(r) for r in range(shown))
        )

    def _cell(self, row: int, column: int, text: str, tip: str, right: bool = False) -> None:
        item = QTableWidgetItem(text)
        item.setToolTip(tip)
        if right:
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.table.setItem(row, column, item)

    def cells(self) -> list[list[str]]:
        """The table's text, a list per row (a test not made: its two cells)."""
        return [
            [
                self.table.item(r, c).text()
                for c in range(len(COLUMNS))
                if self.table.item(r, c) is not None
            ]
            for r in range(self.table.rowCount())
        ]
