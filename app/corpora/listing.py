"""What the window's Selected sentences panel and status bar say about sentences:
Qt-free, so the words are tested without a window. Each corpus is described with its
own noun for a group ("paraphrase group", "SCU", "seed group", "class")."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sentspace.app.corpora.model import Corpus

#: How Selected sentences says where a selection came from.
SOURCES = {
    "chart": "behind the chart element; ",
    "review": "of the review row; ",
    "costra": "of the Costra comparison; ",
    "search": "matching the search; ",
    "cluster": "of the clicked region; ",
}


@dataclass(frozen=True)
class Row:
    """One line of Selected sentences: its text, the sentence it names, whether it is
    the clicked one (shown bold), and a note for its tooltip."""

    text: str
    sentence: int
    focus: bool = False
    #: Said under the text in its tooltip (what its mark means).
    note: str = ""


def marks_legend(kind: str, classification) -> str:
    """What the ✓ and ✗ before a classified group's members mean (a line in a heading
    took the Inspector, which shares the column at 1280x800, a row of its room)."""
    return (
        f"✓ classified into this {kind}, ✗ into another, by "
        f"{classification.provenance.encoder_name}"
    )


def first_groups(corpus: Corpus) -> np.ndarray:
    """Each sentence's first group, -1 for none (every sentence when ungrouped)."""
    if corpus.groups is None:
        return np.full(len(corpus), -1, dtype=np.int64)
    return corpus.groups.first_group(len(corpus))


def describe_sentence(corpus: Corpus, index: int, groups: np.ndarray, faithfulness=None) -> str:
    """The sentence, then its id, group and (when measured) faithfulness."""
    group = int(groups[index])
    where = (
        f"{corpus.checked_groups.kind} {corpus.checked_groups.names[group]}"
        if group >= 0
        else "no group"
    )
    if faithfulness is not None:
        overlap = faithfulness.overlap[index]
        where += (
            ", faithfulness not measured"
            if np.isnan(overlap)
            else f", faithfulness {faithfulness.share(overlap)}"
        )
    return f"{corpus.texts[index]}\n[{corpus.ids[index]}, {where}]"


def prompt(corpus: Corpus | None) -> str:
    """What Selected sentences says before anything is selected."""
    if corpus is None or corpus.groups is None:
        return "Click a point to see its sentence; Shift+drag selects a rectangle."
    return f"Click a point to list its {corpus.groups.kind}."


def selection_caption(corpus: Corpus, count: int, source: str) -> str:
    """The heading of a list of ``count`` sentences selected from ``source``."""
    click = (
        f"click one to see its {corpus.groups.kind}"
        if corpus.groups is not None
        else "click one to inspect it"
    )
    return (
        f"{count:,} selected sentence{'s' if count != 1 else ''} "
        f"({SOURCES.get(source, '')}Shift+drag: rectangle, Ctrl+drag: lasso; {click})"
    )


def group_rows(
    corpus: Corpus, index: int, groups: np.ndarray, classification=None
) -> tuple[str, list[Row]]:
    """The heading and rows listing the group of sentence ``index``; with a
    classification result, each member is marked as classified right or wrong, and its
    note says what the marks mean."""
    group = int(groups[index])
    grouping = corpus.checked_groups
    members = grouping.members(group)
    names = grouping.names
    predicted = {}
    if classification is not None:
        predicted = dict(
            zip(classification.sentence_index.tolist(), classification.predicted_group.tolist())
        )
    rows = []
    for member in members:
        text = corpus.texts[member]
        if member in predicted:
            guess = predicted[member]
            text = (
                "✓ " + text
                if names[guess] == names[group]
                else f"✗ {text}\n    (classified as {grouping.kind} {names[guess]})"
            )
        rows.append(
            Row(
                text,
                int(member),
                int(member) == index,
                marks_legend(grouping.kind, classification) if predicted else "",
            )
        )
    heading = (
        f"{grouping.kind[:1].upper()}{grouping.kind[1:]} {names[group]}: {len(members)} sentences"
    )
    return heading, rows


def classified_rows(
    corpus: Corpus, sentences, groups: np.ndarray, classification, faithfulness=None
) -> list[Row]:
    """Rows of ``sentences`` (a classification chart's bar), each marked as
    ``classification`` classified it: ✓ into its own group, ✗ into another (named); a
    sentence it did not evaluate is left unmarked."""
    kind = corpus.checked_groups.kind
    names = classification.group_names
    evaluated = {int(s): k for k, s in enumerate(classification.sentence_index.tolist())}
    note = (
        f"✓ classified into its own {kind}, ✗ into another, by "
        f"{classification.provenance.encoder_name}"
    )
    rows = []
    for sentence in (int(s) for s in sentences):
        text = describe_sentence(corpus, sentence, groups, faithfulness)
        k = evaluated.get(sentence)
        if k is None:
            rows.append(Row(text, sentence))
            continue
        guess = int(classification.predicted_group[k])
        text = (
            "✓ " + text
            if guess == int(classification.true_group[k])
            else f"✗ {text}\n    (classified as {kind} {names[guess]})"
        )
        rows.append(Row(text, sentence, note=note))
    return rows


def misclassified_rows(corpus: Corpus, classification) -> tuple[str, list[Row]]:
    """The heading and rows listing the misclassified sentences with their true and
    predicted groups."""
    kind = corpus.checked_groups.kind
    wrong = classification.predicted_group != classification.true_group
    names = classification.group_names
    rows = [
        Row(
            f"✗ {corpus.texts[sentence]}\n    ({kind} {names[true]}, classified as {names[guess]})",
            int(sentence),
        )
        for sentence, true, guess in zip(
            classification.sentence_index[wrong],
            classification.true_group[wrong],
            classification.predicted_group[wrong],
        )
    ]
    return f"{len(rows)} misclassified sentences (click one to see its {kind})", rows
