import pytest

from sentspace.app.reproduce import baumel
from sentspace.app.reproduce.model import DUC_ENV
from tests.reproduce.helpers import cells_per_table, reproduced, row


@pytest.fixture(scope="module")
def report(shared_data, monkeypatch_module):
    return reproduced(baumel.PAPER)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(DUC_ENV, raising=False)
        yield patch


def test_every_published_cell_has_a_row(report):
    assert cells_per_table(baumel.PAPER) == {"table1": 24}
    one_hot = row(report, "table1", "One-Hot", "Binary Test (F-measure)")
    # Without DUC pyramids the rows run on the sample and say so, with their reading.
    assert one_hot.cell.mark == "needs" and "DUC 2005-2007" in one_hot.cell.note
    assert "binary items: both" in one_hot.cell.note
    assert one_hot.command.endswith("--items both") and "pyramid-sample" in one_hot.command
    assert one_hot.n == 15  # 14 positive + 3 negative pairs, 2 of them tuning the threshold


def test_sample_counts_beside_the_papers(report):
    counts = {c.what: (c.paper, c.ours) for c in report.counts}
    assert counts["positive pairs (DUC 2005-2007)"] == ("8,390", "14 (both)")
    assert counts["negative pairs (DUC 2005-2007)"] == ("189,229", "3 (both)")
    assert counts["ranking questions (DUC 2005-2007)"] == ("8,755", "12 (both)")
    assert counts["MSRP training pairs"] == ("4,076 (2,753 positive)", "4,076 (2,753 positive)")
