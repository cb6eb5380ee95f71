"""Agreement of several annotators, each with their own journal, against direct calls of
the libraries on the same decisions: MSRP grouped (groups) and SICK (labels, scores)."""

import math

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from sentspace.app.annotations.agreement import agreement
from sentspace.app.annotations.journal import merge_journals
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus

#: Which of sentences 0-19 each author moves into group "100" (the rest they mark
#: reviewed, keeping them where they are).
MOVES = {"A": {0, 4, 8, 12, 16}, "B": {0, 4, 8, 13, 17, 19}, "C": {0, 4, 9, 12}}


def group_journals(corpus, folder, authors):
    paths = []
    for author in authors:
        paths.append(folder / f"{author}.jsonl")
        session = AnnotationSession.open(corpus, paths[-1], author=author)
        for i in range(20):
            if i in MOVES[author]:
                session.move(i, "100")
            else:
                session.mark_reviewed(f"sentence:{corpus.ids[i]}")
        session.close()
    return paths


def expected_groups(corpus, author):
    labels = corpus.groups.labels(len(corpus))
    return ["100" if i in MOVES[author] else corpus.groups.names[labels[i]] for i in range(20)]


def test_two_authors_cohen_kappa_confusion_and_disagreements(corpus, tmp_path):
    records = merge_journals(group_journals(corpus, tmp_path, "AB"))[1]
    [groups] = agreement(corpus, records).kinds
    a, b = expected_groups(corpus, "A"), expected_groups(corpus, "B")
    assert groups.statistic == "Cohen's kappa" and groups.n_items == 20
    assert groups.value == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert 0 < groups.value < 1
    disagreeing = {item for item, _ in groups.disagreements()}
    assert disagreeing == {f"sentence:L{i + 1}" for i in (12, 13, 16, 17, 19)}
    assert dict(groups.disagreements())["sentence:L13"] == {"A": "100", "B": b[12]}
    categories, matrix = groups.confusion("A", "B")
    assert matrix.sum() == 20 and np.trace(matrix) == 15
    assert matrix[categories.index("100"), categories.index("100")] == 3
    # Group names in numeric order, as a reader scans the table ("9" before "100").
    numbers = [int(name) for name in categories]
    assert numbers == sorted(numbers) and categories[-1] == "100"


def test_three_authors_fleiss_kappa(corpus, tmp_path):
    records = merge_journals(group_journals(corpus, tmp_path, "ABC"))[1]
    [groups] = agreement(corpus, records).kinds
    rows = list(zip(*(expected_groups(corpus, author) for author in "ABC")))
    codes = {value: i for i, value in enumerate(sorted({v for row in rows for v in row}))}
    table, _ = aggregate_raters(np.array([[codes[v] for v in row] for row in rows]))
    assert groups.statistic == "Fleiss' kappa" and groups.n_items == 20
    assert groups.value == pytest.approx(fleiss_kappa(table), abs=1e-12)
    assert len(groups.confusion("A", "C")[0]) > 1


def test_a_lead_who_decided_one_item_leaves_the_pair_its_kappa(corpus, tmp_path):
    """A double review (A, B: 20 items), then a lead moves one sentence they disagreed
    on: the kind's Fleiss' kappa is over the one item all three decided, the pair's own
    Cohen's kappa still over the 20 both decided."""
    paths = group_journals(corpus, tmp_path, "AB")
    lead = AnnotationSession.open(corpus, tmp_path / "lead.jsonl", author="lead")
    lead.move(12, "100", reason="settled")
    lead.close()
    records = merge_journals([*paths, tmp_path / "lead.jsonl"])[1]
    [groups] = agreement(corpus, records).kinds
    assert groups.statistic == "Fleiss' kappa" and groups.n_items == 1
    a, b = expected_groups(corpus, "A"), expected_groups(corpus, "B")
    statistic, value, items = groups.pairwise("A", "B")
    assert (statistic, items) == ("Cohen's kappa", 20)
    assert value == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    assert groups.pairwise("A", "lead")[2] == 1


def test_labels_and_scores_on_sick(shared_data, tmp_path):
    sick = load_corpus(str(shared_data / "sick"))
    decided = {
        "A": ([4.5, 3.0, 1.0, 2.5, 4.0, 5.0], [2, 1, 1, 0, 2, 2]),
        "B": ([4.0, 3.5, 1.0, 3.5, 4.0, 4.5], [2, 1, 0, 0, 2, 1]),
    }
    paths = []
    for author, (scores, labels) in decided.items():
        paths.append(tmp_path / f"{author}.jsonl")
        session = AnnotationSession.open(sick, paths[-1], author=author)
        for pair, (score, label) in enumerate(zip(scores, labels)):
            session.edit_pair(pair, score=score, label=label)
        session.mark_reviewed("pair:6")  # kept as it was
        if author == "A":
            session.mark_reviewed("pair:7")  # by A only: not shared
        session.close()
    by_kind = {kind.kind: kind for kind in agreement(sick, merge_journals(paths)[1]).kinds}
    assert set(by_kind) == {"label", "score"}
    a_labels = [sick.pairs.label_text(label) for label in decided["A"][1]]
    b_labels = [sick.pairs.label_text(label) for label in decided["B"][1]]
    # Both reviewed pair 6 and kept it: one more decided item each.
    kept_label, kept_score = sick.pairs.label_text(int(sick.pairs.label[6])), sick.pairs.score[6]
    assert by_kind["label"].value == pytest.approx(
        cohen_kappa_score(a_labels + [kept_label], b_labels + [kept_label]), abs=1e-12
    )
    alpha = krippendorff.alpha(
        reliability_data=[decided["A"][0] + [kept_score], decided["B"][0] + [kept_score]],
        level_of_measurement="interval",
    )
    assert by_kind["score"].statistic == "Krippendorff's alpha (interval)"
    assert by_kind["score"].value == pytest.approx(alpha, abs=1e-12)
    assert by_kind["score"].n_items == 7 and "pair:7" not in by_kind["score"].decisions
    assert {item for item, _ in by_kind["label"].disagreements()} == {"pair:2", "pair:5"}
    assert not math.isnan(by_kind["label"].value)
