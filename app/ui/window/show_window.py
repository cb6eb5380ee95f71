"""The window ``sentspace.show`` opens, in a process of its own:

    python -m sentspace.app.ui.window.show_window FOLDER [--check]

FOLDER is what :func:`sentspace.app.workspace.show_data.write_show_data` wrote. The corpus opens
as if loaded from a file, its embeddings (when given) become the chosen encoder as
*Add encoder…* makes them, and the map is drawn. The folder is deleted when the window
closes. ``--check`` (tests, headless with QT_QPA_PLATFORM=offscreen) prints what the
window holds once the map is drawn and exits, 1 if it failed.
"""

from __future__ import annotations

import argparse
import shutil
import sys

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QApplication

from sentspace.app.ui.window.main_window import MainWindow
from sentspace.app.workspace.show_data import read_show_data
from sentspace.models.precomputed import Precomputed

#: How long ``--check`` waits for the map before it reports a failure.
CHECK_SECONDS = 120


def open_data(window: MainWindow, folder: str) -> None:
    """Show the folder's corpus in ``window`` and start drawing its map."""
    corpus, embeddings, encoder = read_show_data(folder)
    spec = corpus.name
    window.showing.set_corpus(corpus, spec=spec)
    if embeddings is not None:
        precomputed = Precomputed(embeddings, corpus)
        key = f"precomputed:{embeddings}"
        window.session.add_precomputed(spec, key, precomputed)
        window.corpus_panel.choose(key)
    else:
        window.corpus_panel.choose(encoder)
    window.run()


def _report_when_drawn(app: QCoreApplication, window: MainWindow) -> None:
    def failed(error: Exception) -> None:
        print(f"failed: {error}", file=sys.stderr)
        app.exit(1)

    def poll() -> None:
        exploration = window.exploration
        if exploration is None:
            return
        corpus = window.corpus
        groups = corpus.groups.n_groups if corpus.groups is not None else 0
        print(
            f"sentences {len(corpus)}, groups {groups}, encoder "
            f"{exploration.encoder.name} ({exploration.embeddings.shape[1]}-d), map "
            f"{len(exploration.projection.coordinates)} points",
            flush=True,
        )
        app.exit(0)

    window.jobs.failed.connect(failed)
    timer = QTimer(window)
    timer.timeout.connect(poll)
    timer.start(100)
    QTimer.singleShot(CHECK_SECONDS * 1000, lambda: failed(TimeoutError("no map drawn")))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sentspace.app.ui.window.show_window")
    parser.add_argument("folder")
    parser.add_argument(
        "--check",
        action="store_true",
        help="print what the window holds once its map is drawn, and exit",
    )
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("sentspace")
    try:
        window = MainWindow()
        window.show()
        open_data(window, args.folder)
        if args.check:
            _report_when_drawn(app, window)
        return app.exec()
    finally:
        shutil.rmtree(args.folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
