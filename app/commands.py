"""The ``sentspace`` command lines the app shows beside its results, built in one place
so the CLI, the session and the views agree (kept light: the session imports it)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence


def option_flag(name: str) -> str:
    """The command-line flag of an evaluation option (``OPTIONS``): ``--negative-overlap``."""
    return "--" + name.replace("_", "-")


def eval_command(evaluation: str, corpus: str, encoders: Sequence[str], seed: int,
                 options: Mapping[str, str] | None = None) -> str:
    """The shell command that reproduces ``evaluation`` of ``corpus`` (a built-in name or
    path) by ``encoders`` (specs; several for a comparison) with ``seed`` and the
    evaluation's ``options`` (keyword: value); shown beside every result in the app."""
    words = ["sentspace", "eval", evaluation, "--corpus", corpus]
    for spec in encoders:
        words += ["--encoder", spec]
    words += ["--seed", str(seed)]
    for name, value in (options or {}).items():
        words += [option_flag(name), value]
    return shlex.join(words)
