"""PCA over bag of words: token counts projected on their leading principal axes."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Self

import numpy as np

# scikit-learn is imported in fit: importing it pulls scipy.stats and pandas (about
# 1 s), too slow for the GUI's start.
if TYPE_CHECKING:
    from sklearn.feature_extraction.text import CountVectorizer

from sentspace.models.base import Embeddings, Encoder, ModelError
from sentspace.models.tokenize import TOKEN_PATTERN


class PcaBagOfWords(Encoder):
    """Bag-of-words counts reduced by PCA to ``dimension`` components.

    Both the vocabulary and the principal axes come from the texts given to ``fit``
    alone, so evaluations fit it inside each training fold; words seen only later are
    dropped. This is centred PCA, as in the papers, computed with scikit-learn's
    ``PCA(svd_solver="arpack")``: on sparse input it centres implicitly (through a linear
    operator), so the count matrix is never densified. ``TruncatedSVD`` would be faster
    but does not centre, and its first axis then mostly encodes sentence length.

    Same seed, same vectors on any machine: the fit runs in float64 (ARPACK in float32
    differs in the last bits from run to run and with the BLAS thread count), components
    beyond the data's numerical rank are dropped (ARPACK returns arbitrary directions of
    the null space for them, different on every machine), and each component's sign is
    scikit-learn's ``svd_flip`` convention (its largest loading is positive).

    Parameters
    ----------
    dimension : int
        Number of components wanted. At most ``min(n_fit_texts, n_vocabulary) - 1`` (an
        ARPACK limit) and the numerical rank of the centred counts are kept; ``dim``
        reports the number kept.
    lowercase : bool
        Lowercase before tokenising.
    seed : int
        Seeds ARPACK's start vector, so refitting the same texts gives the same axes.
    """

    family = "pca-bow"
    title = "PCA over bag of words"
    requires_fit = True
    learns_from_data = True

    def __init__(self, dimension: int = 300, lowercase: bool = True, seed: int = 0):
        if dimension < 1:
            raise ModelError(f"the dimension must be at least 1, not {dimension}")
        self.dimension = int(dimension)
        self.lowercase = lowercase
        self.seed = int(seed)
        self.vectorizer_: CountVectorizer | None = None
        self.components_: np.ndarray | None = None  # (dim, n_vocabulary), float64
        self._offset: np.ndarray | None = None  # mean @ components_.T, (dim,)
        self._fit_hash: str | None = None

    def fit(self, texts: Sequence[str]) -> Self:
        """Learn the vocabulary and principal axes of ``texts`` (and nothing else)."""
        texts = list(texts)
        from sklearn.decomposition import PCA  # noqa: PLC0415
        from sklearn.feature_extraction.text import CountVectorizer  # noqa: PLC0415
        from sklearn.utils.sparsefuncs import mean_variance_axis  # noqa: PLC0415

        vectorizer = CountVectorizer(
            token_pattern=TOKEN_PATTERN, lowercase=self.lowercase, dtype=np.float64
        )
        try:
            counts = vectorizer.fit_transform(texts)
        except ValueError:  # no tokens at all: scikit-learn's "empty vocabulary"
            counts = None
        n_components = min(self.dimension, min(counts.shape) - 1) if counts is not None else 0
        if n_components < 1:
            raise ModelError(
                "PCA over bag of words needs at least two texts and two distinct "
                f"words to fit; got {len(texts)} texts"
            )
        if not mean_variance_axis(counts, axis=0)[1].any():  # ARPACK fails on all zeros
            raise ModelError(
                "PCA over bag of words needs texts that differ in their words; "
                f"all {len(texts)} fit texts have the same counts"
            )
        pca = PCA(n_components, svd_solver="arpack", random_state=self.seed).fit(counts)
        # numpy.linalg.matrix_rank's tolerance; singular values are sorted descending.
        singular = pca.singular_values_
        tolerance = singular[0] * max(counts.shape) * np.finfo(np.float64).eps
        rank = int(np.sum(singular > tolerance))
        self.components_ = pca.components_[:rank]
        self._offset = pca.mean_ @ self.components_.T
        self.vectorizer_ = vectorizer
        # The axes are a deterministic function of the fit texts and the parameters, so
        # hashing the texts identifies the fit without depending on BLAS rounding.
        # The prefix names this fitting method, so embeddings cached by the float32,
        # uncapped fit (same texts, other vectors) are not served for this one.
        h = hashlib.sha256(b"float64 pca, numerical rank\0")
        for text in texts:
            h.update(text.encode("utf-8") + b"\0")
        self._fit_hash = h.hexdigest()[:16]
        return self

    @property
    def dim(self) -> int:
        if self.components_ is None:
            raise AttributeError("dim is known only after fit")
        return len(self.components_)

    @property
    def vocabulary(self) -> frozenset[str]:
        return frozenset(self.vectorizer_.vocabulary_) if self.vectorizer_ else frozenset()

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        if not texts:  # scikit-learn refuses zero rows
            return np.zeros((0, self.dim), dtype=np.float32)
        assert self.vectorizer_ is not None and self.components_ is not None, "fitted"
        counts = self.vectorizer_.transform(list(texts))
        return (counts @ self.components_.T - self._offset).astype(np.float32)

    def _fitted_state(self) -> str | None:
        return self._fit_hash
