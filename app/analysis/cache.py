"""Embeddings cached on disk, keyed by encoder fingerprint + corpus fingerprint.

Each entry is a data file, ``<key>.npy`` (dense, memory-mapped on load) or ``<key>.npz``
(sparse CSR), and ``<key>.json`` with the data file's SHA-256, shape and what produced
it. The JSON is written last, so an entry without one is incomplete. A data file whose
hash, shape or dtype does not match its JSON (a flipped byte, a truncated write) is
deleted and recomputed, never used. Files are written to a temporary name and moved into
place with ``os.replace``, so readers never see half a file. Past the size limit the
least recently used entries go first (use time is the data file's mtime, touched on
every hit).

The folder is ``platformdirs.user_cache_dir("sentspace")/embeddings``, or the folder in
the environment variable ``SENTSPACE_CACHE_DIR`` (tests point it at a temporary folder).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs
import scipy.sparse as sp

from sentspace.app.analysis.neighbours import fitted_on_training_side
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder, NotFittedError

log = logging.getLogger(__name__)

CACHE_DIR_ENV = "SENTSPACE_CACHE_DIR"
#: Default size limit of the cache folder.
DEFAULT_LIMIT_BYTES = 4 << 30
#: Bump when the entry layout changes; older entries then simply miss.
FORMAT_VERSION = 1
#: Temporary files older than this are left over from a crashed write.
_STALE_TEMP_SECONDS = 3600


def cache_dir() -> Path:
    """The cache folder (not created)."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override)

    return Path(platformdirs.user_cache_dir("sentspace")) / "embeddings"


