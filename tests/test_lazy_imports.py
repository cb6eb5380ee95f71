"""The GUI opens without the slow libraries: they load lazily, inside jobs.

``import umap`` alone takes seconds, gensim and torch about as long, and scikit-learn
pulls pandas (and pyarrow when installed); none of them may be imported by the modules
the app's start path loads (``python -m sentspace`` -> ``sentspace.app.ui.window.startup`` -> on a thread,
``sentspace.app.ui.window.main_window``). Before the window shows, not even numpy or pyqtgraph is.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Must not be imported before the window is shown.
LAZY = ("umap", "gensim", "torch", "sentence_transformers", "numba", "pynndescent", "faiss", "ray")
#: Slow enough (scikit-learn and what it pulls: about 1 s) to keep off the start path too.
ALSO_LAZY = ("sklearn", "pandas", "pyarrow", "scipy.stats")


def imported_by(statement: str, watched: tuple[str, ...] = LAZY + ALSO_LAZY) -> set[str]:
    script = (
        f"import json, sys\n{statement}\n"
        f"print(json.dumps(sorted(m for m in {watched!r} if m in sys.modules)))"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_main_window_imports_no_heavy_library():
    loaded = imported_by("import sentspace.app.ui.window.main_window")
    assert not loaded & set(LAZY), loaded
    assert not loaded & set(ALSO_LAZY), loaded


def test_cli_start_path_imports_no_heavy_library():
    loaded = imported_by(
        "import sentspace.app.cli, sentspace.app.ui.window.main_window, "
        "sentspace.models, sentspace.app.analysis.evaluations"
    )
    assert not loaded, loaded


def test_window_shows_before_numpy_and_pyqtgraph_load():
    """What runs before the first window is shown is Qt alone (app.ui.window.startup)."""
    loaded = imported_by(
        "import sentspace.app.__main__, sentspace.app.ui.window.startup",
        (
            "numpy",
            "scipy",
            "pyqtgraph",
            "superqt",
            "sentspace.app.corpora",
            "sentspace.app.cli",
            "sentspace.models",
            *LAZY,
        ),
    )
    assert not loaded, loaded


def test_figure_export_loads_only_when_used():
    """Saving a figure needs pyqtgraph's exporters; the main window's start path does not.
    (sentspace's own modules, Costra's reader among them, import at their top: the
    layers' test checks where they sit.)"""
    watched = ("pyqtgraph.exporters",)
    assert not imported_by("import sentspace.app.ui.window.main_window", watched)
