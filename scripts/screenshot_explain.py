"""Pictures of the three "explain the space" widgets with real data.

    .venv/bin/python scripts/screenshot_explain.py [--out docs]

Widgets are rendered with ``QWidget.grab``, so no display is needed (Qt's offscreen
platform unless QT_QPA_PLATFORM says otherwise). Writes docs/explain.png (a SICK
pair explained by MiniLM: occlusion and token alignment), docs/regions.png (grouped
MSRP, TF-IDF, PCA layout coloured by region with its labels) and docs/costra-offsets.png
(bag of words on Costra 1.1), each grabbed from its own window.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SIZE = (1280, 800)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from sentspace.app.analysis.evaluations.costra_offsets import run_costra_offsets
    from sentspace.app.analysis.explain import explain_pair
    from sentspace.app.analysis.projection import project
    from sentspace.app.analysis.regions import find_regions
    from sentspace.app.base.jobs import run_job
    from sentspace.app.corpora import load_corpus
    from sentspace.app.corpora.costra import load_costra
    from sentspace.app.state.colouring import cluster_colours
    from sentspace.app.ui.charts.costra_offsets import CostraOffsetsChart
    from sentspace.app.ui.views.explain_view import ExplainView
    from sentspace.app.ui.views.projection_view import ProjectionView
    from sentspace.app.ui.views.region_labels import RegionLabels
    from sentspace.models import make_encoder

    app = QApplication(sys.argv)
    args.out.mkdir(parents=True, exist_ok=True)
    data = ROOT.parent / "shared" / "data"

    def explain_view():
        sick = load_corpus(data / "sick")
        a, b = sick.texts[sick.pairs.first[3]], sick.texts[sick.pairs.second[3]]
        view = ExplainView()
        view.set_explanation(run_job(explain_pair(a, b, make_encoder("minilm"))))
        return view, None

    def regions_view():
        corpus = load_corpus("msrp-grouped")
        encoder = make_encoder("tfidf").fit(corpus.texts)
        embeddings = encoder.encode(corpus.texts)
        projection = run_job(project(embeddings, "pca"))
        regions = run_job(find_regions(corpus, projection.coordinates, encoder=encoder))
        view = ProjectionView()
        view.set_points(
            projection.coordinates,
            cluster_colours(regions),
            lambda i: corpus.texts[i],
            projection.axis_labels,
            f"{regions.n_clusters} coarse regions (bisecting k-means on the "
            "layout), labelled by class-based TF-IDF. Zoom in for finer "
            "regions' labels.",
        )
        return view, RegionLabels(view.plot.getPlotItem(), regions)

    def offsets_chart():
        corpus = load_costra(data / "costra" / "data.tsv")
        return CostraOffsetsChart(run_job(run_costra_offsets(corpus, make_encoder("bow")))), None

    for name, build in (
        ("explain.png", explain_view),
        ("regions.png", regions_view),
        ("costra-offsets.png", offsets_chart),
    ):
        view, keep = build()
        view.resize(*SIZE)
        view.show()
        QTest.qWaitForWindowExposed(view)
        QTest.qWait(800)
        path = args.out / name
        view.grab().save(str(path))
        print(f"saved {path}")
        view.close()
        del keep
    app.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
