"""Is encoder A really better than B on the same items? One paired test per evaluation.

McNemar for classification (per-sentence correctness), and a paired permutation test
for the headline metric of relatedness (Spearman on per-pair cosines), ranking (MRR on
per-query reciprocal ranks), detection (average precision on per-pair cosines) and
bitext (MTEB's F1 on per-query shares).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sentspace.app.errors import EvaluationError
from sentspace.app.evaluations import statistics
from sentspace.app.evaluations.agreement import compare_classifications


def _same_items(a_items: np.ndarray, b_items: np.ndarray) -> None:
    if not np.array_equal(a_items, b_items):
        raise EvaluationError("the two results were computed on different items "
                              "(another corpus, split or seed)")


def _permutation(metric, field: str, items: str, gold: str | None = None) -> Callable:
    def test(a, b, seed: int) -> statistics.PairedTest:
        _same_items(getattr(a, items), getattr(b, items))
        reference = None if gold is None else getattr(a, gold)
        return statistics.paired_permutation_test(metric, field_of(a), field_of(b),
                                                  reference, seed=seed)

    def field_of(result):
        value = getattr(result, field)
        return 1.0 / value if field == "rank" else value

    return test


#: evaluation name -> (what is compared, test(a, b, seed) -> PairedTest)
PAIRED_TESTS: dict[str, tuple[str, Callable]] = {
    "classification": ("accuracy (McNemar)",
                       lambda a, b, seed: compare_classifications(a, b)),
    "relatedness": ("pooled Spearman", _permutation(statistics.spearman, "cosine",
                                                    "pair_index", "gold")),
    "ranking": ("MRR", _permutation(statistics.mean, "rank", "query")),
    "detection": ("average precision", _permutation(statistics.average_precision, "cosine",
                                                    "pair_index", "label")),
    "bitext": ("F1 (MTEB)", _permutation(statistics.mean, "f1_share", "query")),
}


def paired_test(evaluation: str, a, b, *, seed: int = 0) -> statistics.PairedTest:
    """Compare two results of ``evaluation`` on the same items; raises EvaluationError
    when the evaluation has no paired test or the items differ."""
    if evaluation not in PAIRED_TESTS:
        raise EvaluationError(f"no paired test for {evaluation}")
    for result in (a, b):
        if getattr(result, "imported", False):
            raise EvaluationError(f"{result.provenance.encoder_name} is an imported score "
                                  "with no per-item outcomes: it has no paired test")
    return PAIRED_TESTS[evaluation][1](a, b, seed)
