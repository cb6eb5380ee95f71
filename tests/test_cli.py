import json
import subprocess
import sys
from pathlib import Path

from app.cli import main
from app.corpora import load_corpus
from app.evaluations.classification import run_classification
from app.jobs import run_job
from models.bow import TfIdf

ROOT = Path(__file__).resolve().parents[1]


def test_eval_prints_the_same_numbers_as_the_core(capsys):
    expected = run_job(run_classification(load_corpus("msrp-grouped"), TfIdf()))
    assert main(["eval", "classification", "--corpus", "msrp-grouped",
                 "--encoder", "tfidf"]) == 0
    out = capsys.readouterr().out
    assert f"mean accuracy    {expected.mean_accuracy:.4f}" in out
    for label, value in expected.summary():
        assert label in out and value in out


def test_eval_json_has_results_and_provenance(tmp_path, capsys):
    target = tmp_path / "result.json"
    assert main(["eval", "classification", "--encoder", "bow", "--encoder", "tfidf",
                 "--json", str(target)]) == 0
    results = json.loads(target.read_text())
    assert [r["provenance"]["encoder_family"] for r in results] == ["bow", "tfidf"]
    assert all(r["mean_accuracy"] > 0.95 for r in results)
    assert len(results[0]["predictions"]) == 859
    assert "bow" in capsys.readouterr().out


def test_bad_corpus_exits_2_with_one_line(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "phrases.txt").write_text("one\ntwo\n")
    (folder / "phrase_groups.csv").write_text("phrase_index,paraphrase_group_index\n0,0\n5,0\n")
    done = subprocess.run([sys.executable, "-m", "app", "eval", "classification",
                           "--corpus", str(folder)], cwd=ROOT, capture_output=True, text=True)
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
