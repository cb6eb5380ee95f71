"""Workspaces are portable (issue 34, item 2): named corpora are kept by name, files by a
path relative to the workspace file as well as the absolute one, so a folder holding a
workspace and its data can be moved and opened from any working folder; review batches
too. Workspaces of schema 2 still open."""

import json
import shutil

import numpy as np
import pytest

from sentspace.app.analysis.evaluations import EVALUATIONS
from sentspace.app.analysis.explore import explore
from sentspace.app.analysis.suspicious import iter_find_suspicious
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.commands import eval_command
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.state.session import EvaluationRun, Session
from sentspace.app.workspace.batches import batch_journals, export_batches, split_batches
from sentspace.app.workspace.format import load_workspace, open_workspace, save_workspace
from sentspace.app.workspace.restore import changed_summaries, restore_session, run_workspace
from sentspace.app.workspace.snapshot import workspace_of
from sentspace.models import make_encoder
from tests.test_session import same
from tests.workspace_files import manifest, older


def evaluated(session, spec, name, encoder="bow"):
    result = run_job(
        EVALUATIONS[name][0](session.state(spec).corpus, make_encoder(encoder), seed=0)
    )
    session.add_evaluation(
        spec, EvaluationRun(name, encoder, 0, result, eval_command(name, spec, [encoder], 0))
    )


@pytest.fixture
def project(tmp_path, shared_data):
    """A folder holding the data a study uses: grouped MSRP, SICK's trial pairs, a
    training text and a word-vector file."""
    data = tmp_path / "project" / "data"
    grouped = load_corpus("msrp-grouped").sources[0]
    (data / "grouped").mkdir(parents=True)
    for name in ("phrases.txt", "phrase_groups.csv"):
        shutil.copy(grouped.replace("phrases.txt", name), data / "grouped" / name)
    (data / "sick").mkdir()
    shutil.copy(shared_data / "sick" / "SICK_trial.txt", data / "sick")
    sentences = (shared_data / "state-union" / "sentences.txt").read_text().splitlines()
    (data / "speeches.txt").write_text("\n".join(sentences[:2000]) + "\n")
    words = sorted(
        {word for text in load_corpus(data / "grouped").texts[:50] for word in text.lower().split()}
    )
    vectors = np.random.default_rng(0).normal(size=(len(words), 8))
    (data / "vectors.txt").write_text(
        f"{len(words)} 8\n"
        + "".join(
            f"{word} {' '.join(f'{v:.4f}' for v in row)}\n" for word, row in zip(words, vectors)
        )
    )
    return tmp_path / "project"


