"""Multi30K (Elliott et al. 2016, 2017; Barrault et al. 2018): descriptions of Flickr30K
images, read from the gzip files as distributed (``multi30k/dataset``).

Two corpora come from it:

- ``multi30k-captions`` (task 2): five descriptions of each image, written independently,
  as a paraphrase-grouped corpus: group = image (named by its file from
  ``image_splits``), members in description order. English train: 145,000 sentences in
  29,000 groups. Every line is a sentence of its own, id ``"train.3:1234"`` (file
  ``train.3.en.gz``, line 1234): identical texts under different lines are different
  descriptions (of one image or of two), so they are kept apart, as Costra keeps its
  repeated texts, and the loader counts them in ``Corpus.warnings`` (English train: 454
  lines repeat an earlier line's text, 35 of them within one image). Classification
  needs one group per sentence, which merging texts across images would break.
- ``multi30k-parallel`` (task 1): line i of every language file is the same sentence. One
  sentence per language per line, id ``"de:12"``, line-major (line 1 in every language,
  then line 2); the translations of a line are positive pairs (label 1, subset "en-de"
  and so on), so every view that marks a paraphrase partner marks its translations.

A spec picks the language(s) and split: ``multi30k-captions:de``,
``multi30k-captions:de:val``, ``multi30k-parallel:train``,
``multi30k-parallel:val:en,cs``. The data folder is ``$SENTSPACE_MULTI30K``, else
``../shared/data/multi30k`` beside the repository. A path to ``task2/raw`` or
``task1/raw`` (or one of their files, which names the split and language) loads too.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from pathlib import Path

import numpy as np

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora.build import decode, split_lines
from sentspace.app.corpora.model import Corpus, Grouping, PairTable

CAPTIONS, PARALLEL = "multi30k-captions", "multi30k-parallel"
DATA_ENV = "SENTSPACE_MULTI30K"
DESCRIPTIONS = 5
CAPTION_SPLITS = ("train", "val", "test_2016")
PARALLEL_SPLITS = (
    "train",
    "val",
    "test_2016_flickr",
    "test_2017_flickr",
    "test_2017_mscoco",
    "test_2018_flickr",
)
#: Task 1's languages in the order sentences of a line are listed; others follow by name.
LANGUAGES = ("en", "de", "fr", "cs")
#: Corpus.language of a corpus of several languages (ISO 639-2 "multiple languages").
MULTIPLE = "mul"

_CAPTION_FILE = re.compile(r"^(?P<split>[\w-]+)\.(?P<k>[1-5])\.(?P<lang>[a-z]{2})\.gz$")
_PARALLEL_FILE = re.compile(r"^(?P<split>[\w-]+)\.(?P<lang>[a-z]{2})\.gz$")


def data_folder() -> Path:
    """``$SENTSPACE_MULTI30K``, else ``shared/data/multi30k`` beside the repository."""
    override = os.environ.get(DATA_ENV)
    return (
        Path(override)
        if override
        else (Path(__file__).resolve().parents[3] / "shared" / "data" / "multi30k")
    )


def _raw_folder(task: str) -> Path:
    folder = data_folder() / task / "raw"
    if not folder.is_dir():
        raise CorpusError(
            f"Multi30K not found: set ${DATA_ENV} to its folder, or open {task}/raw as a path",
            folder,
        )
    return folder


def read_gz_lines(path: Path) -> list[str]:
    """The stripped lines of a gzip text file; CorpusError naming the file (and line)
    when it is missing, not gzip, not UTF-8, empty or has an empty line."""
    try:
        data = gzip.decompress(path.read_bytes())
    except FileNotFoundError:
        raise CorpusError("file not found", path) from None
    except IsADirectoryError:
        raise CorpusError("is a folder, expected a file", path) from None
    except (OSError, EOFError, zlib.error) as error:
        raise CorpusError(f"not a readable gzip file ({error})", path) from None
    text, _ = decode(path, data)
    if not text.strip():
        raise CorpusError("file is empty", path)
    lines = [line.strip() for line in split_lines(path, text)]
    empty = next((number for number, line in enumerate(lines, start=1) if not line), None)
    if empty is not None:
        raise CorpusError("empty sentence", path, empty)
    return lines


def _aligned(paths: list[Path], columns: list[list[str]]) -> int:
    """The common number of lines; CorpusError at the first line one file lacks."""
    lengths = [len(column) for column in columns]
    shortest, longest = min(lengths), max(lengths)
    if shortest != longest:
        short = paths[lengths.index(shortest)]
        raise CorpusError(
            f"has no counterpart in {short.name}, which ends after line "
            f"{shortest}: the files do not align",
            paths[lengths.index(longest)],
            shortest + 1,
        )
    return shortest


def _image_names(path: Path, n_lines: int) -> tuple[str, ...] | None:
    """The image of each line from an ``image_splits`` file, None when there is none."""
    if not path.is_file():
        return None
    names = path.read_text(encoding="utf-8").split()
    if len(names) != n_lines:
        raise CorpusError(f"names {len(names)} images for {n_lines} lines", path)
    return tuple(names)


def _spec_parts(rest: str, splits: tuple[str, ...]) -> tuple[str | None, list[str]]:
    """(split, languages) of the ``:``-separated parts after a corpus name, in any order."""
    split, languages = None, []
    for part in filter(None, rest.split(":")):
        if part in splits:
            split = part
        elif re.fullmatch(r"[a-z]{2}(,[a-z]{2})*", part):
            languages += part.split(",")
        else:
            raise CorpusError(
                f"{part!r} is neither a split ({', '.join(splits)}) nor "
                f"language codes such as 'de' or 'en,de'"
            )
    return split, languages


def load_captions(
    folder: str | Path | None = None, *, language: str = "en", split: str = "train"
) -> Corpus:
    """Task 2 of one language and split as paraphrase groups of five (module notes).

    Parameters
    ----------
    folder : task 2's ``raw`` folder (default: under :func:`data_folder`).
    language, split : which files, ``{split}.{1..5}.{language}.gz``.

    Returns
    -------
    Corpus
        Sentences image by image; groups kind "paraphrase group", one per image, named by
        its image file when ``image_splits`` has it (else ``"image 12"``); metadata
        ``image``, ``description`` (1-5), ``line``, ``split``, ``language``.

    Raises
    ------
    CorpusError
        A file is missing, not gzip or UTF-8, has an empty line, or the five files (or
        the image list) differ in length.
    """
    folder = Path(folder) if folder is not None else _raw_folder("task2")
    paths = [folder / f"{split}.{k}.{language}.gz" for k in range(1, DESCRIPTIONS + 1)]
    columns = [read_gz_lines(path) for path in paths]
    n = _aligned(paths, columns)
    images = _image_names(folder.parent / "image_splits" / f"{split}_images.txt", n)
    # Image-major order: a group's five descriptions are adjacent in every list.
    grid = np.empty((n, DESCRIPTIONS), dtype=object)
    for k, column in enumerate(columns):
        grid[:, k] = column
    texts = tuple(grid.ravel().tolist())
    descriptions = tuple(range(1, DESCRIPTIONS + 1)) * n
    lines = np.repeat(np.arange(1, n + 1), DESCRIPTIONS).tolist()
    names = images or tuple(f"image {line}" for line in range(1, n + 1))
    repeated = len(texts) - len(set(texts))
    within = sum(DESCRIPTIONS - len(set(row)) for row in zip(*columns))
    warnings = (
        (
            f"{repeated} descriptions repeat the text of an earlier line ({within} "
            f"within one image); each is kept as a sentence of its own image",
        )
        if repeated
        else ()
    )
    return Corpus(
        name=f"{CAPTIONS}:{language}:{split}",
        texts=texts,
        ids=tuple(f"{split}.{k}:{line}" for line, k in zip(lines, descriptions)),
        language=language,
        groups=Grouping(
            kind="paraphrase group",
            sentence_index=np.arange(len(texts)),
            group_index=np.repeat(np.arange(n), DESCRIPTIONS),
            names=names,
        ),
        metadata={
            "image": tuple(np.repeat(np.asarray(names, dtype=object), DESCRIPTIONS).tolist()),
            "description": descriptions,
            "line": tuple(lines),
            "split": (split,) * len(texts),
            "language": (language,) * len(texts),
        },
        sources=tuple(str(path) for path in paths),
        warnings=warnings,
    )


def _parallel_languages(folder: Path, split: str) -> list[str]:
    found = {
        match["lang"]
        for path in folder.glob(f"{split}.*.gz")
        if (match := _PARALLEL_FILE.match(path.name)) and match["split"] == split
    }
    return [lang for lang in LANGUAGES if lang in found] + sorted(found - set(LANGUAGES))


def load_parallel(
    folder: str | Path | None = None,
    *,
    split: str = "test_2016_flickr",
    languages: list[str] | tuple[str, ...] | None = None,
) -> Corpus:
    """Task 1 of one split as a parallel corpus (module notes).

    Parameters
    ----------
    folder : task 1's ``raw`` folder (default: under :func:`data_folder`).
    split : which files, ``{split}.{language}.gz``.
    languages : which languages (default: every one the split has, en de fr cs first).

    Returns
    -------
    Corpus
        Language ``"mul"`` when several; metadata ``language``, ``line``, ``split`` and
        ``image`` (when ``image_splits`` names them); pairs: every two languages of a line,
        label 1, score NaN, split the Multi30K split, subset "en-de" and so on.

    Raises
    ------
    CorpusError
        No file of the split, a file missing, not gzip or UTF-8, an empty line, or files
        of different lengths (naming the first line without a counterpart).
    """
    folder = Path(folder) if folder is not None else _raw_folder("task1")
    available = _parallel_languages(folder, split)
    languages = list(languages or available)
    if not languages:
        raise CorpusError(f"no {split}.LANGUAGE.gz file", folder)
    paths = [folder / f"{split}.{lang}.gz" for lang in languages]
    columns = [read_gz_lines(path) for path in paths]
    n, m = _aligned(paths, columns), len(languages)
    images = _image_names(folder.parent / "image_splits" / f"{split}.txt", n)
    texts = np.empty((n, m), dtype=object)
    for j, column in enumerate(columns):
        texts[:, j] = column
    index = np.arange(n * m).reshape(n, m)  # sentence of (line, language)
    first, second, subset = [], [], []
    for a in range(m):
        for b in range(a + 1, m):
            first.append(index[:, a])
            second.append(index[:, b])
            subset += [f"{languages[a]}-{languages[b]}"] * n
    first_index = np.concatenate(first) if first else np.zeros(0, dtype=np.int64)
    second_index = np.concatenate(second) if second else np.zeros(0, dtype=np.int64)
    # Pairs in line order, language pairs within a line in a fixed order.
    order = np.argsort(first_index // m, kind="stable")
    lines = np.repeat(np.arange(1, n + 1), m).tolist()
    metadata = {"language": tuple(languages) * n, "line": tuple(lines), "split": (split,) * (n * m)}
    if images is not None:
        metadata["image"] = tuple(np.repeat(np.asarray(images, dtype=object), m).tolist())
    name = f"{PARALLEL}:{split}" + (f":{','.join(languages)}" if languages != available else "")
    return Corpus(
        name=name,
        texts=tuple(texts.ravel().tolist()),
        ids=tuple(f"{lang}:{line}" for line, lang in zip(lines, metadata["language"])),
        language=languages[0] if m == 1 else MULTIPLE,
        pairs=PairTable(
            first=first_index[order],
            second=second_index[order],
            label=np.ones(len(order), dtype=np.int64),
            score=np.full(len(order), np.nan),
            split=(split,) * len(order),
            subset=tuple(np.asarray(subset, dtype=object)[order].tolist()),
        ),
        metadata=metadata,
        sources=tuple(str(path) for path in paths),
    )


def load_captions_spec(rest: str = "") -> Corpus:
    """``multi30k-captions[:LANGUAGE][:SPLIT]`` (default English train)."""
    split, languages = _spec_parts(rest, CAPTION_SPLITS)
    if len(languages) > 1:
        raise CorpusError(f"{CAPTIONS} takes one language, not {','.join(languages)}")
    return load_captions(language=languages[0] if languages else "en", split=split or "train")


def load_parallel_spec(rest: str = "") -> Corpus:
    """``multi30k-parallel[:SPLIT][:LANGUAGES]`` (default test_2016_flickr, every language)."""
    split, languages = _spec_parts(rest, PARALLEL_SPLITS)
    return load_parallel(split=split or "test_2016_flickr", languages=languages or None)


def is_multi30k_captions(path: Path) -> bool:
    """Task 2's raw folder, or one of its ``split.k.lang.gz`` files."""
    if path.is_dir():
        return any(_CAPTION_FILE.match(p.name) for p in path.glob("*.1.*.gz"))
    return bool(_CAPTION_FILE.match(path.name))


def is_multi30k_parallel(path: Path) -> bool:
    """Task 1's raw folder, or one of its ``split.lang.gz`` files."""
    if path.is_dir():
        return any(_PARALLEL_FILE.match(p.name) for p in path.glob("*.en.gz"))
    return bool(_PARALLEL_FILE.match(path.name))


def load_multi30k_captions(path: Path) -> Corpus:
    """A task 2 folder (English train) or file (its split and language)."""
    path = Path(path)
    if path.is_dir():
        return load_captions(path)
    match = _CAPTION_FILE.match(path.name)
    assert match is not None, "recognised by is_multi30k_captions"
    return load_captions(path.parent, language=match["lang"], split=match["split"])


def load_multi30k_parallel(path: Path) -> Corpus:
    """A task 1 folder (test_2016_flickr) or file (its split, every language)."""
    path = Path(path)
    if path.is_dir():
        return load_parallel(path)
    match = _PARALLEL_FILE.match(path.name)
    assert match is not None, "recognised by is_multi30k_parallel"
    return load_parallel(path.parent, split=match["split"])
