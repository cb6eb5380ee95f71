"""*Resolve conflicts…*: the conflicts of a corpus's edits (two people on one item: the
same sentence moved to two groups, one pair re-scored twice), one at a time, each with
its competing decisions (who, when, why), the sentences concerned (a click selects
them), a choice of which decision stands and a reason, which is required. Resolving
journals a :class:`~sentspace.app.annotations.edits.ResolveConflict`
(:meth:`AnnotationSession.resolve`); the conflict then leaves the list. It computes
nothing itself."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QDialog,
    QGroupBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.annotations.agreement import item_sentences
from sentspace.app.annotations.edits import Conflict, Edit, EditError
from sentspace.app.annotations.session import (
    AnnotationSession,
    conflict_items,
    decisions_of,
    same_conflict,
)
from sentspace.app.ui.kit.reason_form import ReasonForm
from sentspace.app.ui.kit.widgets import OneLineDelegate

#: The choice that overrules both decisions.
NEITHER = "Neither: take both back"


def when(edit: Edit) -> str:
    """An edit's time as people read it: "2026-05-02 14:03 UTC"."""
    return edit.time.replace("T", " ")[:16] + (" UTC" if edit.time.endswith("+00:00") else "")


def decision_text(edit: Edit) -> str:
    reason = f" — “{edit.reason}”" if edit.reason else ""
    return f"{edit.author}, {when(edit)}: {edit.describe()}{reason}"


