"""Costra orderings drawn for a seed group, with bag-of-words comparisons."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocumentFragment

from sentspace.app.analysis.evaluations.costra import evaluate_costra
from sentspace.app.analysis.projection import project
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora.costra import load_costra
from sentspace.app.ui.views.costra_view import CostraView
from sentspace.models.bow import BagOfWords
from tests.ui.conftest import show_widget


@pytest.fixture(scope="module")
def costra(shared_data):
    corpus = load_costra(shared_data / "costra" / "data.tsv")
    embeddings = BagOfWords().fit(corpus.texts).encode(corpus.texts)
    projection = run_job(project(embeddings, "pca"))
    return corpus, projection, evaluate_costra(corpus, embeddings)


@pytest.fixture
def view(qtbot, costra):
    widget = show_widget(qtbot, CostraView(), (1100, 900))
    corpus, projection, result = costra
    widget.set_data(corpus, projection.coordinates, result, projection.axis_labels)
    qtbot.waitExposed(widget)
    qtbot.wait(50)
    return widget


def rows_of(corpus, *ids):
    return [corpus.ids.index(str(i)) for i in ids]


def test_choosing_a_seed_group_draws_it_and_lists_its_comparisons(qtbot, view, costra):
    corpus, _, result = costra
    assert view.group_choice.count() == corpus.groups.n_groups == 126
    group = corpus.groups.names.index("1")
    view.group_choice.setCurrentIndex(view.group_choice.findData(group))
    assert view.group == group
    members = corpus.groups.members(group)
    assert sorted(view.group_points.data["data"].tolist()) == sorted(members.tolist())
    in_group = np.flatnonzero(result.comparisons.group == group)
    assert view.model.rowCount() == len(in_group)
    failing = int((~result.passed[in_group]).sum())
    assert failing > 0 and f"{failing} fail" in view.summary.text()
    marks = [view.model.index(r, 0).data() for r in range(view.model.rowCount())]
    assert marks.count("✗") == failing
    # One red dashed segment per distinct pair that a failing comparison found too close.
    less = result.comparisons.less_pair[in_group[~result.passed[in_group]]]
    assert len(view.failing_lines.xData) == 2 * len(np.unique(less))
    # The view zooms onto the group.
    (x0, x1), (y0, y1) = view.projection.view_box.viewRange()
    xy = view.projection.coordinates[members]
    assert x0 <= xy[:, 0].min() and xy[:, 0].max() <= x1
    assert legend_labels(view) >= {"formal sentence", "future", "paraphrase (unordered)"}


def legend_labels(view):
    return set(view.key.names)


def test_type_filter_and_choosing_a_failing_comparison(qtbot, view, costra):
    corpus, _, result = costra
    group = corpus.groups.names.index("1")
    view.show_group(group)
    view.type_choice.setCurrentIndex(view.type_choice.findData("future"))
    assert legend_labels(view) == {"future"}
    comparisons = result.comparisons
    names = comparisons.transformation_names
    shown = [
        int(view.model.index(r, 0).data(Qt.ItemDataRole.UserRole))
        for r in range(view.model.rowCount())
    ]
    assert shown and all(names[comparisons.transformation[k]] == "future" for k in shown)
    row = next(r for r in range(view.model.rowCount()) if view.model.index(r, 0).data() == "✗")
    k = int(view.model.index(row, 0).data(Qt.ItemDataRole.UserRole))
    with qtbot.waitSignal(view.sentences_selected) as selected:
        view.table.selectRow(row)
    expected = np.unique(np.concatenate([comparisons.more_similar[k], comparisons.less_similar[k]]))
    assert selected.args[0].tolist() == expected.tolist()
    assert result.more_similar_cosine[k] <= result.less_similar_cosine[k]
    xy = view.projection.coordinates
    assert np.allclose(view.chosen_less.xData, xy[comparisons.less_similar[k], 0])
    assert sorted(view.projection.highlighted.data["data"].tolist()) == expected.tolist()
    view.show_failing.setChecked(False)
    assert view.failing_lines.xData is None or len(view.failing_lines.xData) == 0


def test_hover_shows_czech_sentence_id_and_type(qtbot, view, costra):
    corpus, _, _ = costra
    view.show_group(corpus.groups.names.index("1"))
    qtbot.wait(50)
    seed = rows_of(corpus, 68)[0]
    projection = view.projection
    position = projection.plot.mapFromScene(projection.scene_position(seed))
    with qtbot.waitSignal(projection.hovered) as hovered:
        qtbot.mouseMove(projection.plot.viewport(), position)
    index = hovered.args[0]
    assert index >= 0
    text = view.describe(index)
    assert corpus.texts[index] in text and f"id {corpus.ids[index]}" in text
    assert corpus.metadata["type"][index] in text
    assert "V bulváru píšou dobrý příběhy a dost podrobně." in view.describe(seed)
    with qtbot.waitSignal(view.sentence_selected) as clicked:
        qtbot.mouseClick(projection.plot.viewport(), Qt.MouseButton.LeftButton, pos=position)
    assert clicked.args[0] == index


def test_the_key_is_under_the_plot_whole(qtbot, view, costra):
    """At the views' size at 1280x800 the key of the paths is a line under the plot,
    whole, covering none of it (inside, it covered half the group)."""
    view.resize(620, 690)
    view.show_group(costra[0].groups.names.index("1"))
    qtbot.wait(100)
    key, plot = view.key.label, view.projection.plot
    shown = QTextDocumentFragment.fromHtml(key.text()).toPlainText().replace("\xa0", " ")
    assert len(view.key.names) >= 3 and all(name in shown for name in view.key.names)
    assert key.isVisible() and key.height() >= key.heightForWidth(key.width())
    assert key.geometry().top() >= plot.geometry().bottom()
    assert key.height() <= plot.height() / 3


def test_at_1280x800_the_choices_and_every_column_are_whole(qtbot, view, costra):
    """At the views' width at 1280x800 the type choice reads "All transformation types"
    (it read "All transforr") and every column's heading is in view, with no scrolling
    ("more similar" was cut at the right); the rule is elided, whole in its tooltip."""
    view.resize(580, 720)
    view.show_group(costra[0].groups.names.index("1"))
    qtbot.wait(100)
    choice = view.type_choice
    assert choice.currentText() == "All transformation types"
    assert choice.width() >= choice.sizeHint().width()
    assert view.minimumSizeHint().width() <= 580
    table, header = view.table, view.table.horizontalHeader()
    assert not table.horizontalScrollBar().isVisible()
    for column in range(view.model.columnCount()):
        assert (
            header.sectionViewportPosition(column) + header.sectionSize(column)
            <= table.viewport().width()
        )
        assert (
            header.sectionSize(column) >= header.sectionSizeHint(column)
            or column == view.model.columnCount() - 1
        )
    rule = view.model.index(0, view.model.columnCount() - 1)
    assert rule.data(Qt.ItemDataRole.ToolTipRole) == rule.data()
    assert "of the class" in view.model.index(0, 1).data(Qt.ItemDataRole.ToolTipRole)


def test_the_inspector_names_a_costra_seed_group_once(qtbot, costra):
    """Costra's "seed group" is both its grouping and a column of its file: said once."""
    from sentspace.app.ui.views.inspector import Inspector

    corpus = costra[0]
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.show_sentence(corpus, 0, None)
    shown = QTextDocumentFragment.fromHtml(inspector.details.text()).toPlainText()
    assert shown.count("seed group") == 1
    assert f"seed group {corpus.metadata['seed group'][0]}" in shown
