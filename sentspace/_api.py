"""The functions ``import sentspace`` offers (listed in ``sentspace.__all__``).

Each is a thin layer over the core the CLI and the window use: corpora by the CLI's
specs, encoders by its ``--encoder`` spellings, and long work run as the same jobs,
synchronously, with :func:`sentspace.app.jobs.run_job` (``progress`` receives each
:class:`~sentspace.app.jobs.Progress`). Same inputs and seed, same numbers as
``sentspace eval``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.cli import PRECOMPUTED, build_encoder, summary_table
from sentspace.app.corpora import load_corpus as _load_spec
from sentspace.app.corpora.model import Corpus
from sentspace.app.errors import EvaluationError
from sentspace.app.jobs import Progress, run_job
from sentspace.models import DEFAULT_ENCODER
from sentspace.models.base import Embeddings, Encoder

ProgressCallback = Callable[[Progress], Any] | None
CorpusLike = Corpus | str | os.PathLike | Iterable[str]
EncoderLike = Encoder | str


def load_corpus(source: CorpusLike, *, name: str = "texts") -> Corpus:
    """A corpus from a built-in name (``"msrp-grouped"``), a path (any format the app
    reads), a list of sentences (one entry each, ids "0", "1", ... and ``name``), or a
    :class:`Corpus` (returned as it is)."""
    if isinstance(source, Corpus):
        return source
    if isinstance(source, (str, os.PathLike)):
        return _load_spec(source)
    texts = tuple(source)
    if not all(isinstance(text, str) for text in texts):
        raise TypeError("a corpus of texts takes strings only")
    return Corpus(name=name, texts=texts, ids=tuple(map(str, range(len(texts)))))


def encoder(spec: str, corpus: CorpusLike | None = None) -> Encoder:
    """A new, unfitted encoder by its ``--encoder`` spelling: a family (``"bow"``,
    ``"tfidf"``, ``"glove-mean"``, ``"minilm"``...), ``FAMILY:FILE``, ``path:FILE``, or
    ``precomputed:PATH``, which needs the ``corpus`` its rows are aligned to."""
    if spec.startswith(PRECOMPUTED) and corpus is None:
        raise ValueError(f"{spec}: precomputed embeddings need the corpus they belong to")
    return build_encoder(spec, load_corpus(corpus) if corpus is not None else None)


def _encoder(spec: EncoderLike, corpus: Corpus | None) -> Encoder:
    return spec if isinstance(spec, Encoder) else encoder(spec, corpus)


def encode(corpus: CorpusLike, encoder: EncoderLike = DEFAULT_ENCODER, *,
           progress: ProgressCallback = None) -> Embeddings:
    """Every sentence of ``corpus`` embedded, through the embedding cache (a second call
    reads the disk): float32, shape (len(corpus), dim), a dense array or a scipy CSR
    array (bag-of-words families). An encoder that requires fitting is fitted on the
    corpus's sentences (a copy; the one given stays as it is)."""
    from sentspace.app.cache import encode_corpus  # noqa: PLC0415

    corpus = load_corpus(corpus)
    return run_job(encode_corpus(corpus, _encoder(encoder, corpus)), progress)


class Results(list):
    """An evaluation's results, one per encoder in the order given (the objects
    ``sentspace eval`` prints), with what the CLI prints beside them.

    Attributes
    ----------
    paired : {encoder name: PairedTest or the reason there is none}, each encoder
        tested against the first, for evaluations that have a paired test.
    note : why the evaluated split was chosen, when it was chosen for you ("").
    """

    def __init__(self, results: Sequence, paired: dict[str, Any], note: str = ""):
        super().__init__(results)
        self.paired = paired
        self.note = note

    def table(self) -> str:
        """The ``summary()`` rows side by side, as ``sentspace eval`` prints them."""
        return summary_table(self)

    def to_frame(self):
        """Every result's :meth:`~sentspace.app.results.Result.to_frame`, stacked, with
        the encoder's name as the first column (needs pandas)."""
        import pandas as pd  # noqa: PLC0415 (optional)

        frames = [result.to_frame() for result in self]
        for result, frame in zip(self, frames):
            frame.insert(0, "encoder", result.provenance.encoder_name)
        return pd.concat(frames, ignore_index=True)


