"""The functions ``import sentspace`` offers (listed in ``sentspace.__all__``).

Each is a thin layer over the core the CLI and the window use: corpora by the CLI's
specs, encoders by its ``--encoder`` spellings (or your own model or array, see
:func:`encoder`), and long work run as the same jobs, synchronously, with
:func:`sentspace.app.base.jobs.run_job` (``progress`` receives each
:class:`~sentspace.app.base.jobs.Progress`, or is True for a progress bar). Same inputs and
seed, same numbers as ``sentspace eval``. Arguments that cannot be used raise
ValueError (TypeError for the wrong kind of object) naming the argument.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# The public names are listed once, in the package, which loads them from here.
from sentspace import __all__ as __all__
from sentspace._results import Results
from sentspace.app.analysis.cache import cached_encode, encode_corpus
from sentspace.app.analysis.evaluations import APPLICABLE, COMPARISONS, EVALUATIONS, NEEDS, OPTIONS
from sentspace.app.analysis.evaluations.paired import PAIRED_TESTS, against_first
from sentspace.app.analysis.evaluations.passing import check_filterable, passing
from sentspace.app.analysis.explain import explain_pair
from sentspace.app.analysis.mteb_files import mteb_revision
from sentspace.app.analysis.mteb_results import read_mteb_results
from sentspace.app.analysis.neighbour_search import Query, search_neighbours
from sentspace.app.analysis.neighbours import fitted_on_training_side, run_split
from sentspace.app.analysis.projection import project as iter_project
from sentspace.app.base.errors import CorpusError as CorpusError
from sentspace.app.base.errors import EvaluationError as EvaluationError
from sentspace.app.base.errors import InputError as InputError
from sentspace.app.base.errors import NotFoundError as NotFoundError
from sentspace.app.base.jobs import Progress, run_job, run_with_bar
from sentspace.app.corpora import is_corpus_name
from sentspace.app.corpora import load_corpus as _load_spec
from sentspace.app.corpora.model import Corpus
from sentspace.app.services import PRECOMPUTED, build_encoder
from sentspace.app.workspace.show_data import write_show_data
from sentspace.models import DEFAULT_ENCODER
from sentspace.models.base import Embeddings, Encoder, TrainsOnFile, fitted_copy
from sentspace.models.base import ModelError as ModelError
from sentspace.models.external import ArrayEmbeddings, ExternalModel, check_matrix

ProgressCallback = Callable[[Progress], Any] | None
CorpusLike = Corpus | str | os.PathLike | Iterable[str]
#: A spec string, an Encoder, any object with ``encode(list[str]) -> array``, or an
#: array of the corpus's embeddings (one row per sentence).
EncoderLike = Encoder | str | Any
ProgressLike = ProgressCallback | bool


def load_corpus(source: CorpusLike, *, name: str = "texts") -> Corpus:
    """A corpus from a built-in name (``"msrp-grouped"``), a path (any format the app
    reads), a list of sentences (one entry each, ids "0", "1", ... and ``name``), or a
    :class:`Corpus` (returned as it is).

    Raises ValueError for a list with no sentences, or whose sentences are all empty.

    >>> corpus = load_corpus(["A cat sat.", "A dog sat."])
    >>> len(corpus), corpus.ids
    (2, ('0', '1'))
    >>> load_corpus("msrp-grouped")
    <Corpus 'msrp-grouped': 859 sentences, 274 groups, language en>
    """
    if isinstance(source, Corpus):
        return source
    if isinstance(source, (str, os.PathLike)):
        return _load_spec(source if isinstance(source, str) else Path(source))
    if not isinstance(source, Iterable):
        raise TypeError(
            f"corpus: a name, a path, a Corpus or a list of sentences, not a "
            f"{type(source).__name__}"
        )
    texts = tuple(source)
    if not all(isinstance(text, str) for text in texts):
        raise TypeError("corpus: a corpus of texts takes strings only")
    _check_texts(texts, "corpus")
    return Corpus(name=name, texts=texts, ids=tuple(map(str, range(len(texts)))))


def _check_texts(texts: Sequence[str], argument: str) -> None:
    if not texts:
        raise ValueError(f"{argument}: no sentences")
    if not any(text.strip() for text in texts):
        raise ValueError(f"{argument}: every sentence is empty")


def encoder(
    spec: EncoderLike,
    corpus: CorpusLike | None = None,
    *,
    name: str | None = None,
    fingerprint: str | None = None,
) -> Encoder:
    """An encoder, for any call that takes one.

    ``spec`` is an ``--encoder`` spelling (a new, unfitted encoder: a family ``"bow"``,
    ``"tfidf"``, ``"minilm"``..., ``FAMILY:FILE``, ``path:FILE``, or
    ``precomputed:PATH``, which needs the ``corpus`` its rows are aligned to); an
    :class:`Encoder` (returned as it is); any object with ``encode(list[str]) ->
    array`` (a ``SentenceTransformer``, an MTEB model, a class of your own), wrapped
    as :class:`~sentspace.models.external.ExternalModel` and called ``name`` (default:
    its ``name`` attribute or class) with its embeddings cached under ``fingerprint``
    (default: a hash of a torch module's weights; other objects are not cached); or
    an array of ``corpus``'s embeddings, one row per sentence.

    >>> encoder("tfidf").name
    'tfidf'
    >>> class Lengths:                      # your own model: any object with encode
    ...     def encode(self, texts, **options):
    ...         return np.array([[len(text), text.count(" ")] for text in texts])
    >>> encoder(Lengths()).name
    'Lengths'
    """

    if isinstance(spec, (str, Encoder)) and (name is not None or fingerprint is not None):
        raise ValueError("encoder: name and fingerprint are for your own models and arrays")
    if isinstance(spec, str):
        if spec.startswith(PRECOMPUTED) and corpus is None:
            raise ValueError(f"{spec}: precomputed embeddings need the corpus they belong to")
        return build_encoder(spec, load_corpus(corpus) if corpus is not None else None)
    if isinstance(spec, Encoder):
        return spec
    if callable(getattr(spec, "encode", None)):
        return ExternalModel(spec, name=name, fingerprint=fingerprint)
    if isinstance(spec, (list, tuple)):
        raise ValueError(
            f"encoder: expected an array of shape (sentences, dimensions), "
            f"not a {type(spec).__name__} (np.asarray makes one)"
        )
    if _is_array(spec):
        if corpus is None:
            raise ValueError("encoder: an array of embeddings needs the corpus its rows belong to")
        return ArrayEmbeddings(spec, load_corpus(corpus), name=name or "array", argument="encoder")
    raise TypeError(
        f"encoder: an encoder name, an Encoder, an object with encode(list of "
        f"str), or an array of embeddings, not a {type(spec).__name__}"
    )


def _is_array(value: Any) -> bool:
    import scipy.sparse as sp  # noqa: PLC0415

    return sp.issparse(value) or hasattr(value, "__array__") or hasattr(value, "detach")


def _encoder(spec: EncoderLike, corpus: Corpus | None, argument: str = "encoder") -> Encoder:
    try:
        return encoder(spec, corpus)
    except (TypeError, ValueError) as error:
        # Name the argument the caller gave, not this function's.
        message = str(error).removeprefix("encoder: ")
        raise type(error)(f"{argument}: {message}") from None


def _run(job, progress: ProgressLike):
    """Run ``job``, reporting to ``progress``: a callback, or True for a progress bar
    (tqdm when installed, else the CLI's line on a terminal)."""
    if progress is not True:
        return run_job(job, progress or None)
    return run_with_bar(job)


def encode(
    sentences: CorpusLike,
    encoder: EncoderLike = DEFAULT_ENCODER,
    *,
    batch_size: int | None = None,
    device: str | None = None,
    normalize_embeddings: bool = False,
    show_progress_bar: bool = False,
    sparse: bool = False,
    progress: ProgressLike = None,
) -> Embeddings:
    """Sentences embedded through the embedding cache (a second call reads the disk),
    as sentence-transformers' ``SentenceTransformer.encode`` returns them: a list of
    sentences or a corpus gives a float32 array of shape (sentences, dim), one string a
    vector of shape (dim,).

    Parameters
    ----------
    sentences : a list of sentences, a corpus (a :class:`Corpus`, a built-in name, a
        path: anything :func:`load_corpus` takes), or one sentence: a string that names
        no corpus nor existing file (one without spaces that looks like a path,
        ``data/x.txt``, is a missing file: FileNotFoundError).
    encoder : a name, an Encoder or any object with ``encode`` (see :func:`encoder`).
        One that requires fitting is fitted on these sentences (a copy; the one given
        stays as it is).
    batch_size, device : sentences per batch and where to run (``"cpu"``,
        ``"cuda"``...), for transformers and your own models; other families run on the
        CPU and take no device.
    normalize_embeddings : scale each row to unit length (a zero row stays zero).
    show_progress_bar : a progress bar (tqdm when installed); ``progress`` instead
        receives each :class:`~sentspace.app.base.jobs.Progress` (or True: the bar).
    sparse : keep the bag-of-words families' scipy CSR array (default: dense, as
        every other encoder gives).

    >>> encode(["A cat sat.", "A dog sat."], "bow")
    array([[1., 1., 1., 0., 1.],
           [1., 1., 0., 1., 1.]], dtype=float32)
    >>> encode("A cat sat.", "bow", normalize_embeddings=True)
    array([0.5, 0.5, 0.5, 0.5], dtype=float32)
    """

    one = isinstance(sentences, str) and _is_sentence(sentences)
    corpus = load_corpus([str(sentences)] if one else sentences)
    model = _encoder(encoder, corpus).configured(batch_size, device)
    matrix = _run(encode_corpus(corpus, model), progress or show_progress_bar or None)
    matrix = _finished(matrix, sparse=sparse, normalize=normalize_embeddings)
    if not one:
        return matrix
    return matrix[0] if isinstance(matrix, np.ndarray) else matrix[[0]]


def _is_sentence(text: str) -> bool:
    """Whether :func:`encode` reads ``text`` as a sentence: it names no corpus and no
    file or folder, and does not look like a path (no spaces, a separator or a file
    suffix)."""

    if is_corpus_name(text) or Path(text).expanduser().exists():
        return False
    path_like = not any(c.isspace() for c in text) and (
        os.sep in text or "/" in text or bool(Path(text).suffix.strip("."))
    )
    return not path_like


def _finished(matrix: Embeddings, *, sparse: bool, normalize: bool) -> Embeddings:
    if normalize:
        from sklearn.preprocessing import normalize as unit_rows  # noqa: PLC0415

        matrix = unit_rows(matrix, copy=True).astype(np.float32, copy=False)
    if not sparse and not isinstance(matrix, np.ndarray):
        return matrix.toarray()
    return matrix


def evaluate(
    name: str,
    corpus: CorpusLike,
    encoders: EncoderLike | Sequence[EncoderLike] = DEFAULT_ENCODER,
    *,
    seed: int = 0,
    progress: ProgressLike = None,
    where: str = "",
    encode_kwargs: dict[str, Any] | None = None,
    **options: str,
):
    """Run the evaluation ``name`` (``sentspace eval NAME``) as the CLI does.

    Parameters
    ----------
    encoders : one encoder (anything :func:`encoder` takes: a name, an Encoder, your
        own model, an array of the corpus's embeddings): its result is returned; a
        list, which may mix them: a :class:`Results` of one result each, with paired
        tests against the first.
        Comparisons of several encoders (``"agreement"``) take a list and return
        their one result.
    seed : the CLI's ``--seed``; the same seed gives the same numbers.
    progress : as :func:`encode`'s: each encoder's evaluation, then the paired tests.
    where : a filter expression (the CLI's ``--where``, see :func:`where`): only the
        items whose sentences all pass it are evaluated (relatedness, classification,
        ranking, detection, histograms); recorded in each result's parameters.
    encode_kwargs : how each encoder encodes (as mteb's ``encode_kwargs``):
        ``batch_size``, ``device`` (see :func:`encode`), and ``prompt`` (text your own
        model's ``encode`` puts before each sentence, sentence-transformers'
        ``prompt``; it changes the embeddings, so their cache key).
    **options : the evaluation's options (``sentspace.app.analysis.evaluations.OPTIONS``; e.g.
        relatedness's ``split="test"``), checked as the CLI checks them.

    >>> results = evaluate("ranking", load_corpus("msrp-grouped"), ["bow", "tfidf"])
    >>> [round(result.scores()[0].value, 4) for result in results]    # accuracy@1
    [0.4444, 0.4482]
    >>> results.paired["tfidf"].p_value < 0.05
    True
    >>> round(evaluate("ranking", "msrp-grouped", "bow", encode_kwargs={"batch_size": 64})
    ...       .accuracy_at(1), 4)
    0.4444
    >>> long = evaluate("ranking", "msrp-grouped", "bow", where="words > 20")
    >>> long.pool_size, len(long.rank), long.provenance.parameters["where"]
    (416, 722, 'words > 20')
    """

    if name not in EVALUATIONS and name not in COMPARISONS:
        raise ValueError(
            f"unknown evaluation {name!r} (known: {', '.join([*EVALUATIONS, *COMPARISONS])})"
        )
    offered = OPTIONS.get(name, {})
    for option, value in options.items():
        if option not in offered:
            raise TypeError(
                f"{name} takes no option {option!r}"
                + (f" (it takes {', '.join(offered)})" if offered else "")
            )
        if value not in offered[option].choices:
            raise ValueError(f"{option} must be one of {', '.join(offered[option].choices)}")
    corpus = load_corpus(corpus)
    if where.strip():
        _passing(corpus, where, name)
        options["where"] = where.strip()
    single = not isinstance(encoders, (list, tuple))
    if not isinstance(encoders, (list, tuple)):
        models = [_encoder(encoders, corpus, "encoders")]
    else:
        models = [_encoder(spec, corpus, f"encoders[{i}]") for i, spec in enumerate(encoders)]
        if not models:
            raise ValueError("encoders: no encoder given")
        _distinct_names(models)
    models = [_with_encode_kwargs(model, encode_kwargs or {}) for model in models]
    if name in COMPARISONS:
        if len(models) < 2:
            raise ValueError(f"{name} compares encoders: give two or more")
        return _run(COMPARISONS[name][0](corpus, models, seed=seed), progress)
    note = ""
    if "split" in offered:
        options["split"], note = run_split(corpus, models, options.get("split", "auto"))
    evaluation = EVALUATIONS[name][0]
    results = [_run(evaluation(corpus, model, seed=seed, **options), progress) for model in models]
    if single:
        return results[0]
    outcomes = _run(against_first(name, results, seed), progress) if name in PAIRED_TESTS else []
    paired = {o.b.provenance.encoder_name: o.reason if o.test is None else o.test for o in outcomes}
    return Results(results, paired, note)


#: What ``evaluate(encode_kwargs=...)`` takes; the embeddings are compared as they come.
ENCODE_KWARGS = ("batch_size", "device", "prompt")


def _with_encode_kwargs(model: Encoder, encode_kwargs: dict[str, Any]) -> Encoder:
    """``model`` set to encode as ``encode_kwargs`` say (see :func:`evaluate`)."""

    unknown = [key for key in encode_kwargs if key not in ENCODE_KWARGS]
    if unknown:
        raise TypeError(
            f"encode_kwargs: no option {unknown[0]!r} (it takes {', '.join(ENCODE_KWARGS)})"
            + (
                "; evaluations compare vectors by cosine or fit on them as the encoder "
                "gives them: normalise in your own model's encode"
                if unknown[0] == "normalize_embeddings"
                else ""
            )
        )
    prompt = encode_kwargs.get("prompt")
    if prompt is not None:
        if not isinstance(model, ExternalModel):
            raise ValueError(
                f"encode_kwargs: prompt is for your own models' encode; {model.name} takes none"
            )
        model = ExternalModel(
            model.model,
            name=model.label,
            fingerprint=model.version,
            batch_size=model.model_batch_size,
            device=model.device,
            prompt=str(prompt),
        )
    return model.configured(encode_kwargs.get("batch_size"), encode_kwargs.get("device"))


def where(corpus: CorpusLike, expression: str) -> np.ndarray:
    """Whether each sentence of ``corpus`` passes the filter ``expression``: a boolean
    array, one per sentence. The expression is the window's Filter panel's and
    ``sentspace eval --where``'s: comparisons of the corpus's columns (``words``,
    ``split``, ``label``, ``score``, the group, its size, metadata) joined by ``and``,
    ``or``, ``not``, with ``in [...]``; a bad one raises ValueError naming its column
    (position) and the problem. :func:`evaluate` takes it as ``where=``.

    >>> corpus = load_corpus("msrp-grouped")
    >>> long = where(corpus, "words > 20")
    >>> int(long.sum()), len(long)
    (416, 859)
    >>> int(where(corpus, "words > 20 and group_size >= 4").sum())
    59
    >>> where(corpus, "words => 20")
    Traceback (most recent call last):
    ...
    ValueError: expression: filter expression, column 7: invalid syntax; compare with ==
    """
    return _passing(load_corpus(corpus), expression, None).copy()


def _passing(corpus: Corpus, expression: str, evaluation: str | None) -> np.ndarray:
    """:func:`where`'s mask, the filter's InputError (and, for ``evaluation``, one
    that does not take a filter) as a ValueError naming the argument."""

    argument = "expression" if evaluation is None else "where"
    try:
        if evaluation is not None:
            check_filterable(evaluation, expression)
        mask = passing(corpus, expression)
    except InputError as error:
        raise ValueError(f"{argument}: {error}") from None
    return mask if mask is not None else np.ones(len(corpus), dtype=bool)


def _distinct_names(models: list[Encoder]) -> None:
    """Give your own models and arrays that share a name (two arrays) a number each,
    so results and paired tests, which go by name, tell them apart."""

    seen: dict[str, int] = {}
    for model in models:
        seen[model.name] = seen.get(model.name, 0) + 1
        if seen[model.name] > 1 and isinstance(model, (ArrayEmbeddings, ExternalModel)):
            model.label = f"{model.name} #{seen[model.name]}"


def project(
    embeddings: Embeddings,
    method: str = "pca",
    *,
    seed: int = 0,
    progress: ProgressLike = None,
    **parameters: Any,
):
    """A 2D layout of ``embeddings`` by ``"pca"``, ``"umap"`` or ``"tsne"`` (the
    window's projection; parameters as ``sentspace.app.analysis.projection.DEFAULTS``): a
    ``Projection`` whose ``coordinates`` are float32, shape (n, 2).

    >>> project(np.eye(4, 5), "pca").coordinates.shape
    (4, 2)
    """

    rows = getattr(embeddings, "shape", (0,))[0]
    embeddings = check_matrix(embeddings, "embeddings", rows)
    if rows < 2:
        raise ValueError(f"embeddings: a layout needs two rows or more, not {rows}")
    return _run(iter_project(embeddings, method, seed=seed, **parameters), progress)


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

        return pd.DataFrame(
            {
                "index": self.indices,
                "text": self.texts,
                "cosine": self.similarities,
                "same_group": self.same_group,
                "partner": self.partner,
            }
        )


def neighbours(
    corpus: CorpusLike,
    space: Embeddings | EncoderLike,
    query: str | int,
    k: int = 10,
    *,
    search: str = "auto",
    progress: ProgressLike = None,
) -> Neighbourhood:
    """The ``k`` nearest sentences of ``corpus`` to ``query`` by cosine.

    ``space`` is the corpus's embeddings (an array, one row per sentence) or an encoder
    (anything :func:`encoder` takes), which is fitted on the corpus and encodes it
    through the cache. ``query`` is a sentence index (IndexError outside the corpus), or
    text: typed text is encoded by the encoder; given embeddings only, it must be a
    sentence of the corpus. A corpus sentence is left out of its own neighbours. ``search``: "auto", "exact" or "ann" (``sentspace neighbours --search``).

    >>> neighbours(["A cat sat.", "A dog sat.", "Stocks fell today."], "bow", 0, k=1).texts
    ('A dog sat.',)
    """

    corpus = load_corpus(corpus)
    if len(corpus) < 2:
        raise ValueError(f"corpus: neighbours need two sentences or more, not {len(corpus)}")
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k: a positive whole number, not {k!r}")
    given = _encoder(space, corpus, "space")
    model: Encoder | None
    if isinstance(given, ArrayEmbeddings):
        # Rows of this corpus only: a query must be one of its sentences.
        model, embeddings = None, given.vectors
    else:
        model = _run(fitted_on_training_side(given, corpus, corpus.texts, None), progress)
        embeddings = _run(cached_encode(model, corpus.fingerprint, corpus.texts), progress)
    if isinstance(query, str) and not query.strip():
        raise ValueError("query: an empty sentence")
    if isinstance(query, (int, np.integer)):
        if not 0 <= query < len(corpus):
            raise IndexError(f"sentence {query} of a corpus of {len(corpus)}")
        found = Query(corpus.texts[query], int(query))
    elif model is None:
        if query not in corpus.texts:
            raise ValueError(
                "with embeddings only, the query must be a sentence of the "
                "corpus (or its index); pass an encoder to query any text"
            )
        found = Query(query, corpus.texts.index(query))
    else:
        found = Query(query)
    [answer], _ = _run(
        search_neighbours(corpus, [("space", model, embeddings)], [None], found, k, search=search),
        progress,
    )
    return Neighbourhood(
        found.text,
        answer.indices,
        tuple(corpus.texts[i] for i in answer.indices.tolist()),
        answer.similarities,
        answer.same_group,
        answer.partner,
        answer.note,
    )


def explain(
    text_a: str,
    text_b: str,
    encoder: EncoderLike = DEFAULT_ENCODER,
    *,
    corpus: CorpusLike | None = None,
    progress: ProgressLike = None,
):
    """Which words make two sentences similar (``sentspace explain``): a
    ``PairExplanation`` with ``cosine``, ``top_words(side)``, ``top_pairs()`` and the
    usual ``summary()``/``to_dict()``. Exact for additive encoders, by occlusion for the
    others. An unfitted encoder is fitted on ``corpus`` and the two sentences (default:
    the two sentences alone; pass the corpus for the CLI's numbers, whose default is
    msrp-grouped).

    >>> explanation = explain("A cat sat on the mat.", "A cat lay on the mat.", "bow")
    >>> round(explanation.cosine, 4)
    0.8571
    """

    for argument, text in (("text_a", text_a), ("text_b", text_b)):
        if not isinstance(text, str):
            raise TypeError(f"{argument}: a sentence, not a {type(text).__name__}")
        if not text.strip():
            raise ValueError(f"{argument}: an empty sentence has no words to explain")
    corpus = load_corpus(corpus) if corpus is not None else None
    model = _encoder(encoder, corpus)
    if isinstance(model, ArrayEmbeddings):
        raise ValueError(
            "encoder: explaining encodes the sentences with words left out; "
            "an array of embeddings cannot, pass the model"
        )
    return _run(explain_pair(text_a, text_b, model, corpus=corpus), progress)


def show(
    corpus: CorpusLike,
    embeddings: Embeddings | None = None,
    labels: Sequence[Any] | None = None,
    *,
    encoder: EncoderLike = DEFAULT_ENCODER,
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
    sentence) or, without them, from ``encoder`` (a name the window encodes with; any
    other encoder :func:`encoder` takes is encoded here first). Pairs and metadata
    columns stay behind: open the corpus by its file for those. Returns the window's
    process.

    >>> window = show(["A cat sat.", "A dog sat."], labels=["cat", "dog"])  # doctest: +SKIP
    """

    corpus = load_corpus(corpus)
    if embeddings is not None:
        embeddings = check_matrix(embeddings, "embeddings", len(corpus))
    elif not isinstance(encoder, str):
        embeddings = encode(corpus, encoder)
    # The window encodes by this name when no embeddings travel with the data.
    window_encoder = encoder if isinstance(encoder, str) else DEFAULT_ENCODER
    folder = Path(tempfile.mkdtemp(prefix="sentspace-show-"))
    write_show_data(folder, corpus, embeddings, labels, window_encoder)
    return subprocess.Popen(
        [sys.executable, "-m", "sentspace.app.ui.window.show_window", str(folder)],
        env=_child_environment(),
    )


def _child_environment() -> dict[str, str]:
    """This environment, with the folder sentspace is imported from first on the path,
    so the window's process imports this same sentspace (a checkout or an install)."""
    root = str(Path(__file__).resolve().parent.parent)
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": root + (os.pathsep + path if path else "")}


@dataclass(frozen=True)
class Evaluation:
    """One evaluation :func:`evaluate` runs: its ``name``, what it measures
    (``description``), what a corpus ``needs`` for it, and whether the corpus asked
    about has that (``applies``; None when no corpus was given)."""

    name: str
    description: str
    needs: str
    applies: bool | None = None


def evaluations(corpus: CorpusLike | None = None) -> list[Evaluation]:
    """Every evaluation :func:`evaluate` runs, in the window's menu order; with
    ``corpus``, each says whether that corpus has what it needs.

    >>> [e.name for e in evaluations("msrp-grouped") if e.applies][:2]
    ['classification', 'ranking']
    """

    loaded = None if corpus is None else load_corpus(corpus)
    return [
        Evaluation(
            name,
            description,
            NEEDS.get(name, "two or more encoders"),
            None if loaded is None else bool(APPLICABLE.get(name, lambda c: True)(loaded)),
        )
        for name, (_, description) in {**EVALUATIONS, **COMPARISONS}.items()
    ]


def read_mteb(path: str | Path):
    """MTEB's published scores from its result files (one ``<Task>.json``, or a
    folder such as a clone of MTEB's results), for the STS tasks sentspace evaluates
    (``STSBenchmark``, ``SICK-R``, ``STS12``-``STS16``): an ``MtebImport`` whose
    ``results`` are scores on 0-1 with the model, task and split, to set beside a
    relatedness result of the same pairs. The reverse is a relatedness result's
    ``to_mteb(folder)``.

    Raises
    ------
    InputError
        The file or folder is not MTEB's result schema (the message names it).

    >>> import json, tempfile
    >>> path = Path(tempfile.mkdtemp()) / "STSBenchmark.json"
    >>> _ = path.write_text(json.dumps({
    ...     "task_name": "STSBenchmark", "mteb_version": "2.26.0",
    ...     "dataset_revision": "b0fddb56", "evaluation_time": 1.0,
    ...     "scores": {"test": [{"main_score": 0.82, "hf_subset": "default",
    ...                          "languages": ["eng-Latn"]}]}}))
    >>> [(result.task, result.main_score) for result in read_mteb(path).results]
    [('STSBenchmark', 0.82)]
    """

    return read_mteb_results(path)


def mteb_model(encoder: EncoderLike, corpus: CorpusLike | None = None):
    """``encoder`` as a model MTEB runs (``mteb.evaluate(model, tasks)`` and mteb's
    evaluators take it): anything :func:`encoder` takes, a trained one
    (``"fastsent:FILE"``, ``"st:FOLDER"``, your own model) as it is, one that requires
    fitting (``"bow"``) fitted on ``corpus``'s sentences first. Named
    ``sentspace/<name>`` and filed under the revision a result's ``to_mteb`` gives the
    same encoder (its fingerprint, with the corpus's when fitted on it); its pairs are
    compared by relatedness's cosine, so MTEB's STS ``spearman`` is sentspace's
    relatedness Spearman (its ``cosine_spearman``, computed by mteb in float32, can
    break ties that relatedness keeps: bag-of-words counts). ``encode`` also takes a
    plain list of sentences. Needs the ``mteb`` extra.

    >>> model = mteb_model("tfidf", ["A cat sat.", "A dog sat."])
    >>> model.mteb_model_meta.name, model.mteb_model_meta.embed_dim
    ('sentspace/tfidf', 5)
    >>> model.encode(["A cat sat.", "A dog sat."]).shape
    (2, 5)
    """

    if importlib.util.find_spec("mteb") is None:
        raise ImportError("mteb_model needs mteb: pip install 'sentspace[mteb]'")
    from sentspace.app.exporters.mteb_model import MtebModel  # noqa: PLC0415

    loaded = load_corpus(corpus) if corpus is not None else None
    model = _encoder(encoder, loaded)
    # Named as a result's to_mteb names the same encoder on the same corpus.
    revision = mteb_revision(
        model.fingerprint(),
        model.family,
        model.params(),
        "" if loaded is None else loaded.fingerprint,
    )
    if loaded is not None:
        model = run_job(fitted_on_training_side(model, loaded, loaded.texts, None))
    elif isinstance(model, TrainsOnFile) and model.training_file is not None:
        # Trained on its own file (FAMILY:FILE): the texts given are not read.
        model = run_job(fitted_copy(model, ()))
    return MtebModel(model, revision)
