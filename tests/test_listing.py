"""What Selected sentences says, without a window: each corpus's own noun for a group."""

from types import SimpleNamespace

import numpy as np
import pytest

from sentspace.app.corpora import listing, load_corpus


@pytest.fixture(scope="module")
def pyramid(shared_data):
    return load_corpus(shared_data / "pyramid-sample")


def test_a_pyramid_group_is_called_an_scu_not_a_paraphrase_group(pyramid):
    groups = listing.first_groups(pyramid)
    grouped = int(np.flatnonzero(groups >= 0)[0])
    heading, rows = listing.group_rows(pyramid, grouped, groups)
    assert heading.startswith(f"SCU {pyramid.groups.names[groups[grouped]]}: ")
    caption = listing.selection_caption(pyramid, 3, "search")
    assert "paraphrase" not in heading + listing.prompt(pyramid) + caption
    assert "its SCU" in listing.prompt(pyramid)
    assert [row.sentence for row in rows] == pyramid.groups.members(groups[grouped]).tolist()
    assert [row.focus for row in rows].count(True) == 1
    described = listing.describe_sentence(pyramid, grouped, groups)
    assert "[" in described and "SCU" in described


def test_an_ungrouped_corpus_lists_no_group(shared_data):
    sick = load_corpus(shared_data / "sick")
    groups = listing.first_groups(sick)
    assert (groups == -1).all()
    assert listing.describe_sentence(sick, 0, groups).endswith(", no group]")
    caption = listing.selection_caption(sick, 1, "chart")
    assert "group" not in listing.prompt(sick) and "group" not in caption
    assert caption.startswith("1 selected sentence (behind the chart")


def test_the_marks_of_a_classified_group_are_explained():
    """The ✓ and ✗ before each member of a classified group say what they mean."""
    from types import SimpleNamespace

    corpus = load_corpus("msrp-grouped")
    groups = listing.first_groups(corpus)
    members = corpus.groups.members(0)
    result = SimpleNamespace(
        sentence_index=members,
        predicted_group=np.array([0] * (len(members) - 1) + [1]),
        provenance=SimpleNamespace(encoder_name="bow"),
    )
    _, rows = listing.group_rows(corpus, int(members[0]), groups, result)
    assert rows[0].text.startswith("✓ ") and rows[-1].text.startswith("✗ ")
    assert {row.note for row in rows} == {
        "✓ classified into this paraphrase group, ✗ into another, by bow"
    }
    assert {row.note for row in listing.group_rows(corpus, int(members[0]), groups)[1]} == {""}


def classification_of_three(**more):
    """A classification result of sentences 0-2: 0 and 2 right, 1 put in group b."""
    return SimpleNamespace(
        sentence_index=np.array([0, 1, 2]),
        true_group=np.array([0, 0, 1]),
        predicted_group=np.array([0, 1, 1]),
        group_names=["a", "b"],
        **more,
    )


def test_misclassified_rows_name_true_and_predicted_groups():
    corpus = load_corpus("msrp-grouped")
    result = classification_of_three()
    heading, rows = listing.misclassified_rows(corpus, result)
    assert heading.startswith("1 misclassified sentences")
    assert [row.sentence for row in rows] == [1]
    assert rows[0].text.endswith("(paraphrase group a, classified as b)")


def test_a_classification_bars_sentences_carry_its_marks():
    """A bar of a classification's chart lists its sentences marked by that result: ✓
    into their own group, ✗ into another (named); one it did not evaluate, unmarked."""
    corpus = load_corpus("msrp-grouped")
    result = classification_of_three(provenance=SimpleNamespace(encoder_name="tfidf"))
    rows = listing.classified_rows(corpus, [0, 1, 5], listing.first_groups(corpus), result)
    assert [row.sentence for row in rows] == [0, 1, 5]
    assert rows[0].text.startswith("✓ ") and rows[1].text.startswith("✗ ")
    assert rows[1].text.endswith("(classified as paraphrase group b)")
    assert (
        rows[2].text == listing.describe_sentence(corpus, 5, listing.first_groups(corpus))
        and not rows[2].note
    )
    assert rows[0].note == "✓ classified into its own paraphrase group, ✗ into another, by tfidf"
