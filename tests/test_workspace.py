"""Workspaces: save, reopen, detect changed files, refuse corrupt files, re-run headless."""

import io
import json
import shutil
import time
import zipfile

import numpy as np
import pytest

from sentspace.app.analysis.evaluations.classification import run_classification
from sentspace.app.analysis.evaluations.relatedness import run_relatedness
from sentspace.app.analysis.projection import Projection
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.sick import load_sick
from sentspace.app.workspace.codec import decode_state, encode_state
from sentspace.app.workspace.format import (
    REPORT_EVERY,
    corpus_entry,
    encoder_entry,
    evaluation_entry,
    iter_save_workspace,
    load_workspace,
    open_workspace,
    save_workspace,
)
from sentspace.app.workspace.model import MANIFEST, SCHEMA, Workspace, WorkspaceError
from sentspace.app.workspace.recent import add_recent, recent_workspaces
from sentspace.app.workspace.restore import changed_summaries, load_workspace_corpus, run_workspace
from sentspace.models import make_encoder
from tests.workspace_files import manifest, manifest_text, rewrite


@pytest.fixture(autouse=True)
def private_dirs(tmp_path, monkeypatch):
    monkeypatch.setenv("SENTSPACE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("SENTSPACE_DATA_DIR", str(tmp_path / "data"))


def copy_grouped(folder):
    """A private copy of the bundled grouped corpus in ``folder``, to change on disk."""
    source = load_corpus("msrp-grouped").sources[0]
    folder.mkdir()
    for name in ("phrases.txt", "phrase_groups.csv"):
        shutil.copy(source.replace("phrases.txt", name), folder / name)
    return folder


@pytest.fixture
def grouped_copy(tmp_path):
    return copy_grouped(tmp_path / "msrp-grouped")


@pytest.fixture(scope="module")
def saved_bytes(tmp_path_factory, shared_data):
    """The bytes of a saved workspace, for tests that only read or damage the file."""
    folder = tmp_path_factory.mktemp("saved")
    workspace = make_workspace(folder, copy_grouped(folder / "msrp-grouped"), shared_data)
    return save_workspace(workspace, folder / "study.json", remember=False).read_bytes()


def make_workspace(tmp_path, folder, shared_data):
    corpus = load_corpus(folder)
    sick = load_sick(shared_data / "sick")
    session = AnnotationSession.open(corpus, workspace=tmp_path / "study.json", author="ann")
    session.move(0, "1", reason="test")
    corrected = session.corpus
    session.close()
    bow, tfidf = make_encoder("bow"), make_encoder("tfidf")
    original = run_job(run_classification(corpus, bow, seed=1))
    fixed = run_job(run_classification(corrected, bow, seed=1))
    related = run_job(run_relatedness(sick, tfidf, seed=0, splits=("test",)))
    return Workspace(
        corpora=(
            corpus_entry(folder, corpus, session.journal.path),
            corpus_entry(shared_data / "sick", sick),
        ),
        encoders=(encoder_entry("bow", bow), encoder_entry("tfidf", tfidf)),
        evaluations=(
            evaluation_entry("classification", original, corpus=0, encoder=0, seed=1),
            evaluation_entry("classification", fixed, corpus=0, encoder=0, seed=1, corrected=True),
            evaluation_entry(
                "relatedness", related, corpus=1, encoder=1, seed=0, options={"splits": ["test"]}
            ),
        ),
        projections=({"method": "pca", "seed": 0, "corpus": 0, "encoder": 0},),
        view={"colour": "group", "selected": [3, 4]},
    )


def test_save_reopen_and_rerun_headless(tmp_path, grouped_copy, shared_data):
    workspace = make_workspace(tmp_path, grouped_copy, shared_data)
    path = save_workspace(workspace, tmp_path / "study.json")
    reopened, changes = open_workspace(path)
    assert reopened == workspace and changes == []
    assert recent_workspaces() == [path.resolve()]

    results = run_workspace(path)
    assert [r.summary() for r in results] == [
        [tuple(row) for row in e.summary] for e in workspace.evaluations
    ]
    assert changed_summaries(reopened, results) == []
    # The edit changed the evaluation: it ran on the corrected corpus.
    saved = workspace.evaluations
    assert saved[0].summary != saved[1].summary
    # Seed 1; a number within a band, not text: another CPU may move the last digits.
    assert float(dict(map(tuple, saved[0].summary))["mean accuracy"].split()[0]) == pytest.approx(
        0.9907, abs=0.003
    )
    corrected = load_workspace_corpus(reopened, 0, path, corrected=True)
    assert corrected.groups.names[corrected.groups.labels(859)[0]] == "1"


def test_changed_and_missing_files_are_reported(tmp_path, grouped_copy, shared_data):
    path = save_workspace(
        make_workspace(tmp_path, grouped_copy, shared_data), tmp_path / "study.json"
    )
    with (grouped_copy / "phrase_groups.csv").open("a") as handle:
        handle.write("\n")  # same corpus, different bytes
    journal = tmp_path / f"study.{load_corpus(grouped_copy).fingerprint}.edits.jsonl"
    journal.unlink()
    _, changes = open_workspace(path)
    assert [(c.path, c.problem) for c in changes] == [
        (str(grouped_copy / "phrase_groups.csv"), "hash differs"),
        (str(journal), "missing"),
    ]
    (grouped_copy / "phrases.txt").unlink()
    _, changes = open_workspace(path)
    assert (str(grouped_copy / "phrases.txt"), "missing") in [(c.path, c.problem) for c in changes]
    with pytest.raises(WorkspaceError, match="phrases.txt, which no longer exists"):
        run_workspace(path)


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda text: text[: len(text) // 2], "the workspace is truncated"),
        (lambda text: text[: text.index('"seed"') + 7], "the workspace is truncated"),
        (
            lambda text: text.replace('"seed": 1,', '"seed": 1', 1),
            r"the workspace is damaged: not valid JSON \(Expecting ',' delimiter",
        ),
        (lambda text: "", "the file is empty"),
        (lambda text: "{oops", r"not a sentspace workspace \(not JSON\)"),
        (lambda text: "id,text\n1,a cat sits\n", r"not a sentspace workspace \(not JSON\)"),
        (lambda text: json.dumps([1, 2]), r"not a sentspace workspace \(a JSON file without"),
        (lambda text: text.replace(f'"schema": {SCHEMA}', '"schema": 99'), "schema 99"),
        (
            lambda text: text.replace('"seed": 1', '"seed": "one"', 1),
            r"wrong schema: evaluations\[0\].seed: should be an integer, found 'one'",
        ),
        (
            lambda text: text.replace('"encoder": 1', '"encoder": 7', 1),
            r"wrong schema: evaluations\[2\] refers to",
        ),
        (
            lambda text: text.replace('"spec": "bow"', '"spek": "bow"'),
            r"wrong schema: encoders\[0\]: unknown field 'spek'",
        ),
    ],
)
def test_corrupt_workspaces_are_refused_and_left_alone(tmp_path, saved_bytes, damage, message):
    path = tmp_path / "study.json"
    path.write_bytes(saved_bytes)
    assert load_workspace(path).evaluations
    rewrite(path, damage(manifest_text(path)))
    broken = path.read_bytes()
    with pytest.raises(WorkspaceError, match=message) as caught:
        load_workspace(path)
    assert str(path) in str(caught.value)
    with pytest.raises(WorkspaceError):
        run_workspace(path)
    assert path.read_bytes() == broken  # nothing overwritten


