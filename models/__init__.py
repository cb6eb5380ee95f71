"""Sentence encoders ("models" in the papers), behind :class:`models.base.Encoder`."""

from __future__ import annotations

from models.base import Embeddings, Encoder, NotFittedError
from models.bow import BagOfWords, TfIdf

#: Encoder families by the name the CLI's ``--encoder`` and the GUI's choice use.
ENCODERS: dict[str, type[Encoder]] = {cls.family: cls for cls in (BagOfWords, TfIdf)}
DEFAULT_ENCODER = "bow"


def make_encoder(name: str) -> Encoder:
    """A new encoder of the named family with default parameters."""
    try:
        return ENCODERS[name]()
    except KeyError:
        known = ", ".join(ENCODERS)
        raise ValueError(f"unknown encoder {name!r} (known: {known})") from None


__all__ = ["DEFAULT_ENCODER", "ENCODERS", "Embeddings", "Encoder", "NotFittedError",
           "make_encoder"]
