"""*Colour by* per corpus (issue 35, items 3 and 6): each corpus keeps its own choice
through a switch and a workspace saved and reopened; a new corpus starts at its own
default (its groups, else its pairs' label), never at the last corpus's."""

from tests.ui.conftest import open_sick, reopened_in_new_window, run_and_wait, save_and_wait


def choose(combo, key):
    combo.setCurrentIndex(combo.findData(key))
    assert combo.currentData() == key


def test_each_corpus_keeps_its_colouring_through_a_switch_and_a_workspace(
    qtbot, window, shared_data, tmp_path
):
    combo = window.corpus_panel.projection_controls.colour
    assert combo.currentData() == "paraphrase_group"  # its groups
    choose(combo, "words")
    sick = open_sick(qtbot, window, shared_data)
    assert combo.currentData() == "pair_label"  # not msrp's words
    choose(combo, "gold_score")
    window.showing.switch_corpus("msrp-grouped")
    assert combo.currentData() == "words"
    run_and_wait(qtbot, window)
    assert "Colour: Words, " in window.projection.legend.text()
    assert window.projection.colour_bar.isVisible()  # words are numbers
    choose(combo, "paraphrase_group")
    assert not window.projection.colour_bar.isVisible()
    assert "(other 264: " in window.projection.legend.text()

    path = save_and_wait(qtbot, window, tmp_path / "colours.sentspace")
    again = reopened_in_new_window(qtbot, path)
    combo = again.corpus_panel.projection_controls.colour
    assert again.session.current.spec == "msrp-grouped"
    assert combo.currentData() == "paraphrase_group"
    again.showing.switch_corpus(sick)
    assert combo.currentData() == "gold_score"
