import os
from pathlib import Path

import pytest

from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.costra import load_costra
from sentspace.app.corpora.multi30k import DATA_ENV

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real datasets beside the repository (see each folder's SOURCE.txt)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="module")
def grouped():
    """The bundled grouped MSRP: 859 sentences in 274 paraphrase groups."""
    return load_corpus("msrp-grouped")


@pytest.fixture(scope="module")
def sick(shared_data):
    """The full SICK: 6,077 sentences in 9,927 scored and labelled pairs."""
    return load_corpus(shared_data / "sick")


@pytest.fixture(scope="module")
def costra(shared_data):
    """Costra 1.1, the real file: 6,968 Czech sentences."""
    return load_costra(shared_data / "costra" / "data.tsv")


@pytest.fixture(scope="module")
def test_2016(shared_data):
    """Multi30K's 2016 test set as parallel captions (1,000 per language)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DATA_ENV, str(shared_data / "multi30k"))
        return load_corpus("multi30k-parallel")


@pytest.fixture(autouse=True, scope="session")
def private_folders(tmp_path_factory):
    """Keep the tests' embedding cache, edit journals and recent-workspace list out of
    the user's folders."""
    from sentspace.app.analysis.cache import CACHE_DIR_ENV
    from sentspace.app.annotations.journal import DATA_DIR_ENV
    from sentspace.app.workspace.recent import CONFIG_DIR_ENV

    previous = {
        name: os.environ.get(name) for name in (CACHE_DIR_ENV, DATA_DIR_ENV, CONFIG_DIR_ENV)
    }
    for name in previous:
        os.environ[name] = str(tmp_path_factory.mktemp(name.lower()))
    yield
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
