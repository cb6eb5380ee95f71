"""Every table and JSON file the app writes for use elsewhere, written atomically.

Results and tables: :func:`write_json` (a result's ``to_dict()``, the CLI's ``--json``),
:func:`write_csv` (a metric table, a change log), :func:`export_sentences` (chosen
sentences with their ids and groups).

A corpus's embeddings (or its 2D projection), :func:`export_matrix`: one row per corpus
entry, in corpus order (the file order of the source, repeated sentences included).
Formats, chosen by the target's name:

- ``*.npy``: the matrix, plus a JSON sidecar ``*.json`` saying what it is;
- ``vectors.tsv`` (or a folder): the Embedding Projector pair ``vectors.tsv`` +
  ``metadata.tsv`` (id, text, group and any metadata columns, with a header row);
- ``*.parquet``: columns id, text, vector (fixed-size list of float32; needs pyarrow).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.results import package_version
from sentspace.app.base.atomic import atomic_path, write_text_atomic
from sentspace.app.base.errors import InputError
from sentspace.app.base.tables import write_csv, write_json
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings

FORMATS = ("npy", "projector", "parquet")


def format_of(target: Path) -> str:
    """The export format a target path asks for."""
    if target.is_dir() or target.name == "vectors.tsv":
        return "projector"
    suffix = target.suffix.lower()
    if suffix in (".npy", ".parquet"):
        return suffix[1:]
    raise InputError(
        "unknown export format: name the file *.npy, *.parquet or "
        "vectors.tsv (or give a folder for the Projector pair)",
        target,
    )


def _single_line(text: str) -> str:
    # The Projector's TSV has no quoting: tabs and newlines would break rows.
    return " ".join(str(text).split())


def first_group_names(corpus: Corpus) -> list[str] | None:
    """Each entry's first group name, "" for none; None for an ungrouped corpus."""
    if corpus.groups is None:
        return None
    names = corpus.groups.names
    return [names[g] if g >= 0 else "" for g in corpus.groups.first_group(len(corpus))]


def export_sentences(corpus: Corpus, indices: Iterable[int], path: str | Path) -> Path:
    """Write the sentences ``indices`` (in that order) to ``path`` as CSV: index, id,
    text and first group ("" for none)."""
    groups = first_group_names(corpus)
    return write_csv(
        path,
        ("index", "id", "text", "group"),
        (
            (index, corpus.ids[index], corpus.texts[index], groups[index] if groups else "")
            for index in map(int, indices)
        ),
    )


def metadata_columns(corpus: Corpus) -> dict[str, list[str]]:
    """Per-entry columns that describe each row: id, text, group and metadata."""
    columns = {"id": list(corpus.ids), "text": list(corpus.texts)}
    groups = first_group_names(corpus)
    if groups is not None:
        columns["group"] = groups
    for name, values in corpus.metadata.items():
        columns.setdefault(name, [str(v) for v in values])
    return columns


def export_matrix(
    corpus: Corpus, matrix: Embeddings, target: str | Path, provenance: dict[str, Any]
) -> list[Path]:
    """Write ``matrix`` (n, dim), one row per corpus entry, to ``target``.

    ``provenance`` (encoder name, family, parameters, fingerprint; or the projection's
    method and parameters) goes into the sidecar of ``.npy`` exports. Returns the files
    written.
    """
    target = Path(target)
    if matrix.shape[0] != len(corpus):
        raise ValueError(f"{matrix.shape[0]} rows for {len(corpus)} corpus entries")
    dense = (sp.csr_array(matrix).toarray() if sp.issparse(matrix) else np.asarray(matrix)).astype(
        np.float32, copy=False
    )
    kind = format_of(target)
    if kind == "npy":
        sidecar = target.with_suffix(".json")
        with atomic_path(target) as temporary:
            with temporary.open("wb") as handle:
                np.save(handle, dense)
        write_json(
            sidecar,
            {
                "rows": int(dense.shape[0]),
                "dim": int(dense.shape[1]),
                "row_order": "corpus entries in source file order",
                "corpus": {
                    "name": corpus.name,
                    "fingerprint": corpus.fingerprint,
                    "sources": list(corpus.sources),
                },
                **provenance,
                "sentspace_version": package_version(),
            },
        )
        return [target, sidecar]
    if kind == "projector":
        folder = target if target.is_dir() else target.parent
        vectors, metadata = folder / "vectors.tsv", folder / "metadata.tsv"
        write_text_atomic(
            vectors, "".join("\t".join(f"{v:.7g}" for v in row) + "\n" for row in dense)
        )
        columns = metadata_columns(corpus)
        lines = ["\t".join(columns)]
        lines += [
            "\t".join(_single_line(values[i]) for values in columns.values())
            for i in range(len(corpus))
        ]
        write_text_atomic(metadata, "\n".join(lines) + "\n")
        return [vectors, metadata]
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "writing Parquet needs pyarrow: pip install 'sentspace[parquet]'", target
        ) from None
    vector_column = pa.FixedSizeListArray.from_arrays(pa.array(dense.ravel()), dense.shape[1])
    table = pa.table({"id": list(corpus.ids), "text": list(corpus.texts), "vector": vector_column})
    with atomic_path(target) as temporary:
        pq.write_table(table, temporary)
    return [target]
