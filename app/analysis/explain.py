"""Why are two sentences close? Similarity attribution for one pair.

Additive encoders (bag of words, TF-IDF, random bag of words, word-vector mean and sum,
trained Word2Vec and fastText) build a sentence vector as a sum of token parts, u = sum_w e_w (``Encoder.word_parts``,
with the encoder's own tokeniser and weighting). The cosine then splits exactly:

    cos(u, v) = sum_{w in A, w' in B} (e_w . e_w') / (|u| |v|)

so each word pair gets a contribution (the pair matrix), each word w of A contributes its
row sum (e_w . v) / (|u| |v|), each word of B its column sum, and both sum to the cosine.

Other encoders are explained by leave-one-word-out occlusion: a word's contribution is
how much the cosine drops when the word is cut from its sentence, all variants encoded in
one call. For sentence-transformers models the result also carries the token-to-token
cosine matrix of the contextual token embeddings (which sub-words align).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.results import Provenance, Result
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Encoder, WordParts, fitted_copy

NAME = "explain"
EXACT = "exact decomposition"
OCCLUSION = "leave-one-word-out occlusion"
#: What occlusion removes: runs of word characters (punctuation stays).
_WORD_RE = re.compile(r"\w+")
#: Rows of the summary per sentence and for the pairs.
TOP = 5


@dataclass(frozen=True, eq=False)
class TokenAlignment:
    """Cosine of every contextual token embedding of A with every one of B.

    Attributes
    ----------
    tokens_a, tokens_b : tuple of str
        The model's sub-word tokens (special tokens left out).
    cosine : ndarray of shape (len(tokens_a), len(tokens_b))
    """

    tokens_a: tuple[str, ...]
    tokens_b: tuple[str, ...]
    cosine: np.ndarray


@dataclass(frozen=True, eq=False)
class PairExplanation(Result):
    """Which words make two sentences similar under an encoder.

    Attributes
    ----------
    texts : (str, str)
    cosine : float
        Cosine of the two sentence vectors (NaN when one is zero).
    method : :data:`EXACT` or :data:`OCCLUSION`
    tokens_a, tokens_b : tuple of str
        Tokens as the encoder sees them (exact), or the words removed one at a time
        (occlusion).
    contribution_a, contribution_b : ndarray of shape (len(tokens_a),), (len(tokens_b),)
        Exact: each token's share of the cosine (each sums to ``cosine``). Occlusion:
        cosine minus the cosine without that word (positive: the word made them closer).
    pair_contribution : ndarray of shape (len(tokens_a), len(tokens_b)) or None
        Exact only: each token pair's share of the cosine (rows sum to
        ``contribution_a``, columns to ``contribution_b``).
    known_a, known_b : ndarray of bool
        Whether the encoder has a vector for each token (exact; all True for occlusion).
    alignment : TokenAlignment or None
        Sentence-transformers models only.
    """

    evaluation = NAME
    texts: tuple[str, str]
    cosine: float
    method: str
    tokens_a: tuple[str, ...]
    tokens_b: tuple[str, ...]
    contribution_a: np.ndarray
    contribution_b: np.ndarray
    pair_contribution: np.ndarray | None
    known_a: np.ndarray
    known_b: np.ndarray
    alignment: TokenAlignment | None = None

    def top_words(self, side: int, n: int = TOP) -> list[tuple[str, float]]:
        """The ``n`` tokens of sentence ``side`` (0: A, 1: B) that contribute most."""
        tokens, values = (
            (self.tokens_a, self.contribution_a)
            if side == 0
            else (self.tokens_b, self.contribution_b)
        )
        order = np.argsort(-values, kind="stable")[:n]
        return [(tokens[i], float(values[i])) for i in order]

    def top_pairs(self, n: int = TOP) -> list[tuple[str, str, float]]:
        """The ``n`` word pairs that contribute most (exact), or the most aligned
        sub-word pairs (transformers); empty otherwise."""
        if self.pair_contribution is not None:
            tokens_a, tokens_b, matrix = self.tokens_a, self.tokens_b, self.pair_contribution
        elif self.alignment is not None:
            tokens_a, tokens_b = self.alignment.tokens_a, self.alignment.tokens_b
            matrix = self.alignment.cosine
        else:
            return []
        if matrix.size == 0:
            return []
        # One row per pair of words, not per pair of occurrences: exact contributions of
        # a repeated word add up ("." and "." four times is one row); alignments keep
        # the best-aligned occurrence.
        types_a, index_a = np.unique(np.asarray(tokens_a, dtype=object), return_inverse=True)
        types_b, index_b = np.unique(np.asarray(tokens_b, dtype=object), return_inverse=True)
        rows_of, columns_of = np.meshgrid(index_a, index_b, indexing="ij")
        if self.pair_contribution is not None:
            by_type = np.zeros((len(types_a), len(types_b)))
            np.add.at(by_type, (rows_of, columns_of), matrix)
        else:
            by_type = np.full((len(types_a), len(types_b)), -np.inf)
            np.maximum.at(by_type, (rows_of, columns_of), matrix)
        order = np.argsort(-by_type, axis=None, kind="stable")[:n]
        rows, columns = np.unravel_index(order, by_type.shape)
        return [
            (str(types_a[i]), str(types_b[j]), float(by_type[i, j]))
            for i, j in zip(rows.tolist(), columns.tolist())
            if by_type[i, j] != 0
        ]

    @property
    def pair_label(self) -> str:
        return (
            "word-pair contributions"
            if self.pair_contribution is not None
            else "token alignment (cosine)"
        )

    def summary(self) -> list[tuple[str, str]]:
        rows = [("cosine", f"{self.cosine:.4f}"), ("method", self.method)]
        for side, name in ((0, "A"), (1, "B")):
            rows.append(
                (
                    f"top words of {name}",
                    ", ".join(f"{token} {value:+.4f}" for token, value in self.top_words(side)),
                )
            )
        if pairs := self.top_pairs():
            rows.append(
                (
                    f"top {self.pair_label}",
                    ", ".join(f"{a}~{b} {value:+.4f}" for a, b, value in pairs),
                )
            )
        return rows

    def body(self) -> dict[str, Any]:
        data = {
            "texts": list(self.texts),
            "cosine": self.cosine,
            "method": self.method,
            "tokens_a": list(self.tokens_a),
            "tokens_b": list(self.tokens_b),
            "contribution_a": self.contribution_a.tolist(),
            "contribution_b": self.contribution_b.tolist(),
            "known_a": self.known_a.tolist(),
            "known_b": self.known_b.tolist(),
            "pair_contribution": (
                None if self.pair_contribution is None else self.pair_contribution.tolist()
            ),
        }
        if self.alignment is not None:
            data["alignment"] = {
                "tokens_a": list(self.alignment.tokens_a),
                "tokens_b": list(self.alignment.tokens_b),
                "cosine": self.alignment.cosine.tolist(),
            }
        return data


def _dense64(matrix) -> np.ndarray:
    return (matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)).astype(np.float64)


def decompose(parts_a: WordParts, parts_b: WordParts) -> tuple[float, np.ndarray]:
    """The cosine of two additive sentence vectors and its exact split into token pairs.

    Returns
    -------
    cosine : float (NaN when a sentence vector is zero)
    pair_contribution : ndarray of shape (k_a, k_b), float64, summing to ``cosine``
        (zeros when the cosine is NaN).
    """
    a, b = parts_a.parts, parts_b.parts
    if sp.issparse(a):
        a, b = sp.csr_array(a, dtype=np.float64), sp.csr_array(b, dtype=np.float64)
    else:
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    u = _dense64(a.sum(axis=0)).ravel()
    v = _dense64(b.sum(axis=0)).ravel()
    scale = np.linalg.norm(u) * np.linalg.norm(v)
    if a.shape[0] == 0 or b.shape[0] == 0 or scale == 0:
        return float("nan"), np.zeros((a.shape[0], b.shape[0]))
    pairs = _dense64(a @ b.T) / scale
    return float(u @ v / scale), pairs


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the words occlusion removes one at a time."""
    return [match.span() for match in _WORD_RE.finditer(text)]


