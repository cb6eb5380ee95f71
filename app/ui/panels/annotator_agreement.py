"""*Agreement between annotators…*: how much the people who decided the same items
agree (``sentspace.app.annotations.agreement``: Cohen's or Fleiss' kappa for groups and labels,
Krippendorff's alpha for scores, each computed by its library), a confusion table of
two annotators' decisions, and their disagreements, each a click away from its
sentences. Other annotators' journals of the corpus can be added."""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.annotations.agreement import Agreement, author_pairs, item_sentences
from sentspace.app.base.errors import InputError
from sentspace.app.corpora.model import Corpus


def _fill(table: QTableWidget, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    table.clear()
    table.setColumnCount(len(headers))
    table.setHorizontalHeaderLabels([str(header) for header in headers])
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(str(value)))
    table.resizeColumnsToContents()


def _table(name: str) -> QTableWidget:
    table = QTableWidget()
    table.setAccessibleName(name)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    return table


class AnnotatorAgreementDialog(QDialog):
    """The agreement of ``corpus``'s annotators as ``compute(journals)`` gives it, over
    the corpus's own journal and those added.

    Signals
    -------
    sentences_selected(list) : the sentences of a clicked disagreement.
    """

    sentences_selected = Signal(list)

    def __init__(
        self,
        corpus: Corpus,
        compute: Callable[[list[str]], Agreement],
        choose_journal: Callable[[], str | None],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.setWindowTitle("Agreement between annotators")
        self.corpus, self.compute, self.choose_journal = corpus, compute, choose_journal
        self.journals: list[str] = []
        self.result: Agreement | None = None
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.statistics = _table("agreement statistics")
        self.statistics.itemSelectionChanged.connect(self._show_kind)
        self.pair = QComboBox()
        self.pair.setAccessibleName("annotator pair")
        self.pair.currentIndexChanged.connect(lambda _: self._show_confusion())
        #: The chosen pair's own statistic, over the items both decided.
        self.pair_value = QLabel()
        self.pair_value.setAccessibleName("agreement of the pair")
        self.pair_value.setWordWrap(True)
        self.confusion = _table("confusion of decisions")
        self.disagreements = _table("disagreements")
        self.disagreements.cellClicked.connect(self._disagreement_clicked)
        add = QPushButton("Add a journal…")
        add.setToolTip("Another annotator's journal of this corpus (from their workspace)")
        add.clicked.connect(self._add_journal)
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addStretch(1)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(self.statistics)
        layout.addWidget(QLabel("Confusion of two annotators' decisions (rows: the first):"))
        layout.addWidget(self.pair)
        layout.addWidget(self.pair_value)
        layout.addWidget(self.confusion)
        layout.addWidget(QLabel("Disagreements (click one to select its sentences):"))
        layout.addWidget(self.disagreements, stretch=1)
        layout.addLayout(buttons)
        self.resize(640, 620)
        self.recompute()

    def recompute(self) -> None:
        self.result = self.compute(self.journals)
        result = self.result
        added = f" and {len(self.journals)} added journal(s)" if self.journals else ""
        if not result.kinds:
            self.caption.setText(
                f"No item of {self.corpus.name} was decided by two or more "
                f"annotators in its journal{added} yet: each edits or marks "
                "reviewed the same items (a shared journal, or add theirs)."
            )
        else:
            self.caption.setText(
                f"<b>{self.corpus.name}</b>: decisions of "
                f"{', '.join(result.authors)} (its journal{added})."
            )
        _fill(
            self.statistics,
            ["decisions", "statistic", "value", "items"],
            [
                (
                    kind.kind,
                    kind.statistic,
                    "undefined" if kind.value != kind.value else f"{kind.value:.3f}",
                    kind.n_items,
                )
                for kind in result.kinds
            ],
        )
        # As tall as its rows (three kinds at most): the room below is the confusion's
        # and the disagreements'.
        table = self.statistics
        table.setMaximumHeight(
            table.horizontalHeader().sizeHint().height()
            + 2 * table.frameWidth()
            + 2
            + table.verticalHeader().defaultSectionSize() * max(1, table.rowCount())
        )
        if result.kinds:
            self.statistics.selectRow(0)
        else:
            self._show_kind()

    @property
    def kind(self):
        row = self.statistics.currentRow()
        kinds = self.result.kinds if self.result is not None else ()
        return kinds[row] if 0 <= row < len(kinds) else None

    def _show_kind(self) -> None:
        kind = self.kind
        self.pair.blockSignals(True)
        self.pair.clear()
        for first, second in (
            author_pairs(kind) if kind is not None and kind.kind != "score" else ()
        ):
            self.pair.addItem(f"{first} vs {second}", (first, second))
        self.pair.blockSignals(False)
        self._show_confusion()
        rows = kind.disagreements() if kind is not None else []
        self._disagreeing = [item for item, _ in rows]
        _fill(
            self.disagreements,
            ["item", *(kind.authors if kind is not None else ())],
            [(item, *(by.get(author, "") for author in kind.authors)) for item, by in rows],
        )

    def _show_confusion(self) -> None:
        kind, pair = self.kind, self.pair.currentData()
        if kind is None or pair is None:
            _fill(self.confusion, [], [])
            self.pair_value.setText("")
            return
        statistic, value, items = kind.pairwise(*pair)
        self.pair_value.setText(
            f"{pair[0]} and {pair[1]}: {statistic} "
            f"{'undefined' if math.isnan(value) else f'{value:.3f}'} over the "
            f"{items} item{'s' if items != 1 else ''} both decided"
        )
        categories, matrix = kind.confusion(*pair)
        _fill(
            self.confusion,
            [f"{pair[0]} \\ {pair[1]}", *categories],
            [(category, *row) for category, row in zip(categories, matrix.tolist())],
        )

    def _disagreement_clicked(self, row: int, _column: int) -> None:
        sentences = item_sentences(self.corpus, self._disagreeing[row])
        if sentences:
            self.sentences_selected.emit(sentences)

    def _add_journal(self) -> None:
        path = self.choose_journal()
        if not path or path in self.journals:
            return
        self.journals.append(path)
        try:
            self.recompute()
        except InputError as error:  # another corpus's journal, a broken file
            self.journals.remove(path)
            self.recompute()
            self.caption.setText(
                f"{self.caption.text()}<br><span style='color:#b00000'>"
                f"Not added: {html.escape(str(error))}</span>"
            )
