"""Embeddings computed elsewhere, loaded from a file and aligned to a corpus.

A :class:`Precomputed` encoder is just another encoder: it encodes the corpus it was
aligned to (and any of that corpus's sentences) by looking rows up, so every evaluation
and view takes it. It cannot encode text it has no row for.

Formats
-------
- ``.npy``: a 2-D array, memory-mapped (no copy).
- ``.npz``: exactly one 2-D array.
- The Embedding Projector pair ``vectors.tsv`` (tab-separated floats, no header) and
  ``metadata.tsv`` beside it (one column without header, or several with a header).
- ``.parquet``: a vector column (list or fixed-size list of floats) plus an ``id`` or
  ``text`` column (needs pyarrow).
- A folder of shards that ``sentspace encode --engine`` wrote (:mod:`sentspace.app.analysis.distributed`):
  ``manifest.json`` plus Parquet shards, each checked against its SHA-256 in the manifest
  and read one after another into one preallocated array.

Alignment, in this order: by an id column whose values are the corpus's sentence ids;
by a text column whose values are the corpus's texts; by row order when the file has
exactly one row per corpus entry.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.corpora.build import read_lines
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder, ModelError

ID_COLUMNS = ("id", "sentence_id", "ids")
TEXT_COLUMNS = ("text", "sentence", "texts", "sentences")
VECTOR_COLUMNS = ("vector", "embedding", "embeddings", "vectors")


class EmbeddingsFileError(ModelError):
    """A file of precomputed embeddings cannot be read or aligned."""


#: The manifest of a folder of shards, and the format it declares.
SHARD_MANIFEST = "manifest.json"
SHARD_FORMAT = "sentspace-shards/1"


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file, hex (the checksum of shards in their manifest)."""
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


@dataclass(frozen=True, eq=False)
class EmbeddingsTable:
    """Rows of a file of embeddings with whatever id/text columns it carries.

    Attributes
    ----------
    path : the file (for the Projector pair, ``vectors.tsv``).
    vectors : float32 ndarray of shape (n_rows, dim), possibly memory-mapped.
    ids, texts : one value per row, when the file has such a column.
    """

    path: Path
    vectors: np.ndarray
    ids: tuple[str, ...] | None = None
    texts: tuple[str, ...] | None = None
    #: :func:`file_hash` of ``path`` when the reader computed it on the way.
    digest: str | None = None


#: The file is hashed in blocks of this size, in parallel (hashlib and os.pread release
#: the GIL): a 1.5 GB file hashes in about half the time of one sequential SHA-256.
HASH_BLOCK = 1 << 24


def _scan(path: Path, data: tuple[int, np.dtype, int] | None = None) -> tuple[str, int | None]:
    """The file's hash and, with ``data`` = (byte offset, dtype, row width) of a raw
    row-major array in it, the first row holding NaN or infinity (None: all finite).

    One pass, read with ``os.pread`` into short-lived buffers rather than through a
    memory map, so checking a memory-mapped .npy does not map the whole file into this
    process. The hash is the SHA-256 of the SHA-256 digests of the file's consecutive
    ``HASH_BLOCK``-byte blocks (a tree hash, so blocks can be hashed in parallel).
    """
    size = path.stat().st_size
    starts = range(0, size, HASH_BLOCK)
    fd = os.open(path, os.O_RDONLY)

    def block(start: int) -> tuple[bytes, int | None]:
        raw = os.pread(fd, HASH_BLOCK, start)
        digest = hashlib.sha256(raw).digest()
        bad = None
        if data is not None:
            offset, dtype, width = data
            # The data region of this block, cut to whole values.
            first = max(offset, start)
            first += (-(first - offset)) % dtype.itemsize
            stop = start + len(raw)
            stop -= (stop - offset) % dtype.itemsize
            if stop > first:
                values = np.frombuffer(
                    raw, dtype=dtype, count=(stop - first) // dtype.itemsize, offset=first - start
                )
                finite = np.isfinite(values)
                if not finite.all():
                    index = (first - offset) // dtype.itemsize + int(np.argmin(finite))
                    bad = index // width
        return digest, bad

    try:
        workers = max(1, min(4, os.cpu_count() or 1, len(starts)))
        if workers == 1:
            results = [block(start) for start in starts]
        else:
            with ThreadPoolExecutor(workers) as pool:
                results = list(pool.map(block, starts))
    finally:
        os.close(fd)
    tree = hashlib.sha256()
    for digest, _ in results:
        tree.update(digest)
    bad_rows = [bad for _, bad in results if bad is not None]
    return tree.hexdigest()[:16], (min(bad_rows) if bad_rows else None)


