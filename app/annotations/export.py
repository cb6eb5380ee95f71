"""Writing a corrected corpus and its change log, so corrections can be shared.

A paraphrase-grouped corpus is written back in its own format (``phrases.txt`` +
``phrase_groups.csv``, readable by :func:`sentspace.app.corpora.grouped.load_grouped`; unedited,
the two files come out byte for byte as read). Every corpus can also be written as JSON
(sentences, groups, pairs in one file) and as CSV tables. Every file is written
atomically (:mod:`sentspace.app.base.atomic`): a write that fails (a full disk) leaves the
file of that name as it was. :func:`export_all` raises :class:`ExportError` naming the
file it could not write, why, and the files it wrote before.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sentspace.app.annotations.edits import Edit
from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.base.errors import InputError
from sentspace.app.base.tables import csv_text
from sentspace.app.corpora import grouped
from sentspace.app.corpora.model import Corpus, PairTable

FORMATS = ("original", "json", "csv")


class ExportError(InputError):
    """An export that stopped part way: ``path`` could not be written (``reason``);
    ``written`` are the files written whole before it. The file at ``path`` and those
    after it were not touched."""

    def __init__(self, reason: str, path: str | Path, written: Sequence[Path] = ()):
        self.reason, self.written = reason, list(written)
        done = (
            f"; written before it stopped: {', '.join(p.name for p in self.written)}"
            if self.written
            else "; nothing was written"
        )
        super().__init__(f"not exported: {reason}{done}", path)


def _write_text(path: Path, text: str, written: list[Path] | None) -> Path:
    """:func:`write_text_atomic`, adding ``path`` to ``written`` once it is whole; an
    OSError names ``path`` (not the temporary file beside it)."""
    try:
        write_text_atomic(path, text)
    except OSError as error:
        raise OSError(error.errno, error.strerror or str(error), str(path)) from error
    if written is not None:
        written.append(path)
    return path


def has_grouped_format(corpus: Corpus) -> bool:
    """Whether ``corpus`` fits ``phrases.txt`` + ``phrase_groups.csv``: one group per
    sentence at most, groups named by non-negative integers."""
    groups = corpus.groups
    return (
        groups is not None
        and len(set(groups.sentence_index.tolist())) == len(groups.sentence_index)
        and all(name.isdigit() for name in groups.names)
    )


def write_grouped(
    corpus: Corpus, folder: str | Path, written: list[Path] | None = None
) -> list[Path]:
    """Write ``phrases.txt`` and ``phrase_groups.csv`` (rows in sentence order)."""
    if not has_grouped_format(corpus):
        raise ValueError(f"{corpus.name} does not fit the grouped format")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    groups = corpus.checked_groups
    order = groups.sentence_index.argsort(kind="stable")
    rows = "".join(
        f"{s},{groups.names[g]}\n"
        for s, g in zip(groups.sentence_index[order].tolist(), groups.group_index[order].tolist())
    )
    phrases, table = folder / grouped.PHRASES, folder / grouped.GROUPS
    _write_text(phrases, "".join(text + "\n" for text in corpus.texts), written)
    _write_text(table, f"{grouped.HEADER}\n{rows}", written)
    return [phrases, table]


def _value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def corpus_dict(corpus: Corpus) -> dict[str, Any]:
    """The corpus as plain JSON data: sentences (id, text, metadata), groups (kind and
    memberships by sentence id and group name) and pairs (by sentence id)."""
    ids = corpus.ids
    data: dict[str, Any] = {
        "name": corpus.name,
        "language": corpus.language,
        "fingerprint": corpus.fingerprint,
        "sentences": [
            {
                "id": id_,
                "text": text,
                **{column: values[i] for column, values in corpus.metadata.items()},
            }
            for i, (id_, text) in enumerate(zip(ids, corpus.texts))
        ],
    }
    if corpus.groups is not None:
        groups = corpus.groups
        data["groups"] = {
            "kind": groups.kind,
            "names": list(groups.names),
            "members": [
                [ids[s], groups.names[g]]
                for s, g in zip(groups.sentence_index.tolist(), groups.group_index.tolist())
            ],
        }
    if corpus.pairs is not None:
        pairs = corpus.pairs
        data["pairs"] = [
            {
                **({"id": pairs.ids[p]} if pairs.ids else {}),
                "first": ids[a],
                "second": ids[b],
                "label": _label_value(pairs, label),
                "score": _value(score),
                "split": split,
                "subset": subset,
            }
            for p, (a, b, label, score, split, subset) in _pair_rows(pairs)
        ]
    return data


def _pair_rows(pairs: PairTable) -> Iterator[tuple[int, tuple[Any, ...]]]:
    """Each pair's position with its (first, second, label, score, split, subset)."""
    return enumerate(
        zip(
            pairs.first.tolist(),
            pairs.second.tolist(),
            pairs.label.tolist(),
            pairs.score.tolist(),
            pairs.split,
            pairs.subset,
        )
    )