def arrays_named(data):
    """The .npy members a workspace's manifest names."""
    if isinstance(data, dict):
        own = [data["npy"]] if "npy" in data else []
        return own + [name for item in data.values() for name in arrays_named(item)]
    if isinstance(data, list):
        return [name for item in data for name in arrays_named(item)]
    return []


def test_a_workspace_is_a_zip_of_its_manifest_and_arrays(tmp_path, saved_bytes):
    path = tmp_path / "study.sentspace"
    path.write_bytes(saved_bytes)
    with zipfile.ZipFile(path) as archive:
        members = archive.namelist()
    named = arrays_named(manifest(path))
    assert members == [MANIFEST, *named] and len(named) > 10
    assert "bytes" not in manifest_text(path)  # no array as base64


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda raw: raw[: len(raw) // 2], r"truncated or damaged: not a whole zip archive"),
        (lambda raw: raw[:-30], r"truncated or damaged: not a whole zip archive"),
    ],
)
def test_a_cut_zip_is_refused(tmp_path, saved_bytes, damage, message):
    path = tmp_path / "study.sentspace"
    path.write_bytes(damage(saved_bytes))
    with pytest.raises(WorkspaceError, match=message) as caught:
        load_workspace(path)
    assert str(path) in str(caught.value)


def test_an_array_member_missing_or_pickled_is_refused(tmp_path, saved_bytes):
    path = tmp_path / "study.sentspace"
    path.write_bytes(saved_bytes)
    data = manifest(path)
    first = arrays_named(data)[0]
    text = json.dumps(data)
    rewrite(path, text.replace(f'"{first}"', '"arrays/none.npy"', 1))
    with pytest.raises(WorkspaceError, match=r"\.npy: the archive has no member 'arrays/none.npy'"):
        load_workspace(path)
    # An array of objects, which only unpickling would read: refused, never unpickled.
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    path.write_bytes(saved_bytes)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("arrays/pickled.npy", buffer.getvalue())
    rewrite(path, text.replace(f'"{first}"', '"arrays/pickled.npy"', 1))
    with pytest.raises(WorkspaceError, match=r"\.npy: not a readable array \(Object arrays"):
        load_workspace(path)


