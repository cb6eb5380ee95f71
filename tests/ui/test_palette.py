import numpy as np

from sentspace.app.base.palette import (
    CATEGORICAL,
    UNGROUPED,
    PointColours,
    category_colours,
    sequential_colours,
)


def test_colours_are_codes_into_a_short_palette():
    colours = category_colours(np.array([0, 1, -1, len(CATEGORICAL) + 1]))
    assert colours.codes.dtype == np.int32 and len(colours.palette) == len(CATEGORICAL) + 1
    assert list(colours) == [CATEGORICAL[0], CATEGORICAL[1], UNGROUPED, CATEGORICAL[1]]
    assert list(sequential_colours(np.array([0.0, 0.99]))[:]) == ["#440154", "#fde725"]


def test_where_recolours_a_copy_and_reuses_a_palette_entry():
    colours = PointColours.uniform(4, "#c8c8c8")
    marked = colours.where(np.array([1, 3]), "#d00000").where(
        np.array([True, False] * 2), "#c8c8c8"
    )
    assert list(marked) == ["#c8c8c8", "#d00000", "#c8c8c8", "#d00000"]
    assert marked.palette == ("#c8c8c8", "#d00000") and list(colours) == ["#c8c8c8"] * 4


def test_no_category_is_drawn_in_the_greys_of_none_and_other():
    """The 8th region was Tableau's grey, read as "in no region"."""
    from sentspace.app.base.palette import OTHER

    def grey(colour):
        r, g, b = (int(colour[k : k + 2], 16) for k in (1, 3, 5))
        return max(r, g, b) - min(r, g, b) < 32

    assert grey(UNGROUPED) and grey(OTHER)
    assert not any(grey(colour) for colour in CATEGORICAL)
