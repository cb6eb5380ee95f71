"""Sentence encoders ("models", as the papers call them), behind :class:`sentspace.models.base.Encoder`.

Heavy libraries (gensim, pyarrow, torch, sentence-transformers) are imported only when an
encoder first loads or trains its model, so importing this package stays cheap for the
GUI. The transformer and multilingual-e5 families are listed even when their optional
extras are not installed: their ``available()`` says whether they can be used.
"""

from __future__ import annotations

if __name__ == "models":
    # Imported by its folder's name (from the repository's root): the code imports itself
    # as sentspace.models, and two copies of one module would disagree.
    raise ImportError(
        "sentspace's models is imported as sentspace.models, e.g. "
        "`from sentspace.models import make_encoder`"
    )

import inspect
from collections.abc import Callable
from pathlib import Path

from sentspace.models.base import Embeddings, Encoder, ModelError, NotFittedError, TrainsOnFile
from sentspace.models.bow import BagOfWords, TfIdf
from sentspace.models.captionrep import CaptionRep, CaptionRepRNN
from sentspace.models.dictrep import DictRepBOW, DictRepRNN
from sentspace.models.doc2vec import Doc2VecDBOW, Doc2VecDM
from sentspace.models.e5 import MultilingualE5
from sentspace.models.fastsent import FastSent, FastSentAE
from sentspace.models.neural import NeuralEncoder
from sentspace.models.nmt import NMT
from sentspace.models.pair_finetune import PairFinetune
from sentspace.models.pairs import PairBOW, PairRNN
from sentspace.models.pca_bow import PcaBagOfWords
from sentspace.models.random_bow import RandomBagOfWords
from sentspace.models.sequence import (
    CombineSkip,
    DenoisingAutoencoder,
    DenoisingAutoencoderGlove,
    SequentialAutoencoder,
    SkipThought,
)
from sentspace.models.sidecar import read_sidecar
from sentspace.models.transformer import SentenceTransformerEncoder
from sentspace.models.urae import URAE
from sentspace.models.word2vec import (
    FastTextEncoder,
    GensimEncoder,
    Word2VecEncoder,
    read_training_text,
)
from sentspace.models.word_vectors import Coverage, WordVectorMean, WordVectorSum

#: Encoder families by the name the CLI's ``--encoder`` and the GUI's choice use; each
#: class is constructible with no arguments (its default parameters).
ENCODERS: dict[str, type[Encoder]] = {
    cls.family: cls
    for cls in (
        BagOfWords,
        TfIdf,
        PcaBagOfWords,
        RandomBagOfWords,
        WordVectorMean,
        WordVectorSum,
        Doc2VecDM,
        Doc2VecDBOW,
        Word2VecEncoder,
        FastTextEncoder,
        SentenceTransformerEncoder,
        MultilingualE5,
        FastSent,
        FastSentAE,
        DictRepBOW,
        DictRepRNN,
        CaptionRep,
        CaptionRepRNN,
        SequentialAutoencoder,
        DenoisingAutoencoder,
        DenoisingAutoencoderGlove,
        SkipThought,
        CombineSkip,
        PairBOW,
        PairRNN,
        PairFinetune,
        URAE,
        NMT,
    )
}
DEFAULT_ENCODER = "bow"

#: ``--encoder`` prefixes that name a user's word-vector file: ``path:<file>`` composes
#: by the mean (the usual choice), ``path-sum:<file>`` by the sum.
PATH_PREFIXES: dict[str, type[WordVectorMean | WordVectorSum]] = {
    cls.path_prefix: cls for cls in (WordVectorMean, WordVectorSum)
}


#: ``--encoder`` prefix that names a local sentence-transformers model folder.
MODEL_DIR_PREFIX = SentenceTransformerEncoder.path_prefix


#: Trained families (PyTorch and gensim) that ``<family>:<file>`` trains on that file:
#: their classes, each called with ``training_file=`` (not CaptionRep, which always
#: trains on Multi30K's captions).
TRAINED_ON_FILE: dict[str, Callable[..., Encoder]] = {
    name: cls
    for name, cls in ENCODERS.items()
    if issubclass(cls, TrainsOnFile) and "training_file" in inspect.signature(cls).parameters
}


