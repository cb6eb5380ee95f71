import json

from sentspace.app.analysis.evaluations.classification import run_classification
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus
from sentspace.models.bow import TfIdf
from tests.printed import run_cli


def test_eval_prints_the_same_numbers_as_the_core(capsys):
    expected = run_job(run_classification(load_corpus("msrp-grouped"), TfIdf()))
    assert main(["eval", "classification", "--corpus", "msrp-grouped", "--encoder", "tfidf"]) == 0
    out = capsys.readouterr().out
    assert f"mean accuracy    {expected.mean_accuracy:.4f}" in out
    for label, value in expected.summary():
        assert label in out and value in out


def test_eval_json_has_results_and_provenance(tmp_path, capsys):
    target = tmp_path / "result.json"
    words = "eval classification --encoder bow --encoder tfidf --json".split()
    assert main([*words, str(target)]) == 0
    payload = json.loads(target.read_text())
    results = payload["results"]
    assert [r["provenance"]["encoder_family"] for r in results] == ["bow", "tfidf"]
    assert payload["paired_tests"][0]["p_value"] == 0.0625
    assert all(r["mean_accuracy"] > 0.95 for r in results)
    assert len(results[0]["predictions"]) == 859
    assert "bow" in capsys.readouterr().out


def test_bad_corpus_exits_2_with_one_line(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "phrases.txt").write_text("one\ntwo\n")
    (folder / "phrase_groups.csv").write_text("phrase_index,paraphrase_group_index\n0,0\n5,0\n")
    done = run_cli("eval", "classification", "--corpus", str(folder))
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "phrase_groups.csv, line 3: phrase index 5 is outside phrases.txt" in lines[0]
    assert "Traceback" not in done.stderr


def test_corpus_info(capsys):
    assert main(["corpus", "info", "msrp-grouped"]) == 0
    out = capsys.readouterr().out
    assert "859" in out and "274" in out


def test_encode_then_evaluate_precomputed_equals_the_encoder(tmp_path, capsys):
    target = tmp_path / "bow.parquet"
    assert (
        main(["encode", "--corpus", "msrp-grouped", "--encoder", "bow", "--out", str(target)]) == 0
    )
    assert "859 x" in capsys.readouterr().out
    words = ["eval", "classification", "--encoder", "bow", "--encoder", f"precomputed:{target}"]
    assert main([*words, "--json", "-"]) == 0
    own, imported = json.loads(capsys.readouterr().out)["results"]
    assert own["fold_accuracy"] == imported["fold_accuracy"]
    assert imported["provenance"]["encoder_family"] == "precomputed"


def test_bad_precomputed_file_exits_2_naming_it(tmp_path):
    bad = tmp_path / "short.npy"
    import numpy as np

    np.save(bad, np.ones((10, 3), dtype=np.float32))
    done = run_cli("eval", "classification", "--encoder", f"precomputed:{bad}")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "short.npy: 10 rows for 859 corpus sentences" in done.stderr


def test_agreement_and_paired_tests(capsys):
    assert main(["eval", "agreement", "--encoder", "bow", "--encoder", "tfidf"]) == 0
    out = capsys.readouterr().out
    assert "bow vs tfidf: same wrong group  9/9 (1.0000)" in out
    assert main(["eval", "classification", "--encoder", "bow", "--encoder", "tfidf"]) == 0
    out = capsys.readouterr().out
    # tfidf (A) against bow (B): tfidf right where bow is wrong, 5 times.
    assert "paired tests of accuracy (McNemar), each encoder (A) against bow (B)" in out
    assert "A right, B wrong  5" in out and "p-value           0.0625" in out
    assert "verdict           no difference at this size" in out


def test_agreement_needs_two_encoders(capsys):
    assert main(["eval", "agreement", "--encoder", "bow"]) == 2
    assert "give two or more --encoder" in capsys.readouterr().err


def test_run_workspace_reprints_the_saved_numbers(tmp_path, capsys):
    from sentspace.app.workspace.format import (
        corpus_entry,
        encoder_entry,
        evaluation_entry,
        save_workspace,
    )
    from sentspace.app.workspace.model import Workspace

    corpus = load_corpus("msrp-grouped")
    encoder = TfIdf()
    result = run_job(run_classification(corpus, encoder, seed=2))
    workspace = Workspace(
        corpora=(corpus_entry("msrp-grouped", corpus),),
        encoders=(encoder_entry("tfidf", encoder),),
        evaluations=(evaluation_entry("classification", result, corpus=0, encoder=0, seed=2),),
    )
    path = save_workspace(workspace, tmp_path / "study.sentspace", remember=False)
    assert main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert "classification: tfidf on msrp-grouped, seed 2" in out
    assert f"{result.mean_accuracy:.4f}" in out
    path.write_bytes(path.read_bytes()[:50])
    assert main(["run", str(path)]) == 2
    assert "study.sentspace" in capsys.readouterr().err


