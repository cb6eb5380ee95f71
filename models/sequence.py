"""Recurrent encoder-decoders trained with PyTorch: the (denoising) sequential
autoencoders S(D)AE of Hill, Cho & Korhonen (2016, §2.3) and SkipThought (uni-skip,
Kiros et al. 2015).

Default sizes are small (100-d words, 128-d states) so that a 2-core CPU trains on
100,000 sentences in minutes; ``paper_params`` gives the papers' sizes (a GPU's work).

Both read a sentence with a recurrent encoder whose final hidden state is the sentence
vector, and train decoders that start from that state to produce sentences word by word
(teacher forcing). The softmax over the vocabulary is a sampled softmax
(:func:`sentspace.models.neural.sampled_softmax_loss`): each batch scores its own target words and
``noise_words`` words drawn from the unigram^0.75 distribution.

- ``sae`` / ``sdae`` (LSTM): the decoder reproduces the sentence from a noisy copy,
  N(S | p_o, p_x): each word deleted with probability ``p_delete``, then each
  non-overlapping bigram swapped with probability ``p_swap`` (0.1 / 0.1 for ``sdae``, as
  the paper found best; ``sae`` has no noise). ``sdae-embs`` reads the fixed bundled
  GloVe vectors instead of learned embeddings. Any sentence order.
- ``skipthought`` (GRU): two decoders produce the previous and the next sentence of the
  same document (ordered text, like FastSent). Kiros et al. feed the sentence vector to
  every decoder step; here it is the decoders' initial state. Words outside the training
  vocabulary that GloVe knows get an embedding through a linear map from GloVe space to
  the encoder's word space, fitted by least squares on the words both know (Kiros et
  al.'s vocabulary expansion). ``skipthought-combine`` (combine-skip) adds a bidirectional
  GRU encoder (bi-skip, each direction half the size) whose state starts the same
  decoders; its sentence vector is [uni; bi].
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.models.base import ModelError, require_at_least_one
from sentspace.models.neural import (
    BOUNDARY,
    PAD,
    SPECIALS,
    TRAINING_DEFAULTS,
    UNK,
    NeuralEncoder,
    Ragged,
    Vocabulary,
    documents_of,
    packed,
    read_ordered_text,
    sampled_softmax_loss,
)
from sentspace.models.tokenize import tokenize
from sentspace.models.word_vectors import DEFAULT_SOURCE, load_table


def _network(
    cell: str,
    vocab_size: int,
    embedding_size: int,
    hidden_size: int,
    n_decoders: int,
    fixed_embeddings: np.ndarray | None,
    expansion_from: int,
    bidirectional: bool = False,
):
    import torch

    rnn = torch.nn.LSTM if cell == "lstm" else torch.nn.GRU

    class EncoderDecoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = torch.nn.Embedding(vocab_size, embedding_size, padding_idx=PAD)
            if fixed_embeddings is not None:
                self.embedding.weight.data.copy_(torch.as_tensor(fixed_embeddings))
                self.embedding.weight.requires_grad_(False)
            self.encoder = rnn(embedding_size, hidden_size, batch_first=True)
            if bidirectional:
                # Bi-skip: each direction half the size, so that [forward; backward]
                # starts the same decoders.
                self.bi_encoder = rnn(
                    embedding_size, hidden_size // 2, batch_first=True, bidirectional=True
                )
            self.decoders = torch.nn.ModuleList(
                rnn(embedding_size, hidden_size, batch_first=True) for _ in range(n_decoders)
            )
            self.output = torch.nn.Embedding(vocab_size, hidden_size)
            self.output_bias = torch.nn.Parameter(torch.zeros(vocab_size))
            if expansion_from:
                # GloVe -> word embedding, for words outside the vocabulary (SkipThought).
                self.register_buffer("expansion", torch.zeros(expansion_from, embedding_size))

        def encode(self, embedded, lengths):
            """Final state (LSTM: (h, c)) of the encoder over padded embedded inputs."""
            _, state = self.encoder(packed(embedded, lengths))
            return state

        def encode_bidirectional(self, embedded, lengths):
            """The bi-skip encoder's final forward and backward states concatenated,
            shaped as a one-layer GRU state (1, n, hidden)."""
            _, state = self.bi_encoder(packed(embedded, lengths))
            return torch.cat([state[0], state[1]], dim=1).unsqueeze(0)

    return EncoderDecoder()


def _hidden(state):
    """The sentence vector: the last hidden state, (n, hidden)."""
    return (state[0] if isinstance(state, tuple) else state)[-1]


class _SequenceEncoder(NeuralEncoder):
    """An RNN encoder with decoders; subclasses say what the decoders produce.

    Parameters
    ----------
    embedding_size, hidden_size : int
        Word embedding and recurrent state sizes (the sentence vector has
        ``hidden_size`` dimensions).
    max_length : int
        Tokens of a sentence read and produced.
    noise_words : int
        Words drawn per batch for the sampled softmax.
    epochs, batch_sentences, learning_rate, min_count, max_vocab, lowercase, seed,
    training_file
        As in :class:`sentspace.models.neural.NeuralEncoder`.
    """

    cell = "lstm"
    n_decoders = 1
    fixed_glove = False
    #: Map GloVe vectors of words outside the vocabulary into the word space.
    expands_vocabulary = False
    #: Combine-skip: a bidirectional encoder beside the unidirectional one, trained with
    #: the same decoders; the sentence vector is both final states concatenated.
    combine = False
    batch_size = 256

    defaults = {**TRAINING_DEFAULTS, "epochs": 1}

    def __init__(
        self,
        embedding_size: int = 100,
        hidden_size: int = 128,
        max_length: int = 30,
        noise_words: int = 1024,
        **training: Any,
    ):
        super().__init__(**training)
        self.embedding_size, self.hidden_size = require_at_least_one(
            embedding_size=embedding_size, hidden_size=hidden_size
        )
        self.max_length, self.noise_words = require_at_least_one(
            max_length=max_length, noise_words=noise_words
        )
        if self.combine and self.hidden_size % 2:
            raise ModelError(
                f"{self.family} splits hidden_size between the two directions "
                f"of its bidirectional encoder: it must be even, not {hidden_size}"
            )
        if self.fixed_glove and self.embedding_size != load_table(DEFAULT_SOURCE).dim:
            raise ModelError(
                f"{self.family} reads the bundled GloVe vectors, so "
                f"embedding_size is {load_table(DEFAULT_SOURCE).dim}"
            )

    @property
    def dim(self) -> int:
        return 2 * self.hidden_size if self.combine else self.hidden_size

    def _sentences(self, texts: list[str], vocab: Vocabulary | None) -> tuple[Vocabulary, Ragged]:
        token_lists = [
            tokenize(text, self.lowercase)[: self.max_length] for text in texts if text.strip()
        ]
        vocab = self._vocabulary(token_lists, vocab)
        return vocab, Ragged.of([vocab.ids(tokens, keep_unknown=True) for tokens in token_lists])

    def _new_module(self, vocab: Vocabulary):
        fixed = None
        if self.fixed_glove:
            table = load_table(DEFAULT_SOURCE)
            rows = table.rows(list(vocab.words))
            fixed = np.zeros((len(vocab), table.dim), dtype=np.float32)
            fixed[len(SPECIALS) :][rows >= 0] = table.vectors[rows[rows >= 0]]
        return _network(
            self.cell,
            len(vocab),
            self.embedding_size,
            self.hidden_size,
            self.n_decoders,
            fixed,
            load_table(DEFAULT_SOURCE).dim if self.expands_vocabulary else 0,
            self.combine,
        )

    def _embed(self, module, ids: np.ndarray):
        import torch

        return module.embedding(torch.as_tensor(ids, device=module.output_bias.device))

    def _loss(self, module, batch, generator):
        """Sampled-softmax cross-entropy of every decoder's words, teacher forced."""
        import torch

        source, source_lengths, targets, noise = batch
        device = module.output_bias.device
        states = self._states(
            module, self._embed(module, source), torch.as_tensor(np.maximum(source_lengths, 1))
        )
        losses = []
        for decoder, target in zip(module.decoders, targets):
            # Input: the boundary token, then the target shifted right; output: the target
            # then the boundary token.
            inputs = np.concatenate([np.full((len(target), 1), BOUNDARY), target], axis=1)
            lengths = (target != PAD).sum(1)
            outputs = np.concatenate([target, np.full((len(target), 1), PAD)], axis=1)
            outputs[np.arange(len(target)), lengths] = BOUNDARY
            embedded = self._embed(module, inputs)
            mask = torch.as_tensor(outputs != PAD, device=device)
            for state in states:
                hidden, _ = decoder(embedded, state)
                losses.append(
                    sampled_softmax_loss(
                        hidden[mask],
                        torch.as_tensor(outputs, device=device)[mask],
                        module.output.weight,
                        module.output_bias,
                        noise,
                        self.noise_words,
                        generator,
                    )
                )
        return torch.stack(losses).mean()

    def _states(self, module, embedded, lengths) -> list:
        """The encoders' final states, each of which starts the decoders."""
        states = [module.encode(embedded, lengths)]
        if self.combine:
            states.append(module.encode_bidirectional(embedded, lengths))
        return states

    def _vectors(self, module, embedded, lengths):
        """Sentence vectors: the final hidden states of the encoders, concatenated."""
        import torch

        return torch.cat(
            [_hidden(state) for state in self._states(module, embedded, lengths)], dim=1
        )

    def _encode_ids(self, sequences: Ragged):
        import torch

        rows = np.arange(len(sequences))
        lengths = np.maximum(np.minimum(sequences.lengths, self.max_length), 1)
        embedded = self._embed(self.module_, sequences.padded(rows, self.max_length))
        return self._vectors(self.module_, embedded, torch.as_tensor(lengths))


