"""The commands the window shows make its numbers again from the shell: a result on an
edited corpus (the reported move of L328 from group 107 to 228), the corrected half of
before-and-after, the Across encoders bars and an exported map."""

from __future__ import annotations

import shlex

from sentspace.app.cli import main
from tests.browser import map_manifest
from tests.test_commands import printed, same_numbers
from tests.ui.conftest import evaluate_and_wait, run_and_wait, wait_for_job


def test_the_window_shows_a_command_that_makes_the_edited_numbers(qtbot, window, capsys):
    sentence = list(window.corpus.ids).index("L328")
    window.annotations.move(sentence, "228", reason="belongs there")
    window.review_panel.corpus_changed.emit()
    window.corpus_panel.choose("bow")
    evaluate_and_wait(qtbot, window, "classification")
    panel = window.evaluation_panel
    _, result, command = panel.results[-1]
    assert f"{result.mean_accuracy:.4f}" == "0.9930"
    assert dict(result.summary())["misclassified"] == "6 of 857"
    journal = str(window.annotations.journal.path)
    assert shlex.split(command)[5:9] == [
        "--journal",
        journal,
        "--until",
        window.annotations.last_replayed,
    ]
    assert shlex.quote(journal) in panel.caption.text()
    [cli] = printed(command, capsys)
    same_numbers(cli, result)
    assert cli["provenance"]["corpus_fingerprint"] == window.corpus.fingerprint

    # Before and after: the corrected half names the journal, the original none.
    window.annotations.move(0, window.corpus.groups.names[200], reason="test")
    window.review_panel.corpus_changed.emit()
    panel.choice.setCurrentIndex(panel.choice.findData("classification"))
    window.analyses.evaluate_before_and_after()
    wait_for_job(qtbot, window)
    (_, before, original), (_, after, corrected) = panel.results[-2:]
    assert "--journal" not in original and "--journal" in corrected
    for command, result in ((original, before), (corrected, after)):
        [cli] = printed(command, capsys)
        same_numbers(cli, result)


def test_across_encoders_and_an_exported_map_show_their_commands(qtbot, window, tmp_path, capsys):
    window.annotations.move(3, window.corpus.groups.names[9], reason="test")
    window.review_panel.corpus_changed.emit()
    for family in ("bow", "tfidf"):
        window.corpus_panel.choose(family)
        evaluate_and_wait(qtbot, window, "ranking")
    panel = window.evaluation_panel
    command = panel.comparison_command.text()
    assert "--encoder bow --encoder tfidf" in command and "--journal" in command
    results = [result for _, result, _ in panel.results[-2:]]
    for cli, result in zip(printed(command, capsys), results, strict=True):
        same_numbers(cli, result)

    run_and_wait(qtbot, window)
    path = tmp_path / "map.html"
    window.files.export_map(path)
    wait_for_job(qtbot, window)
    data = map_manifest(path)
    shown = dict(data["provenance"])["Command"]
    assert shown.startswith("sentspace export-map --corpus msrp-grouped --journal ")
    assert shown in window.statusBar().currentMessage()
    words = shlex.split(shown)
    words[words.index("--out") + 1] = str(tmp_path / "again.html")
    assert main(words[1:]) == 0
    again = map_manifest(tmp_path / "again.html")
    assert again["coordinates"] == data["coordinates"]