def file_hash(path: Path) -> str:
    """Content hash of a file (see :func:`_scan`), 16 hex digits."""
    return _scan(Path(path))[0]


def _check_shape(vectors: np.ndarray, path: Path) -> None:
    if vectors.ndim != 2:
        raise EmbeddingsFileError(
            f"expected a 2-D array (rows, dimensions), found shape {vectors.shape}", path
        )
    if vectors.shape[0] == 0 or vectors.shape[1] == 0:
        raise EmbeddingsFileError(f"no embeddings in the file (shape {vectors.shape})", path)
    if not np.issubdtype(vectors.dtype, np.number):
        raise EmbeddingsFileError(f"values are {vectors.dtype}, not numbers", path)


def _check_vectors(vectors: np.ndarray, path: Path) -> np.ndarray:
    _check_shape(vectors, path)
    # Scan in blocks so a memory-mapped file is checked without loading it whole.
    step = max(1, (1 << 24) // max(vectors.shape[1], 1))
    for start in range(0, vectors.shape[0], step):
        finite = np.isfinite(vectors[start : start + step])
        if not finite.all():
            row = start + int(np.flatnonzero(~finite.all(axis=1))[0])
            raise EmbeddingsFileError(f"row {row + 1} holds NaN or infinity", path, row + 1)
    return vectors


def _read_npy(path: Path) -> EmbeddingsTable:
    try:
        # Copy-on-write: writeable, so scikit-learn (PCA) does not copy it whole, yet
        # the file never changes.
        vectors = np.load(path, mmap_mode="c", allow_pickle=False)
    except (ValueError, OSError, EOFError) as error:
        raise EmbeddingsFileError(f"not a readable .npy array ({error})", path) from None
    if (
        isinstance(vectors, np.memmap)
        and vectors.dtype.kind == "f"
        and vectors.flags.c_contiguous
        and vectors.ndim == 2
        and vectors.offset % vectors.dtype.itemsize == 0
    ):
        # The common case (float, C order): the finite check runs in the same pass over
        # the file as its hash (see _scan), not through the memory map.
        _check_shape(vectors, path)
        digest, bad = _scan(path, (int(vectors.offset), vectors.dtype, vectors.shape[1]))
        if bad is not None:
            raise EmbeddingsFileError(f"row {bad + 1} holds NaN or infinity", path, bad + 1)
        if vectors.dtype != np.float32:
            vectors = np.asarray(vectors, dtype=np.float32)
        return EmbeddingsTable(path, vectors, digest=digest)
    if vectors.dtype != np.float32 and np.issubdtype(vectors.dtype, np.number):
        vectors = np.asarray(vectors, dtype=np.float32)
    return EmbeddingsTable(path, _check_vectors(vectors, path))


def _read_npz(path: Path) -> EmbeddingsTable:
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (ValueError, OSError, EOFError) as error:
        raise EmbeddingsFileError(f"not a readable .npz archive ({error})", path) from None
    matrices = [name for name, array in arrays.items() if array.ndim == 2]
    if len(matrices) != 1:
        raise EmbeddingsFileError(
            f"expected exactly one 2-D array, found {len(matrices)} "
            f"({', '.join(arrays) or 'none'})",
            path,
        )
    vectors = np.asarray(arrays[matrices[0]], dtype=np.float32)
    return EmbeddingsTable(path, _check_vectors(vectors, path))


def _parse_tsv_fast(path: Path) -> np.ndarray | None:
    """``vectors.tsv`` through pyarrow's multithreaded CSV reader (4x the value-by-value
    reader on 2 cores, 48,000 rows of 384 per second; bench/bench_precomputed.py); None
    when it cannot read the file cleanly, and the line-by-line reader then says where
    and why."""
    import pyarrow as pa  # noqa: PLC0415 - heavy; only when such a file is opened
    from pyarrow import csv  # noqa: PLC0415

    with path.open("rb") as file:
        width = file.readline().count(b"\t") + 1
    names = [f"c{i}" for i in range(width)]
    try:
        table = csv.read_csv(
            path,
            read_options=csv.ReadOptions(column_names=names),
            # Blank lines, empty or null-like values: the careful reader reports them.
            parse_options=csv.ParseOptions(
                delimiter="\t", quote_char=False, ignore_empty_lines=False
            ),
            convert_options=csv.ConvertOptions(
                column_types={name: pa.float32() for name in names},
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowException, OSError, UnicodeDecodeError):
        return None
    vectors = np.empty((table.num_rows, width), dtype=np.float32)
    for column, values in enumerate(table.columns):
        vectors[:, column] = values.to_numpy()
    return vectors


def _parse_tsv_by_line(path: Path, lines: list[str]) -> np.ndarray:
    """``vectors.tsv`` value by value, naming the line of the first problem."""
    width = None
    rows = []
    for number, line in enumerate(lines, start=1):
        fields = line.split("\t")
        if width is None:
            width = len(fields)
        elif len(fields) != width:
            raise EmbeddingsFileError(
                f"{len(fields)} values where earlier rows have {width}", path, number
            )
        try:
            rows.append([float(value) for value in fields])
        except ValueError:
            raise EmbeddingsFileError("a value is not a number", path, number) from None
    return np.asarray(rows, dtype=np.float32)


def _read_projector(path: Path) -> EmbeddingsTable:

    vectors = _parse_tsv_fast(path)
    if vectors is None:
        vectors = _parse_tsv_by_line(path, read_lines(path))
    vectors = _check_vectors(vectors, path)
    metadata_path = path.with_name("metadata.tsv")
    ids = texts = None
    if metadata_path.exists():
        meta = read_lines(metadata_path)
        # The Projector writes a header only when there is more than one column.
        if "\t" in meta[0]:
            header = meta[0].split("\t")
            columns = list(zip(*(row.split("\t") for row in meta[1:]))) or [()] * len(header)
            table = dict(zip(header, columns))
        else:
            table = {"text": tuple(meta)}
        n_meta = len(next(iter(table.values())))
        if n_meta != len(vectors):
            raise EmbeddingsFileError(
                f"{n_meta} metadata rows for {len(vectors)} vectors", metadata_path
            )
        ids = next((tuple(table[c]) for c in ID_COLUMNS if c in table), None)
        texts = next((tuple(table[c]) for c in TEXT_COLUMNS if c in table), None)
    return EmbeddingsTable(path, vectors, ids, texts)


#: Rows of a Parquet file converted at a time: its vectors go straight into one NumPy
#: array, batch by batch, never all held by pyarrow as well.
PARQUET_BATCH = 65_536


def _read_parquet(path: Path) -> EmbeddingsTable:
    import pyarrow as pa  # noqa: PLC0415 - heavy; only when such a file is opened
    import pyarrow.parquet as pq  # noqa: PLC0415

    try:
        parquet = pq.ParquetFile(path)
    except Exception as error:  # pyarrow raises several unrelated types for bad files
        raise EmbeddingsFileError(f"not a readable Parquet file ({error})", path) from None
    names = parquet.schema_arrow.names
    vector_column = next((c for c in VECTOR_COLUMNS if c in names), None)
    if vector_column is None:
        raise EmbeddingsFileError(
            f"no vector column (looked for {', '.join(VECTOR_COLUMNS)}; found {', '.join(names)})",
            path,
        )
    vectors = np.zeros((0, 0), dtype=np.float32)
    done = 0
    try:
        for batch in parquet.iter_batches(batch_size=PARQUET_BATCH, columns=[vector_column]):
            column = batch.column(0)
            # pyarrow-stubs 20 types a batch's column as a plain Array, not a list array.
            lengths = column.value_lengths().to_numpy(  # type: ignore[attr-defined]
                zero_copy_only=False
            )
            if done == 0:
                width = int(lengths[0]) if len(lengths) and lengths[0] == lengths[0] else 0
                vectors = np.empty((parquet.metadata.num_rows, width), dtype=np.float32)
            uneven = np.flatnonzero(lengths != width)
            if len(uneven):
                row = done + int(uneven[0]) + 1
                raise EmbeddingsFileError(
                    f"row {row} has {lengths[uneven[0]]} values where row 1 has {width}", path, row
                )
            flat = column.flatten().to_numpy(  # type: ignore[attr-defined]
                zero_copy_only=False
            )
            vectors[done : done + len(batch)] = flat.reshape(len(batch), width)
            done += len(batch)

        def text_column(candidates):
            name = next((c for c in candidates if c in names), None)
            return (
                None
                if name is None
                else tuple(str(v) for v in parquet.read(columns=[name]).column(0).to_pylist())
            )

        ids, texts = text_column(ID_COLUMNS), text_column(TEXT_COLUMNS)
    except (pa.ArrowException, OSError) as error:
        raise EmbeddingsFileError(f"not a readable Parquet file ({error})", path) from None
    return EmbeddingsTable(path, _check_vectors(vectors, path), ids, texts)


def _read_shards(folder: Path) -> EmbeddingsTable:
    """A folder of shards as one array, shard by shard, each checked against the
    manifest (complete, same SHA-256, same rows and width)."""
    manifest_path = folder / SHARD_MANIFEST
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        shards, n_shards = manifest["shards"], manifest["n_shards"]
        n_rows, dim = manifest["corpus"]["rows"], manifest["dim"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise EmbeddingsFileError(
            f"not a readable shard manifest ({error})", manifest_path
        ) from None
    if manifest.get("format") != SHARD_FORMAT:
        raise EmbeddingsFileError(f"not a {SHARD_FORMAT} manifest", manifest_path)
    if len(shards) != n_shards:
        raise EmbeddingsFileError(
            f"{n_shards - len(shards)} of {n_shards} shards are not "
            f"encoded yet: rerun the same sentspace encode to finish",
            manifest_path,
        )
    vectors = np.empty((n_rows, dim), dtype=np.float32)
    ids: list[str] = []
    for entry in shards:
        path = folder / entry["file"]
        if not path.is_file():
            raise EmbeddingsFileError(
                "shard file missing: rerun sentspace encode to encode it again", path
            )
        if sha256_file(path) != entry["sha256"]:
            raise EmbeddingsFileError(
                "the shard differs from its SHA-256 in the manifest "
                "(changed or damaged): delete it and rerun sentspace "
                "encode",
                path,
            )
        shard = _read_parquet(path)
        start, rows = entry["start"], entry["rows"]
        if shard.vectors.shape != (rows, dim) or shard.ids is None or len(ids) != start:
            raise EmbeddingsFileError(
                f"shard of shape {shard.vectors.shape} where the "
                f"manifest says ({rows}, {dim}) from row {start + 1}",
                path,
            )
        vectors[start : start + rows] = shard.vectors
        ids.extend(shard.ids)
    digest = hashlib.sha256(manifest_path.read_bytes()).hexdigest()[:16]
    return EmbeddingsTable(folder, vectors, tuple(ids), digest=digest)


def read_embeddings(path: str | Path) -> EmbeddingsTable:
    """Read a file of embeddings in any supported format (chosen by its name), or a
    folder of shards."""
    path = Path(path)
    if path.is_dir():
        if not (path / SHARD_MANIFEST).is_file():
            raise EmbeddingsFileError(
                f"a folder, but not one of encoded shards (no {SHARD_MANIFEST})", path
            )
        return _read_shards(path)
    if not path.is_file():
        raise EmbeddingsFileError("file not found", path)
    if path.stat().st_size == 0:
        raise EmbeddingsFileError("file is empty", path)
    suffix = path.suffix.lower()
    readers = {
        ".npy": _read_npy,
        ".npz": _read_npz,
        ".tsv": _read_projector,
        ".parquet": _read_parquet,
    }
    if suffix not in readers:
        raise EmbeddingsFileError(
            f"unknown embeddings format {suffix!r} (known: {', '.join(readers)})", path
        )
    return readers[suffix](path)


def align_rows(table: EmbeddingsTable, corpus: Corpus) -> tuple[np.ndarray, str]:
    """The file row of every corpus entry, and how it was found ("id", "text", "row").

    Raises EmbeddingsFileError naming the first corpus entry (or file row) that cannot be
    matched.
    """
    n_rows = len(table.vectors)
    for key, values, corpus_values in (
        ("id", table.ids, corpus.ids),
        ("text", table.texts, corpus.texts),
    ):
        if values is None:
            continue
        # Each corpus entry takes the next unused file row with its key, so entries that
        # repeat a text (Costra) align row by row in file order.
        rows_of: dict[str, list[int]] = {}
        for row, value in enumerate(values):
            rows_of.setdefault(value, []).append(row)
        used: dict[str, int] = {}
        rows = np.empty(len(corpus), dtype=np.int64)
        missing = []
        for entry, value in enumerate(corpus_values):
            candidates = rows_of.get(value)
            if not candidates:
                missing.append(entry)
                continue
            taken = used.get(value, 0)
            rows[entry] = candidates[min(taken, len(candidates) - 1)]
            used[value] = taken + 1
        if not missing:
            return rows, key
        if len(missing) < len(corpus):
            first = missing[0]
            raise EmbeddingsFileError(
                f"{len(missing)} of {len(corpus)} corpus sentences have no row with their "
                f"{key}; the first is entry {first + 1}: {corpus_values[first][:80]!r}",
                table.path,
            )
    if n_rows == len(corpus):
        return np.arange(n_rows), "row"
    raise EmbeddingsFileError(
        f"{n_rows} rows for {len(corpus)} corpus sentences, and no id "
        f"or text column that matches the corpus",
        table.path,
    )


class Precomputed(Encoder):
    """Rows of a file of embeddings, aligned to one corpus.

    Parameters
    ----------
    path : the embeddings file (see the module docstring for formats).
    corpus : the corpus whose entries the rows are matched to.
    """

    family = "precomputed"
    title = "Precomputed embeddings"
    cacheable = False

    def __init__(self, path: str | Path, corpus: Corpus):
        self.path = Path(path)
        self.corpus = corpus
        table = read_embeddings(self.path)
        self.rows, self.aligned_by = align_rows(table, corpus)
        self.vectors = table.vectors
        # Rows already in corpus order (a folder of shards, most files with ids): the
        # corpus's embeddings are the file's, with no aligned copy.
        self.in_order = len(self.vectors) == len(corpus) and bool(
            np.array_equal(self.rows, np.arange(len(corpus)))
        )
        self.file_hash = table.digest or file_hash(self.path)
        self._row_of_text_cache: dict[str, int] | None = None

    @property
    def _row_of_text(self) -> dict[str, int]:
        """Row of each corpus text, built on first use (a second at a million rows, and
        only needed to encode texts other than the whole corpus)."""
        if self._row_of_text_cache is None:
            self._row_of_text_cache = {
                text: int(row) for text, row in zip(self.corpus.texts, self.rows)
            }
        return self._row_of_text_cache

    @property
    def name(self) -> str:
        return f"precomputed:{self.path.name}"

    def params(self) -> dict[str, Any]:
        # Not the constructor's: the corpus is not a parameter (the file's rows are
        # aligned to it), and the file's hash and how rows were aligned key the output.
        return {"path": str(self.path), "file_hash": self.file_hash, "aligned_by": self.aligned_by}

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def clone(self) -> Precomputed:
        """Itself: nothing is fitted, and re-reading the file would gain nothing."""
        return self

    def aligned(self) -> np.ndarray:
        """The corpus's embeddings in corpus order; no copy when rows are in file order."""
        if self.in_order:
            return self.vectors
        return np.asarray(self.vectors[self.rows], dtype=np.float32)

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        try:
            rows = [self._row_of_text[text] for text in texts]
        except KeyError as missing:
            raise EmbeddingsFileError(
                f"no precomputed embedding for the sentence {str(missing)[:80]}", self.path
            ) from None
        return np.asarray(self.vectors[rows], dtype=np.float32).reshape(len(rows), self.dim)

    def iter_encode(self, texts: Sequence[str]):
        texts = list(texts)
        if texts == list(self.corpus.texts):
            # The whole corpus: row by row, so repeated texts keep their own rows.
            yield from ()
            return self.aligned()
        return (yield from super().iter_encode(texts))

    def fingerprint(self) -> str:
        return hashlib.sha256(
            f"precomputed {self.file_hash} {self.aligned_by} {self.corpus.fingerprint}".encode()
        ).hexdigest()[:16]
