"""Nearest neighbours of a sentence in several embedding spaces side by side.

The caller registers spaces (:data:`sentspace.app.analysis.neighbour_search.Space`); a query runs
:func:`sentspace.app.analysis.neighbour_search.search_neighbours` in one worker job, and each space's
answer fills a column. Rows are marked ✓ when the neighbour shares a group with the
query sentence and ⇄ when it is the query's paraphrase partner (a positive pair).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.neighbour_search import (
    Neighbours,
    Query,
    Space,
    check_spaces,
    search_neighbours,
)
from sentspace.app.analysis.neighbours import Normalised
from sentspace.app.corpora.model import Corpus
from sentspace.app.ui.kit.widgets import row_table
from sentspace.app.ui.kit.workers import JobHandle, start_job

DEFAULT_K = 10
#: The text of neighbours the filter leaves out.
FILTERED_OUT = "#a8a8a8"
SAME_GROUP, PARTNER = "✓", "⇄"


class NeighbourColumn(QWidget):
    """One space's neighbours: rank, cosine, marks and text."""

    def __init__(self, name: str, dim: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = QLabel(
            f"<b>{html.escape(name)}</b> <span style='color: #666'>({dim}-d)</span>"
        )
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #a05a00")
        self.note.hide()
        self.table = row_table(["#", "cosine", "mark", "text"], f"neighbours in {name}")
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(True)
        self.table.setToolTip(
            f"{SAME_GROUP}: in a group of the query sentence   "
            f"{PARTNER}: its paraphrase partner (a positive pair)\n"
            "Click a neighbour to select it"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.note)
        layout.addWidget(self.table, stretch=1)
        self.indices = np.zeros(0, dtype=np.int64)

    def show_neighbours(
        self, corpus: Corpus, answer: Neighbours, passing: np.ndarray | None = None
    ) -> None:
        """The neighbours of ``answer``; those failing the filter (``passing``
        False) greyed, with a tooltip saying so."""
        self.note.setText(answer.note)
        self.note.setVisible(bool(answer.note))
        self.indices = answer.indices
        self.table.setRowCount(len(answer.indices))
        for row, (index, similarity, same, partner) in enumerate(
            zip(answer.indices, answer.similarities, answer.same_group, answer.partner)
        ):
            marks = (SAME_GROUP if same else "") + (PARTNER if partner else "")
            cells = (str(row + 1), f"{similarity:.3f}", marks, corpus.texts[index])
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, int(index))
                if passing is not None and not passing[index]:
                    item.setForeground(QColor(FILTERED_OUT))
                    item.setToolTip("Filtered out by the Filter panel")
                if column < 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.table.setItem(row, column, item)
        self.table.resizeRowsToContents()

    def row(self, row: int) -> tuple[str, str, str, str]:
        """The (rank, cosine, marks, text) cells of one row."""
        return tuple(self.table.item(row, column).text() for column in range(4))


#: The narrowest a column of neighbours is shown side by side with the others.
COLUMN_WIDTH = 360


