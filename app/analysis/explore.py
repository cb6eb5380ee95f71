"""The explorer's pipeline: encode a corpus, project it, and classify its groups."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sentspace.app.analysis.cache import cached_encode
from sentspace.app.analysis.evaluations.classification import (
    ClassificationResult,
    run_classification,
)
from sentspace.app.analysis.projection import Faithfulness, Projection, iter_faithfulness, project
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder, fitted_copy
from sentspace.models.pairs import corpus_pairs


@dataclass(frozen=True, eq=False)
class Exploration:
    """What the main window shows for one corpus and encoder."""

    corpus: Corpus
    encoder: Encoder
    embeddings: Embeddings
    projection: Projection
    faithfulness: Faithfulness | None
    classification: ClassificationResult | None
    #: Why an evaluation was skipped (the corpus lacks what it needs).
    notes: tuple[str, ...] = ()


def _project(
    corpus: Corpus,
    embeddings: Embeddings,
    method: str,
    seed: int,
    parameters: dict[str, Any],
    search: str,
) -> Job[tuple[Projection, Faithfulness | None]]:
    # A layout fitted on a sample of a large corpus keeps every group in the sample.
    strata = corpus.groups.first_group(len(corpus)) if corpus.groups is not None else None
    projection = yield from project(embeddings, method, seed=seed, strata=strata, **parameters)
    return projection, (
        yield from iter_faithfulness(embeddings, projection.coordinates, seed=seed, search=search)
    )


def explore(
    corpus: Corpus,
    encoder: Encoder,
    *,
    method: str = "pca",
    seed: int = 0,
    projection_parameters: dict[str, Any] | None = None,
    training_texts: Sequence[str] | None = None,
    search: str = "auto",
) -> Job[Exploration]:
    """Fit ``encoder`` on ``training_texts`` (default: the corpus's sentences), encode
    every sentence, project to 2D (faithfulness's neighbours found as ``search`` says,
    :func:`sentspace.app.analysis.ann.iter_knn`) and, when the corpus has groups, run the
    classification evaluation (which refits encoders that learn from data on each
    training fold, whatever they were trained on here)."""
    fitted = yield from fitted_copy(
        encoder,
        corpus.texts if training_texts is None else training_texts,
        corpus_pairs(corpus) if encoder.learns_from_pairs else None,
    )
    embeddings = yield from cached_encode(fitted, corpus.fingerprint, corpus.texts)
    projection, faithful = yield from _project(
        corpus, embeddings, method, seed, projection_parameters or {}, search
    )
    classification = None
    notes: tuple[str, ...] = ()
    if corpus.groups is not None:
        try:
            classification = yield from run_classification(
                corpus, encoder, seed=seed, embeddings=embeddings
            )
        except EvaluationError as error:
            notes = (f"classification skipped: {error}",)
    return Exploration(corpus, fitted, embeddings, projection, faithful, classification, notes)


def reproject(
    exploration: Exploration, method: str, *, seed: int = 0, search: str = "auto", **parameters: Any
) -> Job[Exploration]:
    """The same exploration with a new projection; nothing is re-encoded."""
    projection, faithful = yield from _project(
        exploration.corpus, exploration.embeddings, method, seed, parameters, search
    )
    return dataclasses.replace(exploration, projection=projection, faithfulness=faithful)
