"""SentEval transfer tasks: MR, CR, SUBJ, MPQA (one file per class) and TREC.

Files as SentEval's ``get_transfer_data.bash`` leaves them (or the raw harvardnlp copies,
which use the same names): MR ``rt-polarity.{pos,neg}``, CR ``custrev.{pos,neg}``, SUBJ
``subj.{subjective,objective}``, MPQA ``mpqa.{pos,neg}``, one sentence a line; TREC
``train_5500.label`` / ``TREC_10.label`` (or ``TREC.train`` / ``TREC.test``) with lines
``COARSE:fine question``. Files are decoded as UTF-8, falling back to cp1252 (binary
tasks) or ISO-8859-1 (TREC) with a warning naming the lines.

Samples are lines, as in SentEval: every non-blank line is its own sentence (id
``file:line``), so a text repeated in a file (MPQA repeats many short phrases, CR and
TREC's training file a few lines) or found in both classes (98 texts in MPQA) is one
sample per line with that line's class, as Costra keeps one entry per row. Merging them would count them once and give one sentence
two classes, which a classifier cannot be trained or scored on. Blank lines are skipped
with a warning: SentEval keeps them as empty samples (CR has 4, MPQA 3, so SentEval counts
3,775 and 10,606 where sentspace counts 3,771 and 10,603), but an empty text has no
meaningful embedding.

TREC keeps its given split (metadata ``split``): 5,452 training and 500 test questions.
The coarse class is the group; the fine label is metadata ``fine``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sentspace.app.base.errors import CorpusError
from sentspace.app.corpora.build import (
    SentenceTable,
    format_lines,
    grouping_from_labels,
    read_lines,
)
from sentspace.app.corpora.model import Corpus


@dataclass(frozen=True)
class BinaryTask:
    """A two-class task stored as one file per class: ``files[i]`` holds class ``names[i]``."""

    name: str
    files: tuple[str, str]
    names: tuple[str, str]


BINARY_TASKS = (
    BinaryTask("MR", ("rt-polarity.neg", "rt-polarity.pos"), ("negative", "positive")),
    BinaryTask("CR", ("custrev.neg", "custrev.pos"), ("negative", "positive")),
    BinaryTask("SUBJ", ("subj.objective", "subj.subjective"), ("objective", "subjective")),
    BinaryTask("MPQA", ("mpqa.neg", "mpqa.pos"), ("negative", "positive")),
)
#: TREC (train, test) file names: SentEval's, then the original cogcomp ones.
TREC_FILES = (("train_5500.label", "TREC_10.label"), ("TREC.train", "TREC.test"))
#: The six coarse TREC classes (Li & Roth 2002).
TREC_CLASSES = ("ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM")
TASKS = tuple(task.name for task in BINARY_TASKS) + ("TREC",)


def _tasks_in(folder: Path) -> list[str]:
    found = [task.name for task in BINARY_TASKS if all((folder / f).is_file() for f in task.files)]
    if any(all((folder / f).is_file() for f in files) for files in TREC_FILES):
        found.append("TREC")
    return found


def _task_of_file(path: Path) -> str | None:
    for task in BINARY_TASKS:
        if path.name in task.files:
            return task.name
    return "TREC" if any(path.name in files for files in TREC_FILES) else None


def is_senteval(path: Path) -> bool:
    """A folder holding a SentEval task's files, or one of those files."""
    return bool(_tasks_in(path)) if path.is_dir() else _task_of_file(path) is not None


def load_senteval(path: str | Path, task: str | None = None, name: str | None = None) -> Corpus:
    """Load one SentEval transfer task as sentences grouped by class.

    Parameters
    ----------
    path : str or Path
        A task folder, a folder holding several tasks' files (then ``task`` chooses), or
        one of a task's files (which stands for its task in that folder).
    task : {"MR", "CR", "SUBJ", "MPQA", "TREC"}, optional
        Needed only when the folder holds several tasks.

    Returns
    -------
    Corpus
        One sentence per non-blank line, id ``file:line``; ``groups``: kind "class", one
        membership per sentence; names ("negative", "positive"), ("objective",
        "subjective") or the TREC coarse classes. Metadata, for TREC, ``split`` and
        ``fine``.

    Raises
    ------
    CorpusError
        Files are missing, empty, binary or undecodable; a TREC line is not
        ``COARSE:fine question`` with a known coarse class; no task or several tasks
        without ``task``.
    """
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    if task is None:
        if path.is_dir():
            found = _tasks_in(folder)
            if len(found) != 1:
                raise CorpusError(
                    "no SentEval task files here"
                    if not found
                    else f"holds several SentEval tasks ({', '.join(found)}): open one of "
                    "a task's files",
                    folder,
                )
            task = found[0]
        else:
            task = _task_of_file(path)
            if task is None:
                raise CorpusError("not a SentEval task file", path)
    task = task.upper()
    if task == "TREC":
        return _load_trec(folder, name or "TREC")
    for binary in BINARY_TASKS:
        if binary.name == task:
            return _load_binary(folder, binary, name or task)
    raise CorpusError(f"unknown SentEval task {task!r} (known: {', '.join(TASKS)})", folder)


def _lines_with_text(file: Path, fallback: str, warnings: list[str]) -> Iterator[tuple[int, str]]:
    """(line number, line) of each line of ``file`` that holds text, decoded as
    :func:`read_lines` decodes it; the blank lines are skipped with one warning."""
    blank = []
    for number, line in enumerate(read_lines(file, fallback=fallback, warnings=warnings), start=1):
        if line.strip():
            yield number, line
        else:
            blank.append(number)
    if blank:
        warnings.append(
            f"{file.name}: skipped blank line{'s' if len(blank) > 1 else ''} {format_lines(blank)}"
        )


def _load_binary(folder: Path, task: BinaryTask, name: str) -> Corpus:
    table = SentenceTable()
    members: list[int] = []
    classes: list[str] = []
    warnings: list[str] = []
    files = [folder / f for f in task.files]
    for file, label in zip(files, task.names):
        for number, line in _lines_with_text(file, "cp1252", warnings):
            text = line.strip()
            line_id = f"{file.name}:{number}"
            members.append(table.add(text, line_id, key=line_id))
            classes.append(label)
    return table.corpus(
        name,
        sources=files,
        warnings=warnings,
        groups=grouping_from_labels("class", members, classes, task.names),
    )


def _load_trec(folder: Path, name: str) -> Corpus:
    names = next(
        (files for files in TREC_FILES if all((folder / f).is_file() for f in files)), TREC_FILES[0]
    )
    files = [folder / f for f in names]
    table = SentenceTable(("split", "fine"))
    members: list[int] = []
    classes: list[str] = []
    warnings: list[str] = []
    for file, split in zip(files, ("train", "test")):
        for number, line in _lines_with_text(file, "latin-1", warnings):
            label, _, question = line.partition(" ")
            coarse, colon, fine_label = label.partition(":")
            question = question.strip()
            if not colon or coarse not in TREC_CLASSES or not fine_label or not question:
                raise CorpusError(
                    f"expected 'COARSE:fine question' with COARSE one of "
                    f"{', '.join(TREC_CLASSES)}, found {line[:60]!r}",
                    file,
                    number,
                )
            line_id = f"{file.name}:{number}"
            members.append(table.add(question, line_id, key=line_id, split=split, fine=fine_label))
            classes.append(coarse)
    return table.corpus(
        name,
        sources=files,
        warnings=warnings,
        groups=grouping_from_labels("class", members, classes, TREC_CLASSES),
    )
