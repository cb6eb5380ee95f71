"""The Qt binding must not corrupt reference counts (PySide6 6.12.0 released None once
per void call, which aborts Python 3.11 once None's count runs out)."""

import sys

from PySide6.QtWidgets import QLabel


def test_void_calls_do_not_release_none(qtbot):
    label = QLabel()
    qtbot.addWidget(label)
    label.setText("warm up")
    before = sys.getrefcount(None)
    for _ in range(1000):
        label.setText("x")
    assert sys.getrefcount(None) - before > -10
