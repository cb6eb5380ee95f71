import pytest

from sentspace.app.reproduce import hill2016
from tests.reproduce.helpers import cells_per_table, reproduced, row


def test_every_published_cell_has_a_row():
    # Table 1: 8 models x 4; Table 3: 21 x 7 (MSRP Acc and F1); Table 4: 21 x 8 x
    # (Spearman, Pearson); Table 6: 14 benchmarks; and MTEB's STS-B check.
    assert cells_per_table(hill2016.PAPER) == {"table1": 32, "table2": 7, "table3": 147,
                                               "table4": 336, "table6": 14, "mteb-stsb": 1}
    unreadable = {(c.row, c.column) for c in hill2016.PAPER.table("table3").cells
                  if c.published is None}
    assert unreadable == {("CBOW", "CR")}  # printed "7730"


def test_minilm_stsb_equals_mteb(shared_data):
    pytest.importorskip("sentence_transformers")
    report = reproduced(hill2016.PAPER, ["mteb-stsb"])
    stsb = row(report, "mteb-stsb", "all-MiniLM-L6-v2", "STS-B test Spearman")
    assert stsb.n == 1379 and abs(stsb.difference) < 0.0005, stsb.value
