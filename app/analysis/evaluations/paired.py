"""Is encoder A really better than B on the same items? One paired test per evaluation.

McNemar for classification (per-sentence correctness), and a paired permutation test
for the headline metric of relatedness (Spearman on per-pair cosines), ranking (MRR on
per-query reciprocal ranks), detection (average precision on per-pair cosines) and
bitext (MTEB's F1 on per-query shares).

:func:`against_first` is how ``sentspace eval`` with several ``--encoder`` tests them;
:func:`paired_tests_of_runs` makes the same tests for the window's *Across encoders*
bars, a command at a time, as the command shown under them prints them.
"""

from __future__ import annotations

import inspect
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sentspace.app.analysis.evaluations import statistics
from sentspace.app.analysis.evaluations.agreement import compare_classifications
from sentspace.app.base.commands import comparison_commands
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress, run_job


def _same_items(a_items: np.ndarray, b_items: np.ndarray) -> None:
    if not np.array_equal(a_items, b_items):
        raise EvaluationError(
            "the two results were computed on different items (another corpus, split or seed)"
        )


def _permutation(metric, field: str, items: str, gold: str | None = None) -> Callable:
    def test(a, b, seed: int) -> Job[statistics.PairedTest]:
        _same_items(getattr(a, items), getattr(b, items))
        reference = None if gold is None else getattr(a, gold)
        return statistics.iter_paired_permutation_test(
            metric, field_of(a), field_of(b), reference, seed=seed
        )

    def field_of(result):
        value = getattr(result, field)
        return 1.0 / value if field == "rank" else value

    return test


#: evaluation name -> (what is compared, test(a, b, seed) -> PairedTest, or a job of
#: one when it takes seconds)
PAIRED_TESTS: dict[str, tuple[str, Callable]] = {
    "classification": ("accuracy (McNemar)", lambda a, b, seed: compare_classifications(a, b)),
    "relatedness": (
        "pooled Spearman",
        _permutation(statistics.spearman, "cosine", "pair_index", "gold"),
    ),
    "ranking": ("MRR", _permutation(statistics.mean, "rank", "query")),
    "detection": (
        "average precision",
        _permutation(statistics.average_precision, "cosine", "pair_index", "label"),
    ),
    "bitext": ("F1 (MTEB)", _permutation(statistics.mean, "f1_share", "query")),
}


#: evaluation name -> the score (``Result.scores()``, an *Across encoders* metric) its
#: paired test compares.
TESTED_SCORES: dict[str, str] = {
    "classification": "mean accuracy",
    "relatedness": "pooled spearman",
    "ranking": "MRR",
    "detection": "average precision",
    "bitext": "F1",
}


def paired_test(evaluation: str, a, b, *, seed: int = 0) -> statistics.PairedTest:
    """Compare two results of ``evaluation`` on the same items; raises EvaluationError
    when the evaluation has no paired test or the items differ."""
    return run_job(iter_paired_test(evaluation, a, b, seed=seed))


def iter_paired_test(evaluation: str, a, b, *, seed: int = 0) -> Job[statistics.PairedTest]:
    """:func:`paired_test` as a job, cancellable between chunks of permutations."""
    if evaluation not in PAIRED_TESTS:
        raise EvaluationError(f"no paired test for {evaluation}")
    for result in (a, b):
        if getattr(result, "imported", False):
            raise EvaluationError(
                f"{result.provenance.encoder_name} is an imported score "
                "with no per-item outcomes: it has no paired test"
            )
    test = PAIRED_TESTS[evaluation][1](a, b, seed)
    return (yield from test) if inspect.isgenerator(test) else test


@dataclass(frozen=True)
class PairedOutcome:
    """Result ``b`` tested against result ``a`` (the first): the test, or why none was
    made. The test's A is ``b`` and its B is ``a``, so its difference reads ``b`` minus
    ``a``: an encoder better than the first shows a positive number."""

    a: Any
    b: Any
    test: statistics.PairedTest | None
    reason: str = ""

    @property
    def why_not(self) -> str:
        """Why no test was made, as ``sentspace eval`` says it ("" when one was)."""
        return (
            f"no paired test of {self.b.provenance.encoder_name} against "
            f"{self.a.provenance.encoder_name}: {self.reason}"
            if self.test is None
            else ""
        )


