"""Every number shown can be made again from the shell: the command the session keeps
beside a result on an edited corpus (its journal and the last record its result saw),
run through the CLI in this process, prints exactly the session's numbers; so do the
Across encoders command, an exported map's and a reproduction's."""

import json
import shlex

import numpy as np
import pytest

from sentspace.app.analysis.evaluations import EVALUATIONS
from sentspace.app.analysis.evaluations.paired import paired_tests_of_runs
from sentspace.app.analysis.explore import explore
from sentspace.app.analysis.filters import passing
from sentspace.app.annotations.history import History
from sentspace.app.annotations.journal import merge_journals
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.commands import comparison_command
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.listing import first_groups
from sentspace.app.exporters.web_map import export_map
from sentspace.app.state.session import Session
from sentspace.app.workspace.snapshot import workspace_of
from sentspace.models import make_encoder
from tests.browser import map_manifest


def printed(command, capsys):
    """What the CLI prints as JSON for ``command`` (a shown command), run in-process."""
    words = shlex.split(command)
    assert words[0] == "sentspace"
    assert main([*words[1:], "--json", "-"]) == 0
    return json.loads(capsys.readouterr().out)["results"]


def timeless(data):
    """``data`` (a result as JSON) without the times its parts ended."""
    if isinstance(data, dict):
        return {key: timeless(value) for key, value in data.items() if key != "created"}
    if isinstance(data, list):
        return [timeless(value) for value in data]
    return data


def same_numbers(cli, result):
    """The CLI printed exactly ``result``: every number, every per-item outcome."""
    assert "created" in cli["provenance"]
    assert timeless(cli) == timeless(json.loads(json.dumps(result.to_dict(), default=float)))


def window_tests(evaluation, runs):
    """The paired tests the window's *Across encoders* makes of ``runs``' bars, as the
    CLI's JSON writes them."""
    [command] = run_job(paired_tests_of_runs(evaluation, [(r.result, r.command) for r in runs]))
    return json.loads(
        json.dumps(
            [
                {
                    # The test's A is the other encoder (differences read other - first).
                    "a": o.b.provenance.encoder_name,
                    "b": o.a.provenance.encoder_name,
                    **o.test.__dict__,
                    "verdict": o.test.verdict(),
                }
                for o in command.outcomes
            ]
        )
    )


def index_of(corpus, sentence_id):
    return list(corpus.ids).index(sentence_id)


def move_around(annotations, redone=True):
    """Real edits of a grouped corpus, three sentences of its largest group moved to
    another: one kept and marked reviewed, one undone, one undone then redone (or, not
    ``redone``, left undone)."""
    corpus = annotations.corpus
    groups = corpus.groups
    largest = max(range(groups.n_groups), key=lambda g: len(groups.members(g)))
    first, second, third = (int(s) for s in groups.members(largest)[:3])
    other = groups.names[(largest + 1) % groups.n_groups]
    annotations.move(first, other, reason="belongs there")
    annotations.mark_reviewed(f"sentence:{corpus.ids[first]}")
    annotations.move(second, other)
    annotations.undo()
    annotations.move(third, other)
    annotations.undo()
    if redone:
        annotations.redo()


def rescore(annotations):
    """Real edits of scored pairs: scores changed, one undone, a review mark."""
    pairs = annotations.corpus.pairs
    for pair in range(0, 40, 4):
        annotations.edit_pair(
            pair,
            score=float(6 - pairs.score[pair]) if pairs.score[pair] == pairs.score[pair] else 3.0,
        )
    annotations.undo()
    annotations.mark_reviewed("pair:1")


def relabel(annotations, split=None):
    """Real edits of labelled pairs: labels flipped (on ``split`` only), one undone and
    redone, a review mark."""
    pairs = annotations.corpus.pairs
    chosen = [k for k in range(len(pairs)) if split is None or pairs.split[k] == split]
    for pair in chosen[:30:3]:
        # Another label of the corpus; a corpus of one label (translations) unlinks.
        labels = sorted(set(pairs.label.tolist()) - {-1, int(pairs.label[pair])}) or [0]
        annotations.edit_pair(pair, label=labels[0])
    annotations.undo()
    annotations.redo()
    annotations.mark_reviewed(f"pair:{chosen[1]}")


