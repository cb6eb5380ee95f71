"""Re-running a paper's cells: the job that runs each distinct :class:`Run` once through
``sentspace.app.analysis.evaluations.EVALUATIONS`` (encodings through the on-disk cache, so a rerun reuses
them), and the :class:`Report` of one row per published cell."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.analysis.evaluations import EVALUATIONS, OPTIONS, statistics
from sentspace.app.analysis.results import Result
from sentspace.app.base.commands import eval_command, reproduce_command
from sentspace.app.base.errors import CorpusError, EvaluationError, InputError
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus
from sentspace.app.reproduce.findings import (
    NOT_SUPPORTED,
    SUPPORTED,
    Decision,
    Strata,
    test_cells,
)
from sentspace.app.reproduce.model import (
    DEFAULT_BAND,
    NEEDS,
    NOT_COMPARABLE,
    OUTSIDE,
    SAME,
    WITHIN,
    Cell,
    Paper,
    Run,
    duc_folder,
    is_duc,
)
from sentspace.models import make_encoder
from sentspace.models.base import ModelError

QUICK, FULL = "quick", "full"
#: Bootstrap resamples of the intervals computed here from per-item outcomes (for
#: metrics whose result carries none): the evaluations' own default.
RESAMPLES = statistics.DEFAULT_RESAMPLES


def _latent_similarity(anchor: str, rank: int) -> Callable[[Result], tuple[float, None, int]]:
    """The cosine of the sentence at ``rank`` among the others, seen from the sentence
    ``anchor`` (Triantafillou2016 Table 8)."""

    def extract(result: Any) -> tuple[float, None, int]:
        row = int(np.flatnonzero(result.sentence_id == anchor)[0])
        ranks, similarities = result.rank[row], result.similarity[row]
        other = np.flatnonzero(ranks == rank)
        return float(similarities[other[0]]), None, len(ranks) - 1

    return extract


#: "My soup is not hot anymore" in latent-relatedness/soup.tsv (ids are file lines).
SOUP_REFERENCE = "L7"
#: Metrics that are not a result's Score, by the name a Cell gives.
EXTRACTORS: dict[str, Callable[[Result], tuple[float, tuple[float, float] | None, int]]] = {
    f"similarity at rank {r}": _latent_similarity(SOUP_REFERENCE, r) for r in range(1, 6)
}


def _bootstrap_share(
    outcomes: np.ndarray, seed: int, strata: np.ndarray | None = None
) -> tuple[float, float]:
    return statistics.percentile_interval(
        statistics.share_bootstrap_distribution(outcomes, strata, n_resamples=RESAMPLES, seed=seed)
    )


def _interval(result: Any, metric: str, seed: int) -> tuple[float, float] | None:
    """A 95% bootstrap interval over the result's items for metrics that are a mean of
    per-item outcomes but whose result reports no interval (0/1 outcomes drawn as
    binomials: :func:`~sentspace.app.analysis.evaluations.statistics.share_bootstrap_distribution`)."""
    if result.evaluation == "pyramid" and metric == "ranking success rate":
        return _bootstrap_share(result.ranking.rank == 1, seed)
    if result.evaluation == "pyramid" and metric == "ranking MRR":
        return statistics.bootstrap_ci(
            statistics.mean, 1.0 / result.ranking.rank, n_resamples=RESAMPLES, seed=seed
        )
    if result.evaluation == "costra" and metric in result.class_names:
        index = result.class_names.index(metric)
        return _bootstrap_share(result.passed[result.comparisons.class_index == index], seed)
    if result.evaluation == "costra" and metric == "mean":
        # Each class resampled on its own: Costra fixes how many comparisons each has.
        return _bootstrap_share(result.passed, seed, result.comparisons.class_index)
    return None


def measure(
    result: Result, metric: str, seed: int = 0
) -> tuple[float, tuple[float, float] | None, int | None]:
    """(value, 95% interval or None, items) of ``metric`` in ``result``."""
    if metric in EXTRACTORS:
        return EXTRACTORS[metric](result)
    for score in result.scores():
        if score.name == metric:
            ci = score.ci if score.ci is not None else _interval(result, metric, seed)
            return float(score.value), ci, score.n
    raise KeyError(
        f"{result.evaluation} reports no {metric!r} "
        f"(it reports {', '.join(s.name for s in result.scores())})"
    )


@dataclass(frozen=True)
class Row:
    """One published cell beside sentspace's number for it.

    ``value`` is None when the cell was not re-run: its mark is "needs", it is outside
    ``--quick``, or its run failed (``error``). ``mark`` is the cell's mark as the data
    supplied makes it (a DUC row is "needs" on the sample, its own mark on DUC);
    ``band`` is the table's.
    """

    cell: Cell
    value: float | None = None
    ci: tuple[float, float] | None = None
    n: int | None = None
    command: str = ""
    error: str = ""
    skipped: str = ""
    mark: str = ""
    band: float = DEFAULT_BAND

    def __post_init__(self) -> None:
        if not self.mark:
            object.__setattr__(self, "mark", self.cell.mark)

    @property
    def reach(self) -> str | None:
        """Whether the re-run reaches the published value (:data:`WITHIN`,
        :data:`OUTSIDE`, :data:`NOT_COMPARABLE`); None when there is no pair of numbers."""
        if self.value is None or self.cell.published is None:
            return None
        if self.mark != SAME or self.cell.incomparable:
            return NOT_COMPARABLE
        covered = self.ci is not None and self.ci[0] <= self.cell.published <= self.ci[1]
        difference = self.value - self.cell.published
        return WITHIN if covered or abs(difference) <= self.band + 1e-12 else OUTSIDE

    @property
    def reach_text(self) -> str:
        """The reach as shown: why for "not comparable", the cause found for "outside"."""
        reach = self.reach
        if reach is None:
            return ""
        if reach == NOT_COMPARABLE:
            return f"{reach} ({self.cell.incomparable if self.mark == SAME else self.mark})"
        if reach == OUTSIDE:
            return f"{reach}: {self.cell.outside or 'no cause recorded'}"
        how = (
            "interval covers it"
            if self.ci is not None
            and self.cell.published is not None
            and self.ci[0] <= self.cell.published <= self.ci[1]
            else f"within the band {self.band}"
        )
        return f"{reach} ({how})"

    @property
    def difference(self) -> float | None:
        if self.value is None or self.cell.published is None:
            return None
        return self.value - self.cell.published

    @property
    def status(self) -> str:
        """What the row's number is: "ran", or why there is none."""
        if self.value is not None:
            return "ran"
        if self.error:
            return f"failed: {self.error}"
        return self.skipped or "not re-run"

    def to_dict(self) -> dict[str, Any]:
        cell = self.cell
        return {
            "table": cell.table,
            "row": cell.row,
            "column": cell.column,
            "printed": cell.printed,
            "published": cell.published,
            "value": self.value,
            "ci": list(self.ci) if self.ci else None,
            "n": self.n,
            "difference": self.difference,
            "mark": self.mark,
            "reach": self.reach,
            "reach_note": self.reach_text,
            "band": self.band,
            "note": cell.note,
            "metric": cell.metric,
            "command": self.command,
            "status": self.status,
        }