def _label_value(pairs: PairTable, label: int) -> str | int | None:
    """A label as its dataset writes it: the name when labels are named (SICK's
    NEUTRAL), else the paraphrase judgement 1 / 0; None when unlabelled."""
    if label < 0:
        return None
    return pairs.label_text(label) if pairs.label_names else label


def write_json(corpus: Corpus, path: str | Path, written: list[Path] | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return _write_text(
        path,
        json.dumps(corpus_dict(corpus), ensure_ascii=False, indent=1, default=str) + "\n",
        written,
    )


def write_csv(corpus: Corpus, folder: str | Path, written: list[Path] | None = None) -> list[Path]:
    """``sentences.csv`` (id, text, groups joined by "|"), and ``pairs.csv`` when the
    corpus has pairs."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ids, groups = corpus.ids, corpus.groups
    names_of: list[list[str]] = [[] for _ in corpus.texts]
    if groups is not None:
        for s, g in zip(groups.sentence_index.tolist(), groups.group_index.tolist()):
            names_of[s].append(groups.names[g])
    sentences = folder / "sentences.csv"
    files = [
        _write_text(
            sentences,
            csv_text(
                ("id", "text", groups.kind if groups is not None else "group"),
                [
                    (id_, text, "|".join(names))
                    for id_, text, names in zip(ids, corpus.texts, names_of)
                ],
            ),
            written,
        )
    ]
    if corpus.pairs is not None:
        pairs = corpus.pairs
        # The pair column holds the dataset's pair ids (SICK's pair_ID); datasets without
        # them (MSRP) name each pair by its two sentence ids alone.
        id_column = ("pair",) if pairs.ids else ()
        files.append(
            _write_text(
                folder / "pairs.csv",
                csv_text(
                    (*id_column, "first", "second", "label", "score", "split", "subset"),
                    [
                        (
                            *((pairs.ids[p],) if pairs.ids else ()),
                            ids[a],
                            ids[b],
                            _label_value(pairs, label),
                            "" if score != score else score,
                            split,
                            subset,
                        )
                        for p, (a, b, label, score, split, subset) in _pair_rows(pairs)
                    ],
                ),
                written,
            )
        )
    return files


def export_corpus(
    corpus: Corpus,
    folder: str | Path,
    formats: Sequence[str] = FORMATS,
    written: list[Path] | None = None,
) -> list[Path]:
    """Write ``corpus`` into ``folder`` in each of ``formats``: "original" (the grouped
    format, when the corpus fits it), "json" (``corpus.json``), "csv". Returns the
    files written (each also added to ``written`` once whole)."""
    folder = Path(folder)
    files: list[Path] = []
    if "original" in formats and has_grouped_format(corpus):
        files += write_grouped(corpus, folder, written)
    if "json" in formats:
        files.append(write_json(corpus, folder / "corpus.json", written))
    if "csv" in formats:
        files += write_csv(corpus, folder, written)
    return files


def change_log(edits: Sequence[Edit]) -> list[dict[str, str]]:
    """One row per edit: number, time, author, op, what, reason."""
    return [
        {
            "number": str(number),
            "time": edit.time,
            "author": edit.author,
            "op": edit.op,
            "what": edit.describe(),
            "reason": edit.reason,
        }
        for number, edit in enumerate(edits, start=1)
    ]


def export_change_log(
    edits: Sequence[Edit], folder: str | Path, written: list[Path] | None = None
) -> list[Path]:
    """Write ``changes.csv`` (the :func:`change_log` rows) and ``changes.json`` (the
    rows, each with its full edit record under "edit")."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rows = change_log(edits)
    csv_path, json_path = folder / "changes.csv", folder / "changes.json"
    header = ("number", "time", "author", "op", "what", "reason")
    _write_text(csv_path, csv_text(header, [[row[h] for h in header] for row in rows]), written)
    _write_text(
        json_path,
        json.dumps(
            [{**row, "edit": edit.to_dict()} for row, edit in zip(rows, edits)],
            ensure_ascii=False,
            indent=1,
        )
        + "\n",
        written,
    )
    return [csv_path, json_path]


def export_all(
    corpus: Corpus, edits: Sequence[Edit], folder: str | Path, formats: Sequence[str] = FORMATS
) -> list[Path]:
    """:func:`export_corpus` and :func:`export_change_log` into ``folder``; the files
    written.

    Raises
    ------
    ExportError
        A file could not be written (a full disk, a folder that cannot be made): it
        names the file, the reason and the files written whole before it.
    """
    written: list[Path] = []
    folder = Path(folder)
    try:
        export_corpus(corpus, folder, formats, written)
        export_change_log(edits, folder, written)
    except OSError as error:
        raise ExportError(error.strerror or str(error), error.filename or folder, written) from None
    return written
