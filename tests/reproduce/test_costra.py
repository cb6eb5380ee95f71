import warnings

import numpy as np
import pytest

from sentspace.app.analysis.cache import encode_corpus
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.reproduce import costra
from sentspace.app.reproduce.findings import NOT_DECIDED
from sentspace.app.reproduce.report import header
from sentspace.models.bow import BagOfWords
from tests.reproduce.helpers import cells_per_table, reproduced, row


@pytest.fixture(scope="module")
def report(shared_data):
    return reproduced(costra.PAPER)


def test_every_published_cell_has_a_row(report):
    # 6 encoders x 7 columns, and the two lexical reference rows.
    assert cells_per_table(costra.PAPER) == {"table1": 56}
    assert [c.ours for c in report.counts] == ["6,968"]
    # The counts say what they count: the references are sentspace's, not the paper's.
    assert header(report)[1].startswith(
        "quick run, seed 0: 0 of 42 published cells re-run; 2 reference rows (14 of 14 "
        "cells re-run, sentspace's own, not in the paper)"
    )


def test_findings_name_every_encoder_run_and_check_the_papers_table(report):
    """ "Every encoder" is every encoder sentspace runs: quick runs the two references but
    not e5-small, so neither claim is decided, and each names e5-small's row and the
    command; the paper's own Table 1 fails "basic is every encoder's lowest class" on
    LASER, and the report says so."""
    averages, basic = (f.decision for f in report.findings)
    for decision in (averages, basic):
        assert decision.verdict == NOT_DECIDED
        assert decision.evidence == (
            "not re-run: SentBERT - mean (outside --quick: sentspace reproduce costra "
            "table1 --full --seed 0)"
        )
        assert "bag of words (reference)" in decision.comparison
    assert averages.paper_holds is True and "highest 0.510" in averages.paper
    assert basic.paper_holds is False
    assert basic.paper == (
        "the paper's own table fails the wording: LASER modality 0.244 vs basic 0.255"
    )


def test_rows_equal_the_reference_evaluator(report, shared_data):
    """The bag-of-words row's numbers are the costra package's on the same embeddings."""
    pytest.importorskip("costra")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the package imports the deprecated pkg_resources
        from costra.costra import CostraEvaluator
    corpus = load_corpus("costra")
    embeddings = run_job(encode_corpus(corpus, BagOfWords())).toarray()
    with np.errstate(divide="ignore", invalid="ignore"):  # its zero-vector cosines
        reference = CostraEvaluator(str(shared_data / "costra" / "data.tsv")).evaluate(embeddings)
    ours = {
        column: row(report, "table1", "bag of words (reference)", column).value
        for column in costra.COLUMNS
    }
    assert ours == {
        column: reference[name.replace(" ", "_") if name != "mean" else "costra"]
        for column, name in costra.COLUMNS.items()
    }