def test_a_moved_folder_reopens_everything_from_another_working_folder(
    project, tmp_path, monkeypatch
):
    start = tmp_path / "start"
    start.mkdir()
    monkeypatch.chdir(start)
    data = project / "data"
    session = Session()
    grouped = str(data / "grouped")
    corpus = load_corpus(grouped)
    annotations = AnnotationSession.open(corpus, workspace=project / "study.sentspace")
    session.open(grouped, corpus, annotations)
    annotations.move(5, corpus.groups.names[7], reason="belongs with 7")
    session.corpus_edited(grouped)
    speeches = data / "speeches.txt"
    session.add_run(
        grouped,
        "bow",
        run_job(
            explore(
                session.current.corpus,
                make_encoder("bow"),
                training_texts=speeches.read_text().splitlines(),
            )
        ),
        training_text=str(speeches),
    )
    vectors = f"path:{data / 'vectors.txt'}"
    session.add_run(
        grouped, vectors, run_job(explore(session.current.corpus, make_encoder(vectors)))
    )
    evaluated(session, grouped, "classification")
    sick = str(data / "sick" / "SICK_trial.txt")
    session.open(sick, load_corpus(sick), None)
    evaluated(session, sick, "relatedness")
    for name in ("costra", "multi30k-captions:en:val"):  # named corpora
        session.open(name, load_corpus(name), None)
    evaluated(session, "costra", "costra")
    session.switch(grouped)
    saved = save_workspace(workspace_of(session), project / "study.sentspace", remember=False)

    text = manifest(saved)
    assert [entry["spec"] for entry in text["corpora"]] == [
        grouped,
        sick,
        "costra",
        "multi30k-captions:en:val",
    ]
    assert text["relative"][grouped] == "data/grouped"
    assert text["relative"][str(annotations.journal.path)] == annotations.journal.path.name

    moved = tmp_path / "moved" / "project"
    moved.parent.mkdir()
    shutil.move(project, moved)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "costra").mkdir(parents=True)  # a folder of that name is not the corpus
    monkeypatch.chdir(elsewhere)
    workspace, changes = open_workspace("../moved/project/study.sentspace")
    assert changes == []
    there = moved / "data"
    assert [entry.spec for entry in workspace.corpora] == [
        str(there / "grouped"),
        str(there / "sick" / "SICK_trial.txt"),
        "costra",
        "multi30k-captions:en:val",
    ]
    restored = run_job(restore_session(workspace, moved / "study.sentspace"))
    try:
        assert list(restored.states) == [entry.spec for entry in workspace.corpora]
        for before, after in zip(session.states.values(), restored.states.values()):
            assert after.corpus.fingerprint == before.corpus.fingerprint
            for mine, theirs in zip(before.evaluations, after.evaluations, strict=True):
                same(mine.result, theirs.result, f"{before.spec} {mine.name}")
            for (key, run), theirs in zip(before.runs.items(), after.runs.values()):
                same(
                    run.exploration.embeddings,
                    theirs.exploration.embeddings,
                    f"{before.spec} {key}",
                )
        mine = restored.states[str(there / "grouped")]
        assert mine.annotations.journal.path.parent == moved
        assert len(mine.annotations.edits) == 1
        assert mine.runs["bow"].training_text == str(there / "speeches.txt")
        # The encoder that read a file is named by where the file is now.
        moved_vectors = f"path:{there / 'vectors.txt'}"
        assert mine.shown == mine.encoder == moved_vectors
        assert mine.runs[moved_vectors].exploration.encoder.source == str(there / "vectors.txt")
        assert restored.states["costra"].costra_result is not None
    finally:
        restored.close_all()
        session.close_all()
    # `sentspace run` re-runs it there too, to the same numbers.
    assert changed_summaries(workspace, run_workspace(moved / "study.sentspace")) == []


def test_a_schema_2_workspace_with_a_named_corpus_still_opens(tmp_path, monkeypatch):
    """Schema 2 kept every name but the bundled corpus's as a path in the working folder
    (``/where/it/was/costra``): the name is taken back."""
    monkeypatch.chdir(tmp_path)
    session = Session()
    session.open("costra", load_corpus("costra"), None)
    evaluated(session, "costra", "costra")
    path = save_workspace(workspace_of(session), tmp_path / "old", remember=False)
    data = older(path, schema=2)
    del data["relative"]
    data["corpora"][0]["spec"] = str(tmp_path / "gone" / "costra")
    path.write_text(json.dumps(data))
    workspace, changes = open_workspace(path)
    assert workspace.corpora[0].spec == "costra" and changes == []
    restored = run_job(restore_session(workspace, path))
    try:
        same(session.current.costra_result, restored.current.costra_result, "costra")
    finally:
        restored.close_all()
        session.close_all()


def test_moved_review_batches_find_their_journals(tmp_path, monkeypatch):
    corpus = load_corpus("msrp-grouped")
    lists = run_job(iter_find_suspicious(corpus, [make_encoder("bow")]))
    team = AnnotationSession.open(corpus, tmp_path / "team.jsonl", author="lead")
    team.move(100, "3", reason="before the batches")
    batches = split_batches(lists, 2, top=3)
    written = export_batches(
        "msrp-grouped", corpus, lists, batches, tmp_path / "out", records=team.journal.records
    )
    shutil.move(tmp_path / "out", tmp_path / "sent")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    first = tmp_path / "sent" / written[0].relative_to(tmp_path / "out")
    journal = first.parent / f"batch-1.{corpus.fingerprint}.edits.jsonl"
    assert batch_journals([first]) == [journal]
    workspace, changes = open_workspace(first)
    assert changes == [] and workspace.corpora[0].spec == "msrp-grouped"
    state = run_job(restore_session(workspace, first)).current
    try:
        assert state.annotations.journal.path == journal
        assert state.annotations.group_names_of(100) == ["3"]
        assert {kind: len(items) for kind, items in state.review_lists.items()} == batches[
            0
        ].counts()
    finally:
        state.close()
        team.close()
    assert load_workspace(first).corpora[0].journal == str(journal)
