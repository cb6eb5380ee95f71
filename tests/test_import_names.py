"""sentspace imports under its own name: a user's folder holding its own app.py,
models.py and resources.py (as notebooks often do) shadows nothing, and a wheel holds
the three folders inside the sentspace package."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_users_app_and_models_modules_shadow_nothing(tmp_path):
    for name in ("app", "models", "resources"):
        (tmp_path / f"{name}.py").write_text(f"raise SystemExit('the user\\'s {name}.py')\n")
    script = (
        "from sentspace.app.corpora import load_corpus\n"
        "from sentspace.models import make_encoder\n"
        "corpus = load_corpus('msrp-grouped')\n"
        "print(len(corpus), make_encoder('bow').fit(corpus.texts).dim)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "859"


def test_only_sentspaces_own_modules_import_under_its_name():
    import pkgutil

    import sentspace

    assert {module.name for module in pkgutil.iter_modules(sentspace.__path__)} == {
        "__main__",
        "_api",
        "_results",
        "app",
        "models",
        "resources",
    }
    for name in ("setup", "tasks", "tests"):
        done = subprocess.run(
            [sys.executable, "-c", f"import sentspace.{name}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 1 and "ModuleNotFoundError" in done.stderr, name


def test_static_tools_find_the_packages_in_a_checkout():
    """The folders are linked into sentspace/, so a type checker or an editor resolves
    ``sentspace.app...`` from the files alone, as it does in the wheel."""
    for name in ("app", "models", "resources"):
        link = ROOT / "sentspace" / name
        assert link.is_symlink() and link.resolve() == ROOT / name


def test_the_folders_refuse_their_own_names():
    for name in ("app", "models", "resources"):
        done = subprocess.run(
            [sys.executable, "-c", f"import {name}"], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode != 0 and f"imported as sentspace.{name}" in done.stderr


def test_a_wheel_puts_the_folders_inside_the_sentspace_package(tmp_path):
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    [wheel] = tmp_path.glob("sentspace-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for expected in (
        "sentspace/__init__.py",
        "sentspace/app/corpora/__init__.py",
        "sentspace/models/bow.py",
        "sentspace/app/ui/window/main_window.py",
        "sentspace/resources/corpora/msrp-grouped/phrases.txt",
    ):
        assert expected in names, expected
    assert not [name for name in names if name.split("/")[0] in ("app", "models", "resources")]