@dataclass(frozen=True)
class CountCheck:
    what: str
    paper: str
    ours: str
    note: str = ""


@dataclass(frozen=True)
class FindingCheck:
    """A claim and its :class:`~sentspace.app.reproduce.findings.Decision`."""

    claim: str
    decision: Decision

    @property
    def verdict(self) -> str:
        return self.decision.verdict

    @property
    def supported(self) -> bool | None:
        """True when supported, False when not, None for no difference or not decided."""
        return {SUPPORTED: True, NOT_SUPPORTED: False}.get(self.verdict)

    @property
    def evidence(self) -> str:
        d = self.decision
        tested = (
            f" Deciding test: effect {d.effect:+.4f}, p {d.p_value:.3g}."
            if d.p_value is not None and d.effect is not None
            else ""
        )
        paper = f" On the paper's numbers: {d.paper}." if d.paper else ""
        return f"Compared: {d.comparison}. {d.evidence}.{tested}{paper}"

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, **asdict(self.decision)}


@dataclass(frozen=True, eq=False)
class Report:
    """A paper re-run: one row per published cell, the counts, the findings; ``results``
    holds each run's evaluation result (so a view can show the result behind a row)."""

    paper: Paper
    tables: tuple[str, ...]
    variant: str
    seed: int
    rows: tuple[Row, ...]
    counts: tuple[CountCheck, ...]
    findings: tuple[FindingCheck, ...]
    seconds: float
    results: dict[Run, Result] = field(default_factory=dict)
    #: The DUC folder the ``{duc}`` runs read (None: $SENTSPACE_DUC or the sample) and
    #: the evaluation options given beside the paper's (``reproduce baumel --items``).
    data: Path | None = None
    options: tuple[tuple[str, str], ...] = ()

    @property
    def command(self) -> str:
        """The shell command that makes this report again (one per table when it holds
        some of the paper's tables, the command line taking one or all)."""
        if list(self.tables) == [table.id for table in self.paper.tables]:
            return reproduce_command(
                self.paper.name, self.variant, self.seed, data=self.data, options=self.options
            )
        return "; ".join(
            reproduce_command(
                self.paper.name,
                self.variant,
                self.seed,
                table,
                data=self.data,
                options=self.options,
            )
            for table in self.tables
        )

    def result_of(self, row: Row) -> Result | None:
        """The evaluation result a row's number comes from (None when not re-run)."""
        return self.results.get(row.cell.run) if row.cell.run is not None else None

    def value(self, table: str, row: str, column: str) -> float | None:
        for r in self.rows:
            if (r.cell.table, r.cell.row, r.cell.column) == (table, row, column):
                return r.value
        raise KeyError((table, row, column))


