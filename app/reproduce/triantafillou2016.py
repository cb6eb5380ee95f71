"""Triantafillou, Kiros, Urtasun & Zemel 2016, "Towards generalizable sentence
embeddings": Tables 1-8."""

from __future__ import annotations

from sentspace.app.reproduce import model as paper
from sentspace.app.reproduce.findings import Decision, Evidence, beats, within

MSRP = "{data}/msrp"
SICK = "{data}/sick"
SOUP = "{data}/latent-relatedness/soup.tsv"
ON_SOTU = (
    "trained here on the State of the Union (17,122 sentences, default small "
    "sizes) instead of the Toronto books"
)
ON_PAIRS = (
    "trained here on the evaluated corpus's training pairs (SICK or MSRP train; "
    "Skipthought word embeddings not used) instead of SNLI"
)
#: Model -> (encoder spec or None, mark, what differs or what is needed).
MODELS: dict[str, tuple[str | None, str, str]] = {
    "ST": (
        "skipthought-combine:" + paper.STATE_UNION,
        paper.SUBSTITUTE,
        "combine-skip " + ON_SOTU + "; 256-d, not 4800-d",
    ),
    "FT-ST": (
        "pair-finetune",
        paper.SUBSTITUTE,
        "MiniLM fine-tuned on the evaluated corpus's training pairs, for Skipthoughts "
        "fine-tuned on SNLI",
    ),
    "BOW": ("pair-bow", paper.SUBSTITUTE, "SNLI BOW " + ON_PAIRS),
    "RNN": ("pair-rnn", paper.SUBSTITUTE, "SNLI RNN (GRU) " + ON_PAIRS),
    "BOW-AE": (None, paper.NEEDS, "a bag-of-words autoencoder family (Lauly et al. 2014)"),
    "RNN-AE": ("sae:" + paper.STATE_UNION, paper.SUBSTITUTE, "an LSTM autoencoder " + ON_SOTU),
}
ORDER = tuple(MODELS)


def _grid(
    table: str,
    evaluation: str,
    columns: dict[str, tuple[str, str, tuple]],
    printed: dict[str, tuple[str, ...]],
    note: str,
    scale: float = 1.0,
    quick: frozenset[str] = frozenset(),
) -> tuple[paper.Cell, ...]:
    """Cells of a table printed as metrics (rows) x models (columns); ``columns``: metric
    row -> (corpus, Score name, options)."""
    cells = []
    for row, (corpus, metric, options) in columns.items():
        for model, text in zip(ORDER, printed[row], strict=True):
            spec, mark, model_note = MODELS[model]
            run = None if spec is None else paper.Run(evaluation, corpus, spec, options)
            cells.append(
                paper.Cell(
                    table,
                    model,
                    row,
                    text,
                    paper.number(text, scale),
                    run,
                    metric,
                    mark,
                    "; ".join(n for n in (model_note, note) if n),
                    quick=model in quick,
                )
            )
    return tuple(cells)


