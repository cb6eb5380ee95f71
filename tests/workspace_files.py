"""The JSON inside a saved workspace, read and written back, for tests that look at
or damage what a workspace file holds (a schema-4 file is a zip: the manifest and its
arrays' .npy members)."""

import base64
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.workspace.model import MANIFEST


def manifest(path: Path) -> dict[str, Any]:
    """The JSON a workspace file holds (its arrays named, not read)."""
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read(MANIFEST))


def manifest_text(path: Path) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read(MANIFEST).decode()


def rewrite(path: Path, data: dict[str, Any] | str) -> None:
    """``path`` with its manifest replaced by ``data`` (JSON, or text as it is), its
    arrays kept."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist() if name != MANIFEST}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(MANIFEST, data if isinstance(data, str) else json.dumps(data))
        for name, content in members.items():
            archive.writestr(name, content)


def older(path: Path, schema: int = 3) -> dict[str, Any]:
    """The JSON of ``path`` as a workspace of ``schema`` (2 or 3) wrote it: one text,
    numbers as base64 bytes and strings as items in place of .npy members."""
    with zipfile.ZipFile(path) as archive:

        def inline(value: Any) -> Any:
            if isinstance(value, dict):
                if "__array__" in value and "npy" in value:
                    array = np.load(io.BytesIO(archive.read(value["npy"])), allow_pickle=False)
                    kept = {k: v for k, v in value.items() if k != "npy"}
                    if array.dtype.kind == "U":
                        return kept | {"items": array.ravel().tolist()}
                    return kept | {"bytes": base64.b64encode(array.tobytes()).decode()}
                return {key: inline(item) for key, item in value.items()}
            if isinstance(value, list):
                return [inline(item) for item in value]
            return value

        data = inline(json.loads(archive.read(MANIFEST)))
    return data | {"schema": schema}
