import pytest

from sentspace.app.reproduce import white2015
from sentspace.app.reproduce.report import to_dict, to_html, to_markdown
from tests.reproduce.helpers import cells_per_table, reproduced, row


@pytest.fixture(scope="module")
def report(shared_data):
    return reproduced(white2015.PAPER)


def test_every_published_cell_has_a_row(report):
    # 7 models x 2 sub-corpora, as printed in Table 1.
    assert cells_per_table(white2015.PAPER) == {"table1": 14}
    ran = {(r.cell.row, r.cell.column) for r in report.rows if r.value is not None}
    assert ran == {(m, c) for m in ("MOWE", "SOWE", "BOW")
                   for c in ("MSRP Subcorpus", "Opinosis Subcorpus")}


def test_bow_on_msrp_groups_reproduces(report):
    bow = row(report, "table1", "BOW", "MSRP Subcorpus")
    assert bow.cell.published == pytest.approx(0.9837)
    # Same setting, same number: the mean of the 3 folds' accuracies (seed 0).
    assert bow.value == pytest.approx(0.9837033, abs=1e-7) and abs(bow.difference) < 0.0005
    assert bow.ci[0] < bow.value < bow.ci[1]
    assert bow.command == ("sentspace eval classification --corpus msrp-grouped "
                           "--encoder bow --seed 0")
    assert bow.cell.mark == "same setting" and "C=1.0" in bow.cell.note


def test_counts_and_findings(report):
    counts = {c.what: c.ours for c in report.counts}
    assert counts["MSRP sub-corpus"] == "859 sentences / 274 groups"
    assert counts["Opinosis sub-corpus"] == "521 sentences / 89 groups"
    findings = {f.claim: f for f in report.findings}
    assert findings["The Opinosis groups are far harder than MSRP's for every model"].supported
    # PV and URAE are trained only by --full, so the first claim is left undecided.
    assert findings["Sum/mean of word vectors beats PV and URAE on MSRP groups"].supported is None


def test_report_formats(report, tmp_path):
    markdown, page = to_markdown(report), to_html(report)
    assert "| BOW | MSRP Subcorpus | 98.37% | 0.9837 [" in markdown
    assert "<svg" in page and "http" not in page.replace("http://www.w3.org/2000/svg", "")
    rows = to_dict(report)["tables"][0]["rows"]
    assert len(rows) == 14 and {r["mark"] for r in rows} == {"same setting", "substitute"}