class SequentialAutoencoder(_SequenceEncoder):
    """SAE: an LSTM encoder-decoder that reproduces each sentence (Hill et al. 2016).

    Parameters
    ----------
    p_delete, p_swap : float
        The noise N(S | p_o, p_x) applied to the encoder's input (0 for SAE).
    embedding_size, hidden_size, max_length, noise_words, epochs, batch_sentences,
    learning_rate, min_count, max_vocab, lowercase, seed, training_file
        As in :class:`_SequenceEncoder`.
    """

    family = "sae"
    title = "SAE: LSTM sequential autoencoder (Hill et al. 2016)"
    default_noise = (0.0, 0.0)
    paper_params = {"hidden_size": 2400}

    def __init__(self, p_delete: float | None = None, p_swap: float | None = None, **sequence: Any):
        if self.fixed_glove:
            sequence["embedding_size"] = load_table(DEFAULT_SOURCE).dim
        super().__init__(**sequence)
        p_delete = self.default_noise[0] if p_delete is None else float(p_delete)
        p_swap = self.default_noise[1] if p_swap is None else float(p_swap)
        if not (0 <= p_delete < 1 and 0 <= p_swap <= 1):
            raise ModelError(
                f"need 0 <= p_delete < 1 and 0 <= p_swap <= 1, not {p_delete} and {p_swap}"
            )
        self.p_delete, self.p_swap = p_delete, p_swap

    def _prepare(self, texts: list[str], vocab: Vocabulary | None = None):
        vocab, sentences = self._sentences(texts, vocab)
        examples = np.flatnonzero(sentences.lengths > 0)
        return vocab, (sentences, examples, vocab.noise()), len(examples)

    def _batches(self, data, generator) -> Iterator[Any]:
        sentences, examples, noise = data
        for batch in self._order(len(examples), generator):
            rows = examples[batch]
            target = sentences.padded(rows)
            noisy = Ragged.of(
                [
                    corrupt(
                        sentences.ids[sentences.offsets[r] : sentences.offsets[r + 1]],
                        self.p_delete,
                        self.p_swap,
                        generator,
                    )
                    for r in rows
                ]
            )
            yield (noisy.padded(np.arange(len(rows))), noisy.lengths, [target], noise)


