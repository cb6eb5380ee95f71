"""The session's filter, kept and followed: the Filter panel's changes go to the
session, and each change of the filter or of what its columns read (a corpus shown, a
run, regions, an edit) is evaluated once in the core and handed to every view: the
projection fades what fails it, the Corpus table lists only what passes, the
neighbours mark what fails it, the panel's charts count under it, and the evaluation
charts (the Evaluations and Classification tabs) draw faint the items it leaves out."""

from __future__ import annotations

import time

import numpy as np
from PySide6.QtWidgets import QMessageBox

from sentspace.app.analysis.filters import (
    Filter,
    FilterTable,
    Kept,
    export_rows,
    state_columns,
    table_of,
    usable,
)
from sentspace.app.base.errors import InputError
from sentspace.app.state.session import CorpusState, Session
from sentspace.app.ui.kit.file_dialogs import save_file
from sentspace.app.ui.panels.filter_panel import FilterPanel
from sentspace.app.ui.views.neighbours_view import NeighboursView
from sentspace.app.ui.views.projection_view import ProjectionView


class Filtering:
    """``session``'s filter, drawn in ``panel`` and followed by ``projection``, the
    ``views``' Corpus table and ``neighbours``."""

    def __init__(
        self,
        session: Session,
        panel: FilterPanel,
        projection: ProjectionView,
        views,
        neighbours: NeighboursView,
        result_panels: tuple = (),
    ) -> None:
        """``result_panels``: panels of result charts, each with ``set_passing(mask)``."""
        self.session, self.panel, self.projection = session, panel, projection
        self.views, self.neighbours, self.result_panels = views, neighbours, result_panels
        #: The pass mask of the corpus shown (None: nothing filtered).
        self.mask: np.ndarray | None = None
        #: Seconds the last update took, from the filter set to every view drawn.
        self.last_update_s = 0.0

    def follow(self) -> None:
        session = self.session
        self.panel.filter_changed.connect(self._asked)
        self.panel.keep_selection_asked.connect(self.keep_selection)
        self.panel.export_asked.connect(self._export_asked)
        session.current_changed.connect(self.update)
        for event in (session.filtered, session.ran, session.regions, session.edited):
            session.on_current(event, lambda state, *_: self.update(state))
        self.views.passing = self.passing

    def passing(self, state: CorpusState | None) -> np.ndarray | None:
        """The pass mask of ``state`` when it is the corpus shown (the Corpus table
        asks when it is built)."""
        return self.mask if state is self.session.current else None

    def _asked(self, chosen: Filter) -> None:
        current = self.session.current
        if current is not None:
            self.session.set_filter(current.spec, chosen)

    def keep_selection(self) -> None:
        """Filter to the sentences selected now: a condition (a chip) naming their ids,
        in place of any kept before."""
        current, selection = self.session.current, self.session.selection
        if current is None or not selection.belongs_to(current) or not len(selection.indices):
            self._tell(
                "Keep only the selection",
                "Select sentences first (a box or lasso on the projection, a chart, a search).",
            )
            return
        ids = tuple(current.corpus.ids[k] for k in selection.indices)
        self.session.set_filter(current.spec, current.filter.with_condition(Kept(ids)))

    def rows(self, which: str) -> np.ndarray:
        """The sentences of the corpus shown passing the filter ("passing"; all when
        nothing is filtered) or "selected"."""
        current = self.session.current
        if current is None:
            return np.empty(0, dtype=np.int64)
        if which == "selected":
            selection = self.session.selection
            return (
                selection.indices if selection.belongs_to(current) else np.empty(0, dtype=np.int64)
            )
        return np.arange(len(current.corpus)) if self.mask is None else np.flatnonzero(self.mask)

    def _export_asked(self, which: str) -> None:
        noun = "passing sentences" if which == "passing" else "selected sentences"
        if self.session.current is None or not len(self.rows(which)):
            self._tell("Export", f"There are no {noun} to export.")
            return
        path = save_file(self.panel, f"Export the {noun}", "CSV (*.csv);;JSON lines (*.jsonl)")
        if path:
            self.export(which, path)

    def export(self, which: str, path: str) -> bool:
        """Write the ``which`` sentences with every column to ``path``; a failure is a
        dialog saying why."""
        current = self.session.current
        assert current is not None
        try:
            export_rows(path, current.corpus, state_columns(current), self.rows(which))
        except InputError as error:
            QMessageBox.warning(self.panel, "Export failed", str(error))
            return False
        return True

    def _tell(self, title: str, text: str) -> None:
        QMessageBox.information(self.panel, title, text)

    def update(self, state: CorpusState | None) -> None:
        started = time.perf_counter()
        if state is None:
            self.mask = None
            self.panel.show_filter(None, Filter(), None)
            self._show_views()
            return
        self.show(table_of(state), state.filter)
        self.last_update_s = time.perf_counter() - started

    def show(self, table: FilterTable, wanted: Filter) -> None:
        """Evaluate ``wanted`` on ``table`` and hand it to every view."""
        chosen, error = usable(wanted, table), ""
        try:
            evaluated = table.evaluate(chosen)
        except InputError as problem:  # a saved expression naming a column now gone
            error, chosen = str(problem), chosen.with_expression("")
            evaluated = table.evaluate(chosen)
        self.mask = evaluated.mask if chosen else None
        self.panel.show_filter(table, chosen, evaluated, error)
        self._show_views()

    def _show_views(self) -> None:
        mask = self.mask
        self.projection.set_passing(mask)
        if self.views.corpus_page.is_built:
            self.views.corpus_browser.set_passing(mask)
        self.neighbours.set_passing(mask)
        for panel in self.result_panels:
            panel.set_passing(mask)
