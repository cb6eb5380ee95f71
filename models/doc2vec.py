"""Doc2Vec (paragraph vectors, Le & Mikolov 2014) trained on the user's text with gensim.

Two families: PV-DM (``doc2vec-dm``: a paragraph vector plus context words predict the
next word; context averaged or concatenated) and PV-DBOW (``doc2vec-dbow``: the paragraph
vector alone predicts its words). Training, fingerprint and saving are
:class:`sentspace.models.word2vec.GensimEncoder`'s.

Sentence vectors, the training sentences' included, are inferred with frozen weights,
so a sentence's vector does not depend on whether it was in the training text or on
the batch around it. gensim's own ``infer_vector`` is not repeatable: its start vector
is seeded with Python's ``hash`` of the text (salted per process) and its sampling
draws continue the model's random stream, so two calls differ. This module runs the
same inference steps (gensim's Cython ``train_document_*`` with learning disabled for
the words and the output layer) from a start vector seeded by a stable hash of the
tokens, and resets the model's random stream to ``seed`` before every sentence.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from sentspace.models.base import Embeddings, ModelError
from sentspace.models.tokenize import count_matrix, tokenize
from sentspace.models.word2vec import GensimEncoder


class _Doc2VecEncoder(GensimEncoder):
    """Paragraph vectors; subclasses choose PV-DM or PV-DBOW.

    Parameters
    ----------
    vector_size, window, min_count, epochs, lowercase, seed, workers, training_file
        As in :class:`~sentspace.models.word2vec.GensimEncoder`.
    infer_epochs : int
        Inference steps per sentence (the learning rate falls linearly from the model's
        ``alpha`` to ``min_alpha`` over them).
    """

    #: The output layer and its negative-sampling table: inference runs through them.
    saved_arrays = ("wv.vectors", "syn1neg", "cum_table")
    #: Sentences per progress report (inference runs about 2,000 sentences a second).
    batch_size = 256

    params_after = "epochs"

    def __init__(self, infer_epochs: int = 20, **gensim: Any):
        super().__init__(**gensim)
        if infer_epochs < 1:
            raise ModelError(f"infer_epochs must be at least 1, not {infer_epochs}")
        self.infer_epochs = int(infer_epochs)

    def _training_corpus(self, token_lists: list[list[str]]) -> list:
        from gensim.models.doc2vec import TaggedDocument

        return [TaggedDocument(tokens, [i]) for i, tokens in enumerate(token_lists)]

    def _weights(self) -> list[np.ndarray]:
        # The doctag vectors are not used (sentences are inferred), the word vectors are
        # in PV-DM only, and the output layer always.
        return [self.model_.wv.vectors, self.model_.syn1neg]

    def _start_vector(self, tokens: list[str]) -> np.ndarray:
        """gensim's start vector (uniform in +-0.5 / size), seeded by the tokens and seed."""
        key = hashlib.blake2b(
            "\x1f".join(tokens).encode("utf-8", "surrogatepass"), digest_size=8
        ).digest()
        rng = np.random.Generator(np.random.SFC64([self.seed, int.from_bytes(key, "little")]))
        vector = (rng.random(self.vector_size, dtype=np.float32) - 0.5) / self.vector_size
        return vector.reshape(1, self.vector_size)

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        from gensim.models.doc2vec_inner import (
            train_document_dbow,
            train_document_dm,
            train_document_dm_concat,
        )

        model = self.model_
        counts, types = count_matrix(texts, self.lowercase)
        known = np.fromiter((t in model.wv.key_to_index for t in types), np.bool_, len(types))
        n_known = counts @ known.astype(np.float32)
        if self._tally is not None:
            self._tally.add(counts, types, known, n_known)
        if model.dm_concat:
            step, uses_neu1 = train_document_dm_concat, True
        elif model.dm:
            step, uses_neu1 = train_document_dm, True
        else:
            step, uses_neu1 = train_document_dbow, False
        # gensim's infer_vector schedule: alpha down to min_alpha in infer_epochs steps.
        alphas = (
            [model.alpha]
            if self.infer_epochs == 1
            else np.linspace(model.alpha, model.min_alpha, self.infer_epochs).tolist()
        )
        work = np.zeros(model.layer1_size, dtype=np.float32)
        extra = (np.zeros(model.layer1_size, dtype=np.float32),) if uses_neu1 else ()
        lockf = np.ones(1, dtype=np.float32)
        matrix = np.zeros((len(texts), self.vector_size), dtype=np.float32)
        for row in np.flatnonzero(n_known > 0).tolist():  # no known word: a counted zero row
            tokens = tokenize(texts[row], self.lowercase)
            vector = self._start_vector(tokens)
            model.random.seed(self.seed)
            for alpha in alphas:
                step(
                    model,
                    tokens,
                    [0],
                    alpha,
                    work,
                    *extra,
                    learn_words=False,
                    learn_hidden=False,
                    doctag_vectors=vector,
                    doctags_lockf=lockf,
                )
            matrix[row] = vector[0]
        return matrix


class Doc2VecDM(_Doc2VecEncoder):
    """PV-DM paragraph vectors trained on the texts given to ``fit``.

    Parameters
    ----------
    vector_size, window, min_count, epochs, infer_epochs, lowercase, seed, workers,
    training_file
        As in :class:`_Doc2VecEncoder`.
    dm_concat : bool
        Concatenate the paragraph vector and the ``2 * window`` context word vectors
        (Le & Mikolov's PV-DM; a much larger, slower model) instead of averaging them.
    """

    family = "doc2vec-dm"
    title = "Doc2Vec PV-DM trained on your text"

    params_after = "epochs"

    def __init__(self, dm_concat: bool = False, **doc2vec: Any):
        super().__init__(**doc2vec)
        self.dm_concat = bool(dm_concat)

    def _new_model(self):
        from gensim.models import Doc2Vec

        return Doc2Vec(dm=1, dm_concat=int(self.dm_concat), dm_mean=1, **self._gensim_params())


class Doc2VecDBOW(_Doc2VecEncoder):
    """PV-DBOW paragraph vectors trained on the texts given to ``fit``.

    Parameters
    ----------
    vector_size, window, min_count, epochs, infer_epochs, lowercase, seed, workers,
    training_file
        As in :class:`_Doc2VecEncoder` (``window`` matters only with ``dbow_words``).
    dbow_words : bool
        Also train skip-gram word vectors alongside (slower; often better vectors).
    """

    family = "doc2vec-dbow"
    title = "Doc2Vec PV-DBOW trained on your text"

    params_after = "epochs"

    def __init__(self, dbow_words: bool = False, **doc2vec: Any):
        super().__init__(**doc2vec)
        self.dbow_words = bool(dbow_words)

    def _new_model(self):
        from gensim.models import Doc2Vec

        return Doc2Vec(dm=0, dbow_words=int(self.dbow_words), **self._gensim_params())
