"""Re-running the seed papers' published tables with what sentspace has, beside the
published numbers (``sentspace reproduce PAPER``; the window's *Help > Reproduce a
paper…*). Qt-free.

Each paper module declares its tables as data (``model``); ``runner.run_reproduction``
is the job that re-runs them into a ``Report``; ``report`` writes it as Markdown, HTML
and JSON.
"""

from __future__ import annotations

from sentspace.app.reproduce import baumel, costra, hill2016, triantafillou2016, white2015
from sentspace.app.reproduce.model import Paper
from sentspace.app.reproduce.runner import FULL, QUICK, Report, Row, run_reproduction

#: Every paper by the name ``sentspace reproduce`` takes.
PAPERS: dict[str, Paper] = {
    module.PAPER.name: module.PAPER
    for module in (white2015, hill2016, triantafillou2016, baumel, costra)
}

__all__ = ["FULL", "PAPERS", "QUICK", "Paper", "Report", "Row", "run_reproduction"]
