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

from sentspace.app.analysis.mteb_files import mteb_model_name
from sentspace.app.analysis.neighbours import pair_cosines
from sentspace.models.base import Encoder


class MtebModel(AbsEncoder):
    """``encoder`` (fitted: one that requires fitting must have been fitted) as an MTEB
    model named ``sentspace/<encoder name>``, filed under ``revision`` (default: the
    encoder's fingerprint; :func:`sentspace.mteb_model` gives
    :func:`~sentspace.app.analysis.mteb_files.mteb_revision`, the revision a result's
    ``to_mteb`` writes for the same encoder). Its embeddings are dense float32; pairs
    are compared by cosine computed as sentspace's relatedness computes it, so MTEB's
    STS ``spearman`` (the model's own similarity) is relatedness's Spearman."""

    def __init__(self, encoder: Encoder, revision: str | None = None):
        if not encoder.is_fitted:
            raise ValueError(
                f"encoder: {encoder.name} must be fitted first (give the "
                f"corpus to fit it on, or a trained file: FAMILY:FILE)"
            )
        self.model = encoder
        self.mteb_model_meta = ModelMeta.create_empty(
            overwrites={
                "name": mteb_model_name(encoder.name),
                "revision": revision or encoder.fingerprint(),
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
        task_metadata=None,
        hf_split: str | None = None,
        hf_subset: str | None = None,
        prompt_type=None,
        **kwargs: Any,
    ) -> np.ndarray:
        """The texts embedded, dense float32: mteb's batches (a DataLoader of ``{"text":
        [...]}``, with mteb's keyword arguments), a plain list of sentences (a matrix)
        or one sentence (a vector). ``batch_size`` is taken; prompts and instructions do
        not apply to sentspace's encoders."""
        if isinstance(inputs, str):
            texts: list[str] = [inputs]
        elif isinstance(inputs, (list, tuple)) and all(isinstance(t, str) for t in inputs):
            texts = list(inputs)
        else:
            texts = [text for batch in inputs for text in batch["text"]]
        matrix = np.asarray(self.model.encode(texts, batch_size=kwargs.get("batch_size")))
        return matrix[0] if isinstance(inputs, str) else matrix

    def similarity_pairwise(self, embeddings1, embeddings2) -> np.ndarray:
        """The cosine of each pair of rows, as relatedness computes it (float64, equal
        cosines tied exactly: :func:`~sentspace.app.analysis.neighbours.pair_cosines`)."""
        first, second = np.asarray(embeddings1), np.asarray(embeddings2)
        both = np.vstack([first, second])
        rows = np.arange(len(first))
        return pair_cosines(both, rows, rows + len(first))

    def __repr__(self) -> str:
        meta = self.mteb_model_meta
        return f"<MtebModel {meta.name} (revision {meta.revision})>"
