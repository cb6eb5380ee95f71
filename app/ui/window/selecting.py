"""The one selection as the projection and the Selected sentences dock show it: the
projection rings it and colours its points by the scheme chosen (a group alone greys
out the rest), the regex search selects what matches, and Selected sentences lists
the selection (a clicked point: its group, marked as classified). *Colour by* offers
the columns of the corpus and its run (``sentspace.app.analysis.columns``), each corpus keeping
its own choice in its view (a new one starts at ``default_colouring``). Every way of
selecting ends in :meth:`sentspace.app.state.session.Selection.select`; the words come from
:mod:`sentspace.app.corpora.listing`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.columns import sentence_columns
from sentspace.app.corpora.browse import match_sentences
from sentspace.app.corpora.listing import (
    Row,
    classified_rows,
    describe_sentence,
    first_groups,
    group_rows,
    misclassified_rows,
    prompt,
    selection_caption,
)
from sentspace.app.exporters.export import export_sentences
from sentspace.app.state.colouring import (
    Colourable,
    Colouring,
    colour_by,
    colourings,
    default_colouring,
    is_stale,
    point_colours,
    saved_key,
)
from sentspace.app.state.session import Session
from sentspace.app.ui.kit.file_dialogs import save_file, say_written
from sentspace.app.ui.kit.widgets import OneLineDelegate
from sentspace.app.ui.panels.projection_controls import ProjectionControls
from sentspace.app.ui.views.projection_view import ProjectionView

#: Sources whose selection brings Selected sentences forward (a click in the
#: projection or a list is seen where it was made, with the Selected sentences dock
#: beside the views).
RAISED_BY = ("region", "chart", "costra", "search", "review", "cluster")


@dataclass
class Offer:
    """The colourings of one corpus as it is (``made_of``: its corpus, run, regions and
    classification, compared by identity), and the point colours made of them so far:
    switching colouring on 145,000 points reuses both."""

    made_of: tuple[Any, ...]
    columns: dict[str, Colourable]
    made: dict[str, Colouring] = field(default_factory=dict)


class Selecting:
    """For ``session``, shown in ``projection`` coloured as ``controls`` say; ``status``
    is the status bar hovered sentences are read in."""

    def __init__(
        self, session: Session, projection: ProjectionView, controls: ProjectionControls, status
    ) -> None:
        self.session, self.selection = session, session.selection
        self.projection, self.controls, self.status = projection, controls, status
        #: Each sentence's first group (-1: none) in the corpus shown, as edited.
        self.sentence_groups = np.empty(0, dtype=np.int64)
        self.selected_group = -1
        self._alone_shown = False
        #: The classification whose chart bar made the selection, with what it selected
        #: (corpus spec, version, sentences): its list carries that result's marks.
        self._marked_by: tuple[str, str, np.ndarray, object] | None = None
        #: Each open corpus's Offer, by spec.
        self._offers: dict[str, Offer] = {}
        self.caption = QLabel(prompt(None))
        self.caption.setWordWrap(True)
        self.list = QListWidget()
        # One line a sentence (whole in its tooltip): wrapped, the one-column layout at
        # 1280x800 showed three or four.
        self.list.setItemDelegate(OneLineDelegate(self.list))
        self.list.setUniformItemSizes(True)
        self.list.setAccessibleName("group sentences")
        # Deferred: selecting rebuilds the list, which must not delete the clicked item
        # while Qt is still delivering the click.
        self.list.itemClicked.connect(
            lambda item: self.select_later(item.data(Qt.ItemDataRole.UserRole))
        )
        self.alone = QCheckBox("Show this group alone")
        self.alone.setToolTip(
            "Grey out every other sentence of the projection and draw "
            "lines from the group's sentences to its centre"
        )
        self.alone.toggled.connect(lambda _: self.show_group_alone())
        self.export_button = QPushButton("Export to CSV…")
        self.export_button.setToolTip("The listed sentences: index, id, text, group")
        self.export_button.clicked.connect(self._choose_export_target)
        self.widget = QWidget()
        layout = QVBoxLayout(self.widget)
        layout.addWidget(self.caption)
        layout.addWidget(self.list)
        # One row under the list: the list keeps the height.
        below = QHBoxLayout()
        below.addWidget(self.alone)
        below.addStretch(1)
        below.addWidget(self.export_button)
        layout.addLayout(below)
        #: Set by the window: the Selected sentences dock, brought forward by a
        #: selection from ``raised_by``.
        self.dock = None
        self.raised_by = RAISED_BY
        #: The corpus whose selection was shown last: a switch shows the selection it
        #: was left with, without bringing the dock over the Workspace panel.
        self._listed_for = None
        projection.hovered.connect(self.show_hovered)
        projection.clicked.connect(self.select_sentence)
        projection.search.textChanged.connect(self.search)
        projection.search.textChanged.connect(
            lambda text: (
                session.current is not None
                and session.set_view(session.current.spec, "search", text)
            )
        )
        projection.selected.connect(lambda indices: self.selection.select(indices, source="region"))
        controls.colour_changed.connect(self.choose_colour)

    @property
    def corpus(self):
        return self.session.current.corpus if self.session.current is not None else None

    @property
    def exploration(self):
        return self.session.current.exploration if self.session.current is not None else None

    @property
    def classification(self):
        """The classification result the run shown is drawn with (the session's
        record, ``CorpusState.classification``), or None."""
        state = self.session.current
        record = state.classification if state is not None else None
        return record.result if record is not None else None

    def follow(self) -> None:
        """Draw the corpus shown: its layout as run, its search as left, its groups as
        edited, its regions' colours."""
        session, on = self.session, self.session.on_current
        session.current_changed.connect(self._show_state)
        on(session.ran, lambda state: self.draw(state.exploration))
        on(session.edited, self._edited)
        on(session.regions, lambda state: self.recolour())
        # Another classification of the run shown (re-run, evaluated): its rings, and
        # its misclassified as a colouring.
        on(
            session.evaluated,
            lambda state, run: self.show_rings() if run.name == "classification" else None,
        )

    def _show_state(self, state) -> None:
        self.status.clearMessage()  # a hovered sentence of the corpus shown before
        if state is None or state.exploration is None:
            # Cleared only when nothing is drawn next: drawing replaces it all.
            self.projection.clear("Press Run to encode, project and evaluate the corpus.")
        self.set_corpus(state.corpus if state is not None else None)
        if state is not None:
            self.offer_colourings()
            self.show_search(state.view.get("search", ""))
            if state.exploration is not None:
                self.draw(state.exploration)

    def _edited(self, state) -> None:
        """The same sentences in new groups: the layout stays, the colours follow, and
        the rings are those of the classification of this version, or marked stale."""
        self.sentence_groups = first_groups(state.corpus)
        self.show_rings()

    def set_corpus(self, corpus) -> None:
        """The corpus shown (or edited): its groups, and nothing listed yet."""
        self.sentence_groups = (
            first_groups(corpus) if corpus is not None else np.empty(0, dtype=np.int64)
        )
        self.list.clear()
        self.caption.setText(prompt(corpus))
        self.alone.setVisible(corpus is not None and corpus.groups is not None)

    # --- colours ----------------------------------------------------------------

    def offer(self) -> Offer:
        """The colourings of the corpus shown, as it is: made again only when its
        corpus (an edit), run, regions or classification changed."""
        state = self.session.current
        exploration, classification = state.exploration, self.classification
        made_of = (state.corpus, exploration, state.regions, classification)
        offer = self._offers.get(state.spec)
        if offer is None or any(a is not b for a, b in zip(offer.made_of, made_of)):
            columns = sentence_columns(
                state.corpus,
                regions=state.regions if exploration is not None else None,
                classification=classification,
                faithfulness=exploration.faithfulness if exploration is not None else None,
            )
            offer = self._offers[state.spec] = Offer(made_of, colourings(columns))
        for spec in [spec for spec in self._offers if spec not in self.session.states]:
            del self._offers[spec]  # a closed corpus's columns go with it
        return offer

    def colour_key(self, offer: Offer) -> str:
        """The corpus's own choice when it has that column now, else its default."""
        state = self.session.current
        chosen = saved_key(state.view.get("colour"))
        return chosen if chosen in offer.columns else default_colouring(state.corpus, offer.columns)

    def offer_colourings(self) -> None:
        """*Colour by* offers the columns of the corpus shown, its choice chosen."""
        offer = self.offer()
        self.controls.offer(
            [(key, column.title) for key, column in offer.columns.items()], self.colour_key(offer)
        )

    def choose_colour(self, key: str) -> None:
        """The user coloured the corpus shown by column ``key``: kept in its view."""
        state = self.session.current
        if state is not None:
            self.session.set_view(state.spec, "colour", key)
            self.recolour()

    def colouring(self) -> Colouring:
        """Point colours by the corpus's colouring, and the legend that explains them."""
        offer = self.offer()
        key = self.colour_key(offer)
        if key not in offer.made:
            offer.made[key] = colour_by(offer.columns[key], key)
        return point_colours(self.exploration, offer.made[key], self.classification, self.corpus)

    def draw(self, exploration) -> None:
        """Draw the layout of ``exploration`` with its colours, search and selection."""
        self.offer_colourings()
        colouring = self.colouring()
        self._alone_shown = False
        self.projection.set_points(
            exploration.projection.coordinates,
            colouring.colours,
            self.describe_sentence,
            exploration.projection.axis_labels,
            colouring.legend,
            colouring.scale,
        )
        self.projection.show_found(self.found(self.projection.search.text()))
        self.projection.highlight(self.selection.indices)
        self._mark()

    def _mark(self) -> None:
        result = self.classification
        if result is None:
            self.projection.mark(np.empty(0, dtype=np.int64))
        else:
            self.projection.mark(result.misclassified, is_stale(result, self.corpus))

    def show_rings(self) -> None:
        """Ring the misclassified of the classification now recorded, and say whose."""
        if self.exploration is not None:
            self._mark()
            self.recolour()

    def recolour(self) -> None:
        if self.exploration is not None:
            self.offer_colourings()
            colouring = self.colouring()
            self.projection.set_colours(colouring.colours, colouring.legend, colouring.scale)
            self._alone_shown = False
            self.show_group_alone()

    def show_group_alone(self) -> None:
        """With "group alone" on, grey out all but the selected group and draw its
        members' lines to their centroid; otherwise the normal colours."""
        if self.exploration is None:
            return
        group = self.selected_group if self.alone.isChecked() else -1
        members = self.corpus.groups.members(group) if group >= 0 else np.empty(0, dtype=np.int64)
        if not len(members) and not self._alone_shown:
            return  # the normal colours are on show: a click need not repaint every point
        self._alone_shown = bool(len(members))
        colouring = self.colouring()
        colours, legend = colouring.colours, colouring.legend
        if len(members):
            others = np.ones(len(colours), dtype=bool)
            others[members] = False
            colours = colours.where(others, "#e4e4e4")
            legend += " Other sentences greyed out."
        self.projection.set_colours(colours, legend, colouring.scale)
        self.projection.show_spokes(members)

    # --- search -----------------------------------------------------------------

    def show_search(self, pattern: str) -> None:
        """The search of the corpus switched to, as it was left, said beside the box
        (its selection was restored with the corpus)."""
        box = self.projection.search
        box.blockSignals(True)
        box.setText(pattern)
        box.blockSignals(False)
        self.found(pattern)

    def search(self, pattern: str) -> np.ndarray:
        """Select the sentences matching ``pattern`` (a case-insensitive regular
        expression) and mark them in the projection; returns their indices."""
        found = self.found(pattern)
        if self.exploration is not None:
            self.projection.show_found(found)
        if len(found) or self.selection.source == "search":
            self.selection.select(found, source="search")
        return found

    def found(self, pattern: str) -> np.ndarray:
        """The sentences matching ``pattern``, said beside the search box."""
        box, result = self.projection.search, self.projection.search_result
        found = np.empty(0, dtype=np.int64)
        box.setStyleSheet("")
        result.clear()
        if pattern and self.corpus is not None:
            try:
                expression = re.compile(pattern, re.IGNORECASE)
            except re.error as error:
                box.setStyleSheet("border: 1px solid #d00000")
                result.setText(f"invalid: {error.msg}")
            else:
                found = np.flatnonzero(match_sentences(self.corpus.texts, expression))
                result.setText(f"{len(found):,} of {len(self.corpus):,}")
        return found

    # --- selecting --------------------------------------------------------------

    def select_later(self, index: int, source: str = "point") -> None:
        # Deferred: selecting rebuilds lists, which must not delete the clicked item
        # while Qt is still delivering the click.
        QTimer.singleShot(0, lambda: self.select_sentence(index, source))

    def select_sentence(self, index: int, source: str = "point") -> None:
        """Select sentence ``index`` (-1: nothing); a point clicked in the projection
        selects its group."""
        if index < 0:
            self.selection.clear()
            return
        group = self.group_of(index)
        members = self.corpus.groups.members(group) if source == "point" and group >= 0 else [index]
        self.selection.select(members, focus=index, source=source)

    def select_items(self, indices: list[int], source: str = "chart") -> None:
        """Select the sentences behind a clicked number, chart element, review row or
        Costra comparison; the first is the focus."""
        if len(indices):
            self.selection.select(indices, source=source)

    def select_classified(self, indices: list[int], classification) -> None:
        """Select the sentences of a bar of ``classification``'s chart: listed with its
        ✓ and ✗, as a clicked point's group and the misclassified are."""
        if not len(indices):
            return
        state = self.session.current
        self._marked_by = (
            state.spec,
            state.corpus.fingerprint,
            np.unique(np.asarray(indices, dtype=np.int64)),
            classification,
        )
        self.selection.select(indices, source="chart")

    def _marks_of(self, selection):
        """The classification whose marks ``selection`` is listed with, if a bar of its
        chart made it."""
        if self._marked_by is None:
            return None
        spec, version, indices, classification = self._marked_by
        state = self.session.current
        return (
            classification
            if selection.source == "chart"
            and state is not None
            and (spec, version) == (state.spec, state.corpus.fingerprint)
            and np.array_equal(indices, selection.indices)
            else None
        )

    def show_misclassified(self) -> None:
        """Select the misclassified sentences; they are listed with their true and
        predicted groups."""
        self.selection.select(self.classification.misclassified, focus=-1, source="misclassified")

    def group_of(self, index: int) -> int:
        """The (first) group of sentence ``index``, -1 for none or no selection."""
        return int(self.sentence_groups[index]) if index >= 0 else -1

    def describe_sentence(self, index: int) -> str:
        exploration = self.exploration
        return describe_sentence(
            self.corpus,
            index,
            self.sentence_groups,
            exploration.faithfulness if exploration else None,
        )

    def show_hovered(self, index: int) -> None:
        if index >= 0:
            self.status.showMessage(self.describe_sentence(index).replace("\n", "  "))
        else:
            self.status.clearMessage()

    # --- Selected sentences -----------------------------------------------------

    def show(self, selection) -> None:
        """Ring the selection in the projection and list it (a clicked point: its
        group; the misclassified: with their groups)."""
        focus, indices, corpus = selection.focus, selection.indices, self.corpus
        if self.exploration is not None:
            self.projection.highlight(indices)
        self.list.clear()
        self.selected_group = -1
        if selection.source == "point" and self.group_of(focus) >= 0:
            self.selected_group = self.group_of(focus)
            self._list(*group_rows(corpus, focus, self.sentence_groups, self.classification))
        elif selection.source == "misclassified" and self.classification is not None:
            self._list(*misclassified_rows(corpus, self.classification))
        elif len(indices) and (marks := self._marks_of(selection)) is not None:
            exploration = self.exploration
            self._list(
                selection_caption(corpus, len(indices), selection.source),
                classified_rows(
                    corpus,
                    indices[:5000],
                    self.sentence_groups,
                    marks,
                    exploration.faithfulness if exploration else None,
                ),
            )
        elif len(indices):
            # A list of more than 5,000 would only be scrolled past.
            self._list(
                selection_caption(corpus, len(indices), selection.source),
                [
                    Row(self.describe_sentence(int(sentence)), int(sentence))
                    for sentence in indices[:5000]
                ],
            )
        else:
            self.caption.setText(prompt(corpus))
        switched, self._listed_for = (
            self._listed_for is not self.session.current,
            self.session.current,
        )
        if (
            len(indices)
            and selection.source in self.raised_by
            and self.dock is not None
            and not switched
        ):
            self.dock.raise_()
        self.show_group_alone()

    def _list(self, heading: str, rows: list[Row]) -> None:
        self.caption.setText(heading)
        for row in rows:
            item = QListWidgetItem(row.text.replace("\n", "  "))
            item.setToolTip(row.text + (f"\n{row.note}" if row.note else ""))
            item.setData(Qt.ItemDataRole.UserRole, row.sentence)
            if row.focus:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.list.addItem(item)

    def listed_sentences(self) -> list[int]:
        """Sentences in the selected-sentences list, in its order."""
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def export_selection(self, path: str | Path) -> None:
        """The listed sentences as CSV: index, id, text, group."""
        export_sentences(self.corpus, self.listed_sentences(), path)

    def _choose_export_target(self) -> None:
        if self.list.count():
            path = save_file(self.widget, "Export sentences", "CSV (*.csv)")
            if path:
                self.export_selection(path)
                say_written(self.widget, path)
