import pytest

from sentspace.app.reproduce import triantafillou2016
from tests.reproduce.helpers import cells_per_table, reproduced, row


@pytest.fixture(scope="module")
def report(shared_data):
    return reproduced(triantafillou2016.PAPER)


def test_every_published_cell_has_a_row(report):
    # Tables 1-7: metrics x the six models (Table 6: random BOW alone); Table 8: 5 ranks
    # x 5 models; the count bag of words is a reference row outside the paper.
    assert cells_per_table(triantafillou2016.PAPER) == {
        "table1": 12,
        "table2": 6,
        "table3": 18,
        "table4": 18,
        "table5": 24,
        "table6": 4,
        "reference": 4,
        "table7": 18,
        "table8": 25,
    }
    assert {r.cell.table for r in report.rows if r.value is not None} == {"table6", "reference"}


def test_random_bow_ranks_as_published(report):
    """Table 6 on the full MSRP pool: accuracy@1 within 0.05 of the paper's 79 (read as
    %); deeper in the ranking sentspace's pool finds more partners (0.97 at 10 vs 88)."""
    top = row(report, "table6", "random BOW", "accuracy@1")
    assert top.cell.published == pytest.approx(0.79) and abs(top.difference) < 0.05
    for column in ("accuracy@10", "accuracy@100"):
        assert row(report, "table6", "random BOW", column).difference > 0
    counts = {c.what: c.ours for c in report.counts}
    assert counts["MSRP ranking pool (distinct sentences of train + test)"] == "10,944"
    finding = report.findings[0]
    assert finding.claim.startswith("A random-vector BOW") and finding.supported


def test_supervised_relatedness_is_the_learned_similarity_on_sick_test():
    """Table 3 (supervised SICK relatedness) runs relatedness on SICK test with the score
    learned on train + trial, under --full (its encoders train)."""
    from sentspace.app.reproduce.model import NEEDS

    cells = triantafillou2016.PAPER.table("table3").cells
    run = [c for c in cells if c.mark != NEEDS]
    assert len(run) == 15 and {c.row for c in cells if c.mark == NEEDS} == {"BOW-AE"}
    assert all(
        dict(c.run.options) == {"split": "test", "similarity": "learned"}
        and c.run.evaluation == "relatedness"
        and not c.quick
        for c in run
    )