def selected_cells(paper: Paper, tables: Sequence[str] | None = None) -> list[Cell]:
    chosen = [paper.table(t) for t in tables] if tables else list(paper.tables)
    return [cell for table in chosen for cell in table.cells]


def planned_runs(
    paper: Paper, tables: Sequence[str] | None = None, variant: str = QUICK
) -> list[Run]:
    """The distinct runs a reproduction makes, in table order grouped by encoder: a
    process remembers only its last few trainings on a file
    (:func:`sentspace.models.neural._remembered`), so an encoder's runs one after another
    train it once, where table order (Table 3's tasks, then Table 4's) would train it
    again."""
    runs: dict[Run, None] = {}
    for cell in selected_cells(paper, tables):
        if cell.run is not None and (variant == FULL or cell.quick):
            runs.setdefault(cell.run)
    first_seen = {
        encoder: k for k, encoder in reversed(list(enumerate(run.encoder for run in runs)))
    }
    return sorted(runs, key=lambda run: first_seen[run.encoder])


def _relabelled(job: Job, prefix: str) -> Job:
    """``job`` with each stage prefixed; closing this closes ``job`` (cancel)."""
    try:
        while True:
            try:
                progress = next(job)
            except StopIteration as stop:
                return stop.value
            yield Progress(f"{prefix}: {progress.stage}", progress.done, progress.total)
    finally:
        job.close()


def _with_options(run: Run, options: dict[str, str]) -> Run:
    """``run`` with the given evaluation options where its evaluation takes them."""
    offered = OPTIONS.get(run.evaluation, {})
    chosen = {**dict(run.options), **{k: v for k, v in options.items() if k in offered}}
    return replace(run, options=tuple(chosen.items()))


def run_reproduction(
    paper: Paper,
    tables: Sequence[str] | None = None,
    *,
    variant: str = QUICK,
    seed: int = 0,
    data: Path | None = None,
    options: dict[str, str] | None = None,
) -> Job[Report]:
    """Re-run ``paper``'s tables (all, or the ids in ``tables``): every distinct run once,
    ``--quick`` (``variant="quick"``: the cells marked quick) or ``--full``; a run that
    fails leaves its rows without a value and says why, the others go on.

    ``data`` is the DUC folder the pyramid rows read (else ``$SENTSPACE_DUC``, else the
    shared sample); ``options`` (evaluation options, ``{"items": "labels"}``) replace the
    paper's reading in every run whose evaluation takes them. Findings are decided by the
    tests of :mod:`sentspace.app.reproduce.findings`."""
    if variant not in (QUICK, FULL):
        raise ValueError(f"variant must be {QUICK} or {FULL}, not {variant!r}")
    started = time.perf_counter()
    options = dict(options or {})
    data = data or duc_folder()
    cells = selected_cells(paper, tables)
    runs = planned_runs(paper, tables, variant)
    corpora: dict[str, Corpus] = {}
    results: dict[Run, Result] = {}
    errors: dict[Run, str] = {}
    for k, run in enumerate(runs):
        yield Progress(f"{paper.name} [{k + 1}/{len(runs)}] {run.label}", k, len(runs))
        evaluation, _ = EVALUATIONS[run.evaluation]
        try:
            spec = run.corpus_spec(data)
            if spec not in corpora:
                corpora[spec] = load_corpus(spec)
            encoder = make_encoder(run.encoder_spec())
            results[run] = yield from _relabelled(
                evaluation(
                    corpora[spec], encoder, seed=seed, **dict(_with_options(run, options).options)
                ),
                f"{paper.name} [{k + 1}/{len(runs)}] {run.label}",
            )
        except (CorpusError, EvaluationError, InputError, ModelError) as error:
            errors[run] = str(error)
    bands = {table.id: table.band for table in paper.tables}
    rows = [
        _row(cell, results, errors, variant, seed, data, options, bands[cell.table])
        for cell in cells
    ]
    counts = yield from _counts(paper, corpora, data, options)
    yield Progress(f"{paper.name}: testing the findings", 0, 1)
    evidence = _Evidence(
        rows,
        results,
        seed,
        lambda table: reproduce_command(
            paper.name, FULL, seed, table, data=data, options=tuple(options.items())
        ),
    )
    findings = tuple(FindingCheck(f.claim, f.decide(evidence)) for f in paper.findings)
    return Report(
        paper=paper,
        tables=tuple(tables or (t.id for t in paper.tables)),
        variant=variant,
        seed=seed,
        rows=tuple(rows),
        counts=counts,
        findings=findings,
        seconds=time.perf_counter() - started,
        results=results,
        data=data,
        options=tuple(options.items()),
    )


