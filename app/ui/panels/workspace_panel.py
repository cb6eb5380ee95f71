"""What this session holds: the corpora opened, the encoders run, the results made."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QMenu,
    QMessageBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.state.session import CorpusState, Session, describe_result, version_note

SECTIONS = ("Corpora", "Encoders", "Results")


class WorkspacePanel(QWidget):
    """A tree of the session's corpora, encoders (of the current corpus) and results.

    Signals
    -------
    corpus_chosen(str) : a corpus (its spec) was double-clicked, to switch to it.
    corpus_closed(str) : "Close" was chosen in a corpus's context menu (and confirmed,
        when the corpus has runs or results).
    result_chosen(int) : a result (its index in the session's runs) was clicked.
    """

    corpus_chosen = Signal(str)
    corpus_closed = Signal(str)
    result_chosen = Signal(int)

    def __init__(self, session: Session | None = None, parent: QWidget | None = None):
        """With ``session``, it lists what the session holds as it changes."""
        super().__init__(parent)
        self.session = session
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setAccessibleName("workspace")
        self.tree.setToolTip(
            "Double-click a corpus to switch to it (its projection and "
            "results are kept); right-click to close it. Click a result "
            "to show it in the Evaluations panel"
        )
        self.sections = {}
        for title in SECTIONS:
            section = QTreeWidgetItem([title])
            section.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.tree.addTopLevelItem(section)
            section.setExpanded(True)
            self.sections[title] = section
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.tree.itemDoubleClicked.connect(self._double_clicked)
        self.tree.itemClicked.connect(self._clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree)
        if session is not None:
            self._follow(session)

    def _follow(self, session: Session) -> None:
        session.corpus_opened.connect(
            lambda state: self.add_corpus(
                state.spec, f"{state.corpus.name} ({len(state.corpus):,} sentences)"
            )
        )
        session.corpus_closed.connect(self.remove_corpus)
        session.current_changed.connect(self._show_state)
        for event in (session.evaluated, session.edited):
            session.on_current(event, lambda state, *_: self._list_results(state))
        for event in (session.ran, session.spaces, session.compared):
            session.on_current(event, self._list_encoders)

    def _show_state(self, state: CorpusState | None) -> None:
        if state is not None:
            self.set_current_corpus(state.spec)
        self._list_results(state)
        self._list_encoders(state)

    def _list_results(self, state: CorpusState | None) -> None:
        runs = state.evaluations if state is not None else []
        self.set_results(
            [result_entry(run.label, run.result, state.corpus) for run in runs],
            [describe_result(run.result, run.label, state.corpus) for run in runs],
        )

    def _list_encoders(self, state: CorpusState | None) -> None:
        self.set_encoders(
            [name for name, _, _ in state.spaces.values()] if state is not None else []
        )

    def entries(self, section: str) -> list[str]:
        parent = self.sections[section]
        return [parent.child(i).text(0) for i in range(parent.childCount())]

    def _corpus_item(self, spec: str) -> QTreeWidgetItem | None:
        parent = self.sections["Corpora"]
        return next(
            (
                parent.child(i)
                for i in range(parent.childCount())
                if parent.child(i).data(0, Qt.ItemDataRole.UserRole) == spec
            ),
            None,
        )

    def add_corpus(self, spec: str, description: str) -> None:
        """Show an opened corpus (once per spec; the newest description wins) as the
        current one, in bold."""
        item = self._corpus_item(spec)
        if item is None:
            item = QTreeWidgetItem([description])
            item.setData(0, Qt.ItemDataRole.UserRole, spec)
            self.sections["Corpora"].addChild(item)
        item.setText(0, description)
        item.setToolTip(0, f"{description}\n{spec}")
        self.set_current_corpus(spec)

    def set_current_corpus(self, spec: str) -> None:
        """The corpus shown, in bold and highlighted (a row clicked before a switch made
        elsewhere stayed highlighted)."""
        parent = self.sections["Corpora"]
        for i in range(parent.childCount()):
            item = parent.child(i)
            font = item.font(0)
            font.setBold(item.data(0, Qt.ItemDataRole.UserRole) == spec)
            item.setFont(0, font)
        self.tree.setCurrentItem(self._corpus_item(spec))

    def current_corpus(self) -> str | None:
        parent = self.sections["Corpora"]
        return next(
            (
                parent.child(i).data(0, Qt.ItemDataRole.UserRole)
                for i in range(parent.childCount())
                if parent.child(i).font(0).bold()
            ),
            None,
        )

    def remove_corpus(self, spec: str) -> None:
        item = self._corpus_item(spec)
        if item is not None:
            self.sections["Corpora"].removeChild(item)

    def set_encoders(self, names: list[str]) -> None:
        """The encoders explored on the current corpus."""
        parent = self.sections["Encoders"]
        parent.takeChildren()
        for name in names:
            parent.addChild(QTreeWidgetItem([name]))

    def set_results(self, entries: list[str], descriptions: list[str]) -> None:
        """The results of the corpus shown, in order: each entry, its whole description
        in its tooltip."""
        self.sections["Results"].takeChildren()
        for index, (entry, description) in enumerate(zip(entries, descriptions)):
            item = QTreeWidgetItem([entry])
            item.setData(0, Qt.ItemDataRole.UserRole, index)
            item.setToolTip(0, description)
            self.sections["Results"].addChild(item)

    def _double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if item.parent() is self.sections["Corpora"]:
            self.corpus_chosen.emit(item.data(0, Qt.ItemDataRole.UserRole))

    def _context_menu(self, position) -> None:
        item = self.tree.itemAt(position)
        if item is None or item.parent() is not self.sections["Corpora"]:
            return
        spec = item.data(0, Qt.ItemDataRole.UserRole)
        menu = QMenu(self.tree)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        switch = menu.addAction("Switch to this corpus")
        switch.triggered.connect(lambda: self.corpus_chosen.emit(spec))
        close = menu.addAction("Close")
        close.setToolTip("Forget its projection and results (its edit journal stays)")
        close.triggered.connect(lambda: self.ask_close(spec))
        menu.popup(self.tree.viewport().mapToGlobal(position))

    def ask_close(self, spec: str) -> QMessageBox | None:
        """Close the corpus opened from ``spec``; one with runs or results is asked about
        first (the question, open), since they go with it."""
        state = self.session.states.get(spec) if self.session is not None else None
        held = _held(state) if state is not None else ""
        if not held:
            self.corpus_closed.emit(spec)
            return None
        buttons = QMessageBox.StandardButton
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Close the corpus?",
            f"{state.corpus.name} has {held}. Closing it forgets them "
            "(its edits stay in their journal).",
            buttons.Close | buttons.Cancel,
            self,
        )
        box.setObjectName("close-corpus-dialog")
        box.setDefaultButton(buttons.Cancel)

        def answered() -> None:
            if box.standardButton(box.clickedButton()) == buttons.Close:
                self.corpus_closed.emit(spec)

        box.finished.connect(lambda _: answered())
        box.open()
        return box

    def _clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if item.parent() is self.sections["Results"]:
            self.result_chosen.emit(item.data(0, Qt.ItemDataRole.UserRole))


def result_entry(evaluation: str, result, corpus) -> str:
    """A result's entry under Results: evaluation, encoder and, when behind, the
    version. Every result listed is of the corpus shown, so it is not named: at 1280x800
    the entries were cut to "costra-offsets · b…"."""
    note = version_note(result, corpus)
    return " · ".join([evaluation, result.provenance.encoder_name, *([note] if note else [])])


def _held(state: CorpusState) -> str:
    """What closing ``state`` loses, in words ("2 encoder runs and 1 result"); "" for
    nothing."""
    counts = [(len(state.runs), "encoder run"), (len(state.evaluations), "result")]
    return " and ".join(f"{n} {word}{'s' if n > 1 else ''}" for n, word in counts if n)
