"""Review in batches: the suspicious-annotation lists of one corpus split among N people,
each batch a small workspace they open in sentspace, their decisions brought back.

:func:`split_batches` deals each list's items (rows sharing an item key, such as a
sentence in two groups, stay together) round-robin in rank order, one list after the
other, so every batch holds about the same share of each kind of list (stratified by
list type) and of the most and least suspicious rows; with ``copies`` above 1 each item
goes to that many people (a double review, for agreement). :func:`export_batches` writes
one folder per batch:

- ``batch-N.sentspace``: a workspace holding the corpus and the batch's rows as its
  review lists, with its own edit journal beside it (``batch-N.<fingerprint>.edits.jsonl``,
  started with the team's journal so the reviewer sees the corpus the lists were made on);
- ``batch.json``: who the batch is for and its items, by list.

and ``batches.json`` above them. :func:`batch_journals` finds the journals of such
folders (or takes journals as they are), and :func:`bring_back` merges them into an open
:class:`~sentspace.app.annotations.session.AnnotationSession`'s journal, so their conflicts are listed
for resolution there. Qt-free, for the CLI (``sentspace annotations batches``) and the
Review panel.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sentspace.app.analysis.suspicious import ReviewList
from sentspace.app.annotations.journal import (
    Record,
    journal_path,
    merge_journals,
    read_journal,
    write_journal,
)
from sentspace.app.annotations.session import AnnotationSession, Changes
from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.base.errors import InputError
from sentspace.app.base.schema import SchemaError, check_fields, describe
from sentspace.app.corpora.model import Corpus
from sentspace.app.workspace.codec import encode_state
from sentspace.app.workspace.format import corpus_entry, load_workspace, save_workspace
from sentspace.app.workspace.model import EXTENSION, Workspace
from sentspace.app.workspace.paths import workspace_journal

FORMAT = "sentspace-review-batch"
VERSION = 1
#: In each batch's folder: who it is for, its items, its workspace and journal.
MANIFEST = "batch.json"
#: In the folder of all batches: the batches, in order.
INDEX = "batches.json"


@dataclass(frozen=True)
class Batch:
    """One person's share: ``rows`` of each list (by kind), in list order."""

    number: int
    person: str
    rows: dict[str, tuple[int, ...]]

    @property
    def size(self) -> int:
        return sum(map(len, self.rows.values()))

    def counts(self) -> dict[str, int]:
        return {kind: len(rows) for kind, rows in self.rows.items()}

    def lists(self, lists: Mapping[str, ReviewList]) -> dict[str, ReviewList]:
        """The batch's rows of each list, as lists of their own."""
        return {kind: lists[kind].take(rows) for kind, rows in self.rows.items() if rows}

    def keys(self, lists: Mapping[str, ReviewList]) -> dict[str, list[str]]:
        """The item keys of the batch, by kind, each once."""
        return {
            kind: list(dict.fromkeys(lists[kind].key(row) for row in rows))
            for kind, rows in self.rows.items()
            if rows
        }

    def describe(self) -> str:
        counts = ", ".join(f"{count} {kind}" for kind, count in self.counts().items() if count)
        return f"batch {self.number} for {self.person}: {self.size} rows ({counts or 'none'})"