class NeighboursView(QWidget):
    """Query box, k, and one column of nearest neighbours per registered space.

    Signals
    -------
    sentence_selected(int) : the user clicked a neighbour (corpus index).
    neighbours_found(list) : sorted corpus indices of every neighbour now shown.
    """

    sentence_selected = Signal(int)
    neighbours_found = Signal(list)
    #: The query asked (a Query), kept by the window with the corpus.
    queried = Signal(object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.corpus: Corpus | None = None
        self.spaces: list[Space] = []
        self.columns: list[NeighbourColumn] = []
        self.query: Query | None = None
        self._pools: list[Normalised | None] = []
        self.job: JobHandle | None = None
        #: The filter's pass mask (None: every sentence passes) and the answers shown.
        self.passing: np.ndarray | None = None
        self._shown: tuple[Query, list[Neighbours]] | None = None

        self.query_box = QLineEdit()
        self.query_box.setPlaceholderText("Type a sentence, or select one in another view")
        self.query_box.setToolTip(
            "Press Enter to find its nearest neighbours; text you type "
            "is encoded on the fly by each encoder"
        )
        self.query_box.returnPressed.connect(self.find)
        self.find_button = QPushButton("Find neighbours")
        self.find_button.clicked.connect(self.find)
        self.k = QSpinBox()
        self.k.setRange(1, 1000)
        self.k.setValue(DEFAULT_K)
        self.k.setPrefix("k = ")
        self.k.setToolTip("Neighbours shown per encoder")
        self.k.valueChanged.connect(self._rerun)
        self.caption = QLabel("Register encoders, then query a sentence.")
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        row = QHBoxLayout()
        row.addWidget(self.query_box, stretch=1)
        row.addWidget(self.k)
        row.addWidget(self.find_button)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.caption)
        layout.addWidget(self.splitter, stretch=1)

    # --- public API -----------------------------------------------------------------

    def set_spaces(
        self, corpus: Corpus, spaces: Sequence[Space], query: Query | None = None
    ) -> None:
        """Show one column per (name, fitted encoder, embeddings of every corpus
        sentence under it), and ``query``'s neighbours in them (none: no query).

        Raises
        ------
        ValueError
            An encoder is not fitted or its embeddings are not one row per sentence.
        """
        check_spaces(corpus, spaces)
        self.query = query
        self.query_box.setText(query.text if query is not None else "")
        if self.job is not None:
            # Its answers and normalised pools belong to the old spaces.
            self.job.cancel()
            self.job = None
        self.corpus, self.spaces, self._shown = corpus, list(spaces), None
        self._pools = [None] * len(self.spaces)
        for column in self.columns:
            column.setParent(None)
            column.deleteLater()
        self.columns = [NeighbourColumn(name, encoder.dim) for name, encoder, _ in spaces]
        for column in self.columns:
            column.table.cellClicked.connect(
                lambda row, _c, column=column: self._neighbour_clicked(column, row)
            )
            self.splitter.addWidget(column)
        self._arrange()
        self._rerun()

    def clear(self) -> None:
        """No corpus: no columns, no query."""
        if self.job is not None:
            self.job.cancel()
            self.job = None
        self.corpus, self.spaces, self.query, self._pools = None, [], None, []
        self._shown = None
        self.query_box.clear()
        for column in self.columns:
            column.setParent(None)
            column.deleteLater()
        self.columns = []
        self._rerun()

    def set_passing(self, mask: np.ndarray | None) -> None:
        """Grey the neighbours where ``mask`` (the session's filter) is False."""
        self.passing = mask
        if self._shown is not None and self.corpus is not None:
            self._show(*self._shown)

    def query_sentence(self, index: int) -> None:
        """Find the neighbours of corpus sentence ``index`` (itself excluded)."""
        if self.corpus is None or not 0 <= index < len(self.corpus):
            return
        text = self.corpus.texts[index]
        self.query_box.setText(text)
        self._search(Query(text, index))

    def query_text(self, text: str) -> None:
        """Encode ``text`` with every encoder and find its neighbours."""
        text = text.strip()
        if text:
            self.query_box.setText(text)
            self._search(Query(text))

    def find(self) -> None:
        """Query the box's text; unchanged text of a queried sentence stays that sentence."""
        text = self.query_box.text().strip()
        if self.query is not None and self.query.index >= 0 and text == self.query.text:
            self._search(self.query)
        else:
            self.query_text(text)

    @property
    def is_running(self) -> bool:
        return self.job is not None and not self.job.done

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._arrange()

    def _arrange(self) -> None:
        """Columns side by side when each gets room for its sentences, else one above
        the other (a narrow view would wrap them to a few words a line)."""
        side_by_side = self.width() >= COLUMN_WIDTH * max(len(self.columns), 1)
        self.splitter.setOrientation(
            Qt.Orientation.Horizontal if side_by_side else Qt.Orientation.Vertical
        )

    # --- search ---------------------------------------------------------------------

    def _rerun(self) -> None:
        if self.query is not None:
            self._search(self.query)
        elif not self.spaces:
            self.caption.setText("Register encoders, then query a sentence.")
        else:
            self.caption.setText(
                "Type a sentence, or select one, to see its nearest neighbours in each space."
            )

    def _search(self, query: Query) -> None:
        if query != self.query:
            self.query = query
            self.queried.emit(query)
        if self.corpus is None or not self.spaces:
            return
        if self.job is not None:
            self.job.cancel()
        what = (
            f"sentence {html.escape(self.corpus.ids[query.index])}"
            if query.index >= 0
            else "the typed text"
        )
        self.caption.setText(f"Searching the {self.k.value()} nearest neighbours of {what}…")
        corpus, spaces, pools, k = self.corpus, self.spaces, list(self._pools), self.k.value()
        handle: JobHandle | None = None

        def found(result: tuple[list[Neighbours], list[Normalised]]) -> None:
            if handle is self.job:
                self._pools = result[1]
                self._show(query, result[0])

        handle = start_job(
            search_neighbours(corpus, spaces, pools, query, k),
            "nearest neighbours",
            on_error=self._failed,
            on_result=found,
            owner=self,
        )
        self.job = handle

    def _failed(self, error: Exception) -> None:
        self.caption.setText(
            f"<span style='color: #c00000'>Search failed: {html.escape(str(error))}</span>"
        )

    def _show(self, query: Query, answers: list[Neighbours]) -> None:
        corpus = self.corpus
        if query.index >= 0:
            what = f"sentence <b>{html.escape(corpus.ids[query.index])}</b>"
        else:
            what = "the typed text"
        self.caption.setText(
            f"Nearest neighbours of {what} by cosine: <i>{html.escape(query.text)}</i>"
        )
        self._shown = (query, answers)
        passing = (
            self.passing if self.passing is not None and len(self.passing) == len(corpus) else None
        )
        for column, answer in zip(self.columns, answers):
            column.show_neighbours(corpus, answer, passing)
        shown = np.unique(np.concatenate([a.indices for a in answers]))
        self.neighbours_found.emit([int(i) for i in shown])

    def _neighbour_clicked(self, column: NeighbourColumn, row: int) -> None:
        if 0 <= row < len(column.indices):
            index = int(column.indices[row])
            # Deferred: the receiver may query this sentence, which rebuilds the table
            # whose cell is still being clicked.
            QTimer.singleShot(0, lambda: self.sentence_selected.emit(index))
