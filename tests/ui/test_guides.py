import re

import pytest

from sentspace.app.analysis.evaluations import COMPARISONS, EVALUATIONS
from sentspace.app.base.guides import GUIDES, TITLES

#: A phrase each guide's "Data it needs" section must contain.
DATA = {
    "classification": "paraphrase groups",
    "relatedness": "gold similarity scores",
    "transfer": "labelled sentence pairs",
    "ranking": "paraphrase labels",
    "detection": "labelled 1 (paraphrase) and 0",
    "learning-curve": "<b>train</b> and a <b>test</b> split",
    "histograms": "0/1 labels or gold scores",
    "latent": "at least two groups",
    "pyramid": ".pyr",
    "costra": "Costra 1.1",
    "costra-offsets": "seed groups",
    "bitext": "translations as positive pairs",
    "agreement": "two or more encoders",
    "projection": "Embeddings",
    "review": "groups, SCUs, scored pairs",
    "embeddings": "One embedding per corpus sentence",
    "filter": "Any corpus",
    "regions": "A run (a projection)",
    "explain": "Two sentences",
    "fastsent": "Ordered text",
    "dictrep": "(word, definition) rows",
    "captionrep": "Multi30K task 2",
    "sdae": "Any sentences",
    "skipthought": "Ordered text",
    "pair-trained": "labelled or scored pairs",
    "urae": "Any sentences",
}
SECTIONS = ("Question", "Procedure", "What the numbers mean", "Data it needs", "Pitfall")


def section(html, title):
    found = re.search(rf"<h4>{title}</h4><p>(.*?)</p>", html, re.S)
    return found.group(1) if found else ""


def test_every_evaluation_and_view_has_a_guide_and_a_title():
    assert (
        set(EVALUATIONS)
        | set(COMPARISONS)
        | {
            "projection",
            "review",
            "embeddings",
            "filter",
            "regions",
            "explain",
            "fastsent",
            "dictrep",
            "captionrep",
            "sdae",
            "skipthought",
            "pair-trained",
            "urae",
        }
        == set(GUIDES)
        == set(TITLES)
        == set(DATA)
    )


@pytest.mark.parametrize("key", sorted(DATA))
def test_guide_has_every_section_and_says_what_data_it_needs(key):
    html = GUIDES[key]
    assert html.startswith(f"<h3>{TITLES[key]}</h3>")
    for title in SECTIONS:
        assert len(section(html, title)) > 40, (key, title)
    assert DATA[key].lower() in section(html, "Data it needs").lower()


def test_guides_state_what_the_code_does():
    assert "refitted on each training fold" in GUIDES["classification"]
    assert "<b>pessimistic</b>" in GUIDES["ranking"]
    assert "sentences themselves are encoded" in GUIDES["costra"]
    assert "2,000" in GUIDES["latent"]
    assert "cannot encode new text" in GUIDES["embeddings"]
