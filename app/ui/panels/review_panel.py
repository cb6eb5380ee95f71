"""The review panel: suspicious annotations in sortable, filterable tables, and the
edits that fix them.

It renders :class:`~sentspace.app.analysis.suspicious.ReviewList` tables (one per kind, picked
in a selector) and turns clicks into calls on an
:class:`~sentspace.app.annotations.session.AnnotationSession`; it computes nothing itself.
Clicking a row emits ``sentences_selected`` (the row's sentences, main one first) and
``sentence_selected`` (the main one); every edit emits ``corpus_changed``.

An edit the journal cannot take (a full disk, its folder gone) is not applied: the
panel says "Not saved" with the reason, and a red box lists the edits kept unsaved
(:attr:`AnnotationSession.pending`) with *Retry saving* and *Discard* until they are
written or dropped.
"""

from __future__ import annotations

import html

from PySide6.QtCore import (
    QEvent,
    QItemSelection,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.suspicious import (
    CloseGroups,
    GoldDisagreements,
    MisgroupedSentences,
    ReviewList,
    SpreadGroups,
)
from sentspace.app.annotations.edits import EditError
from sentspace.app.annotations.journal import JournalUnavailable
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.ui.panels.move_dialog import MoveDialog
from sentspace.app.ui.panels.pair_dialog import PairEditDialog
from sentspace.app.ui.panels.review_table import (
    DECIDED_BY,
    EVERYONE,
    NUMBER_WIDTH,
    TEXT_COLUMNS,
    UNDECIDED,
    ReviewFilter,
    ReviewTableModel,
    _RowTable,
)

#: Rows whose contents size the columns (0: those in view): all of a list of thousands
#: took 1.3 s, most of switching to its corpus.
SIZED_ROWS = 0
#: Room a heading takes beside its text (its margins).
HEADING_PADDING = 14
#: The narrowest a column of sentences is made (the pair's two: half each), however many
#: columns are beside it.
TEXT_WIDTH = 160
#: Lines kept for the explanation of the row chosen and for what an edit did (the
#: lengths they take at 1280x800).
WHY_LINES, STATUS_LINES = 3, 2
#: What the line under the table says before anything is listed, and before a row is
#: chosen (rather than lines left empty for the row's explanation).
COMPUTE_HINT = "Compute the suspicious items to review them here."
CHOOSE_HINT = (
    "Choose a row to read why it is listed (its whole heading and reasons are in "
    "tooltips); the buttons below edit it."
)
#: Unsaved edits named one by one in the red box; more are counted.
UNSAVED_NAMED = 5


class ReviewPanel(QWidget):
    """Suspicious items by kind, with the edits that fix them.

    Signals
    -------
    sentence_selected(int) : the main sentence of the clicked row.
    sentences_selected(list) : every sentence of the clicked row, main one first.
    corpus_changed() : an edit, undo or redo changed the session's corrected corpus.
    recompute_requested() : the user asked for the lists on the corrected corpus.
    agreement_requested() : the user asked how much the annotators agree.
    conflicts_requested() : the user asked to resolve the conflicts.
    batches_requested() : the user asked to split the lists into batches for people.
    bring_back_requested() : the user asked to bring reviewers' batches back.
    """

    sentence_selected = Signal(int)
    sentences_selected = Signal(list)
    corpus_changed = Signal()
    recompute_requested = Signal()
    agreement_requested = Signal()
    conflicts_requested = Signal()
    batches_requested = Signal()
    bring_back_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.session: AnnotationSession | None = None
        self.lists: dict[str, ReviewList] = {}
        self.pair_dialog: PairEditDialog | None = None
        self.model: ReviewTableModel | None = None
        self.proxy = ReviewFilter()

        self.kind = QComboBox()
        self.kind.setAccessibleName("kind of suspicious item")
        self.kind.currentIndexChanged.connect(self._show_kind)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter (any column)")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.hide_reviewed = QCheckBox("Hide reviewed")
        self.hide_reviewed.toggled.connect(self.proxy.set_hide_reviewed)
        self.author = QComboBox()
        self.author.setAccessibleName("decided by")
        self.author.setToolTip(
            "The items one annotator decided (edited, noted or marked "
            "reviewed), or those nobody has"
        )
        self.author.currentTextChanged.connect(lambda text: self.proxy.set_author(text or EVERYONE))
        self.table = _RowTable()
        self.table.setAccessibleName("suspicious items")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setResizeContentsPrecision(SIZED_ROWS)
        # Not elided: Qt elides a heading of two lines as one ("paraphras…"); each column
        # is made as wide as its heading.
        self.table.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideNone)
        # The sorted heading's arrow is in its text (ReviewFilter.headerData).
        self.table.horizontalHeader().setSortIndicatorShown(False)
        self.table.horizontalHeader().sortIndicatorChanged.connect(
            lambda *_: (self._fit_number_columns(), self._fit_text_columns())
        )
        self.table.viewport().installEventFilter(self)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setVisible(False)
        # Rows in view are sized to their wrapped sentences once the view has settled
        # (scrolled, sorted, filtered, resized): sizing every row of a list of thousands
        # would take seconds.
        self._rows_due = QTimer(self)
        self._rows_due.setSingleShot(True)
        self._rows_due.setInterval(0)
        self._rows_due.timeout.connect(self._size_rows_in_view)
        self.table.verticalScrollBar().valueChanged.connect(lambda _: self._rows_due.start())
        for changed in (self.proxy.layoutChanged, self.proxy.modelReset, self.proxy.rowsInserted):
            changed.connect(lambda *_: self._rows_due.start())
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._context_menu)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.why = QLabel(COMPUTE_HINT)
        self.why.setWordWrap(True)
        self.status = QLabel()
        self.status.setWordWrap(True)
        # Room kept for their lines, so the table does not jump when a row is chosen or
        # an edit says the lists are stale.
        for label, lines in ((self.why, WHY_LINES), (self.status, STATUS_LINES)):
            label.setMinimumHeight(lines * label.fontMetrics().lineSpacing())
            label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # Said only when the table's neighbours were found approximately (large corpora).
        #: The conflicts among the edits in effect (two annotators on one item).
        self.conflicts = QLabel()
        self.conflicts.setWordWrap(True)
        self.conflicts.setStyleSheet("color: #b00000")
        self.conflicts.setVisible(False)
        self.search_note = QLabel()
        self.search_note.setWordWrap(True)
        self.search_note.setStyleSheet("color: #666")
        #: The edits the journal could not take, with why, and what can be done.
        self.unsaved = QLabel()
        self.unsaved.setWordWrap(True)
        self.unsaved.setAccessibleName("edits not saved")
        self.unsaved_box = QWidget()
        self.unsaved_box.setObjectName("unsaved-edits")
        self.unsaved_box.setStyleSheet(
            "#unsaved-edits { border: 2px solid #b00000; background: #fff0f0; }"
            " QLabel { color: #b00000; }"
        )
        self.retry_button = QPushButton("Retry saving")
        self.retry_button.setToolTip(
            "Write the edits not saved to the journal, in the order they were made"
        )
        self.retry_button.clicked.connect(lambda: self.retry())
        self.discard_button = QPushButton("Discard them")
        self.discard_button.setToolTip("Forget the edits not saved")
        self.discard_button.clicked.connect(lambda: self.discard())
        unsaved_layout = QVBoxLayout(self.unsaved_box)
        unsaved_layout.addWidget(self.unsaved)
        unsaved_buttons = QHBoxLayout()
        unsaved_buttons.addWidget(self.retry_button)
        unsaved_buttons.addWidget(self.discard_button)
        unsaved_buttons.addStretch(1)
        unsaved_layout.addLayout(unsaved_buttons)
        self.unsaved_box.setVisible(False)

        self.buttons: dict[str, QPushButton] = {}
        for name, title, handler in (
            ("move", "Move to group…", self._ask_move),
            ("new", "New group", self.new_group),
            ("merge", "Merge", self.merge_selected),
            ("score", "Edit score or label…", self._ask_pair),
            ("reviewed", "Mark reviewed", self.mark_selected_reviewed),
            ("note", "Note…", self._ask_note),
            ("undo", "Undo", self.undo),
            ("redo", "Redo", self.redo),
            ("recompute", "Recompute", self.recompute_requested.emit),
            ("agreement", "Agreement…", self.agreement_requested.emit),
            ("resolve", "Resolve conflicts…", self.conflicts_requested.emit),
            ("batches", "Split into batches…", self.batches_requested.emit),
            ("bring back", "Bring back…", self.bring_back_requested.emit),
        ):
            button = QPushButton(title)
            button.clicked.connect(lambda _=False, h=handler: h())
            self.buttons[name] = button

        # The list's title on a row of its own: beside Hide reviewed it was cut to
        # "Costra orderings every encoder rejects (8".
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.author)
        top.addWidget(self.hide_reviewed)
        # Three buttons a row, so the panel fits a side dock.
        edits = QGridLayout()
        for position, name in enumerate(("move", "new", "merge", "score", "reviewed", "note")):
            edits.addWidget(self.buttons[name], position // 3, position % 3)
        # The team's row: conflicts to resolve, batches out to reviewers and back.
        for column, name in enumerate(("resolve", "batches", "bring back")):
            edits.addWidget(self.buttons[name], 2, column)
        self.buttons["batches"].setToolTip(
            "Split the lists among N people, stratified by "
            "list; each gets a workspace of their rows"
        )
        self.buttons["bring back"].setToolTip(
            "Merge reviewers' batches (their folder) into this corpus's journal"
        )
        self.conflicts.linkActivated.connect(lambda _: self.conflicts_requested.emit())
        history = QHBoxLayout()
        for name in ("undo", "redo", "recompute", "agreement"):
            history.addWidget(self.buttons[name])
        history.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.kind)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.search_note)
        layout.addWidget(self.conflicts)
        layout.addWidget(self.why)
        layout.addLayout(edits)
        layout.addLayout(history)
        layout.addWidget(self.status)
        layout.addWidget(self.unsaved_box)
        self._update_buttons()

    # --- inputs -------------------------------------------------------------------

    def follow(self, session) -> None:
        """Show the review lists and edits of the corpus shown (``session``: the
        window's :class:`sentspace.app.state.session.Session`)."""
        session.current_changed.connect(self._show_state)
        self.filter.textChanged.connect(
            lambda text: (
                session.current is not None
                and session.set_view(session.current.spec, "review filter", text)
            )
        )
        session.on_current(session.reviewed, lambda state: self.set_lists(state.review_lists))
        # An edit made elsewhere (another window, another annotator): marks, authors,
        # conflicts and what can be undone follow.
        session.on_current(
            session.edited,
            lambda _: (self._refresh_reviewed(), self._update_buttons(), self._show_unsaved()),
        )

    def _show_state(self, state) -> None:
        """The lists and edits of the corpus switched to, filtered as they were left;
        its session first, so the table is built once, with its own marks."""
        self.session = state.annotations if state is not None else None
        self.set_lists(state.review_lists if state is not None else {})
        self.filter.setText(state.view.get("review filter", "") if state else "")
        self._show_conflicts()
        self._show_unsaved()

    def set_session(self, session: AnnotationSession | None) -> None:
        """The session edits go to (None: read-only)."""
        self.session = session
        self._refresh_reviewed()
        self._update_buttons()
        self._show_unsaved()

    def set_lists(self, lists: dict[str, ReviewList]) -> None:
        """Show freshly computed tables, by kind (as :func:`find_suspicious` returns)."""
        self.lists = dict(lists)
        self.kind.blockSignals(True)
        self.kind.clear()
        for kind, items in self.lists.items():
            self.kind.addItem(f"{items.title} ({len(items):,})", kind)
        self.kind.blockSignals(False)
        self.status.setText("")
        self._show_kind()

    def show_kind(self, kind: str) -> None:
        self.kind.setCurrentIndex(self.kind.findData(kind))

    @property
    def current_list(self) -> ReviewList | None:
        return self.model.items if self.model is not None else None

    def _show_kind(self) -> None:
        items = self.lists.get(self.kind.currentData())
        reviewed = self.session.reviewed if self.session is not None else set()
        deciders = self.session.deciders if self.session is not None else {}
        self.model = ReviewTableModel(items, reviewed, deciders) if items is not None else None
        self._offer_authors(deciders)
        # A list comes in rank order: sorting its thousands of rows again by rank (Python
        # calls) took a third of switching to its corpus.
        self.proxy.sort(-1)
        self.proxy.setSourceModel(self.model)
        if self.model is not None:
            header = self.table.horizontalHeader()
            header.blockSignals(True)
            header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
            header.blockSignals(False)
            self._fit_number_columns()
            if "id" in self.model.headers:  # after the columns that explain the row
                header = self.table.horizontalHeader()
                header.moveSection(
                    header.visualIndex(self.model.headers.index("id")), header.count() - 1
                )
            self._show_deciders()
        self.why.setText(CHOOSE_HINT if self.model is not None else COMPUTE_HINT)
        self._show_search(items)
        self._update_buttons()

    def _show_search(self, items: ReviewList | None) -> None:
        approximate = (
            [
                f"{name}: {search.describe()}"
                for name, search in zip(items.encoder_names, items.searches)
                if search.approximate
            ]
            if items is not None
            else []
        )
        self.search_note.setText(
            "Neighbours found approximately, so a few rows may be "
            "missing: " + "; ".join(approximate)
            if approximate
            else ""
        )
        self.search_note.setVisible(bool(approximate))

    # --- selection ------------------------------------------------------------------

    def selected_row(self) -> int | None:
        """The selected row of the current list (its row in the list, not the view)."""
        rows = self.table.selectionModel().selectedRows()
        if not rows or self.model is None:
            return None
        return self.proxy.mapToSource(rows[0]).row()

    def select_row(self, view_row: int) -> None:
        """Select the row shown at ``view_row`` (as a click does)."""
        self.table.selectRow(view_row)

    def _selection_changed(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        row = self.selected_row()
        self._update_buttons()
        if row is None:
            return
        items = self.model.items
        sentences = items.sentences_of(row)
        notes = self.session.notes.get(items.key(row), []) if self.session else []
        self.why.setText(items.why(row) + "".join(f"\nNote: {note}" for note in notes))
        self.sentences_selected.emit(sentences)
        self.sentence_selected.emit(sentences[0])

    def _update_buttons(self) -> None:
        row = self.selected_row()
        items = self.current_list
        editing = self.session is not None and row is not None
        regroup = isinstance(items, MisgroupedSentences)
        self.buttons["move"].setEnabled(editing and regroup)
        self.buttons["new"].setEnabled(editing and (regroup or isinstance(items, SpreadGroups)))
        self.buttons["merge"].setEnabled(editing and isinstance(items, CloseGroups))
        self.buttons["score"].setEnabled(editing and isinstance(items, GoldDisagreements))
        self.buttons["reviewed"].setEnabled(editing)
        self.buttons["note"].setEnabled(editing)
        self.buttons["undo"].setEnabled(self.session is not None and self.session.can_undo)
        self.buttons["redo"].setEnabled(self.session is not None and self.session.can_redo)
        self.buttons["recompute"].setEnabled(self.session is not None)
        self.buttons["agreement"].setEnabled(self.session is not None)
        self.buttons["resolve"].setEnabled(
            self.session is not None and bool(self.session.conflicts)
        )
        self.buttons["batches"].setEnabled(self.session is not None and bool(self.lists))
        self.buttons["bring back"].setEnabled(self.session is not None)

    def _context_menu(self, position) -> None:
        menu = QMenu(self)
        for name in ("move", "new", "merge", "score", "reviewed", "note"):
            button = self.buttons[name]
            if button.isEnabled():
                menu.addAction(button.text(), button.click)
        if not menu.isEmpty():
            menu.popup(self.table.viewport().mapToGlobal(position))

    # --- edits --------------------------------------------------------------------

    def _edit(self, make_edit, done: str = "Done") -> bool:
        """Run one session call (it returns the edit it made, undid or redid); report a
        rejected edit, or one the journal could not take (kept, shown unsaved), instead
        of raising."""
        had = len(self.session.pending)
        try:
            edit = make_edit()
        except JournalUnavailable as error:
            kept = len(self.session.pending) > had
            what = (
                f"{self.session.pending[-1].edit.describe()} is kept, not applied, "
                "until it can be written"
                if kept
                else "nothing changed"
            )
            self._say_error(f"Not saved: {error.reason} ({what}).")
            self._after_saving(had)
            return False
        except EditError as error:
            self._say_error(f"Not applied: {error.problem}")
            self._after_saving(had)
            return False
        if edit is None:
            return False
        self.status.setStyleSheet("color: #666")
        self.status.setText(
            f"{done}: {edit.describe()}"
            + (
                f" (after the {had} edits not saved before)"
                if had > 1
                else " (after the edit not saved before)"
                if had
                else ""
            )
            + (
                ". The lists show the corpus as it was when computed; Recompute to refresh them."
                if edit.changes_corpus
                else "."
            )
        )
        self._after_saving(had, changed=True)
        return True

    def _say_error(self, text: str) -> None:
        self.status.setStyleSheet("color: #b00000")
        self.status.setText(text)

    def _after_saving(self, had: int, changed: bool = False) -> None:
        """Show what the journal now holds and what is still unsaved; the kept edits
        written on the way change the corpus too."""
        if changed or len(self.session.pending) < had:
            self._refresh_reviewed()
            self._update_buttons()
            self.corpus_changed.emit()
        self._show_unsaved()

    def _show_unsaved(self) -> None:
        """The red box: each edit not saved and why, or nothing; kept edits dropped
        when saved (they no longer fitted) are said once."""
        pending = self.session.pending if self.session is not None else []
        dropped = self.session.dropped if self.session is not None else []
        self.unsaved_box.setVisible(bool(pending or dropped))
        lines = []
        if pending:
            count = f"{len(pending)} edits are" if len(pending) > 1 else "1 edit is"
            lines.append(
                f"<b>{count} not saved</b>: {html.escape(pending[-1].reason)} "
                f"(journal {html.escape(str(self.session.journal.path))}). "
                "Not applied; kept here until written:"
            )
            lines += [
                html.escape(f"{item.edit.author}'s {item.edit.describe()}")
                for item in pending[:UNSAVED_NAMED]
            ]
            if len(pending) > UNSAVED_NAMED:
                lines.append(f"and {len(pending) - UNSAVED_NAMED} more")
        if dropped:
            lines.append(
                "<b>Dropped when saved</b> (no longer fitted): "
                + "; ".join(html.escape(f"{edit.describe()}: {why}") for edit, why in dropped)
            )
            self.session.dropped.clear()
        self.unsaved.setText("<br>".join(lines))
        self.retry_button.setVisible(bool(pending))
        self.discard_button.setVisible(bool(pending))

    def retry(self) -> bool:
        """Write the edits not saved, in order; whether all were."""
        if self.session is None or not self.session.pending:
            return True
        had = len(self.session.pending)
        saved = self.session.save_pending()
        if saved.error is not None:
            self._say_error(f"Still not saved: {saved.error.reason}.")
        else:
            self.status.setStyleSheet("color: #666")
            self.status.setText(
                f"Saved {len(saved.saved)} edit"
                f"{'s' if len(saved.saved) != 1 else ''} to the journal."
            )
        self._after_saving(had)
        return saved.error is None

    def discard(self) -> list:
        """Forget the edits not saved; those forgotten."""
        if self.session is None:
            return []
        dropped = self.session.discard_pending()
        self.status.setStyleSheet("color: #666")
        self.status.setText(
            f"Discarded {len(dropped)} edit{'s' if len(dropped) != 1 else ''} not saved."
        )
        self._show_unsaved()
        return dropped

    def _refresh_reviewed(self) -> None:
        deciders = self.session.deciders if self.session else {}
        if self.model is not None:
            self.model.set_reviewed(self.session.reviewed if self.session else set(), deciders)
            self.proxy.refilter()
            self._show_deciders()
        self._offer_authors(deciders)
        self._show_conflicts()

    def _show_conflicts(self) -> None:
        conflicts = self.session.conflicts if self.session is not None else []
        self.conflicts.setVisible(bool(conflicts))
        self.conflicts.setText(
            f"<b>{len(conflicts)} conflicting edit{'s' if len(conflicts) > 1 else ''}</b> "
            "(two people on one item; the later one is in effect where it fits) "
            '<a href="resolve">Resolve…</a><br>'
            + "<br>".join(
                html.escape(conflict.describe(), quote=False) for conflict in conflicts[:5]
            )
            + (f"<br>and {len(conflicts) - 5} more" if len(conflicts) > 5 else "")
        )

    def _fit_number_columns(self) -> None:
        """Each column but the sentences as wide as its values (up to ``NUMBER_WIDTH``)
        and its heading whole (on two lines where long)."""
        if self.model is None:
            return
        header = self.table.horizontalHeader()
        metrics = header.fontMetrics()
        for col, title in enumerate(self.model.headers):
            if title in TEXT_COLUMNS:
                continue
            lines = str(self.proxy.headerData(col, Qt.Orientation.Horizontal)).split("\n")
            heading = HEADING_PADDING + max(metrics.horizontalAdvance(line) for line in lines)
            values = min(self.table.sizeHintForColumn(col), NUMBER_WIDTH)
            self.table.setColumnWidth(col, max(heading, values))

    def _fit_text_columns(self) -> None:
        """The columns of sentences share the width left by the columns before them, and
        a single one also by the two after it (that explain the row), so those are in
        view and the sentences wrap whole (at a third of the table they were cut to two
        lines of 120 px at 1280x800); the rest of the columns are scrolled to. A pair's
        two sentences are both in view, its numbers after them."""
        if self.model is None:
            return
        header = self.table.horizontalHeader()
        shown = [
            header.logicalIndex(v)
            for v in range(header.count())
            if not header.isSectionHidden(header.logicalIndex(v))
        ]
        texts = [col for col in shown if self.model.headers[col] in TEXT_COLUMNS]
        if not texts:
            return
        last = shown.index(texts[-1])
        beside = [col for col in shown[:last] if col not in texts]
        if len(texts) == 1:
            beside += shown[last + 1 : last + 3]
        free = self.table.viewport().width() - sum(header.sectionSize(col) for col in beside)
        width = max(TEXT_WIDTH // len(texts), free // len(texts))
        for col in texts:
            self.table.setColumnWidth(col, width)
        self._rows_due.start()

    def _size_rows_in_view(self) -> None:
        """The rows in view as tall as their wrapped text."""
        row, bottom = self.table.rowAt(0), self.table.viewport().height()
        if row < 0:
            return
        top = self.table.rowViewportPosition(row)
        while row < self.proxy.rowCount() and top < bottom:
            self.table.resizeRowToContents(row)
            top += self.table.rowHeight(row)
            row += 1

    def eventFilter(self, watched, event) -> bool:
        if watched is self.table.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_text_columns()
        return super().eventFilter(watched, event)

    def _show_deciders(self) -> None:
        """The "decided by" column only once someone decided an item of the list: empty,
        it took the room of the columns that explain the rows."""
        column = self.model.headers.index(DECIDED_BY)
        self.table.setColumnHidden(column, not any(self.model.values[column]))
        self._fit_text_columns()

    def _offer_authors(self, deciders: dict[str, tuple[str, ...]]) -> None:
        """Everyone, each author who decided an item, and nobody yet; the one chosen
        stays chosen."""
        chosen = self.author.currentText() or EVERYONE
        authors = sorted({author for names in deciders.values() for author in names})
        choices = [EVERYONE, *authors, UNDECIDED]
        self.author.blockSignals(True)
        self.author.clear()
        self.author.addItems(choices)
        self.author.setCurrentText(chosen if chosen in choices else EVERYONE)
        self.author.blockSignals(False)
        self.proxy.set_author(self.author.currentText())

    def move_selected(self, target: str | None, reason: str = "", seen: str | None = None) -> bool:
        """Move the selected row's sentence into group ``target`` (None: a new group)
        out of group ``seen``, the one the user saw it in (default: its group now); an
        edit from elsewhere that moved it meanwhile makes the move refused and said,
        not silently stacked on a group the user never saw."""
        row = self.selected_row()
        sentence = self.model.items.sentences_of(row)[0]
        now = self.session.group_names_of(sentence)
        if seen is not None and seen not in now:
            sentence_id = self.session.corpus.ids[sentence]
            by = ", ".join(self.session.deciders.get(f"sentence:{sentence_id}", ()))
            self.status.setStyleSheet("color: #b00000")
            self.status.setText(
                f"Not applied: {sentence_id} was moved from {seen} to "
                f"{', '.join(now) or 'no group'} meanwhile"
                f"{f' (by {by})' if by else ''}; look again, and move it if "
                "you still want to."
            )
            return False
        return self._edit(lambda: self.session.move(sentence, target, source=seen, reason=reason))

    def new_group(self, reason: str = "") -> bool:
        """A mis-grouped sentence into a new group, or a loose group's farthest member
        split off into one."""
        items, row = self.model.items, self.selected_row()
        if isinstance(items, SpreadGroups):
            group = items.corpus.groups.names[items.group[row]]
            return self._edit(
                lambda: self.session.split(group, [int(items.outlier[row])], reason=reason)
            )
        return self.move_selected(None, reason)

    def merge_selected(self, reason: str = "") -> bool:
        items, row = self.model.items, self.selected_row()
        names = items.corpus.groups.names
        groups = [names[items.first[row]], names[items.second[row]]]
        return self._edit(lambda: self.session.merge(groups, reason=reason))

    def edit_selected_pair(
        self, score: float | None = None, label: int | None = None, reason: str = ""
    ) -> bool:
        """Set the selected pair's gold score and/or label (None leaves it)."""
        pair = int(self.model.items.pair[self.selected_row()])
        return self._edit(
            lambda: self.session.edit_pair(pair, score=score, label=label, reason=reason)
        )

    def mark_selected_reviewed(self, reason: str = "") -> bool:
        key = self.model.items.key(self.selected_row())
        return self._edit(lambda: self.session.mark_reviewed(key, reason=reason))

    def note_selected(self, text: str) -> bool:
        key = self.model.items.key(self.selected_row())
        return self._edit(lambda: self.session.note(key, text))

    def undo(self) -> bool:
        return self._edit(self.session.undo, "Undone")

    def redo(self) -> bool:
        return self._edit(self.session.redo, "Redone")

    # --- dialogs --------------------------------------------------------------------

    def _ask_move(self) -> None:
        """Open :class:`MoveDialog` on the selected sentence (``move_dialog`` while open),
        the likeliest group offered; OK moves it there, with the reason."""
        items, row = self.model.items, self.selected_row()
        likely = items.likely_group[row]
        suggestion = items.corpus.groups.names[likely] if likely >= 0 else ""
        sentence = items.sentences_of(row)[0]
        seen = self.session.group_names_of(sentence)
        self.move_dialog = MoveDialog(self.session.corpus, sentence, suggestion, self)

        def apply() -> None:
            target, reason = self.move_dialog.choice()
            if target:
                self.move_selected(target, reason, seen[0] if seen else None)

        self.move_dialog.accepted.connect(apply)
        self.move_dialog.open()

    def _ask_pair(self) -> None:
        """Open :class:`PairEditDialog` on the selected pair as it is now (``pair_dialog``
        while open); OK applies what changed, with the reason."""
        pair = int(self.model.items.pair[self.selected_row()])
        self.pair_dialog = PairEditDialog(self.session.corpus, pair, self)

        def apply() -> None:
            score, label, reason = self.pair_dialog.changes()
            if score is not None or label is not None:
                self.edit_selected_pair(score, label, reason)

        self.pair_dialog.accepted.connect(apply)
        self.pair_dialog.open()

    def _ask_note(self) -> None:
        text, ok = QInputDialog.getMultiLineText(self, "Note", "Note on this item:")
        if ok and text.strip():
            self.note_selected(text.strip())
