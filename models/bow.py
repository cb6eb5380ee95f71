"""Bag-of-words encoders built on scikit-learn's vectorisers."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Self

import numpy as np
import scipy.sparse as sp

# scikit-learn is imported where a vectoriser is made: importing it pulls scipy.stats
# and pandas (about 1 s), too slow for the GUI's start.
if TYPE_CHECKING:
    from sklearn.feature_extraction.text import CountVectorizer

from sentspace.models.base import Encoder, NotFittedError, WordParts
from sentspace.models.tokenize import TOKEN_PATTERN


class _VectorizerEncoder(Encoder):
    requires_fit = True

    def __init__(self, lowercase: bool = True):
        self.lowercase = lowercase
        self.vectorizer_: CountVectorizer | None = None

    def _make_vectorizer(self) -> CountVectorizer:
        raise NotImplementedError

    def fit(self, texts: Sequence[str]) -> Self:
        vectorizer = self._make_vectorizer()
        vectorizer.fit(list(texts))
        self.vectorizer_ = vectorizer
        return self

    @property
    def dim(self) -> int:
        if self.vectorizer_ is None:
            raise AttributeError("dim is known only after fit")
        return len(self.vectorizer_.vocabulary_)

    @property
    def vocabulary(self) -> frozenset[str]:
        return frozenset(self.vectorizer_.vocabulary_) if self.vectorizer_ else frozenset()

    def _encode_batch(self, texts: Sequence[str]) -> sp.csr_array:
        if not texts:  # scikit-learn's TF-IDF refuses zero rows
            return sp.csr_array((0, self.dim), dtype=np.float32)
        assert self.vectorizer_ is not None, "fitted"
        return self.vectorizer_.transform(list(texts)).tocsr().astype(np.float32)

    def word_parts(self, text: str) -> WordParts:
        """Each token of the vectoriser's own analyser gets its column's value in the
        encoded row (TF-IDF weighting and normalisation included), shared equally among
        the occurrences of that column."""
        if self.vectorizer_ is None:
            raise NotFittedError(f"{self.name} must be fitted before explaining")
        tokens = self.vectorizer_.build_analyzer()(text)
        row = self._encode_batch([text]).toarray()[0]
        vocabulary = self.vectorizer_.vocabulary_
        columns = np.array([vocabulary.get(token, -1) for token in tokens], dtype=np.int64)
        known = columns >= 0
        occurrences = np.bincount(columns[known], minlength=self.dim)
        values = row[columns[known]] / occurrences[columns[known]]
        parts = sp.csr_array(
            (values.astype(np.float32), (np.flatnonzero(known), columns[known])),
            shape=(len(tokens), self.dim),
        )
        return WordParts(tuple(tokens), parts, known)

    @property
    def is_fitted(self) -> bool:
        # Not from _fitted_state: hashing the sorted vocabulary took 0.4 s on MSRP, on
        # every switch to a corpus whose neighbours tab checks its spaces.
        return self.vectorizer_ is not None

    def _fitted_state(self) -> str | None:
        if self.vectorizer_ is None:
            return None
        h = hashlib.sha256("\n".join(self.vectorizer_.get_feature_names_out()).encode())
        idf = getattr(self.vectorizer_, "idf_", None)
        if idf is not None:
            h.update(np.ascontiguousarray(idf).tobytes())
        return h.hexdigest()[:16]


class BagOfWords(_VectorizerEncoder):
    """Token counts over the vocabulary seen in ``fit``; punctuation tokens are kept.

    Fitting only collects the vocabulary, which leaks nothing: a word seen only in test
    data gets no classifier weight. Words outside the vocabulary are dropped.
    """

    family = "bow"
    title = "Bag of words"

    def _make_vectorizer(self) -> CountVectorizer:
        from sklearn.feature_extraction.text import CountVectorizer  # noqa: PLC0415

        return CountVectorizer(
            token_pattern=TOKEN_PATTERN, lowercase=self.lowercase, dtype=np.float32
        )


class TfIdf(_VectorizerEncoder):
    """TF-IDF weighted bag of words (smoothed idf, L2-normalised rows).

    The idf weights are statistics of the fitted texts, so evaluations refit it on each
    training fold.
    """

    family = "tfidf"
    title = "TF-IDF"
    learns_from_data = True

    def _make_vectorizer(self) -> CountVectorizer:
        from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: PLC0415

        return TfidfVectorizer(
            token_pattern=TOKEN_PATTERN, lowercase=self.lowercase, dtype=np.float32
        )
