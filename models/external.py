"""A user's own model or array as an encoder, for the Python API.

:class:`ExternalModel` wraps any object with ``encode(list[str], **kwargs) -> array``
(a ``SentenceTransformer``, a model following MTEB's ``encode`` protocol, a class of the
user's own); :class:`ArrayEmbeddings` wraps an array already computed for a corpus, one
row per sentence. Both are plain :class:`~sentspace.models.base.Encoder` subclasses, so
every evaluation, the neighbours and the cache take them as they take a family.

An object's output is cached only where its version can be known: from the fingerprint
the user gives, or by hashing a torch module's weights (``state_dict``); any other object
is encoded afresh on every run, since nothing tells when it changes.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import sys
from collections.abc import Sequence
from typing import Any, Self

import numpy as np
import scipy.sparse as sp

from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder, ModelError, content_hash
from sentspace.models.precomputed import Precomputed


class EmbeddingsError(ModelError, ValueError):
    """A user's model or array cannot be used as embeddings (what, and why)."""


def check_matrix(value: Any, argument: str, rows: int) -> Embeddings:
    """``value`` as float32 embeddings (dense, or CSR when sparse) of exactly ``rows``
    rows, finite, one numeric dtype; :class:`EmbeddingsError` naming ``argument``
    otherwise."""
    if isinstance(value, (str, bytes, list, tuple)) or not (
        sp.issparse(value) or hasattr(value, "__array__") or hasattr(value, "detach")
    ):
        raise EmbeddingsError(
            f"{argument}: expected an array of shape (sentences, "
            f"dimensions), not a {type(value).__name__}"
        )
    if hasattr(value, "detach"):  # a torch tensor, maybe on a GPU
        value = value.detach().float().cpu().numpy()
    matrix: Embeddings = sp.csr_array(value) if sp.issparse(value) else np.asarray(value)
    if not np.issubdtype(matrix.dtype, np.number) or np.issubdtype(
        matrix.dtype, np.complexfloating
    ):
        raise EmbeddingsError(
            f"{argument}: values are {matrix.dtype}, not one real number type (an array of arrays?)"
        )
    if matrix.ndim != 2:
        raise EmbeddingsError(
            f"{argument}: expected 2 dimensions (sentences, dimensions), found shape {matrix.shape}"
        )
    if matrix.shape[0] != rows:
        raise EmbeddingsError(
            f"{argument}: {matrix.shape[0]} rows for {rows} sentences "
            f"(one row per sentence, in order)"
        )
    if matrix.shape[1] == 0:
        raise EmbeddingsError(f"{argument}: rows of no dimensions (shape {matrix.shape})")
    if isinstance(matrix, np.ndarray):
        finite = np.isfinite(matrix).all(axis=1)
        first_bad = int(np.argmin(finite))
    else:
        finite = np.isfinite(matrix.data)
        first_bad = int(np.searchsorted(matrix.indptr, np.argmin(finite), side="right")) - 1
    if not finite.all():
        raise EmbeddingsError(f"{argument}: row {first_bad} holds NaN or infinity")
    return matrix.astype(np.float32, copy=False)


def _weights_hash(model: Any) -> str | None:
    """A hash of a torch module's weights and buffers (None: not a torch module)."""
    torch = sys.modules.get("torch")  # a torch module means torch is imported already
    if torch is None or not isinstance(model, torch.nn.Module):
        return None
    h = hashlib.sha256(type(model).__qualname__.encode())
    for name, tensor in model.state_dict().items():
        h.update(f"{name} {tuple(tensor.shape)} {tensor.dtype}".encode())
        # The raw bytes, whatever the dtype (bfloat16 has no numpy type).
        h.update(tensor.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy())
    return h.hexdigest()[:16]


def model_name(model: Any) -> str:
    """What to call a user's model: its ``name`` attribute, the model a
    sentence-transformers model was loaded from, else its class's name."""
    name = getattr(model, "name", None)
    if isinstance(name, str) and name:
        return name
    base = getattr(getattr(model, "model_card_data", None), "base_model", None)
    if isinstance(base, str) and base:
        return base
    return type(model).__name__


