"""What a week of real use turned up in the window at 1280x800 (issue 42)."""

import os

from sentspace.app.ui.window import files as files_module
from sentspace.app.ui.window.main_window import MainWindow
from sentspace.app.workspace import load_workspace
from tests.ui.conftest import costra_shown, settle, wait_for_job
from tests.ui.test_workspace_saving import save_action


def test_the_costra_seed_group_chosen_is_shown_again_on_reopening(
    qtbot, window, tmp_path, monkeypatch
):
    view = costra_shown(qtbot, window)
    corpus = window.session.current.corpus
    group = corpus.groups.names.index("100")
    view.group_choice.setCurrentIndex(view.group_choice.findData(group))
    assert view.group == group
    monkeypatch.setattr(files_module, "save_file", lambda *_, **__: str(tmp_path / "costra"))
    save_action(window).trigger()
    path = tmp_path / "costra.sentspace"
    saved = load_workspace(path)
    assert saved.corpora[0].state["view"]["costra_group"] == group

    again = MainWindow()
    qtbot.addWidget(again)
    again.resize(1280, 800)
    again.show()
    again.files.open_workspace(os.fspath(path))
    wait_for_job(qtbot, again)
    settle(qtbot, again)
    again.views.setCurrentIndex(1)
    shown = again.views.costra_view
    assert shown.group == group
    assert shown.group_choice.currentData() == group
    assert again.session.current.view["costra_group"] == group
