"""Inspector click speed: the neighbours of one selected sentence (issue 17).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_inspector.py

Random unit-ish float32 rows (seed 0) of 384 dimensions, 50,000 rows (app.ann's exact
limit: still searched exactly). Times, best of 5 in the same run: a click before
(``top_k`` of the raw row against the raw matrix, which normalises the whole matrix
each time) and a click now (``Inspector.show_sentence``: the normalised pool kept
between clicks), and checks both give the same neighbours.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtWidgets import QApplication  # noqa: E402
from timing import best_of  # noqa: E402

from sentspace.app.analysis.neighbours import top_k  # noqa: E402
from sentspace.app.corpora.model import Corpus  # noqa: E402
from sentspace.app.ui.views.inspector import NEIGHBOURS, Inspector  # noqa: E402

ROWS, DIM = 50_000, 384


def main() -> None:
    app = QApplication.instance() or QApplication([])  # noqa: F841 (widgets need it)
    embeddings = np.random.default_rng(0).normal(size=(ROWS, DIM)).astype(np.float32)
    corpus = Corpus(
        name="bench",
        texts=tuple(f"sentence {i}" for i in range(ROWS)),
        ids=tuple(f"S{i}" for i in range(ROWS)),
    )
    groups = np.full(ROWS, -1)
    inspector = Inspector()
    before = best_of(
        lambda: top_k(embeddings[[7]], embeddings, NEIGHBOURS, exclude=np.array([7])), repeats=5
    )
    inspector.show_sentence(corpus, 7, groups, embeddings)  # the first click normalises
    now = best_of(lambda: inspector.show_sentence(corpus, 7, groups, embeddings), repeats=5)
    exact, _ = top_k(embeddings[[7]], embeddings, NEIGHBOURS, exclude=np.array([7]))
    assert np.array_equal(inspector.neighbour_indices, exact[0])
    print(f"| {ROWS:,} x {DIM} | before (s) | now (s) | ratio |")
    print("|---|---|---|---|")
    print(f"| a click's neighbours | {before:.4f} | {now:.4f} | {before / now:.1f}x |")


if __name__ == "__main__":
    main()
