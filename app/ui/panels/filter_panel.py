"""The Filter panel: a chart per column of the corpus shown (``app/analysis/filters.py``), the
active conditions as removable chips, a typed expression with its error inline, and
*Clear all*. It only draws what it is given and says what the user asked for
(:attr:`FilterPanel.filter_changed`); the window's ``Filtering`` keeps the session's
filter and every view following it."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.filters import Chosen, Evaluated, Filter, FilterTable, Range
from sentspace.app.base.errors import InputError
from sentspace.app.ui.charts.column_chart import ColumnChart
from sentspace.app.ui.kit.flow_layout import FlowLayout

#: A brush dragged faster than this is applied once per interval (ms), not per move.
BRUSH_MS = 15


class FilterPanel(QWidget):
    """Signals
    -------
    filter_changed(Filter) : the filter the user made (a brush, a bar, a chip removed,
        the expression entered, Clear all).
    keep_selection_asked() : *Keep only the selection* pressed.
    export_asked(str) : *Export* of "passing" (the sentences passing the filter) or
        "selected" sentences chosen.
    """

    filter_changed = Signal(object)
    keep_selection_asked = Signal()
    export_asked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table: FilterTable | None = None
        #: What to draw when the tab is next shown (a corpus switched to behind it).
        self._due: tuple | None = None
        self.filter = Filter()
        self.charts: dict[str, ColumnChart] = {}
        self._pending: Filter | None = None
        self._chip_buttons: list[QToolButton] = []
        self._brush_timer = QTimer(self)
        self._brush_timer.setSingleShot(True)
        self._brush_timer.setInterval(BRUSH_MS)
        self._brush_timer.timeout.connect(self._send_pending)

        self.expression = QLineEdit()
        self.expression.setAccessibleName("filter expression")
        self.expression.setPlaceholderText('Filter, then Enter: words > 10 and split == "test"')
        self.expression.setClearButtonEnabled(True)
        self.expression.returnPressed.connect(self._expression_entered)
        self.expression.textChanged.connect(lambda text: text or self._expression_entered())
        self.clear_button = QPushButton("Clear all")
        self.clear_button.setToolTip("Remove every condition and the expression")
        self.clear_button.clicked.connect(lambda: self._change(Filter()))
        self.keep_button = QPushButton("Keep only the selection")
        self.keep_button.setToolTip(
            "Filter to the sentences selected now (a chip; remove it to let the others back)"
        )
        self.keep_button.clicked.connect(self.keep_selection_asked)
        self.export_button = QToolButton()
        self.export_button.setText("Export…")
        self.export_button.setToolTip("Write sentences with every column as CSV or JSON lines")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export_button)
        menu.addAction("Sentences passing the filter…", lambda: self.export_asked.emit("passing"))
        menu.addAction("Selected sentences…", lambda: self.export_asked.emit("selected"))
        self.export_button.setMenu(menu)
        self.error = QLabel()
        self.error.setObjectName("filter-error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c00000")
        self.error.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # Room for two lines, kept when there is no error (the rest in the tooltip), and
        # a row of chips kept when there is none: the charts never move under the mouse.
        self.error.setFixedHeight(2 * self.error.fontMetrics().lineSpacing())
        self.count = QLabel("No corpus")
        self.chips = QWidget()
        self.chips_layout = FlowLayout(self.chips, spacing=4)
        self.chips.setMinimumHeight(_chip("sample").sizeHint().height())
        self.chart_box = QWidget()
        self.chart_layout = QVBoxLayout(self.chart_box)
        self.chart_layout.setContentsMargins(0, 0, 4, 0)
        self.chart_layout.setSpacing(2)
        self.chart_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.chart_box)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        row = QHBoxLayout()
        row.addWidget(self.expression, stretch=1)
        row.addWidget(self.clear_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        actions = QHBoxLayout()
        actions.addWidget(self.keep_button)
        actions.addWidget(self.export_button)
        actions.addStretch(1)
        layout.addLayout(actions)
        layout.addWidget(self.error)
        layout.addWidget(self.count)
        layout.addWidget(self.chips)
        layout.addWidget(scroll, stretch=1)

    # --- drawing -------------------------------------------------------------------

    def show_filter(
        self,
        table: FilterTable | None,
        chosen: Filter,
        evaluated: Evaluated | None,
        error: str = "",
    ) -> None:
        """Draw ``table``'s charts under ``evaluated`` (``chosen`` evaluated), or nothing
        (no corpus); ``error`` is the expression's problem. Behind another tab, a new
        table's charts are drawn when the tab is shown: building a dozen charts took
        more than half of switching to a corpus."""
        self._due = None
        if (
            table is not self.table
            and table is not None
            and self.window().isVisible()
            and not self.isVisible()
        ):
            self._build(None)  # nothing of the corpus left is kept meanwhile
            self._due = (table, chosen, evaluated, error)
            return
        if table is not self.table:
            self._build(table)
        self.filter = chosen
        if self.expression.text().strip() != chosen.expression and not error:
            self.expression.blockSignals(True)
            self.expression.setText(chosen.expression)
            self.expression.blockSignals(False)
        self._say_error(error)
        self._show_chips(chosen)
        if table is None or evaluated is None:
            self.count.setText("No corpus")
            return
        pairs = evaluated.pair_mask
        self.count.setText(
            f"{table.n:,} sentences"
            if not chosen
            else f"<b>{evaluated.count:,}</b> of {table.n:,} sentences pass"
            + (
                f" · <b>{int(pairs.sum()):,}</b> of {len(pairs):,} pairs"
                if pairs is not None
                else ""
            )
        )
        for title, chart in self.charts.items():
            chart.show_counts(
                table.totals(title), table.counts(evaluated, title), chosen.condition(title)
            )

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self._due is not None:
            self.show_filter(*self._due)

    def _build(self, table: FilterTable | None) -> None:
        self.table = table
        for chart in self.charts.values():
            chart.title_label.deleteLater()
            chart.deleteLater()
        self.charts = {}
        if table is None:
            return
        at = 0
        for title, made in table.charts.items():
            if not made.informative:
                continue
            chart = ColumnChart(made)
            chart.brushed.connect(self._brushed)
            chart.toggled.connect(self._toggled)
            chart.cleared.connect(lambda column: self._change(self.filter.without(column)))
            chart.title_label = QLabel(
                f"<b>{html.escape(title)}</b>"
                + (" <span style='color:#666'>· pairs</span>" if made.of_pairs else "")
            )
            if made.of_pairs:
                chart.title_label.setToolTip(
                    "Counts pairs by their own value. A bar keeps the pairs of that value "
                    "and their sentences; an evaluation of the filter evaluates those pairs."
                )
            self.chart_layout.insertWidget(at, chart.title_label)
            self.chart_layout.insertWidget(at + 1, chart)
            at += 2
            self.charts[title] = chart

    def _say_error(self, error: str) -> None:
        self.error.setText(error)
        self.error.setToolTip(error)

    def _chip_label(self, chosen: Filter, column: str, label: str) -> str:
        """A chip's words; a pair chart's condition says how many pairs it keeps."""
        condition = chosen.condition(column) if column else None
        chart = self.table.charts.get(column) if self.table is not None and column else None
        if condition is None or chart is None or not chart.of_pairs:
            return f"{label}  ×"
        assert self.table is not None
        kept = int(self.table.pair_passes(condition).sum())
        return f"{label} ({kept:,} pairs and their sentences)  ×"

    def _show_chips(self, chosen: Filter) -> None:
        chips = [
            (column, self._chip_label(chosen, column, label)) for column, label in chosen.chips()
        ]
        shown = [chip.property("column") for chip in self._chip_buttons]
        if shown == [column for column, _ in chips]:
            # A brush moving: the same chips, one label changed.
            for chip, (_, label) in zip(self._chip_buttons, chips):
                chip.setText(label)
            return
        while self.chips_layout.count():
            self.chips_layout.takeAt(0).widget().deleteLater()
        self._chip_buttons = []
        for column, label in chips:
            chip = _chip(label)
            chip.setProperty("column", column)
            chip.setAccessibleName(f"filter chip {column or 'expression'}")
            chip.clicked.connect(lambda _=False, column=column: self.remove(column))
            self.chips_layout.addWidget(chip)
            self._chip_buttons.append(chip)

    # --- what the user asks --------------------------------------------------------

    def remove(self, column: str) -> None:
        """Remove the condition on ``column`` ("" the expression)."""
        if column:
            self._change(self.filter.without(column))
        else:
            self.expression.clear()

    def _brushed(self, column: str, low: float, high: float) -> None:
        self._pending = self.filter.with_condition(Range(column, low, high))
        self.filter = self._pending
        if not self._brush_timer.isActive():
            self._brush_timer.start()

    def _send_pending(self) -> None:
        if self._pending is not None:
            chosen, self._pending = self._pending, None
            self.filter_changed.emit(chosen)

    def _toggled(self, column: str, name: str) -> None:
        old = self.filter.condition(column)
        names = list(old.names) if isinstance(old, Chosen) else []
        names = [n for n in names if n != name] if name in names else [*names, name]
        self._change(
            self.filter.with_condition(Chosen(column, tuple(names)))
            if names
            else self.filter.without(column)
        )

    def _expression_entered(self) -> None:
        """Apply the expression typed once it is valid; else say why, inline."""
        chosen = self.filter.with_expression(self.expression.text())
        if self.table is not None and chosen.expression:
            try:
                self.table.evaluate(Filter(expression=chosen.expression))
            except InputError as error:
                self._say_error(str(error))
                return
        self._say_error("")
        self._change(chosen)

    def _change(self, chosen: Filter) -> None:
        self._brush_timer.stop()
        self._pending = None
        self.filter = chosen
        if not chosen.expression and self.expression.text():
            self.expression.blockSignals(True)  # Clear all: no second change
            self.expression.clear()
            self.expression.blockSignals(False)
        self.filter_changed.emit(chosen)


def _chip(label: str) -> QToolButton:
    """A condition's chip: a click removes it."""
    chip = QToolButton()
    chip.setText(label)
    chip.setToolTip("Remove this condition")
    chip.setStyleSheet(
        "QToolButton { background: #fff1d6; border: 1px solid "
        "#e69500; border-radius: 8px; padding: 1px 6px; }"
    )
    return chip
