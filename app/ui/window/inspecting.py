"""The Inspector dock: the focus sentence of the selection with its nearest
neighbours from the encoder chosen. A corpus never run is encoded for it (a job,
through the cache); a space above ``sentspace.app.analysis.ann.EXACT_LIMIT`` gets its neighbour index
built by a job first."""

from __future__ import annotations

from sentspace.app.corpora.model import Corpus
from sentspace.app.state.session import CorpusState, Session, encoded_space
from sentspace.app.ui.kit.workers import JobHandle
from sentspace.app.ui.panels.corpus_panel import CorpusPanel
from sentspace.app.ui.views.inspector import Inspector
from sentspace.app.ui.window.job_queue import JobQueue
from sentspace.models.base import Embeddings, Encoder


class Inspecting:
    def __init__(self, session: Session, jobs: JobQueue, panel: CorpusPanel) -> None:
        self.session, self.jobs, self.panel = session, jobs, panel
        self.inspector = Inspector()
        #: (corpus spec, encoder spec) being encoded for the Inspector.
        self._encoding: set[tuple[str, str]] = set()
        #: The job building a neighbour index, and for which embeddings.
        self._indexing: tuple[int, JobHandle] | None = None
        # The neighbours come from the encoder chosen, in the spaces of the corpus shown
        # as it is now.
        panel.encoder_choice.currentIndexChanged.connect(lambda _: self.show_focus())
        session.current_changed.connect(lambda _: self.inspector.clear())
        for event in (session.spaces, session.compared, session.edited):
            session.on_current(event, lambda _: self.show_focus())

    def embeddings(self):
        """The embeddings the neighbours come from: the chosen encoder's space on this
        corpus (a run's or Compare's), else the run shown."""
        state = self.session.current
        spaces = state.spaces
        space = spaces.get(self.panel.encoder_choice.currentData()) or spaces.get(state.shown)
        return space[2] if space is not None else None

    def show_focus(self) -> None:
        """Show the selection's focus sentence with its neighbours."""
        focus, state = self.session.selection.focus, self.session.current
        if focus < 0 or state is None:
            self.inspector.clear()
            return
        embeddings = self.embeddings()
        self.inspector.show_sentence(state.corpus, focus, embeddings)
        if embeddings is None:
            self._encode(state)
        elif not self.inspector.searchable(embeddings):
            self._index(state.corpus, embeddings)

    def _index(self, corpus: Corpus, embeddings: Embeddings) -> None:
        building = self._indexing
        if building is not None and building[0] == id(embeddings) and not building[1].done:
            return

        def indexed(space: Embeddings) -> None:
            self.inspector.mark_indexed(space)
            self.show_focus()

        # A cancelled or failed build is started again by the next click.
        self._indexing = (
            id(embeddings),
            self.jobs.start(
                self.inspector.index_job(corpus, embeddings),
                "building the neighbour index for the Inspector",
                on_result=indexed,
                queue=True,
                quiet=True,
            ),
        )

    def _encode(self, state: CorpusState) -> None:
        """A corpus not run yet: its neighbours come from the chosen encoder."""
        spec, encoder = self.panel.chosen_encoder()
        key = (state.spec, spec)
        self.inspector.note.setText(
            f"Encoding the corpus with {encoder.name} for the "
            "neighbours… (Run also projects and evaluates it)"
        )
        if key in self._encoding:
            return
        self._encoding.add(key)

        def encoded(space: tuple[str, Encoder, Embeddings]) -> None:
            self._encoding.discard(key)
            self.session.add_space(key[0], spec, space)

        self.jobs.start(
            encoded_space(state.corpus, encoder),
            f"encoding for the Inspector: {encoder.name}",
            on_result=encoded,
            queue=True,
        )