def corrupt(ids: np.ndarray, p_delete: float, p_swap: float, generator) -> np.ndarray:
    """N(S | p_o, p_x): delete each word with ``p_delete`` (keeping one word when all would
    go), then swap each non-overlapping bigram (words 1-2, 3-4, ...) with ``p_swap``."""
    import torch

    if p_delete == 0 and p_swap == 0:
        return ids
    draws = torch.rand(2 * len(ids), generator=generator).numpy()
    kept = ids[draws[: len(ids)] >= p_delete]
    if not len(kept):
        kept = ids[:1]
    order = np.arange(len(kept))
    pairs = np.flatnonzero(draws[len(ids) : len(ids) + len(kept) // 2] < p_swap)
    order[2 * pairs], order[2 * pairs + 1] = 2 * pairs + 1, 2 * pairs
    return kept[order]


class DenoisingAutoencoder(SequentialAutoencoder):
    """SDAE: the sequential autoencoder with word deletion and bigram swaps."""

    family = "sdae"
    title = "SDAE: denoising LSTM autoencoder (Hill et al. 2016)"
    default_noise = (0.1, 0.1)


class DenoisingAutoencoderGlove(DenoisingAutoencoder):
    """SDAE+embs: the denoising autoencoder reading fixed GloVe 6B 50d vectors."""

    family = "sdae-embs"
    title = "SDAE+embs: denoising LSTM autoencoder on fixed GloVe vectors (Hill et al. 2016)"
    fixed_glove = True


class SkipThought(_SequenceEncoder):
    """Uni-skip SkipThought: a GRU encoder trained to produce the previous and the next
    sentence with two GRU decoders (Kiros et al. 2015), with vocabulary expansion.

    Parameters
    ----------
    embedding_size, hidden_size, max_length, noise_words, epochs, batch_sentences,
    learning_rate, min_count, max_vocab, lowercase, seed, training_file
        As in :class:`_SequenceEncoder`; the training text is ordered (a blank line ends a
        document).
    """

    family = "skipthought"
    title = "SkipThought, uni-skip GRU (Kiros et al. 2015)"
    cell = "gru"
    n_decoders = 2
    expands_vocabulary = True
    paper_params = {"embedding_size": 620, "hidden_size": 2400, "max_vocab": 20_000}

    @classmethod
    def read_training_file(cls, path: Path) -> list[str]:
        return read_ordered_text(path)

    def _prepare(self, texts: list[str], vocab: Vocabulary | None = None):
        documents = documents_of(texts)
        vocab, sentences = self._sentences(texts, vocab)
        n = len(sentences)
        middle = np.arange(1, n - 1)
        lengths = sentences.lengths
        examples = middle[
            (documents[middle - 1] == documents[middle])
            & (documents[middle + 1] == documents[middle])
            & (lengths[middle - 1] > 0)
            & (lengths[middle] > 0)
            & (lengths[middle + 1] > 0)
        ]
        if not len(examples):
            raise ModelError(
                "no training sentence has a previous and a next sentence in "
                "its document: SkipThought needs ordered sentences"
            )
        return vocab, (sentences, examples, vocab.noise()), len(examples)

    def _batches(self, data, generator) -> Iterator[Any]:
        sentences, examples, noise = data
        for batch in self._order(len(examples), generator):
            rows = examples[batch]
            yield (
                sentences.padded(rows),
                sentences.lengths[rows],
                [sentences.padded(rows - 1), sentences.padded(rows + 1)],
                noise,
            )

    def _finish(self, module, vocab: Vocabulary) -> None:
        """Fit the vocabulary expansion: least squares from GloVe to the trained word
        embeddings over the words both have."""
        import torch

        table = load_table(DEFAULT_SOURCE)
        rows = table.rows(list(vocab.words))
        both = np.flatnonzero(rows >= 0)
        if len(both) < table.dim:  # too few shared words for a determined map
            return
        embeddings = module.embedding.weight.detach().cpu().numpy()[len(SPECIALS) + both]
        glove = table.vectors[rows[both]].astype(np.float64)
        solution, *_ = np.linalg.lstsq(glove, embeddings.astype(np.float64), rcond=None)
        module.expansion.copy_(torch.as_tensor(solution, dtype=torch.float32))

    def _encode_batch(self, texts):
        """Encode with expanded vocabulary: a word the model never saw but GloVe knows is
        read as its GloVe vector mapped into the encoder's word space."""
        import torch

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        table = load_table(DEFAULT_SOURCE)
        token_lists = [tokenize(text, self.lowercase)[: self.max_length] for text in texts]
        sequences = Ragged.of(
            [self.vocab_.ids(tokens, keep_unknown=True) for tokens in token_lists]
        )
        rows = np.arange(len(texts))
        ids = sequences.padded(rows)
        glove_rows = np.full(ids.shape, -1, dtype=np.int64)
        for i, tokens in enumerate(token_lists):
            unknown = np.flatnonzero(ids[i, : len(tokens)] == UNK)
            if len(unknown):
                glove_rows[i, unknown] = table.rows([tokens[j] for j in unknown])
        module = self.module_
        with torch.inference_mode():
            embedded = self._embed(module, ids)
            expanded = np.nonzero(glove_rows >= 0)
            if len(expanded[0]):
                vectors = torch.as_tensor(
                    table.vectors[glove_rows[expanded]], device=embedded.device
                )
                embedded[expanded] = vectors @ module.expansion
            lengths = torch.as_tensor(np.maximum(sequences.lengths, 1))
            vectors = self._vectors(module, embedded, lengths)
        return vectors.to("cpu", torch.float32).numpy()


class CombineSkip(SkipThought):
    """Combine-skip SkipThought (Kiros et al. 2015): the uni-skip GRU and a bidirectional
    GRU (bi-skip, each direction ``hidden_size / 2``) read the sentence; both final states
    start the same two decoders, and the sentence vector is [uni; bi], ``2 * hidden_size``
    dimensions."""

    family = "skipthought-combine"
    title = "SkipThought, combine-skip: uni-skip + bi-skip GRUs (Kiros et al. 2015)"
    combine = True