def test_the_sentspace_command_passes_arguments_to_the_cli(capsys):
    from sentspace.app.__main__ import main as sentspace

    assert sentspace(["corpus", "info", "msrp-grouped"]) == 0
    assert "859" in capsys.readouterr().out


def test_the_command_shown_beside_a_result_reproduces_it(tmp_path, shared_data, capsys):
    import shlex
    import shutil

    from sentspace.app.analysis.evaluations.relatedness import run_relatedness
    from sentspace.app.base.commands import eval_command
    from sentspace.app.cli import build_parser
    from sentspace.models import make_encoder

    assert (
        eval_command("classification", "msrp-grouped", ["tfidf"], 0)
        == "sentspace eval classification --corpus msrp-grouped --encoder tfidf --seed 0"
    )
    agreement = eval_command("agreement", "msrp-grouped", ["bow", "tfidf"], 3)
    args = build_parser().parse_args(shlex.split(agreement)[1:])
    assert (args.evaluation, args.encoder, args.seed) == ("agreement", ["bow", "tfidf"], 3)
    pyramid = eval_command(
        "pyramid",
        "pyramid-sample",
        ["bow"],
        0,
        {"negative_overlap": "types", "distractors": "question"},
    )
    assert pyramid.endswith("--seed 0 --negative-overlap types --distractors question")
    args = build_parser().parse_args(shlex.split(pyramid)[1:])
    assert (args.negative_overlap, args.distractors) == ("types", "question")
    # A path with a space survives the shell; the command prints the core's numbers.
    folder = tmp_path / "my data"
    folder.mkdir()
    path = shutil.copy(shared_data / "sick" / "SICK_trial.txt", folder)
    command = eval_command("relatedness", str(path), ["bow"], 0)
    assert f"--corpus '{path}'" in command
    assert main([*shlex.split(command)[1:], "--json", "-"]) == 0
    [printed] = json.loads(capsys.readouterr().out)["results"]
    expected = json.loads(
        json.dumps(
            run_job(run_relatedness(load_corpus(path), make_encoder("bow"))).to_dict(),
            default=float,
        )
    )
    for result in (printed, expected):
        del result["provenance"]["created"]  # the second each run ended
    assert printed == expected


def test_evaluation_options_reach_the_evaluation(shared_data, capsys):
    sample = str(shared_data / "pyramid-sample")
    options = "--distractors question --negative-overlap types --json".split()
    assert main(["eval", "pyramid", "--corpus", sample, *options]) == 0
    parameters = json.loads(capsys.readouterr().out)["results"][0]["provenance"]["parameters"]
    assert (parameters["distractors"], parameters["negative_overlap"]) == ("question", "types")
    assert main(["eval", "classification", "--distractors", "question"]) == 2
    assert "classification takes no --distractors" in capsys.readouterr().err


def test_annotations_agreement_and_merge(tmp_path, capsys):
    """Two people decide sentences 0-9 of MSRP grouped, each in their own journal."""
    from sklearn.metrics import cohen_kappa_score

    from sentspace.app.annotations.history import History
    from sentspace.app.annotations.journal import read_journal
    from sentspace.app.annotations.session import AnnotationSession

    corpus = load_corpus("msrp-grouped")
    moves = {
        "A": {0: "200", 3: "200", 6: "200", 9: "300"},
        "B": {0: "200", 3: "200", 7: "200", 9: "301"},
    }
    journals = []
    for author, moved in moves.items():
        journals.append(str(tmp_path / f"{author}.jsonl"))
        session = AnnotationSession.open(corpus, journals[-1], author=author)
        for i in range(10):
            if i in moved:
                session.move(i, moved[i])
            else:
                session.mark_reviewed(f"sentence:{corpus.ids[i]}")
        session.close()
    labels = corpus.groups.labels(len(corpus))
    decided = {
        author: [moved.get(i, corpus.groups.names[labels[i]]) for i in range(10)]
        for author, moved in moves.items()
    }
    kappa = cohen_kappa_score(decided["A"], decided["B"])
    assert main(["annotations", "agreement", *journals]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()]
    assert f"group decisions: Cohen's kappa {kappa:.3f} over 10 items" in out
    assert "confusion: rows A, columns B" in out and "disagreements: 3" in out
    assert f"A and B: Cohen's kappa {kappa:.3f} over the 10 items both decided" in out
    assert ["sentence:L7", "200", decided["B"][6]] in rows
    assert ["sentence:L8", decided["A"][7], "200"] in rows
    assert ["sentence:L10", "300", "301"] in rows

    merged = tmp_path / "merged.jsonl"
    assert main(["annotations", "merge", *journals, "--out", str(merged)]) == 0
    out = capsys.readouterr().out
    assert "20 records (20 edits in effect) from 2 journals" in out
    # L1 and L4 both moved into 200 agree; L10 moved by both, to different groups; B
    # marked L7 reviewed in the group A had moved it out of.
    group, seventh = (corpus.groups.names[labels[i]] for i in (9, 6))
    assert (
        f"conflicts: 2\n- B's reviewed sentence:L7: L7 was in {seventh} when reviewed "
        f"and is now in 200 (after A's move L7 from {seventh} to 200); applied anyway\n"
        f"- B's move L10 from {group} to 301: L10 was in {group} and is "
        f"now in 300 (after A's move L10 from {group} to 300); applied anyway"
    ) in out
    _, records = read_journal(merged)
    assert {r.id for r in records} == {r.id for j in journals for r in read_journal(j)[1]}
    history = History(corpus)
    history.feed(records)
    assert history.corpus.groups.names[history.corpus.groups.labels(len(corpus))[9]] == "301"

    assert (
        main(
            [
                "annotations",
                "merge",
                journals[0],
                str(tmp_path / "B.jsonl"),
                str(merged),
                "--out",
                str(merged),
            ]
        )
        == 0
    )  # merging again adds nothing
    assert "20 records" in capsys.readouterr().out
    assert main(["annotations", "agreement", journals[0]]) == 2
    assert "no item was decided by two or more authors" in capsys.readouterr().err


