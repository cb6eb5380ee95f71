"""sentspace: explore and evaluate sentence-embedding spaces.

From Python (a notebook, a script)::

    import sentspace
    corpus = sentspace.load_corpus("msrp-grouped")
    results = sentspace.evaluate("classification", corpus, encoders=["bow", "tfidf"])
    results.to_frame()                     # pandas: encoder, metric, value, ci_low, ...
    sentspace.show(corpus, sentspace.encode(corpus, "tfidf"))   # the window, aside

Wherever an encoder goes, so does your own model (any object with ``encode(list[str])
-> array``, e.g. a ``SentenceTransformer``) or an array of the corpus's embeddings, one
row per sentence: ``sentspace.evaluate("relatedness", sick, ["bow", model, array])``.
``encode`` returns a dense float32 array (``sparse=True`` keeps bag-of-words CSR).

The names in ``__all__`` are the stable surface (``sentspace._api``); everything else
may change. Its errors are ValueErrors (``except ValueError`` catches a bad argument or
file; :class:`NotFoundError`, a missing file or folder, is a FileNotFoundError too):
``InputError`` and, beneath it, ``CorpusError``, ``ModelError``, ``EvaluationError``. They load on first use, so ``python -m sentspace`` still opens the window
before numpy is imported.

The code lives in the repository's ``app/`` (the application and its Qt-free core),
``models/`` (the encoders) and ``resources/`` (bundled data), imported as
``sentspace.app``, ``sentspace.models`` and ``sentspace.resources``: under one name of
its own, a user's ``app.py`` or ``models.py`` beside a notebook shadows nothing.
"""

__all__ = [
    "load_corpus",
    "encoder",
    "encode",
    "evaluate",
    "project",
    "neighbours",
    "explain",
    "show",
    "evaluations",
    "read_mteb",
    "mteb_model",
    "where",
    "InputError",
    "NotFoundError",
    "CorpusError",
    "ModelError",
    "EvaluationError",
]


def __getattr__(name: str):
    if name in __all__:
        from sentspace import _api

        return getattr(_api, name)
    if name == "__version__":
        from importlib import metadata

        try:
            return metadata.version("sentspace")
        except metadata.PackageNotFoundError:  # a checkout that was never installed
            return "unknown"
    raise AttributeError(f"module 'sentspace' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})
