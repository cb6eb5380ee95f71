"""In-memory data handed to a window in another process (``sentspace.show``).

A folder holds ``corpus.json`` (the sentences, their ids, and groups as membership
lists) and, when the caller has them, ``embeddings.npz`` with exactly one float32
array, one row per sentence: :class:`sentspace.models.precomputed.Precomputed` reads it
as it reads any user's file, with ``allow_pickle=False``. Nothing is pickled, so
reading the folder runs no code.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.corpora.model import Corpus, Grouping
from sentspace.models.base import Embeddings

FORMAT = "sentspace-show/1"
CORPUS_FILE = "corpus.json"
EMBEDDINGS_FILE = "embeddings.npz"


def label_groups(labels: Sequence[Any]) -> Grouping:
    """One group per distinct label (kind "class", named by the label as text, in order
    of first appearance); a sentence labelled None is in none."""
    if any(isinstance(label, float) and label != label for label in labels):
        raise ValueError("labels hold NaN: use None for a sentence without a label")
    names: dict[str, int] = {}
    members = [
        (row, names.setdefault(str(label), len(names)))
        for row, label in enumerate(labels)
        if label is not None
    ]
    rows, groups = zip(*members) if members else ((), ())
    return Grouping(
        "class", np.array(rows, dtype=np.int64), np.array(groups, dtype=np.int64), tuple(names)
    )


def write_show_data(
    folder: str | Path,
    corpus: Corpus,
    embeddings: Embeddings | None = None,
    labels: Sequence[Any] | None = None,
    encoder: str = "bow",
) -> None:
    """Write ``corpus`` (its groups replaced by ``labels`` when given, one per sentence)
    and ``embeddings`` into ``folder``; ``encoder`` maps the corpus when there are none."""
    folder = Path(folder)
    if labels is not None and len(labels) != len(corpus):
        raise ValueError(f"{len(labels)} labels for {len(corpus)} sentences")
    if embeddings is not None:
        if embeddings.ndim != 2 or embeddings.shape[0] != len(corpus):
            raise ValueError(
                f"embeddings of shape {embeddings.shape} for {len(corpus)} "
                "sentences: give one row per sentence"
            )
        dense = (
            sp.csr_array(embeddings).toarray()
            if sp.issparse(embeddings)
            else np.asarray(embeddings)
        )
        np.savez(folder / EMBEDDINGS_FILE, embeddings=dense.astype(np.float32, copy=False))
    groups = label_groups(labels) if labels is not None else corpus.groups
    write_text_atomic(
        folder / CORPUS_FILE,
        json.dumps(
            {
                "format": FORMAT,
                "name": corpus.name,
                "language": corpus.language,
                "texts": list(corpus.texts),
                "ids": list(corpus.ids),
                "encoder": encoder,
                "groups": None
                if groups is None
                else {
                    "kind": groups.kind,
                    "names": list(groups.names),
                    "sentence_index": groups.sentence_index.tolist(),
                    "group_index": groups.group_index.tolist(),
                },
            },
            ensure_ascii=False,
        ),
    )


def read_show_data(folder: str | Path) -> tuple[Corpus, Path | None, str]:
    """(the corpus, the embeddings file or None, the encoder spec) ``folder`` holds."""
    folder = Path(folder)
    data = json.loads((folder / CORPUS_FILE).read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{folder / CORPUS_FILE} is not {FORMAT} data")
    groups = data["groups"]
    corpus = Corpus(
        name=data["name"],
        texts=tuple(data["texts"]),
        ids=tuple(data["ids"]),
        language=data["language"],
        groups=None
        if groups is None
        else Grouping(
            groups["kind"],
            np.array(groups["sentence_index"], dtype=np.int64),
            np.array(groups["group_index"], dtype=np.int64),
            tuple(groups["names"]),
        ),
    )
    embeddings = folder / EMBEDDINGS_FILE
    return corpus, embeddings if embeddings.is_file() else None, data["encoder"]
