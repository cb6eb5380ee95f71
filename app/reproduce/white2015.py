"""White et al. 2015, "How well sentence embeddings capture meaning": Table 1."""

from __future__ import annotations

from sentspace.app.analysis.evaluations.classification import evaluable_groups
from sentspace.app.reproduce import model as paper
from sentspace.app.reproduce.findings import beats, best_of, every_lower, within
from sentspace.models.bow import BagOfWords

MSRP = "msrp-grouped"
OPINOSIS = "{data}/white2015-paraphrase-grouped/opinosis_distribute"
#: What the paper leaves unstated, filled by sentspace's defaults (docs/paper-tables.md).
DEFAULTS = (
    "SVM C not stated: sentspace's C=1.0; class weighting not stated: 'balanced'; "
    "one stratified 3-fold CV, seed 0 (repeats not stated)"
)
TRAINED_HERE = (
    "trained here on the State of the Union (17,122 sentences, default sizes) instead of "
)

#: Model -> (encoder spec, mark, what differs, re-run by --quick).
MODELS = {
    "PV-DM": (
        "doc2vec-dm:" + paper.STATE_UNION,
        paper.SUBSTITUTE,
        TRAINED_HERE + "1.2M Wikipedia sentences (window 8, 300-d, concatenated)",
        False,
    ),
    "PV-DBOW": (
        "doc2vec-dbow:" + paper.STATE_UNION,
        paper.SUBSTITUTE,
        TRAINED_HERE + "1.2M Wikipedia sentences (window 8, 300-d)",
        False,
    ),
    "URAE": (
        "urae:" + paper.STATE_UNION,
        paper.SUBSTITUTE,
        TRAINED_HERE + "Socher et al.'s released 200-d URAE (150k Gigaword sentences); "
        "GloVe 50d leaves",
        False,
    ),
    "MOWE": ("glove-mean", paper.SUBSTITUTE, "GloVe 6B 50d for Google News word2vec 300-d", True),
    "SOWE": ("glove-sum", paper.SUBSTITUTE, "GloVe 6B 50d for Google News word2vec 300-d", True),
    "BOW": ("bow", paper.SAME, "tokeniser not stated: sentspace's (lowercased)", True),
    # Out of --quick: refitting PCA in every fold took 130 s on 2 busy cores.
    "PCA BOW": ("pca-bow", paper.SAME, "300-d PCA fitted on the training fold only", False),
}
PRINTED = {
    "PV-DM": ("78.00%", "38.26%"),
    "PV-DBOW": ("89.93%", "32.19%"),
    "URAE": ("51.14%", "20.86%"),
    "MOWE": ("97.91%", "69.30%"),
    "SOWE": ("98.02%", "68.75%"),
    "BOW": ("98.37%", "65.23%"),
    "PCA BOW": ("97.96%", "54.43%"),
}
COLUMNS = {"MSRP Subcorpus": MSRP, "Opinosis Subcorpus": OPINOSIS}
TABLE = "table1"

#: Why a same-setting cell lies outside the published value's reach, found by re-running
#: it with the setting changed (Opinosis, seed 0, 3 folds).
OUTSIDE = {
    ("PCA BOW", "Opinosis Subcorpus"): (
        "tried: with ~347 training sentences a fold, 300 components keep nearly all the "
        "variance, so PCA BOW is BOW here (0.645 vs BOW 0.635); 200-d 0.635, 100-d 0.578, "
        "75-d 0.555, 50-d 0.486; case kept 0.608 (300-d); another ARPACK seed 0.645. The "
        "paper's 0.544 is what about 75 components give: its PCA likely kept fewer "
        "effective dimensions on this small corpus (how it was fitted is not stated)"
    ),
}

CELLS = tuple(
    paper.Cell(
        TABLE,
        model,
        column,
        printed,
        paper.percent(printed),
        paper.Run("classification", corpus, encoder),
        "mean accuracy",
        mark,
        f"{note}; {DEFAULTS}",
        quick,
        outside=OUTSIDE.get((model, column), ""),
    )
    for model, (encoder, mark, note, quick) in MODELS.items()
    for (column, corpus), printed in zip(COLUMNS.items(), PRINTED[model], strict=True)
)


def _groups(corpus) -> str:
    """Sentences and groups the classification evaluates (groups of 3 or more)."""
    sentences, _, names = evaluable_groups(corpus, 3)
    return f"{len(sentences):,} sentences / {len(names):,} groups"


def _bow_dimension(corpus) -> str:

    return f"{BagOfWords().fit(list(corpus.texts)).dim:,}"


M, O = "MSRP Subcorpus", "Opinosis Subcorpus"  # noqa: E741 (the paper's M and O)
WORD_VECTORS = ("MOWE", "SOWE")
LEARNED = ("PV-DM", "PV-DBOW", "URAE")

PAPER = paper.Paper(
    name="white2015",
    title="White, Sadiq, Hamdan, Bennamoun & Togneri 2015: How well sentence embeddings "
    "capture meaning",
    tables=(
        paper.Table(
            TABLE,
            "Paraphrase-group classification accuracy (linear SVM, 3-fold CV)",
            "Each sentence is classified into its paraphrase group; groups of fewer "
            "than 3 sentences dropped; mean accuracy over stratified folds.",
            CELLS,
            band=0.02,
        ),
    ),
    counts=(
        paper.Count(
            "MSRP sub-corpus",
            "859 sentences / 273 groups",
            MSRP,
            _groups,
            "the distributed grouping has one group more than the paper's caption",
        ),
        paper.Count(
            "Opinosis sub-corpus",
            "521 sentences / 89 groups",
            OPINOSIS,
            _groups,
            "groups of 3 or more of the distributed grouping (669 / 163 in all)",
        ),
        paper.Count(
            "BOW dimension, MSRP (unique tokens)",
            "2,976",
            MSRP,
            _bow_dimension,
            "sentspace's bow lowercases; the paper's tokeniser is not stated",
        ),
        paper.Count("BOW dimension, Opinions (unique tokens)", "1,085", OPINOSIS, _bow_dimension),
    ),
    findings=(
        paper.Finding(
            "Sum/mean of word vectors beats PV and URAE on MSRP groups",
            lambda evidence: beats(evidence, TABLE, M, WORD_VECTORS, LEARNED),
        ),
        paper.Finding(
            "BOW is best on MSRP",
            lambda evidence: best_of(evidence, TABLE, M, "BOW", tuple(MODELS)),
        ),
        paper.Finding(
            "The Opinosis groups are far harder than MSRP's for every model",
            lambda evidence: every_lower(evidence, TABLE, tuple(MODELS), O, M),
        ),
        paper.Finding(
            "PCA to 300 dimensions loses little against BOW on MSRP (within 2 points)",
            lambda evidence: within(evidence, (TABLE, "BOW", M), (TABLE, "PCA BOW", M), 0.02),
        ),
    ),
    full_time="about 6 minutes on 2 CPU cores (three encoders trained on the State of "
    "the Union, each refitted for both corpora)",
)
