"""A workspace holds every kind of result a session can hold (issue 34, item 1): each
kind of :data:`~sentspace.app.workspace.codec.RESULT_TYPES` and every evaluation, built on
small real corpora with bag-of-words encoders, saved, reopened and compared equal."""

import dataclasses
import json

import pytest

from sentspace.app.analysis.evaluations import COMPARISONS, EVALUATIONS
from sentspace.app.analysis.evaluations.classification import run_classification
from sentspace.app.analysis.evaluations.paired import BarsTests, paired_tests_of_runs
from sentspace.app.analysis.explain import explain_pair
from sentspace.app.analysis.explore import explore
from sentspace.app.analysis.mteb_results import read_mteb_file
from sentspace.app.analysis.regions import find_regions
from sentspace.app.analysis.suspicious import iter_find_suspicious
from sentspace.app.base.commands import eval_command
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.state.session import CorpusState, EvaluationRun, Session, compare_with_spaces
from sentspace.app.workspace.codec import RESULT_TYPES, bars_tests_entry, bars_tests_of_entry
from sentspace.app.workspace.format import load_workspace, save_workspace
from sentspace.app.workspace.model import WorkspaceError
from sentspace.app.workspace.restore import restore_session
from sentspace.app.workspace.snapshot import workspace_of
from sentspace.models import make_encoder
from tests.test_mteb_results import PUBLISHED, mteb_layout
from tests.test_session import same
from tests.workspace_files import manifest_text

#: Fields of a corpus's state that hold no result: what it is, how it is shown, and
#: what is derived from the results (the Costra result is its costra evaluation's).
NOT_RESULTS = {
    "spec",
    "original",
    "annotations",
    "shown",
    "encoder",
    "compared",
    "precomputed",
    "view",
    "selection",
    "filter",
    "status",
    "costra_result",
}


def corpus_of(name, shared_data):
    """A small real corpus each evaluation applies to."""
    sick = str(shared_data / "sick" / "SICK_trial.txt")
    return {
        "classification": "msrp-grouped",
        "ranking": "msrp-grouped",
        "agreement": "msrp-grouped",
        "relatedness": sick,
        "transfer": sick,
        "histograms": sick,
        "detection": str(shared_data / "msrp"),
        "learning-curve": str(shared_data / "msrp"),
        "latent": str(shared_data / "latent-relatedness" / "soup.tsv"),
        "pyramid": str(shared_data / "pyramid-sample" / "T0001.pyr"),
        "costra": "costra",
        "costra-offsets": "costra",
        "bitext": "multi30k-parallel",
    }[name]


#: Fewer resamples, shuffles and training sizes than the defaults: the same kinds of
#: result, in seconds.
QUICK = {
    "learning-curve": {"fractions": (0.25, 1.0), "n_resamples": 100},
    "transfer": {"n_resamples": 100, "n_folds": 3},
    "costra-offsets": {"n_shuffles": 5, "n_resamples": 100},
    "detection": {"n_resamples": 100},
    "bitext": {"n_resamples": 100},
    "ranking": {"n_resamples": 100},
}


@pytest.fixture(scope="module")
def every_result(shared_data, tmp_path_factory):
    """A session holding each kind of result, and the workspace it saved."""
    folder = tmp_path_factory.mktemp("every-result")
    session = Session()
    for name in (*EVALUATIONS, *COMPARISONS):
        spec = corpus_of(name, shared_data)
        if spec not in session.states:
            session.open(spec, load_corpus(spec), None)
        corpus = session.state(spec).corpus
        if name in COMPARISONS:
            encoders = ["bow", "tfidf"]
            result = run_job(COMPARISONS[name][0](corpus, [make_encoder(e) for e in encoders]))
        else:
            encoders = ["bow"]
            result = run_job(
                EVALUATIONS[name][0](corpus, make_encoder("bow"), seed=0, **QUICK.get(name, {}))
            )
        session.add_evaluation(
            spec,
            EvaluationRun(
                name, ",".join(encoders), 0, result, eval_command(name, spec, encoders, 0)
            ),
        )

    spec = "msrp-grouped"
    corpus = session.state(spec).corpus
    run = run_job(explore(corpus, make_encoder("bow")))
    session.add_run(spec, "bow", run)
    session.set_regions(
        spec, run, run_job(find_regions(corpus, run.projection.coordinates, encoder=run.encoder))
    )
    session.set_comparison(
        spec,
        *run_job(
            compare_with_spaces(
                corpus, {"bow": make_encoder("bow"), "tfidf": make_encoder("tfidf")}
            )
        ),
    )
    session.set_explanation(
        spec, run_job(explain_pair(corpus.texts[0], corpus.texts[1], run.encoder, corpus=corpus))
    )
    session.set_review_lists(spec, run_job(iter_find_suspicious(corpus, [make_encoder("bow")])))
    sick = corpus_of("relatedness", shared_data)
    session.set_review_lists(
        sick, run_job(iter_find_suspicious(session.state(sick).corpus, [make_encoder("bow")]))
    )
    session.add_imported(
        sick, [read_mteb_file(mteb_layout(folder, "SICK-R", dict(PUBLISHED, task_name="SICK-R")))]
    )
    # A second classification (after the run's, which replaced the first), and the
    # paired test of the two bars across encoders.
    session.add_evaluation(
        spec,
        EvaluationRun(
            "classification",
            "tfidf",
            0,
            run_job(run_classification(corpus, make_encoder("tfidf"), seed=0)),
            eval_command("classification", spec, ["tfidf"], 0),
        ),
    )
    bars = tuple(
        (record.result, record.command)
        for record in session.state(spec).evaluations
        if record.name == "classification"
    )
    tests = run_job(paired_tests_of_runs("classification", bars))
    session.state(spec).paired_tests.append(BarsTests("classification", bars, tuple(tests)))
    session.switch(spec)
    path = save_workspace(workspace_of(session), folder / "every", remember=False)
    yield session, path
    session.close_all()


