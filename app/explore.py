"""The explorer's pipeline: encode a corpus, project it, and classify its groups."""

from __future__ import annotations

from dataclasses import dataclass

from app.corpora.model import Corpus
from app.errors import EvaluationError
from app.evaluations.classification import ClassificationResult, run_classification
from app.jobs import Job
from app.projection import Projection, project
from models.base import Embeddings, Encoder


@dataclass(frozen=True, eq=False)
class Exploration:
    """What the main window shows for one corpus and encoder."""

    corpus: Corpus
    encoder: Encoder
    embeddings: Embeddings
    projection: Projection
    classification: ClassificationResult | None
    #: Why an evaluation was skipped (the corpus lacks what it needs).
    notes: tuple[str, ...] = ()


def explore(corpus: Corpus, encoder: Encoder, *, seed: int = 0) -> Job[Exploration]:
    """Fit ``encoder`` on the corpus, encode every sentence, project to 2D with PCA and,
    when the corpus has groups, run the classification evaluation."""
    fitted = encoder.clone().fit(corpus.texts) if encoder.requires_fit else encoder
    embeddings = yield from fitted.iter_encode(corpus.texts)
    projection = yield from project(embeddings, "pca", seed=seed)
    classification, notes = None, ()
    if corpus.groups is not None:
        try:
            classification = yield from run_classification(corpus, encoder, seed=seed)
        except EvaluationError as error:
            notes = (f"classification skipped: {error}",)
    return Exploration(corpus, fitted, embeddings, projection, classification, notes)
