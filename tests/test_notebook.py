"""docs/notebook.ipynb runs end to end, headless: the bundled corpus, then SICK test and
STS-B from the shared data (SENTSPACE_DATA)."""

import importlib.util

import pytest

from scripts.run_notebook import run_notebook
from tests.printed import printed_number

pytest.importorskip("nbclient")
pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")


def test_the_notebook_runs_and_shows_the_evaluation_and_the_comparison(shared_data, tmp_path):
    # As its saved outputs are made: from an empty folder, nothing of the checkout is
    # found by the working directory.
    notebook = run_notebook(shared_data, tmp_path)
    text = "\n".join(
        output.get("text", "") + output.get("data", {}).get("text/plain", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert not [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error"
    ]
    assert "'sentences': 859, 'groups': 274" in text
    # The comparison table as sentspace eval prints it (bow's column first), and the
    # paired tests against bow; numbers within a band (tests/printed.py says why).
    assert printed_number(text, "mean accuracy") == pytest.approx(0.9837, abs=0.003)
    assert "'tfidf': (" in text and "'glove-mean': (" in text
    # Your own model, an array and MiniLM beside bow on SICK test, with paired tests
    # (MiniLM only with the transformers extra), a filter, two plots, MTEB both ways.
    assert "<Corpus 'sick': 5,007 sentences, 4,927 pairs" in text
    assert "'char-trigrams': (" in text and "'array': (" in text
    html = "\n".join(
        output.get("data", {}).get("text/html", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert "<b>relatedness</b> on sick" in html and "Paired tests" in html
    assert "<td>bow</td><td>pooled spearman</td><td>0.5321</td>" in html
    if importlib.util.find_spec("sentence_transformers") is not None:
        assert "<td>all-MiniLM-L6-v2</td><td>pooled spearman</td><td>0.7715</td>" in html
        # MiniLM minus bow: differences read other - first.
        assert "'all-MiniLM-L6-v2': (0.2394" in text
    figures = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "application/vnd.plotly.v1+json" in output.get("data", {})
    ]
    assert len(figures) == 2
    # STS-B test written as MTEB files and read back: the same Spearman, rounded to the
    # six decimals mteb writes.
    assert "/STSBenchmark.json'],\n 0.445509,\n 0.44550856470995603)" in text
