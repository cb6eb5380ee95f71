"""FastSent and FastSent+AE (Hill, Cho & Korhonen 2016, §2.3), trained with PyTorch.

Each word has a source and a target embedding. A sentence is the sum of its words'
source embeddings, trained to predict every word of the previous and the next sentence
of its document (FastSent+AE: and its own words). The softmax over the vocabulary is
replaced by negative sampling, as in word2vec (and Hill et al.'s own implementation,
built on word2vec): each target word against ``negatives`` words drawn from the
unigram distribution raised to 0.75.

Training text is ordered: one sentence a line in reading order, a blank line ending a
document (``read_ordered_text``); the corpus's sentences, given in order, are one
document. Encoding is the sum of the trained source vectors, the same sparse product as
``glove-sum`` (so the same speed, and the same coverage report for unknown words).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.models.base import ModelError, NotFittedError
from sentspace.models.neural import (
    SPECIALS,
    TRAINING_DEFAULTS,
    NeuralEncoder,
    Ragged,
    Vocabulary,
    documents_of,
    read_ordered_text,
)
from sentspace.models.tokenize import tokenize
from sentspace.models.word_vectors import WordVectorTable, _WordVectorEncoder

#: Noise words drawn per training batch and shared by its sentences.
NOISE_PER_BATCH = 1024


def _network(vocab_size: int, size: int):
    import torch

    class FastSentNetwork(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            # word2vec's initialisation: small random sources, zero targets.
            self.source = torch.nn.Embedding(vocab_size, size)
            torch.nn.init.uniform_(self.source.weight, -0.5 / size, 0.5 / size)
            self.target = torch.nn.Embedding(vocab_size, size)
            torch.nn.init.zeros_(self.target.weight)

    return FastSentNetwork()


class FastSent(NeuralEncoder, _WordVectorEncoder):
    """Sum of word vectors trained to predict the neighbouring sentences' words.

    Parameters
    ----------
    vector_size : int
        Dimension of the word (and sentence) vectors.
    negatives : int
        Noise words per target word.
    sample : float
        word2vec's subsampling threshold for frequent target words (0: keep all).
    epochs, batch_sentences, learning_rate, min_count, max_vocab, lowercase, seed,
    training_file
        As in :class:`sentspace.models.neural.NeuralEncoder`.
    """

    family = "fastsent"
    title = "FastSent trained on ordered text (Hill et al. 2016)"
    #: Predict the sentence's own words too.
    autoencode = False
    divide_by_count = False
    batch_size = 2048
    #: Always set (the pretrained vectors' None, "as the vectors are", is not offered).
    lowercase: bool
    paper_params = {"vector_size": 100}

    defaults = {
        **TRAINING_DEFAULTS,
        "batch_sentences": 128,
        "learning_rate": 0.01,
        "max_vocab": 50_000,
    }

    def __init__(
        self, vector_size: int = 128, negatives: int = 5, sample: float = 1e-4, **training: Any
    ):
        NeuralEncoder.__init__(self, **training)
        if int(vector_size) < 1 or int(negatives) < 1:
            raise ModelError(
                f"vector_size and negatives must be at least 1, not {vector_size} and {negatives}"
            )
        if not float(sample) >= 0:
            raise ModelError(f"sample must be at least 0, not {sample}")
        self.vector_size, self.negatives = int(vector_size), int(negatives)
        self.sample = float(sample)
        self.coverage_ = None
        self._tally = None
        self._table: WordVectorTable | None = None

    @property
    def name(self) -> str:
        # NeuralEncoder's name, not _WordVectorEncoder's (next in the MRO). mypy types a
        # property read from its class as the getter function.
        return NeuralEncoder.name.fget(self)  # type: ignore[attr-defined]

    @property
    def dim(self) -> int:
        return self.vector_size

    @property
    def table(self) -> WordVectorTable:
        if self._table is None:
            raise NotFittedError(f"{self.name} must be fitted before encoding")
        return self._table

    # The sparse product of the word-vector families, not the network's batches.
    _encode_batch = _WordVectorEncoder._encode_batch

    @classmethod
    def read_training_file(cls, path: Path) -> list[str]:
        return read_ordered_text(path)

    def _prepare(self, texts: list[str], vocab: Vocabulary | None = None):
        import torch

        documents = documents_of(texts)
        token_lists = [tokenize(text, self.lowercase) for text in texts if text.strip()]
        vocab = self._vocabulary(token_lists, vocab)
        sentences = Ragged.of([vocab.ids(tokens, keep_unknown=False) for tokens in token_lists])
        # Each sentence's neighbours in its document (-1: none); training examples are
        # the sentences with at least one word to predict.
        n = len(sentences)
        previous = np.arange(n) - 1
        previous[(previous < 0) | (documents[np.maximum(previous, 0)] != documents)] = -1
        following = np.arange(n) + 1
        following[(following >= n) | (documents[np.minimum(following, n - 1)] != documents)] = -1
        neighbours = [previous, following] + ([np.arange(n)] if self.autoencode else [])
        lengths = sentences.lengths
        n_targets = sum(np.where(rows >= 0, lengths[rows], 0) for rows in neighbours)
        examples = np.flatnonzero((n_targets > 0) & (lengths > 0))
        if not len(examples):
            raise ModelError(
                "no training sentence has a neighbour with a known word: "
                "FastSent needs ordered sentences (one a line, in order)"
            )
        # word2vec's subsampling: a target word of frequency f is kept with probability
        # sqrt(t / f) + t / f, so "the" and "of" do not dominate every sentence vector.
        frequency = np.zeros(len(vocab))
        frequency[len(SPECIALS) :] = vocab.counts / vocab.counts.sum()
        with np.errstate(divide="ignore"):
            ratio = np.where((frequency > 0) & (self.sample > 0), self.sample / frequency, 1.0)
        keep = torch.as_tensor(np.minimum(np.sqrt(ratio) + ratio, 1.0), dtype=torch.float32)
        return vocab, (sentences, neighbours, examples, vocab.noise(), keep), len(examples)

    def _new_module(self, vocab: Vocabulary):
        return _network(len(vocab), self.vector_size)

    def _batches(self, data, generator) -> Iterator[Any]:
        import torch

        sentences, neighbours, examples, noise, keep = data
        for batch in self._order(len(examples), generator):
            rows = examples[batch]
            target_rows = np.concatenate([n[rows] for n in neighbours])
            target_owner = np.tile(np.arange(len(rows)), len(neighbours))
            valid = target_rows >= 0
            targets, position = sentences.take(target_rows[valid])
            kept = (torch.rand(len(targets), generator=generator) < keep[targets]).numpy()
            lengths = sentences.lengths[rows]
            yield (
                sentences.take(rows)[0],
                np.cumsum(lengths) - lengths,
                targets[kept],
                target_owner[valid][position][kept],
                noise,
            )

    def _loss(self, module, batch, generator):
        """Negative sampling with noise words shared by the batch: each target word's
        ``negatives`` noise terms are the mean over ``NOISE_PER_BATCH`` shared draws
        times ``negatives`` (the same expectation as word2vec's per-word draws, at the
        cost of one matrix product)."""
        import torch
        from torch.nn.functional import embedding_bag, logsigmoid

        source, offsets, targets, target_owner, noise = batch
        device = module.source.weight.device
        source, offsets, targets, target_owner = (
            torch.as_tensor(a, device=device) for a in (source, offsets, targets, target_owner)
        )
        sums = embedding_bag(source, module.source.weight, offsets, mode="sum")
        positive = (sums[target_owner] * module.target(targets)).sum(1)
        drawn = torch.multinomial(noise, NOISE_PER_BATCH, replacement=True, generator=generator).to(
            device
        )
        negative = logsigmoid(-(sums @ module.target(drawn).T)).mean(1)
        n_targets = torch.bincount(target_owner, minlength=len(offsets)).to(sums.dtype)
        total = logsigmoid(positive).sum() + self.negatives * (n_targets * negative).sum()
        return -total / len(targets)

    def _use(self, module, vocab: Vocabulary) -> None:
        super()._use(module, vocab)
        vectors = module.source.weight.detach().to("cpu").float().numpy().copy()
        vectors[: len(SPECIALS)] = 0
        assert self._weights_digest is not None, "set by NeuralEncoder._use"
        self._table = WordVectorTable(vocab.index, vectors, self.lowercase, self._weights_digest)


class FastSentAE(FastSent):
    """FastSent+AE: also predicts the sentence's own words."""

    family = "fastsent-ae"
    title = "FastSent+AE trained on ordered text (Hill et al. 2016)"
    autoencode = True