def the_symptom(annotations):
    """Sentence L328 of msrp-grouped moved from group 107 to 228, as in the report."""
    sentence = index_of(annotations.original, "L328")
    assert annotations.group_names_of(sentence) == ["107"]
    annotations.move(sentence, "228")


#: For every evaluation: a real corpus it applies to, and real edits of it.
EDITED = {
    "classification": ("msrp-grouped", the_symptom),
    "relatedness": ("{data}/sick/SICK_trial.txt", rescore),
    "transfer": ("{data}/sick/SICK_trial.txt", relabel),
    "ranking": ("msrp-grouped", move_around),
    "detection": ("{data}/msrp/msr_paraphrase_test.txt", relabel),
    "learning-curve": ("{data}/msrp", lambda a: relabel(a, "train")),
    "histograms": ("{data}/sick/SICK_trial.txt", rescore),
    # Two groups of three: one sentence moved leaves two groups to probe.
    "latent": ("{data}/latent-relatedness/soup.tsv", lambda a: move_around(a, False)),
    "pyramid": ("{data}/pyramid-sample/T0001.pyr", move_around),
    "costra": ("costra", move_around),
    "costra-offsets": ("costra", move_around),
    "bitext": ("multi30k-parallel", relabel),
}


def edited_state(spec, edit, tmp_path):
    """A session holding the corpus ``spec`` edited by ``edit`` through its journal."""
    session = Session()
    original = load_corpus(spec)
    annotations = AnnotationSession.open(original, tmp_path / "edits.jsonl")
    state = session.open(spec, original, annotations)
    edit(annotations)
    session.corpus_edited(spec)
    assert state.corpus.fingerprint != original.fingerprint
    return session, state


def test_every_evaluation_is_covered():
    assert set(EDITED) == set(EVALUATIONS)


@pytest.mark.parametrize("name", list(EDITED))
def test_the_command_shown_on_an_edited_corpus_makes_its_numbers(
    name, shared_data, tmp_path, capsys
):
    spec, edit = EDITED[name]
    session, state = edited_state(spec.format(data=shared_data), edit, tmp_path)
    run = run_job(state.evaluation(name, ["bow"], [make_encoder("bow")], 0))
    session.add_evaluation(state.spec, run)
    shown = state.evaluations[-1].command
    assert f"--journal {tmp_path / 'edits.jsonl'} --until " in shown
    [cli] = printed(shown, capsys)
    same_numbers(cli, run.result)
    assert cli["provenance"]["corpus_fingerprint"] == state.corpus.fingerprint


def test_the_reported_move_is_made_again_and_later_edits_do_not_change_it(
    shared_data, tmp_path, capsys
):
    session, state = edited_state("msrp-grouped", the_symptom, tmp_path)
    run = run_job(state.evaluation("classification", ["bow"], [make_encoder("bow")], 0))
    assert dict(run.result.summary())["mean accuracy"].startswith("0.9930 [")
    assert dict(run.result.summary())["misclassified"] == "6 of 857"
    [before] = printed(  # the command the panel showed before: the unedited corpus
        "sentspace eval classification --corpus msrp-grouped --encoder bow --seed 0", capsys
    )
    assert round(before["mean_accuracy"], 4) == 0.9837
    # Later edits (and their undo) leave the command of the earlier result as it was.
    state.annotations.move(5, state.corpus.groups.names[7])
    state.annotations.move(6, state.corpus.groups.names[8])
    state.annotations.undo()
    session.corpus_edited("msrp-grouped")
    assert (
        state.eval_command(
            "classification", ["bow"], 0, fingerprint=run.result.provenance.corpus_fingerprint
        )
        == run.command
    )
    [again] = printed(run.command, capsys)
    same_numbers(again, run.result)
    # The original, asked for beside the corrected one, names no journal.
    original = run_job(
        state.evaluation("classification", ["bow"], [make_encoder("bow")], 0, original=True)
    )
    assert original.command == (
        "sentspace eval classification --corpus msrp-grouped --encoder bow --seed 0"
    )


