"""What the CLI, the Python API and the window share when they run work for a user:
encoders built from their spelling, jobs run with a progress line, results summarised
in a table. The entry points (``app/cli``, ``sentspace._api``, ``app/ui``) build on
this layer and never on each other."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from sentspace.app.base.errors import InputError
from sentspace.app.base.jobs import Job, ProgressPrinter, run_job
from sentspace.app.corpora.model import Corpus
from sentspace.models import make_encoder
from sentspace.models.base import Encoder
from sentspace.models.precomputed import Precomputed

T = TypeVar("T")

PRECOMPUTED = "precomputed:"


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(str(cell).ljust(w) for cell, w in zip(row, widths)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def run_in_terminal(job: Job[T]) -> T:
    """Run ``job`` to its end with a progress line on stderr, cleared when it ends."""
    with ProgressPrinter() as printer:
        return run_job(job, printer)


def build_encoder(spec: str, corpus: Corpus | None) -> Encoder:
    """An encoder from its CLI spelling; precomputed embeddings are aligned to ``corpus``
    (which they need)."""
    if spec.startswith(PRECOMPUTED):
        assert corpus is not None, "precomputed embeddings are read with their corpus"
        return Precomputed(spec.removeprefix(PRECOMPUTED), corpus)
    try:
        return make_encoder(spec)
    except InputError:
        raise  # a ModelError stays one
    except ValueError as error:
        raise InputError(str(error)) from None


def summary_table(results, names: Sequence[str] | None = None) -> str:
    """The results' ``summary()`` rows side by side, one column per result."""
    names = names or [r.provenance.encoder_name for r in results]
    summaries = [dict(r.summary()) for r in results]
    labels = list(dict.fromkeys(label for summary in summaries for label in summary))
    rows = [[label, *(summary.get(label, "") for summary in summaries)] for label in labels]
    return format_table(["metric", *names], rows)
