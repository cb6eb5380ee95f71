"""Models trained on the user's text with gensim, and Word2Vec / fastText among them.

:class:`GensimEncoder` holds what every trained family shares: training on the texts
given to ``fit`` one epoch per ``train()`` call (so the job yields progress per epoch and
cancels between epochs), the fingerprint (parameters with the seed, training-corpus hash,
trained weights) and what saving needs: the arrays that encoding reads and the
vocabulary, through :mod:`sentspace.models.sidecar`, never gensim's native files (pickles, which
run code when loaded).

Word2Vec and fastText then feed their word vectors to the mean/sum composition of
:mod:`sentspace.models.word_vectors` (the same sparse product, coverage report and zero-vector
count as pretrained vectors); fastText also builds vectors for words it never saw from
their character n-grams. Doc2Vec is in :mod:`sentspace.models.doc2vec`.

Training is repeatable with ``workers=1`` (the default) and a fixed ``seed``; more
workers train faster but interleave updates nondeterministically, which the
fingerprint follows because it hashes the trained weights.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import zlib
from abc import abstractmethod
from collections.abc import Sequence
from operator import attrgetter
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np

from sentspace.app.base.jobs import Job, Progress, run_job
from sentspace.models.base import (
    Embeddings,
    Encoder,
    ModelError,
    NotFittedError,
    TrainsOnFile,
    WordParts,
    require_at_least_one,
)
from sentspace.models.tokenize import tokenize
from sentspace.models.word_vectors import Coverage, WordVectorTable, _Tally, _WordVectorEncoder

log = logging.getLogger(__name__)


def read_text_lines(path: str | Path) -> list[str]:
    """Every line of a plain UTF-8 text file, stripped (blank ones included, so index
    ``i`` is line ``i + 1``). A gzip file (known by its magic bytes, whatever its name,
    as Multi30K's ``train.cs.gz``) is read decompressed.

    Raises
    ------
    ModelError
        The file is missing, a folder, a broken gzip file, binary or not UTF-8 (with the
        line).
    """
    path = Path(path).expanduser()
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise ModelError("is a folder, not a text file of training sentences", path) from None
    except OSError as error:
        raise ModelError(f"cannot read the training text: {error.strerror}", path) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise ModelError(f"not a readable gzip file ({error})", path) from None
    if b"\0" in data[: 1 << 16]:
        raise ModelError("binary data, not a plain text file (one sentence a line)", path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ModelError(
            f"not UTF-8 text (byte {error.start + 1:,} of the file)",
            path,
            data[: error.start].count(b"\n") + 1,
        ) from None
    return [line.strip() for line in text.splitlines()]


def read_training_text(path: str | Path, documents: bool = False) -> list[str]:
    """The sentences of a plain UTF-8 text file, one a line (blank lines skipped).

    With ``documents``, a run of blank lines between sentences stays as one empty string:
    the end of a document, for encoders that learn from neighbouring sentences.

    Raises
    ------
    ModelError
        As :func:`read_text_lines`, or the file has no non-blank line.
    """
    lines = read_text_lines(path)
    if documents:
        lines = [line for i, line in enumerate(lines) if line or (i and lines[i - 1])]
        while lines and not lines[-1]:
            lines.pop()
        while lines and not lines[0]:
            lines.pop(0)
    else:
        lines = [line for line in lines if line]
    if not lines:
        raise ModelError(
            "the file has no sentence (one sentence a line expected)", Path(path).expanduser()
        )
    return lines


def corpus_digest(texts: Sequence[str]) -> str:
    """Content hash of a list of sentences (order and boundaries included)."""
    h = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:16]


def train_epochs(model, corpus: list, epochs: int, stage: str) -> Job[None]:
    """Train a gensim model whose vocabulary is built, one epoch per ``train()`` call.

    Each call gets the learning rates at its epoch's ends of the linear schedule that a
    single ``train(epochs=epochs)`` call would follow (from ``model.alpha`` down to
    ``model.min_alpha``), and gensim draws its random numbers from the model's own
    generator, which carries over between calls, so the weights equal a single call's
    bit for bit (tested). Yields ``Progress(stage, epoch, epochs)`` after each epoch.
    """
    start, end = model.alpha, model.min_alpha
    for epoch in range(epochs):
        model.train(
            corpus,
            total_examples=model.corpus_count,
            epochs=1,
            start_alpha=start - (start - end) * epoch / epochs,
            end_alpha=start - (start - end) * (epoch + 1) / epochs,
        )
        yield Progress(stage, epoch + 1, epochs)
    # train() overwrote these with the last epoch's values; later inference reads them.
    model.alpha, model.min_alpha, model.epochs = start, end, epochs


class GensimEncoder(TrainsOnFile, Encoder):
    """A sentence encoder trained with gensim on the texts given to ``fit``, or on
    ``training_file``.

    Subclasses create the gensim model (:meth:`_new_model`), shape the training corpus
    and name the weight arrays that the fingerprint hashes.

    Parameters
    ----------
    vector_size : int
        Dimension of the trained vectors.
    window : int
        Context words on each side.
    min_count : int
        Words rarer than this in the training text get no vector.
    epochs : int
        Passes over the training text.
    lowercase : bool
        Lowercase before tokenising (training and encoding alike).
    seed : int
        Seeds gensim's initial weights and sampling.
    workers : int
        Training threads; 1 keeps training repeatable.
    training_file : str or None
        Train on this text file's sentences, one a line (:func:`read_training_text`),
        instead of the texts given to ``fit``; evaluations then fit it once, not in each
        training fold.
    """

    requires_fit = True
    #: The trained model's arrays that encoding reads (attribute paths), saved by
    #: :meth:`save` with the vocabulary.
    saved_arrays: ClassVar[tuple[str, ...]] = ("wv.vectors",)

    def __init__(
        self,
        vector_size: int = 100,
        window: int = 5,
        min_count: int = 2,
        epochs: int = 20,
        lowercase: bool = True,
        seed: int = 0,
        workers: int = 1,
        training_file: str | None = None,
    ):
        self.vector_size, self.window, self.min_count, self.epochs, self.workers = (
            require_at_least_one(
                vector_size=vector_size,
                window=window,
                min_count=min_count,
                epochs=epochs,
                workers=workers,
            )
        )
        self.lowercase = bool(lowercase)
        self.seed = int(seed)
        self._take_training_file(training_file)
        #: The trained gensim model (gensim has no type annotations).
        self.model_: Any = None
        #: Hash of the training sentences, and how many there were.
        self.corpus_fingerprint_: str | None = None
        self.n_training_sentences_ = 0
        self.coverage_: Coverage | None = None
        self._tally: _Tally | None = None
        self._weights_digest: str | None = None

    def _gensim_params(self) -> dict[str, Any]:
        return {
            "vector_size": self.vector_size,
            "window": self.window,
            "min_count": self.min_count,
            "epochs": self.epochs,
            "seed": self.seed,
            "workers": self.workers,
        }

    @property
    def name(self) -> str:
        # Encoder's name, not _WordVectorEncoder's (next in a subclass's MRO). mypy
        # types a property read from its class as the getter function.
        return Encoder.name.fget(self)  # type: ignore[attr-defined]

    @property
    def dim(self) -> int:
        return self.vector_size

    @abstractmethod
    def _new_model(self):
        """An untrained gensim model with this encoder's parameters."""

    def _training_corpus(self, token_lists: list[list[str]]) -> list:
        """What gensim trains on, from the tokenised training sentences."""
        return token_lists

    @abstractmethod
    def _weights(self) -> list[np.ndarray]:
        """The trained arrays that determine the output (hashed into the fingerprint)."""

    def _use_model(self, model) -> None:
        """Take a trained model (just trained or loaded); subclasses derive from it."""
        self.model_ = model
        h = hashlib.sha256()
        for array in self._weights():
            h.update(np.ascontiguousarray(array).tobytes())
        self._weights_digest = h.hexdigest()[:16]

    def iter_fit(self, texts: Sequence[str]) -> Job[Self]:
        """Train on ``texts`` (on ``training_file``'s sentences when set) with progress per
        epoch; closing the job stops between epochs.

        The encoder stays as it was (unfitted, or with its earlier model) unless training
        runs to the end.

        Raises
        ------
        ModelError
            The training file is unreadable, the texts have no word, or no word occurs
            ``min_count`` times.
        """
        source = f"{len(texts):,} sentences"
        if self.training_file is not None:
            yield Progress(f"reading {Path(self.training_file).name}", 0, 1)
            texts = read_training_text(self.training_file)
            source = f"{Path(self.training_file).name} ({len(texts):,} sentences)"
        texts = list(texts)
        token_lists = [tokenize(text, self.lowercase) for text in texts]
        if not any(token_lists):
            raise ModelError(
                f"the training corpus is empty: none of its {len(texts):,} sentences has a word"
            )
        yield Progress(f"building the vocabulary of {self.name}", 0, self.epochs)
        corpus = self._training_corpus(token_lists)
        model = self._new_model()
        model.build_vocab(corpus)
        if not model.wv.key_to_index:
            raise ModelError(
                f"no word occurs at least min_count={self.min_count} times in "
                f"the {len(texts):,} training sentences"
            )
        yield from train_epochs(
            model, corpus, self.epochs, f"training {self.name} on {source} (epochs)"
        )
        self._use_model(model)
        self.corpus_fingerprint_ = corpus_digest(texts)
        self.n_training_sentences_ = len(texts)
        return self

    def fit(self, texts: Sequence[str]) -> Self:
        """Train on ``texts`` in this thread; see :meth:`iter_fit`."""
        return run_job(self.iter_fit(texts))

    def _fitted_state(self) -> str | None:
        if self.model_ is None:
            return None
        return f"{self.corpus_fingerprint_}-{self._weights_digest}"

    def iter_encode(self, texts: Sequence[str]) -> Job[Embeddings]:
        """Encode ``texts``, then set ``coverage_`` and log a warning for zero vectors."""
        if not self.is_fitted:
            raise NotFittedError(f"{self.name} must be fitted before encoding")
        # One encode at a time per instance: the tally lives on self between batches.
        self._tally = _Tally()
        # Encoder's batching, past _WordVectorEncoder's, which loads a vector file.
        matrix = yield from Encoder.iter_encode(self, texts)
        self.coverage_, self._tally = self._tally.coverage(), None
        if self.coverage_.zero_rows:
            log.warning("%s: %s", self.name, self.coverage_.message())
        return matrix

    def report(self) -> dict[str, Any] | None:
        return self.coverage_.to_dict() if self.coverage_ is not None else None

    def restore_report(self, report: dict[str, Any]) -> None:
        self.coverage_ = Coverage.from_dict(report)

    # Saving (models.sidecar): the arrays that encoding reads, never gensim's own file,
    # which is a pickle and would run code when loaded.

    def _saved_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        import gensim

        wv = self.model_.wv
        arrays = {name: attrgetter(name)(self.model_) for name in self.saved_arrays}
        # Per-word counts and downsampling thresholds (Doc2Vec's inference reads them).
        arrays.update({f"wv.expandos.{key}": value for key, value in wv.expandos.items()})
        return arrays, {
            "words": list(wv.index_to_key),
            "corpus_fingerprint": self.corpus_fingerprint_,
            "n_training_sentences": self.n_training_sentences_,
            "gensim": gensim.__version__,
        }

    def _restore_saved(self, arrays: dict[str, np.ndarray], fields: dict[str, Any]) -> None:
        model = self._new_model()
        words = [str(word) for word in fields["words"]]
        model.wv.index_to_key = words
        model.wv.key_to_index = {word: i for i, word in enumerate(words)}
        for name in self.saved_arrays:
            owner, _, attribute = name.rpartition(".")
            setattr(attrgetter(owner)(model) if owner else model, attribute, arrays[name])
        model.wv.expandos = {
            name.removeprefix("wv.expandos."): array
            for name, array in arrays.items()
            if name.startswith("wv.expandos.")
        }
        if len(model.wv.vectors) != len(words):
            raise ValueError(f"{len(model.wv.vectors)} word vectors for {len(words)} words")
        self._use_model(model)
        self.corpus_fingerprint_ = fields["corpus_fingerprint"]
        self.n_training_sentences_ = int(fields["n_training_sentences"])


class _TrainedWordVectors(GensimEncoder, _WordVectorEncoder):
    """Word vectors trained on the user's text, composed like pretrained ones.

    Subclasses pick the algorithm; composition is :class:`_WordVectorEncoder`'s.
    """

    batch_size = 2048
    #: Always set (the pretrained vectors' None, "as the vectors are", is not offered).
    lowercase: bool

    params_after = "epochs"

    def __init__(self, composition: str = "mean", sg: bool = False, **gensim: Any):
        if composition not in ("mean", "sum"):
            raise ModelError(f"composition must be 'mean' or 'sum', not {composition!r}")
        GensimEncoder.__init__(self, **gensim)
        self.composition = composition
        self.sg = bool(sg)
        self._table: WordVectorTable | None = None

    @property
    def divide_by_count(self) -> bool:
        return self.composition == "mean"

    @property
    def table(self) -> WordVectorTable:
        assert self._table is not None, "read only once fitted"
        return self._table

    def _use_model(self, model) -> None:
        super()._use_model(model)
        assert self._weights_digest is not None, "set by GensimEncoder._use_model"
        wv = model.wv
        self._table = WordVectorTable(
            wv.key_to_index, np.ascontiguousarray(wv.vectors), self.lowercase, self._weights_digest
        )


class Word2VecEncoder(_TrainedWordVectors):
    """Mean (or sum) of Word2Vec vectors trained on the texts given to ``fit``.

    Parameters
    ----------
    vector_size, window, min_count, epochs, lowercase, seed, workers, training_file
        As in :class:`GensimEncoder`.
    composition : {"mean", "sum"}
        Compose a sentence by the mean or the sum of its known words' vectors.
    sg : bool
        Skip-gram (True) or CBOW (False).
    """

    family = "word2vec"
    title = "Word2Vec trained on your text (mean of word vectors)"

    def _new_model(self):
        from gensim.models import Word2Vec

        return Word2Vec(sg=int(self.sg), **self._gensim_params())

    def _weights(self) -> list[np.ndarray]:
        return [self.model_.wv.vectors]


class FastTextEncoder(_TrainedWordVectors):
    """Mean (or sum) of fastText vectors trained on the texts given to ``fit``.

    Words never seen in training get a vector from their character n-grams, so they
    count as known in ``coverage_``.

    Parameters
    ----------
    vector_size, window, min_count, epochs, composition, sg, lowercase, seed, workers,
    training_file
        As in :class:`Word2VecEncoder`.
    min_n, max_n : int
        Lengths of the character n-grams.
    buckets : int
        Rows of the hashed n-gram table (gensim's default, 2,000,000, would take
        ``8 * vector_size`` MB for a corpus of a few thousand sentences).
    """

    family = "fasttext"
    title = "fastText trained on your text (mean of word vectors)"
    saved_arrays = ("wv.vectors", "wv.vectors_vocab", "wv.vectors_ngrams")

    params_after = "sg"

    def __init__(self, min_n: int = 3, max_n: int = 6, buckets: int = 100_000, **word2vec: Any):
        super().__init__(**word2vec)
        if not 1 <= min_n <= max_n or buckets < 1:
            raise ModelError(
                f"need 1 <= min_n <= max_n and buckets >= 1, not min_n={min_n}, "
                f"max_n={max_n}, buckets={buckets}"
            )
        self.min_n, self.max_n, self.buckets = int(min_n), int(max_n), int(buckets)
        self._vocabulary_table: WordVectorTable | None = None

    def _new_model(self):
        from gensim.models import FastText

        return FastText(
            sg=int(self.sg),
            min_n=self.min_n,
            max_n=self.max_n,
            bucket=self.buckets,
            **self._gensim_params(),
        )

    def _weights(self) -> list[np.ndarray]:
        return [self.model_.wv.vectors_vocab, self.model_.wv.vectors_ngrams]

    def _use_model(self, model) -> None:
        super()._use_model(model)
        self._vocabulary_table = self._table

    def _add_ngram_vectors(self, texts: Sequence[str]) -> None:
        """Give the out-of-vocabulary words of ``texts`` their n-gram vectors in the
        table, until it is reset to ``_vocabulary_table``."""
        base = self._vocabulary_table
        assert base is not None, "called only once fitted"
        new = sorted(
            {
                token
                for text in texts
                for token in tokenize(text, self.lowercase)
                if token not in base.index
            }
        )
        extra = self.model_.wv[new] if new else np.zeros((0, self.dim), np.float32)
        # A word with no n-gram in the table gets a zero vector: it stays unknown.
        has_ngrams = np.asarray(extra.any(axis=1))
        new = [word for word, keep in zip(new, has_ngrams) if keep]
        if new:
            index = {**base.index, **{word: len(base.index) + i for i, word in enumerate(new)}}
            vectors = np.vstack([base.vectors, extra[has_ngrams]])
            self._table = WordVectorTable(index, vectors, base.lowercased, base.digest)

    def iter_encode(self, texts: Sequence[str]) -> Job[Embeddings]:
        """Encode ``texts``, giving their out-of-vocabulary words n-gram vectors first."""
        if self.is_fitted:
            texts = list(texts)
            self._add_ngram_vectors(texts)
        try:
            return (yield from super().iter_encode(texts))
        finally:
            self._table = self._vocabulary_table

    def word_parts(self, text: str) -> WordParts:
        """As for other word vectors, with n-gram vectors for out-of-vocabulary words."""
        self._add_ngram_vectors([text])
        try:
            return super().word_parts(text)
        finally:
            self._table = self._vocabulary_table
