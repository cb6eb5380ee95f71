import warnings

import numpy as np
import pytest

from sentspace.app.cache import encode_corpus
from sentspace.app.corpora import load_corpus
from sentspace.app.jobs import run_job
from sentspace.app.reproduce import costra
from sentspace.models.bow import BagOfWords
from tests.reproduce.helpers import cells_per_table, reproduced, row


@pytest.fixture(scope="module")
def report(shared_data):
    return reproduced(costra.PAPER)


def test_every_published_cell_has_a_row(report):
    # 6 encoders x 7 columns, and the two lexical reference rows.
    assert cells_per_table(costra.PAPER) == {"table1": 56}
    assert [c.ours for c in report.counts] == ["6,968"]


def test_rows_equal_the_reference_evaluator(report, shared_data):
    """The bag-of-words row's numbers are the costra package's on the same embeddings."""
    pytest.importorskip("costra")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the package imports the deprecated pkg_resources
        from costra.costra import CostraEvaluator
    corpus = load_corpus("costra")
    embeddings = run_job(encode_corpus(corpus, BagOfWords())).toarray()
    with np.errstate(divide="ignore", invalid="ignore"):  # its zero-vector cosines
        reference = CostraEvaluator(str(shared_data / "costra" / "data.tsv")).evaluate(
            embeddings)
    ours = {column: row(report, "table1", "bag of words (reference)", column).value
            for column in costra.COLUMNS}
    assert ours == {column: reference[name.replace(" ", "_") if name != "mean" else "costra"]
                    for column, name in costra.COLUMNS.items()}
    findings = {f.claim[:30]: f.supported for f in report.findings}
    assert findings["No encoder captures the orderi"] is True
