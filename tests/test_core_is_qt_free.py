"""The core must import with Qt unavailable: only app.ui may use it."""

import pkgutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def core_modules() -> list[str]:
    names = []
    for package in ("app", "models"):
        for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"sentspace.{package}."):
            if (
                not info.name.startswith("sentspace.app.ui")
                and info.name != "sentspace.app.__main__"
            ):
                names.append(info.name)
    return names


def test_core_imports_without_qt():
    modules = core_modules()
    assert (
        "sentspace.app.analysis.evaluations.classification" in modules
        and "sentspace.models.bow" in modules
    )
    script = (
        "import sys\n"
        "for blocked in ('PySide6', 'PyQt5', 'PyQt6', 'pyqtgraph', 'superqt'):\n"
        "    sys.modules[blocked] = None\n"
        f"import importlib\nfor name in {modules!r}:\n    importlib.import_module(name)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
