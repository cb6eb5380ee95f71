"""Screenshots of the Costra, compare and million-point views with real data, on a real
(virtual) X display.

    .venv/bin/python scripts/screenshot_views.py [--out docs]

Without a DISPLAY it re-runs itself under ``xvfb-run`` (Debian: apt-get install xvfb
xauth imagemagick). Each view is built in its own window at 1280x800 and captured with
ImageMagick's ``import``: docs/costra.png (Costra seed group 1 with bag of words),
docs/compare.png (bag of words vs TF-IDF on grouped MSRP, one sentence selected and
another hovered), docs/scatter-1m.png (1,000,000 clustered points as a density image,
the pointer on one of them).
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
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args()

    rerun = rerun_on_x_display()
    if rerun is not None:
        return rerun

    import numpy as np
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QCursor
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from bench.bench_scatter import clusters
    from sentspace.app.analysis.compare import compare_encoders
    from sentspace.app.analysis.evaluations.costra import evaluate_costra
    from sentspace.app.analysis.projection import project
    from sentspace.app.analysis.results import Provenance
    from sentspace.app.base.jobs import run_job
    from sentspace.app.corpora import load_corpus
    from sentspace.app.corpora.costra import load_costra
    from sentspace.app.ui.views.compare_view import CompareView
    from sentspace.app.ui.views.costra_view import CostraView
    from sentspace.app.ui.views.projection_view import ProjectionView
    from sentspace.models import make_encoder
    from sentspace.models.bow import BagOfWords

    app = QApplication(sys.argv)
    args.out.mkdir(parents=True, exist_ok=True)

    def costra_view():
        corpus = load_costra(ROOT.parent / "shared" / "data" / "costra" / "data.tsv")
        encoder = BagOfWords().fit(corpus.texts)
        embeddings = encoder.encode(corpus.texts)
        projection = run_job(project(embeddings, "pca"))
        result = evaluate_costra(
            corpus, embeddings, provenance=Provenance.of(corpus, encoder, tokenized=False)
        )
        view = CostraView()
        view.setWindowTitle("sentspace: Costra orderings")
        view.set_data(corpus, projection.coordinates, result, projection.axis_labels)
        view.show_group(corpus.groups.names.index("1"))
        failing = next(
            r for r in range(view.table.rowCount()) if view.table.item(r, 0).text() == "✗"
        )
        view.table.selectRow(failing)
        seed = corpus.ids.index("68")
        return view, view.projection, seed

    def compare_view():
        corpus = load_corpus("msrp-grouped")
        comparison = run_job(
            compare_encoders(
                corpus,
                make_encoder("bow"),
                make_encoder("tfidf"),
                method="umap",
                alignment="aligned-umap",
            )
        )
        view = CompareView()
        view.setWindowTitle("sentspace: compare two encoders")
        view.alignment.setCurrentIndex(view.alignment.findData("aligned-umap"))
        view.show_comparison(comparison)
        view.changed.cellClicked.emit(0, 2)
        return view, view.view_a, int(comparison.change.most_changed(20)[-1])

    def scatter_view():
        points, labels = clusters(1_000_000)
        view = ProjectionView()
        view.setWindowTitle("sentspace: 1,000,000 points")
        view.set_points(
            points,
            labels,
            lambda i: f"point {i:,} of 1,000,000",
            ("x", "y"),
            "1,000,000 points in 300 clusters, drawn as a density image "
            "(colour: the most common cluster colour per bin; shade: how "
            "many points). Zoom in to see the points themselves.",
        )
        return view, view, int(np.argmax(points[:, 0] > np.median(points[:, 0])))

    shots = [
        ("costra.png", costra_view),
        ("compare.png", compare_view),
        ("scatter-1m.png", scatter_view),
    ]

    def take(k=0):
        if k == len(shots):
            app.quit()
            return
        name, build = shots[k]
        view, projection, hovered = build()
        view.setGeometry(0, 0, *SIZE)
        view.show()

        def point():
            position = projection.plot.mapFromScene(projection.scene_position(hovered))
            QTest.mouseMove(projection.plot.viewport(), position)
            QCursor.setPos(projection.plot.viewport().mapToGlobal(position))
            QTimer.singleShot(1500, capture)

        def capture():
            path = args.out / name
            subprocess.run(["import", "-window", "root", str(path)], check=True)
            print(f"saved {path}")
            view.close()
            take(k + 1)

        QTimer.singleShot(800, point)

    QTimer.singleShot(0, take)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
