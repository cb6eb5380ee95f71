import shutil
from functools import partial

import numpy as np
import pytest

from sentspace.app.base.errors import EvaluationError
from sentspace.app.corpora.costra import is_costra
from sentspace.app.corpora.model import Corpus, Grouping
from sentspace.app.corpora.pyramid import (
    FUNCTION_WORDS,
    ITEMS,
    PRONOUNS,
    WORD,
    is_pyramid,
    load_pyramid,
    pyramid_tests,
)
from tests.corpora.conftest import refused


@pytest.fixture(scope="module")
def sample(shared_data):
    return shared_data / "pyramid-sample" / "T0001.pyr"


@pytest.fixture(scope="module")
def pyramid(sample):
    return load_pyramid(sample)


def words(text):
    return set(WORD.findall(text.lower()))


def edited(tmp_path, sample, old, new, name="T0001.pyr"):
    text = sample.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


expect_error = partial(refused, load_pyramid)


def test_contributors_are_the_sentences(pyramid):
    assert pyramid.describe() == {
        "name": "T0001",
        "language": "en",
        "sentences": 14,
        "groups": 6,
        "pairs": 8,
    }
    assert pyramid.groups.kind == "SCU"
    assert pyramid.groups.names[:2] == ("T0001/1", "T0001/2")
    assert pyramid.groups.sizes.tolist() == [3, 3, 2, 2, 2, 2]
    assert pyramid.ids[:4] == ("T0001/1/1", "T0001/1/2", "T0001/1/3", "T0001/2/1")
    # Discontinuous parts are joined in text order, without the label's "...".
    assert pyramid.texts[11] == "It now offers evening hours until 10 pm from Monday to Friday"
    assert pyramid.metadata["summary"][:4] == (
        "T0001.M.100.A.A",
        "T0001.M.100.A.B",
        "T0001.M.100.A.C",
        "T0001.M.100.A.A",
    )
    assert pyramid.metadata["line"][:2] == (50, 53)
    assert pyramid.metadata["scu label"][0] == "The library reopened after a renovation"
    assert pyramid.warnings == ()


def test_constraint_funnels(pyramid):
    tests = pyramid_tests(pyramid)
    assert [(f.what, f.candidates, [n for _, n in f.removed], f.kept) for f in tests.funnels] == [
        ("contributors", 14, [0, 3], 11),
        ("positive pairs", 10, [0, 4, 0], 6),
        ("negative pairs", 81, [0, 32, 47], 2),
        ("ranking questions", 20, [0, 8, 0, 0], 12),
    ]
    rows = tests.summary()
    assert (
        "negative pairs: removed, share fewer than 4 words (counted with repetition)",
        "47",
    ) in rows
    assert ("negative pairs: kept", "2 (paper, DUC 2005-2007: 189,229)") in rows
    assert ("binary pairs: positive share", "75.0% (paper: 4.2%)") in rows
    # Stricter settings remove more, and say so.
    strict = pyramid_tests(pyramid, min_words=7, min_shared_negative=3)
    assert [f.kept for f in strict.funnels] == [8, 3, 1, 6]
    assert strict.funnels[0].removed[0] == ("fewer than 7 words", 3)


def test_binary_pairs_obey_every_constraint(pyramid):
    pairs = pyramid.pairs
    assert (pairs.label == 1).sum() == 6 and (pairs.label == 0).sum() == 2
    assert set(pairs.subset) == {"T0001"} and set(pairs.split) == {"test"}
    labels = pyramid.groups.labels(len(pyramid))
    for a, b, label in zip(pairs.first, pairs.second, pairs.label):
        wa, wb = words(pyramid.texts[a]), words(pyramid.texts[b])
        assert len(WORD.findall(pyramid.texts[a])) >= 3 and not (wa | wb) & PRONOUNS
        assert label == (labels[a] == labels[b])
        if label:
            assert (wa - FUNCTION_WORDS) != (wb - FUNCTION_WORDS)
        else:
            assert len(wa & wb) > 3
    negatives = [
        (pyramid.texts[a], pyramid.texts[b])
        for a, b in zip(pairs.first[pairs.label == 0], pairs.second[pairs.label == 0])
    ]
    assert negatives[0] == (
        "A bond approved by voters covered most of the 12 million dollar cost.",
        "The renovation cost 12 million dollars",
    )


def jaccard(a, b):
    return len(a & b) / len(a | b)


