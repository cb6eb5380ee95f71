"""Evaluations of the sentences that pass a filter expression (``where``, the CLI's
``--where``, the window's "only sentences passing the filter"): the items whose
sentences all pass (pairs, queries and their pool, group members) are evaluated, and
only their sentences encoded; what an encoder or a learned score trains on is left as
it was. The expression is read on the corpus's own columns
(:func:`sentspace.app.analysis.filters.passing`) and recorded in the result's parameters."""

from __future__ import annotations

from typing import Any

import numpy as np

from sentspace.app.analysis.filters import passing as mask_of
from sentspace.app.base.errors import InputError
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


def parameters(where: str) -> dict[str, Any]:
    """What a result records of ``where`` among its parameters: nothing for none, so a
    result of every sentence is recorded as before."""
    return {"where": where.strip()} if where.strip() else {}