def evaluate(name: str, corpus: CorpusLike, encoders: EncoderLike | Sequence[EncoderLike]
             = DEFAULT_ENCODER, *, seed: int = 0, progress: ProgressCallback = None,
             **options: str):
    """Run the evaluation ``name`` (``sentspace eval NAME``) as the CLI does.

    Parameters
    ----------
    encoders : one encoder (spec or object): its result is returned; a list: a
        :class:`Results` of one result each, with paired tests against the first.
        Comparisons of several encoders (``"agreement"``) take a list and return
        their one result.
    seed : the CLI's ``--seed``; the same seed gives the same numbers.
    **options : the evaluation's options (``sentspace.app.evaluations.OPTIONS``; e.g.
        relatedness's ``split="test"``), checked as the CLI checks them.
    """
    from sentspace.app.evaluations import COMPARISONS, EVALUATIONS, OPTIONS  # noqa: PLC0415
    from sentspace.app.evaluations.paired import PAIRED_TESTS, paired_test  # noqa: PLC0415
    from sentspace.app.neighbours import run_split  # noqa: PLC0415

    if name not in EVALUATIONS and name not in COMPARISONS:
        raise ValueError(f"unknown evaluation {name!r} (known: "
                         f"{', '.join([*EVALUATIONS, *COMPARISONS])})")
    offered = OPTIONS.get(name, {})
    for option, value in options.items():
        if option not in offered:
            raise TypeError(f"{name} takes no option {option!r}"
                            + (f" (it takes {', '.join(offered)})" if offered else ""))
        if value not in offered[option].choices:
            raise ValueError(f"{option} must be one of {', '.join(offered[option].choices)}")
    corpus = load_corpus(corpus)
    single = isinstance(encoders, (str, Encoder))
    models = [_encoder(spec, corpus) for spec in ([encoders] if single else encoders)]
    if name in COMPARISONS:
        if len(models) < 2:
            raise ValueError(f"{name} compares encoders: give two or more")
        return run_job(COMPARISONS[name][0](corpus, models, seed=seed), progress)
    note = ""
    if "split" in offered:
        options["split"], note = run_split(corpus, models, options.get("split", "auto"))
    evaluation = EVALUATIONS[name][0]
    results = [run_job(evaluation(corpus, model, seed=seed, **options), progress)
               for model in models]
    if single:
        return results[0]
    paired: dict[str, Any] = {}
    for other in results[1:] if name in PAIRED_TESTS else ():
        try:
            paired[other.provenance.encoder_name] = paired_test(name, results[0], other,
                                                                seed=seed)
        except EvaluationError as error:
            paired[other.provenance.encoder_name] = str(error)
    return Results(results, paired, note)


def project(embeddings: Embeddings, method: str = "pca", *, seed: int = 0,
            progress: ProgressCallback = None, **parameters: Any):
    """A 2D layout of ``embeddings`` by ``"pca"``, ``"umap"`` or ``"tsne"`` (the
    window's projection; parameters as ``sentspace.app.projection.DEFAULTS``): a
    ``Projection`` whose ``coordinates`` are float32, shape (n, 2)."""
    from sentspace.app.projection import project as iter_project  # noqa: PLC0415

    return run_job(iter_project(embeddings, method, seed=seed, **parameters), progress)


@dataclass(frozen=True, eq=False)
class Neighbourhood:
    """The ``k`` nearest sentences of a query, most similar first.

    ``same_group`` / ``partner``: whether each shares a group with the query sentence /
    is its paraphrase partner; ``note`` says how they were found when not exactly.
    """

    query: str
    indices: np.ndarray
    texts: tuple[str, ...]
    similarities: np.ndarray
    same_group: np.ndarray
    partner: np.ndarray
    note: str

    def __len__(self) -> int:
        return len(self.indices)

    def to_frame(self):
        """One row per neighbour: index, text, cosine, same_group, partner (pandas)."""
        import pandas as pd  # noqa: PLC0415 (optional)

        return pd.DataFrame({"index": self.indices, "text": self.texts,
                             "cosine": self.similarities, "same_group": self.same_group,
                             "partner": self.partner})


