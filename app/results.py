"""What every result records about how it was produced, so it can be reproduced."""

from __future__ import annotations

import datetime as _dt
import hashlib
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import numpy as np
import scipy.sparse as sp

from app.corpora.model import Corpus
from models.base import Embeddings, Encoder

SCHEMA_VERSION = 1


def package_version() -> str:
    try:
        return metadata.version("sentspace")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Provenance:
    """The corpus, encoder, parameters and software a result was computed from."""

    corpus_name: str
    corpus_fingerprint: str
    encoder_name: str
    encoder_family: str
    encoder_params: dict[str, Any]
    encoder_fingerprint: str
    parameters: dict[str, Any]
    version: str = field(default_factory=package_version)
    #: Edits applied to the corpus as loaded when this was computed (Corpus.edits); a
    #: result whose fingerprint is not the corpus's now is from another version.
    corpus_edits: int = 0
    schema: int = SCHEMA_VERSION
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.UTC)
                         .isoformat(timespec="seconds"))

    @classmethod
    def of(cls, corpus: Corpus, encoder: Encoder, **parameters: Any) -> Provenance:
        """Provenance of a run; the encoder's fingerprint is of its unfitted form when the
        evaluation fits it itself, so it names the recipe, not one fold's state."""
        return cls(corpus_name=corpus.name, corpus_fingerprint=corpus.fingerprint,
                   corpus_edits=corpus.edits, encoder_name=encoder.name, encoder_family=encoder.family,
                   encoder_params=encoder.params(), encoder_fingerprint=encoder.fingerprint(),
                   parameters=dict(parameters))

    @classmethod
    def of_embeddings(cls, corpus: Corpus, embeddings: Embeddings,
                      **parameters: Any) -> Provenance:
        """Provenance of a run on precomputed embeddings: the encoder is named
        "precomputed" and fingerprinted by the matrix's content."""
        if sp.issparse(embeddings):
            embeddings = sp.csr_array(embeddings)
        h = hashlib.sha256(str((type(embeddings).__name__, embeddings.shape)).encode())
        parts = ((embeddings.data, embeddings.indices, embeddings.indptr)
                 if sp.issparse(embeddings) else (embeddings,))
        for part in parts:
            h.update(np.ascontiguousarray(part).tobytes())
        return cls(corpus_name=corpus.name, corpus_fingerprint=corpus.fingerprint,
                   corpus_edits=corpus.edits, encoder_name="precomputed", encoder_family="precomputed",
                   encoder_params={"shape": list(embeddings.shape),
                                   "dtype": str(embeddings.dtype)},
                   encoder_fingerprint=h.hexdigest()[:16], parameters=dict(parameters))


def provenance(corpus: Corpus, encoder: Encoder | None, embeddings: Embeddings,
               **parameters: Any) -> Provenance:
    """:meth:`Provenance.of` the encoder when known, else of the precomputed embeddings."""
    if encoder is None:
        return Provenance.of_embeddings(corpus, embeddings, **parameters)
    return Provenance.of(corpus, encoder, **parameters)