LR = "logistic regression, pair features |u-v|, u*v; regularisation not stated: default"
TABLE1 = _grid(
    "table1",
    "transfer",
    {"test acc": (MSRP, "accuracy", ()), "test f1": (MSRP, "F1", ())},
    {
        "test acc": ("0.73", "0.75", "0.70", "0.71", "0.71", "0.67"),
        "test f1": ("0.82", "0.83", "0.80", "0.81", "0.80", "0.80"),
    },
    LR,
)
TABLE2 = _grid(
    "table2",
    "transfer",
    {"test acc": (SICK, "accuracy", ())},
    {"test acc": ("0.80", "0.83", "0.81", "0.82", "0.79", "0.75")},
    LR + "; SICK entailment, its given split",
)
LEARNED = (("split", "test"), ("similarity", "learned"))
TABLE3 = _grid(
    "table3",
    "relatedness",
    {
        "test PR": (SICK, "pooled pearson", LEARNED),
        "test SR": (SICK, "pooled spearman", LEARNED),
        "test SE": (SICK, "pooled MSE", LEARNED),
    },
    {
        "test PR": ("0.84", "0.85", "0.81", "0.82", "0.79", "0.70"),
        "test SR": ("0.78", "0.79", "0.76", "0.77", "0.72", "0.64"),
        "test SE": ("0.30", "0.28", "0.36", "0.34", "0.39", "0.52"),
    },
    "Kiros et al.'s classifier over the score classes on |u-v|, u*v, trained on SICK "
    "train + trial (4,500 + 500), scored on test; its regularisation (tuned on trial in "
    "the paper) not stated here: C = 1",
)
SENTEVAL = "{data}/senteval-transfer/"
TABLE4 = _grid(
    "table4",
    "transfer",
    {task: (SENTEVAL + task, "accuracy", ()) for task in ("MR", "SUBJ", "TREC")},
    {
        "MR": ("0.76", "0.79", "0.76", "0.71", "0.75", "0.65"),
        "SUBJ": ("0.94", "0.94", "0.93", "0.89", "0.92", "0.86"),
        "TREC": ("0.92", "0.92", "0.86", "0.87", "0.85", "0.82"),
    },
    "logistic regression; split or CV not stated: 10-fold CV (TREC: its split)",
)
RANKING = {
    "accuracy@1": "accuracy@1",
    "accuracy@10": "accuracy@10",
    "accuracy@100": "accuracy@100",
    "MRC": "MRC",
}
RANK_NOTE = (
    "queries, duplicates and multi-paraphrase sentences not stated: sentspace "
    "queries each positive pair's first sentence among every distinct MSRP "
    "sentence (exact search)"
)
TABLE5 = _grid(
    "table5",
    "ranking",
    {row: (MSRP, metric, (("search", "exact"),)) for row, metric in RANKING.items()},
    {
        "accuracy@1": ("0.63", "0.77", "0.87", "0.56", "0.90", "0.33"),
        "accuracy@10": ("0.74", "0.86", "0.93", "0.67", "0.96", "0.40"),
        "accuracy@100": ("0.86", "0.96", "0.99", "0.84", "1", "0.54"),
        "MRC": ("93", "15", "6", "97", "2", "455"),
    },
    RANK_NOTE,
)
RANDOM_BOW = paper.Run("ranking", MSRP, "random-bow", (("search", "exact"),))
TABLE6 = tuple(
    paper.Cell(
        "table6",
        "random BOW",
        row,
        text,
        paper.number(text, 1 if row == "MRC" else 0.01),
        RANDOM_BOW,
        metric,
        paper.SAME,
        "620-d random word vectors (distribution and seed not stated: sentspace's "
        "Gaussian, seed 0); accuracies printed as whole numbers, read as %; " + RANK_NOTE,
        quick=True,
    )
    for (row, metric), text in zip(RANKING.items(), ("79", "88", "96", "21"), strict=True)
)
#: Not in the paper: the count bag of words the random one is read against.
REFERENCE = tuple(
    paper.Cell(
        "reference",
        "bag of words (counts)",
        row,
        "",
        None,
        paper.Run("ranking", MSRP, "bow", (("search", "exact"),)),
        metric,
        paper.SAME,
        "not in the paper: the lexical reference for Table 6",
        quick=True,
    )
    for row, metric in RANKING.items()
)
TABLE7 = _grid(
    "table7",
    "relatedness",
    {
        "test PR": (SICK, "pooled pearson", (("split", "test"),)),
        "test SR": (SICK, "pooled spearman", (("split", "test"),)),
        "test SE": (SICK, "pooled MSE", (("split", "test"),)),
    },
    {
        "test PR": ("0.50", "0.57", "0.69", "0.62", "0.64", "0.39"),
        "test SR": ("0.48", "0.56", "0.65", "0.59", "0.57", "0.39"),
        "test SE": ("1.53", "1.10", "1.12", "0.98", "1.21", "1.84"),
    },
    "SICK test split; how cosine was mapped onto 1-5 for the MSE is not stated: "
    "sentspace maps it linearly",
)
SOUP_RANKS = {  # rank -> printed "sim key [group]" for ST, FT-ST, SNLI BOW, SNLI RNN, BOW AE
    1: (
        "0.61 very cold [G2]",
        "0.48 very cold [G2]",
        "0.59 did not get burned [G2]",
        "0.51 did not get burned [G2]",
        "0.51 very cold [G2]",
    ),
    2: (
        "0.43 steam [G1]",
        "0.32 did not get burned [G2]",
        "0.45 very cold [G2]",
        "0.47 very cold [G2]",
        "0.35 did not get burned [G2]",
    ),
    3: (
        "0.39 heated [G1]",
        "0.29 heated [G1]",
        "0.39 got burned [G1]",
        "0.34 got burned [G1]",
        "0.35 heated [G1]",
    ),
    4: (
        "0.39 did not get burned [G2]",
        "0.29 steam [G1]",
        "0.37 heated [G1]",
        "0.30 heated [G1]",
        "0.35 steam [G1]",
    ),
    5: (
        "0.38 got burned [G1]",
        "0.28 got burned [G1]",
        "0.32 steam [G1]",
        "0.28 steam [G1]",
        "0.31 got burned [G1]",
    ),
}