@pytest.mark.parametrize("resembling", ["answer", "question"])
def test_distractors_are_the_look_alikes_of_the_answer_or_the_question(pyramid, resembling):
    tests = pyramid_tests(pyramid, distractors=resembling)
    assert tests.n_questions == 12
    labels = pyramid.groups.labels(len(pyramid))
    assert np.all(labels[tests.question] == labels[tests.answer])
    assert np.all(labels[tests.distractors] != labels[tests.question][:, None])
    valid = [
        i
        for i, text in enumerate(pyramid.texts)
        if len(WORD.findall(text)) >= 3 and not words(text) & PRONOUNS
    ]
    for q, a, chosen, overlap in zip(
        tests.question, tests.answer, tests.distractors, tests.distractor_overlap
    ):
        target = words(pyramid.texts[a if resembling == "answer" else q])
        # Brute force: every valid sentence of another SCU, by Jaccard to the target,
        # ties broken by index.
        candidates = sorted(
            (-jaccard(target, words(pyramid.texts[c])), c)
            for c in valid
            if labels[c] not in (labels[q], labels[a])
        )
        assert chosen.tolist() == [c for _, c in candidates[:3]]
        assert overlap == pytest.approx([-j for j, _ in candidates[:3]])
    expected = {"answer": [7, 6, 12], "question": [6, 5, 8]}[resembling]
    assert tests.question[0] == 0 and tests.distractors[0].tolist() == expected
    assert dict(tests.summary())["ranking distractors"].startswith(
        f"distractors resemble the {resembling}"
    )


def test_negative_pairs_share_words_by_either_reading():
    # Two SCUs; the cross-SCU pair (0, 2) shares "the" three times and "of" once: four
    # words counted with repetition, two distinct ones.
    texts = (
        "the big cat sat by the old door of the house",
        "a large cat was sitting near an old door",
        "the small dog ran to the new car of the man",
        "a little dog was running towards a new car",
    )
    corpus = Corpus(
        name="toy",
        texts=texts,
        ids=tuple(map(str, range(4))),
        language="en",
        groups=Grouping(
            kind="SCU",
            sentence_index=np.arange(4),
            group_index=np.array([0, 0, 1, 1]),
            names=("toy/1", "toy/2"),
        ),
        metadata={"pyramid": ("toy",) * 4},
    )
    by_tokens = pyramid_tests(corpus, n_distractors=1)
    by_types = pyramid_tests(corpus, n_distractors=1, negative_overlap="types")
    negatives = lambda tests: list(
        zip(
            tests.pairs.first[tests.pairs.label == 0].tolist(),
            tests.pairs.second[tests.pairs.label == 0].tolist(),
        )
    )
    assert negatives(by_tokens) == [(0, 2)]
    assert negatives(by_types) == []
    assert by_types.funnels[2].removed[-1] == ("share fewer than 4 words (distinct words)", 4)
    assert by_tokens.parameters["negative_overlap"] == "tokens"
    with pytest.raises(EvaluationError, match="negative_overlap must be one of tokens, types"):
        pyramid_tests(corpus, negative_overlap="lemmas")


def test_folder_of_pyramids_is_one_corpus(tmp_path, sample):
    shutil.copy(sample, tmp_path / "T0001.pyr")
    shutil.copy(sample, tmp_path / "T0002.pyr")
    corpus = load_pyramid(tmp_path)
    # 16 pairs within the two pyramids, 21 negatives across them (the default reading).
    assert corpus.describe() == {
        "name": tmp_path.name,
        "language": "en",
        "sentences": 28,
        "groups": 12,
        "pairs": 37,
    }
    assert corpus.groups.names[6] == "T0002/1" and corpus.ids[14] == "T0002/1/1"
    # Positive pairs and questions never cross pyramids, nor do negatives within-pyramid.
    pyramid_of = np.asarray(corpus.metadata["pyramid"])
    positive = corpus.pairs.label == 1
    assert np.all(
        pyramid_of[corpus.pairs.first[positive]] == pyramid_of[corpus.pairs.second[positive]]
    )
    within = pyramid_tests(corpus, negatives="within-pyramid").pairs
    assert len(within) == 16
    assert np.all(pyramid_of[within.first] == pyramid_of[within.second])
    tests = pyramid_tests(corpus)
    assert tests.n_questions == 24
    assert np.all(pyramid_of[tests.distractors] == pyramid_of[tests.question][:, None])
    assert is_pyramid(tmp_path) and not is_pyramid(tmp_path / "missing")


