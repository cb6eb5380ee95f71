import shutil

import pytest

from sentspace.app.base.jobs import run_job
from sentspace.app.reproduce import baumel
from sentspace.app.reproduce.findings import NO_DIFFERENCE
from sentspace.app.reproduce.model import DUC_ENV, NOT_COMPARABLE, OUTSIDE, SAME, SUBSTITUTE
from sentspace.app.reproduce.report import header
from sentspace.app.reproduce.runner import run_reproduction
from tests.reproduce.helpers import cells_per_table, reproduced, row

BINARY, SUCCESS = "Binary Test (F-measure)", "Ranking Test (Success Rate)"


@pytest.fixture(scope="module")
def report(shared_data, monkeypatch_module):
    return reproduced(baumel.PAPER)


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(DUC_ENV, raising=False)
        yield patch


@pytest.fixture(scope="module")
def duc_folder(shared_data, tmp_path_factory):
    """Two pyramids standing in for a user's DUC folder (not the shared sample's path)."""
    folder = tmp_path_factory.mktemp("duc")
    for name in ("D0601A.pyr", "D0602B.pyr"):
        shutil.copy(shared_data / "pyramid-sample" / "T0001.pyr", folder / name)
    return folder


def test_every_published_cell_has_a_row(report):
    assert cells_per_table(baumel.PAPER) == {"table1": 24}
    one_hot = row(report, "table1", "One-Hot", BINARY)
    # Without DUC pyramids the rows run on the sample and say so, with their reading.
    assert one_hot.mark == "needs" and "DUC 2005-2007" in one_hot.cell.note
    assert one_hot.reach == NOT_COMPARABLE
    assert "binary items: both" in one_hot.cell.note and "across-pyramids" in one_hot.cell.note
    assert one_hot.command.endswith("--items both --negatives across-pyramids")
    assert "pyramid-sample" in one_hot.command
    assert one_hot.n == 15  # 14 positive + 3 negative pairs, 2 of them tuning the threshold
    # Binary F1 has an interval (test pairs resampled, threshold fixed).
    assert one_hot.ci is not None and one_hot.ci[0] <= one_hot.value <= one_hot.ci[1]


def test_sample_counts_beside_the_papers(report):
    counts = {c.what: (c.paper, c.ours) for c in report.counts}
    assert counts["positive pairs (DUC 2005-2007)"] == ("8,390", "14 (both, across-pyramids)")
    assert counts["negative pairs (DUC 2005-2007)"] == ("189,229", "3 (both, across-pyramids)")
    assert counts["ranking questions (DUC 2005-2007)"] == ("8,755", "12 (both, across-pyramids)")
    assert counts["MSRP training pairs"] == ("4,076 (2,753 positive)", "4,076 (2,753 positive)")
    # Each negative sampling's positive share beside the paper's 4.2%.
    assert counts["binary positive share, negatives across-pyramids"] == (
        "4.2%",
        "82.4% (14 of 17; items both)",
    )
    assert counts["binary positive share, negatives within-pyramid"][1].startswith("82.4%")
    assert counts["binary positive share, negatives no-overlap-filter"] == (
        "4.2%",
        "11.9% (14 of 118; items both)",
    )


def test_findings_are_paired_tests(report):
    """On 12 questions and 15 pairs nothing can be told apart: the verdict says so with
    the paired test's p-value, and the paper's own numbers hold the wording."""
    for finding in report.findings:
        decision = finding.decision
        assert decision.verdict == NO_DIFFERENCE, finding
        assert decision.p_value is not None and decision.p_value > 0.05
        assert "paired permutation" in decision.evidence
        assert decision.paper_holds is True
    ranking = report.findings[1].decision
    assert ranking.effect == 0 and ranking.p_value == 1
    # Each names its stand-in and says it is decided on every year given; the sample's
    # pyramid tells no year, so its test is the plain paired one.
    for finding in report.findings:
        assert "decided on glove-mean 50-d, the stand-in for word2vec, on every DUC year" in (
            finding.claim
        )
        assert f"{baumel.W2V} above One-Hot" in finding.decision.comparison
        assert "stratified by DUC year" in finding.decision.comparison
        assert "the paper pools DUC 2005-2007" in finding.decision.comparison
        assert "strata" not in finding.decision.evidence


