"""A workspace saved by another window since this one opened or saved it is not
overwritten by a save that expects the file as it was (issue 25, item 4)."""

import os

import pytest

from sentspace.app.workspace.format import load_workspace, save_workspace
from sentspace.app.workspace.model import Workspace
from sentspace.app.workspace.paths import WorkspaceChanged, check_unchanged, stamp


@pytest.fixture(autouse=True)
def private_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("SENTSPACE_CONFIG_DIR", str(tmp_path / "config"))


def test_a_save_over_a_workspace_another_window_saved_is_refused(tmp_path):
    path = save_workspace(Workspace(view={"window": "A"}), tmp_path / "study")
    opened = stamp(path)  # window A opened it
    save_workspace(Workspace(view={"window": "B"}), path)  # window B saved since
    with pytest.raises(WorkspaceChanged) as caught:
        save_workspace(Workspace(view={"window": "A again"}), path, expect=opened)
    assert "changed on disk since this window opened or saved it" in str(caught.value)
    assert caught.value.then == opened and caught.value.now == stamp(path)
    assert load_workspace(path).view == {"window": "B"}  # B's save is kept
    # Overwrite: a save that expects nothing.
    save_workspace(Workspace(view={"window": "A again"}), path)
    assert load_workspace(path).view == {"window": "A again"}


def test_a_file_touched_saved_the_same_or_gone_is_not_a_change(tmp_path):
    path = save_workspace(Workspace(view={"n": 1}), tmp_path / "study.sentspace")
    opened = stamp(path)
    check_unchanged(path, opened)
    os.utime(path, ns=(opened.mtime_ns + 5_000_000_000,) * 2)  # touched
    check_unchanged(path, opened)
    save_workspace(Workspace(view={"n": 1}), path)  # the same bytes saved again
    save_workspace(Workspace(view={"n": 2}), path, expect=opened)
    now = stamp(path)
    path.unlink()  # gone: a save overwrites nothing
    check_unchanged(path, now)
    assert stamp(path) is None
    check_unchanged(path, None)
