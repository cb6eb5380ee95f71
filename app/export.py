"""Writing a corpus's embeddings (or its 2D projection) for use elsewhere.

One row per corpus entry, in corpus order (the file order of the source, repeated
sentences included). Formats, chosen by the target's name:

- ``*.npy``: the matrix, plus a JSON sidecar ``*.json`` saying what it is;
- ``vectors.tsv`` (or a folder): the Embedding Projector pair ``vectors.tsv`` +
  ``metadata.tsv`` (id, text, group and any metadata columns, with a header row);
- ``*.parquet``: columns id, text, vector (fixed-size list of float32; needs pyarrow).

Every file is written atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from app.atomic import atomic_path, write_text_atomic
from app.corpora.model import Corpus
from app.errors import InputError
from app.results import package_version
from models.base import Embeddings

FORMATS = ("npy", "projector", "parquet")


def format_of(target: Path) -> str:
    """The export format a target path asks for."""
    if target.is_dir() or target.name == "vectors.tsv":
        return "projector"
    suffix = target.suffix.lower()
    if suffix in (".npy", ".parquet"):
        return suffix[1:]
    raise InputError("unknown export format: name the file *.npy, *.parquet or "
                     "vectors.tsv (or give a folder for the Projector pair)", target)


def _single_line(text: str) -> str:
    # The Projector's TSV has no quoting: tabs and newlines would break rows.
    return " ".join(str(text).split())


def metadata_columns(corpus: Corpus) -> dict[str, list[str]]:
    """Per-entry columns that describe each row: id, text, group and metadata."""
    columns = {"id": list(corpus.ids), "text": list(corpus.texts)}
    if corpus.groups is not None:
        first = corpus.groups.first_group(len(corpus))
        names = corpus.groups.names
        columns["group"] = [names[g] if g >= 0 else "" for g in first]
    for name, values in corpus.metadata.items():
        columns.setdefault(name, [str(v) for v in values])
    return columns


def export_matrix(corpus: Corpus, matrix: Embeddings, target: str | Path,
                  provenance: dict[str, Any]) -> list[Path]:
    """Write ``matrix`` (n, dim), one row per corpus entry, to ``target``.

    ``provenance`` (encoder name, family, parameters, fingerprint; or the projection's
    method and parameters) goes into the sidecar of ``.npy`` exports. Returns the files
    written.
    """
    target = Path(target)
    if matrix.shape[0] != len(corpus):
        raise ValueError(f"{matrix.shape[0]} rows for {len(corpus)} corpus entries")
    dense = (matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)).astype(
        np.float32, copy=False)
    kind = format_of(target)
    if kind == "npy":
        sidecar = target.with_suffix(".json")
        with atomic_path(target) as temporary:
            with temporary.open("wb") as handle:
                np.save(handle, dense)
        write_text_atomic(sidecar, json.dumps({
            "rows": int(dense.shape[0]), "dim": int(dense.shape[1]),
            "row_order": "corpus entries in source file order",
            "corpus": {"name": corpus.name, "fingerprint": corpus.fingerprint,
                       "sources": list(corpus.sources)},
            **provenance, "sentspace_version": package_version()}, indent=2) + "\n")
        return [target, sidecar]
    if kind == "projector":
        folder = target if target.is_dir() else target.parent
        vectors, metadata = folder / "vectors.tsv", folder / "metadata.tsv"
        write_text_atomic(vectors, "".join("\t".join(f"{v:.7g}" for v in row) + "\n"
                                           for row in dense))
        columns = metadata_columns(corpus)
        lines = ["\t".join(columns)]
        lines += ["\t".join(_single_line(values[i]) for values in columns.values())
                  for i in range(len(corpus))]
        write_text_atomic(metadata, "\n".join(lines) + "\n")
        return [vectors, metadata]
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError("writing Parquet needs pyarrow: pip install 'sentspace[parquet]'",
                         target) from None
    vectors = pa.FixedSizeListArray.from_arrays(pa.array(dense.ravel()), dense.shape[1])
    table = pa.table({"id": list(corpus.ids), "text": list(corpus.texts), "vector": vectors})
    with atomic_path(target) as temporary:
        pq.write_table(table, temporary)
    return [target]
