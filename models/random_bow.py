"""Random bag of words: a sentence is the sum of fixed random vectors of its tokens.

The baseline of White et al. (2015): it knows nothing of meaning, so whatever it scores
is what word overlap alone achieves on a dataset.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from sentspace.models.base import Embeddings, Encoder, ModelError, WordParts
from sentspace.models.tokenize import count_matrix, tokenize

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _splitmix64(state: np.ndarray) -> np.ndarray:
    """The SplitMix64 output function, elementwise on a uint64 array (wrapping arithmetic)."""
    z = state
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def random_word_vectors(tokens: Sequence[str], dimension: int, seed: int) -> np.ndarray:
    """The fixed random vector of each token, a function of the token and seed alone.

    Each token's 64-bit key is a keyed BLAKE2b hash of the token; the key seeds a
    SplitMix64 stream whose uniforms become standard normals by Box-Muller. Written out
    with numpy integer arithmetic rather than a ``numpy.random.Generator`` per token, so
    that all tokens are computed at once and the vectors do not depend on numpy's
    generator streams, which may change between versions (caches are keyed by the
    encoder's parameters, not the numpy version).

    Parameters
    ----------
    tokens : sequence of str, length k
    dimension : int
    seed : int

    Returns
    -------
    ndarray of shape (k, dimension), float32
        Entries are N(0, 1/dimension), so vectors have unit norm on average.
    """
    salt = seed.to_bytes(8, "little", signed=True)
    keys = np.array(
        [
            int.from_bytes(
                hashlib.blake2b(token.encode("utf-8"), digest_size=8, key=salt).digest(), "little"
            )
            for token in tokens
        ],
        dtype=np.uint64,
    )
    half = (dimension + 1) // 2
    with np.errstate(over="ignore"):
        steps = np.arange(1, 2 * half + 1, dtype=np.uint64) * _GOLDEN
        bits = _splitmix64(keys[:, None] + steps[None, :])
    uniforms = (bits >> np.uint64(11)).astype(np.float64) * 2.0**-53  # in [0, 1)
    radius = np.sqrt(-2.0 * np.log1p(-uniforms[:, :half]))  # log of (0, 1]
    angle = 2.0 * np.pi * uniforms[:, half:]
    normals = np.concatenate([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    return (normals[:, :dimension] / np.sqrt(dimension)).astype(np.float32)


class RandomBagOfWords(Encoder):
    """Sum of fixed-seed random word vectors over a sentence's tokens (punctuation kept).

    Needs no fit: a token's vector depends only on the token and ``seed``, so words never
    seen before get vectors too and any two runs agree.

    Parameters
    ----------
    dimension : int
        Length of the word (and sentence) vectors.
    seed : int
        Chooses the random vectors.
    lowercase : bool
        Lowercase before tokenising.
    """

    family = "random-bow"
    title = "Random bag of words"

    def __init__(self, dimension: int = 620, seed: int = 0, lowercase: bool = True):
        if dimension < 1:
            raise ModelError(f"the dimension must be at least 1, not {dimension}")
        self.dimension = int(dimension)
        self.seed = int(seed)
        self.lowercase = lowercase

    @property
    def dim(self) -> int:
        return self.dimension

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        counts, types = count_matrix(texts, self.lowercase)
        return counts @ random_word_vectors(types, self.dimension, self.seed)

    def word_parts(self, text: str) -> WordParts:
        """Each token's part is its random vector (the sentence is their sum)."""
        tokens = tokenize(text, self.lowercase)
        types, index = np.unique(np.array(tokens, dtype=object), return_inverse=True)
        parts = random_word_vectors(types.tolist(), self.dimension, self.seed)[index]
        return WordParts(
            tuple(tokens),
            parts.reshape(len(tokens), self.dimension),
            np.ones(len(tokens), dtype=bool),
        )