def test_agreement_and_the_across_encoders_bars_on_an_edited_corpus(tmp_path, capsys):
    session, state = edited_state("msrp-grouped", move_around, tmp_path)
    encoders = {spec: make_encoder(spec) for spec in ("bow", "tfidf")}
    agreement = run_job(state.evaluation("agreement", list(encoders), list(encoders.values()), 2))
    session.add_evaluation(state.spec, agreement)
    assert agreement.encoder == "bow,tfidf" and agreement.command.count("--encoder") == 2
    [cli] = printed(agreement.command, capsys)
    same_numbers(cli, agreement.result)

    runs = [
        run_job(state.evaluation("ranking", [spec], [encoder], 1))
        for spec, encoder in encoders.items()
    ]
    command = comparison_command([(run.result, run.command) for run in runs])
    assert "\n" not in command and " --encoder bow --encoder tfidf --seed 1" in command
    for cli, run in zip(printed(command, capsys), runs, strict=True):
        same_numbers(cli, run.result)
    # Bars of another seed cannot be one run: a command each.
    other = run_job(state.evaluation("ranking", ["bow"], [encoders["bow"]], 2))
    lines = comparison_command([(run.result, run.command) for run in [*runs, other]]).splitlines()
    assert lines == [command, other.command]


def test_classification_bars_are_one_run_with_its_mcnemar_test(tmp_path, capsys):
    """bow is classified on no fold's refit and tfidf refitted on each: still one
    command, whose numbers are the bars' and which tests them paired (McNemar)."""
    _, state = edited_state("msrp-grouped", the_symptom, tmp_path)
    runs = [
        run_job(state.evaluation("classification", [name], [make_encoder(name)], 0))
        for name in ("bow", "tfidf")
    ]
    command = comparison_command([(r.result, r.command) for r in runs])
    assert "\n" not in command and command.endswith("--encoder bow --encoder tfidf --seed 0")
    assert main([*shlex.split(command)[1:], "--json", "-"]) == 0
    payload = json.loads(capsys.readouterr().out)
    for cli, run in zip(payload["results"], runs, strict=True):
        same_numbers(cli, run.result)
        assert cli["mean_accuracy_ci"] == list(run.result.ci)
    [test] = payload["paired_tests"]
    assert test["method"].startswith("McNemar") and test["n_items"] == 857
    assert window_tests("classification", runs) == payload["paired_tests"]
    assert test["verdict"] == "no difference at this size"


def test_relatedness_bars_with_their_options_are_one_run(shared_data, tmp_path, capsys):
    _, state = edited_state(str(shared_data / "sick" / "SICK_trial.txt"), rescore, tmp_path)
    runs = [
        run_job(
            state.evaluation(
                "relatedness",
                [name],
                [make_encoder(name)],
                0,
                {"split": "auto", "similarity": "cosine"},
            )
        )
        for name in ("bow", "tfidf")
    ]
    command = comparison_command([(r.result, r.command) for r in runs])
    assert command.endswith(
        "--encoder bow --encoder tfidf --seed 0 --split auto --similarity cosine"
    )
    assert main([*shlex.split(command)[1:], "--json", "-"]) == 0
    payload = json.loads(capsys.readouterr().out)
    for cli, run in zip(payload["results"], runs, strict=True):
        same_numbers(cli, run.result)
    # The permutation test and its bootstrap interval, to the last digit.
    [test] = payload["paired_tests"]
    assert test["method"] == "paired permutation (10000 swaps)" and test["n_items"] == 500
    assert window_tests("relatedness", runs) == payload["paired_tests"]