def _latent_run(spec: str | None) -> paper.Run | None:
    """The latent-relatedness run of an encoder ``spec``; None for a model not re-run."""
    return None if spec is None else paper.Run("latent", SOUP, spec)


TABLE8 = tuple(
    paper.Cell(
        "table8",
        model,
        f"rank {rank}",
        text,
        paper.number(text.split()[0]),
        _latent_run(MODELS[model][0]),
        f"similarity at rank {rank}",
        MODELS[model][1],
        MODELS[model][2] + "; cosine of the sentence at this rank from 'My soup is not "
        "hot anymore' (which sentence it is: the result's ranks)",
    )
    for rank, texts in SOUP_RANKS.items()
    for model, text in zip(("ST", "FT-ST", "BOW", "RNN", "BOW-AE"), texts, strict=True)
)


def _random_close(evidence: Evidence) -> Decision:
    """Random BOW's accuracy@1 at most 0.1 below the best bag of words re-run (the SNLI
    BOW substitute when run, else the count bag of words); the paper: 0.79 vs 0.87."""
    learned, counts = (
        ("table5", "BOW", "accuracy@1"),
        ("reference", "bag of words (counts)", "accuracy@1"),
    )
    values = {key: evidence.value(*key) for key in (learned, counts)}
    found = {k: v for k, v in values.items() if v is not None}
    best = max(found, key=found.__getitem__, default=learned)
    return within(evidence, best, ("table6", "random BOW", "accuracy@1"), 0.1)


PAPER = paper.Paper(
    name="triantafillou2016",
    title="Triantafillou, Kiros, Urtasun & Zemel 2016: Towards generalizable sentence embeddings",
    tables=(
        paper.Table("table1", "MSRP paraphrase detection, logistic regression", LR, TABLE1),
        paper.Table("table2", "SICK entailment, logistic regression", LR, TABLE2),
        paper.Table(
            "table3",
            "SICK relatedness, supervised",
            "SICK test split, score learned on train + trial",
            TABLE3,
        ),
        paper.Table("table4", "MR, SUBJ, TREC, logistic regression", "", TABLE4),
        paper.Table("table5", "Paraphrase ranking in the pooled MSRP sentences", RANK_NOTE, TABLE5),
        paper.Table("table6", "Random-vector BOW ranking", RANK_NOTE, TABLE6),
        paper.Table(
            "reference", "Count bag of words ranking (not in the paper)", RANK_NOTE, REFERENCE
        ),
        paper.Table("table7", "SICK relatedness from cosine", "SICK test split", TABLE7),
        paper.Table(
            "table8",
            "Latent relatedness: five sentences ranked against 'not hot anymore'",
            "soup.tsv",
            TABLE8,
        ),
    ),
    counts=(
        paper.Count(
            "MSRP ranking pool (distinct sentences of train + test)",
            "over 11000",
            MSRP,
            lambda c: f"{len(c):,}",
            "identical sentences are one (not stated in the paper)",
        ),
        paper.Count(
            "latent-relatedness set",
            "6 sentences in 2 groups of 3",
            SOUP,
            lambda c: f"{len(c)} sentences in {c.groups.n_groups} groups",
        ),
    ),
    findings=(
        paper.Finding("A random-vector BOW ranks paraphrases almost as well as BOW", _random_close),
        paper.Finding(
            "Fine-tuning on pairs improves SICK relatedness (FT-ST above ST)",
            lambda evidence: beats(evidence, "table7", "test SR", ("FT-ST",), ("ST",)),
        ),
        paper.Finding(
            "Autoencoders of word order (RNN-AE) rank paraphrases worst",
            lambda evidence: beats(
                evidence, "table5", "accuracy@1", ("ST", "FT-ST", "BOW", "RNN"), ("RNN-AE",)
            ),
        ),
    ),
    full_time=(
        "about 1.5 hours on 2 CPU cores: pair-finetune (MiniLM) takes 11 min an "
        "epoch of SICK train, and each trained family is trained again per corpus"
    ),
)
