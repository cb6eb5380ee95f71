import json
from pathlib import Path

import pytest

from sentspace.app.corpora import load_corpus
from sentspace.models import ModelError, load_trained
from sentspace.models.sidecar import sidecar_path


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    """Never touch the user's embedding cache or trained models."""
    monkeypatch.setenv("SENTSPACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SENTSPACE_MODELS_DIR", str(tmp_path / "models"))


@pytest.fixture(scope="session")
def msrp():
    """The bundled grouped MSRP corpus: 859 sentences in 274 paraphrase groups."""
    return load_corpus("msrp-grouped")


def refused_as_a_stranger(path: Path, content: bytes, no_sidecar: str, foreign: dict) -> None:
    """A model file of ``content`` at ``path`` loads neither without a sidecar (the error
    matches ``no_sidecar``) nor beside the ``foreign`` sidecar sentspace did not write."""
    path.write_bytes(content)
    with pytest.raises(ModelError, match=no_sidecar):
        load_trained(path)
    sidecar_path(path).write_text(json.dumps(foreign))
    with pytest.raises(ModelError, match="not a sidecar written by sentspace"):
        load_trained(path)
