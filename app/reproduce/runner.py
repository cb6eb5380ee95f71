"""Re-running a paper's cells: the job that runs each distinct :class:`Run` once through
``sentspace.app.evaluations.EVALUATIONS`` (encodings through the on-disk cache, so a rerun reuses
them), and the :class:`Report` of one row per published cell."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sentspace.app.commands import eval_command
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus
from sentspace.app.errors import CorpusError, EvaluationError, InputError
from sentspace.app.evaluations import EVALUATIONS, statistics
from sentspace.app.jobs import Job, Progress
from sentspace.app.reproduce.model import NEEDS, Cell, Paper, Run
from sentspace.app.results import Result
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
    f"similarity at rank {r}": _latent_similarity(SOUP_REFERENCE, r) for r in range(1, 6)}


def _bootstrap_mean(values: np.ndarray, seed: int) -> tuple[float, float]:
    return statistics.bootstrap_ci(statistics.mean, np.asarray(values, dtype=float),
                                   n_resamples=RESAMPLES, seed=seed)


def _interval(result: Any, metric: str, seed: int) -> tuple[float, float] | None:
    """A 95% bootstrap interval over the result's items for metrics that are a mean of
    per-item outcomes but whose result reports no interval."""
    if result.evaluation == "classification" and metric == "mean accuracy":
        return _bootstrap_mean(result.true_group == result.predicted_group, seed)
    if result.evaluation == "pyramid" and metric == "ranking success rate":
        return _bootstrap_mean(result.ranking.rank == 1, seed)
    if result.evaluation == "pyramid" and metric == "ranking MRR":
        return _bootstrap_mean(1.0 / result.ranking.rank, seed)
    if result.evaluation == "costra" and metric in result.class_names:
        index = result.class_names.index(metric)
        return _bootstrap_mean(result.passed[result.comparisons.class_index == index], seed)
    return None


def measure(result: Result, metric: str, seed: int = 0
            ) -> tuple[float, tuple[float, float] | None, int | None]:
    """(value, 95% interval or None, items) of ``metric`` in ``result``."""
    if metric in EXTRACTORS:
        return EXTRACTORS[metric](result)
    for score in result.scores():
        if score.name == metric:
            ci = score.ci if score.ci is not None else _interval(result, metric, seed)
            return float(score.value), ci, score.n
    raise KeyError(f"{result.evaluation} reports no {metric!r} "
                   f"(it reports {', '.join(s.name for s in result.scores())})")


@dataclass(frozen=True)
class Row:
    """One published cell beside sentspace's number for it.

    ``value`` is None when the cell was not re-run: its mark is "needs", it is outside
    ``--quick``, or its run failed (``error``).
    """

    cell: Cell
    value: float | None = None
    ci: tuple[float, float] | None = None
    n: int | None = None
    command: str = ""
    error: str = ""
    skipped: str = ""

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
        return {"table": cell.table, "row": cell.row, "column": cell.column,
                "printed": cell.printed, "published": cell.published,
                "value": self.value, "ci": list(self.ci) if self.ci else None, "n": self.n,
                "difference": self.difference, "mark": cell.mark, "note": cell.note,
                "metric": cell.metric, "command": self.command, "status": self.status}


@dataclass(frozen=True)
class CountCheck:
    what: str
    paper: str
    ours: str
    note: str = ""


@dataclass(frozen=True)
class FindingCheck:
    claim: str
    supported: bool | None
    evidence: str

    @property
    def verdict(self) -> str:
        return {True: "supported", False: "not supported", None: "not decided"}[self.supported]


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


def planned_runs(paper: Paper, tables: Sequence[str] | None = None,
                 variant: str = QUICK) -> list[Run]:
    """The distinct runs a reproduction makes, in table order grouped by encoder: a
    process remembers only its last few trainings on a file
    (:func:`sentspace.models.neural._remembered`), so an encoder's runs one after another
    train it once, where table order (Table 3's tasks, then Table 4's) would train it
    again."""
    runs: dict[Run, None] = {}
    for cell in selected_cells(paper, tables):
        if cell.run is not None and (variant == FULL or cell.quick):
            runs.setdefault(cell.run)
    first_seen = {encoder: k for k, encoder in reversed(list(enumerate(
        run.encoder for run in runs)))}
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


def run_reproduction(paper: Paper, tables: Sequence[str] | None = None, *,
                     variant: str = QUICK, seed: int = 0) -> Job[Report]:
    """Re-run ``paper``'s tables (all, or the ids in ``tables``): every distinct run once,
    ``--quick`` (``variant="quick"``: the cells marked quick) or ``--full``; a run that
    fails leaves its rows without a value and says why, the others go on."""
    if variant not in (QUICK, FULL):
        raise ValueError(f"variant must be {QUICK} or {FULL}, not {variant!r}")
    started = time.perf_counter()
    cells = selected_cells(paper, tables)
    runs = planned_runs(paper, tables, variant)
    corpora: dict[str, Corpus] = {}
    results: dict[Run, Result] = {}
    errors: dict[Run, str] = {}
    for k, run in enumerate(runs):
        yield Progress(f"{paper.name} [{k + 1}/{len(runs)}] {run.label}", k, len(runs))
        evaluation, _ = EVALUATIONS[run.evaluation]
        try:
            spec = run.corpus_spec()
            if spec not in corpora:
                corpora[spec] = load_corpus(spec)
            encoder = make_encoder(run.encoder_spec())
            results[run] = yield from _relabelled(
                evaluation(corpora[spec], encoder, seed=seed, **dict(run.options)),
                f"{paper.name} [{k + 1}/{len(runs)}] {run.label}")
        except (CorpusError, EvaluationError, InputError, ModelError) as error:
            errors[run] = str(error)
    rows = [_row(cell, results, errors, variant, seed) for cell in cells]
    counts = yield from _counts(paper, corpora)
    lookup = {(r.cell.table, r.cell.row, r.cell.column): r.value for r in rows}
    findings = tuple(FindingCheck(f.claim, *f.decide(lambda t, r, c: lookup.get((t, r, c))))
                     for f in paper.findings)
    return Report(paper=paper, tables=tuple(tables or (t.id for t in paper.tables)),
                  variant=variant, seed=seed, rows=tuple(rows), counts=counts,
                  findings=findings, seconds=time.perf_counter() - started, results=results)


def _row(cell: Cell, results: dict[Run, Result], errors: dict[Run, str], variant: str,
         seed: int) -> Row:
    if cell.computed is not None:
        value, n = cell.computed()
        return Row(cell, value, None, n)
    if cell.run is None:
        return Row(cell, skipped=f"{NEEDS}: {cell.note}")
    command = eval_command(cell.run.evaluation, cell.run.corpus_spec(),
                           [cell.run.encoder_spec()], seed, dict(cell.run.options))
    if cell.run in errors:
        return Row(cell, command=command, error=errors[cell.run])
    if cell.run not in results:
        return Row(cell, command=command,
                   skipped="outside --quick" if variant == QUICK else "not re-run")
    value, ci, n = measure(results[cell.run], cell.metric, seed)
    ci = None if ci is None or not all(math.isfinite(x) for x in ci) else ci
    return Row(cell, value, ci, n, command)


def _counts(paper: Paper, corpora: dict[str, Corpus]) -> Job[tuple[CountCheck, ...]]:
    checks = []
    for k, count in enumerate(paper.counts):
        yield Progress(f"{paper.name}: checking the paper's counts", k, len(paper.counts))
        spec = Run("", count.corpus, "").corpus_spec()
        try:
            if spec not in corpora:
                corpora[spec] = load_corpus(spec)
            ours = count.measure(corpora[spec])
        except (CorpusError, EvaluationError) as error:
            ours = f"not measured: {error}"
        checks.append(CountCheck(count.what, count.paper, ours, count.note))
    return tuple(checks)
