"""Tables and JSON the app writes: results, metric tables, chosen sentences."""

import csv
import json

from sentspace.app.analysis.evaluations.relatedness import run_relatedness
from sentspace.app.base.jobs import run_job
from sentspace.app.base.tables import write_csv, write_json
from sentspace.app.corpora import load_corpus
from sentspace.app.exporters.export import export_sentences
from sentspace.models import make_encoder


def read_csv(path):
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def test_a_result_round_trips_through_json(tmp_path, shared_data):
    sick = load_corpus(shared_data / "sick" / "SICK_trial.txt")
    result = run_job(run_relatedness(sick, make_encoder("bow")))
    written = write_json(tmp_path / "result.json", result.to_dict())
    assert written == tmp_path / "result.json"
    text = written.read_text(encoding="utf-8")
    assert text.endswith("}\n") and text.startswith('{\n  "')
    assert json.loads(text) == json.loads(json.dumps(result.to_dict(), default=float))
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]  # no temporary left


def test_a_metric_table_as_csv(tmp_path, shared_data):
    sick = load_corpus(shared_data / "sick" / "SICK_trial.txt")
    rows = run_job(run_relatedness(sick, make_encoder("tfidf"))).summary()
    # A value with a comma or a newline stays one cell.
    rows.append(("note", "a, b\nc"))
    path = write_csv(tmp_path / "table.csv", ("metric", "value"), rows)
    assert read_csv(path) == [["metric", "value"], *[list(row) for row in rows]]
    assert b"\r\n" not in path.read_bytes()


def test_chosen_sentences_with_their_groups(tmp_path, shared_data):
    grouped = load_corpus("msrp-grouped")
    path = export_sentences(grouped, [2, 0, 1], tmp_path / "group.csv")
    rows = read_csv(path)
    assert rows[0] == ["index", "id", "text", "group"]
    assert [row[:2] for row in rows[1:]] == [["2", "L3"], ["0", "L1"], ["1", "L2"]]
    assert rows[2][2] == grouped.texts[0] and {row[3] for row in rows[1:]} == {"0"}
    sick = load_corpus(shared_data / "sick" / "SICK_trial.txt")
    rows = read_csv(export_sentences(sick, [5], tmp_path / "ungrouped.csv"))
    assert rows[1] == ["5", sick.ids[5], sick.texts[5], ""]
