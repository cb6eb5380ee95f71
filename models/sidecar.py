"""Saving and loading trained models: one path for every family that saves.

:meth:`sentspace.models.base.Encoder.save` writes the fitted state that the family gives
(``_saved_state``: named arrays and JSON fields) as ``<family>-<fingerprint>.npz``, read
back with ``allow_pickle=False``, so opening a model file never runs code. Beside it lies
a JSON sidecar that says what the file holds (format, family, parameters, fingerprint,
the family's fields) and records the file's name and SHA-256: a file is loaded only when
sentspace wrote it and nothing changed it since, since weights that differ from what was
saved would silently change every result. :meth:`sentspace.models.base.Encoder.load` checks all
that and hands the arrays and fields to the family (``_restore_saved``).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import platformdirs

from sentspace.app.base.atomic import atomic_path, write_text_atomic
from sentspace.models.errors import ModelError, NotFittedError

if TYPE_CHECKING:
    from sentspace.models.base import Encoder

_Encoder = TypeVar("_Encoder", bound="Encoder")

MODELS_DIR_ENV = "SENTSPACE_MODELS_DIR"
#: ``format`` and ``version`` of the sidecar JSON beside a saved model.
SIDECAR_FORMAT = "sentspace-model"
SIDECAR_VERSION = 1
#: Formats of earlier sentspace versions, refused: gensim's native files (pickles).
OLD_FORMATS = ("sentspace-gensim-model", "sentspace-torch-model")


def models_dir() -> Path:
    """The folder of trained models (not created): ``user_data_dir("sentspace")/models``,
    or the folder in the environment variable ``SENTSPACE_MODELS_DIR``."""
    override = os.environ.get(MODELS_DIR_ENV)
    if override:
        return Path(override)

    return Path(platformdirs.user_data_dir("sentspace")) / "models"


def sidecar_path(model_path: str | Path) -> Path:
    """Where the sidecar JSON of a saved model lies: ``<model file name>.json``."""
    model_path = Path(model_path)
    return model_path.with_name(model_path.name + ".json")


def file_sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def save_model(encoder: Encoder, directory: str | Path | None) -> Path:
    """Write ``encoder``'s fitted state and its sidecar (see :meth:`Encoder.save`)."""
    if not encoder.is_fitted:
        raise NotFittedError(f"{encoder.name} must be trained before saving")
    arrays, fields = encoder._saved_state()
    directory = Path(directory) if directory is not None else models_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{encoder.family}-{encoder.fingerprint()}.npz"
    # Remove the sidecar first: until the new one is in place, the file is refused.
    sidecar_path(path).unlink(missing_ok=True)
    with atomic_path(path) as temporary, open(temporary, "wb") as f:
        # mypy matches **arrays against savez's allow_pickle (a bool) as well.
        np.savez(f, **arrays)  # type: ignore[arg-type]
    sidecar = {
        "format": SIDECAR_FORMAT,
        "version": SIDECAR_VERSION,
        "family": encoder.family,
        "params": encoder.params(),
        "fingerprint": encoder.fingerprint(),
        **fields,
        "file": path.name,
        "sha256": file_sha256(path),
        "created": time.time(),
    }
    write_text_atomic(sidecar_path(path), json.dumps(sidecar))
    return path


def read_sidecar(model_path: str | Path) -> dict[str, Any]:
    """The sidecar of ``model_path``, checked to be sentspace's format and version, and
    for this very file.

    Raises
    ------
    ModelError
        No sidecar, or one that sentspace did not write for this file.
    """
    model_path = Path(model_path)
    path = sidecar_path(model_path)
    try:
        sidecar = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(
            f"no sidecar {path.name} beside the model file: sentspace loads "
            "only model files it saved itself",
            model_path,
        ) from None
    except (OSError, ValueError) as error:
        raise ModelError(f"unreadable sidecar {path.name}: {error}", model_path) from None
    if isinstance(sidecar, dict) and sidecar.get("format") in OLD_FORMATS:
        raise ModelError(
            "saved by an earlier sentspace in a format it no longer loads "
            "(gensim's were pickles, which can run code): train it again",
            model_path,
        )
    if (
        not isinstance(sidecar, dict)
        or sidecar.get("format") != SIDECAR_FORMAT
        or not all(key in sidecar for key in ("family", "params", "fingerprint", "file", "sha256"))
    ):
        raise ModelError(f"{path.name} is not a sidecar written by sentspace", model_path)
    if sidecar.get("version") != SIDECAR_VERSION:
        raise ModelError(
            f"sidecar version {sidecar.get('version')} is not supported "
            f"(expected {SIDECAR_VERSION})",
            model_path,
        )
    if sidecar["file"] != model_path.name:
        raise ModelError(
            f"the sidecar describes {sidecar['file']!r}, not this file "
            "(files are loaded under the name they were saved with)",
            model_path,
        )
    return sidecar


def load_model(path: str | Path, cls: type[_Encoder]) -> _Encoder:
    """A ``cls`` encoder from a file that :func:`save_model` wrote (see
    :meth:`Encoder.load`)."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise ModelError("no such model file", path)
    sidecar = read_sidecar(path)
    if sidecar["family"] != cls.family:
        raise ModelError(
            f"the sidecar describes a {sidecar['family']} model, not {cls.family}", path
        )
    if file_sha256(path) != sidecar["sha256"]:
        raise ModelError(
            "the file's SHA-256 differs from its sidecar's: it was changed "
            "after sentspace saved it, so it is not loaded",
            path,
        )
    try:
        archive = np.load(path, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ValueError("not an .npz archive of arrays")
        with archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise ModelError(f"not a readable array file: {error}", path) from None
    try:
        encoder = cls._from_saved_params(sidecar["params"])
        encoder._restore_saved(arrays, sidecar)
    except (TypeError, ValueError, KeyError, RuntimeError) as error:
        raise ModelError(f"the saved state does not fit {cls.family}: {error}", path) from None
    if encoder.fingerprint() != sidecar["fingerprint"]:
        raise ModelError("the loaded model's fingerprint differs from its sidecar's", path)
    return encoder