def test_marks_follow_the_data_supplied(duc_folder, shared_data):
    """A folder a user names is taken as DUC: the rows take their own marks and reach;
    the shared sample, named or not, leaves them stand-ins."""
    on_duc = run_job(
        run_reproduction(
            baumel.PAPER,
            data=duc_folder,
            options={"items": "contributors", "negatives": "within-pyramid"},
        )
    )
    assert row(on_duc, "table1", "One-Hot", BINARY).mark == SAME
    assert row(on_duc, "table1", "GloVe", SUCCESS).mark == SAME
    assert row(on_duc, "table1", baumel.W2V, BINARY).mark == SUBSTITUTE
    one_hot = row(on_duc, "table1", "One-Hot", SUCCESS)
    # Same setting, yet the distractors cannot be the paper's: not comparable, and why.
    assert one_hot.reach == NOT_COMPARABLE
    assert one_hot.reach_text.startswith(
        "not comparable (the distractors cannot be the paper's: 'the 3 most similar' by a "
        "measure it does not state"
    )
    binary = row(on_duc, "table1", "GloVe", BINARY)
    assert binary.reach == NOT_COMPARABLE and "7.4% / 6.0% positives" in binary.reach_text
    # No same-setting cell is left "outside" without a cause.
    assert all(r.reach != OUTSIDE for r in on_duc.rows)
    assert one_hot.command.endswith("--items contributors --negatives within-pyramid")
    assert str(duc_folder) in one_hot.command
    counts = {c.what: c.ours for c in on_duc.counts}
    assert counts["positive pairs (DUC 2005-2007)"] == "12 (contributors, within-pyramid)"
    assert counts["pyramid files read (DUC 2005-2007)"] == "2 files (DUC 2006: 2)"
    # One year given: each finding's test says it decides on that year alone.
    for finding in on_duc.findings:
        assert "(10000 swaps), DUC 2006 alone" in finding.decision.evidence
    assert counts["binary positive share, negatives across-pyramids"].startswith(
        "32.4% (12 of 37; items contributors)"
    )
    assert f"data: {duc_folder}" in header(on_duc)
    on_sample = run_job(run_reproduction(baumel.PAPER, data=shared_data / "pyramid-sample"))
    assert {r.mark for r in on_sample.rows} == {"needs"}


def test_cli_takes_the_data_and_the_reading(duc_folder, tmp_path, capsys):
    from sentspace.app.cli import main

    assert (
        main(
            [
                "reproduce",
                "baumel",
                "--data",
                str(duc_folder),
                "--negatives",
                "no-overlap-filter",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert f"data: {duc_folder}" in out and "options: negatives no-overlap-filter" in out
    assert "same setting  not comparable (see notes)" in out
    assert "One-Hot / Binary Test (F-measure) not comparable (the binary pairs" in out
    assert "NO DIFFERENCE AT THIS SIZE" in out
    assert "binary positive share, negatives no-overlap-filter" in out
    # Papers that read no pyramids refuse the options; a folder without .pyr files too.
    assert main(["reproduce", "white2015", "--data", str(duc_folder)]) == 2
    assert main(["reproduce", "baumel", "--data", str(tmp_path)]) == 2
    assert "not a folder of DUC .pyr files" in capsys.readouterr().err


def test_a_claim_on_several_years_is_decided_on_all_of_them(shared_data, tmp_path):
    """A folder holding DUC 2006 and 2007 pyramids (the sample's, renamed as each year's
    topics): each finding is one paired permutation test over every pair or question of
    both years, stratified by year, naming each year's difference."""
    sample = shared_data / "pyramid-sample" / "T0001.pyr"
    for name in ("D0601A.pyr", "D0602B.pyr", "D0701A.pyr"):
        shutil.copy(sample, tmp_path / name)
    # A 2007 file that does not parse is skipped, and the count says so.
    (tmp_path / "D0702B.pyr").write_text(sample.read_text()[:2000], encoding="utf-8")
    report = run_job(run_reproduction(baumel.PAPER, data=tmp_path))
    counts = {c.what: c.ours for c in report.counts}
    assert counts["pyramid files read (DUC 2005-2007)"] == (
        "3 files (DUC 2006: 2, DUC 2007: 1; skipped 1 of 4 files)"
    )
    ranking = report.findings[1].decision
    # 12 questions a pyramid: 24 of 2006 and 12 of 2007 in one test, weighted by items.
    assert "within each of 2 strata, weighted by their items (10000 swaps): DUC 2006 " in (
        ranking.evidence
    )
    assert "(24 items), DUC 2007 " in ranking.evidence and "(12 items)" in ranking.evidence
    assert "36 items" in ranking.evidence
    # For a mean the stratified difference is the pooled one, the rows' values apart.
    w2v = row(report, "table1", baumel.W2V, SUCCESS).value
    one_hot = row(report, "table1", "One-Hot", SUCCESS).value
    assert ranking.effect == pytest.approx(w2v - one_hot, abs=1e-12)
    binary = report.findings[0].decision
    assert "DUC 2006 " in binary.evidence and "DUC 2007 " in binary.evidence
