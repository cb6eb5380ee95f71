"""The code base passes its linter and, in the Qt-free core, its type checker, as
configured in pyproject.toml ([tool.ruff], [tool.mypy]): both are in the test extra."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*command: str, timeout: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_ruff_finds_nothing():
    done = _run("ruff", "check", "--no-cache", ".", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing_in_the_core():
    # The packages it checks, and the modules it leaves out, are in [tool.mypy]. A cold
    # run takes minutes; its cache (.mypy_cache) makes the next one quick.
    done = _run("mypy", timeout=1200)
    assert done.returncode == 0, done.stdout + done.stderr
