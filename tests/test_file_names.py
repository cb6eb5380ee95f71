"""A save dialog's typed name completed with the chosen filter's extension."""

from pathlib import Path

import pytest

from sentspace.app.base.file_names import completed_name, filter_patterns

EXPORTS = (
    "NumPy array + JSON sidecar (*.npy);;Parquet (*.parquet);;"
    "Embedding Projector pair (vectors.tsv)"
)
FIGURES = "PNG image (*.png);;SVG drawing (*.svg)"


def test_filter_patterns():
    assert filter_patterns("Corpora (*.txt *.csv)") == ["*.txt", "*.csv"]
    assert filter_patterns("Embedding Projector pair (vectors.tsv)") == ["vectors.tsv"]
    assert filter_patterns("All files (*)") == ["*"]


@pytest.mark.parametrize(
    "typed, chosen, filters, written",
    [
        ("/d/rel-glove", "JSON (*.json)", "", "/d/rel-glove.json"),
        ("/d/glove.6B", "JSON (*.json)", "", "/d/glove.6B.json"),  # not an extension
        ("/d/table.CSV", "CSV (*.csv)", "", "/d/table.CSV"),
        ("/d/glove", "NumPy array + JSON sidecar (*.npy)", EXPORTS, "/d/glove.npy"),
        ("/d/glove", "Parquet (*.parquet)", EXPORTS, "/d/glove.parquet"),
        ("/d/glove.npy", "Parquet (*.parquet)", EXPORTS, "/d/glove.npy"),  # typed wins
        ("/d/glove", "Embedding Projector pair (vectors.tsv)", EXPORTS, "/d/vectors.tsv"),
        ("/d/plot.svg", "PNG image (*.png)", FIGURES, "/d/plot.svg"),
        ("/d/plot", "SVG drawing (*.svg)", FIGURES, "/d/plot.svg"),
        ("/d/anything", "All files (*)", "", "/d/anything"),
    ],
)
def test_completed_name(typed, chosen, filters, written):
    assert completed_name(typed, chosen, filters) == Path(written)
