"""The encoder protocol: texts in, a float32 matrix of shape (n, dim) out.

Every encoder ("model", as the papers call them) subclasses :class:`Encoder`. It has a
``family``, constructor parameters (``params()``), a ``dim``, and a ``fingerprint()``
that changes whenever its output could change (family, parameters, fitted state), so
the fingerprint keys caches and results. Encoding is a job: ``iter_encode`` yields
progress per batch and can be cancelled by closing it; ``encode`` runs it to the end.

Matrices are dense ``ndarray`` or, for sparse families such as bag of words,
``scipy.sparse.csr_array``, always float32.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import inspect
import json
import typing
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self, TypeAlias

import numpy as np
import scipy.sparse as sp

from sentspace.app.base.jobs import Job, Progress, run_job, run_with_bar
from sentspace.models.errors import ModelError, NotFittedError
from sentspace.models.sidecar import load_model, save_model

Embeddings: TypeAlias = np.ndarray | sp.csr_array


@dataclass(frozen=True, eq=False)
class WordParts:
    """A sentence vector split exactly into one part per token of the encoder's own
    tokenisation: ``parts.sum(axis=0)`` is the vector ``encode`` gives (up to float
    rounding).

    Attributes
    ----------
    tokens : tuple of str, length k
        The tokens as the encoder sees them (lowercased when it lowercases).
    parts : ndarray or csr_array of shape (k, dim)
        Each token's share of the sentence vector; zero for a token the encoder ignores.
    known : ndarray of bool, shape (k,)
        Whether the encoder has a vector for the token (out-of-vocabulary tokens: False).
    """

    tokens: tuple[str, ...]
    parts: Embeddings
    known: np.ndarray


class Encoder(ABC):
    #: Short family name, also the CLI's ``--encoder`` value for the default parameters.
    family: ClassVar[str]
    #: Human-readable family name for menus.
    title: ClassVar[str]
    #: Whether ``fit`` must run before ``encode`` (a vocabulary, weights...).
    requires_fit: ClassVar[bool] = False
    #: Sentences per progress report (an instance may set its own: ``encode(batch_size=)``).
    batch_size: int = 2048
    #: Whether the embedding cache should keep this encoder's output; not for encoders
    #: whose output already sits in a file (precomputed embeddings).
    cacheable: bool = True
    #: Parameters naming a file whose content the fitted state hashes: only the file's
    #: name goes into the fingerprint.
    file_params: ClassVar[tuple[str, ...]] = ("training_file",)
    #: Defaults this class changes from the constructor it inherits: a family that only
    #: changes sizes declares just these (see :func:`inherit_parameters`).
    defaults: ClassVar[dict[str, Any]] = {}
    #: Inherited constructor parameters this family fixes and so does not take.
    omitted_params: ClassVar[tuple[str, ...]] = ()
    #: The inherited parameter this family's own follow in its signature (None: its own
    #: come first).
    params_after: ClassVar[str | None] = None
    #: The command that installs the family's optional packages ("" where it needs none).
    install_hint: ClassVar[str] = ""

    @classmethod
    def available(cls) -> bool:
        """Whether the family's optional packages are installed (a family that needs
        none always is); the menus grey out the others, with :attr:`install_hint`."""
        return True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = vars(cls).get("__init__")
        if "defaults" in vars(cls) or (
            declared is not None
            and any(
                p.kind is p.VAR_KEYWORD for p in inspect.signature(declared).parameters.values()
            )
        ):
            inherit_parameters(cls)

    def params(self) -> dict[str, Any]:
        """Constructor parameters, JSON-serialisable; ``type(self)(**params())`` clones.

        Read from ``__init__``'s signature: each argument's value as the constructor
        stored it under the argument's own name (scikit-learn's ``get_params``).
        """
        names = [
            name
            for name, parameter in inspect.signature(type(self).__init__).parameters.items()
            if name != "self" and parameter.kind is parameter.POSITIONAL_OR_KEYWORD
        ]
        return {name: getattr(self, name) for name in names}

    @property
    @abstractmethod
    def dim(self) -> int:
        """Output dimension (known after ``fit`` for encoders that require it)."""

    @abstractmethod
    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        """Encode one batch; called only when fitted."""

    # Read-only properties, so that a family may answer per instance (a property) or per
    # class (a class attribute, ``learns_from_data = True``).
    @property
    def learns_from_data(self) -> bool:
        """Whether fitting learns statistics of the data (idf, principal axes) that would
        leak test information, so evaluations must refit inside each training fold. A
        plain vocabulary does not: a word seen only in a test fold gets no classifier
        weight."""
        return False

    @property
    def learns_from_pairs(self) -> bool:
        """Whether fitting needs labelled sentence pairs (``sentspace.models.pairs``):
        evaluations then fit it with :meth:`iter_fit_pairs` on their training pairs
        only."""
        return False

    @property
    def name(self) -> str:
        """Display name: the family, with parameters that differ from the defaults."""
        defaults = type(self)().params()
        params = self.params()
        training_file = params.pop("training_file", None)
        changed = [f"{key}={value}" for key, value in params.items() if defaults.get(key) != value]
        name = self.family if training_file is None else f"{self.family}:{Path(training_file).name}"
        return f"{name}({', '.join(changed)})" if changed else name

    @property
    def training_report(self) -> str | None:
        """What training achieved, in a line the window shows beside the run (None: this
        encoder has nothing to report, or is not trained)."""
        return None

    @property
    def training_scores(self) -> dict[str, Any] | None:
        """What :attr:`training_report` says, as numbers for JSON (``--json``, the
        exported embeddings' sidecar); None when it says nothing."""
        return None

    @property
    def is_fitted(self) -> bool:
        return not self.requires_fit or self._fitted_state() is not None

    def fit(self, texts: Sequence[str]) -> Self:
        """Learn what the encoder needs from ``texts``; returns self."""
        return self

    def iter_fit(self, texts: Sequence[str]) -> Job[Self]:
        """:meth:`fit` as a job, so pipelines can always ``yield from`` it; returns self.

        This default yields nothing; encoders with long training (the gensim families)
        yield progress per epoch and stop between epochs when the job is closed.
        """
        fitted = self.fit(texts)
        yield from ()
        return fitted

    def iter_fit_pairs(self, pairs) -> Job[Self]:
        """Train on ``pairs`` (a :class:`sentspace.models.pairs.TrainingPairs`); only for encoders
        that learn from pairs."""
        raise NotImplementedError(f"{self.family} does not learn from sentence pairs")

    def clone(self) -> Self:
        """An unfitted encoder with the same parameters."""
        return type(self)(**self.params())

    def iter_encode(self, texts: Sequence[str]) -> Job[Embeddings]:
        """Encode ``texts`` batch by batch, yielding progress; returns the matrix."""
        if not self.is_fitted:
            raise NotFittedError(f"{self.name} must be fitted before encoding")
        texts = list(texts)
        total = len(texts)
        dense, sparse_blocks = None, []
        for start in range(0, total, self.batch_size):
            block = self._encode_batch(texts[start : start + self.batch_size])
            if sp.issparse(block):
                sparse_blocks.append(block)
            else:
                # Filled batch by batch: stacking a million rows at the end holds the
                # GIL long enough (~0.1 s) to stall the window.
                if dense is None:
                    dense = np.empty((total, block.shape[1]), dtype=np.float32)
                dense[start : start + len(block)] = block
            yield Progress(f"encoding with {self.name}", min(start + self.batch_size, total), total)
        if dense is not None:
            return dense
        if not sparse_blocks:
            return self._encode_batch([])
        return sp.csr_array(sp.vstack(sparse_blocks, format="csr"), dtype=np.float32)

    def encode(
        self,
        sentences: str | Sequence[str],
        *,
        batch_size: int | None = None,
        show_progress_bar: bool = False,
        convert_to_numpy: bool = True,
        normalize_embeddings: bool = False,
        device: str | None = None,
        sparse: bool = False,
    ) -> Embeddings | list[np.ndarray]:
        """``sentences`` encoded in this thread, as sentence-transformers'
        ``SentenceTransformer.encode`` returns them: one string gives a float32 vector of
        shape (dim,), a list a float32 matrix of shape (len(sentences), dim), dense.

        Parameters
        ----------
        batch_size : sentences per batch (default: the encoder's own).
        show_progress_bar : a progress bar (tqdm's) while encoding.
        convert_to_numpy : False gives a list of one vector per sentence.
        normalize_embeddings : scale each vector to unit length (a zero one stays zero).
        device : where a transformer or your own model runs ("cpu", "cuda"...).
        sparse : keep a bag-of-words family's rows as a scipy CSR array.

        Neither ``batch_size`` nor ``device`` changes the output (nor the fingerprint).
        """
        one = isinstance(sentences, str)
        texts: list[str] = [sentences] if isinstance(sentences, str) else list(sentences)
        job = self.configured(batch_size, device).iter_encode(texts)
        matrix = run_with_bar(job) if show_progress_bar else run_job(job)
        if normalize_embeddings:
            from sklearn.preprocessing import normalize  # noqa: PLC0415 (slow to import)

            matrix = normalize(matrix, copy=True).astype(np.float32, copy=False)
        if not sparse and not isinstance(matrix, np.ndarray):
            matrix = matrix.toarray()
        if one:
            return matrix[[0]] if sp.issparse(matrix) else matrix[0]
        return matrix if convert_to_numpy else list(matrix)

    def configured(self, batch_size: int | None = None, device: str | None = None) -> Self:
        """This encoder set to encode ``batch_size`` sentences at a time on ``device``:
        a copy when either is given (neither changes the output, so the fingerprint
        stays).

        Raises
        ------
        ModelError
            ``batch_size`` is no positive whole number, or a ``device`` is given to a
            family that runs on the CPU only.
        """
        if batch_size is None and device is None:
            return self
        if batch_size is not None and (
            not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1
        ):
            raise ModelError(f"batch_size: a positive whole number, not {batch_size!r}")
        if device is not None and not hasattr(self, "device"):
            raise ModelError(
                f"device: {self.name} runs on the CPU and takes no device "
                f"(transformers and your own models do)"
            )
        model = copy.copy(self)
        if batch_size is not None:
            model.batch_size = batch_size
            if hasattr(model, "cuda_batch_size"):
                model.cuda_batch_size = batch_size
        if device is not None:
            model.device = device  # type: ignore[attr-defined]
        return model

    def _fitted_state(self) -> str | None:
        """A hash of what ``fit`` learned or the weights loaded, or None before fitting."""
        return None

    def word_parts(self, text: str) -> WordParts | None:
        """``text``'s vector split exactly into its tokens' parts, for encoders that
        compose a sentence additively from word vectors; None for the others (the
        default), which similarity attribution explains by occlusion instead."""
        return None

    def report(self) -> dict[str, Any] | None:
        """JSON-serialisable notes on the last ``encode`` (e.g. tokens not found), or None.

        Caches store it beside the matrix and hand it back with :meth:`restore_report`, so
        a cache hit tells the user what a fresh encode would have.
        """
        return None

    def restore_report(self, report: dict[str, Any]) -> None:  # noqa: B027 (a hook)
        """Take back a :meth:`report` saved with a cached matrix of the same fingerprint."""

    def save(self, directory: str | Path | None = None) -> Path:
        """Save the fitted state as ``<family>-<fingerprint>.npz`` (arrays only, loaded
        without pickle) plus a hash-checked sidecar JSON in ``directory`` (default
        :func:`sentspace.models.sidecar.models_dir`); returns the file. Families that save give
        ``_saved_state`` and ``_restore_saved``."""
        return save_model(self, directory)

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """An encoder from a file that :meth:`save` wrote.

        Raises
        ------
        ModelError
            No sidecar written by sentspace for this file and family, a SHA-256 that
            differs from the sidecar's, or a saved state that does not fit the family.
        """
        return load_model(path, cls)

    def _saved_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The fitted state for :meth:`save`: named arrays, and JSON fields for the
        sidecar."""
        raise NotImplementedError(f"{self.family} models are not saved")

    def _restore_saved(self, arrays: dict[str, np.ndarray], fields: dict[str, Any]) -> None:
        """Take back what :meth:`_saved_state` gave (``fields``: the whole sidecar)."""
        raise NotImplementedError(f"{self.family} models are not saved")

    @classmethod
    def _from_saved_params(cls, params: dict[str, Any]) -> Self:
        """An encoder with a saved model's ``params``."""
        return cls(**params)

    def fingerprint(self) -> str:
        """Hash of everything that determines the output: family, parameters, fit."""
        params = self.params()
        for key in self.file_params:
            if params.get(key):
                # The file's content is in the fitted state (a hash of what was read);
                # the folder it sits in, or is reached through, must not change the key.
                params[key] = Path(params[key]).name
        payload = json.dumps(
            {"family": self.family, "params": params, "fitted": self._fitted_state()},
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.params().items())
        return f"{type(self).__name__}({args})"


def inherit_parameters(cls: type[Encoder]) -> None:
    """Give ``cls`` a constructor whose signature lists every parameter it takes.

    A family declares only its own parameters and ``**inherited``, which it passes on to
    its parent's constructor; the parameters that ``**inherited`` stands for join the
    signature after its own (or its own after :attr:`Encoder.params_after`; keyword-only
    ones come last), with the defaults of :attr:`Encoder.defaults` (a family that only changes
    defaults declares no constructor at all). ``params()``, the spec
    strings, the window's forms and the API reference all read that signature.
    """
    declared: Any = vars(cls).get("__init__")
    parent_init: Any = super(cls, cls).__init__
    if declared is None:  # only new defaults: the parent's declared constructor
        declared = getattr(parent_init, "__wrapped__", parent_init)
        own = list(inspect.signature(parent_init).parameters.values())[1:]
        hints = _hints(parent_init)
    else:
        own = list(inspect.signature(declared).parameters.values())[1:]
        hints = _hints(declared)
        if own and own[-1].kind is own[-1].VAR_KEYWORD:
            own.pop()
            last = [
                p.replace(kind=p.POSITIONAL_OR_KEYWORD) for p in own if p.kind is p.KEYWORD_ONLY
            ]
            own = [p for p in own if p.kind is not p.KEYWORD_ONLY]
            names = {p.name for p in own + last} | set(cls.omitted_params)
            inherited = [
                p
                for name, p in inspect.signature(parent_init).parameters.items()
                if name != "self" and name not in names
            ]
            after = vars(cls).get("params_after")
            split = 0 if after is None else [p.name for p in inherited].index(after) + 1
            own = inherited[:split] + own + inherited[split:] + last
            hints = {**_hints(parent_init), **hints}
    defaults = vars(cls).get("defaults", {})
    signature = inspect.Signature([p.replace(default=defaults.get(p.name, p.default)) for p in own])

    @functools.wraps(declared)
    def __init__(self: Encoder, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        declared(self, **bound.arguments)

    self_parameter = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    __init__.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[self_parameter, *signature.parameters.values()]
    )
    __init__.__annotations__ = {name: hints[name] for name in signature.parameters if name in hints}
    cls.__init__ = __init__  # type: ignore[method-assign, assignment]


def _hints(function: Any) -> dict[str, Any]:
    """``function``'s annotations as types where they resolve (strings where not)."""
    try:
        return typing.get_type_hints(function)
    except (NameError, TypeError):
        return dict(getattr(function, "__annotations__", {}))


def require_at_least_one(**counts: int) -> list[int]:
    """``counts`` (sizes, epochs...) as ints, in order; ModelError naming the first below 1."""
    for label, value in counts.items():
        if int(value) < 1:
            raise ModelError(f"{label} must be at least 1, not {value}")
    return [int(value) for value in counts.values()]


class TrainsOnFile:
    """A trained family that can train on a text file (``FAMILY:FILE``, *Train on* a
    file) instead of the texts given to ``fit``. It then learns nothing from the corpus
    it encodes, so evaluations fit it once instead of in every training fold; the
    fingerprint follows the file through the fitted state (the hash of its sentences).
    Put it before :class:`Encoder` among the bases."""

    training_file: str | None = None

    def _take_training_file(self, training_file: str | None) -> None:
        """Keep ``training_file`` as an absolute path (links kept, as the user named
        it), checked to exist."""
        if training_file is not None:
            path = Path(training_file).expanduser()
            if not path.is_file():
                raise ModelError("no such training file", path)
            training_file = str(path.absolute())
        self.training_file = training_file

    @property
    def learns_from_data(self) -> bool:
        """Trained on the corpus it encodes, unless it trains on its own file."""
        return self.training_file is None

    @classmethod
    def _from_saved_params(cls, params: dict[str, Any]) -> Self:
        """An encoder with a saved model's ``params``; a training file moved or deleted
        since is still named (the saved weights are what counts)."""
        encoder = cls(**{**params, "training_file": None})
        encoder.training_file = params.get("training_file")
        return encoder


def fitted_copy(encoder: Encoder, texts: Sequence[str], pairs=None) -> Job[Encoder]:
    """A clone of ``encoder`` fitted on ``texts`` (on ``pairs``, a
    :class:`sentspace.models.pairs.TrainingPairs`, when it learns from pairs) when it requires
    fitting, else the encoder itself; a job, so long training reports progress and can
    be cancelled.

    Raises
    ------
    ModelError
        The encoder learns from pairs and ``pairs`` is None or empty.
    """
    if not encoder.requires_fit:
        return encoder
    if encoder.learns_from_pairs:
        if not pairs:
            raise ModelError(
                f"{encoder.name} trains on labelled sentence pairs, and there "
                "are none to train on here: use a corpus with labelled or "
                f"scored pairs (SICK, MSRP, STS) or a pairs file "
                f"({encoder.family}:FILE)"
            )
        return (yield from encoder.clone().iter_fit_pairs(pairs))
    return (yield from encoder.clone().iter_fit(texts))


def content_hash(matrix: Embeddings) -> str:
    """SHA-256 of a matrix's type, shape and values, 16 hex digits."""
    h = hashlib.sha256(str((type(matrix).__name__, matrix.shape)).encode())
    parts: tuple[Any, ...]
    if sp.issparse(matrix):
        csr = sp.csr_array(matrix)
        parts = (csr.data, csr.indices, csr.indptr)
    else:
        parts = (matrix,)
    for part in parts:
        h.update(np.ascontiguousarray(part).tobytes())
    return h.hexdigest()[:16]