def test_several_journals_are_merged_as_annotations_merge_does(tmp_path, capsys):
    original = load_corpus("msrp-grouped")
    mine = AnnotationSession.open(original, tmp_path / "mine.jsonl", author="ana")
    theirs = AnnotationSession.open(original, tmp_path / "theirs.jsonl", author="ben")
    groups = original.groups
    mine.move(int(groups.members(3)[0]), groups.names[9])
    theirs.move(int(groups.members(3)[0]), groups.names[10])  # a conflict
    theirs.move(int(groups.members(4)[1]), groups.names[11])
    mine.undo()
    journals = [str(tmp_path / "mine.jsonl"), str(tmp_path / "theirs.jsonl")]
    history = History(original)
    history.feed(merge_journals(journals, original.fingerprint)[1])
    expected = run_job(EVALUATIONS["latent"][0](history.corpus, make_encoder("bow")))
    command = [
        "sentspace",
        "eval",
        "latent",
        "--corpus",
        "msrp-grouped",
        "--journal",
        journals[0],
        "--journal",
        journals[1],
        "--encoder",
        "bow",
    ]
    [cli] = printed(shlex.join(command), capsys)
    same_numbers(cli, expected)
    assert main(["annotations", "merge", *journals, "--out", str(tmp_path / "team.jsonl")]) == 0
    capsys.readouterr()
    [merged] = printed(
        shlex.join([*command[:5], "--journal", str(tmp_path / "team.jsonl"), "--encoder", "bow"]),
        capsys,
    )
    same_numbers(merged, expected)


