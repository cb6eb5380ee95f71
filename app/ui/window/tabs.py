"""The centre's views, one tab each: the projection, the Costra orderings, Compare
encoders, the corpus table and the nearest neighbours. Hidden ones are built when first
shown (or used), not before the window shows; each selects through ``selecting`` and
follows the selection's focus."""

from __future__ import annotations

from PySide6.QtWidgets import QTabWidget, QWidget

from sentspace.app.analysis.evaluations import APPLICABLE
from sentspace.app.analysis.neighbour_search import Query
from sentspace.app.state.session import Session
from sentspace.app.ui.kit.lazy_page import LazyPage
from sentspace.app.ui.views.compare_view import CompareView
from sentspace.app.ui.views.corpus_browser import CorpusBrowser
from sentspace.app.ui.views.costra_view import CostraView
from sentspace.app.ui.views.neighbours_view import NeighboursView
from sentspace.app.ui.views.projection_view import ProjectionView
from sentspace.app.ui.window.selecting import Selecting

#: Short titles, so the tabs fit a narrow centre; the tooltips say them whole.
TABS = (
    ("Projection", ""),
    ("Costra", "Costra orderings: open Costra 1.1 to see the seed groups' orderings"),
    ("Compare", "Compare encoders"),
    ("Corpus", "The corpus's sentences and statistics"),
    ("Neighbours", "Nearest neighbours of a sentence or a query, per encoder"),
)


