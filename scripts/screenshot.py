"""Screenshot of the real app on a real (virtual) X display, as a user would see it.

    .venv/bin/python scripts/screenshot.py [--scene explorer|evaluations|review|corpus|neighbours]

Without a DISPLAY it re-runs itself under ``xvfb-run`` (Debian: apt-get install xvfb
xauth imagemagick). It opens the main window on the bundled corpus, runs the evaluation,
clicks a misclassified sentence, moves the X pointer onto it so the tooltip shows, and
captures the whole screen with ImageMagick's ``import``. The window opens as the app
does (``sentspace.app.ui.window.startup``: the top-level window first, the main window built in it). The ``evaluations`` scene runs
relatedness on SICK's trial pairs and shows its chart; ``review`` ranks suspicious
annotations of the bundled corpus.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from scripts.xdisplay import SIZE, rerun_on_x_display  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--encoder", default="bow")
    parser.add_argument(
        "--scene",
        choices=("explorer", "evaluations", "review", "corpus", "neighbours"),
        default="explorer",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.out is None:
        name = "screenshot" if args.scene == "explorer" else args.scene
        args.out = ROOT / "docs" / f"{name}.png"

    rerun = rerun_on_x_display()
    if rerun is not None:
        return rerun

    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtGui import QCursor
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from sentspace.app.ui.window.startup import AppWindow

    app = QApplication(sys.argv)
    corpus = (
        ROOT.parent / "shared" / "data" / "sick" / "SICK_trial.txt"
        if args.scene == "evaluations"
        else "msrp-grouped"
    )
    frame = AppWindow(str(corpus), args.encoder, run=True)
    frame.setGeometry(0, 0, *SIZE)
    frame.show()
    frame.load()
    window = None  # the main window, once built inside the frame

    def when(condition, then, waited=0):
        if condition():
            then()
        elif waited > 60_000:
            sys.exit("the evaluation did not finish within 60 s")
        else:
            QTimer.singleShot(100, lambda: when(condition, then, waited + 100))

    def point_at_a_mistake():
        view = window.projection
        index = int(window.exploration.classification.misclassified[0])
        position = view.plot.mapFromScene(view.scene_position(index))
        QTest.mouseClick(view.plot.viewport(), Qt.MouseButton.LeftButton, pos=position)
        QCursor.setPos(view.plot.viewport().mapToGlobal(position))
        QTimer.singleShot(2000, capture)

    def capture():
        args.out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["import", "-window", "root", str(args.out)], check=True)
        print(f"saved {args.out}")
        # exit, not quit: Qt 6's quit() closes the window first, and its close asks to save the workspace
        app.exit(0)

    def idle():
        return window.exploration is not None and not window.is_running

    def evaluate():
        window.tasks.setCurrentWidget(window.evaluation_panel)
        window.evaluate("relatedness")
        when(
            lambda: not window.is_running and window.evaluation_panel.current is not None,
            lambda: QTimer.singleShot(1000, capture),
        )

    def review():
        window.analyses.find_suspicious()
        when(
            lambda: not window.is_running and window.review_panel.lists,
            lambda: (window.review_panel.table.selectRow(0), QTimer.singleShot(1000, capture)),
        )

    def corpus_tab():
        window.views.setCurrentWidget(window.views.corpus_page)
        window.views.corpus_browser.filter_box.setText("percent")
        QTimer.singleShot(3000, capture)

    def neighbours():
        window.corpus_panel.choose("tfidf")
        window.run()

        def query():
            window.views.setCurrentWidget(window.neighbours_view)
            window.neighbours_view.query_text("The Nasdaq composite index fell")
            QTimer.singleShot(3000, capture)

        when(idle, query)

    def built():
        nonlocal window
        window = frame.main
        when(
            idle,
            {
                "explorer": point_at_a_mistake,
                "evaluations": evaluate,
                "review": review,
                "corpus": corpus_tab,
                "neighbours": neighbours,
            }[args.scene],
        )

    when(lambda: frame.main is not None, built)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
