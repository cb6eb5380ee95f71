"""The Qt-free session: corpora, routed results, one selection, and a workspace that
restores all of it."""

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp

from sentspace.app.analysis.explain import explain_pair
from sentspace.app.analysis.explore import explore, reproject
from sentspace.app.analysis.suspicious import iter_find_suspicious
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.commands import eval_command
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus
from sentspace.app.state.colouring import ring_caption
from sentspace.app.state.session import Session
from sentspace.app.workspace.codec import decode_state, encode_state
from sentspace.app.workspace.format import load_workspace, save_workspace
from sentspace.app.workspace.model import WorkspaceError
from sentspace.app.workspace.restore import restore_session
from sentspace.app.workspace.snapshot import workspace_of
from sentspace.models import make_encoder


def same(a, b, where="value"):
    """Assert ``a`` and ``b`` are equal, field by field, array by array."""
    if dataclasses.is_dataclass(a):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, Corpus):
        assert a.fingerprint == b.fingerprint, where
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), where
    elif sp.issparse(a):
        assert (a != b).nnz == 0, where
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), where
        for number, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{where}[{number}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b), where
    else:
        assert a == b, where


def evaluate(session, spec, name, encoder_spec, seed=0):
    """Evaluate as the window does: the run with the command that makes it again."""
    run = run_job(
        session.state(spec).evaluation(name, [encoder_spec], [make_encoder(encoder_spec)], seed)
    )
    session.add_evaluation(spec, run)
    return run.result


def test_selection_emits_plain_events_and_keeps_the_focus():
    session = Session()
    seen = []
    session.selection.changed.connect(
        lambda selection: seen.append(
            (selection.indices.tolist(), selection.focus, selection.source)
        )
    )
    session.selection.select([7, 3, 3], source="rectangle")
    session.selection.select([4, 5], focus=9, source="chart")
    session.selection.clear()
    assert seen == [([3, 7], 7, "rectangle"), ([4, 5, 9], 9, "chart"), ([], -1, "")]


def test_results_go_to_the_corpus_they_were_asked_for(shared_data, tmp_path):
    session = Session()
    events, shown = [], []
    session.ran.connect(lambda state: events.append((state.spec, "run")))
    session.on_current(session.ran, lambda state: shown.append(state.spec))
    msrp = load_corpus("msrp-grouped")
    sick_spec = str(shared_data / "sick" / "SICK_trial.txt")
    session.open("msrp-grouped", msrp, AnnotationSession.open(msrp, tmp_path / "a.jsonl"))
    session.selection.select([1, 2], source="lasso")
    session.open(sick_spec, load_corpus(sick_spec), None)
    assert session.current.spec == sick_spec and session.selection.focus == -1

    exploration = run_job(explore(msrp, make_encoder("bow")))
    session.add_run("msrp-grouped", "bow", exploration)  # a queued run, finished late
    assert session.current.spec == sick_spec and not session.current.runs
    assert session.state("msrp-grouped").exploration is exploration
    assert events == [("msrp-grouped", "run")]
    assert shown == []  # not the corpus shown: drawn when switched to

    # Views hear of the switch with the new corpus's selection already in place (they
    # read its sentence numbers against the new corpus), then of the selection.
    heard = []
    switched = session.current_changed.connect(
        lambda state: heard.append((state.spec, session.selection.indices.tolist()))
    )
    selected = session.selection.changed.connect(
        lambda selection: heard.append(("selection", selection.indices.tolist()))
    )
    session.switch("msrp-grouped")  # its selection as left
    assert heard == [("msrp-grouped", [1, 2]), ("selection", [1, 2])]
    session.current_changed.disconnect(switched)
    session.selection.changed.disconnect(selected)
    session.close(sick_spec)
    session.add_run(sick_spec, "bow", exploration)  # closed: dropped
    assert list(session.states) == ["msrp-grouped"]
    session.add_run("msrp-grouped", "bow", exploration)
    assert shown == ["msrp-grouped"]
    session.close_all()


@pytest.fixture(scope="module")
def saved_session(shared_data, tmp_path_factory):
    """Two corpora, three encoders (one laid out with UMAP), two evaluations with
    charts and one without, a review list and an edit."""
    folder = tmp_path_factory.mktemp("session")
    session = Session()
    msrp = load_corpus("msrp-grouped")
    annotations = AnnotationSession.open(msrp, folder / "msrp.edits.jsonl")
    session.open("msrp-grouped", msrp, annotations)
    annotations.move(5, msrp.groups.names[7], reason="belongs with 7")
    session.corpus_edited("msrp-grouped")
    corpus = session.current.corpus
    bow = run_job(explore(corpus, make_encoder("bow")))
    session.add_run("msrp-grouped", "bow", run_job(reproject(bow, "umap", seed=3, n_neighbors=10)))
    session.add_run("msrp-grouped", "tfidf", run_job(explore(corpus, make_encoder("tfidf"))))
    session.add_evaluation(
        "msrp-grouped",
        run_job(
            session.current.evaluation(
                "agreement", ["bow", "tfidf"], [make_encoder("bow"), make_encoder("tfidf")], 0
            )
        ),
    )
    evaluate(session, "msrp-grouped", "classification", "tfidf")
    session.set_explanation(
        "msrp-grouped", run_job(explain_pair(corpus.texts[0], corpus.texts[1], bow.encoder))
    )
    session.set_review_lists(
        "msrp-grouped", run_job(iter_find_suspicious(corpus, [make_encoder("bow")]))
    )
    session.current.encoder = "bow"
    session.current.view = {"colour": "group", "search": "Nasdaq"}

    sick_spec = str(shared_data / "sick" / "SICK_trial.txt")
    sick = load_corpus(sick_spec)
    session.open(sick_spec, sick, AnnotationSession.open(sick, folder / "sick.edits.jsonl"))
    session.add_run(sick_spec, "random-bow", run_job(explore(sick, make_encoder("random-bow"))))
    evaluate(session, sick_spec, "relatedness", "random-bow")
    evaluate(session, sick_spec, "histograms", "bow", seed=2)
    session.selection.select([10, 11], focus=11, source="chart")
    path = save_workspace(
        workspace_of(session, {"window": "kept"}), folder / "study", remember=False
    )
    yield session, path
    session.close_all()


