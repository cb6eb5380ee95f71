"""Comparing bag of words with TF-IDF on grouped MSRP, side by side."""

import numpy as np
import pytest
from PySide6.QtCore import Qt

from sentspace.app.analysis.compare import compare_encoders
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.ui.views.compare_view import LISTED, CompareView
from sentspace.models import make_encoder
from tests.ui.conftest import show_widget


@pytest.fixture(scope="module")
def comparison():
    corpus = load_corpus("msrp-grouped")
    return run_job(compare_encoders(corpus, make_encoder("bow"), make_encoder("tfidf")))


@pytest.fixture
def view(qtbot, comparison):
    widget = show_widget(qtbot, CompareView(), (1200, 800))
    widget.show_comparison(comparison)
    qtbot.waitExposed(widget)
    qtbot.wait(50)  # let the plots' layout settle before mapping points to pixels
    return widget


def test_both_spaces_are_shown_with_b_aligned_to_a(view, comparison):
    n = len(comparison.corpus)
    assert view.view_a.point_count == view.view_b.point_count == n
    assert np.array_equal(view.view_a.coordinates, comparison.projection_a.coordinates)
    assert np.array_equal(view.view_b.coordinates, comparison.alignment.coordinates)
    assert "bow" in view.caption.text() and "tfidf" in view.caption.text()
    assert f"{comparison.change.mean:.2f}" in view.caption.text()
    assert view.titles[1].text() == "B: tfidf, aligned to A"


def test_the_list_ranks_sentences_by_neighbourhood_change(view, comparison):
    change = comparison.change
    assert view.changed.rowCount() == LISTED
    scores = [float(view.changed.item(r, 0).text()) for r in range(LISTED)]
    assert scores == sorted(scores, reverse=True)
    first = int(view.changed.item(0, 0).data(Qt.ItemDataRole.UserRole))
    assert first == int(change.most_changed(1)[0])
    assert view.changed.item(0, 2).text() == comparison.corpus.texts[first]
    shared = len(set(change.neighbours_a[first]) & set(change.neighbours_b[first]))
    assert view.changed.item(0, 1).text() == f"{shared} of {change.k}"


def test_clicking_a_row_selects_the_sentence_in_both_views(qtbot, view, comparison):
    change = comparison.change
    row = 3
    index = int(view.changed.item(row, 0).data(Qt.ItemDataRole.UserRole))
    with qtbot.waitSignal(view.sentence_selected) as selected:
        view.changed.cellClicked.emit(row, 2)
    assert selected.args == [index]
    for pane, neighbours in zip(view.views, (change.neighbours_a, change.neighbours_b)):
        assert pane.highlighted.data["data"].tolist() == [index]
        assert sorted(pane.found.data["data"].tolist()) == sorted(neighbours[index].tolist())
    assert comparison.corpus.texts[index] in view.selection.text()
    assert view.changed.selectionModel().isRowSelected(row)


def test_hover_in_one_view_rings_the_sentence_in_the_other(qtbot, view, comparison):
    index = 42
    position = view.view_a.plot.mapFromScene(view.view_a.scene_position(index))
    with qtbot.waitSignal(view.view_a.hovered) as hovered:
        qtbot.mouseMove(view.view_a.plot.viewport(), position)
    hovered_index = hovered.args[0]
    assert hovered_index >= 0
    assert view.view_b.hover_ring.data["data"].tolist() == [hovered_index]
    assert np.allclose(
        view.view_b.hover_ring.data["x"], comparison.alignment.coordinates[hovered_index, 0]
    )

    # And a click in the right-hand view selects in both.
    index_b = 7
    position = view.view_b.plot.mapFromScene(view.view_b.scene_position(index_b))
    with qtbot.waitSignal(view.sentence_selected) as selected:
        qtbot.mouseClick(view.view_b.plot.viewport(), Qt.MouseButton.LeftButton, pos=position)
    chosen = selected.args[0]
    assert chosen >= 0
    assert view.view_a.highlighted.data["data"].tolist() == [chosen]


def test_colour_by_group_or_by_change(view, comparison):
    def distinct(pane):
        return {brush.color().name() for brush in pane.points.data["brush"]}

    by_change = distinct(view.view_a)
    assert len(by_change) > 3
    view.colour.setCurrentIndex(view.colour.findData("group"))
    assert distinct(view.view_a) == distinct(view.view_b) != by_change
    assert "paraphrase group" in view.view_b.legend.text()


def test_alignment_choice_and_caption(view, comparison):
    from dataclasses import replace

    from sentspace.app.analysis.compare import Alignment

    assert view.alignment.accessibleName() == "alignment"
    assert [view.alignment.itemData(i) for i in range(view.alignment.count())] == [
        "procrustes",
        "aligned-umap",
    ]
    assert view.selected_alignment() == "procrustes"
    assert "rotated and scaled" in view.caption.text()
    view.alignment.setCurrentIndex(1)
    assert view.selected_alignment() == "aligned-umap"

    fitted = Alignment(comparison.projection_b.coordinates, np.eye(2), 1.0, 0.42, "aligned-umap")
    view.show_comparison(replace(comparison, alignment=fitted))
    assert "fitted together (AlignedUMAP)" in view.caption.text()
    assert "disparity 0.42" in view.caption.text()


def test_the_window_asks_for_the_chosen_alignment_with_umap(window, monkeypatch):
    import sentspace.app.ui.window.analyses as analyses

    asked = {}

    # What compare_spaces asks the core for; no job is started.
    monkeypatch.setattr(
        analyses, "compare_with_spaces", lambda corpus, encoders, **options: asked.update(options)
    )
    monkeypatch.setattr(window.jobs, "start", lambda work, label, on_result: None)
    controls = window.corpus_panel.projection_controls
    controls.method.setCurrentIndex(controls.method.findData("umap"))
    controls.n_neighbors.setValue(7)
    window.views.compare_view.alignment.setCurrentIndex(1)
    window.analyses.compare_spaces()
    assert asked["alignment"] == "aligned-umap" and asked["method"] == "umap"
    assert asked["n_neighbors"] == 7

    asked.clear()
    controls.method.setCurrentIndex(controls.method.findData("pca"))
    window.analyses.compare_spaces()  # PCA's panel has no UMAP parameters to pass
    assert asked == {"alignment": "aligned-umap", "method": "umap", "seed": 0}