def test_a_binary_file_is_no_workspace(tmp_path):
    path = tmp_path / "vectors.npy"
    path.write_bytes(b"\x93NUMPY\x01\x00\xff\xfe")
    with pytest.raises(WorkspaceError, match=r"not a sentspace workspace \(not a text"):
        load_workspace(path)


def test_a_save_reports_its_progress_at_the_start_then_at_most_every_tenth_of_a_second(
    tmp_path, saved_bytes
):
    """Each report is a signal the window draws on its own thread: one per array
    flooded it (issue 41)."""
    path = tmp_path / "study.sentspace"
    path.write_bytes(saved_bytes)
    workspace = load_workspace(path)
    reports = []
    start = time.monotonic()
    run_job(iter_save_workspace(workspace, tmp_path / "again", remember=False), reports.append)
    elapsed = time.monotonic() - start
    assert len(arrays_named(manifest(path))) > 10
    assert reports[0].done == 0 and len(reports) <= 1 + elapsed / REPORT_EVERY
    assert load_workspace(tmp_path / "again.sentspace") == workspace


def test_a_failed_save_leaves_the_previous_workspace(tmp_path, saved_bytes, monkeypatch):
    path = tmp_path / "study.json"
    path.write_bytes(saved_bytes)
    save_workspace(load_workspace(path), path)
    before = path.read_bytes()

    def crash(*_args):
        raise OSError("disk full")

    monkeypatch.setattr("sentspace.app.base.atomic.os.replace", crash)
    with pytest.raises(OSError, match="disk full"):
        save_workspace(Workspace(view={"new": True}), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


def test_missing_workspace_and_recent_list(tmp_path):
    with pytest.raises(WorkspaceError, match="no such workspace file"):
        load_workspace(tmp_path / "nowhere.json")
    for number in range(12):
        add_recent(tmp_path / f"w{number}.json")
    recent = recent_workspaces()
    assert len(recent) == 10 and recent[0].name == "w11.json"
    add_recent(tmp_path / "w5.json")
    assert recent_workspaces()[:2] == [tmp_path / "w5.json", tmp_path / "w11.json"]
    (tmp_path / "config" / "recent-workspaces.json").write_text("{broken")
    assert recent_workspaces() == []


def test_a_workspace_keeps_the_path_the_user_chose_through_a_link(shared_data, tmp_path):
    """../shared may be a symbolic link: the workspace names the link, as the user did,
    and still opens the corpus behind it."""
    link = tmp_path / "shared-link"
    link.symlink_to(shared_data / "sick", target_is_directory=True)
    spec = str(link / "SICK_trial.txt")
    corpus = load_corpus(spec)
    entry = corpus_entry(spec, corpus, tmp_path / "journal.jsonl")
    assert entry.spec == spec and entry.journal == str(tmp_path / "journal.jsonl")
    path = save_workspace(Workspace(corpora=(entry,)), tmp_path / "linked", remember=False)
    assert path.name == "linked.sentspace"
    assert load_workspace(path).corpora[0].spec == spec
    assert load_workspace_corpus(load_workspace(path), 0, path).fingerprint == corpus.fingerprint


def test_a_result_saved_before_a_field_existed_takes_its_default():
    projection = Projection(np.arange(6, dtype=np.float32).reshape(3, 2), "pca", {"seed": 0})
    saved = encode_state(projection)
    del saved["fields"]["fitted_on"]  # as written before layouts were sampled
    restored = decode_state(saved)
    assert restored.fitted_on is None and np.array_equal(
        restored.coordinates, projection.coordinates
    )
    saved["fields"]["invented"] = 1
    with pytest.raises(WorkspaceError, match="has fields"):
        decode_state(saved)
