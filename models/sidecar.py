"""The JSON sidecar beside every model file that sentspace saves (gensim, PyTorch).

It says what the file holds (format, family, parameters, fingerprints) and records the
file's name and SHA-256, so that a file is loaded only when sentspace wrote it and nothing
changed it since: gensim's native files are pickles, which run code when loaded, and
weights that differ from what was saved would silently change every result.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.atomic import write_text_atomic
from models.base import ModelError


def sidecar_path(model_path: str | Path) -> Path:
    """Where the sidecar JSON of a saved model lies: ``<model file name>.json``."""
    model_path = Path(model_path)
    return model_path.with_name(model_path.name + ".json")


def file_sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def write_sidecar(model_path: Path, format: str, version: int, fields: dict[str, Any],
                  indent: int | None = None) -> None:
    """Write the sidecar of the finished ``model_path``: ``format``, ``version``, the
    ``fields``, the file's name and SHA-256 and the time, atomically."""
    sidecar = {"format": format, "version": version, **fields, "file": model_path.name,
               "sha256": file_sha256(model_path), "created": time.time()}
    write_text_atomic(sidecar_path(model_path), json.dumps(sidecar, indent=indent))


def read_sidecar(model_path: str | Path, format: str, version: int, keys: Sequence[str],
                 why: str = "") -> dict[str, Any]:
    """The sidecar of ``model_path``, checked to be sentspace's ``format`` and ``version``,
    with ``keys``, and for this very file (``why`` adds to the message when it is missing).

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
        raise ModelError(f"no sidecar {path.name} beside the model file: sentspace loads "
                         f"only model files it saved itself{why}", model_path) from None
    except (OSError, ValueError) as error:
        raise ModelError(f"unreadable sidecar {path.name}: {error}", model_path) from None
    if (not isinstance(sidecar, dict) or sidecar.get("format") != format
            or not all(key in sidecar for key in ("family", "file", "sha256", *keys))):
        raise ModelError(f"{path.name} is not a sidecar written by sentspace", model_path)
    if sidecar.get("version") != version:
        raise ModelError(f"sidecar version {sidecar.get('version')} is not supported "
                         f"(expected {version})", model_path)
    if sidecar["file"] != model_path.name:
        raise ModelError(f"the sidecar describes {sidecar['file']!r}, not this file "
                         "(files are loaded under the name they were saved with)", model_path)
    return sidecar


def check_model_file(model_path: Path, sidecar: dict[str, Any], family: str) -> None:
    """Refuse ``model_path`` unless its sidecar is for ``family`` and its SHA-256 is the
    one the sidecar recorded."""
    if sidecar["family"] != family:
        raise ModelError(f"the sidecar describes a {sidecar['family']} model, not {family}",
                         model_path)
    if file_sha256(model_path) != sidecar["sha256"]:
        raise ModelError("the file's SHA-256 differs from its sidecar's: it was changed "
                         "after sentspace saved it, so it is not loaded", model_path)
