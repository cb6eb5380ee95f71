"""*Split into batches…*: the review lists shown, split among N people
(:func:`sentspace.app.workspace.batches.split_batches`: stratified by list, in rank order), with
which lists to deal (the one shown in the Review tab by default; one alone, such as the
misgrouped sentences, for a double review whose every item agreement counts), how many
people see each item, how many rows of each list (by default ``ROWS_PER_PERSON`` a
person), the people's names and the folder to write; what each batch would hold is
shown as the numbers change."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.suspicious import ReviewList
from sentspace.app.base.errors import InputError
from sentspace.app.workspace.batches import Batch, split_batches

#: Rows each person gets by default: every row of all three lists was 1,170 a person on
#: MSRP, more than a sitting's review; the rows are the most suspicious of the list.
ROWS_PER_PERSON = 50


class BatchesDialog(QDialog):
    """Split ``lists`` (kind -> table) among reviewers, the list ``shown`` (default: the
    first) chosen; ``choose_folder()`` asks for the folder (its path, or "" when
    cancelled). After ``accepted``, :attr:`batches` and :meth:`folder` say what to write
    where."""

    def __init__(
        self,
        lists: Mapping[str, ReviewList],
        choose_folder: Callable[[], str],
        parent: QWidget | None = None,
        shown: str | None = None,
    ):
        super().__init__(parent)
        self.setWindowTitle("Split the review into batches")
        self.lists, self.choose_folder = dict(lists), choose_folder
        self.batches: list[Batch] = []
        caption = QLabel(
            "Each person gets a folder with a workspace of their rows "
            "(dealt in rank order, list by list) and their own journal. By "
            f"default the list shown, its most suspicious {ROWS_PER_PERSON} "
            "rows a person."
        )
        caption.setWordWrap(True)
        #: One box per list (by kind), checked: the lists dealt.
        self.chosen: dict[str, QCheckBox] = {}
        chosen = QVBoxLayout()
        shown = shown if shown in self.lists else next(iter(self.lists), None)
        for kind, items in self.lists.items():
            box = QCheckBox(f"{items.title} ({len(items):,})")
            box.setAccessibleName(f"deal {items.title}")
            box.setChecked(kind == shown)
            box.toggled.connect(lambda _: self._update())
            self.chosen[kind] = box
            chosen.addWidget(box)
        self.people = QSpinBox()
        self.people.setAccessibleName("people")
        self.people.setRange(1, 100)
        self.people.setValue(2)
        self.copies = QSpinBox()
        self.copies.setAccessibleName("people per item")
        self.copies.setRange(1, 100)
        self.copies.setToolTip("2 or more: a double review, whose agreement can be measured")
        self.top = QSpinBox()
        self.top.setAccessibleName("rows of each list")
        self.top.setRange(0, 10_000_000)
        self.top.setSpecialValueText("all")
        self.top.setToolTip(
            "Only the most suspicious rows of each list (0: all); "
            f"{ROWS_PER_PERSON} a person until changed"
        )
        #: Whether the rows follow the people (ROWS_PER_PERSON each) until set by hand.
        self._rows_follow = True
        self.top.valueChanged.connect(lambda _: setattr(self, "_rows_follow", False))
        self.names = QLineEdit()
        self.names.setAccessibleName("names")
        self.names.setPlaceholderText("optional: ann, ben, … (one per person)")
        self.target = QLineEdit()
        self.target.setAccessibleName("folder")
        self.target.setPlaceholderText("a new or empty folder")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._browse)
        where = QHBoxLayout()
        where.addWidget(self.target, 1)
        where.addWidget(browse)
        form = QFormLayout()
        form.addRow("Lists:", chosen)
        form.addRow("People:", self.people)
        form.addRow("People per item:", self.copies)
        form.addRow("Rows of each list:", self.top)
        form.addRow("Names:", self.names)
        form.addRow("Folder:", where)
        self.preview = QLabel()
        self.preview.setAccessibleName("batches")
        self.preview.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Write batches")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(caption)
        layout.addLayout(form)
        layout.addWidget(self.preview)
        layout.addWidget(self.buttons)
        for spin in (self.people, self.copies, self.top):
            spin.valueChanged.connect(lambda _: self._update())
        for line in (self.names, self.target):
            line.textChanged.connect(lambda _: self._update())
        self.setMinimumWidth(520)
        self._update()

    def name_list(self) -> list[str]:
        return [name.strip() for name in self.names.text().split(",") if name.strip()]

    def chosen_lists(self) -> dict[str, ReviewList]:
        """The lists checked, to deal (kind -> table)."""
        return {kind: items for kind, items in self.lists.items() if self.chosen[kind].isChecked()}

    def folder(self) -> str:
        return self.target.text().strip()

    def _browse(self) -> None:
        path = self.choose_folder()
        if path:
            self.target.setText(path)

    def _rows_per_person(self) -> None:
        """Rows of each list for ``ROWS_PER_PERSON`` a person (each row seen by
        "people per item" of them), until the rows are set by hand."""
        if self._rows_follow:
            self.top.blockSignals(True)
            self.top.setValue(ROWS_PER_PERSON * self.people.value() // self.copies.value())
            self.top.blockSignals(False)

    def _update(self) -> None:
        self.copies.setMaximum(self.people.value())
        self._rows_per_person()
        problem = ""
        chosen = self.chosen_lists()
        try:
            if not chosen:
                raise InputError("choose one list or more to deal")
            self.batches = split_batches(
                chosen,
                self.people.value(),
                copies=self.copies.value(),
                top=self.top.value() or None,
                names=self.name_list(),
            )
        except InputError as error:
            self.batches, problem = [], error.problem
        if not problem and not self.folder():
            problem = "choose the folder to write"
        lines = [batch.describe() for batch in self.batches]
        self.preview.setText("\n".join(lines + ([f"To do: {problem}"] if problem else [])))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(not problem)
        ok.setToolTip(problem)
