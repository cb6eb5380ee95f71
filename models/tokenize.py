"""The tokenisation shared by the word-based encoders."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

#: Runs of word characters, and every other non-space character as its own token, so
#: punctuation counts as tokens (as in the bag-of-words baselines of White et al. 2015).
TOKEN_PATTERN = r"\w+|[^\w\s]"
_TOKEN_RE = re.compile(TOKEN_PATTERN)


def tokenize(text: str, lowercase: bool = True) -> list[str]:
    """Tokens of ``text``: ``"Don't stop."`` -> ``["don", "'", "t", "stop", "."]``."""
    return _TOKEN_RE.findall(text.lower() if lowercase else text)


def count_matrix(texts: Sequence[str], lowercase: bool = True) -> tuple[sp.csr_array, list[str]]:
    """Token counts of ``texts`` over the token types that occur in them.

    The types are numbered in order of first occurrence, so the caller maps each *type*
    (not each token) to a vector and composes sentences with one sparse product.

    Parameters
    ----------
    texts : sequence of str, length n
    lowercase : bool
        Lowercase before tokenising.

    Returns
    -------
    counts : csr_array of shape (n, n_types), float32
        ``counts[i, j]`` is how often type ``j`` occurs in text ``i``.
    types : list of str, length n_types
    """
    findall = _TOKEN_RE.findall
    docs = [findall(text.lower() if lowercase else text) for text in texts]
    index: dict[str, int] = {}
    ids = np.array(
        [index.setdefault(token, len(index)) for doc in docs for token in doc], dtype=np.int32
    )
    indptr = np.zeros(len(docs) + 1, dtype=np.int32)
    np.cumsum(np.fromiter(map(len, docs), np.int32, len(docs)), out=indptr[1:])
    counts = sp.csr_array(
        (np.ones(len(ids), np.float32), ids, indptr), shape=(len(docs), len(index))
    )
    counts.sum_duplicates()
    return counts, list(index)
