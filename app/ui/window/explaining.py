"""*Explain similarity* (Ctrl+E): the pair of sentences the selection names, explained
word by word (``sentspace.app.analysis.explain.explain_pair``) by the current run's encoder, in the Explain
tab. A pair is two selected sentences (a chart point, a review pair, a group of two), a
neighbours row with its query, the more-similar pair of a Costra comparison, or else
the last two sentences clicked (a click in a projection selects a whole group)."""

from __future__ import annotations

import re

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLineEdit, QScrollArea, QTabWidget, QWidget

from sentspace.app.analysis.explain import explain_pair
from sentspace.app.state.session import CorpusState, Selection, Session
from sentspace.app.ui.panels.corpus_panel import CorpusPanel
from sentspace.app.ui.views.explain_view import ExplainView
from sentspace.app.ui.window.job_queue import JobQueue
from sentspace.app.ui.window.tabs import Views
from sentspace.models.base import Encoder


class Explaining:
    """The action, the view and the job that joins them: for the corpus shown in
    ``session``, explained by ``jobs`` with the encoder ``panel`` has chosen; the pair
    may come from ``tabs``' neighbours and Costra views; the page is raised in
    ``tasks``; a word chip searches with ``search``; ``parent`` owns the action."""

    def __init__(
        self,
        session: Session,
        jobs: JobQueue,
        panel: CorpusPanel,
        tabs: Views,
        tasks: QTabWidget,
        search: QLineEdit,
        parent: QWidget,
    ) -> None:
        self.session, self.jobs, self.panel, self.tabs = session, jobs, panel, tabs
        self.tasks, self.search = tasks, search
        self.view = ExplainView()
        # Scrolled: a long sentence's rows of word chips must not widen the window.
        self.page = QScrollArea()
        self.page.setWidget(self.view)
        self.page.setWidgetResizable(True)
        self.page.setFrameShape(QScrollArea.Shape.NoFrame)
        self.view.word_clicked.connect(self.search_word)
        self.action = QAction("&Explain similarity", parent)
        self.action.setShortcut("Ctrl+E")
        self.action.setToolTip(
            "Which words make two sentences close: the two selected, "
            "a neighbours row, a review pair, a Costra comparison, or "
            "the last two clicked"
        )
        self.action.triggered.connect(self.explain)
        self.action.setEnabled(False)
        #: The last two focus sentences, (corpus spec, index) each, the latest last.
        self.foci: list[tuple[str, int]] = []
        session.selection.changed.connect(self._selection_changed)
        session.current_changed.connect(
            lambda state: self.view.set_explanation(state.explanation if state else None)
        )
        session.on_current(
            session.explained, lambda state: self.view.set_explanation(state.explanation)
        )

    @property
    def spec(self) -> str:
        return self.session.current.spec if self.session.current is not None else ""

    def _selection_changed(self, selection: Selection) -> None:
        focus = (self.spec, selection.focus)
        if selection.focus >= 0 and focus not in self.foci[-1:]:
            self.foci = [*self.foci[-1:], focus]
        self.action.setEnabled(self.pair() is not None)

    def pair(self) -> tuple[str, str] | None:
        """The two texts the selection names (the focus first), or None."""
        current, selection = self.session.current, self.session.selection
        corpus = current.corpus if current is not None else None
        if corpus is None or selection.focus < 0:
            return None
        focus, texts = selection.focus, corpus.texts
        neighbours = self.tabs.neighbours_view
        if selection.source == "neighbours" and neighbours.query is not None:
            query = neighbours.query
            return (query.text, texts[focus]) if query.index != focus else None
        if selection.source == "costra" and self.tabs.costra_page.is_built:
            costra = self.tabs.costra_view
            # A comparison is chosen only in a result shown: `costra.result is not None`
            # is said for the type checker.
            if costra.chosen_comparison is not None and costra.result is not None:
                first, second = costra.result.comparisons.more_similar[costra.chosen_comparison]
                return texts[int(first)], texts[int(second)]
        if len(selection.indices) == 2:
            other = int(selection.indices[selection.indices != focus][0])
            return texts[focus], texts[other]
        if (
            len(self.foci) == 2
            and self.foci[0][0] == self.foci[1][0] == self.spec
            and self.foci[1][1] == focus
        ):
            return texts[self.foci[0][1]], texts[focus]
        return None

    def encoder(self, current: CorpusState) -> Encoder:
        """The encoder of ``current``'s run (fitted), else the one chosen (fitted on the
        corpus by the job)."""
        space = current.spaces.get(self.panel.encoder_choice.currentData())
        if space is not None:
            return space[1]
        if current.exploration is not None:
            return current.exploration.encoder
        return self.panel.chosen_encoder()[1]

    def explain(self) -> None:
        pair, current = self.pair(), self.session.current
        if pair is None or current is None:  # a pair is of the corpus shown
            return
        encoder = self.encoder(current)
        self.tasks.setCurrentWidget(self.page)
        spec = current.spec
        self.jobs.start(
            explain_pair(*pair, encoder, corpus=current.corpus),
            f"explaining with {encoder.name}",
            on_result=lambda explanation: self.session.set_explanation(spec, explanation),
            queue=True,
        )

    def search_word(self, word: str) -> None:
        """Find the word's sentences in the corpus (the search box, as a whole word)."""
        self.search.setText(rf"\b{re.escape(word)}\b")
