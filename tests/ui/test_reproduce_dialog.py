"""Help > Reproduce a paper…: a paper's quick run as a job, its published cells beside
sentspace's, a row's result and command, and the report saved."""

from sentspace.app.reproduce.report import COLUMNS
from tests.ui.conftest import wait_for_job


def test_reproduce_costra_from_the_window(qtbot, window, tmp_path, monkeypatch):
    import sentspace.app.ui.window.analyses as analyses

    help_menu = window.menuBar().actions()[-1].menu()
    action = next(a for a in help_menu.actions() if a.text().startswith("Reproduce"))
    action.trigger()
    dialog = next(child for child in window.findChildren(analyses.ReproduceDialog))
    qtbot.addWidget(dialog)
    dialog.paper.setCurrentIndex(dialog.paper.findData("costra"))
    dialog.run_button.click()
    assert not dialog.run_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=180_000)
    wait_for_job(qtbot, window)
    assert dialog.run_button.isEnabled() and dialog.save_button.isEnabled()
    assert dialog.rows.topLevelItemCount() == len(dialog.report.tables)
    shown = [
        dialog.rows.topLevelItem(t).child(r)
        for t in range(dialog.rows.topLevelItemCount())
        for r in range(dialog.rows.topLevelItem(t).childCount())
    ]
    assert len(shown) == len(dialog.report.rows)
    assert [shown[0].text(i) for i in range(len(COLUMNS))][:2] == [
        dialog.report.rows[0].cell.row,
        dialog.report.rows[0].cell.column,
    ]
    rerun = next(item for item in shown if item.data(0, 256).value is not None)
    dialog.rows.setCurrentItem(rerun)
    assert dialog.result.rowCount() > 0 and "sentspace eval" in dialog.detail.text()
    assert "Findings" in dialog.findings.text()

    folder = tmp_path / "report"
    monkeypatch.setattr(analyses, "open_folder", lambda *_, **__: str(folder))
    dialog.save_button.click()
    assert sorted(path.name for path in folder.iterdir()) == [
        "costra.html",
        "costra.json",
        "costra.md",
    ]
