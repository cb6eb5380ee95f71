"""A workspace's whole state tree is checked when it is opened: every malformed value
(a list that is a string, an array whose shape, dtype or bytes disagree, a result field
missing, nesting no workspace has) is a WorkspaceError naming the file and the key path,
in restore_session, `sentspace run` and `sentspace annotations batches` (exit 2)."""

import json
import shutil

import numpy as np
import pytest

from sentspace.app.analysis.evaluations.paired import BarsTests, paired_tests_of_runs
from sentspace.app.analysis.explore import explore
from sentspace.app.analysis.suspicious import iter_find_suspicious
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus
from sentspace.app.state.session import EvaluationRun, Session
from sentspace.app.workspace.codec import decode_state
from sentspace.app.workspace.format import load_workspace, save_workspace
from sentspace.app.workspace.model import WorkspaceError
from sentspace.app.workspace.restore import restore_session
from sentspace.app.workspace.snapshot import workspace_of
from sentspace.models import make_encoder
from tests.workspace_files import manifest, older, rewrite


def saved_workspace(folder):
    """A real workspace: grouped MSRP with an edit, a bag-of-words run laid out with
    PCA, its suspicious-annotation lists, classification results of bow and tfidf with
    their paired test, and a selection."""
    from sentspace.app.analysis.evaluations.classification import run_classification

    session = Session()
    corpus = load_corpus("msrp-grouped")
    annotations = AnnotationSession.open(corpus, folder / "msrp.edits.jsonl", author="ann")
    session.open("msrp-grouped", corpus, annotations)
    annotations.move(5, corpus.groups.names[7], reason="belongs with 7")
    session.corpus_edited("msrp-grouped")
    edited = session.current.corpus
    session.add_run("msrp-grouped", "bow", run_job(explore(edited, make_encoder("bow"))))
    session.set_review_lists(
        "msrp-grouped", run_job(iter_find_suspicious(edited, [make_encoder("bow")]))
    )
    result = run_job(run_classification(edited, make_encoder("bow"), seed=0))
    session.add_evaluation("msrp-grouped", EvaluationRun("classification", "bow", 0, result))
    # tfidf's beside it, and the paired test of their bars across encoders.
    state = session.current
    state.evaluations[-1].command = state.eval_command("classification", ["bow"], 0)
    session.add_evaluation(
        "msrp-grouped",
        run_job(state.evaluation("classification", ["tfidf"], [make_encoder("tfidf")], 0)),
    )
    bars = tuple((run.result, run.command) for run in state.evaluations)
    tests = run_job(paired_tests_of_runs("classification", bars))
    state.paired_tests.append(BarsTests("classification", bars, tuple(tests)))
    session.selection.select([3, 4], focus=4, source="chart")
    path = save_workspace(workspace_of(session), folder / "study", remember=False)
    session.close_all()
    return path


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("saved")
    path = saved_workspace(folder)
    return path, manifest(path)


def damaged(saved, tmp_path, change, schema=4):
    """A copy of the saved workspace with ``change`` made to its JSON (as a workspace
    of ``schema`` wrote it)."""
    path = tmp_path / "damaged.sentspace"
    shutil.copyfile(saved[0], path)
    data = json.loads(json.dumps(saved[1])) if schema == 4 else older(path, schema)
    change(data)
    if schema == 4:
        rewrite(path, data)
    else:
        path.write_text(json.dumps(data))
    return path


def first_array(data):
    """The first array of the bag-of-words run's layout (its coordinates)."""
    return data["corpora"][0]["state"]["runs"][0]["exploration"]["projection"]["fields"][
        "coordinates"
    ]


def nested(depth):
    value = []
    for _ in range(depth):
        value = [value]
    return value


STATE = "corpora[0].state"
RUN = f"{STATE}.runs[0].exploration.projection"


@pytest.mark.parametrize(
    "change, where, problem",
    [
        (
            lambda d: d["corpora"][0]["state"].update(review_lists="misgrouped"),
            f"{STATE}.review_lists",
            "should be an object, found 'misgrouped'",
        ),
        (
            lambda d: d["corpora"][0]["state"].update(runs="bow"),
            f"{STATE}.runs",
            "should be a list, found 'bow'",
        ),
        (
            lambda d: d["corpora"][0]["state"]["runs"][0].update(encoder=9),
            f"{STATE}.runs[0].encoder",
            "9 is not an encoder the workspace lists",
        ),
        (
            lambda d: first_array(d).update(shape="859"),
            f"{RUN}.coordinates.shape",
            "should be a list, found '859'",
        ),
        (
            lambda d: first_array(d).update(shape=[10, 2]),
            f"{RUN}.coordinates.npy",
            "an array of shape [859, 2], not [10, 2]",
        ),
        (
            lambda d: first_array(d).update({"__array__": "<M8[s]"}),
            f"{RUN}.coordinates.npy",
            "an array of <f4, not <M8[s]",
        ),
        (
            lambda d: d["corpora"][0]["state"]["runs"][0]["exploration"]["projection"][
                "fields"
            ].pop("method"),
            RUN,
            "has fields",
        ),
        (
            lambda d: d["corpora"][0]["state"]["runs"][0]["exploration"]["projection"][
                "fields"
            ].update(method=["pca"]),
            f"{RUN}.method",
            "should be a string, found ['pca']",
        ),
        (
            lambda d: d["corpora"][0]["state"]["selection"].update(indices=[3, 100000]),
            f"{STATE}.selection",
            "a sentence outside the corpus's 859",
        ),
        (
            lambda d: d["corpora"][0]["state"].update(explanation={"deep": nested(100)}),
            f"{STATE}.explanation.deep",
            "nested more than 64 levels deep",
        ),
        (
            lambda d: d["evaluations"][0].update(
                state={"__dataclass__": "subprocess.Popen", "fields": {}}
            ),
            "evaluations[0].state",
            "may not build a subprocess.Popen",
        ),
    ],
)
def test_malformed_state_is_a_workspace_error_naming_the_key(
    saved, tmp_path, change, where, problem
):
    path = damaged(saved, tmp_path, change)
    with pytest.raises(WorkspaceError) as caught:
        workspace = load_workspace(path)
        run_job(restore_session(workspace, path))
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    assert where in message and problem in message


