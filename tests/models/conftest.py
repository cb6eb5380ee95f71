import pytest

from sentspace.app.corpora import load_corpus


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    """Never touch the user's embedding cache or trained models."""
    monkeypatch.setenv("SENTSPACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SENTSPACE_MODELS_DIR", str(tmp_path / "models"))


@pytest.fixture(scope="session")
def msrp():
    """The bundled grouped MSRP corpus: 859 sentences in 274 paraphrase groups."""
    return load_corpus("msrp-grouped")
