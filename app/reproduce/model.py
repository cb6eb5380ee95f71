"""What a paper's published tables are, as data: each printed number (a :class:`Cell`)
with the sentspace run that re-computes it (:class:`Run`) and how faithful that run is
(its mark), the counts the paper states (:class:`Count`) and its main claims
(:class:`Finding`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The marks of a row: how the re-run relates to the paper's setting.
SAME = "same setting"
SUBSTITUTE = "substitute"
NEEDS = "needs"
MARKS = (SAME, SUBSTITUTE, NEEDS)
#: Whether a re-run number reaches the published one: its interval covers it or the
#: difference is inside the table's band (WITHIN), not (OUTSIDE), or the row is not
#: the paper's setting, so no distance says anything (NOT_COMPARABLE).
WITHIN = "within reach"
OUTSIDE = "outside"
NOT_COMPARABLE = "not comparable"
#: The band of a table that states none: two points on a 0-1 scale.
DEFAULT_BAND = 0.02

#: Environment variables naming the data a reproduction reads; the defaults are the
#: shared data folder beside the repository. DUC pyramids are under the NIST licence
#: and never shipped, so the pyramid rows fall back to the shared sample without it.
DATA_ENV = "SENTSPACE_DATA"
DUC_ENV = "SENTSPACE_DUC"
#: The ordered sentences the papers' trained substitutes learn from here (a corpus spec).
STATE_UNION = "{data}/state-union/sentences.txt"


def data_root() -> Path:
    """``$SENTSPACE_DATA``, else ``shared/data`` beside the repository."""
    return Path(os.environ.get(DATA_ENV) or Path(__file__).resolve().parents[3] / "shared" / "data")


def duc_folder() -> Path | None:
    """The folder of DUC 2005-2007 ``.pyr`` files a user supplied (``$SENTSPACE_DUC``)."""
    value = os.environ.get(DUC_ENV)
    return Path(value) if value else None


@dataclass(frozen=True)
class Run:
    """One ``sentspace eval`` invocation: evaluation, corpus spec (``{data}`` stands for
    :func:`data_root`), encoder spec and evaluation options (``OPTIONS``)."""

    evaluation: str
    corpus: str
    encoder: str
    options: tuple[tuple[str, str], ...] = ()

    def corpus_spec(self, duc: Path | None = None) -> str:
        """The spec with ``{data}`` resolved, and ``{duc}`` as ``duc``, else the DUC
        folder of ``$SENTSPACE_DUC``, else the shared pyramid sample."""
        return _resolved(self.corpus, duc)

    @property
    def reads_duc(self) -> bool:
        return "{duc}" in self.corpus

    def encoder_spec(self) -> str:
        """The encoder spec with ``{data}`` resolved (a training file)."""
        return _resolved(self.encoder)

    @property
    def label(self) -> str:
        family, _, training = self.encoder.partition(":")
        trained = f" trained on {Path(training).name}" if training else ""
        return f"{self.evaluation} {family}{trained} on {Path(self.corpus).name}"


def pyramid_sample() -> Path:
    """The shared 14-contributor pyramid sample (invented text, not NIST data)."""
    return data_root() / "pyramid-sample"


def is_duc(folder: Path | None) -> bool:
    """Whether ``folder`` stands for DUC pyramids: any folder a user supplies but the
    shared sample."""
    return folder is not None and folder.resolve() != pyramid_sample().resolve()


def _resolved(spec: str, duc: Path | None = None) -> str:
    folder = duc or duc_folder() or pyramid_sample()
    return spec.replace("{data}", str(data_root())).replace("{duc}", str(folder))


@dataclass(frozen=True)
class Cell:
    """One published number and how sentspace re-computes it.

    Attributes
    ----------
    table, row, column : where the paper prints it (its own row and column names).
    printed : the number exactly as printed (garbled OCR kept, see docs/paper-tables.md).
    published : the number on sentspace's scale (a share in 0-1, a rank, a correlation);
        None when the printed text cannot be read as one.
    run : what re-computes it; None when nothing here can. A ``NEEDS`` row may still
        have one: what runs once the need is supplied, or on a stand-in meanwhile (the
        pyramid sample for DUC), as its note says.
    metric : the :class:`~sentspace.app.analysis.results.Score` name of the run's result, or a key of
        ``sentspace.app.reproduce.runner.EXTRACTORS``.
    mark, note : one of :data:`MARKS`, and what was substituted, what is needed, and
        which unstated setting took sentspace's default.
    quick : re-run by ``--quick`` (otherwise only by ``--full``).
    computed : for a cell that is no evaluation's number but a statistic of other
        numbers at hand (Hill et al.'s Table 6, Cronbach's alpha of their own Table 3/4
        scores): () -> (value, items counted), computed by every variant, no run.
    with_data : the mark once the data the run reads is supplied (DUC pyramids for a
        ``{duc}`` run); ``mark`` holds until then.
    outside : why a same-setting re-run lies outside the published value's reach, as
        found by trying (other dimensions, preprocessing); shown beside an outside mark.
    incomparable : why no distance to the published value says anything even in the
        same setting (the test's items cannot be the paper's); the reach is then "not
        comparable" with this reason.
    """

    table: str
    row: str
    column: str
    printed: str
    published: float | None
    run: Run | None
    metric: str
    mark: str
    note: str = ""
    quick: bool = False
    computed: Callable[[], tuple[float, int]] | None = None
    with_data: str | None = None
    outside: str = ""
    incomparable: str = ""

    def __post_init__(self) -> None:
        if self.mark not in MARKS or self.with_data not in (*MARKS, None):
            raise ValueError(f"mark must be one of {MARKS}, not {self.mark!r}")
        if self.run is None and self.computed is None and self.mark != NEEDS:
            raise ValueError(
                f"{self.table} {self.row} {self.column}: a cell without a run "
                "is one that needs something"
            )


@dataclass(frozen=True)
class Table:
    """A published table: its id (``sentspace reproduce PAPER ID``), title and setting;
    ``band``: how far a same-setting re-run may lie from a published value (on
    sentspace's scale) and still reach it when its interval does not cover it."""

    id: str
    title: str
    setting: str
    cells: tuple[Cell, ...]
    band: float = DEFAULT_BAND


@dataclass(frozen=True)
class Count:
    """A count the paper states, measured on the corpus sentspace reads."""

    what: str
    paper: str
    corpus: str
    measure: Callable[..., str]
    note: str = ""
    #: ``measure`` also takes the evaluation options given (``reproduce baumel --items``).
    takes_options: bool = False


@dataclass(frozen=True)
class Finding:
    """A main claim of the paper: ``decide`` gets the evidence
    (:class:`sentspace.app.reproduce.findings.Evidence`: sentspace's and the paper's
    numbers, tests between re-run cells) and returns a
    :class:`~sentspace.app.reproduce.findings.Decision`."""

    claim: str
    decide: Callable[[Any], Any]


@dataclass(frozen=True)
class Paper:
    """A paper: its short name (``sentspace reproduce NAME``), citation, tables, counts
    and findings; ``full_time`` says how long ``--full`` takes."""

    name: str
    title: str
    tables: tuple[Table, ...]
    counts: tuple[Count, ...] = ()
    findings: tuple[Finding, ...] = ()
    full_time: str = ""
    notes: tuple[str, ...] = field(default=())

    def table(self, table_id: str) -> Table:
        for table in self.tables:
            if table.id == table_id:
                return table
        raise KeyError(table_id)


def cell_grid(
    table: str,
    rows: Mapping[str, tuple[Run | None, str, str]],
    columns: Mapping[str, tuple[str, Callable[[str], float | None] | None]],
    printed: Mapping[str, tuple[str, ...]],
    *,
    quick: frozenset[str] = frozenset(),
    column_runs: Callable[[Run, str], Run] | None = None,
    column_notes: Mapping[str, str] | None = None,
) -> tuple[Cell, ...]:
    """Cells of a table printed as models x columns.

    ``rows``: model -> (run of its first column or None, mark, note); ``columns``: column
    -> (metric, parse of the printed text to sentspace's scale); ``printed``: model ->
    the row's printed strings in column order; ``column_runs(run, column)`` gives the run
    of another column (another corpus or option); models in ``quick`` are re-run by
    ``--quick``.
    """
    cells = []
    for model, (run, mark, note) in rows.items():
        for (column, (metric, parse)), text in zip(columns.items(), printed[model], strict=True):
            this_run = run if run is None or column_runs is None else column_runs(run, column)
            extra = (column_notes or {}).get(column, "")
            cells.append(
                Cell(
                    table,
                    model,
                    column,
                    text,
                    parse(text) if parse else None,
                    this_run,
                    metric,
                    mark,
                    "; ".join(n for n in (note, extra) if n),
                    model in quick,
                )
            )
    return tuple(cells)


def number(text: str, scale: float = 1.0) -> float | None:
    """A printed number on sentspace's scale (``"98.37%"`` with scale 0.01 -> 0.9837;
    ``".52"`` -> 0.52); None for text that is not a number as printed (OCR damage)."""
    cleaned = text.strip().rstrip("%").strip()
    try:
        return round(float(cleaned) * scale, 10)
    except ValueError:
        return None


def percent(text: str) -> float | None:
    return number(text, 0.01)
