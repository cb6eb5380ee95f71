"""DictRep (Hill, Cho, Korhonen & Bengio 2016; Hill, Cho & Korhonen 2016): a text encoder
trained to map a dictionary definition onto the pretrained vector of the word it defines.

``dictrep-bow`` averages learned word embeddings and maps the average linearly into the
target space; ``dictrep-rnn`` reads the definition with an LSTM and maps its final state.
The loss is the cosine distance to the target, the bundled GloVe 6B 50d vector of the
defined word (rows whose word has none are skipped and counted). The sentence vector is
the mapped output, in GloVe's space. CaptionRep is the same network with image
feature vectors as targets; its targets are always GloVe here (docs/encoders.md: CaptionRep).

Training rows are ``word<TAB>definition``: a two-column file, or a table with a header
naming the ``word`` and ``definition`` columns among others (the shared
wordnet-definitions table). Errors name the file and line.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.models.base import ModelError, require_at_least_one
from sentspace.models.neural import (
    TRAINING_DEFAULTS,
    PaddedIdsEncoder,
    Ragged,
    Vocabulary,
    sentence_summary,
)
from sentspace.models.tokenize import tokenize
from sentspace.models.word2vec import read_text_lines
from sentspace.models.word_vectors import DEFAULT_SOURCE, load_table

COLUMNS = ("word", "definition")


def parse_definitions(
    lines: Sequence[str], path: Path | None = None, numbers: Sequence[int] | None = None
) -> list[tuple[str, str]]:
    """(word, definition) rows of tab-separated ``lines``; blank lines are skipped.

    The first line is a header when it names the ``word`` and ``definition`` columns
    (other columns are ignored); otherwise every line has exactly those two columns.
    ``numbers`` are the lines' numbers for errors (default: 1, 2, ...), which name
    ``path`` (or "training row N" without one).
    """
    numbers = numbers if numbers is not None else range(1, len(lines) + 1)

    def error(problem: str, number: int) -> ModelError:
        if path is None:
            return ModelError(f"training row {number}: {problem}")
        return ModelError(problem, path, number)

    rows = [(number, line) for number, line in zip(numbers, lines) if line.strip()]
    if not rows:
        raise error("no (word, definition) row", 1)
    header = [field.strip().lower() for field in rows[0][1].split("\t")]
    if all(name in header for name in COLUMNS):
        columns = [header.index(name) for name in COLUMNS]
        width, rows = len(header), rows[1:]
    else:
        columns, width = [0, 1], 2
    pairs = []
    for number, line in rows:
        fields = line.split("\t")
        if len(fields) != width:
            raise error(
                f"{len(fields)} tab-separated columns where {width} are expected "
                "(word, definition)" + (" as in the header" if width > 2 else ""),
                number,
            )
        word, definition = (fields[i].strip() for i in columns)
        if not word or not definition:
            raise error("empty word or definition", number)
        pairs.append((word, definition))
    return pairs


def read_definitions(path: str | Path) -> list[tuple[str, str]]:
    """(word, definition) rows of a tab-separated UTF-8 file; errors name file and line."""
    path = Path(path).expanduser()
    return parse_definitions(read_text_lines(path), path)


def _network(
    vocab_size: int, embedding_size: int, hidden_size: int, target_size: int, recurrent: bool
):
    import torch

    class DictRepNetwork(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = torch.nn.Embedding(vocab_size, embedding_size, padding_idx=0)
            if recurrent:
                self.lstm = torch.nn.LSTM(embedding_size, hidden_size, batch_first=True)
            self.output = torch.nn.Linear(hidden_size if recurrent else embedding_size, target_size)

        def forward(self, ids, lengths):
            """ids: (n, longest) padded; lengths: (n,) with every length >= 1."""
            rnn = self.lstm if recurrent else None
            return self.output(sentence_summary(self.embedding(ids), lengths, rnn))

    return DictRepNetwork()


class DictRepBOW(PaddedIdsEncoder):
    """Definition -> defined word's GloVe vector, through a mean of word embeddings.

    Parameters
    ----------
    embedding_size : int
        Dimension of the learned input word embeddings.
    hidden_size : int
        LSTM state size (``dictrep-rnn`` only).
    max_length : int
        Tokens of a definition read (training and encoding alike).
    epochs, batch_sentences, learning_rate, min_count, max_vocab, lowercase, seed,
    training_file
        As in :class:`sentspace.models.neural.NeuralEncoder`; the texts given to ``fit`` are
        ``word<TAB>definition`` rows.
    """

    family = "dictrep-bow"
    title = "DictRep, bag of words (definitions -> word vectors; Hill et al. 2016)"
    recurrent = False
    defaults = {**TRAINING_DEFAULTS, "batch_sentences": 128, "max_vocab": 50_000}

    def __init__(
        self,
        embedding_size: int = 256,
        hidden_size: int = 256,
        max_length: int = 40,
        **training: Any,
    ):
        super().__init__(**training)
        self.embedding_size, self.hidden_size, self.max_length = require_at_least_one(
            embedding_size=embedding_size, hidden_size=hidden_size, max_length=max_length
        )
        #: Training rows skipped because the word has no GloVe vector.
        self.skipped_rows_ = 0

    @property
    def dim(self) -> int:
        return load_table(DEFAULT_SOURCE).dim

    @classmethod
    def read_training_file(cls, path: Path) -> list[str]:
        return [f"{word}\t{definition}" for word, definition in read_definitions(path)]

    def _prepare(self, texts: list[str], vocab: Vocabulary | None = None):
        import torch

        pairs = parse_definitions(texts)
        table = load_table(DEFAULT_SOURCE)
        rows = table.rows([word.lower() for word, _ in pairs])
        known = np.flatnonzero(rows >= 0)
        token_lists = [tokenize(pairs[i][1], self.lowercase)[: self.max_length] for i in known]
        if vocab is None:  # training (else held_out_loss reading other rows)
            self.skipped_rows_ = len(pairs) - len(known)
        vocab, definitions, examples = self._id_rows(
            token_lists,
            vocab,
            f"none of the {len(pairs):,} training rows has both a word with a GloVe vector "
            f"and a definition word seen min_count={self.min_count} times",
        )
        targets = torch.as_tensor(table.vectors[rows[known]])
        return vocab, (definitions, examples, targets), len(examples)

    def _id_rows(
        self, token_lists: list[list[str]], vocab: Vocabulary | None, nothing_known: str
    ) -> tuple[Vocabulary, Ragged, np.ndarray]:
        """``vocab`` (None: built from ``token_lists``), the token lists as its ids and
        the rows with at least one; ModelError ``nothing_known`` when none has."""
        if vocab is None:
            vocab = Vocabulary.build(token_lists, self.min_count, self.max_vocab)
        ids = Ragged.of([vocab.ids(tokens, keep_unknown=True) for tokens in token_lists])
        examples = np.flatnonzero(ids.lengths > 0)
        if not vocab.words or not len(examples):
            raise ModelError(nothing_known)
        return vocab, ids, examples

    def _new_module(self, vocab: Vocabulary):
        return _network(
            len(vocab),
            self.embedding_size,
            self.hidden_size,
            load_table(DEFAULT_SOURCE).dim,
            self.recurrent,
        )

    def _batches(self, data, generator) -> Iterator[Any]:
        definitions, examples, targets = data
        for batch in self._order(len(examples), generator):
            rows = examples[batch]
            yield definitions.padded(rows), definitions.lengths[rows], targets[rows]

    def _loss(self, module, batch, generator):
        import torch

        ids, lengths, targets = batch
        output = self._forward(module, ids, lengths)
        cosine = torch.nn.functional.cosine_similarity(output, targets.to(output.device))
        return (1 - cosine).mean()


class DictRepRNN(DictRepBOW):
    """Definition -> defined word's GloVe vector, through an LSTM (smaller default sizes
    than ``dictrep-bow``: an LSTM step costs far more than a sum)."""

    family = "dictrep-rnn"
    title = "DictRep, LSTM (definitions -> word vectors; Hill et al. 2016)"
    recurrent = True

    defaults = {"embedding_size": 128, "hidden_size": 128}
