"""The ``sentspace`` command lines the app shows beside its results, built in one place
so the CLI, the session and the views agree (kept light: the session imports it)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def option_flag(name: str) -> str:
    """The command-line flag of an evaluation option (``OPTIONS``): ``--negative-overlap``."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class Version:
    """Which version of a corpus a command works on: the original (no journals), or
    the original as the records of ``journals`` (merged) leave it, up to and including
    the record ``until`` (None: all of them)."""

    journals: tuple[str, ...] = ()
    until: str | None = None

    def words(self) -> list[str]:
        """``--journal FILE ... [--until RECORD]``: nothing for the original."""
        words = [word for journal in self.journals for word in ("--journal", journal)]
        return words + (["--until", self.until] if self.until else [])


ORIGINAL = Version()


def eval_command(
    evaluation: str,
    corpus: str,
    encoders: Sequence[str],
    seed: int,
    options: Mapping[str, str] | None = None,
    version: Version = ORIGINAL,
) -> str:
    """The shell command that reproduces ``evaluation`` of ``corpus`` (a built-in name or
    path; edited: the ``version`` its journals give) by ``encoders`` (specs; several for
    a comparison) with ``seed`` and the evaluation's ``options`` (keyword: value); shown
    beside every result in the app."""
    words = ["sentspace", "eval", evaluation, "--corpus", corpus, *version.words()]
    for spec in encoders:
        words += ["--encoder", spec]
    words += ["--seed", str(seed)]
    for name, value in (options or {}).items():
        words += [option_flag(name), value]
    return shlex.join(words)


#: The layout parameters ``export-map`` takes as flags (``--n-neighbors``...), as
#: ``app.projection.project`` names them; ``--pca-dims none`` skips the reduction.
LAYOUT_PARAMETERS = ("n_neighbors", "min_dist", "metric", "perplexity", "pca_dims")


def export_map_command(
    corpus: str,
    encoder: str,
    method: str,
    seed: int,
    out: str | Path,
    *,
    layout: Mapping[str, Any] | None = None,
    regions: bool = False,
    search: str = "auto",
    version: Version = ORIGINAL,
) -> str:
    """The shell command that writes the map of ``corpus`` (its ``version``) by
    ``encoder`` laid out by ``method`` with ``seed`` and the ``layout`` parameters
    (those of :data:`LAYOUT_PARAMETERS` that differ from the defaults) to ``out``,
    regions labelled when ``regions``, faithfulness's neighbours found as ``search``
    says; shown for a map the window exported."""
    words = [
        "sentspace",
        "export-map",
        "--corpus",
        corpus,
        *version.words(),
        "--encoder",
        encoder,
        "--method",
        method,
        "--seed",
        str(seed),
    ]
    for name, value in (layout or {}).items():
        words += [option_flag(name), "none" if value is None else str(value)]
    words += (["--regions"] if regions else []) + (["--search", search] if search != "auto" else [])
    return shlex.join(words + ["--out", str(out)])


def reproduce_command(
    paper: str,
    variant: str,
    seed: int,
    table: str | None = None,
    *,
    data: str | Path | None = None,
    options: Sequence[tuple[str, str]] = (),
) -> str:
    """The shell command that re-runs ``paper``'s ``table`` (None: all) as ``variant``
    ("quick" or "full") with ``seed``, the pyramid ``data`` folder and the ``options``
    (name, value) it was given; shown with a reproduction's report."""
    words = [
        "sentspace",
        "reproduce",
        paper,
        *([table] if table else []),
        f"--{variant}",
        "--seed",
        str(seed),
        *(["--data", str(data)] if data is not None else []),
    ]
    for name, value in options:
        words += [option_flag(name), value]
    return shlex.join(words)


#: Parameters a result records about its encoder, not settings of its evaluation: a
#: command with an --encoder each makes results that differ in them (classification
#: refits bow on no fold and tfidf on each), and its paired tests compare them.
ENCODER_FACTS = ("refit_per_fold",)


def comparison_command(runs: Sequence[tuple[Any, str]]) -> str:
    """The ``sentspace eval`` commands, one a line, that make the bars of an *Across
    encoders* chart (see :func:`comparison_commands`)."""
    return "\n".join(command for command, _ in comparison_commands(runs))


def comparison_commands(runs: Sequence[tuple[Any, str]]) -> list[tuple[str, list[int]]]:
    """The runs' (``(result, command)`` each, in bar order) commands that differ only in
    their encoder and evaluated with the same parameters (relatedness's split as it was
    resolved for each) merged into one with an ``--encoder`` each, in order; each with
    the index of the first run of each of its encoders (what that command makes, in its
    order). A run without a command (a version no journal gives) is left out."""
    merged: dict[tuple[tuple[str, ...], str], dict[str, int]] = {}
    for index, (result, command) in enumerate(runs):
        if not command:
            continue
        words = shlex.split(command)
        rest = [
            word
            for k, word in enumerate(words)
            if word != "--encoder" and (k == 0 or words[k - 1] != "--encoder")
        ]
        parameters = json.dumps(
            {
                name: value
                for name, value in result.provenance.parameters.items()
                if name not in ENCODER_FACTS
            },
            sort_keys=True,
            default=str,
        )
        encoders = merged.setdefault((tuple(rest), parameters), {})
        for k, word in enumerate(words):
            if k and words[k - 1] == "--encoder":
                encoders.setdefault(word, index)
    commands = []
    for (rest_words, _), encoders in merged.items():
        rest = list(rest_words)
        # eval_command puts the encoders just before the seed; a command written
        # otherwise gets them at its end.
        at = rest.index("--seed") if "--seed" in rest else len(rest)
        commands.append(
            (
                shlex.join(
                    [
                        *rest[:at],
                        *(word for spec in encoders for word in ("--encoder", spec)),
                        *rest[at:],
                    ]
                ),
                list(encoders.values()),
            )
        )
    return commands
