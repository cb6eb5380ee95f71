"""``urae``: a recursive autoencoder over greedy binary trees of pretrained word vectors
(Socher et al. 2011; the unfolding variant is what White et al. 2015 evaluate).

Leaves are pretrained word vectors (the bundled GloVe 6B 50d, or any file
:func:`sentspace.models.word_vectors.load_table` reads), scaled to unit length and kept fixed; words
without a vector are left out. A parent is p = tanh(W_e [c1; c2] + b_e) scaled to unit
length (Socher et al.'s normalisation: without it the network shrinks the parents towards
zero, which the children's reconstruction then fits trivially), and the decoder gives back
both children, [c1'; c2'] = W_d p + b_d.

The tree is built greedily, as Socher et al.'s RAE does without a parser: of the adjacent
nodes, the pair whose merge reconstructs its children best is merged, until one node is
left. The reconstruction error of a merge weighs each child by its number of leaves,
(n1 ||c1 - c1'||² + n2 ||c2 - c2'||²) / (n1 + n2). Training minimises, over every
non-terminal of every tree, that error plus the root's unfolding error: the root decoded
back down the same tree to the leaves, against the leaves (the unfolding RAE's error, at
the root only: unfolding every node costs a pass per node). The children that a parent
reconstructs are targets, not inputs: the error does not flow back into them, which would
let the network make the inner nodes easy to reconstruct instead of informative.

The sentence vector is the root, or with ``vector="mean"`` the mean of the tree's nodes
(leaves and non-terminals). Each merge step is batched over the sentences of a batch; it
rescores only the two pairs beside the new parent, so building the trees of a batch costs
(longest sentence) small products, and training replays the merges with gradient and
unfolds the root in as many more.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.models.base import ModelError
from sentspace.models.neural import (
    SPECIALS,
    TRAINING_DEFAULTS,
    NeuralEncoder,
    Ragged,
    Vocabulary,
    cpu_threads,
)
from sentspace.models.tokenize import tokenize
from sentspace.models.word_vectors import DEFAULT_SOURCE, load_table

VECTORS = ("root", "mean")


def _network(leaves: np.ndarray):
    import torch

    dim = leaves.shape[1]

    class RecursiveAutoencoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            # Saved with the weights, so that a loaded model needs no word-vector file.
            self.register_buffer("leaves", torch.as_tensor(leaves))
            self.encoder = torch.nn.Linear(2 * dim, dim)
            self.decoder = torch.nn.Linear(dim, 2 * dim)

        def decode(self, parent):
            """The two children that ``parent`` rebuilds, each of unit length like every
            node."""
            rebuilt = self.decoder(parent).unflatten(-1, (2, dim))
            return torch.nn.functional.normalize(rebuilt, dim=-1).flatten(-2)

        def compose(self, left, right):
            parent = torch.tanh(self.encoder(torch.cat([left, right], dim=-1)))
            return torch.nn.functional.normalize(parent, dim=-1)

        def errors(self, left, right, n_left, n_right):
            """The leaf-weighted reconstruction error of merging ``left`` and ``right``,
            and the parent."""
            parent = self.compose(left, right)
            rebuilt = self.decode(parent)
            error = n_left * (rebuilt[..., :dim] - left).pow(2).sum(-1) + n_right * (
                rebuilt[..., dim:] - right
            ).pow(2).sum(-1)
            return error / (n_left + n_right).clamp(min=1), parent

        def trees(self, ids, lengths):
            """The greedy trees of the (n, width) padded ``ids`` with ``lengths`` known
            leaves, without gradient (the tree is a choice): the merges (per step, the
            column of the left child in the row of nodes left, -1 once a sentence is one
            node), the row of nodes at the end (the root in column 0) and the sum of
            every node of each tree."""
            with torch.no_grad():
                nodes = self.leaves[ids]
                n, width, _ = nodes.shape
                sizes = (ids != 0).to(nodes.dtype)
                count = lengths.clone()
                columns = torch.arange(width, device=ids.device)
                rows = torch.arange(n, device=ids.device)
                merges, total = [], nodes.sum(1)
                # The error of merging each adjacent pair; a merge changes only the two
                # pairs next to the new parent, the others shift with the nodes.
                error, _ = self.errors(nodes[:, :-1], nodes[:, 1:], sizes[:, :-1], sizes[:, 1:])
                for _ in range(width - 1):
                    error[columns[:-1].unsqueeze(0) >= (count - 1).unsqueeze(1)] = np.inf
                    active = count > 1
                    best = torch.where(active, error.argmin(1), -1)
                    at = best.clamp(min=0)
                    parent = self.compose(nodes[rows, at], nodes[rows, at + 1])
                    total = total + parent * active.unsqueeze(1)
                    merged = sizes[rows, at] + sizes[rows, at + 1]
                    nodes = _merged(nodes, parent, best, columns)
                    sizes = _merged(sizes.unsqueeze(2), merged.unsqueeze(1), best, columns).squeeze(
                        2
                    )
                    error = _merged(
                        error.unsqueeze(2), error[rows, at].unsqueeze(1), best, columns[:-1]
                    ).squeeze(2)
                    before, after = (at - 1).clamp(min=0), (at + 1).clamp(max=width - 1)
                    left_error, _ = self.errors(
                        nodes[rows, before], parent, sizes[rows, before], merged
                    )
                    right_error, _ = self.errors(
                        parent, nodes[rows, after], merged, sizes[rows, after]
                    )
                    column = columns[:-1].unsqueeze(0)
                    error = torch.where(
                        (column == best.unsqueeze(1) - 1) & active.unsqueeze(1),
                        left_error.unsqueeze(1),
                        error,
                    )
                    error = torch.where(
                        (column == best.unsqueeze(1)) & active.unsqueeze(1),
                        right_error.unsqueeze(1),
                        error,
                    )
                    merges.append(best)
                    count = count - active.long()
                return merges, nodes, total

        def forward(self, ids, lengths, merges):
            """Replay ``merges`` with gradient: the root, and per sentence the mean
            reconstruction error of its non-terminals (their children are targets,
            detached)."""
            nodes = self.leaves[ids]
            n, width, _ = nodes.shape
            sizes = (ids != 0).to(nodes.dtype)
            columns = torch.arange(width, device=ids.device)
            rows = torch.arange(n, device=ids.device)
            error_sum = torch.zeros(n, device=ids.device, dtype=nodes.dtype)
            for best in merges:
                active = best >= 0
                at = best.clamp(min=0)
                left, right = nodes[rows, at], nodes[rows, at + 1]
                n_left, n_right = sizes[rows, at], sizes[rows, at + 1]
                error, _ = self.errors(left.detach(), right.detach(), n_left, n_right)
                parent = self.compose(left, right)
                error_sum = error_sum + torch.where(active, error, 0)
                nodes = _merged(nodes, parent, best, columns)
                sizes = _merged(
                    sizes.unsqueeze(2), (n_left + n_right).unsqueeze(1), best, columns
                ).squeeze(2)
            inner = (lengths - 1).clamp(min=1).to(nodes.dtype)
            return nodes[:, 0], error_sum / inner

        def unfold(self, root, merges, width: int):
            """The leaves reconstructed from ``root`` by undoing ``merges`` in reverse."""
            n = root.shape[0]
            columns = torch.arange(width, device=root.device)
            rows = torch.arange(n, device=root.device)
            nodes = torch.zeros(n, width, dim, device=root.device, dtype=root.dtype)
            nodes = torch.where((columns == 0).view(1, width, 1), root.unsqueeze(1), nodes)
            for best in reversed(merges):
                active = best >= 0
                at = best.clamp(min=0)
                children = self.decode(nodes[rows, at])
                # Undo the shift: the nodes after the parent move one column right.
                after = (columns.unsqueeze(0) > at.unsqueeze(1)) & active.unsqueeze(1)
                source = (columns.unsqueeze(0) - after.long()).clamp(min=0)
                shifted = nodes.gather(1, source.unsqueeze(2).expand_as(nodes))
                left = (columns.unsqueeze(0) == at.unsqueeze(1)) & active.unsqueeze(1)
                right = (columns.unsqueeze(0) == at.unsqueeze(1) + 1) & active.unsqueeze(1)
                nodes = torch.where(left.unsqueeze(2), children[:, None, :dim], shifted)
                nodes = torch.where(right.unsqueeze(2), children[:, None, dim:], nodes)
            return nodes

    return RecursiveAutoencoder()


def _merged(nodes, parent, best, columns):
    """The row of ``nodes`` (n, width, d) after merging columns ``best`` and ``best + 1``
    into ``parent`` (n, d): the parent at ``best``, the nodes after it one column left;
    rows with ``best`` = -1 unchanged."""
    import torch

    active = (best >= 0).unsqueeze(1)
    after = (columns.unsqueeze(0) > best.unsqueeze(1)) & active
    source = (columns.unsqueeze(0) + after.long()).clamp(max=len(columns) - 1)
    shifted = nodes.gather(1, source.unsqueeze(2).expand_as(nodes))
    at = ((columns.unsqueeze(0) == best.unsqueeze(1)) & active).unsqueeze(2)
    return torch.where(at, parent.unsqueeze(1), shifted)


class URAE(NeuralEncoder):
    """Recursive autoencoder over greedy trees of fixed pretrained word vectors.

    Parameters
    ----------
    vector : {"root", "mean"}
        The sentence vector: the tree's root, or the mean of all its nodes.
    source : str
        The leaves' word vectors: :data:`sentspace.models.word_vectors.DEFAULT_SOURCE` (the bundled
        GloVe 6B 50d) or a word2vec / GloVe / fastText text file.
    max_length : int
        Words with a vector used per sentence (training and encoding alike).
    epochs, batch_sentences, learning_rate, min_count, max_vocab, lowercase, seed,
    training_file
        As in :class:`sentspace.models.neural.NeuralEncoder` (the vocabulary keeps only words
        that have a vector).
    """

    family = "urae"
    file_params = ("training_file", "source")
    title = "URAE: recursive autoencoder on greedy trees of GloVe vectors (Socher et al. 2011)"
    batch_size = 256
    cpu_threads = 1

    defaults = {**TRAINING_DEFAULTS, "learning_rate": 0.001, "min_count": 1, "max_vocab": 100_000}

    def __init__(
        self,
        vector: str = "root",
        source: str = DEFAULT_SOURCE,
        max_length: int = 40,
        **training: Any,
    ):
        super().__init__(**training)
        if vector not in VECTORS:
            raise ModelError(f"vector must be one of {', '.join(VECTORS)}, not {vector!r}")
        if int(max_length) < 2:
            raise ModelError(f"max_length must be at least 2, not {max_length}")
        self.vector, self.max_length = vector, int(max_length)
        self.source = (
            source if source == DEFAULT_SOURCE else str(Path(source).expanduser().absolute())
        )

    @property
    def dim(self) -> int:
        if self.module_ is not None:
            return int(self.module_.leaves.shape[1])
        return load_table(self.source).dim

    def _prepare(self, texts: list[str], vocab: Vocabulary | None = None):
        table = load_table(self.source)
        token_lists = []
        for text in texts:
            if text.strip():
                tokens = tokenize(text, self.lowercase)
                token_lists.append(
                    [token for token, row in zip(tokens, table.rows(tokens)) if row >= 0][
                        : self.max_length
                    ]
                )
        if vocab is None:
            vocab = Vocabulary.build(token_lists, self.min_count, self.max_vocab)
        sentences = Ragged.of([vocab.ids(tokens, keep_unknown=False) for tokens in token_lists])
        examples = np.flatnonzero(sentences.lengths >= 2)
        if not len(examples):
            raise ModelError(
                f"none of the {len(token_lists):,} training sentences has two "
                "words with a word vector: nothing to compose"
            )
        return vocab, (sentences, examples), len(examples)

    def _new_module(self, vocab: Vocabulary):
        table = load_table(self.source)
        leaves = np.zeros((len(vocab), table.dim), dtype=np.float32)
        rows = table.rows(list(vocab.words))
        leaves[len(SPECIALS) :][rows >= 0] = table.vectors[rows[rows >= 0]]
        leaves /= np.maximum(np.linalg.norm(leaves, axis=1, keepdims=True), 1e-12)
        return _network(leaves)

    def _batches(self, data, generator) -> Iterator[Any]:
        sentences, examples = data
        for batch in self._order(len(examples), generator):
            rows = examples[batch]
            yield sentences.padded(rows), sentences.lengths[rows]

    def _loss(self, module, batch, generator):
        """Mean over sentences of the non-terminals' reconstruction error plus the root's
        unfolding error (squared error per leaf)."""
        import torch

        ids, lengths = (torch.as_tensor(array, device=module.leaves.device) for array in batch)
        merges, _, _ = module.trees(ids, lengths)
        root, inner_error = module(ids, lengths, merges)
        unfolded = module.unfold(root, merges, ids.shape[1])
        mask = (ids != 0).to(unfolded.dtype)
        unfolding = ((unfolded - module.leaves[ids]).pow(2).sum(2) * mask).sum(1) / lengths
        return (inner_error + unfolding).mean()

    def _encode_batch(self, texts):
        with cpu_threads(self.cpu_threads):
            return super()._encode_batch(texts)

    def _encode_ids(self, sequences: Ragged):
        import torch

        device = self.module_.leaves.device
        # Words without a vector have no leaf: dropped, as in training.
        known = sequences.ids > len(SPECIALS) - 1
        owner = np.repeat(np.arange(len(sequences)), sequences.lengths)
        kept = Ragged.of(
            np.split(
                sequences.ids[known],
                np.cumsum(np.bincount(owner[known], minlength=len(sequences)))[:-1],
            )
        )
        lengths = np.minimum(kept.lengths, self.max_length)
        ids = torch.as_tensor(kept.padded(np.arange(len(kept)), self.max_length), device=device)
        lengths_t = torch.as_tensor(lengths, device=device)
        _, nodes, total = self.module_.trees(ids, lengths_t)
        if self.vector == "root":
            return nodes[:, 0]
        return total / torch.as_tensor(
            np.maximum(2 * lengths - 1, 1), device=device, dtype=total.dtype
        ).unsqueeze(1)
