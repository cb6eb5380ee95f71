"""The workspaces opened lately, kept in the user's configuration folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import platformdirs

from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.workspace.model import chosen_path, same_file

#: Overrides where the recent-workspaces list lives (tests set it).
CONFIG_DIR_ENV = "SENTSPACE_CONFIG_DIR"


RECENT_LIMIT = 10


def config_dir() -> Path:
    """``$SENTSPACE_CONFIG_DIR``, else the platform's user config folder for sentspace."""
    return Path(os.environ.get(CONFIG_DIR_ENV) or platformdirs.user_config_dir("sentspace"))


def _recent_file() -> Path:
    return config_dir() / "recent-workspaces.json"


def recent_workspaces() -> list[Path]:
    """Recently saved or opened workspaces, most recent first; an unreadable list is
    treated as empty (it is a convenience, never worth an error)."""
    try:
        paths = json.loads(_recent_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not isinstance(paths, list):
        return []
    return [Path(p) for p in paths if isinstance(p, str)]


def add_recent(path: str | Path) -> list[Path]:
    """Put ``path`` first in the recent list (atomically), keeping
    :data:`RECENT_LIMIT`."""
    path = Path(chosen_path(path))
    paths = [
        path,
        *(p for p in recent_workspaces() if not (p == path or p.exists() and same_file(p, path))),
    ][:RECENT_LIMIT]
    _recent_file().parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(_recent_file(), json.dumps([str(p) for p in paths], indent=1) + "\n")
    return paths
