"""What the commands share: help texts, the corpus a journal edits, the version of a
corpus its journals leave, and running a command's jobs under one progress line."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Sequence
from typing import Self, TypeVar

from sentspace.app.analysis.ann import EXACT_LIMIT
from sentspace.app.analysis.cache import cached_encode
from sentspace.app.analysis.distributed import DEFAULT_RAY_CPUS
from sentspace.app.analysis.neighbours import fitted_on_training_side
from sentspace.app.annotations.edits import EditError
from sentspace.app.annotations.history import History
from sentspace.app.base.errors import InputError
from sentspace.app.base.jobs import Job, run_job
from sentspace.app.corpora import BUILTIN, load_corpus
from sentspace.app.corpora.model import Corpus
from sentspace.app.services import PRECOMPUTED, ProgressPrinter, build_encoder
from sentspace.app.workspace.batches import gather
from sentspace.models import ENCODERS
from sentspace.models.base import Embeddings, Encoder

T = TypeVar("T")

#: What --corpus takes where it names any corpus.
CORPUS_HELP = f"built-in corpus ({', '.join(BUILTIN)}) or path"

#: What --search takes.
SEARCH_HELP = (
    "how nearest neighbours are found: auto (exact up to "
    f"{EXACT_LIMIT:,} sentences, "
    "an approximate index above; the default), exact, or ann (an index "
    "always; the output gives its measured recall)"
)

#: The subparsers' action each command group adds its commands to.
Subcommands = argparse._SubParsersAction


ENCODER_HELP = (
    f"encoder: {', '.join(ENCODERS)}, FAMILY:FILE to train a family "
    "(word2vec, doc2vec-dbow, fastsent, dictrep-bow, sdae, skipthought...) on a "
    "text file, or "
    f"{PRECOMPUTED}PATH for embeddings computed elsewhere (.npy, .npz, "
    "vectors.tsv, .parquet, or a folder of shards)"
)


@contextlib.contextmanager
def naming_the_corpus(spec: str) -> Iterator[None]:
    """A journal found to edit another corpus than the one opened from ``spec`` says
    which was given and what to do."""

    try:
        yield
    except EditError as error:
        if error.line == 1 and "is for corpus" in error.problem:
            raise EditError(
                f"{error.problem} ({spec}): give --corpus the corpus the journal edits",
                error.path,
                1,
            ) from None
        raise


def journal_records(journals: Sequence[str], corpus: Corpus, spec: str) -> list:
    """The records of ``journals`` (files, batch folders, workspaces) merged as
    ``annotations merge`` merges them, checked to edit ``corpus`` (opened from
    ``spec``)."""

    with naming_the_corpus(spec):
        return gather(journals, corpus.fingerprint)[1]


def load_version(
    spec: str, journals: Sequence[str] | None, until: str | None
) -> tuple[Corpus, str]:
    """(the corpus ``spec`` as the records of ``journals`` leave it, up to and including
    the record ``until``, replayed as the window replays them; a line saying so, "" for
    the corpus as loaded)."""

    corpus = load_corpus(spec)
    if not journals:
        if until is not None:
            raise InputError("--until names a record of an edit journal: give --journal")
        return corpus, ""
    records = journal_records(journals, corpus, spec)
    if until is not None:
        ids = [record.id for record in records]
        if until not in ids:
            raise InputError(f"--until {until}: no such record in {', '.join(journals)}")
        records = records[: ids.index(until) + 1]
    history = History(corpus)
    history.feed(records)
    conflicts = len(history.conflicts)
    return history.corpus, (
        f"as edited by {', '.join(journals)}: {len(records)} record"
        f"{'s' if len(records) != 1 else ''} replayed, "
        f"{len(history.edits)} in effect" + (f", {conflicts} conflicts" if conflicts else "")
    )


def add_version_arguments(parser: argparse.ArgumentParser) -> None:
    """--journal and --until: work on the corpus as edit journals leave it."""
    parser.add_argument(
        "--journal",
        action="append",
        metavar="FILE",
        help="an edit journal of the corpus (or a batch folder or "
        "workspace, as 'annotations merge' takes): the corpus as its "
        "records leave it, undo and redo included, replayed as the "
        "window replays them; repeat to merge several by time",
    )
    parser.add_argument(
        "--until",
        metavar="RECORD",
        help="with --journal: replay the records up to and including this "
        "one (its id; the command the window shows names the last "
        "record its result saw)",
    )


def percent_escaped(text: str) -> str:
    """``text`` as argparse help, which formats it with %: a "4.2%" would stop --help."""
    return text.replace("%", "%%")


class TerminalJobs(ProgressPrinter):
    """A command's jobs, run one after another (:meth:`run`) under one progress line on
    stderr, which the ``with`` block clears when it ends: the command prints after it."""

    def __enter__(self) -> Self:
        return self

    def run(self, job: Job[T]) -> T:
        return run_job(job, self)


def fitted_embeddings(spec: str, corpus: Corpus, jobs: TerminalJobs) -> tuple[Encoder, Embeddings]:
    """The encoder ``spec`` fitted for ``corpus`` (on its training side, where it has
    one) and the corpus's embeddings by it, through the embedding cache."""
    encoder = jobs.run(
        fitted_on_training_side(build_encoder(spec, corpus), corpus, corpus.texts, None)
    )
    return encoder, jobs.run(cached_encode(encoder, corpus.fingerprint, corpus.texts))


def add_ray_arguments(parser: argparse.ArgumentParser, address_help: str) -> None:
    """--address and --num-cpus: where a command's Ray work runs."""
    parser.add_argument("--address", help=address_help)
    parser.add_argument(
        "--num-cpus",
        type=int,
        default=DEFAULT_RAY_CPUS,
        help=f"CPUs of the local Ray instance (default {DEFAULT_RAY_CPUS})",
    )