def test_eval_compare_shows_mteb_results_beside_the_run(shared_data, tmp_path, capsys):
    """MTEB's published STS-B score of all-MiniLM-L6-v2 beside sentspace's MiniLM on the
    same 1,379 test pairs (both 0.8203), and bag of words beside it; never paired."""
    folder = tmp_path / "mteb-results" / "sentence-transformers__all-MiniLM-L6-v2" / "8b32"
    folder.mkdir(parents=True)
    (folder / "model_meta.json").write_text(
        json.dumps({"name": "sentence-transformers/all-MiniLM-L6-v2", "revision": "8b32"})
    )
    (folder / "STSBenchmark.json").write_text(
        json.dumps(
            {
                "dataset_revision": "b0fddb56ed78048fa8b90373c8a3cfc37b684831",
                "task_name": "STSBenchmark",
                "mteb_version": "1.12.75",
                "evaluation_time": 1.2,
                "scores": {
                    "test": [
                        {
                            "main_score": 0.8203247283076371,
                            "cosine_spearman": 0.8203247283076371,
                            "cosine_pearson": 0.8274064239694425,
                            "hf_subset": "default",
                            "languages": ["eng-Latn"],
                        }
                    ]
                },
            }
        )
    )
    corpus = str(shared_data / "sts" / "STSBenchmark" / "sts-test.csv")
    target = tmp_path / "out.json"
    words = ["eval", "relatedness", "--corpus", corpus, "--encoder", "minilm", "--encoder", "bow"]
    assert main([*words, "--compare", str(tmp_path / "mteb-results"), "--json", str(target)]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("STSBenchmark "))
    cells = row.split()
    assert cells[:6] == ["STSBenchmark", "test", "1,379", "all-MiniLM-L6-v2", "(MTEB,", "imported)"]
    assert cells[6:11] == ["0.8203", "0-1", "0.8203", "(same", "model)"]
    payload = json.loads(target.read_text())
    (imported,) = payload["imported"]
    minilm, bow = imported["beside"]
    assert (minilm["encoder"], minilm["same_model"], minilm["n_pairs"]) == ("minilm", True, 1379)
    assert abs(minilm["spearman"] - 0.8203247) < 5e-4  # MTEB's number, to 4 places
    assert bow["same_model"] is False and float(cells[11]) == round(bow["spearman"], 4)
    # bow (A) against the first, minilm (B): bow - minilm.
    assert [(t["a"], t["b"]) for t in payload["paired_tests"]] == [("bow", "minilm")]


def test_eval_compare_errors_name_the_file(tmp_path, capsys):
    bad = tmp_path / "STSBenchmark.json"
    bad.write_text('{"task_name": "STSBenchmark", "scores": {"test": [{"main_score": "x"}]}}')
    assert main(["eval", "relatedness", "--encoder", "bow", "--compare", str(bad)]) == 2
    assert capsys.readouterr().err.strip() == (
        f"sentspace: error: {bad}: scores.test[0].main_score is 'x', not a number"
    )
    assert main(["eval", "classification", "--compare", str(bad)]) == 2
    assert "--compare reads MTEB's STS results" in capsys.readouterr().err


def test_every_command_prints_its_help(capsys):
    """argparse formats help with %: a bare "4.2%" in an option's help stopped
    `eval --help` and `reproduce --help` with a ValueError."""
    import argparse

    from sentspace.app.cli import build_parser

    def parsers(parser):
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for child in action.choices.values():
                    yield from parsers(child)

    every = list(parsers(build_parser()))
    assert len(every) > 10
    for parser in every:
        assert parser.format_help().startswith("usage:"), parser.prog
        # A description is printed as written: "95%%" would show doubled.
        assert "%%" not in parser.format_help(), parser.prog