def make_encoder(spec: str) -> Encoder:
    """A new encoder from a CLI spec: a family name, ``path:<file>`` / ``path-sum:<file>``,
    ``st:<folder>`` (a sentence-transformers model folder), or ``<family>:<file>`` for a
    trained family (PyTorch or gensim) trained on that file (e.g. ``fastsent:speeches.txt``,
    ``word2vec:speeches.txt``). Any of them may end in ``?name=value&...``, constructor
    parameters of the family (``nmt:en-de?epochs=1&max_pairs=5000``), each read as the
    type of its default.

    Raises
    ------
    ModelError
        The name is unknown, the file does not exist, the folder is not a
        sentence-transformers model, or the transformers extra is not installed. Files
        are read only when the encoder is first used.
    """
    spec, question, query = spec.partition(PARAMS_MARK)
    if question:
        return with_params(make_encoder(spec), query)
    if spec.startswith(MODEL_DIR_PREFIX):
        return SentenceTransformerEncoder(model=spec[len(MODEL_DIR_PREFIX) :])
    if spec.startswith(PairFinetune.path_prefix):
        return PairFinetune(base=spec[len(PairFinetune.path_prefix) :])
    family, colon, training_file = spec.partition(":")
    if colon and family in TRAINED_ON_FILE:
        return TRAINED_ON_FILE[family](training_file=training_file)
    if colon and family in ENCODERS:
        raise ModelError(
            f"{family} trains on no file of yours ({family}:FILE is for "
            f"{', '.join(TRAINED_ON_FILE)}); give parameters after "
            f"'{PARAMS_MARK}': {family}{PARAMS_MARK}name=value"
        )
    for prefix, cls in PATH_PREFIXES.items():
        if spec.startswith(prefix):
            path = Path(spec[len(prefix) :]).expanduser()
            if not path.is_file():
                raise ModelError("no such word-vector file", path)
            return cls(source=str(path))
    try:
        return ENCODERS[spec]()
    except KeyError:
        known = ", ".join(
            [
                *ENCODERS,
                *(f"{prefix}<file>" for prefix in PATH_PREFIXES),
                f"{MODEL_DIR_PREFIX}<model folder>",
                "<trained family>:<file>",
            ]
        )
        raise ModelError(f"unknown encoder {spec!r} (known: {known})") from None


#: What begins a spec's parameters: ``nmt:en-de?epochs=1``.
PARAMS_MARK = "?"


def with_params(encoder: Encoder, query: str) -> Encoder:
    """``encoder`` rebuilt with the parameters of ``query`` (``name=value&...``), each
    value read as the type of the parameter's default (bool: true/false/1/0; a default
    of None: an int, a float or the text).

    Raises
    ------
    ModelError
        A part is not ``name=value``, the family has no such parameter, or a value is
        not of its type.
    """
    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(type(encoder).__init__).parameters.items()
        if name in encoder.params()
    }
    params = encoder.params()
    for part in query.split("&"):
        name, equals, text = part.partition("=")
        if not equals or not name:
            raise ModelError(f"{part!r} in the spec's parameters is not name=value")
        if name not in defaults:
            raise ModelError(
                f"{encoder.family} has no parameter {name!r} (its parameters: "
                f"{', '.join(defaults)})"
            )
        params[name] = _parameter_value(name, text, defaults[name])
    return type(encoder)(**params)


_KIND_WORDS = {int: "a whole number", float: "a number", str: "text"}


def _parameter_value(name: str, text: str, default: object) -> object:
    if isinstance(default, bool):
        if text.lower() not in ("true", "false", "1", "0"):
            raise ModelError(f"{name} is true or false, not {text!r}")
        return text.lower() in ("true", "1")
    kinds = (type(default),) if isinstance(default, (int, float, str)) else (int, float, str)
    for kind in kinds:
        try:
            return kind(text)
        except ValueError:
            continue
    raise ModelError(f"{name} takes {_KIND_WORDS[type(default)]}, not {text!r}")


def load_trained(path: str | Path) -> Encoder:
    """A trained model that :meth:`Encoder.save` wrote, of the family its sidecar names.

    Raises
    ------
    ModelError
        No sentspace sidecar beside the file, or the file differs from it (see
        :meth:`Encoder.load`); model files are never unpickled.
    """

    path = Path(path).expanduser()
    if not path.is_file():
        raise ModelError("no such model file", path)
    cls = ENCODERS.get(read_sidecar(path)["family"])
    if cls is None:
        raise ModelError("the sidecar names no sentspace family", path)
    return cls.load(path)


__all__ = [
    "DEFAULT_ENCODER",
    "ENCODERS",
    "MODEL_DIR_PREFIX",
    "PATH_PREFIXES",
    "Coverage",
    "Embeddings",
    "Encoder",
    "GensimEncoder",
    "ModelError",
    "NeuralEncoder",
    "NotFittedError",
    "SentenceTransformerEncoder",
    "TRAINED_ON_FILE",
    "load_trained",
    "make_encoder",
    "read_training_text",
]