def against_first(evaluation: str, results: Sequence[Any], seed: int) -> Job[list[PairedOutcome]]:
    """Each of ``results[1:]`` tested against ``results[0]`` with ``seed``: the paired
    tests ``sentspace eval`` prints for an ``--encoder`` each (a permutation test takes
    seconds, hence a job)."""
    outcomes = []
    for done, other in enumerate(results[1:]):
        yield Progress("paired tests", done, len(results) - 1)
        try:
            test = yield from iter_paired_test(evaluation, other, results[0], seed=seed)
            outcomes.append(PairedOutcome(results[0], other, test))
        except EvaluationError as error:
            # The results stand on their own; the test says why it was not made.
            outcomes.append(PairedOutcome(results[0], other, None, str(error)))
    return outcomes


@dataclass(frozen=True)
class CommandTests:
    """The paired tests one ``sentspace eval`` command (an ``--encoder`` each) prints."""

    command: str
    outcomes: list[PairedOutcome]


def seed_of(command: str) -> int:
    """The ``--seed`` of an ``eval`` command (the CLI's default, 0, without one)."""
    words = shlex.split(command)
    return int(words[words.index("--seed") + 1]) if "--seed" in words else 0


def paired_tests_of_runs(
    evaluation: str, runs: Sequence[tuple[Any, str]]
) -> Job[list[CommandTests]]:
    """The paired tests of the *Across encoders* bars of ``evaluation`` (``(result,
    command)`` each, in bar order): for each command that makes them
    (:func:`~sentspace.app.base.commands.comparison_commands`) of two encoders or more, each
    encoder tested against its first with its seed, the numbers that command prints."""
    tested = []
    for command, members in comparison_commands(runs):
        if len(members) > 1:
            outcomes = yield from against_first(
                evaluation, [runs[k][0] for k in members], seed_of(command)
            )
            tested.append(CommandTests(command, outcomes))
    return tested


@dataclass(frozen=True)
class BarsTests:
    """The paired tests of one set of *Across encoders* bars of ``evaluation``: its
    ``runs`` (``(result, command)`` each, in bar order) and the tests
    :func:`paired_tests_of_runs` made of them. A corpus keeps these with its results, and
    a workspace saves them, so they are shown again without being made again."""

    evaluation: str
    runs: tuple[tuple[Any, str], ...]
    tests: tuple[CommandTests, ...]

    def of(self, evaluation: str, runs: Sequence[tuple[Any, str]]) -> bool:
        """Whether these are the tests of ``runs``: the same results (the objects, not
        equal copies) with the same commands."""
        return (
            self.evaluation == evaluation
            and len(self.runs) == len(runs)
            and all(
                mine is theirs and command == other
                for (mine, command), (theirs, other) in zip(self.runs, runs)
            )
        )


def bars_tests_again(
    evaluation: str,
    runs: Sequence[tuple[Any, str]],
    outcomes: dict[tuple[int, int], tuple[statistics.PairedTest | None, str]],
) -> BarsTests | None:
    """The :class:`BarsTests` of ``runs`` (the bars as reopened) from their tests as
    kept: ``outcomes[(a, b)]`` is bar ``b`` tested against bar ``a`` (or why it was not).
    None when they no longer fit the bars (their commands group them otherwise, a test
    is missing): they are then made again."""
    tested = []
    for command, members in comparison_commands(runs):
        if len(members) < 2:
            continue
        first = members[0]
        made = []
        for other in members[1:]:
            if (first, other) not in outcomes:
                return None
            test, reason = outcomes[first, other]
            made.append(PairedOutcome(runs[first][0], runs[other][0], test, reason))
        tested.append(CommandTests(command, made))
    if sum(len(command.outcomes) for command in tested) != len(outcomes):
        return None
    return BarsTests(evaluation, tuple(runs), tuple(tested))