def without_word(text: str, span: tuple[int, int]) -> str:
    """``text`` with the word at ``span`` cut out and the spaces around it joined."""
    start, end = span
    return " ".join(f"{text[:start].rstrip()} {text[end:].lstrip()}".split())


def _cosines(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row-wise cosine of two dense float64 matrices (NaN for a zero row)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (x * y).sum(axis=1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))


def _unit_rows(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def _occlusion(text_a: str, text_b: str, encoder: Encoder) -> Job[tuple]:
    """Cosine, words, and each word's occlusion drop, from one encode of the pair and
    every variant; with the token alignment from the same forward pass when the
    encoder gives token embeddings (sentence-transformers)."""
    spans = word_spans(text_a), word_spans(text_b)
    texts = [
        text_a,
        text_b,
        *(without_word(text_a, span) for span in spans[0]),
        *(without_word(text_b, span) for span in spans[1]),
    ]
    alignment = None
    if hasattr(encoder, "encode_with_tokens"):
        yield Progress(f"encoding with {encoder.name}", 0, len(texts))
        matrix, tokens = encoder.encode_with_tokens(texts)
        (tokens_a, x), (tokens_b, y) = tokens[:2]
        alignment = TokenAlignment(
            tokens_a, tokens_b, (_unit_rows(x) @ _unit_rows(y).T).astype(np.float64)
        )
    else:
        matrix = yield from encoder.iter_encode(texts)
    matrix = _dense64(matrix)
    u, v = matrix[0], matrix[1]
    cosine = float(_cosines(u[None], v[None])[0])
    n_a = len(spans[0])
    dropped_a = _cosines(matrix[2 : 2 + n_a], np.broadcast_to(v, (n_a, len(v))))
    dropped_b = _cosines(matrix[2 + n_a :], np.broadcast_to(u, (len(spans[1]), len(u))))
    words = tuple(tuple(text[s:e] for s, e in side) for text, side in zip((text_a, text_b), spans))
    return cosine, words, cosine - dropped_a, cosine - dropped_b, alignment


def explain_pair(
    text_a: str, text_b: str, encoder: Encoder, *, corpus: Corpus | None = None
) -> Job[PairExplanation]:
    """Attribute the cosine of two sentences to their words.

    Parameters
    ----------
    text_a, text_b : the two sentences.
    encoder : used as it is when fitted (the GUI passes the encoder of its run);
        otherwise a copy is fitted on ``corpus``'s texts and the two sentences.
    corpus : what the explanation is about (provenance) and what an unfitted encoder
        learns from; by default a corpus of the two sentences alone.

    Raises
    ------
    EvaluationError
        Precomputed embeddings: they cannot encode a sentence with a word left out.
    """
    if encoder.family == "precomputed":
        raise EvaluationError(
            "precomputed embeddings cannot encode the sentences with a "
            "word left out; explain with the encoder that made them"
        )
    if corpus is None:
        corpus = Corpus(name="pair", texts=(text_a, text_b), ids=("A", "B"))
    yield Progress("explaining", 0, 1)
    fitted = encoder
    if not encoder.is_fitted:
        fitted = yield from fitted_copy(encoder, [*corpus.texts, text_a, text_b])
    provenance = Provenance.of(corpus, encoder, texts=[text_a, text_b])
    parts_a = fitted.word_parts(text_a)
    if parts_a is not None:
        parts_b = fitted.word_parts(text_b)
        assert parts_b is not None, "an encoder with word parts has them for every text"
        cosine, pairs = decompose(parts_a, parts_b)
        result = PairExplanation(
            provenance=provenance,
            texts=(text_a, text_b),
            cosine=cosine,
            method=EXACT,
            tokens_a=parts_a.tokens,
            tokens_b=parts_b.tokens,
            contribution_a=pairs.sum(axis=1),
            contribution_b=pairs.sum(axis=0),
            pair_contribution=pairs,
            known_a=parts_a.known,
            known_b=parts_b.known,
        )
    else:
        cosine, (words_a, words_b), drop_a, drop_b, alignment = yield from _occlusion(
            text_a, text_b, fitted
        )
        result = PairExplanation(
            provenance=provenance,
            texts=(text_a, text_b),
            cosine=cosine,
            method=OCCLUSION,
            tokens_a=words_a,
            tokens_b=words_b,
            contribution_a=drop_a,
            contribution_b=drop_b,
            pair_contribution=None,
            known_a=np.ones(len(words_a), bool),
            known_b=np.ones(len(words_b), bool),
            alignment=alignment,
        )
    yield Progress("explaining", 1, 1)
    return result