def test_identical_contributors_are_one_sentence(tmp_path, sample):
    path = edited(
        tmp_path,
        sample,
        '  <contributor label="The project went',
        '  <contributor label="The renovation cost 12 million dollars">\n'
        '   <part label="The renovation cost 12 million dollars" start="112" '
        'end="150"/>\n  </contributor>\n  <contributor label="The project went',
    )
    corpus = load_pyramid(path)
    assert len(corpus) == 14
    assert corpus.groups.sizes.tolist() == [3, 3, 2, 2, 2, 3]
    assert corpus.groups.members(5).tolist() == [12, 6, 13]


def test_detection(sample, shared_data):
    assert is_pyramid(sample) and is_pyramid(sample.parent)
    assert not is_pyramid(shared_data / "costra" / "data.tsv")
    assert not is_costra(sample)


def test_malformed_xml_names_file_and_line(tmp_path, sample):
    lines = sample.read_text(encoding="utf-8").split("\n")
    path = tmp_path / "cut.pyr"
    path.write_text("\n".join(lines[:60]), encoding="utf-8")
    error = expect_error(path, "malformed XML", "cut.pyr")
    assert error.line is not None and error.line >= 60
    error = expect_error(
        edited(tmp_path, sample, '<scu uid="2" label=', '<scu uid="2" label'), "malformed XML"
    )
    assert error.line == 60


def test_structural_errors(tmp_path, sample):
    expect_error(
        edited(tmp_path, sample, 'start="152" end="183"', 'end="183"'),
        "<part> lacks the attribute 'start'",
    )
    expect_error(edited(tmp_path, sample, 'start="152"', 'start="x"'), "offsets must be integers")
    expect_error(
        edited(tmp_path, sample, '<scu uid="2"', '<scu uid="1"'), "SCU uid '1' is used twice"
    )
    expect_error(
        edited(
            tmp_path, sample, "<!ELEMENT part EMPTY>", '<!ELEMENT part EMPTY>\n <!ENTITY big "x">'
        ),
        "entity declaration",
    )
    not_pyramid = tmp_path / "other.pyr"
    not_pyramid.write_text("<summary><line>x</line></summary>", encoding="utf-8")
    expect_error(not_pyramid, "the root element is <summary>")
    empty = tmp_path / "empty.pyr"
    empty.write_text("  \n", encoding="utf-8")
    expect_error(empty, "file is empty")
    folder = tmp_path / "none"
    folder.mkdir()
    expect_error(folder, "no .pyr files")


def test_a_malformed_part_is_skipped_and_named(tmp_path, sample):
    """A part whose start lies after its end (DUC 2007's update pyramids have one, 368 >
    367) or outside the text is skipped with its file, line and problem; its contributor
    goes when no part is left, the rest of the pyramid loads."""
    path = edited(tmp_path, sample, 'start="843" end="903"', 'start="904" end="903"')
    corpus = load_pyramid(path)
    assert len(corpus) == 13 and "The project went 3 million" not in " ".join(corpus.texts)
    assert corpus.warnings == (
        f"skipped 1 malformed <part>s in 1 of 1 files: {path}, line 101: <part> start 904 "
        "lies after its end 903; the part is skipped",
    )
    outside = load_pyramid(edited(tmp_path, sample, 'end="903"', 'end="9030"'))
    assert len(outside) == 13
    assert (
        "line 101: <part> offsets 843-9030 lie outside the text (904 characters)"
        in (outside.warnings[0])
    )


def test_a_folder_loads_every_valid_file(tmp_path, sample):
    """One malformed file no longer stops a folder: the valid ones load, and the warnings
    count the parts and files skipped, naming each with its line and problem."""
    folder = tmp_path / "duc2007"
    folder.mkdir()
    shutil.copy(sample, folder / "D0701A.pyr")
    edited(folder, sample, 'start="843" end="903"', 'start="904" end="903"', "D0702B.pyr")
    lines = sample.read_text(encoding="utf-8").split("\n")
    (folder / "D0703C.pyr").write_text("\n".join(lines[:60]), encoding="utf-8")
    corpus = load_pyramid(folder)
    assert len(corpus) == 14 + 13 and corpus.groups.n_groups == 12
    assert corpus.sources == (str(folder / "D0701A.pyr"), str(folder / "D0702B.pyr"))
    parts, files = corpus.warnings
    assert parts == (
        f"skipped 1 malformed <part>s in 1 of 2 files: {folder / 'D0702B.pyr'}, line 101: "
        "<part> start 904 lies after its end 903; the part is skipped"
    )
    assert files.startswith(f"skipped 1 of 3 files: {folder / 'D0703C.pyr'}, line ")
    assert "malformed XML" in files
    # A folder none of whose files loads says so, with the first file's problem.
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("a.pyr", "b.pyr"):
        shutil.copy(folder / "D0703C.pyr", broken / name)
    expect_error(broken, "none of the 2 .pyr files loads; the first: ", "a.pyr, line")