def test_a_journal_of_another_corpus_or_record_exits_2(shared_data, tmp_path, capsys):
    original = load_corpus("msrp-grouped")
    journal = tmp_path / "msrp.jsonl"
    AnnotationSession.open(original, journal).move(0, original.groups.names[3])
    sick = str(shared_data / "sick" / "SICK_trial.txt")
    for argv in (
        ["eval", "relatedness", "--corpus", sick, "--journal", str(journal)],
        [
            "export-map",
            "--corpus",
            sick,
            "--journal",
            str(journal),
            "--out",
            str(tmp_path / "map.html"),
        ],
        ["annotations", "agreement", str(journal), "--corpus", sick],
        [
            "annotations",
            "merge",
            str(journal),
            "--corpus",
            sick,
            "--out",
            str(tmp_path / "merged.jsonl"),
        ],
        [
            "annotations",
            "batches",
            sick,
            "--journal",
            str(journal),
            "--people",
            "2",
            "--out",
            str(tmp_path / "batches"),
        ],
    ):
        assert main(argv) == 2, argv
        error = capsys.readouterr().err.strip()
        assert error.startswith(
            f"sentspace: error: {journal}, line 1: the journal is for corpus {original.fingerprint}"
        ), error
        assert f"({sick}): give --corpus the corpus the journal edits" in error
        assert "\n" not in error
    assert not (tmp_path / "merged.jsonl").exists() and not (tmp_path / "batches").exists()
    assert main(["eval", "classification", "--journal", str(journal), "--until", "nope"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"sentspace: error: --until nope: no such record in {journal}"
    )
    assert main(["eval", "classification", "--until", "nope"]) == 2
    assert "give --journal" in capsys.readouterr().err


def test_the_command_of_an_exported_map_writes_the_same_map(tmp_path, capsys):
    session, state = edited_state("msrp-grouped", move_around, tmp_path)
    exploration = run_job(explore(state.corpus, make_encoder("tfidf"), method="pca", seed=4))
    session.add_run(state.spec, "tfidf", exploration)
    ours = tmp_path / "window map.html"
    command = state.map_command(exploration, "tfidf", ours)
    # What File > Export map as web page… writes (app/ui/window/files.py).
    export_map(exploration, ours, groups=first_groups(state.corpus), command=command, seed=4)
    words = shlex.split(command)
    assert words[:2] == ["sentspace", "export-map"] and "--journal" in words
    theirs = tmp_path / "shell.html"
    words[words.index("--out") + 1] = str(theirs)
    assert main(words[1:]) == 0
    assert "as edited by" in capsys.readouterr().out
    window, shell = map_manifest(ours), map_manifest(theirs)
    assert set(window) == set(shell)
    for key in set(window) - {"provenance"}:
        assert window[key] == shell[key], key
    assert dict(window["provenance"]) == {**dict(shell["provenance"]), "Command": command}


def test_a_reproduction_shows_the_commands_that_make_it_again(tmp_path, capsys):
    from sentspace.app.reproduce import white2015
    from sentspace.app.reproduce.report import header
    from sentspace.app.reproduce.runner import run_reproduction

    report = run_job(run_reproduction(white2015.PAPER, seed=1))
    assert header(report)[-1] == report.command == "sentspace reproduce white2015 --quick --seed 1"
    rows = [row for row in report.rows if row.value is not None]
    assert rows
    for row in rows:
        [cli] = printed(row.command, capsys)
        same_numbers(cli, report.result_of(row))
    words = shlex.split(report.command)
    assert main([*words[1:], "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    again = json.loads((tmp_path / "white2015.json").read_text())
    values = [r["value"] for table in again["tables"] for r in table["rows"]]
    assert values == [row.value for row in report.rows]


def test_a_restored_workspace_shows_commands_of_the_versions_its_results_describe(tmp_path, capsys):
    from sentspace.app.workspace.format import load_workspace, save_workspace
    from sentspace.app.workspace.restore import restore_session

    session, state = edited_state("msrp-grouped", move_around, tmp_path)
    bow = make_encoder("bow")
    earlier = run_job(state.evaluation("classification", ["bow"], [bow], 0))
    session.add_evaluation(state.spec, earlier)
    state.annotations.move(7, state.corpus.groups.names[20])  # a later edit
    session.corpus_edited(state.spec)
    later = run_job(state.evaluation("classification", ["bow"], [bow], 0))
    session.add_evaluation(state.spec, later)
    path = save_workspace(workspace_of(session), tmp_path / "study", remember=False)
    restored = run_job(restore_session(load_workspace(path), path)).states[state.spec]
    assert [run.command for run in restored.evaluations][1] == later.command
    for run, original in zip(restored.evaluations, (earlier, later), strict=True):
        assert "--until" in run.command
        [cli] = printed(run.command, capsys)
        same_numbers(cli, original.result)


def test_a_map_laid_out_with_other_parameters_names_them(tmp_path, capsys):
    import dataclasses

    from sentspace.app.analysis.projection import Projection
    from sentspace.app.cli import build_parser

    session, state = edited_state("msrp-grouped", move_around, tmp_path)
    exploration = run_job(explore(state.corpus, make_encoder("bow")))
    umap = Projection(
        exploration.projection.coordinates,
        "umap",
        {
            "seed": 3,
            "n_neighbors": 10,
            "min_dist": 0.1,
            "metric": "euclidean",
            "pca_dims": None,
            "sample": 50_000,
        },
    )
    command = state.map_command(
        dataclasses.replace(exploration, projection=umap), "bow", tmp_path / "map.html"
    )
    assert (
        "--method umap --seed 3 --n-neighbors 10 --metric euclidean --pca-dims none --out"
    ) in command
    args = build_parser().parse_args(shlex.split(command)[1:])
    assert (args.n_neighbors, args.metric, args.pca_dims) == (10, "euclidean", None)
    assert not hasattr(args, "min_dist") and not hasattr(args, "perplexity")
    # A parameter the command line cannot give: no command rather than a wrong one.
    sampled = dataclasses.replace(umap, parameters={**umap.parameters, "sample": 100})
    assert (
        state.map_command(
            dataclasses.replace(exploration, projection=sampled), "bow", tmp_path / "map.html"
        )
        == ""
    )
    assert (
        main(
            [
                "export-map",
                "--method",
                "pca",
                "--perplexity",
                "20",
                "--out",
                str(tmp_path / "pca.html"),
            ]
        )
        == 2
    )
    assert capsys.readouterr().err == "sentspace: error: --method pca takes no --perplexity\n"
    assert not (tmp_path / "pca.html").exists()


def test_a_runs_classification_on_an_edited_corpus_shows_its_journal(tmp_path, capsys):
    session, state = edited_state("msrp-grouped", the_symptom, tmp_path)
    session.add_run(state.spec, "bow", run_job(explore(state.corpus, make_encoder("bow"))))
    record = state.classification
    assert "--journal" in record.command
    [cli] = printed(record.command, capsys)
    same_numbers(cli, record.result)


def test_a_reproduce_command_carries_the_pyramid_data_and_readings():
    from sentspace.app.base.commands import reproduce_command
    from sentspace.app.cli import build_parser

    command = reproduce_command(
        "baumel",
        "full",
        2,
        data="/duc pyramids",
        options=(("items", "labels"), ("negatives", "within-pyramid")),
    )
    assert command == (
        "sentspace reproduce baumel --full --seed 2 --data '/duc pyramids' "
        "--items labels --negatives within-pyramid"
    )
    args = build_parser().parse_args(shlex.split(command)[1:])
    assert (args.full, args.seed, args.data, args.reproduce_items, args.reproduce_negatives) == (
        True,
        2,
        "/duc pyramids",
        "labels",
        "within-pyramid",
    )


def filtered_sick_run(shared_data, tmp_path, evaluation, where):
    """``evaluation`` by bow of the rescored SICK trial pairs passing ``where``, added to
    the session; (spec, session, state, run). Its command carries ``--where``, quoted."""
    spec = str(shared_data / "sick" / "SICK_trial.txt")
    session, state = edited_state(spec, rescore, tmp_path)
    run = run_job(state.evaluation(evaluation, ["bow"], [make_encoder("bow")], 0, {"where": where}))
    session.add_evaluation(state.spec, run)
    assert f" --where {shlex.quote(where)}" in run.command
    return spec, session, state, run


def test_a_filtered_result_is_made_again_by_its_command_and_its_workspace(
    shared_data, tmp_path, capsys
):
    """Relatedness of the sentences passing a filter, on an edited corpus: the command
    shown carries ``--where``, quoted, and prints the same numbers; a workspace keeps it;
    a bad expression exits 2 with the filter's own message."""
    from sentspace.app.state.session import describe_result
    from sentspace.app.workspace.format import load_workspace, save_workspace
    from sentspace.app.workspace.restore import restore_session

    where = 'words > 8 and label != "CONTRADICTION"'
    spec, session, state, run = filtered_sick_run(shared_data, tmp_path, "relatedness", where)
    assert "--journal" in run.command
    # The result's line says how many pairs of how many the filter kept, and how.
    line = describe_result(run.result, "relatedness")
    assert f" · {run.result.pooled.n_pairs} of 500 scored pairs: where {where} (" in line
    [cli] = printed(run.command, capsys)
    same_numbers(cli, run.result)
    assert cli["provenance"]["parameters"]["where"] == where
    assert 0 < cli["n_pairs"] < 500
    assert main(shlex.split(run.command)[1:]) == 0
    passed = int(np.count_nonzero(passing(state.corpus, where)))
    assert f"where {where}: {passed:,} of {len(state.corpus):,} sentences pass" in (
        capsys.readouterr().out
    )

    path = save_workspace(workspace_of(session), tmp_path / "study", remember=False)
    restored = run_job(restore_session(load_workspace(path), path)).states[state.spec]
    assert restored.evaluations[-1].command == run.command

    assert main(["eval", "relatedness", "--corpus", spec, "--where", "words >"]) == 2
    assert capsys.readouterr().err == (
        "sentspace: error: filter expression, column 8: it ends too early "
        "(a value or condition is missing)\n"
    )


def test_filtered_histograms_are_made_again_by_their_command(shared_data, tmp_path, capsys):
    """Histograms of the pairs whose sentences pass a filter: the shown command carries
    ``--where`` and prints the same bins."""
    where = "words > 8"
    _, _, state, run = filtered_sick_run(shared_data, tmp_path, "histograms", where)
    [cli] = printed(run.command, capsys)
    same_numbers(cli, run.result)
    pairs = state.corpus.checked_pairs
    mask = passing(state.corpus, where)
    both = int(np.count_nonzero(mask[pairs.first] & mask[pairs.second]))
    assert len(cli["pairs"]) == both and 0 < both < len(pairs)
