"""docs/notebook.ipynb runs end to end, headless: the bundled corpus, then SICK test and
STS-B from the shared data (SENTSPACE_DATA)."""

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from tests.printed import printed_number

nbclient = pytest.importorskip("nbclient")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]
KERNEL = "sentspace-tests"


@pytest.fixture
def kernel(tmp_path, monkeypatch, shared_data):
    """A kernelspec of this very Python, with this checkout importable, so the run
    depends on no kernel installed in the environment or the user's home."""
    folder = tmp_path / "jupyter" / "kernels" / KERNEL
    folder.mkdir(parents=True)
    (folder / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": KERNEL,
                "language": "python",
                "env": {
                    "PYTHONPATH": os.pathsep.join(
                        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])
                    ),
                    "SENTSPACE_DATA": str(shared_data),
                },
            }
        )
    )
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return KERNEL


def test_the_notebook_runs_and_shows_the_evaluation_and_the_comparison(kernel, tmp_path):
    notebook = nbformat.read(ROOT / "docs" / "notebook.ipynb", as_version=4)
    # Run from an empty folder: nothing of the checkout is found by the working directory.
    nbclient.NotebookClient(
        notebook, kernel_name=kernel, timeout=300, resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
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
        assert "'all-MiniLM-L6-v2': (-0.2394" in text
    figures = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "application/vnd.plotly.v1+json" in output.get("data", {})
    ]
    assert len(figures) == 2
    # STS-B test written as MTEB files and read back: the same Spearman.
    assert "/STSBenchmark.json'],\n 0.44550856470995603,\n 0.44550856470995603)" in text