class Views(QTabWidget):
    def __init__(
        self, session: Session, projection: ProjectionView, selecting: Selecting, compare_header
    ) -> None:
        """``compare_header(view)``: Compare's choices above its view (a page)."""
        super().__init__()
        self.session, self.projection, self.selecting = session, projection, selecting
        #: The filter's pass mask of a corpus (None: none), set by the window's Filtering.
        self.passing = lambda state: None
        self.setDocumentMode(True)
        self.costra_page = LazyPage(self._build_costra_view)
        self.compare_page = LazyPage(self._build_compare_view)
        self.corpus_page = LazyPage(self._build_corpus_browser)
        self.neighbours_view = NeighboursView()
        self.neighbours_view.sentence_selected.connect(
            lambda index: selecting.select_later(index, "neighbours")
        )
        # Queries made in the neighbours tab ring their neighbours in the projection; a
        # click in the projection keeps ringing the clicked sentence's group there.
        self.neighbours_view.neighbours_found.connect(
            lambda found: (
                projection.highlight(found)
                if self.currentWidget() is self.neighbours_view
                else None
            )
        )
        pages: tuple[QWidget, ...] = (
            projection,
            self.costra_page,
            compare_header(self.compare_page),
            self.corpus_page,
            self.neighbours_view,
        )
        for page, (title, tip) in zip(pages, TABS):
            self.setTabToolTip(self.addTab(page, title), tip)
        # Each tab draws the corpus shown, from the session only.
        self.neighbours_view.queried.connect(self._remember_query)
        self.currentChanged.connect(self._remember_tab)
        session.current_changed.connect(self._show_state)
        for event in (session.ran, session.evaluated):
            session.on_current(event, lambda state, *_: self.show_costra(state))
        for event in (session.ran, session.spaces, session.compared):
            session.on_current(event, lambda state: self.show_spaces(state))
        session.on_current(
            session.compared,
            lambda state: (
                self.compare_page.is_built and self.compare_view.show_comparison(state.comparison)
            ),
        )
        session.on_current(session.edited, self._edited)

    def _show_state(self, state) -> None:
        """Every tab shows the corpus switched to, as it was left (or nothing)."""
        titles = [title for title, _ in TABS]
        left_on = state.view.get("tab") if state is not None else None
        costra = state is not None and APPLICABLE["costra"](state.corpus)
        if not costra and self.currentIndex() == titles.index("Costra"):
            # Disabled while current, Qt would step on to Compare (empty) and keep it as
            # this corpus's tab.
            self.setCurrentIndex(0)
        self.setTabEnabled(titles.index("Costra"), costra)
        self.show_costra(state)
        if self.compare_page.is_built:
            if state is not None and state.comparison is not None:
                self.compare_view.show_comparison(state.comparison)
            else:
                self.compare_view.clear()
        if self.corpus_page.is_built and state is not None:
            self.browse(state)
        self.show_spaces(state)
        # The tab the corpus was left on (saved with the workspace), where it still applies.
        if left_on in titles and self.isTabEnabled(titles.index(left_on)):
            self.setCurrentIndex(titles.index(left_on))
        elif not self.isTabEnabled(self.currentIndex()):
            self.setCurrentIndex(0)

    def _remember_tab(self, index: int) -> None:
        current = self.session.current
        if current is not None and index >= 0:
            self.session.set_view(current.spec, "tab", TABS[index][0])

    def _edited(self, state) -> None:
        """A new version of the corpus: the same sentences in new groups or scores,
        so the browser's group column and the neighbours' marks follow."""
        if self.corpus_page.is_built:
            self.browse(state)
        self.show_spaces(state)

    def browse(self, state, browser: CorpusBrowser | None = None) -> None:
        """The corpus table of ``state``, filtered as it was left."""
        browser = browser or self.corpus_browser
        browser.set_corpus(state.corpus)
        browser.set_passing(self.passing(state))
        browser.filter_box.setText(state.view.get("filter", ""))

    def show_spaces(self, state) -> None:
        """Every encoder space of the corpus, side by side in the neighbours tab, asked
        the corpus's own last query."""
        if state is None:
            self.neighbours_view.clear()
            return
        asked = state.view.get("neighbours")
        query = Query(asked["text"], asked["index"]) if asked else None
        self.neighbours_view.set_spaces(state.corpus, list(state.spaces.values()), query)

    def _remember_query(self, query) -> None:
        current = self.session.current
        if current is not None:
            self.session.set_view(
                current.spec,
                "neighbours",
                None if query is None else {"text": query.text, "index": query.index},
            )

    def show_costra(self, state, view: CostraView | None = None) -> None:
        """The Costra orderings of ``state``'s corpus once it has both a projection and
        a Costra result of the same version; otherwise nothing of another corpus."""
        if view is None and not self.costra_page.is_built:
            return
        view = view or self.costra_view
        result = state.costra_result if state is not None else None
        exploration = state.exploration if state is not None else None
        if (
            result is None
            or exploration is None
            or result.provenance.corpus_fingerprint != exploration.corpus.fingerprint
        ):
            view.clear()
            return
        view.set_data(
            exploration.corpus,
            exploration.projection.coordinates,
            result,
            exploration.projection.axis_labels,
            group=state.view.get("costra_group"),
        )

    @property
    def costra_view(self) -> CostraView:
        return self.costra_page.widget

    @property
    def compare_view(self) -> CompareView:
        return self.compare_page.widget

    @property
    def corpus_browser(self) -> CorpusBrowser:
        return self.corpus_page.widget

    def _build_costra_view(self) -> CostraView:
        view, selecting = CostraView(), self.selecting
        view.sentence_selected.connect(lambda index: selecting.select_later(index, "costra"))
        view.sentences_selected.connect(lambda indices: selecting.select_items(indices, "costra"))
        view.projection.hovered.connect(selecting.show_hovered)
        view.group_shown.connect(
            lambda group: (
                self.session.current is not None
                and self.session.set_view(self.session.current.spec, "costra_group", group)
            )
        )
        self.show_costra(self.session.current, view)
        return view

    def _build_compare_view(self) -> CompareView:
        view, current = CompareView(), self.session.current
        view.sentence_selected.connect(lambda index: self.selecting.select_later(index, "compare"))
        for side in view.views:
            side.hovered.connect(self.selecting.show_hovered)
        if current is not None and current.comparison is not None:
            view.show_comparison(current.comparison)
        return view

    def _build_corpus_browser(self) -> CorpusBrowser:
        browser, current = CorpusBrowser(), self.session.current
        browser.sentence_selected.connect(
            lambda index: self.selecting.select_later(index, "corpus")
        )
        browser.filter_box.textChanged.connect(
            lambda text: (
                self.session.current is not None
                and self.session.set_view(self.session.current.spec, "filter", text)
            )
        )
        if current is not None:
            self.browse(current, browser)
        return browser

    def follow(self, selection) -> None:
        """The corpus table, Compare and the neighbours tab follow the selection's focus."""
        focus, current = selection.focus, self.session.current
        if self.compare_page.is_built:
            self.compare_view.show_selected(focus)
        if focus >= 0 and current is not None:
            if self.corpus_page.is_built:
                self.corpus_browser.select(focus)
            if current.spaces and selection.source != "neighbours":
                self.neighbours_view.query_sentence(focus)
