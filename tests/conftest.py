import os
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real datasets beside the repository (see each folder's SOURCE.txt)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


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