@pytest.mark.parametrize(
    "change, where, problem",
    [
        (
            lambda d: first_array(d).update(shape=[10, 2]),
            f"{RUN}.coordinates.bytes",
            "bytes for shape [10, 2]",
        ),
        (
            lambda d: first_array(d).update(bytes="not base64!"),
            f"{RUN}.coordinates.bytes",
            "not base64",
        ),
        (
            lambda d: first_array(d).update({"__array__": "<M8[s]"}),
            f"{RUN}.coordinates.__array__",
            "is not a numeric dtype",
        ),
    ],
)
def test_a_malformed_array_of_a_schema_3_workspace_names_the_key(
    saved, tmp_path, change, where, problem
):
    path = damaged(saved, tmp_path, change, schema=3)
    with pytest.raises(WorkspaceError) as caught:
        run_job(restore_session(load_workspace(path), path))
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and where in message and problem in message


def test_a_schema_3_workspace_reopens_as_it_was_saved(saved, tmp_path):
    path = damaged(saved, tmp_path, lambda data: None, schema=3)
    old, new = load_workspace(path), load_workspace(saved[0])
    assert "bytes" in first_array(json.loads(path.read_text()))  # base64, as schema 3 wrote
    assert old.encoders == new.encoders and old.view == new.view
    assert [entry.summary for entry in old.evaluations] == [e.summary for e in new.evaluations]
    layouts = [
        decode_state(workspace.corpora[0].state["runs"][0]["exploration"]).get("projection")
        for workspace in (old, new)
    ]
    assert np.array_equal(layouts[0].coordinates, layouts[1].coordinates)


def test_decode_state_names_the_key_of_a_bad_array():
    with pytest.raises(WorkspaceError, match=r"^state\.a\.shape: should be a list"):
        decode_state({"a": {"__array__": "<f4", "shape": "3", "bytes": ""}})
    with pytest.raises(WorkspaceError, match=r"state\.b\.items: 2 items for shape \[3\]"):
        decode_state({"b": {"__array__": "<U1", "shape": [3], "items": ["x", "y"]}})
    with pytest.raises(WorkspaceError, match=r"state\[1\]\.items\[0\]: \[1\] cannot be"):
        decode_state([1, {"__array__": "object", "shape": [1], "items": [[1]]}])
    with pytest.raises(WorkspaceError, match="nested more than 64"):
        decode_state(nested(5000))


def test_a_workspace_nested_past_pythons_limit_is_refused(tmp_path):
    path = tmp_path / "deep.sentspace"
    path.write_text(
        '{"format": "sentspace-workspace", "schema": 2, "view": '
        + "[" * 100000
        + "]" * 100000
        + "}"
    )
    with pytest.raises(WorkspaceError, match="nests deeper"):
        load_workspace(path)


def test_the_cli_exits_2_on_a_malformed_workspace(saved, tmp_path, capsys):
    lists = damaged(
        saved,
        tmp_path,
        lambda d: d["corpora"][0]["state"].update(
            review_lists={
                "misgrouped": {
                    "__dataclass__": "sentspace.app.analysis.suspicious.MisgroupedSentences",
                    "fields": {},
                }
            }
        ),
    )
    assert (
        main(
            [
                "annotations",
                "batches",
                str(lists),
                "--people",
                "2",
                "--out",
                str(tmp_path / "batches"),
            ]
        )
        == 2
    )
    error = capsys.readouterr().err
    assert error.startswith(f"sentspace: error: {lists}: {STATE}.review_lists.misgrouped")
    for change, problem in (
        (
            lambda d: d["evaluations"][0].update(options={"bogus": 1}),
            "evaluations[0].options: takes no 'bogus'",
        ),
        (
            lambda d: d["evaluations"][0].update(seed=2**80),
            "evaluations[0].seed: 1208925819614629174706176 is not a seed",
        ),
        (
            lambda d: d["encoders"][0]["params"].update(dimensions=3),
            "encoders[0].params: takes no 'dimensions'",
        ),
        (
            lambda d: d["encoders"][0]["params"].update(lowercase=None),
            "encoders[0].params.lowercase: should be true or false, found None",
        ),
    ):
        assert main(["run", str(damaged(saved, tmp_path, change))]) == 2
        assert problem in capsys.readouterr().err
