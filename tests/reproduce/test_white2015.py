import pytest

from sentspace.app.reproduce import white2015
from sentspace.app.reproduce.findings import NOT_DECIDED, SUPPORTED, beats
from sentspace.app.reproduce.model import OUTSIDE
from sentspace.app.reproduce.report import header, to_dict, to_html, to_markdown
from sentspace.app.reproduce.runner import Row, _Evidence
from tests.reproduce.helpers import cells_per_table, reproduced, row


@pytest.fixture(scope="module")
def report(shared_data):
    return reproduced(white2015.PAPER)


def test_every_published_cell_has_a_row(report):
    # 7 models x 2 sub-corpora, as printed in Table 1.
    assert cells_per_table(white2015.PAPER) == {"table1": 14}
    ran = {(r.cell.row, r.cell.column) for r in report.rows if r.value is not None}
    assert ran == {
        (m, c) for m in ("MOWE", "SOWE", "BOW") for c in ("MSRP Subcorpus", "Opinosis Subcorpus")
    }


def test_bow_on_msrp_groups_reproduces(report):
    bow = row(report, "table1", "BOW", "MSRP Subcorpus")
    assert bow.cell.published == pytest.approx(0.9837)
    # Same setting, same number: the mean of the 3 folds' accuracies (seed 0).
    assert bow.value == pytest.approx(0.9837033, abs=1e-7) and abs(bow.difference) < 0.0005
    assert bow.ci[0] < bow.value < bow.ci[1]
    assert bow.command == (
        "sentspace eval classification --corpus msrp-grouped --encoder bow --seed 0"
    )
    assert bow.cell.mark == "same setting" and "C=1.0" in bow.cell.note


def test_counts_and_findings(report):
    counts = {c.what: c.ours for c in report.counts}
    assert counts["MSRP sub-corpus"] == "859 sentences / 274 groups"
    assert counts["Opinosis sub-corpus"] == "521 sentences / 89 groups"
    findings = {f.claim: f.decision for f in report.findings}
    # Each claim names rows --quick does not run (PCA BOW, PV and URAE): none is decided
    # on the three rows it runs, each names the rest and the command that runs them,
    # while the paper's own numbers are checked against the wording.
    for claim in (
        "Sum/mean of word vectors beats PV and URAE on MSRP groups",
        "BOW is best on MSRP",
        "The Opinosis groups are far harder than MSRP's for every model",
    ):
        decision = findings[claim]
        assert decision.verdict == NOT_DECIDED and decision.paper_holds is True, claim
        assert "PV-DM, PV-DBOW, URAE" in decision.evidence
        assert decision.evidence.endswith(
            "(outside --quick: sentspace reproduce white2015 table1 --full --seed 0)"
        )
    assert findings["BOW is best on MSRP"].evidence == (
        "not re-run: PV-DM, PV-DBOW, URAE, PCA BOW (outside --quick: sentspace reproduce "
        "white2015 table1 --full --seed 0)"
    )


def test_bow_against_a_word_vector_row_is_decided_by_mcnemar(report):
    """BOW against MOWE by McNemar on the same 859 sentences (the test ``eval
    classification`` makes between encoders), named with its p-value."""
    evidence = _evidence(report)
    above = beats(evidence, "table1", "MSRP Subcorpus", ("BOW",), ("MOWE", "SOWE"))
    assert above.verdict == SUPPORTED
    assert (
        "BOW 0.9837 vs MOWE 0.9674: +0.0163, 95% CI [+0.0070, +0.0268], p 0.00131 "
        "(McNemar, exact binomial, 859 items)" in above.evidence
    )
    assert above.p_value == pytest.approx(0.00131, abs=1e-5) and above.effect > 0


def _evidence(report):
    return _Evidence(report.rows, report.results, report.seed, lambda table: "")


def test_every_re_run_cell_is_marked(report):
    marks = {(r.cell.row, r.cell.column): r.reach_text for r in report.rows if r.value is not None}
    assert marks[("BOW", "MSRP Subcorpus")] == "within reach (interval covers it)"
    assert marks[("BOW", "Opinosis Subcorpus")] == "within reach (interval covers it)"
    assert marks[("MOWE", "MSRP Subcorpus")] == "not comparable (substitute)"
    assert "6 of 14 published cells re-run — 2 within reach, 4 not comparable" in header(report)[1]


def test_an_outside_same_setting_cell_says_why():
    """PCA BOW on Opinosis re-runs at 0.645 against the paper's 0.544 (--full): outside,
    with the cause found by re-running it at other dimensions."""
    cell = next(
        c for c in white2015.CELLS if (c.row, c.column) == ("PCA BOW", "Opinosis Subcorpus")
    )
    outside = Row(cell, 0.6449, (0.60, 0.69), 521)
    assert outside.reach == OUTSIDE
    assert outside.reach_text.startswith("outside: tried: with ~347 training sentences")
    assert "75-d 0.555" in outside.reach_text
    # A same-setting cell outside with no cause found says so rather than staying silent.
    bow = next(c for c in white2015.CELLS if (c.row, c.column) == ("BOW", "MSRP Subcorpus"))
    assert Row(bow, 0.90, (0.88, 0.92), 859).reach_text == "outside: no cause recorded"
    assert Row(bow, 0.97, (0.96, 0.975), 859).reach_text == "within reach (within the band 0.02)"


def test_report_formats(report, tmp_path):
    markdown, page = to_markdown(report), to_html(report)
    assert "| BOW | MSRP Subcorpus | 98.37% | 0.9837 [" in markdown
    assert "| same setting | within reach |" in markdown
    assert "<svg" in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    rows = to_dict(report)["tables"][0]["rows"]
    assert len(rows) == 14 and {r["mark"] for r in rows} == {"same setting", "substitute"}