def test_the_registry_names_every_kind_of_result_a_corpus_keeps():
    kept = {f.name for f in dataclasses.fields(CorpusState)} - NOT_RESULTS
    assert set(RESULT_TYPES) == kept


def test_every_kind_of_result_is_saved_and_reopened_equal(every_result):
    session, path = every_result
    states = session.states.values()
    for kind in RESULT_TYPES:  # the walk covers each kind
        assert any(getattr(state, kind) for state in states), kind
    assert sorted(run.name for state in states for run in state.evaluations) == sorted(
        [*EVALUATIONS, *COMPARISONS, "classification"]
    )
    costra = session.state("costra")
    assert costra.costra_result is not None

    workspace = load_workspace(path)
    assert workspace.corpora[0].spec == "msrp-grouped"
    assert "costra" in [entry.spec for entry in workspace.corpora]  # by name
    restored = run_job(restore_session(workspace, path))
    try:
        assert list(restored.states) == list(session.states)
        for spec, before in session.states.items():
            after = restored.states[spec]
            assert [(r.name, r.encoder, r.seed, r.label, r.command) for r in after.evaluations] == [
                (r.name, r.encoder, r.seed, r.label, r.command) for r in before.evaluations
            ]
            for mine, theirs in zip(before.evaluations, after.evaluations):
                same(mine.result, theirs.result, f"{spec} {mine.name}")
            for kind in (
                "comparison",
                "review_lists",
                "regions",
                "explanation",
                "imported",
                "paired_tests",
            ):
                same(getattr(before, kind), getattr(after, kind), f"{spec} {kind}")
            assert list(after.runs) == list(before.runs)
            for key, run in before.runs.items():
                for part in ("projection", "faithfulness", "classification", "notes", "embeddings"):
                    same(
                        getattr(run.exploration, part),
                        getattr(after.runs[key].exploration, part),
                        f"{spec} {part}",
                    )
            # The Compare view's spaces come back for the neighbours view and Inspector.
            assert list(after.compared) == list(before.compared)
            for key, (name, _, embeddings) in before.compared.items():
                assert after.compared[key][0] == name
                same(embeddings, after.compared[key][2], f"{spec} compared {key}")
        same(costra.costra_result, restored.states["costra"].costra_result, "costra")
    finally:
        restored.close_all()


def test_a_result_the_workspace_cannot_hold_is_named(tmp_path):
    @dataclasses.dataclass(frozen=True)
    class Unregistered:
        value: int

    session = Session()
    corpus = load_corpus("msrp-grouped")
    session.open("msrp-grouped", corpus, None)
    session.set_explanation("msrp-grouped", Unregistered(1))
    with pytest.raises(TypeError, match="a workspace cannot hold a .*Unregistered"):
        workspace_of(session)


def test_the_file_names_each_class_it_builds(every_result):
    _, path = every_result
    text = manifest_text(path)
    assert '"sentspace.app.corpora.costra.CostraComparisons"' in text
    assert json.loads(text)["schema"] == 4


def test_paired_tests_are_kept_only_while_they_describe_their_bars(every_result):
    session, path = every_result
    state = session.state("msrp-grouped")
    [bars] = state.paired_tests
    listed = [(run.label, run.result, run.command) for run in state.evaluations]
    entry = bars_tests_entry(bars, [result for _, result, _ in listed])
    assert entry["evaluation"] == "classification" and len(entry["outcomes"]) == 1
    same(bars_tests_of_entry(entry, listed, "tests", path), bars, "paired tests")
    # A bar since replaced by a new run of the same request: not saved.
    replaced = bars.runs[0][0]
    assert bars_tests_entry(bars, [r for _, r, _ in listed if r is not replaced]) is None
    # Positions that now name other results, or none: made again, not shown.
    ranking = next(k for k, (label, _, _) in enumerate(listed) if label == "ranking")
    for stale in ([entry["bars"][0], ranking], [0, len(listed)]):
        assert bars_tests_of_entry({**entry, "bars": stale}, listed, "tests", path) is None
    with pytest.raises(WorkspaceError, match=r"tests\.outcomes\[0\]: lacks 'a'"):
        bars_tests_of_entry({**entry, "outcomes": [{"b": 1, "test": None}]}, listed, "tests", path)