def split_batches(
    lists: Mapping[str, ReviewList],
    people: int,
    *,
    copies: int = 1,
    top: int | None = None,
    names: Sequence[str] = (),
) -> list[Batch]:
    """Split ``lists`` (kind -> table, as ``find_suspicious`` gives) into ``people``
    batches, stratified by list: each list's first ``top`` rows (all by default) are
    dealt item by item, in rank order, to the next batch, continuing from list to list,
    so batch sizes per list differ by one at most. Each item goes to ``copies``
    consecutive batches. ``names``: one per person (default "person N").

    Raises
    ------
    InputError
        Fewer than one person, ``copies`` not within 1..``people``, ``top`` below 1, or
        as many names as people not given.
    """
    if people < 1:
        raise InputError(f"split among one person or more, not {people}")
    if not 1 <= copies <= people:
        raise InputError(f"each item to 1 to {people} people, not {copies}")
    if top is not None and top < 1:
        raise InputError(f"take one row or more of each list, not {top}")
    names = [name.strip() for name in names]
    if names and (len(names) != people or not all(names)):
        raise InputError(f"give {people} names (one per person), not {len(names)}")
    dealt: list[dict[str, list[int]]] = [{kind: [] for kind in lists} for _ in range(people)]
    turn = 0
    for kind, items in lists.items():
        rows = range(len(items) if top is None else min(top, len(items)))
        by_item: dict[str, list[int]] = {}
        for row in rows:
            by_item.setdefault(items.key(row), []).append(row)
        for item_rows in by_item.values():
            for copy in range(copies):
                dealt[(turn + copy) % people][kind] += item_rows
            turn = (turn + 1) % people
    return [
        Batch(
            number + 1,
            names[number] if names else f"person {number + 1}",
            {kind: tuple(sorted(rows)) for kind, rows in batch.items()},
        )
        for number, batch in enumerate(dealt)
    ]


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower()


def batch_folder(batch: Batch, named: bool) -> str:
    """The folder name of ``batch``: ``batch-N``, with the person's name when given."""
    slug = _slug(batch.person) if named else ""
    return f"batch-{batch.number}" + (f"-{slug}" if slug else "")


def export_batches(
    spec: str,
    original: Corpus,
    lists: Mapping[str, ReviewList],
    batches: Sequence[Batch],
    folder: str | Path,
    *,
    records: Iterable[Record] = (),
    named: bool = False,
) -> list[Path]:
    """Write one folder per batch into ``folder``: a workspace (corpus ``original``
    opened from ``spec``, the batch's rows as its review lists), its journal holding
    ``records`` (the team's journal so far: the lists were made on the corpus they
    give), and ``batch.json``; then ``batches.json``. Returns the workspaces.

    Raises
    ------
    InputError
        ``folder`` holds batches already (a reviewer's journal would be overwritten).
    """

    folder = Path(folder)
    if (folder / INDEX).exists() or any(
        (folder / batch_folder(batch, named)).exists() for batch in batches
    ):
        raise InputError("holds review batches already; choose an empty folder", folder)
    records = list(records)
    written, index = [], []
    for batch in batches:
        name = batch_folder(batch, named)
        workspace = folder / name / f"batch-{batch.number}.sentspace"
        journal = journal_path(original, workspace)
        write_journal(journal, original.fingerprint, records)
        state = {
            "runs": [],
            "shown": None,
            "encoder": None,
            "review_lists": encode_state(batch.lists(lists)),
            "view": {},
            "selection": {},
            "regions": None,
            "explanation": None,
            "agreements": [],
        }
        save_workspace(
            Workspace(corpora=(corpus_entry(spec, original, journal, state=state),)),
            workspace,
            remember=False,
        )
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "batch": batch.number,
            "of": len(batches),
            "person": batch.person,
            "corpus": spec,
            "fingerprint": original.fingerprint,
            "workspace": workspace.name,
            "journal": journal.name,
            "counts": batch.counts(),
            "items": batch.keys(lists),
        }
        _write_json(folder / name / MANIFEST, manifest)
        index.append({"folder": name, "person": batch.person, "counts": batch.counts()})
        written.append(workspace)
    _write_json(
        folder / INDEX,
        {
            "format": FORMAT,
            "version": VERSION,
            "corpus": spec,
            "fingerprint": original.fingerprint,
            "batches": index,
        },
    )
    return written