class ExternalModel(Encoder):
    """Any object with ``encode(list[str], **kwargs) -> array`` as an encoder.

    Parameters
    ----------
    model : the object; its ``encode`` gets the sentences as a list, and ``batch_size``
        / ``device`` when set here and its signature takes them.
    name : what results call it (default :func:`model_name`).
    fingerprint : a string naming this version of the model (weights, settings): the
        cache keeps its embeddings under it. Default: a hash of a torch module's
        weights; other objects are then not cached.
    batch_size, device : passed on to ``model.encode``.
    prompt : text its ``encode`` puts before each sentence (sentence-transformers'
        ``prompt``): part of the fingerprint, as it changes the output.
    """

    family = "external"
    title = "Your own model"
    #: Sentences per call of ``model.encode`` (and per progress report).
    batch_size = 1024

    def __init__(
        self,
        model: Any,
        name: str | None = None,
        fingerprint: str | None = None,
        batch_size: int | None = None,
        device: str | None = None,
        prompt: str | None = None,
    ):
        if not callable(getattr(model, "encode", None)):
            raise EmbeddingsError(
                f"a {type(model).__name__} has no encode method (encode(list of str) -> array)"
            )
        self.model = model
        self.label = name or model_name(model)
        self.version = fingerprint if fingerprint is not None else _weights_hash(model)
        # Unknown version: never cached, so a changed model never reads stale rows.
        self.cacheable = self.version is not None
        self.model_batch_size, self.device, self.prompt = batch_size, device, prompt
        accepted = inspect.signature(model.encode).parameters
        takes_any = any(p.kind is p.VAR_KEYWORD for p in accepted.values())
        self._options: dict[str, Any] = {}
        for option, value in (("batch_size", batch_size), ("device", device), ("prompt", prompt)):
            if value is None:
                continue
            if option not in accepted and not takes_any:
                raise EmbeddingsError(f"{self.label}.encode takes no {option}")
            self._options[option] = value
        if "show_progress_bar" in accepted:  # sentspace reports progress itself
            self._options["show_progress_bar"] = False
        self._dim: int | None = None

    @property
    def name(self) -> str:
        return self.label

    def params(self) -> dict[str, Any]:
        # The object itself is not serialisable: its name and version stand for it.
        return {
            "model": self.label,
            "class": type(self.model).__qualname__,
            "fingerprint": self.version,
            **({"prompt": self.prompt} if self.prompt is not None else {}),
        }

    def configured(self, batch_size: int | None = None, device: str | None = None) -> Self:
        """A copy that passes ``batch_size`` and ``device`` on to ``model.encode``."""
        if super().configured(batch_size, device) is self:  # checked there
            return self
        return type(self)(
            self.model,
            name=self.label,
            fingerprint=self.version,
            batch_size=batch_size or self.model_batch_size,
            device=device or self.device,
            prompt=self.prompt,
        )

    def clone(self) -> ExternalModel:
        """Itself: nothing is fitted here, and the object is the user's."""
        return self

    def fingerprint(self) -> str:
        payload = json.dumps({"family": self.family, "params": self.params()}, sort_keys=True)
        if self.version is None:
            # Distinct per wrapped object, so nothing keyed on it is ever shared.
            payload += f" object {id(self.model)}"
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = self._reported_dim() or self._encode_batch(["a sentence"]).shape[1]
        return self._dim

    def _reported_dim(self) -> int | None:
        """The dimension the model reports (sentence-transformers' getters), if any."""
        for getter in ("get_embedding_dimension", "get_sentence_embedding_dimension"):
            get = getattr(self.model, getter, None)
            if callable(get) and get() is not None:
                return int(get())
        return None

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        output = self.model.encode(texts, **self._options)
        matrix = check_matrix(output, f"{self.label}.encode", len(texts))
        self._dim = matrix.shape[1]
        return matrix


class ArrayEmbeddings(Precomputed):
    """An array of embeddings in memory, one row per sentence of ``corpus`` in order
    (checked by :func:`check_matrix`): :class:`Precomputed` without a file."""

    def __init__(
        self, vectors: Any, corpus: Corpus, name: str = "array", argument: str = "embeddings"
    ):
        self.vectors = check_matrix(vectors, argument, len(corpus))
        self.corpus = corpus
        self.label = name
        self.rows, self.aligned_by, self.in_order = np.arange(len(corpus)), "row", True
        self.file_hash = content_hash(self.vectors)
        self._row_of_text_cache = None

    @property
    def name(self) -> str:
        return self.label

    def params(self) -> dict[str, Any]:
        return {
            "array": self.label,
            "shape": list(self.vectors.shape),
            "content_hash": self.file_hash,
        }

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        try:
            rows = [self._row_of_text[text] for text in texts]
        except KeyError as missing:
            raise EmbeddingsError(
                f"{self.label} has no row for the sentence "
                f"{str(missing)[:80]} (an array holds the corpus's "
                f"sentences only)"
            ) from None
        if sp.issparse(self.vectors):
            return sp.csr_array(self.vectors[rows], dtype=np.float32)
        return np.asarray(self.vectors[rows], dtype=np.float32).reshape(len(rows), self.dim)
