"""What the window says about work done at scale: a layout fitted on a sample,
faithfulness measured on a sample with approximate neighbours, points left unmeasured.
Low limits keep the real bundled corpus "large"."""

import dataclasses

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.projection import faithfulness
from sentspace.app.base.jobs import run_job
from sentspace.app.base.palette import UNGROUPED
from tests.ui.conftest import (
    JOB_TIMEOUT_MS,
    drawn_colours,
    run_and_wait,
    save_and_wait,
    wait_for_job,
)


def show(window, exploration):
    """Show ``exploration`` as the current run's result, as a finished run is shown."""
    window.session.add_run(window.current.spec, window.current.shown, exploration)


def sampled(window):
    """The window's run as if its corpus were above the limits: faithfulness on 300 of
    859 points with indexed neighbours, the layout fitted on the first 400."""
    exploration = window.exploration
    dense = exploration.embeddings
    dense = dense.toarray() if sp.issparse(dense) else dense
    coordinates = exploration.projection.coordinates
    faithful = faithfulness(dense, coordinates, limit=200, sample=300)
    projection = dataclasses.replace(exploration.projection, fitted_on=np.arange(400))
    return dataclasses.replace(exploration, projection=projection, faithfulness=faithful)


def test_sampled_faithfulness_and_layout_are_said_and_unmeasured_points_grey(qtbot, window):
    run_and_wait(qtbot, window)
    exploration = sampled(window)
    faithful = exploration.faithfulness
    assert faithful.search.approximate
    show(window, exploration)
    legend = window.projection.legend.text()
    assert "fitted on 400 of 859 points" in legend
    assert faithful.describe() in legend and "approximate (IVF-SQ8, recall@10" in legend
    controls = window.corpus_panel.projection_controls
    controls.colour.setCurrentIndex(controls.colour.findData("faithfulness"))
    brushes = drawn_colours(window.projection)
    unmeasured = np.isnan(faithful.overlap)
    assert unmeasured.sum() == 859 - 300
    assert set(brushes[unmeasured]) == {UNGROUPED}
    assert UNGROUPED not in set(brushes[~unmeasured])
    assert f"no value ({859 - 300})" in window.projection.legend.text()
    outside, inside = int(np.flatnonzero(unmeasured)[0]), int(faithful.measured[0])
    assert "faithfulness not measured" in window.selecting.describe_sentence(outside)
    described = window.selecting.describe_sentence(inside)
    assert f"faithfulness {faithful.overlap[inside]:.1f}" in described


def test_a_layout_and_faithfulness_on_samples_are_said_after_reopening(qtbot, window, tmp_path):
    from sentspace.app.ui.window.main_window import MainWindow

    run_and_wait(qtbot, window)
    exploration = sampled(window)
    show(window, exploration)
    path = save_and_wait(qtbot, window, tmp_path / "large.sentspace")
    reopened = MainWindow()
    qtbot.addWidget(reopened)
    reopened.files.open_workspace(path)
    wait_for_job(qtbot, reopened)
    restored = reopened.exploration
    assert np.array_equal(restored.projection.fitted_on, np.arange(400))
    assert np.array_equal(restored.faithfulness.measured, exploration.faithfulness.measured)
    assert restored.faithfulness.search == exploration.faithfulness.search
    legend = reopened.projection.legend.text()
    assert "fitted on 400 of 859 points" in legend
    assert exploration.faithfulness.describe() in legend
    reopened.close()


def test_inspector_neighbours_exact_below_the_limit_and_indexed_above(qtbot, window, monkeypatch):
    import sentspace.app.analysis.ann
    from sentspace.app.analysis.neighbours import top_k
    from sentspace.app.ui.views.inspector import NEIGHBOURS, Inspector

    run_and_wait(qtbot, window)
    corpus = window.corpus
    dense = window.exploration.embeddings.toarray()
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.show_sentence(corpus, 0, dense)
    exact, _ = top_k(dense[[0]], dense, NEIGHBOURS, exclude=np.array([0]))
    assert np.array_equal(inspector.neighbour_indices, exact[0])
    assert not inspector.note.text()
    pool = inspector._pool[1]
    inspector.show_sentence(corpus, 5, dense)
    assert inspector._pool[1] is pool  # normalised once, not on every click
    monkeypatch.setattr(sentspace.app.analysis.ann, "EXACT_LIMIT", 200)
    # Above the limit a click does not build the index: a job does, once.
    inspector.show_sentence(corpus, 0, dense)
    assert "Building the neighbour index of 859 points" in inspector.note.text()
    assert inspector.neighbours.rowCount() == 0
    inspector.mark_indexed(run_job(inspector.index_job(corpus, dense)))
    inspector.show_sentence(corpus, 0, dense)
    assert "approximate (IVF-SQ8, recall@10" in inspector.note.text()
    assert len(set(inspector.neighbour_indices) & set(exact[0])) >= 8


def test_window_builds_the_inspector_index_in_a_job_above_the_limit(qtbot, window, monkeypatch):
    import sentspace.app.analysis.ann

    run_and_wait(qtbot, window)
    exploration = window.exploration
    show(window, dataclasses.replace(exploration, embeddings=exploration.embeddings.toarray()))
    monkeypatch.setattr(sentspace.app.analysis.ann, "EXACT_LIMIT", 200)
    window.select_sentence(3)
    inspector = window.inspecting.inspector
    qtbot.waitUntil(lambda: inspector.neighbours.rowCount() == 10, timeout=JOB_TIMEOUT_MS)
    assert "approximate (IVF-SQ8" in inspector.note.text()
    jobs = [
        window.jobs.panel.tree.topLevelItem(i).text(0)
        for i in range(window.jobs.panel.tree.topLevelItemCount())
    ]
    assert jobs.count("building the neighbour index for the Inspector") == 1
    window.select_sentence(4)  # the index is kept: found at once, no second job
    assert inspector.neighbours.rowCount() == 10
    assert window.jobs.panel.tree.topLevelItemCount() == len(jobs)


def test_open_corpus_dialog_offers_parquet_and_opens_one(qtbot, window, monkeypatch, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from PySide6.QtWidgets import QFileDialog

    corpus = window.corpus
    path = tmp_path / "msrp.parquet"
    pq.write_table(pa.table({"id": list(corpus.ids), "text": list(corpus.texts)}), path)
    offered = []

    def choose(parent, caption, folder, filters):
        offered.append(filters)
        return str(path), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", choose)
    window.files.choose_corpus_file()
    wait_for_job(qtbot, window)
    assert "*.parquet" in offered[0]
    assert window.corpus.name == "msrp" and len(window.corpus) == len(corpus)