def test_a_workspace_restores_everything_the_session_holds(saved_session):
    session, path = saved_session
    assert path.name == "study.sentspace"  # a bare name gets the extension
    workspace = load_workspace(path)
    assert [entry.spec for entry in workspace.corpora] == [session.current.spec, "msrp-grouped"]
    assert [entry.spec for entry in workspace.encoders] == ["random-bow", "bow", "tfidf"]
    assert workspace.view == {"window": "kept"}
    restored = run_job(restore_session(workspace, path))
    try:
        assert list(restored.states) == [session.current.spec, "msrp-grouped"]
        assert restored.current.spec == session.current.spec
        assert (
            restored.selection.indices.tolist(),
            restored.selection.focus,
            restored.selection.source,
        ) == ([10, 11], 11, "chart")
        for spec, before in session.states.items():
            after = restored.states[spec]
            assert after.corpus.fingerprint == before.corpus.fingerprint
            assert len(after.annotations.edits) == len(before.annotations.edits)
            assert (after.shown, after.encoder, after.view) == (
                before.shown,
                before.encoder,
                before.view,
            )
            assert list(after.runs) == list(before.runs)
            for key, run in before.runs.items():
                mine, theirs = run.exploration, after.runs[key].exploration
                for name in ("projection", "faithfulness", "classification", "notes", "embeddings"):
                    same(getattr(mine, name), getattr(theirs, name), f"{spec} {key} {name}")
                assert theirs.encoder.fingerprint() == mine.encoder.fingerprint()
            assert [(r.name, r.encoder, r.seed, r.command) for r in after.evaluations] == [
                (r.name, r.encoder, r.seed, r.command) for r in before.evaluations
            ]
            for mine, theirs in zip(before.evaluations, after.evaluations):
                same(mine.result, theirs.result, f"{spec} {mine.name}")
            same(before.review_lists, after.review_lists, f"{spec} review lists")
            same(before.explanation, after.explanation, f"{spec} explanation")
        msrp = restored.states["msrp-grouped"]
        assert msrp.runs["bow"].exploration.projection.method == "umap"
        assert (
            msrp.review_lists
            and msrp.annotations.corpus.groups.names[
                msrp.corpus.groups.first_group(len(msrp.corpus))[5]
            ]
            == msrp.corpus.groups.names[7]
        )
    finally:
        restored.close_all()


def test_state_json_builds_only_known_result_classes():
    with pytest.raises(WorkspaceError, match="may not build"):
        decode_state({"__dataclass__": "subprocess.Popen", "fields": {}})
    with pytest.raises(TypeError):
        encode_state(object())
    values = {
        "a": (1, 2.5, np.arange(3, dtype=np.int32)),
        "b": np.array(["x", "yz"]),
        3: np.array([[0.5, np.nan]], dtype=np.float32),
    }
    same(values, decode_state(encode_state(values)))


def test_the_classification_drawn_is_the_record_of_the_version_shown(tmp_path):
    session = Session()
    msrp = load_corpus("msrp-grouped")
    annotations = AnnotationSession.open(msrp, tmp_path / "msrp.edits.jsonl")
    state = session.open("msrp-grouped", msrp, annotations)
    exploration = run_job(explore(msrp, make_encoder("bow")))
    session.add_run("msrp-grouped", "bow", exploration)
    first = state.classification
    assert [run.result for run in state.evaluations] == [exploration.classification]
    assert first.command == eval_command("classification", "msrp-grouped", ["bow"], 0)
    # A new layout of the same run lists nothing more.
    session.add_run("msrp-grouped", "bow", run_job(reproject(exploration, "pca", seed=1)))
    assert state.evaluations == [first]
    assert ring_caption(first.result, state.corpus) == (
        "Red ring: misclassified by bow on msrp-grouped as loaded."
    )

    annotations.move(5, msrp.groups.names[7], reason="test")
    session.corpus_edited("msrp-grouped")
    assert state.classification is first  # stale, and says so
    assert ring_caption(first.result, state.corpus) == (
        "Grey ring: misclassified by bow on msrp-grouped, the corpus before 1 edit; "
        "stale, run again to update."
    )
    session.add_run("msrp-grouped", "bow", run_job(explore(state.corpus, make_encoder("bow"))))
    edited = state.classification
    assert edited is not first and len(state.evaluations) == 2
    assert ring_caption(edited.result, state.corpus).endswith("as edited (1 edit).")

    annotations.undo()
    session.corpus_edited("msrp-grouped")
    assert state.classification is first  # the version undone to
    session.close_all()