def _write_json(path: Path, data: dict[str, Any]) -> None:
    write_text_atomic(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


#: What ``batch.json`` and ``batches.json`` hold: field -> (type, required).
MANIFEST_FIELDS: dict[str, tuple[Any, bool]] = {
    "format": (str, True),
    "version": (int, True),
    "batch": (int, True),
    "of": (int, True),
    "person": (str, True),
    "corpus": (str, True),
    "fingerprint": (str, True),
    "workspace": (str, True),
    "journal": (str, True),
    "counts": (dict[str, int], True),
    "items": (dict[str, list[str]], True),
}
INDEX_FIELDS: dict[str, tuple[Any, bool]] = {
    "format": (str, True),
    "version": (int, True),
    "corpus": (str, True),
    "fingerprint": (str, True),
    "batches": (list, True),
}
INDEX_ENTRY_FIELDS: dict[str, tuple[Any, bool]] = {
    "folder": (str, True),
    "person": (str, True),
    "counts": (dict[str, int], True),
}


def to_manifest(path: Path, name: str) -> dict[str, Any]:
    """``name`` (:data:`MANIFEST` or :data:`INDEX`) in the folder ``path``, checked
    against its fields; the file names in it must be names in that folder."""
    try:
        data = json.loads((path / name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"cannot read {name}: {error}", path) from None
    except RecursionError:
        raise InputError(
            f"{name} is not a sentspace review batch (nested too deep)", path
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{name} is not a sentspace review batch", path)
    try:
        check_fields(data, MANIFEST_FIELDS if name == MANIFEST else INDEX_FIELDS)
        if data["version"] > VERSION:
            raise SchemaError(
                "version", f"{data['version']} is newer than this version reads ({VERSION})"
            )
        for number, entry in enumerate(data.get("batches", [])):
            check_fields(entry, INDEX_ENTRY_FIELDS, f"batches[{number}]")
        names = (
            [("journal", data["journal"]), ("workspace", data["workspace"])]
            if name == MANIFEST
            else [
                (f"batches[{number}].folder", entry["folder"])
                for number, entry in enumerate(data["batches"])
            ]
        )
        for where, file_name in names:
            if file_name in ("", ".", "..") or Path(file_name).name != file_name:
                raise SchemaError(where, f"{describe(file_name)} is not a name in this folder")
    except SchemaError as error:
        raise InputError(str(error), path / name) from None
    return data


def batch_journals(paths: Iterable[str | Path]) -> list[Path]:
    """The edit journals of ``paths``: a folder of batches (``batches.json``: each
    batch's), one batch's folder (``batch.json``), a workspace (``.sentspace``: its
    corpora's), or a journal file as it is.

    Raises
    ------
    InputError
        A folder that is not a batch, a workspace without a journal, a missing path.
    """

    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir() and (path / INDEX).is_file():
            found += batch_journals(
                path / entry["folder"] for entry in to_manifest(path, INDEX).get("batches", [])
            )
        elif path.is_dir():
            found.append(path / to_manifest(path, MANIFEST)["journal"])
        elif path.suffix == EXTENSION:
            workspace = load_workspace(path)
            journals = [
                workspace_journal(workspace, n, path) for n in range(len(workspace.corpora))
            ]
            if not any(journals):
                raise InputError("the workspace has no edit journal", path)
            found += [journal for journal in journals if journal is not None]
        elif os.path.lexists(path):  # what is not a journal file, reading it says
            found.append(path)
        else:
            raise InputError("no such journal, batch folder or workspace", path)
    return list(dict.fromkeys(found))


def gather(
    paths: Iterable[str | Path], corpus_fingerprint: str | None = None
) -> tuple[str, list[Record]]:
    """The records of every journal :func:`batch_journals` finds in ``paths``, merged
    (:func:`~sentspace.app.annotations.journal.merge_journals`)."""
    return merge_journals(batch_journals(paths), corpus_fingerprint)


def bring_back(session: AnnotationSession, paths: Iterable[str | Path]) -> Changes:
    """Append to ``session``'s journal what the batches (or journals) at ``paths`` hold
    that it does not, merged by time; what changed, with its authors and the new
    conflicts, which the session then lists for resolution."""
    _, records = gather(paths, session.original.fingerprint)
    return session.take_in(records)


def journal_records(path: str | Path | None, corpus: Corpus) -> list[Record]:
    """The records of the journal at ``path`` (none when there is none)."""
    if path is None or not Path(path).is_file():
        return []
    return read_journal(path, corpus.fingerprint)[1]
