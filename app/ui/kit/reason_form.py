"""The reason line and OK/Cancel buttons of every dialog that records an edit (move a
sentence, edit a pair, resolve a conflict): the reason goes into the journal beside the
edit. Where it is required, OK stays disabled until one is typed (and until the dialog
says it is ready: a choice made)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

OPTIONAL = "optional; kept in the change log"
REQUIRED = "required: say why; kept in the journal with the decision"


class ReasonForm:
    """``reason`` (a line edit) and ``buttons`` (OK and Cancel) for ``dialog``; OK calls
    ``on_ok`` (default: accept the dialog), Cancel ``on_cancel`` (default: reject it).
    ``ok`` / ``cancel`` rename the buttons."""

    def __init__(
        self,
        dialog: QDialog,
        *,
        required: bool = False,
        ok: str | None = None,
        cancel: str | None = None,
        on_ok: Callable[[], object] | None = None,
        on_cancel: Callable[[], object] | None = None,
    ):
        self.required = required
        self._ready, self._why_not = True, ""
        self.reason = QLineEdit()
        self.reason.setAccessibleName("reason")
        self.reason.setPlaceholderText(REQUIRED if required else OPTIONAL)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        if ok:
            self.ok_button.setText(ok)
        if cancel:
            self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText(cancel)
        self.buttons.accepted.connect(on_ok or dialog.accept)
        self.buttons.rejected.connect(on_cancel or dialog.reject)
        self.reason.textChanged.connect(lambda _: self.update())
        self.update()

    def lay_out(self, dialog: QDialog, shown: QWidget, form: QFormLayout) -> None:
        """``dialog`` as the dialogs of one edit read: what is edited (``shown``), then
        ``form`` with the reason last, then the buttons."""
        form.addRow("Reason:", self.reason)
        layout = QVBoxLayout(dialog)
        layout.addWidget(shown)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        dialog.setMinimumWidth(480)

    @property
    def ok_button(self) -> QPushButton:
        return self.buttons.button(QDialogButtonBox.StandardButton.Ok)

    def text(self) -> str:
        """The reason, stripped."""
        return self.reason.text().strip()

    def set_ready(self, ready: bool, why_not: str = "") -> None:
        """Whether the rest of the dialog is filled in; ``why_not`` says what is missing."""
        self._ready, self._why_not = ready, why_not
        self.update()

    def update(self) -> None:
        missing = (
            self._why_not
            if not self._ready
            else "Say why"
            if self.required and not self.text()
            else ""
        )
        self.ok_button.setEnabled(self._ready and not (self.required and not self.text()))
        self.ok_button.setToolTip(missing)
