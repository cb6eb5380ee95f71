"""Annotations the embedding space disagrees with, ranked for a person to review:
sentences nearer another group than their own, groups spread wide or close to another,
pairs whose gold score the cosines contradict, Costra orderings the encoders agree
against. Each finder returns a :class:`~sentspace.app.analysis.suspicious.base.ReviewList`;
:func:`iter_find_suspicious` runs those a corpus allows, as one job."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.analysis.suspicious.base import (
    DEFAULT_K,
    DEFAULT_MERGE_K,
    ROW_BLOCK,
    EmbeddingsByEncoder,
    ReviewList,
    rankdata,
)
from sentspace.app.analysis.suspicious.groups import (
    CloseGroups,
    SpreadGroups,
    close_groups,
    iter_close_groups,
    spread_groups,
)
from sentspace.app.analysis.suspicious.pairs import (
    CostraConsensusErrors,
    GoldDisagreements,
    costra_consensus_errors,
    gold_disagreements,
)
from sentspace.app.analysis.suspicious.sentences import (
    MisgroupedSentences,
    ScuOutliers,
    iter_misgrouped,
    iter_scu_outliers,
    misgrouped,
    scu_outliers,
)
from sentspace.app.base.jobs import Job, Progress, run_job
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder


def _at_once(find):
    """A finder that needs no neighbour search, as a job like the others."""

    def job(corpus: Corpus, embeddings: EmbeddingsByEncoder) -> Job[ReviewList]:
        yield from ()
        return find(corpus, embeddings)

    return job


#: Every finder, as a job, by the kind its table reports, with whether a corpus has
#: what it needs.
FINDERS = {
    "misgrouped": (iter_misgrouped, lambda c: c.groups is not None and c.groups.kind != "SCU"),
    "split": (
        _at_once(spread_groups),
        lambda c: c.groups is not None and bool((c.groups.sizes >= 2).any()),
    ),
    "merge": (iter_close_groups, lambda c: c.groups is not None and c.groups.n_groups >= 2),
    "gold": (
        _at_once(gold_disagreements),
        lambda c: c.pairs is not None and bool(np.isfinite(c.pairs.score).any()),
    ),
    "scu": (iter_scu_outliers, lambda c: c.groups is not None and c.groups.kind == "SCU"),
    "costra": (_at_once(costra_consensus_errors), lambda c: "r1" in c.metadata),
}


#: The finders that look for nearest neighbours, and so take ``search``.
SEARCHING = frozenset({"misgrouped", "merge", "scu"})


#: What the progress says while each table is made.
STAGES = {
    "misgrouped": "sentences that may be in the wrong group",
    "split": "groups that may need splitting",
    "merge": "groups that may need merging",
    "gold": "gold scores the space disagrees with",
    "scu": "SCU contributors that may not belong",
    "costra": "Costra comparisons every encoder gets wrong",
}


def find_suspicious(
    corpus: Corpus, embeddings: EmbeddingsByEncoder, *, search: str = "auto"
) -> dict[str, ReviewList]:
    """Every table the corpus has the structure for, by kind, in :data:`FINDERS` order;
    neighbours found as ``search`` says (:func:`sentspace.app.analysis.ann.iter_knn`)."""
    return run_job(iter_suspicious_tables(corpus, embeddings, search=search))


def iter_suspicious_tables(
    corpus: Corpus, embeddings: EmbeddingsByEncoder, *, search: str = "auto"
) -> Job[dict[str, ReviewList]]:
    """:func:`find_suspicious` as a job: a stage per table, with the neighbour
    searches' own progress inside (minutes at a million sentences), cancellable at
    each step."""
    kinds = [kind for kind, (_, applies) in FINDERS.items() if applies(corpus)]
    tables: dict[str, ReviewList] = {}
    for done, kind in enumerate(kinds):
        yield Progress(f"finding {STAGES[kind]}", done, len(kinds))
        find = FINDERS[kind][0]
        tables[kind] = yield from find(
            corpus, embeddings, **({"search": search} if kind in SEARCHING else {})
        )
    return tables


def iter_find_suspicious(
    corpus: Corpus, encoders: Sequence[Encoder], *, search: str = "auto"
) -> Job[dict[str, ReviewList]]:
    """Encode the corpus with every encoder (fitting those that need it on the corpus),
    then :func:`find_suspicious`; a job for the GUI and CLI."""
    embeddings: dict[str, Embeddings] = {}
    for encoder in encoders:
        name = encoder.name
        while name in embeddings:  # two encoders of one family with default names
            name += "'"
        embeddings[name] = yield from encode_corpus(corpus, encoder)
    return (yield from iter_suspicious_tables(corpus, embeddings, search=search))


__all__ = [
    "CloseGroups",
    "CostraConsensusErrors",
    "DEFAULT_K",
    "DEFAULT_MERGE_K",
    "FINDERS",
    "GoldDisagreements",
    "MisgroupedSentences",
    "ROW_BLOCK",
    "ReviewList",
    "SEARCHING",
    "STAGES",
    "ScuOutliers",
    "SpreadGroups",
    "close_groups",
    "costra_consensus_errors",
    "find_suspicious",
    "gold_disagreements",
    "iter_close_groups",
    "iter_find_suspicious",
    "iter_misgrouped",
    "iter_scu_outliers",
    "iter_suspicious_tables",
    "misgrouped",
    "rankdata",
    "scu_outliers",
    "spread_groups",
]