def test_part_labels_differing_from_the_text_warn(tmp_path, sample):
    path = edited(
        tmp_path,
        sample,
        'part label="paid mostly by a municipal bond"',
        'part label="paid mostly by the municipal bond"',
    )
    corpus = load_pyramid(path)
    assert corpus.texts[3] == "paid mostly by the municipal bond"
    assert corpus.warnings == (
        "1 <part> labels differ from the text at their offsets; the labels are used",
    )


def test_tests_need_a_pyramid_corpus(shared_data):
    from sentspace.app.corpora.grouped import load_grouped

    grouped = load_grouped(shared_data / "white2015-paraphrase-grouped" / "msrp_distribute")
    with pytest.raises(EvaluationError, match=".pyr"):
        pyramid_tests(grouped)


def test_binary_items_readings_on_the_sample(pyramid):
    """Contributors, SCU labels, or both as the binary test's items: each reading's funnel
    on the sample (the README's table); the ranking test is the same in all three."""
    kept = {}
    for items in ITEMS:
        tests = pyramid_tests(pyramid, items=items)
        funnels = {f.what: f for f in tests.funnels}
        kept[items] = (
            funnels["positive pairs"].kept,
            funnels["negative pairs"].kept,
            tests.n_questions,
        )
        first, second = tests.pairs.first, tests.pairs.second
        label_item = np.concatenate([first, second]) >= len(pyramid)
        assert label_item.any() == (items != "contributors")
        assert len(tests.label_texts) == (0 if items == "contributors" else 6)
    assert kept == {"contributors": (6, 2, 12), "labels": (8, 0, 12), "both": (14, 3, 12)}
    labels = pyramid_tests(pyramid, items="labels")
    assert labels.label_ids[0] == "T0001/1/label"
    assert labels.label_texts[0] == "The library reopened after a renovation"
    # Under "labels" a positive pair is a contributor with its own SCU's label.
    n = len(pyramid)
    positive = labels.pairs.label == 1
    assert np.all((labels.pairs.first[positive] >= n) != (labels.pairs.second[positive] >= n))
    with pytest.raises(EvaluationError, match="items must be one of"):
        pyramid_tests(pyramid, items="scus")


@pytest.mark.parametrize("negatives", ["across-pyramids", "within-pyramid", "no-overlap-filter"])
def test_negative_samplings_match_a_count_from_the_texts(tmp_path, sample, negatives):
    """Each reading's negatives, counted independently from the contributors' words: two
    valid contributors of different SCUs, in one pyramid or (across-pyramids) any two,
    sharing at least 4 words with repetition (no filter for no-overlap-filter)."""
    from collections import Counter

    shutil.copy(sample, tmp_path / "T0001.pyr")
    shutil.copy(sample, tmp_path / "T0002.pyr")
    corpus = load_pyramid(tmp_path)
    words = [Counter(WORD.findall(text.lower())) for text in corpus.texts]
    valid = [sum(w.values()) >= 3 and not set(w) & PRONOUNS for w in words]
    scus = [set() for _ in corpus.texts]
    for sentence, group in zip(corpus.groups.sentence_index, corpus.groups.group_index):
        scus[sentence].add(group)
    pyramid = corpus.metadata["pyramid"]
    expected = {
        (i, j)
        for i in range(len(words))
        for j in range(i + 1, len(words))
        if valid[i]
        and valid[j]
        and not scus[i] & scus[j]
        and (negatives == "across-pyramids" or pyramid[i] == pyramid[j])
        and (negatives == "no-overlap-filter" or sum((words[i] & words[j]).values()) >= 4)
    }
    pairs = pyramid_tests(corpus, negatives=negatives).pairs
    negative = pairs.label == 0
    assert set(zip(pairs.first[negative].tolist(), pairs.second[negative].tolist())) == expected
    # Across pyramids adds pairs that within-pyramid lacks; the unfiltered reading most.
    assert {"across-pyramids": 25, "within-pyramid": 4, "no-overlap-filter": 98}[negatives] == len(
        expected
    )
    share = dict(pyramid_tests(corpus, negatives=negatives).summary())[
        "binary pairs: positive share"
    ]
    assert share.endswith("(paper: 4.2%)")
