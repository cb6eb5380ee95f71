"""A sentspace encoder as an MTEB model: what ``mteb.evaluate`` and mteb's evaluators
take (its ``EncoderProtocol``), so a trained encoder (``fastsent:FILE``, a fitted bag of
words, your own model wrapped by :func:`sentspace.encoder`) runs on MTEB's tasks.

Needs mteb (the ``mteb`` extra), imported here only: sentspace itself reads MTEB's
result files without it (``app.mteb_results``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from mteb.models.abs_encoder import AbsEncoder
from mteb.models.model_meta import ModelMeta, ScoringFunction

from sentspace.models.base import Encoder

#: MTEB names a model "organisation/model"; sentspace's encoders are named under this.
ORGANISATION = "sentspace"


class MtebModel(AbsEncoder):
    """``encoder`` (fitted: one that requires fitting must have been fitted) as an MTEB
    model named ``sentspace/<encoder name>``, whose revision is the encoder's
    fingerprint. Its embeddings are dense float32, compared by cosine, as sentspace's
    relatedness compares them: MTEB's STS main score is then relatedness's Spearman."""

    def __init__(self, encoder: Encoder):
        if not encoder.is_fitted:
            raise ValueError(
                f"encoder: {encoder.name} must be fitted first (give the "
                f"corpus to fit it on, or a trained file: FAMILY:FILE)"
            )
        self.model = encoder
        self.mteb_model_meta = ModelMeta.create_empty(
            overwrites={
                "name": f"{ORGANISATION}/{encoder.name}",
                "revision": encoder.fingerprint(),
                "embed_dim": encoder.dim,
                "similarity_fn_name": ScoringFunction.COSINE,
                "languages": None,
                "modalities": ["text"],
            }
        )

    def encode(
        self,
        inputs,
        *,
        task_metadata,
        hf_split: str,
        hf_subset: str,
        prompt_type=None,
        **kwargs: Any,
    ) -> np.ndarray:
        """Every text of mteb's batches (a DataLoader of ``{"text": [...]}``), embedded;
        prompts and instructions do not apply to sentspace's encoders."""
        texts = [text for batch in inputs for text in batch["text"]]
        matrix = self.model.encode(texts)
        dense = matrix if isinstance(matrix, np.ndarray) else matrix.toarray()
        return np.asarray(dense, dtype=np.float32)

    def __repr__(self) -> str:
        return f"<MtebModel {ORGANISATION}/{self.model.name} (revision {self.model.fingerprint()})>"
