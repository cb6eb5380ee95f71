"""The dialog that moves one sentence into another group: like the pair dialog, it shows
what is edited (the sentence's id, text and groups now) and takes an optional reason,
which the change log keeps."""

from __future__ import annotations

import html

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QLabel,
    QWidget,
)

from sentspace.app.corpora.model import Corpus
from sentspace.app.ui.kit.reason_form import ReasonForm


class MoveDialog(QDialog):
    """Move sentence ``sentence`` of ``corpus`` (its state now, edits included) into a
    group, ``suggestion`` offered first. After ``accepted``, :meth:`choice` gives
    (group name, reason)."""

    def __init__(
        self, corpus: Corpus, sentence: int, suggestion: str = "", parent: QWidget | None = None
    ):
        super().__init__(parent)
        groups = corpus.checked_groups
        self.setWindowTitle(f"Move sentence {corpus.ids[sentence]}")
        now = [groups.names[g] for g in groups.group_index[groups.sentence_index == sentence]]
        self.shown = QLabel(
            f"<p><b>{html.escape(corpus.ids[sentence])}</b>: "
            f"{html.escape(corpus.texts[sentence])}</p>"
            f"<p>Now in {groups.kind} {html.escape(', '.join(now) or 'none')}"
            "</p>"
        )
        self.shown.setWordWrap(True)
        self.shown.setAccessibleName("the sentence being moved")

        # Editable: a name not in the list makes a new group.
        self.target = QComboBox()
        self.target.setEditable(True)
        self.target.setAccessibleName("target group")
        self.target.addItems(list(groups.names))
        self.target.setCurrentText(suggestion)
        self.reason_form = ReasonForm(self)
        self.reason = self.reason_form.reason
        form = QFormLayout()
        form.addRow(f"Move into {groups.kind}:", self.target)
        self.buttons = self.reason_form.buttons
        self.reason_form.lay_out(self, self.shown, form)

    def choice(self) -> tuple[str, str]:
        """(target group, reason), stripped; an empty target moves nowhere."""
        return self.target.currentText().strip(), self.reason.text().strip()