class ConflictDialog(QDialog):
    """The conflicts of ``session`` (its state now; :meth:`refresh` after it changes).

    Signals
    -------
    sentences_selected(list) : the sentences of the conflict chosen, or the one clicked.
    resolved(object) : the resolution journaled.
    """

    sentences_selected = Signal(list)
    resolved = Signal(object)

    def __init__(self, session: AnnotationSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.shown: list[Conflict] = []
        #: The decisions offered for the conflict shown (None: neither), in order.
        self.options: list[Edit | None] = []
        self.setWindowTitle("Resolve conflicts")
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.list = QListWidget()
        self.list.setAccessibleName("conflicts")
        self.list.setItemDelegate(OneLineDelegate(self.list))
        self.list.currentRowChanged.connect(lambda _: self._show_conflict())

        self.problem = QLabel()
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b00000")
        self.choices = QButtonGroup(self)
        self.choices.buttonToggled.connect(lambda *_: self._update())
        self.choice_box = QGroupBox("Which decision stands?")
        self.choice_layout = QVBoxLayout(self.choice_box)
        self.sentences = QListWidget()
        self.sentences.setAccessibleName("sentences of the conflict")
        self.sentences.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.sentences.itemClicked.connect(
            lambda item: self.sentences_selected.emit([item.data(Qt.ItemDataRole.UserRole)])
        )
        self.sentences.setMaximumHeight(110)
        self.form = ReasonForm(
            self, required=True, ok="Resolve", cancel="Close", on_ok=self.resolve
        )
        self.reason = self.form.reason
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)

        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.problem)
        layout.addWidget(self.choice_box)
        layout.addWidget(QLabel("Sentences (click one to select it in the views):"))
        layout.addWidget(self.sentences)
        layout.addWidget(QLabel("Reason:"))
        layout.addWidget(self.reason)
        layout.addWidget(self.status)
        layout.addWidget(self.form.buttons)
        self.resize(720, 560)
        self.refresh()

    # --- what is shown ---------------------------------------------------------------

    @property
    def current(self) -> Conflict | None:
        row = self.list.currentRow()
        return self.shown[row] if 0 <= row < len(self.shown) else None

    def refresh(self) -> None:
        """List the session's conflicts as they are now; the one chosen stays chosen
        while it is listed."""
        chosen = self.current
        self.shown = list(self.session.conflicts)
        self.list.blockSignals(True)
        self.list.clear()
        for conflict in self.shown:
            sides = " vs ".join(
                f"{edit.author}'s {edit.describe()}" for edit in decisions_of(conflict)
            )
            item = QListWidgetItem(
                f"{', '.join(conflict_items(conflict)) or 'an item'}: "
                f"{sides or conflict.describe()}"
            )
            item.setToolTip(conflict.describe())
            self.list.addItem(item)
        row = next(
            (
                r
                for r, c in enumerate(self.shown)
                if chosen is not None and same_conflict(c, chosen)
            ),
            0,
        )
        self.list.setCurrentRow(row if self.shown else -1)
        self.list.blockSignals(False)
        count = len(self.shown)
        self.caption.setText(
            f"<b>{count} conflict{'s' if count != 1 else ''}</b>: two people decided one "
            "item differently without seeing each other's decision; the later one is in "
            "effect where it fits. Choose which stands, say why, and Resolve: the "
            "resolution is journaled with your name (Undo takes it back)."
            if count
            else "<b>No conflicts left.</b>"
        )
        self._show_conflict()

    def _show_conflict(self) -> None:
        conflict = self.current
        for button in self.choices.buttons():
            self.choices.removeButton(button)
            self.choice_layout.removeWidget(button)
            button.deleteLater()
        self.sentences.clear()
        self.choice_box.setEnabled(conflict is not None)
        self.reason.setEnabled(conflict is not None)
        if conflict is None:
            self.problem.setText("")
            self._update()
            return
        self.problem.setText(
            f"Found when {conflict.record.author}'s edit was replayed: "
            f"{conflict.problem or 'a conflict'}. "
            + (
                "It applied anyway: the later decision is in effect now."
                if conflict.applied
                else "It was skipped."
            )
        )
        decisions = decisions_of(conflict)
        options: list[tuple[str, Edit | None]] = [(decision_text(edit), edit) for edit in decisions]
        if isinstance(conflict.record, Edit):
            options.append((NEITHER, None))
        else:  # an undo/redo that found nothing to do: the edit stays as it is
            options = [(f"Acknowledge: {decision_text(edit)} stays", edit) for edit in decisions]
        for number, (text, _) in enumerate(options):
            button = QRadioButton(text)
            button.setToolTip(text)
            self.choices.addButton(button, number)
            self.choice_layout.addWidget(button)
        self.options = [edit for _, edit in options]
        corpus = self.session.corpus
        sentences = list(
            dict.fromkeys(
                s for key in conflict_items(conflict) for s in item_sentences(corpus, key)
            )
        )
        for sentence in sentences:
            groups = self.session.group_names_of(sentence)
            now = f" (now in {', '.join(groups)})" if corpus.groups is not None else ""
            item = QListWidgetItem(f"{corpus.ids[sentence]}: {corpus.texts[sentence]}{now}")
            item.setData(Qt.ItemDataRole.UserRole, sentence)
            self.sentences.addItem(item)
        if sentences:
            self.sentences_selected.emit(sentences)
        self._update()

    def _update(self) -> None:
        chosen = self.choices.checkedId()
        self.form.set_ready(
            self.current is not None and chosen >= 0,
            "Choose which decision stands"
            if self.current is not None
            else "No conflict to resolve",
        )

    # --- acting --------------------------------------------------------------------

    def choose(self, number: int) -> None:
        """Choose option ``number`` (the decisions in order, then "neither")."""
        self.choices.button(number).setChecked(True)

    def resolve(self) -> bool:
        """Resolve the conflict shown as chosen, with the reason typed; said and
        refused when someone resolved it meanwhile."""
        conflict, chosen = self.current, self.choices.checkedId()
        if conflict is None or chosen < 0 or not self.form.text():
            return False
        try:
            resolution = self.session.resolve(conflict, self.options[chosen], self.form.text())
        except EditError as error:
            self.status.setStyleSheet("color: #b00000")
            self.status.setText(f"Not resolved: {error.problem}")
            self.refresh()
            return False
        self.status.setStyleSheet("color: #666")
        self.status.setText(f"Resolved: {resolution.decision}.")
        self.reason.clear()
        self.resolved.emit(resolution)
        self.refresh()
        return True
