"""*Colour by* any column (issue 35, item 3): numbers on viridis with NaN grey, category
legends naming each category where the palette has a colour for each, else the top ten
and "(other N)", and a default per corpus, on the real files."""

import numpy as np
import pytest

from sentspace.app.analysis.columns import TOP, Categories, Numbers, named_count, sentence_columns
from sentspace.app.base.palette import CATEGORICAL, OTHER, UNGROUPED, scale_palette
from sentspace.app.corpora import load_corpus
from sentspace.app.state.colouring import (
    colour_by,
    colourings,
    default_colouring,
    saved_key,
    top_categories,
)


@pytest.fixture(scope="module")
def offered(shared_data):
    """The colourings of full SICK, MSRP's training file, Costra and the bundled groups."""
    corpora = {
        "sick": load_corpus(shared_data / "sick"),
        "costra": load_corpus(shared_data / "costra"),
        "msrp": load_corpus(shared_data / "msrp" / "msr_paraphrase_train.txt"),
        "grouped": load_corpus("msrp-grouped"),
    }
    return {
        name: (corpus, colourings(sentence_columns(corpus))) for name, corpus in corpora.items()
    }


def test_numbers_follow_their_order_on_viridis_and_nan_is_grey(offered):
    _, sick = offered["sick"]
    score = sick["gold_score"]
    assert isinstance(score, Numbers)
    colouring = colour_by(score)
    codes, palette = colouring.colours.codes, colouring.colours.palette
    assert palette == (*scale_palette(), UNGROUPED)
    order = np.argsort(score.values, kind="stable")
    assert np.all(np.diff(codes[order]) >= 0)  # a higher score, never darker
    scale = colouring.scale
    assert (scale.low, scale.high, scale.missing, scale.extent) == (
        np.min(score.values),
        5.0,
        0,
        None,
    )  # no tail to leave out
    assert palette[codes[np.argmin(score.values)]] == "#440154"  # viridis's ends
    assert palette[codes[np.argmax(score.values)]] == "#fde725"

    corpus, msrp = offered["msrp"]
    size = msrp["group_size"]
    colouring = colour_by(size)
    grey = np.array(colouring.colours[:]) == UNGROUPED
    assert grey.sum() == 7370 == np.isnan(size.values).sum()  # in no group: grey
    assert "no value (7,370)" in colouring.legend and colouring.scale.missing == 7370


def test_a_legend_names_the_top_ten_and_the_other_groups_share_one_colour(offered):
    corpus, grouped = offered["grouped"]
    column = grouped["paraphrase_group"]
    assert isinstance(column, Categories) and len(column.names) == 274
    colouring = colour_by(column)
    colours = colouring.colours
    assert colours.palette == (*CATEGORICAL[:TOP], OTHER, UNGROUPED)  # 12 brushes, not 274
    top, counts = top_categories(column.names, column.codes)
    # Most frequent first; equal counts in natural order of the names ("2" before "10").
    expected = sorted(range(274), key=lambda k: (-counts[k], int(column.names[k])))[:TOP]
    assert top.tolist() == expected
    assert list(colours[corpus.groups.members(int(top[0]))]) == [CATEGORICAL[0]] * counts[top[0]]
    rest = int(counts.sum() - counts[top].sum())
    assert np.count_nonzero(np.array(colours[:]) == OTHER) == rest
    assert f"(other 264: {rest:,} sentences)" in colouring.legend
    assert colouring.legend.count("&#9632;") == TOP + 1 and colouring.scale is None


def test_a_legend_names_every_category_the_palette_has_colours_for(offered):
    """Costra's 14 transformation types each in a colour of its own: none of them in
    the grey of "other" (4 were, when every legend named ten)."""
    corpus, costra = offered["costra"]
    column = costra["type"]
    assert isinstance(column, Categories) and len(column.names) == 14
    colouring = colour_by(column)
    colours = np.array(colouring.colours[:])
    assert colouring.colours.palette[:14] == CATEGORICAL[:14]
    assert set(colours) == set(CATEGORICAL[:14])  # each type its own colour, none grey
    assert "(other" not in colouring.legend and colouring.legend.count("&#9632;") == 14
    for name in column.names:
        assert f"{name} (" in colouring.legend
    # The palette's 18 colours (Tableau 20 without its greys) are the most named.
    assert len(set(CATEGORICAL) | {OTHER, UNGROUPED}) == len(CATEGORICAL) + 2 == 20
    assert [named_count(k) for k in (2, 14, 18, 19, 274)] == [2, 14, 18, TOP, TOP]


def test_a_corpus_is_first_coloured_by_its_groups_else_its_pairs_else_words(offered):
    # MSRP's training file groups its sentences in twos and threes: its ten largest
    # groups in colour, as the guide says of every grouped corpus (issue 42 item 12).
    for name, key in (
        ("grouped", "paraphrase_group"),
        ("msrp", "paraphrase_group"),
        ("sick", "pair_label"),
    ):
        corpus, columns = offered[name]
        assert default_colouring(corpus, columns) == key
    _, msrp = offered["msrp"]
    assert "source" not in msrp and "msrp_ids" not in msrp  # free text colours nothing
    columns = offered["grouped"][1]
    plain = {key: column for key, column in columns.items() if key == "words"}
    assert default_colouring(offered["sick"][0], plain) == "words"


def test_a_colouring_saved_by_an_earlier_version_is_found_by_its_new_key():
    assert [
        saved_key(key)
        for key in ("metadata:type", "cluster", "misclassified", "faithfulness", "group", None)
    ] == ["type", "region", "misclassified_or_not", "faithfulness", "group", None]


def test_a_corpus_of_many_small_groups_is_coloured_by_them_too():
    """The 145,000 captions come in 29,000 groups of 5: they opened coloured by length,
    where the guide says a corpus starts at its groups (issue 42 item 12)."""
    corpus = load_corpus("multi30k-captions")
    columns = colourings(sentence_columns(corpus))
    assert default_colouring(corpus, columns) == "paraphrase_group"


def test_tied_categories_rank_in_natural_order_of_their_names():
    """Most frequent first, ties in natural order (case aside, "img2" before "img10"),
    whether the names are compared as sortable strings in one pass (ASCII) or one by
    one (beyond ASCII)."""
    numbers = (10, 2, 1, 33, 3, 21, 100, 20, 7, 5, 11, 4)
    names = [f"{'IMG' if k % 2 else 'img'}{k}.jpg" for k in numbers]
    codes = np.concatenate([np.repeat(np.arange(len(names)), 2), [numbers.index(33)]])
    top, counts = top_categories(names, codes)
    expected = [33, 1, 2, 3, 4, 5, 7, 10, 11, 20, 21, 100]  # all 12 named
    assert [numbers[k] for k in top] == expected and counts[top[0]] == 3
    beyond_ascii = [name.replace(".jpg", ".jpé") for name in names]
    assert top_categories(beyond_ascii, codes)[0].tolist() == top.tolist()
