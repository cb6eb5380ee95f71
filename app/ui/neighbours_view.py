"""Nearest neighbours of a sentence in several embedding spaces side by side.

The caller registers spaces, each a name, a fitted encoder and the corpus's embeddings
under it. A query is a corpus sentence (its own row is looked up, and it is excluded from
its neighbours) or typed text, which each encoder encodes on the fly. The top k by cosine
in the original space (:func:`app.neighbours.iter_top_k`) are found for every space in
one worker job; rows are marked ✓ when the neighbour shares a group with the query
sentence and ⇄ when it is the query's paraphrase partner (a positive pair).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton, QSpinBox,
    QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from app.corpora.model import Corpus
from app.jobs import Job, Progress
from app.neighbours import Normalised, iter_top_k, normalise
from app.ui.workers import JobHandle, start_job
from models.base import Embeddings, Encoder
from models.precomputed import Precomputed

DEFAULT_K = 10
SAME_GROUP, PARTNER = "✓", "⇄"
CANNOT_ENCODE = ("Precomputed embeddings cannot encode new text: they only hold the "
                 "corpus's sentences. Query a corpus sentence instead.")

Space = tuple[str, Encoder, Embeddings]


@dataclass(frozen=True)
class Query:
    """A corpus sentence (``index`` >= 0) or typed ``text`` (``index`` -1)."""

    text: str
    index: int = -1


@dataclass(frozen=True, eq=False)
class Neighbours:
    """One space's answer to a query.

    Attributes
    ----------
    indices : int ndarray of shape (k,)
        Corpus indices, most similar first (empty when ``note`` says why there are none).
    similarities : float32 ndarray of shape (k,)
    same_group, partner : bool ndarray of shape (k,)
        Whether each neighbour shares a group with the query sentence / is its
        paraphrase partner (always False for typed text).
    note : str
        Why the column is empty or what to keep in mind reading it; "" when nothing.
    """

    indices: np.ndarray
    similarities: np.ndarray
    same_group: np.ndarray
    partner: np.ndarray
    note: str = ""


def _related(corpus: Corpus, index: int) -> tuple[np.ndarray, np.ndarray]:
    """Sentences sharing a group with sentence ``index`` and its positive-pair partners."""
    if index < 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    groups, pairs = corpus.groups, corpus.pairs
    same = np.zeros(0, dtype=np.int64)
    if groups is not None:
        own = groups.group_index[groups.sentence_index == index]
        same = groups.sentence_index[np.isin(groups.group_index, own)]
    partners = np.zeros(0, dtype=np.int64)
    if pairs is not None and not pairs.label_names:
        positive = pairs.label == 1
        partners = np.concatenate([pairs.second[positive & (pairs.first == index)],
                                   pairs.first[positive & (pairs.second == index)]])
    return same, partners


def search_neighbours(corpus: Corpus, spaces: Sequence[Space],
                      pools: Sequence[Normalised | None], query: Query, k: int
                      ) -> Job[tuple[list[Neighbours], list[Normalised]]]:
    """The ``k`` nearest corpus sentences of ``query`` in every space.

    ``pools`` holds each space's row-normalised embeddings when already computed (None
    otherwise); they are returned, completed, so the caller normalises each space once.
    """
    same, partners = _related(corpus, query.index)
    answers, normalised = [], []
    for n, ((name, encoder, embeddings), pool) in enumerate(zip(spaces, pools)):
        pool = pool if pool is not None else normalise(embeddings)
        normalised.append(pool)
        note = ""
        if query.index >= 0:
            vector, exclude = embeddings[[query.index]], np.array([query.index])
        elif isinstance(encoder, Precomputed) and query.text not in corpus.texts:
            answers.append(_empty(CANNOT_ENCODE))
            yield Progress("nearest neighbours", n + 1, len(spaces))
            continue
        else:
            vector, exclude = (yield from encoder.iter_encode([query.text])), None
        unit = normalise(vector)
        if unit.n_degenerate:
            note = (f"The query has no direction in {name} (e.g. no word the encoder "
                    "knows): every cosine is 0, so the order below means nothing.")
        indices, similarities = yield from iter_top_k(unit, pool, k, exclude=exclude)
        indices, similarities = indices[0], similarities[0]
        answers.append(Neighbours(indices, similarities, np.isin(indices, same),
                                  np.isin(indices, partners), note))
        yield Progress("nearest neighbours", n + 1, len(spaces))
    return answers, normalised


def _empty(note: str) -> Neighbours:
    nothing = np.zeros(0, dtype=np.int64)
    return Neighbours(nothing, np.zeros(0, dtype=np.float32), nothing.astype(bool),
                      nothing.astype(bool), note)


class NeighbourColumn(QWidget):
    """One space's neighbours: rank, cosine, marks and text."""

    def __init__(self, name: str, dim: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = QLabel(f"<b>{html.escape(name)}</b> <span style='color: #666'>"
                            f"({dim}-d)</span>")
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #a05a00")
        self.note.hide()
        self.table = QTableWidget(0, 4)
        self.table.setAccessibleName(f"neighbours in {name}")
        self.table.setHorizontalHeaderLabels(["#", "cosine", "", "text"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(True)
        self.table.setToolTip(f"{SAME_GROUP}: in a group of the query sentence   "
                              f"{PARTNER}: its paraphrase partner (a positive pair)\n"
                              "Click a neighbour to select it")
        header = self.table.horizontalHeader()
        for column in range(3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.note)
        layout.addWidget(self.table, stretch=1)
        self.indices = np.zeros(0, dtype=np.int64)

    def show_neighbours(self, corpus: Corpus, answer: Neighbours) -> None:
        self.note.setText(answer.note)
        self.note.setVisible(bool(answer.note))
        self.indices = answer.indices
        self.table.setRowCount(len(answer.indices))
        for row, (index, similarity, same, partner) in enumerate(zip(
                answer.indices, answer.similarities, answer.same_group, answer.partner)):
            marks = (SAME_GROUP if same else "") + (PARTNER if partner else "")
            cells = (str(row + 1), f"{similarity:.3f}", marks, corpus.texts[index])
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, int(index))
                if column < 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.table.setItem(row, column, item)
        self.table.resizeRowsToContents()

    def row(self, row: int) -> tuple[str, str, str, str]:
        """The (rank, cosine, marks, text) cells of one row."""
        return tuple(self.table.item(row, column).text() for column in range(4))


class NeighboursView(QWidget):
    """Query box, k, and one column of nearest neighbours per registered space.

    Signals
    -------
    sentence_selected(int) : the user clicked a neighbour (corpus index).
    neighbours_found(list) : sorted corpus indices of every neighbour now shown.
    """

    sentence_selected = Signal(int)
    neighbours_found = Signal(list)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.corpus: Corpus | None = None
        self.spaces: list[Space] = []
        self.columns: list[NeighbourColumn] = []
        self.query: Query | None = None
        self._pools: list[Normalised | None] = []
        self.job: JobHandle | None = None

        self.query_box = QLineEdit()
        self.query_box.setPlaceholderText("Type a sentence, or select one in another view")
        self.query_box.setToolTip("Press Enter to find its nearest neighbours; text you type "
                                  "is encoded on the fly by each encoder")
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
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.caption)
        layout.addWidget(self.splitter, stretch=1)

    # --- public API -----------------------------------------------------------------

    def set_spaces(self, corpus: Corpus, spaces: Sequence[Space]) -> None:
        """Show one column per (name, fitted encoder, embeddings of every corpus
        sentence under it); the current query is asked again of the new spaces.

        Raises
        ------
        ValueError
            An encoder is not fitted or its embeddings are not one row per sentence.
        """
        for name, encoder, embeddings in spaces:
            if not encoder.is_fitted:
                raise ValueError(f"encoder {name} must be fitted before it can encode queries")
            if embeddings.shape[0] != len(corpus):
                raise ValueError(f"{name}: {embeddings.shape[0]} embeddings for "
                                 f"{len(corpus)} sentences")
        if corpus is not self.corpus:
            self.query = None
        if self.job is not None:
            # Its answers and normalised pools belong to the old spaces.
            self.job.cancel()
            self.job = None
        self.corpus, self.spaces = corpus, list(spaces)
        self._pools = [None] * len(self.spaces)
        for column in self.columns:
            column.setParent(None)
            column.deleteLater()
        self.columns = [NeighbourColumn(name, encoder.dim) for name, encoder, _ in spaces]
        for column in self.columns:
            column.table.cellClicked.connect(
                lambda row, _c, column=column: self._neighbour_clicked(column, row))
            self.splitter.addWidget(column)
        self._rerun()

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

    # --- search ---------------------------------------------------------------------

    def _rerun(self) -> None:
        if self.query is not None:
            self._search(self.query)
        elif not self.spaces:
            self.caption.setText("Register encoders, then query a sentence.")
        else:
            self.caption.setText("Type a sentence, or select one, to see its nearest "
                                 "neighbours in each space.")

    def _search(self, query: Query) -> None:
        self.query = query
        if self.corpus is None or not self.spaces:
            return
        if self.job is not None:
            self.job.cancel()
        what = (f"sentence {html.escape(self.corpus.ids[query.index])}" if query.index >= 0
                else "the typed text")
        self.caption.setText(f"Searching the {self.k.value()} nearest neighbours of {what}…")
        corpus, spaces, pools, k = self.corpus, self.spaces, list(self._pools), self.k.value()
        handle: JobHandle | None = None

        def found(result: tuple[list[Neighbours], list[Normalised]]) -> None:
            if handle is self.job:
                self._pools = result[1]
                self._show(query, result[0])

        handle = start_job(search_neighbours(corpus, spaces, pools, query, k),
                           "nearest neighbours", on_error=self._failed, on_result=found,
                           owner=self)
        self.job = handle

    def _failed(self, error: Exception) -> None:
        self.caption.setText(f"<span style='color: #c00000'>Search failed: "
                             f"{html.escape(str(error))}</span>")

    def _show(self, query: Query, answers: list[Neighbours]) -> None:
        corpus = self.corpus
        if query.index >= 0:
            what = f"sentence <b>{html.escape(corpus.ids[query.index])}</b>"
        else:
            what = "the typed text"
        self.caption.setText(f"Nearest neighbours of {what} by cosine: "
                             f"<i>{html.escape(query.text)}</i>")
        for column, answer in zip(self.columns, answers):
            column.show_neighbours(corpus, answer)
        shown = np.unique(np.concatenate([a.indices for a in answers]))
        self.neighbours_found.emit([int(i) for i in shown])

    def _neighbour_clicked(self, column: NeighbourColumn, row: int) -> None:
        if 0 <= row < len(column.indices):
            index = int(column.indices[row])
            # Deferred: the receiver may query this sentence, which rebuilds the table
            # whose cell is still being clicked.
            QTimer.singleShot(0, lambda: self.sentence_selected.emit(index))
