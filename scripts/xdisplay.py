"""The screenshot scripts' display: a real (virtual) X display at the README size.

Without a DISPLAY a script re-runs itself under ``xvfb-run -a`` (a free server number;
Debian: apt-get install xvfb xauth imagemagick); with one (``DISPLAY=:61``), Qt draws
on it through xcb."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

SIZE = (1280, 800)  # the layout the README pictures and issue 14 promise


def rerun_on_x_display() -> int | None:
    """The exit code of this script re-run under xvfb-run when there is no DISPLAY;
    None when there is one (then Qt is set to draw on it)."""
    if not os.environ.get("DISPLAY"):
        if not shutil.which("xvfb-run"):
            sys.exit("no DISPLAY and no xvfb-run: apt-get install xvfb xauth imagemagick")
        return subprocess.run(
            ["xvfb-run", "-a", "-s", f"-screen 0 {SIZE[0]}x{SIZE[1]}x24", sys.executable, *sys.argv]
        ).returncode
    os.environ["QT_QPA_PLATFORM"] = "xcb"
    return None
