"""What the encoders trained with PyTorch share (FastSent, DictRep, S(D)AE, SkipThought).

:class:`NeuralEncoder` holds the training loop as a job (progress per batch, closing the
job stops at the next batch and leaves the encoder as it was), the vocabulary, seeding,
the device (CUDA when torch sees a GPU, else the CPU), the fingerprint (parameters,
training-text hash, trained weights) and what saving needs (the weights as arrays, the
vocabulary as sidecar fields; :mod:`sentspace.models.sidecar` writes and checks them).

A family trains on the texts given to ``fit`` (the corpus, or the GUI's *Train on* text)
or, when ``training_file`` is set (``--encoder FAMILY:FILE``), on that file, read with
the family's own reader so errors name the file and line; an encoder with a training
file does not learn from the corpus it encodes, so evaluations fit it once instead of
in every fold, and a process keeps the last few such trainings (:func:`_remembered`).

Repeatable: the initial weights come from ``torch.manual_seed(seed)`` inside a forked
random state, every draw while training (batch order, negative samples, noise) from
one ``torch.Generator`` seeded with ``seed``, and deterministic algorithms are switched
on while training. CPU and CUDA differ by float rounding; the fingerprint hashes the
trained weights, so it follows.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import json
import os
from abc import abstractmethod
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
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
    require_at_least_one,
)
from sentspace.models.tokenize import tokenize
from sentspace.models.word2vec import corpus_digest, read_training_text

INSTALL_HINT = "pip install 'sentspace[transformers]'"
#: Token ids every vocabulary starts with: padding, unknown word, sentence boundary.
PAD, UNK, BOUNDARY = 0, 1, 2
SPECIALS = ("<pad>", "<unk>", "<s>")
#: The training defaults most families keep: a family's :attr:`Encoder.defaults` spreads
#: these and names only what it changes.
TRAINING_DEFAULTS: dict[str, Any] = {
    "epochs": 2,
    "batch_sentences": 64,
    "learning_rate": 0.003,
    "min_count": 2,
    "max_vocab": 20_000,
}


def torch_available() -> bool:
    return importlib.util.find_spec("torch") is not None


def packed(embedded, lengths):
    """Padded embedded sentences (n, longest, dim) with their ``lengths`` (each >= 1),
    packed for a batch-first RNN."""
    import torch

    return torch.nn.utils.rnn.pack_padded_sequence(
        embedded, lengths.cpu(), batch_first=True, enforce_sorted=False
    )


def sentence_summary(embedded, lengths, rnn=None):
    """One vector per padded embedded sentence: the final state of ``rnn`` (an LSTM or
    GRU, batch first, one layer) over its ``lengths`` tokens, or without one the mean of
    its embeddings (padding embeds as zeros)."""
    if rnn is None:
        return embedded.sum(1) / lengths.unsqueeze(1).to(embedded.dtype)
    _, state = rnn(packed(embedded, lengths))
    return (state[0] if isinstance(state, tuple) else state)[-1]


@functools.cache
def device() -> str:
    """ "cuda" when torch sees a GPU, else "cpu"."""
    # cuBLAS repeats its sums only with a fixed workspace, which must be set before its
    # first handle exists (PyTorch's "Reproducibility" notes); torch reads it from here.
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """Words a model has embeddings for, most frequent first, after :data:`SPECIALS`.

    Parameters
    ----------
    words : tuple of str
        ``words[i]`` has id ``i + len(SPECIALS)``.
    counts : ndarray of shape (len(words),), int64
        Training-text frequency of each word (the noise distribution of sampled losses).
    """

    words: tuple[str, ...]
    counts: np.ndarray

    @functools.cached_property
    def index(self) -> dict[str, int]:
        return {word: i + len(SPECIALS) for i, word in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words) + len(SPECIALS)

    @classmethod
    def build(
        cls, token_lists: Sequence[Sequence[str]], min_count: int, max_size: int
    ) -> Vocabulary:
        """The ``max_size`` most frequent words seen ``min_count`` times (ties by word)."""
        counts = Counter(token for tokens in token_lists for token in tokens)
        kept = sorted(
            (item for item in counts.items() if item[1] >= min_count),
            key=lambda item: (-item[1], item[0]),
        )[:max_size]
        return cls(
            tuple(word for word, _ in kept), np.array([count for _, count in kept], dtype=np.int64)
        )

    def ids(self, tokens: Sequence[str], keep_unknown: bool) -> np.ndarray:
        """Ids of ``tokens``; unknown ones become :data:`UNK`, or are dropped."""
        get = self.index.get
        ids = np.fromiter((get(token, UNK) for token in tokens), np.int64, len(tokens))
        return ids if keep_unknown else ids[ids != UNK]

    def noise(self, power: float = 0.75):
        """Unigram^power distribution over the ids (zero for the specials), as a tensor."""
        import torch

        weights = np.zeros(len(self), dtype=np.float64)
        weights[len(SPECIALS) :] = self.counts.astype(np.float64) ** power
        return torch.as_tensor(weights / weights.sum(), dtype=torch.float32)


@dataclass(frozen=True)
class Ragged:
    """Sequences of token ids in one flat array: sequence ``i`` is
    ``ids[offsets[i]:offsets[i + 1]]``."""

    ids: np.ndarray
    offsets: np.ndarray

    @classmethod
    def of(cls, sequences: Sequence[np.ndarray]) -> Ragged:
        offsets = np.zeros(len(sequences) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in sequences], out=offsets[1:])
        ids = np.concatenate(sequences) if len(sequences) else np.zeros(0, np.int64)
        return cls(ids.astype(np.int64, copy=False), offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def take(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ids of ``rows`` concatenated, and for each id its position in ``rows``."""
        lengths = self.lengths[rows]
        owner = np.repeat(np.arange(len(rows)), lengths)
        starts = np.repeat(self.offsets[rows] - np.cumsum(lengths) + lengths, lengths)
        return self.ids[starts + np.arange(len(owner))], owner

    def padded(self, rows: np.ndarray, max_length: int | None = None) -> np.ndarray:
        """The sequences of ``rows`` (cut to ``max_length``) as a (len(rows), longest)
        matrix padded with :data:`PAD`."""
        lengths = self.lengths[rows]
        flat, owner = self.take(rows)
        position = np.arange(len(flat)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        if max_length is not None:
            keep = position < max_length
            flat, owner, position = flat[keep], owner[keep], position[keep]
        matrix = np.full((len(rows), int(position.max(initial=0)) + 1), PAD, np.int64)
        matrix[owner, position] = flat
        return matrix


def read_ordered_text(path: str | Path) -> list[str]:
    """Sentences in reading order, one a line; a blank line ends a document, which
    stays as an empty string between the documents' sentences."""
    return read_training_text(path, documents=True)


def documents_of(texts: Sequence[str]) -> np.ndarray:
    """The document of each non-empty text, where an empty text ends a document."""
    breaks = np.array([not text.strip() for text in texts], dtype=bool)
    return np.cumsum(breaks)[~breaks]


@contextlib.contextmanager
def seeded(seed: int):
    """Deterministic torch with ``seed`` inside, the caller's random state unchanged."""
    import torch

    deterministic = torch.are_deterministic_algorithms_enabled()
    with torch.random.fork_rng(
        devices=[torch.cuda.current_device()] if torch.cuda.is_available() else []
    ):
        torch.manual_seed(seed)
        torch.use_deterministic_algorithms(True, warn_only=True)
        try:
            yield
        finally:
            torch.use_deterministic_algorithms(deterministic)


def sampled_softmax_loss(hidden, targets, output, bias, noise, n_noise: int, generator):
    """Cross-entropy of ``targets`` over the batch's own target words plus ``n_noise``
    words drawn from ``noise`` (Jean et al. 2015's sampled softmax, without the
    sampling-probability correction: every candidate counts once).

    hidden : (n, d) states; targets : (n,) ids; output : (V, d) embedding; bias : (V,).
    """
    import torch

    drawn = torch.multinomial(noise, n_noise, replacement=True, generator=generator)
    candidates, position = torch.unique(
        torch.cat([targets, drawn.to(targets.device)]), return_inverse=True
    )
    logits = hidden @ output[candidates].T + bias[candidates]
    return torch.nn.functional.cross_entropy(logits, position[: len(targets)])


@contextlib.contextmanager
def cpu_threads(count: int | None):
    """torch's intra-op threads set to ``count`` inside, on the CPU (None: unchanged).

    A network of thousands of tiny operations per batch (URAE's tree steps) runs several
    times faster on one thread than on two that wait for each other on a busy machine."""
    import torch

    if count is None or device() != "cpu":
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


@functools.lru_cache(maxsize=4)
def _remembered(family: str, params: str, stamp: tuple[tuple[str, int, int], ...]):
    """A trained state per training file and parameters: evaluations clone and refit
    an encoder that trains on a file, which would otherwise train again each time."""
    return {}


class NeuralEncoder(TrainsOnFile, Encoder):
    """An encoder trained with PyTorch; subclasses give the network, batches and loss.

    Parameters
    ----------
    epochs : int
        Passes over the training text.
    batch_sentences : int
        Training examples per optimiser step.
    learning_rate : float
        Adam's learning rate.
    min_count, max_vocab : int
        The vocabulary: words seen at least ``min_count`` times, at most ``max_vocab``.
    lowercase : bool
        Lowercase before tokenising (training and encoding alike).
    seed : int
        Seeds the initial weights and every draw while training.
    training_file : str or None
        Train on this file (read by :meth:`read_training_file`) instead of the texts
        given to ``fit``.

    A family declares its own parameters and ``**training``, passed on here, and its
    training defaults in :attr:`~sentspace.models.base.Encoder.defaults`: its
    signature then lists both (:func:`sentspace.models.base.inherit_parameters`).
    """

    requires_fit = True
    install_hint = INSTALL_HINT
    #: Sentences per encoding batch and progress report.
    batch_size = 512
    #: The sizes of the paper's model (documented; they need a GPU and a large corpus).
    paper_params: ClassVar[dict[str, Any]] = {}
    #: torch's intra-op threads per training batch on the CPU (None: torch's default).
    cpu_threads: ClassVar[int | None] = None
    #: What one training row is, in the progress ("5,000 pairs").
    training_rows: ClassVar[str] = "sentences"

    def __init__(
        self,
        epochs: int,
        batch_sentences: int,
        learning_rate: float,
        min_count: int,
        max_vocab: int,
        lowercase: bool = True,
        seed: int = 0,
        training_file: str | None = None,
    ):
        if not torch_available():
            raise ModelError(f"{self.family} needs PyTorch: {INSTALL_HINT}")
        self.epochs, self.batch_sentences, self.min_count, self.max_vocab = require_at_least_one(
            epochs=epochs, batch_sentences=batch_sentences, min_count=min_count, max_vocab=max_vocab
        )
        if not float(learning_rate) > 0:
            raise ModelError(f"learning_rate must be positive, not {learning_rate}")
        self.learning_rate = float(learning_rate)
        self.lowercase = bool(lowercase)
        self.seed = int(seed)
        self._take_training_file(training_file)
        #: The trained torch module (torch is imported on first use, so untyped here).
        self.module_: Any = None
        self.vocab_: Vocabulary | None = None
        #: Hash of the training texts and how many there were; the loss of every batch.
        self.corpus_fingerprint_: str | None = None
        self.n_training_sentences_ = 0
        #: Training examples per epoch (sentences with something to predict, usable rows).
        self.n_training_examples_ = 0
        self.losses_: list[float] = []
        self._weights_digest: str | None = None

    @classmethod
    def available(cls) -> bool:
        """Whether torch is installed (else :data:`INSTALL_HINT`)."""
        return torch_available()

    # What a family defines -------------------------------------------------------------

    @classmethod
    def read_training_file(cls, path: Path) -> list[str]:
        """The training texts of ``training_file``; errors name the file and line."""
        return read_training_text(path)

    @abstractmethod
    def _prepare(
        self, texts: list[str], vocab: Vocabulary | None = None
    ) -> tuple[Vocabulary, Any, int]:
        """The vocabulary (``vocab`` when given, else built from ``texts``), the training
        data and the number of training examples.

        Raises ModelError when the texts give nothing to train on."""

    @abstractmethod
    def _new_module(self, vocab: Vocabulary):
        """The untrained network (built on the CPU with the seeded random state)."""

    @abstractmethod
    def _batches(self, data: Any, generator) -> Iterator[Any]:
        """One epoch of training batches in an order drawn from ``generator``."""

    @abstractmethod
    def _loss(self, module, batch: Any, generator):
        """The batch's loss, a scalar tensor."""

    def _finish(self, module, vocab: Vocabulary) -> None:
        """Derive what the weights imply once training ends (nothing, unless overridden)."""

    def _use(self, module, vocab: Vocabulary) -> None:
        """Take a trained network (just trained or loaded); subclasses derive from it."""
        import torch

        self.module_, self.vocab_ = module.eval(), vocab
        h = hashlib.sha256("\n".join(vocab.words).encode("utf-8", "surrogatepass"))
        for key, tensor in sorted(module.state_dict().items()):
            h.update(key.encode())
            h.update(tensor.detach().to("cpu", torch.float32).contiguous().numpy().tobytes())
        self._weights_digest = h.hexdigest()[:16]

    # Training --------------------------------------------------------------------------

    def _batch_count(self, n_examples: int) -> int:
        return -(-n_examples // self.batch_sentences)

    def _order(self, n_examples: int, generator) -> Iterator[np.ndarray]:
        """Example indices in batches, shuffled by ``generator``."""
        import torch

        order = torch.randperm(n_examples, generator=generator).numpy()
        for start in range(0, n_examples, self.batch_sentences):
            yield order[start : start + self.batch_sentences]

    def iter_fit(self, texts: Sequence[str]) -> Job[Self]:
        """Train with progress per batch; closing the job stops at the next batch and
        leaves the encoder as it was (unfitted, or with its earlier weights).

        Raises
        ------
        ModelError
            The training text is unreadable or gives nothing to train on.
        """
        if self.training_file is None:
            return (yield from self._train(list(texts), f"{len(texts):,} {self.training_rows}"))
        path = Path(self.training_file)
        memo = self._remembered_training([path])
        if "state" in memo:
            self._restore(*memo["state"])
            return self
        yield Progress(f"reading {path.name}", 0, 1)
        yield from self._train(self.read_training_file(path), path.name)
        memo["state"] = self._trained()
        return self

    def _remembered_training(self, paths: Iterable[Path]) -> dict[str, Any]:
        """What a training of this family with these parameters on ``paths`` as they are
        now (size and time) left in this process: ``state`` once trained."""
        stamp = tuple(
            (str(path), (stat := path.stat()).st_size, stat.st_mtime_ns) for path in paths
        )
        return _remembered(self.family, json.dumps(self.params(), sort_keys=True), stamp)

    def _train(self, texts: list[str], source: str) -> Job[Self]:
        """Train on ``texts`` (``source`` names them in the progress); see :meth:`iter_fit`."""
        import torch

        vocab, data, n_examples = self._prepare(texts)
        with seeded(self.seed):
            module = self._new_module(vocab).to(device())
            generator = torch.Generator().manual_seed(self.seed)
            optimizer = torch.optim.Adam(module.parameters(), lr=self.learning_rate)
            total = self.epochs * self._batch_count(n_examples)
            losses = []
            module.train()
            for epoch in range(self.epochs):
                for batch in self._batches(data, generator):
                    with cpu_threads(self.cpu_threads):
                        loss = self._loss(module, batch, generator)
                        optimizer.zero_grad(set_to_none=True)
                        loss.backward()
                        optimizer.step()
                    losses.append(loss.item())
                    yield Progress(
                        f"training {self.name} on {source} (epoch {epoch + 1} of "
                        f"{self.epochs}, loss {losses[-1]:.3f})",
                        len(losses),
                        total,
                    )
        self._finish(module, vocab)
        self._use(module, vocab)
        self.losses_, self.n_training_examples_ = losses, n_examples
        self.corpus_fingerprint_ = corpus_digest(texts)
        self.n_training_sentences_ = sum(1 for text in texts if text.strip())
        return self

    @property
    def training_report(self) -> str | None:
        if self.module_ is None or not self.losses_:
            return None
        return (
            f"trained on {self.n_training_sentences_:,} {self.training_rows}, "
            f"{self.epochs} epoch{'s' if self.epochs != 1 else ''}, loss "
            f"{self.losses_[0]:.2f} \N{RIGHTWARDS ARROW} {self.losses_[-1]:.2f}"
        )

    @property
    def training_scores(self) -> dict[str, Any] | None:
        if self.module_ is None or not self.losses_:
            return None
        return {
            self.training_rows: self.n_training_sentences_,
            "epochs": self.epochs,
            "first_loss": self.losses_[0],
            "last_loss": self.losses_[-1],
        }

    def held_out_loss(self, texts: Sequence[str]) -> float:
        """The mean training loss over ``texts``, read with the trained vocabulary and
        batches drawn from this encoder's seed: below :meth:`untrained`'s on text never
        trained on, what the network learnt generalises (the learning tests' outcome
        for families whose embedding has no cheap held-out probe)."""
        import torch

        if self.module_ is None:
            raise NotFittedError(f"{self.name} must be trained first")
        _, data, _ = self._prepare(list(texts), self.vocab_)
        generator = torch.Generator().manual_seed(self.seed)
        with torch.inference_mode(), cpu_threads(self.cpu_threads):
            losses = [
                float(self._loss(self.module_, batch, generator))
                for batch in self._batches(data, generator)
            ]
        return float(np.mean(losses))

    def untrained(self) -> Self:
        """A copy of this trained encoder with its network's seeded initial weights: the
        baseline that shows what training achieved."""
        if self.module_ is None:
            raise NotFittedError(f"{self.name} must be trained first (for its vocabulary)")
        copy = self.clone()
        with seeded(self.seed):
            module = self._new_module(self._trained_vocab)
        copy._restore(module.to(device()), self._trained_vocab, None, 0, [])
        return copy

    @property
    def _trained_vocab(self) -> Vocabulary:
        """The vocabulary training built (or a saved model restored)."""
        assert self.vocab_ is not None, "read only once trained"
        return self.vocab_

    def _trained(self) -> tuple:
        """What training left, as :meth:`_restore` takes it back (memoised per file)."""
        return (
            self.module_,
            self.vocab_,
            self.corpus_fingerprint_,
            self.n_training_sentences_,
            self.losses_,
        )

    def _vocabulary(self, token_lists: list[list[str]], vocab: Vocabulary | None) -> Vocabulary:
        """``vocab``, or when training (None) the one built from ``token_lists``; a
        ModelError when no word is frequent enough."""
        if vocab is None:
            vocab = Vocabulary.build(token_lists, self.min_count, self.max_vocab)
        if not vocab.words:
            raise ModelError(
                f"no word occurs at least min_count={self.min_count} times in "
                f"the {len(token_lists):,} training sentences"
            )
        return vocab

    def _restore(self, module, vocab, corpus_fingerprint, n_sentences, losses) -> None:
        self._use(module, vocab)
        self.corpus_fingerprint_, self.n_training_sentences_ = corpus_fingerprint, n_sentences
        self.losses_ = list(losses)

    def fit(self, texts: Sequence[str]) -> Self:
        """Train in this thread; see :meth:`iter_fit`."""
        return run_job(self.iter_fit(texts))

    def _fitted_state(self) -> str | None:
        if self.module_ is None:
            return None
        return f"{self.corpus_fingerprint_}-{self._weights_digest}"

    # Encoding --------------------------------------------------------------------------

    def _ids(self, texts: Sequence[str], keep_unknown: bool) -> Ragged:
        return Ragged.of(
            [
                self._trained_vocab.ids(tokenize(text, self.lowercase), keep_unknown)
                for text in texts
            ]
        )

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        import torch

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with torch.inference_mode():
            vectors = self._encode_ids(self._ids(texts, keep_unknown=True))
        return vectors.to("cpu", torch.float32).numpy()

    def _encode_ids(self, sequences: Ragged):
        """Sentence vectors of the id sequences, a (n, dim) tensor (used by the default
        :meth:`_encode_batch`)."""
        raise NotImplementedError

    # Saving (models.sidecar) ----------------------------------------------------------

    def _saved_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        import torch

        arrays = {
            key: tensor.detach().cpu().numpy() for key, tensor in self.module_.state_dict().items()
        }
        return arrays, {
            "corpus_fingerprint": self.corpus_fingerprint_,
            "n_training_sentences": self.n_training_sentences_,
            "vocabulary": list(self._trained_vocab.words),
            "counts": self._trained_vocab.counts.tolist(),
            "losses": self.losses_,
            "torch": torch.__version__,
        }

    def _restore_saved(self, arrays: dict[str, np.ndarray], fields: dict[str, Any]) -> None:
        import torch

        vocab = Vocabulary(
            tuple(fields["vocabulary"]), np.asarray(fields["counts"], dtype=np.int64)
        )
        with seeded(self.seed):
            module = self._new_module(vocab)
        module.load_state_dict(
            {key: torch.from_numpy(array) for key, array in arrays.items()}, strict=True
        )
        self._restore(
            module.to(device()),
            vocab,
            fields["corpus_fingerprint"],
            int(fields["n_training_sentences"]),
            fields.get("losses", []),
        )


class PaddedIdsEncoder(NeuralEncoder):
    """A family whose network reads a padded batch of token ids, each sentence cut to
    ``max_length``, with the sentences' lengths."""

    max_length: int

    def _forward(self, module, ids: np.ndarray, lengths: np.ndarray):
        """``module`` on ``ids`` and ``lengths`` (at least 1: an empty sentence reads one
        padding token), on the module's device."""
        import torch

        device = next(module.parameters()).device
        return module(
            torch.as_tensor(ids, device=device),
            torch.as_tensor(np.maximum(lengths, 1), device=device),
        )

    def _encode_ids(self, sequences: Ragged):
        rows = np.arange(len(sequences))
        lengths = np.minimum(sequences.lengths, self.max_length)
        return self._forward(self.module_, sequences.padded(rows, self.max_length), lengths)