def _digest(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


@dataclass(frozen=True)
class CacheEntry:
    """What the cache holds under one key."""

    key: str
    data: Path
    meta: Path
    size: int
    last_used: float


class EmbeddingCache:
    """A folder of cached embedding matrices with a size limit.

    Parameters
    ----------
    root : Path, optional
        The folder; :func:`cache_dir` by default.
    limit_bytes : int
        Total size above which least recently used entries are evicted.
    """

    def __init__(self, root: Path | None = None, limit_bytes: int = DEFAULT_LIMIT_BYTES):
        self.root = Path(root) if root is not None else cache_dir()
        self.limit_bytes = limit_bytes

    @staticmethod
    def key(encoder_fingerprint: str, corpus_fingerprint: str) -> str:
        """The entry name for an encoder on a corpus."""
        return f"{corpus_fingerprint}-{encoder_fingerprint}-v{FORMAT_VERSION}"

    def _paths(self, key: str) -> tuple[Path, Path, Path]:
        return self.root / f"{key}.npy", self.root / f"{key}.npz", self.root / f"{key}.json"

    def load(self, key: str) -> tuple[Embeddings, dict[str, Any]] | None:
        """The cached matrix and its metadata, or None on a miss or a damaged entry.

        Dense matrices come back memory-mapped read-only; sparse ones are read into
        memory. A damaged entry is deleted.
        """
        dense, sparse, meta_path = self._paths(key)
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as error:
            self._discard(key, f"unreadable metadata ({error})")
            return None
        data = dense if meta.get("format") == "npy" else sparse
        try:
            if _digest(data) != meta["sha256"]:
                self._discard(key, "content hash mismatch")
                return None
            if meta["format"] == "npy":
                # A plain ndarray view of the map, not an np.memmap, whose reductions
                # would return 0-d memmaps. Copy-on-write, so it is writeable and
                # scikit-learn (PCA) does not copy it whole, yet the file never changes.
                matrix = np.asarray(np.load(data, mmap_mode="c", allow_pickle=False))
            else:
                matrix = sp.csr_array(sp.load_npz(data))
            if list(matrix.shape) != meta["shape"] or matrix.dtype != np.float32:
                self._discard(key, "shape or dtype differs from the metadata")
                return None
            os.utime(data)  # mark as recently used for eviction
        except (OSError, ValueError, KeyError, EOFError) as error:
            self._discard(key, f"unreadable data ({error})")
            return None
        return matrix, meta

    def store(self, key: str, matrix: Embeddings, meta: dict[str, Any]) -> None:
        """Save ``matrix`` (float32, dense or CSR) under ``key``, then enforce the limit."""
        self.root.mkdir(parents=True, exist_ok=True)
        dense, sparse, meta_path = self._paths(key)
        is_sparse = sp.issparse(matrix)
        data = sparse if is_sparse else dense
        # Remove the JSON first: until the new one is in place, the entry is a miss.
        meta_path.unlink(missing_ok=True)

        def write_matrix(f) -> None:
            if is_sparse:
                sp.save_npz(f, sp.csr_array(matrix), compressed=False)
            else:
                np.save(f, np.ascontiguousarray(matrix), allow_pickle=False)

        self._write_atomic(data, write_matrix)
        meta = {
            **meta,
            "format": "npz" if is_sparse else "npy",
            "sha256": _digest(data),
            "shape": list(matrix.shape),
            "dtype": "float32",
            "created": time.time(),
        }
        self._write_atomic(meta_path, lambda f: f.write(json.dumps(meta, indent=1).encode()))
        self.evict(keep=key)

    def _write_atomic(self, path: Path, write) -> None:
        with tempfile.NamedTemporaryFile(
            dir=self.root, prefix=f".{path.name}.", suffix=".tmp", delete=False
        ) as f:
            try:
                write(f)
                f.flush()
                os.fsync(f.fileno())
            except BaseException:
                f.close()
                os.unlink(f.name)
                raise
        os.replace(f.name, path)

    def _discard(self, key: str, reason: str) -> None:
        """Delete a damaged entry (``load`` then reports a miss)."""
        log.warning("embedding cache entry %s is damaged (%s); recomputing", key, reason)
        for path in self._paths(key):
            try:
                path.unlink(missing_ok=True)
            except OSError:  # still memory-mapped elsewhere (Windows)
                pass

    def entries(self) -> list[CacheEntry]:
        """The complete entries, least recently used first."""
        entries = []
        for meta in self.root.glob("*.json"):
            key = meta.stem
            for data in self._paths(key)[:2]:
                try:
                    stat = data.stat()
                except FileNotFoundError:
                    continue
                entries.append(
                    CacheEntry(key, data, meta, stat.st_size + meta.stat().st_size, stat.st_mtime)
                )
        return sorted(entries, key=lambda entry: entry.last_used)

    def size(self) -> int:
        """Bytes held by complete entries."""
        return sum(entry.size for entry in self.entries())

    def evict(self, keep: str | None = None) -> None:
        """Delete least recently used entries until the total is within the limit.

        ``keep`` (the entry just written) goes last, and only if it alone is too big.
        """
        if not self.root.is_dir():
            return
        now = time.time()
        for temp in self.root.glob(".*.tmp"):
            try:
                if now - temp.stat().st_mtime > _STALE_TEMP_SECONDS:
                    temp.unlink()
            except OSError:
                pass
        entries = self.entries()
        entries.sort(key=lambda entry: entry.key == keep)  # stable: LRU order otherwise
        total = sum(entry.size for entry in entries)
        for entry in entries:
            if total <= self.limit_bytes:
                break
            try:
                entry.meta.unlink(missing_ok=True)
                entry.data.unlink(missing_ok=True)
            except OSError:
                continue
            total -= entry.size

    def clear(self) -> int:
        """Delete every entry and temporary file; returns the bytes freed."""
        if not self.root.is_dir():
            return 0
        freed = 0
        for path in [
            *self.root.glob("*.npy"),
            *self.root.glob("*.npz"),
            *self.root.glob("*.json"),
            *self.root.glob(".*.tmp"),
        ]:
            try:
                size = path.stat().st_size
                path.unlink()
            except OSError:
                continue
            freed += size
        return freed


def clear() -> int:
    """Empty the default cache (the GUI's "clear cache" action); returns the bytes freed."""
    return EmbeddingCache().clear()


def cached_encode(
    encoder: Encoder,
    corpus_fingerprint: str,
    texts: Sequence[str],
    cache: EmbeddingCache | None = None,
) -> Job[Embeddings]:
    """Encode ``texts`` (the sentences of the corpus with that fingerprint) by a fitted
    encoder, via the cache (encoders that are not ``cacheable`` just encode).

    On a hit the matrix comes from disk and the encoder's :meth:`~Encoder.report` (e.g.
    word-vector coverage) is restored; on a miss the encoder runs and the result is
    stored. A cache that cannot be written only costs the saving, never the result.

    Returns
    -------
    ndarray or csr_array of shape (len(texts), encoder.dim), float32
    """
    if not encoder.is_fitted:
        # Unfitted encoders share one fingerprint, so a lookup could return another fit.
        raise NotFittedError(f"{encoder.name} must be fitted before encoding")
    if not encoder.cacheable:
        return (yield from encoder.iter_encode(texts))
    cache = cache if cache is not None else EmbeddingCache()
    yield Progress(f"looking for cached {encoder.name} embeddings", 0, 1)
    key = cache.key(encoder.fingerprint(), corpus_fingerprint)
    matrix = cached_matrix(encoder, corpus_fingerprint, len(texts), cache)
    if matrix is not None:
        return matrix
    matrix = yield from encoder.iter_encode(texts)
    meta = {
        "encoder": encoder.name,
        "encoder_fingerprint": encoder.fingerprint(),
        "encoder_params": encoder.params(),
        "corpus_fingerprint": corpus_fingerprint,
        "report": encoder.report(),
    }
    try:
        cache.store(key, matrix, meta)
    except OSError as error:
        log.warning("could not cache %s embeddings in %s: %s", encoder.name, cache.root, error)
    return matrix


def cached_matrix(
    encoder: Encoder, corpus_fingerprint: str, n_rows: int, cache: EmbeddingCache | None = None
) -> Embeddings | None:
    """The cached embeddings of ``n_rows`` sentences by a fitted encoder (its report
    restored), or None: a miss, or an encoder the cache does not keep."""
    if not encoder.cacheable:
        return None
    cache = cache if cache is not None else EmbeddingCache()
    hit = cache.load(cache.key(encoder.fingerprint(), corpus_fingerprint))
    if hit is None or hit[0].shape[0] != n_rows:
        return None
    matrix, meta = hit
    if meta.get("report") is not None:
        encoder.restore_report(meta["report"])
    return matrix


def encode_corpus(
    corpus: Corpus,
    encoder: Encoder,
    *,
    texts: Sequence[str] | None = None,
    training_pairs: np.ndarray | None = None,
    cache: EmbeddingCache | None = None,
) -> Job[Embeddings]:
    """Embeddings of every sentence of ``corpus``, or of ``texts`` drawn from it (some of
    its sentences, a tokenised column), through the cache: shape (len(texts), dim).

    For work that trains nothing on labels: an encoder that requires fitting is cloned
    and fitted on the texts it encodes (no labels are seen, so nothing leaks); one that
    learns from labelled pairs on the pairs ``training_pairs`` (indices into
    ``corpus.pairs``; default: the "train" split, or every pair without one), which
    must hold no evaluated pair (:func:`sentspace.app.analysis.neighbours.held_out_pairs`). To keep the
    fitted encoder, fit it with :func:`sentspace.models.base.fitted_copy` and call
    :func:`cached_encode`, as the explorer does.
    """

    if texts is None:
        texts, fingerprint = corpus.texts, corpus.fingerprint
    else:
        fingerprint = texts_fingerprint(texts)
    fitted = yield from fitted_on_training_side(encoder, corpus, texts, training_pairs)
    return (yield from cached_encode(fitted, fingerprint, texts, cache))


def texts_fingerprint(texts: Sequence[str]) -> str:
    """Content hash of a list of sentences, in the form of ``Corpus.fingerprint``."""
    h = hashlib.sha256(b"texts")
    for text in texts:
        h.update(text.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()[:16]


def encode_rows(
    corpus: Corpus,
    encoder: Encoder,
    rows: np.ndarray,
    *,
    training_pairs: np.ndarray | None = None,
    cache: EmbeddingCache | None = None,
) -> Job[Embeddings]:
    """Embeddings of the sentences ``rows`` of ``corpus`` only (those an evaluation
    reads), in a matrix of the corpus's shape whose other rows are zero.

    The encoder is fitted as :func:`encode_corpus` fits it (on every sentence, or on
    ``training_pairs``), so the rows are the ones the whole corpus would give; only the
    encoding is cut. The corpus's cached embeddings are used when there; else the
    sentences are encoded and cached under their own fingerprint.
    """

    fitted = yield from fitted_on_training_side(encoder, corpus, corpus.texts, training_pairs)
    rows = np.unique(np.asarray(rows, dtype=np.int64))
    whole = cached_matrix(fitted, corpus.fingerprint, len(corpus), cache)
    if whole is not None or len(rows) == len(corpus):
        return (
            whole
            if whole is not None
            else (yield from cached_encode(fitted, corpus.fingerprint, corpus.texts, cache))
        )
    texts = [corpus.texts[row] for row in rows.tolist()]
    part = yield from cached_encode(fitted, texts_fingerprint(texts), texts, cache)
    if sp.issparse(part):
        # A selection matrix puts row i of the part at corpus row rows[i].
        spread = sp.csr_array(
            (np.ones(len(rows), dtype=np.float32), (rows, np.arange(len(rows)))),
            shape=(len(corpus), len(rows)),
        )
        return sp.csr_array(spread @ part, dtype=np.float32)
    matrix = np.zeros((len(corpus), part.shape[1]), dtype=np.float32)
    matrix[rows] = part
    return matrix
