"""What every result records about how it was produced, so it can be reproduced."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from app.corpora.model import Corpus
from models.base import Encoder

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
    schema: int = SCHEMA_VERSION
    created: str = field(default_factory=lambda: _dt.datetime.now(_dt.UTC)
                         .isoformat(timespec="seconds"))

    @classmethod
    def of(cls, corpus: Corpus, encoder: Encoder, **parameters: Any) -> Provenance:
        """Provenance of a run; the encoder's fingerprint is of its unfitted form when the
        evaluation fits it itself, so it names the recipe, not one fold's state."""
        return cls(corpus_name=corpus.name, corpus_fingerprint=corpus.fingerprint,
                   encoder_name=encoder.name, encoder_family=encoder.family,
                   encoder_params=encoder.params(), encoder_fingerprint=encoder.fingerprint(),
                   parameters=dict(parameters))
