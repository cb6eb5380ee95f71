import numpy as np
import pytest
from PySide6.QtCore import Qt

from sentspace.app.analysis.neighbour_search import CANNOT_ENCODE
from sentspace.app.analysis.neighbours import top_k
from sentspace.app.corpora import load_corpus
from sentspace.app.ui.views.neighbours_view import PARTNER, SAME_GROUP, NeighboursView
from sentspace.models import make_encoder
from sentspace.models.precomputed import Precomputed
from tests.ui.conftest import JOB_TIMEOUT_MS, show_widget


@pytest.fixture
def view(qtbot):
    return show_widget(qtbot, NeighboursView(), (1200, 600))


def ask(qtbot, view, query):
    with qtbot.waitSignal(view.neighbours_found, timeout=JOB_TIMEOUT_MS) as found:
        query()
    return found.args[0]


def test_a_sentence_finds_its_paraphrases_in_every_space(qtbot, view, grouped, spaces):
    view.set_spaces(grouped, spaces)
    assert [c.title.text().split("</b>")[0] for c in view.columns] == ["<b>bow", "<b>tfidf"]
    assert view.k.value() == 10
    assert list(grouped.groups.members(0)) == [0, 1, 2]
    shown = ask(qtbot, view, lambda: view.query_sentence(0))
    for column in view.columns:
        assert column.table.rowCount() == 10
        assert sorted(column.indices[:2]) == [1, 2]
        assert 0 not in column.indices  # the query itself is excluded
        for row in (0, 1):
            rank, cosine, marks, text = column.row(row)
            assert rank == str(row + 1) and SAME_GROUP in marks
            assert text == grouped.texts[column.indices[row]]
            assert 0 < float(cosine) <= 1
        cosines = [float(column.row(r)[1]) for r in range(10)]
        assert cosines == sorted(cosines, reverse=True)
        assert all(SAME_GROUP not in column.row(r)[2] for r in range(2, 10))
        # A grouped corpus has no pairs, so no partner marks.
        assert all(PARTNER not in column.row(r)[2] for r in range(10))
    assert shown == sorted(set(view.columns[0].indices) | set(view.columns[1].indices))
    assert "sentence <b>L1</b>" in view.caption.text()


def test_k_reruns_the_query(qtbot, view, grouped, spaces):
    view.set_spaces(grouped, spaces)
    ask(qtbot, view, lambda: view.query_sentence(0))
    shown = ask(qtbot, view, lambda: view.k.setValue(3))
    assert all(column.table.rowCount() == 3 for column in view.columns)
    assert len(shown) <= 6


def test_typed_query_is_encoded_on_the_fly(qtbot, view, grouped, spaces):
    view.set_spaces(grouped, spaces)
    query = "The Nasdaq composite index fell"
    ask(qtbot, view, lambda: view.query_text(query))
    bow, tfidf = view.columns
    # TF-IDF weighs the rare words: the three Nasdaq Composite sentences come first.
    assert "Nasdaq" in tfidf.row(0)[3]
    assert sorted(tfidf.indices[:3]) == [3, 4, 5]
    # Raw counts are dominated by "the": bow's first neighbour shares only function
    # words, which is what the side-by-side view is for. Its column is the exact top-k.
    expected, _ = top_k(spaces[0][1].encode([query]), spaces[0][2], 10)
    assert list(bow.indices) == list(expected[0])
    assert "Nasdaq" not in bow.row(0)[3]
    for column in view.columns:
        assert all(column.row(r)[2] == "" for r in range(column.table.rowCount()))
    assert "the typed text" in view.caption.text()
    # Enter in the box runs the typed text too.
    view.query_box.setText("The Nasdaq composite index fell")
    with qtbot.waitSignal(view.neighbours_found, timeout=JOB_TIMEOUT_MS):
        qtbot.keyClick(view.query_box, Qt.Key.Key_Return)
    assert view.query.index == -1


def test_clicking_a_neighbour_selects_it(qtbot, view, grouped, spaces):
    view.set_spaces(grouped, spaces)
    ask(qtbot, view, lambda: view.query_sentence(0))
    column = view.columns[1]
    with qtbot.waitSignal(view.sentence_selected) as selected:
        column.table.cellClicked.emit(1, 3)
    assert selected.args == [int(column.indices[1])]


def test_partner_marks_on_msrp_pairs(qtbot, view, shared_data):
    corpus = load_corpus(shared_data / "msrp")
    encoder = make_encoder("tfidf").fit(corpus.texts)
    view.set_spaces(corpus, [("tfidf", encoder, encoder.encode(corpus.texts))])
    pairs = corpus.pairs
    first, second = int(pairs.first[0]), int(pairs.second[0])
    assert pairs.label[0] == 1
    ask(qtbot, view, lambda: view.query_sentence(first))
    column = view.columns[0]
    row = list(column.indices).index(second)
    assert PARTNER in column.row(row)[2]


def test_precomputed_cannot_encode_new_text(qtbot, view, grouped, spaces, tmp_path):
    path = tmp_path / "bow.npy"
    np.save(path, spaces[0][2].toarray() if hasattr(spaces[0][2], "toarray") else spaces[0][2])
    precomputed = Precomputed(path, grouped)
    view.set_spaces(grouped, [spaces[1], ("precomputed bow", precomputed, precomputed.aligned())])
    ask(qtbot, view, lambda: view.query_text("The Nasdaq composite index fell"))
    tfidf, stored = view.columns
    assert tfidf.table.rowCount() == 10 and tfidf.note.isHidden()
    assert stored.table.rowCount() == 0
    assert not stored.note.isHidden() and stored.note.text() == CANNOT_ENCODE
    assert "cannot encode new text" in stored.note.text()
    # A corpus sentence is looked up, so the precomputed space answers it.
    ask(qtbot, view, lambda: view.query_sentence(0))
    assert stored.table.rowCount() == 10 and stored.note.isHidden()
    assert sorted(stored.indices[:2]) == [1, 2]


def test_unfitted_encoder_is_refused(view, grouped):
    encoder = make_encoder("tfidf")
    with pytest.raises(ValueError, match="must be fitted"):
        view.set_spaces(grouped, [("tfidf", encoder, np.zeros((len(grouped), 3)))])
