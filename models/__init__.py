"""Sentence encoders ("models", as the papers call them), behind :class:`models.base.Encoder`.

Heavy libraries (gensim, pyarrow) are imported only when an encoder first loads its
vectors, so importing this package stays cheap for the GUI.
"""

from __future__ import annotations

from pathlib import Path

from models.base import Embeddings, Encoder, ModelError, NotFittedError
from models.bow import BagOfWords, TfIdf
from models.pca_bow import PcaBagOfWords
from models.random_bow import RandomBagOfWords
from models.word_vectors import Coverage, WordVectorMean, WordVectorSum

#: Encoder families by the name the CLI's ``--encoder`` and the GUI's choice use; each
#: class is constructible with no arguments (its default parameters).
ENCODERS: dict[str, type[Encoder]] = {
    cls.family: cls for cls in (BagOfWords, TfIdf, PcaBagOfWords, RandomBagOfWords,
                                WordVectorMean, WordVectorSum)}
DEFAULT_ENCODER = "bow"

#: ``--encoder`` prefixes that name a user's word-vector file: ``path:<file>`` composes
#: by the mean (the usual choice), ``path-sum:<file>`` by the sum.
PATH_PREFIXES: dict[str, type[Encoder]] = {
    cls.path_prefix: cls for cls in (WordVectorMean, WordVectorSum)}


def make_encoder(spec: str) -> Encoder:
    """A new encoder from a CLI spec: a family name, or ``path:<file>`` / ``path-sum:<file>``.

    Raises
    ------
    ModelError
        The name is unknown or the file does not exist. The file is read only when the
        encoder is first used.
    """
    for prefix, cls in PATH_PREFIXES.items():
        if spec.startswith(prefix):
            path = Path(spec[len(prefix):]).expanduser()
            if not path.is_file():
                raise ModelError("no such word-vector file", path)
            return cls(source=str(path))
    try:
        return ENCODERS[spec]()
    except KeyError:
        known = ", ".join([*ENCODERS, *(f"{prefix}<file>" for prefix in PATH_PREFIXES)])
        raise ModelError(f"unknown encoder {spec!r} (known: {known})") from None


__all__ = ["DEFAULT_ENCODER", "ENCODERS", "PATH_PREFIXES", "Coverage", "Embeddings",
           "Encoder", "ModelError", "NotFittedError", "make_encoder"]
