"""The selected sentence: its text, id, group, metadata, and nearest neighbours."""

from __future__ import annotations

import html

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.ann import choose
from sentspace.app.analysis.neighbour_search import Neighbours, Query, search_neighbours
from sentspace.app.analysis.neighbours import Normalised, normalise
from sentspace.app.base.jobs import Job, run_job
from sentspace.app.corpora.model import Corpus
from sentspace.app.ui.kit.widgets import row_table
from sentspace.app.ui.views.neighbours_view import PARTNER, SAME_GROUP
from sentspace.models.base import Embeddings

NEIGHBOURS = 10


def _escape(value: object) -> str:
    return html.escape(str(value), quote=False)


class Inspector(QWidget):
    """Shows one sentence; clicking a neighbour selects it.

    Signals
    -------
    sentence_chosen(int) : the user clicked a neighbour.
    """

    sentence_chosen = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.details = QLabel("Select a sentence in the projection.")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        #: Where the neighbours come from when none are shown (what is being encoded).
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #555")
        self.neighbours = row_table(["Cosine", "Mark", "Nearest neighbours"], "neighbours")
        # One line a neighbour (the whole sentence in its tooltip and, once clicked, above),
        # so the table shows its ten rows in a dock a few hundred pixels tall.
        self.neighbours.setWordWrap(False)
        rows = self.neighbours.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.neighbours.setToolTip(
            f"{SAME_GROUP}: in a group of the selected sentence   {PARTNER}: its paraphrase partner"
        )
        self.neighbours.cellClicked.connect(self._neighbour_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.details)
        layout.addWidget(self.note)
        layout.addWidget(self.neighbours, stretch=1)
        self.neighbour_indices = np.empty(0, dtype=np.int64)
        # The normalised rows of the embeddings last shown: normalising a large corpus
        # on every click would cost more than the search itself.
        self._pool: tuple[Embeddings, Normalised] | None = None
        #: Embeddings whose neighbour index (above app.ann.EXACT_LIMIT) is built, by id.
        self._indexed: int | None = None

    def clear(self) -> None:
        self.details.setText("Select a sentence in the projection.")
        self.note.clear()
        self.neighbours.setRowCount(0)
        self.neighbour_indices = np.empty(0, dtype=np.int64)

    def show_sentence(self, corpus: Corpus, index: int, embeddings: Embeddings | None) -> None:
        """Describe sentence ``index`` of ``corpus`` (as edited): the sentence, then its
        id, groups and metadata on one line (the room below is the neighbours'), and
        its neighbours in ``embeddings`` marked as the neighbours tab marks them."""
        shown = [("id", corpus.ids[index])]
        if corpus.groups is not None:
            groups = corpus.groups
            names = [groups.names[g] for g in groups.group_index[groups.sentence_index == index]]
            shown.append((groups.kind, ", ".join(names) or "none"))
        for name, values in corpus.metadata.items():
            # A column that repeats the group (Costra's "seed group") is said once.
            if (name, str(values[index])) not in shown:
                shown.append((name, values[index]))
        fields = [f"<b>{_escape(name)}</b> {_escape(value)}" for name, value in shown]
        self.details.setText(
            f"<span style='font-size: 13px'>{_escape(corpus.texts[index])}"
            f"</span><br>{' · '.join(fields)}"
        )
        self.note.clear()
        self.neighbours.setRowCount(0)
        if embeddings is None:
            return
        if not self.searchable(embeddings):
            self.note.setText(
                f"Building the neighbour index of {embeddings.shape[0]:,} "
                "points (once per encoder); the neighbours follow."
            )
            return
        found = run_job(self._knn(corpus, embeddings, index))
        self.note.setText(found.note)
        self.neighbour_indices = found.indices
        self.neighbours.setRowCount(len(found.indices))
        for row, (neighbour, similarity, same, partner) in enumerate(
            zip(found.indices, found.similarities, found.same_group, found.partner)
        ):
            marks = (SAME_GROUP if same else "") + (PARTNER if partner else "")
            cells = (f"{similarity:.3f}", marks, corpus.texts[neighbour])
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(corpus.texts[neighbour])
                self.neighbours.setItem(row, column, item)

    def searchable(self, embeddings: Embeddings) -> bool:
        """Whether a click can search ``embeddings`` at once: exactly (below
        app.ann.EXACT_LIMIT rows), or by an index :meth:`index_job` built."""
        return self._indexed == id(embeddings) or choose(self._normalised(embeddings)) == "exact"

    def index_job(self, corpus: Corpus, embeddings: Embeddings) -> Job[Embeddings]:
        """Builds the neighbour index over ``embeddings`` and measures its recall (minutes
        at a million rows: a worker's job, not a click's); :meth:`mark_indexed` after."""
        search = self._knn(corpus, embeddings, 0)  # normalised here, in the GUI thread

        def build() -> Job[Embeddings]:
            yield from search
            return embeddings

        return build()

    def mark_indexed(self, embeddings: Embeddings) -> None:
        if self._pool is not None and self._pool[0] is embeddings:  # still the one shown
            self._indexed = id(embeddings)

    def _knn(self, corpus: Corpus, embeddings: Embeddings, index: int) -> Job[Neighbours]:
        """The neighbours tab's search (exact below app.ann.EXACT_LIMIT, else an index
        whose recall is kept once made) on one space, the normalised pool kept."""
        pool = self._normalised(embeddings)
        answers, _ = yield from search_neighbours(
            corpus, [("", None, embeddings)], [pool], Query(corpus.texts[index], index), NEIGHBOURS
        )
        return answers[0]

    def _normalised(self, embeddings: Embeddings) -> Normalised:
        if self._pool is None or self._pool[0] is not embeddings:
            self._pool, self._indexed = (embeddings, normalise(embeddings)), None
        return self._pool[1]

    def _neighbour_clicked(self, row: int, _column: int) -> None:
        self.sentence_chosen.emit(int(self.neighbour_indices[row]))
