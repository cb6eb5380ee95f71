"""Evaluations of the sentences that pass a filter expression (``where``, the CLI's
``--where``, the window's "only sentences passing the filter"): the items whose
sentences all pass (pairs, queries and their pool, group members) are evaluated, and
only their sentences encoded; what an encoder or a learned score trains on is left as
it was. The expression is read on the corpus's own columns
(:func:`sentspace.app.analysis.filters.passing`) and recorded in the result's parameters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sentspace.app.analysis.filters import corpus_table
from sentspace.app.analysis.filters import pair_passing as pair_mask_of
from sentspace.app.analysis.filters import passing as mask_of
from sentspace.app.base.errors import EvaluationError, InputError
from sentspace.app.corpora.model import Corpus

#: The evaluations that take ``where``: their items are pairs, queries or sentences.
FILTERABLE = ("relatedness", "classification", "ranking", "detection", "histograms")

#: Why each other evaluation does not.
UNFILTERABLE = {
    "transfer": "it trains a classifier on one split and tests it on another, and a "
    "filter would change what it learns from as well as what it tests",
    "learning-curve": "it trains a classifier on growing shares of the train split, "
    "and a filter would change what it learns from as well as what it tests",
    "latent": "each sentence ranks its own group against the other, all of both",
    "pyramid": "its tests are built from whole SCUs and their summaries",
    "costra": "Costra's orderings compare every transformation of a seed sentence",
    "costra-offsets": "its offsets and analogies need every transformation of a seed",
    "bitext": "each sentence finds its translation among all the other language's",
    "agreement": "it compares encoders' classifications of the same folds",
}


def check_filterable(evaluation: str, where: str) -> None:
    """Raise InputError when ``where`` is given for an evaluation that does not take it,
    naming the evaluation, why, and those that do."""
    if where.strip() and evaluation not in FILTERABLE:
        reason = UNFILTERABLE.get(evaluation, "it does not evaluate items of sentences")
        raise InputError(
            f"{evaluation} cannot be restricted to the sentences passing a filter: "
            f"{reason} (a filter restricts {', '.join(FILTERABLE)})"
        )


def passing(corpus: Corpus, where: str) -> np.ndarray | None:
    """Whether each sentence of ``corpus`` passes ``where``; None for no expression
    (every sentence). Raises InputError for a bad expression."""
    if not where.strip():
        return None
    # Imported here: the columns the filter reads import the explorer, which imports
    # the evaluations.

    return mask_of(corpus, where)


def pair_passing(corpus: Corpus, where: str) -> np.ndarray | None:
    """Whether each pair of ``corpus`` passes ``where``: its own split, subset, label
    and gold score where the expression names them, both its sentences' other
    columns; None for no expression. Raises InputError for a bad expression."""
    if not where.strip():
        return None

    return pair_mask_of(corpus, where)


def in_splits(
    corpus: Corpus, splits: tuple[str, ...] | None, *, listing: bool = False
) -> np.ndarray:
    """Whether each of the corpus's pairs is in ``splits`` (None: every pair). Raises
    EvaluationError for a split the corpus lacks, ``listing`` the splits it has."""
    pairs = corpus.checked_pairs
    if splits is None:
        return np.ones(len(pairs), dtype=bool)
    unknown = set(splits) - set(pairs.split)
    if unknown:
        has = f" (it has {', '.join(sorted(set(pairs.split)))})" if listing else ""
        raise EvaluationError(
            f"corpus {corpus.name!r} has no split {', '.join(sorted(unknown))}{has}"
        )
    return np.isin(np.asarray(pairs.split, dtype=object), list(splits))


def described(corpus: Corpus, where: str, kept: int, every: Callable[[], int], noun: str) -> str:
    """What an evaluation of ``where`` evaluated, for its result's line: "2,793 of
    4,906 test pairs: where label == "NEUTRAL"", with how its items pass where the
    expression reads their sentences ("both sentences pass"); "" for no expression.
    ``every`` counts the items without the filter (called only when there is one)."""
    if not where.strip():
        return ""
    reads = corpus_table(corpus).columns_named(where)
    if noun == "sentences":
        how = "in a pair that passes" if "pairs" in reads else ""
    elif noun == "queries":
        how = "the query's pair passes" if "pairs" in reads else "the query and its partner pass"
    elif "sentences" not in reads:
        how = ""
    elif "pairs" in reads:
        how = "the pair's own split, label and score; both sentences' other columns"
    else:
        how = "both sentences pass"
    return f"{kept:,} of {every():,} {noun}: where {where.strip()}" + (f" ({how})" if how else "")


def parameters(where: str, evaluated: str = "") -> dict[str, Any]:
    """What a result records of ``where`` among its parameters: nothing for none, so a
    result of every sentence is recorded as before; else the expression and what it
    kept (:func:`described`)."""
    if not where.strip():
        return {}
    return {"where": where.strip(), **({"evaluated": evaluated} if evaluated else {})}