def neighbours(corpus: CorpusLike, space: Embeddings | EncoderLike, query: str | int,
               k: int = 10, *, search: str = "auto", progress: ProgressCallback = None
               ) -> Neighbourhood:
    """The ``k`` nearest sentences of ``corpus`` to ``query`` by cosine.

    ``space`` is the corpus's embeddings (as :func:`encode` gives them) or an encoder,
    which is fitted on the corpus and encodes it through the cache. ``query`` is a
    sentence index, or text: typed text is encoded by the encoder; given embeddings
    only, it must be a sentence of the corpus. A corpus sentence is left out of its own
    neighbours. ``search``: "auto", "exact" or "ann" (``sentspace neighbours --search``).
    """
    from sentspace.app.cache import cached_encode  # noqa: PLC0415
    from sentspace.app.neighbour_search import Query, search_neighbours  # noqa: PLC0415
    from sentspace.app.neighbours import fitted_on_training_side  # noqa: PLC0415

    corpus = load_corpus(corpus)
    if isinstance(space, (str, Encoder)):
        model = run_job(fitted_on_training_side(_encoder(space, corpus), corpus,
                                                corpus.texts, None), progress)
        embeddings = run_job(cached_encode(model, corpus.fingerprint, corpus.texts), progress)
    else:
        model, embeddings = None, space
        if embeddings.shape[0] != len(corpus):
            raise ValueError(f"{embeddings.shape[0]} embeddings for {len(corpus)} sentences")
    if isinstance(query, (int, np.integer)):
        if not 0 <= query < len(corpus):
            raise IndexError(f"sentence {query} of a corpus of {len(corpus)}")
        found = Query(corpus.texts[query], int(query))
    elif model is None:
        if query not in corpus.texts:
            raise ValueError("with embeddings only, the query must be a sentence of the "
                             "corpus (or its index); pass an encoder to query any text")
        found = Query(query, corpus.texts.index(query))
    else:
        found = Query(query)
    [answer], _ = run_job(search_neighbours(corpus, [("space", model, embeddings)], [None],
                                            found, k, search=search), progress)
    return Neighbourhood(found.text, answer.indices,
                         tuple(corpus.texts[i] for i in answer.indices.tolist()),
                         answer.similarities, answer.same_group, answer.partner, answer.note)


def explain(text_a: str, text_b: str, encoder: EncoderLike = DEFAULT_ENCODER, *,
            corpus: CorpusLike | None = None, progress: ProgressCallback = None):
    """Which words make two sentences similar (``sentspace explain``): a
    ``PairExplanation`` with ``cosine``, ``top_words(side)``, ``top_pairs()`` and the
    usual ``summary()``/``to_dict()``. Exact for additive encoders, by occlusion for the
    others. An unfitted encoder is fitted on ``corpus`` and the two sentences (default:
    the two sentences alone; pass the corpus for the CLI's numbers, whose default is
    msrp-grouped)."""
    from sentspace.app.explain import explain_pair  # noqa: PLC0415

    corpus = load_corpus(corpus) if corpus is not None else None
    return run_job(explain_pair(text_a, text_b, _encoder(encoder, corpus), corpus=corpus),
                   progress)


def show(corpus: CorpusLike, embeddings: Embeddings | None = None,
         labels: Sequence[Any] | None = None, *, encoder: str = DEFAULT_ENCODER
         ) -> subprocess.Popen:
    """Open the desktop window on in-memory data, without blocking the caller.

    The window runs in a process of its own (``python -m
    sentspace.app.ui.window.show_window FOLDER``), so a notebook's kernel stays free and
    closing the window leaves it untouched. The data travels through a temporary folder,
    never as a pickle: ``corpus.json`` (texts, ids, name, language and groups: the
    ``labels`` given, one per sentence, None for none, else the corpus's own groups) and
    ``embeddings.npz`` (one float32 array, read with ``allow_pickle=False``; sparse
    embeddings are made dense). The window's process deletes the folder when it closes.

    The window opens the corpus and draws its map from ``embeddings`` (one row per
    sentence) or, without them, from ``encoder``. Pairs and metadata columns stay
    behind: open the corpus by its file for those. Returns the window's process.
    """
    from sentspace.app.show_data import write_show_data  # noqa: PLC0415

    corpus = load_corpus(corpus)
    folder = Path(tempfile.mkdtemp(prefix="sentspace-show-"))
    write_show_data(folder, corpus, embeddings, labels, encoder)
    return subprocess.Popen([sys.executable, "-m", "sentspace.app.ui.window.show_window",
                             str(folder)], env=_child_environment())


def _child_environment() -> dict[str, str]:
    """This environment, with the folder sentspace is imported from first on the path,
    so the window's process imports this same sentspace (a checkout or an install)."""
    root = str(Path(__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root + (os.pathsep + path if path else "")}


__all__ = ["load_corpus", "encoder", "encode", "evaluate", "project", "neighbours",
           "explain", "show"]