class _Evidence:
    """:class:`~sentspace.app.reproduce.findings.Evidence` over a run's rows: tests
    between two cells' results, each made once."""

    def __init__(
        self,
        rows: Sequence[Row],
        results: dict[Run, Result],
        seed: int,
        full_command: Callable[[str], str],
    ):
        self._rows = {(r.cell.table, r.cell.row, r.cell.column): r for r in rows}
        self._results, self._seed = results, seed
        self._full_command = full_command
        self._tests: dict[tuple, statistics.PairedTest | None] = {}

    def missing(self, table: str, row: str, column: str) -> str:
        found = self._rows.get((table, row, column))
        if found is None or found.skipped in ("outside --quick", "not re-run"):
            why = found.skipped if found is not None else f"{table} not selected"
            return f"{why}: {self._full_command(table)}"
        if found.error:
            return f"failed: {found.error}; {found.command}"
        return found.status

    def value(self, table: str, row: str, column: str) -> float | None:
        found = self._rows.get((table, row, column))
        return None if found is None else found.value

    def published(self, table: str, row: str, column: str) -> float | None:
        found = self._rows.get((table, row, column))
        return None if found is None else found.cell.published

    def interval(self, table: str, row: str, column: str) -> tuple[float, float] | None:
        found = self._rows.get((table, row, column))
        return None if found is None else found.ci

    def test(
        self, a: tuple[str, str, str], b: tuple[str, str, str], strata: Strata | None = None
    ) -> statistics.PairedTest | None:
        if (a, b, strata) not in self._tests:
            row_a, row_b = self._rows[a], self._rows[b]
            result_a = self._results.get(row_a.cell.run) if row_a.cell.run else None
            result_b = self._results.get(row_b.cell.run) if row_b.cell.run else None
            self._tests[a, b, strata] = (
                None
                if result_a is None or result_b is None
                else test_cells(
                    result_a,
                    row_a.cell.metric,
                    result_b,
                    row_b.cell.metric,
                    seed=self._seed,
                    strata=strata,
                )
            )
        return self._tests[a, b, strata]


def _row(
    cell: Cell,
    results: dict[Run, Result],
    errors: dict[Run, str],
    variant: str,
    seed: int,
    data: Path | None = None,
    options: dict[str, str] | None = None,
    band: float = DEFAULT_BAND,
) -> Row:
    mark = (
        cell.with_data
        if cell.with_data and cell.run is not None and cell.run.reads_duc and is_duc(data)
        else cell.mark
    )
    if cell.computed is not None:
        value, n = cell.computed()
        return Row(cell, value, None, n, mark=mark, band=band)
    if cell.run is None:
        # The note's first clause says what is needed; the rest is in the notes.
        return Row(cell, skipped=f"{NEEDS}: {cell.note.split(';')[0]}", mark=mark, band=band)
    run = _with_options(cell.run, options or {})
    command = eval_command(
        run.evaluation, run.corpus_spec(data), [run.encoder_spec()], seed, dict(run.options)
    )
    if cell.run in errors:
        return Row(cell, command=command, error=errors[cell.run], mark=mark, band=band)
    if cell.run not in results:
        return Row(
            cell,
            command=command,
            skipped="outside --quick" if variant == QUICK else "not re-run",
            mark=mark,
            band=band,
        )
    value, ci, n_items = measure(results[cell.run], cell.metric, seed)
    ci = None if ci is None or not all(math.isfinite(x) for x in ci) else ci
    return Row(cell, value, ci, n_items, command, mark=mark, band=band)


def _counts(
    paper: Paper, corpora: dict[str, Corpus], data: Path | None, options: dict[str, str]
) -> Job[tuple[CountCheck, ...]]:
    checks = []
    for k, count in enumerate(paper.counts):
        yield Progress(f"{paper.name}: checking the paper's counts", k, len(paper.counts))
        spec = Run("", count.corpus, "").corpus_spec(data)
        try:
            if spec not in corpora:
                corpora[spec] = load_corpus(spec)
            ours = (
                count.measure(corpora[spec], **options)
                if count.takes_options
                else count.measure(corpora[spec])
            )
        except (CorpusError, EvaluationError) as error:
            ours = f"not measured: {error}"
        checks.append(CountCheck(count.what, count.paper, ours, count.note))
    return tuple(checks)
