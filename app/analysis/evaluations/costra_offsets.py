"""Costra 1.1 transformations as directions: is "past tense" or "ban" one offset?

For every non-seed row of Costra, its offset is its embedding minus its seed's. Per
transformation type:

- **consistency**: the mean cosine between offsets of that type taken from *different*
  seed groups (zero offsets, a transformation the encoder does not see, left out). The
  baseline is the same statistic after shuffling the type labels of the non-seed rows
  within each seed group (``n_shuffles`` times, averaged), so it measures how aligned
  arbitrary offsets from one seed group to another already are.
- **analogy**: for each seed group g and type t that g has, the prediction
  seed_g + (mean offset of type t over the *other* groups) is compared by cosine with
  g's non-seed sentences (the seed itself excluded, as word analogies exclude the query
  words). The rank is 1 + the number of sentences of other types at least as similar as
  the best sentence of type t (ties count against it); accuracy is the share ranked
  first, MRR the mean of 1/rank.

Both are computed with one-hot membership matrices and sparse products, so bag-of-words
spaces stay sparse until a single group's vectors are compared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.evaluations import statistics
from sentspace.app.analysis.evaluations.statistics import format_ci
from sentspace.app.analysis.results import Provenance, Result, Score, item_rows, names_at
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.costra import costra_comparisons
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder, fitted_copy

NAME = "costra-offsets"
#: Shuffles of the type labels averaged into the baseline.
N_SHUFFLES = 20


@dataclass(frozen=True, eq=False)
class CostraOffsetsResult(Result):
    """Offset consistency and the analogy test per transformation type.

    Attributes
    ----------
    type_names : tuple of str
        The non-seed transformation types, sorted.
    n_offsets, n_zero : ndarray of int, shape (n_types,)
        Rows of each type, and those identical to their seed in this space.
    consistency : ndarray of shape (n_types,)
        Mean cosine of same-type offsets from different seed groups (NaN: too few).
    baseline : ndarray of shape (n_types,)
        The same after shuffling types within seed groups, mean over the shuffles.
    cell_group, cell_type : ndarray of int, shape (n_cells,)
        One analogy question per (seed group, type) the corpus has: the group (index
        into ``Corpus.groups.names``) and the type (index into ``type_names``).
    cell_rank : ndarray of int, shape (n_cells,)
        Rank of the best sentence of the true type among the group's non-seed sentences.
    ci : {metric name: (low, high)}
        Bootstrap intervals of the analogy accuracy and MRR over questions; empty when off.
    group_names : the corpus's seed groups, as its dataset names them.
    """

    evaluation = NAME
    type_names: tuple[str, ...]
    n_offsets: np.ndarray
    n_zero: np.ndarray
    consistency: np.ndarray
    baseline: np.ndarray
    cell_group: np.ndarray
    cell_type: np.ndarray
    cell_rank: np.ndarray
    ci: dict[str, tuple[float, float]]
    group_names: tuple[str, ...]

    def _per_type(self, values: np.ndarray) -> np.ndarray:
        counts = np.bincount(self.cell_type, minlength=len(self.type_names))
        sums = np.bincount(self.cell_type, weights=values, minlength=len(self.type_names))
        with np.errstate(invalid="ignore"):
            return sums / counts

    @property
    def accuracy(self) -> np.ndarray:
        """Share of analogy questions ranked first, per type."""
        return self._per_type((self.cell_rank == 1).astype(float))

    @property
    def mrr(self) -> np.ndarray:
        """Mean reciprocal rank of the analogy questions, per type."""
        return self._per_type(1.0 / self.cell_rank)

    def metrics(self) -> dict[str, float]:
        """Means over types (consistency, baseline) and over all questions (analogy)."""
        return {
            "mean consistency": float(np.nanmean(self.consistency)),
            "mean shuffled baseline": float(np.nanmean(self.baseline)),
            "analogy accuracy": float(np.mean(self.cell_rank == 1)),
            "analogy MRR": float(np.mean(1.0 / self.cell_rank)),
        }

    def summary(self) -> list[tuple[str, str]]:
        rows = [
            (name, f"consistency {c:.3f} (shuffled {b:.3f}); analogy acc {a:.3f}, MRR {r:.3f}")
            for name, c, b, a, r in zip(
                self.type_names, self.consistency, self.baseline, self.accuracy, self.mrr
            )
        ]
        rows += [
            (name, f"{value:.3f} {format_ci(self.ci.get(name))}".rstrip())
            for name, value in self.metrics().items()
        ]
        rows.append(("analogy questions", str(len(self.cell_rank))))
        if self.n_zero.any():
            rows.append(("offsets of zero (same vector as the seed)", str(self.n_zero.sum())))
        return rows

    def scores(self) -> list[Score]:
        n_types, n_questions = len(self.type_names), len(self.cell_rank)
        return [
            Score(
                name,
                value,
                self.ci.get(name),
                n_questions if name.startswith("analogy") else n_types,
            )
            for name, value in self.metrics().items()
        ]

    def body(self) -> dict[str, Any]:
        return {
            "metrics": self.metrics(),
            "ci": {name: list(bounds) for name, bounds in self.ci.items()},
            "types": item_rows(
                self,
                "type=type_names, offsets=n_offsets, zero offsets=n_zero, consistency, "
                "baseline, accuracy, mrr",
            ),
            # "group" is the seed group's name; "group_row" indexes corpus.groups.
            "questions": item_rows(
                self,
                "group, group_row=cell_group, type, rank=cell_rank",
                group=names_at(self.group_names, self.cell_group),
                type=names_at(self.type_names, self.cell_type),
            ),
        }


def _onehot(index: np.ndarray, n_rows: int) -> sp.csr_array:
    """(n_rows, len(index)) membership matrix: entry (index[k], k) is 1."""
    return sp.csr_array(
        (np.ones(len(index)), (index, np.arange(len(index)))), shape=(n_rows, len(index))
    )


def _row_norms(X: Embeddings) -> np.ndarray:
    if sp.issparse(X):
        X = sp.csr_array(X)
        return np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return np.linalg.norm(X, axis=1)


def _consistency(
    units: Embeddings, types: np.ndarray, groups: np.ndarray, n_types: int, n_groups: int
) -> np.ndarray:
    """Mean cosine of unit offsets of the same type from different groups, per type.

    Over pairs i != j of type t in different groups, sum cos = |S_t|^2 - sum_g |S_tg|^2,
    with S the sums of unit offsets, and the pairs number m_t^2 - sum_g m_tg^2.
    """
    cells = types * n_groups + groups
    by_type = _row_norms(_onehot(types, n_types) @ units) ** 2
    by_cell = _row_norms(_onehot(cells, n_types * n_groups) @ units) ** 2
    m_type = np.bincount(types, minlength=n_types).astype(float)
    m_cell = np.bincount(cells, minlength=n_types * n_groups).astype(float)
    within = (
        by_cell.reshape(n_types, n_groups).sum(1),
        (m_cell**2).reshape(n_types, n_groups).sum(1),
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        return (by_type - within[0]) / (m_type**2 - within[1])


def _shuffled_within_groups(
    types: np.ndarray, groups: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """``types`` permuted within each group (sort by group, then a random key)."""
    order = np.lexsort((rng.random(len(types)), groups))
    by_group = np.argsort(groups, kind="stable")
    shuffled = np.empty_like(types)
    shuffled[by_group] = types[order]
    return shuffled


def _dense_rows(X: Embeddings, rows: np.ndarray) -> np.ndarray:
    block = X[rows]
    return (block.toarray() if sp.issparse(block) else np.asarray(block)).astype(np.float64)


def evaluate_costra_offsets(
    corpus: Corpus,
    embeddings: Embeddings,
    *,
    seed: int = 0,
    n_shuffles: int = N_SHUFFLES,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    provenance: Provenance | None = None,
) -> CostraOffsetsResult:
    """Offset consistency and analogies of precomputed embeddings of a Costra corpus.

    ``seed`` seeds the type shuffles and the bootstrap of the analogy metrics over
    questions (``n_resamples`` of them, 0 for none).

    Raises
    ------
    EvaluationError
        The corpus is not Costra, or the embeddings do not have one row per sentence.
    """
    # Imported here: the GUI's start path imports every evaluation module.

    costra_comparisons(corpus)  # the same check as the orderings evaluation
    if embeddings.ndim != 2 or embeddings.shape[0] != len(corpus):
        raise EvaluationError(
            f"expected one embedding per sentence, {len(corpus)} rows; got shape {embeddings.shape}"
        )
    X = (
        sp.csr_array(embeddings, dtype=np.float64)
        if sp.issparse(embeddings)
        else np.asarray(embeddings, dtype=np.float64)
    )
    n_groups = corpus.checked_groups.n_groups
    group = corpus.checked_groups.labels(len(corpus))
    row_types = np.asarray(corpus.metadata["type"])
    is_seed = row_types == "seed"
    seed_of_group = np.empty(n_groups, dtype=np.int64)
    seed_of_group[group[is_seed]] = np.flatnonzero(is_seed)
    rows = np.flatnonzero(~is_seed)
    type_names, types = np.unique(row_types[rows], return_inverse=True)
    n_types = len(type_names)
    groups = group[rows]

    offsets = X[rows] - X[seed_of_group[groups]]
    norms = _row_norms(offsets)
    nonzero = norms > 1e-12 * max(float(norms.max(initial=0.0)), 1.0)
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=nonzero)
    units = (
        sp.csr_array(sp.diags_array(scale) @ offsets)
        if sp.issparse(offsets)
        else offsets * scale[:, None]
    )
    kept = np.flatnonzero(nonzero)
    units = units[kept]
    consistency = _consistency(units, types[kept], groups[kept], n_types, n_groups)
    rng = np.random.default_rng(seed)
    baseline = np.mean(
        [
            _consistency(
                units,
                _shuffled_within_groups(types, groups, rng)[kept],
                groups[kept],
                n_types,
                n_groups,
            )
            for _ in range(n_shuffles)
        ],
        axis=0,
    )

    # Analogy: leave-one-group-out mean offset of each type, added to each group's seed.
    cells = types * n_groups + groups
    type_sum = _onehot(types, n_types) @ offsets
    cell_sum = _onehot(cells, n_types * n_groups) @ offsets
    m_type = np.bincount(types, minlength=n_types)
    m_cell = np.bincount(cells, minlength=n_types * n_groups)
    cell_ids = np.flatnonzero(m_cell)
    cell_type, cell_group = np.divmod(cell_ids, n_groups)
    ranks = np.zeros(len(cell_ids), dtype=np.int64)
    for g in range(n_groups):
        asked = np.flatnonzero(cell_group == g)
        members = np.flatnonzero(groups == g)
        t = cell_type[asked]
        others = np.maximum(m_type[t] - m_cell[cell_ids[asked]], 1)[:, None]
        mean_offset = (_dense_rows(type_sum, t) - _dense_rows(cell_sum, cell_ids[asked])) / others
        predicted = _dense_rows(X, seed_of_group[[g]]) + mean_offset
        candidates = _dense_rows(X, rows[members])
        with np.errstate(invalid="ignore", divide="ignore"):
            cosine = (predicted @ candidates.T) / np.outer(
                np.linalg.norm(predicted, axis=1), np.linalg.norm(candidates, axis=1)
            )
        cosine = np.nan_to_num(cosine, nan=-np.inf)
        is_true = types[members][None, :] == t[:, None]
        best_true = np.where(is_true, cosine, -np.inf).max(axis=1)
        # Ties count against the true type: identical vectors do not answer an analogy.
        ranks[asked] = 1 + ((cosine >= best_true[:, None]) & ~is_true).sum(axis=1)

    if provenance is None:
        provenance = Provenance.of_embeddings(
            corpus, embeddings, seed=seed, n_shuffles=n_shuffles, n_resamples=n_resamples
        )
    return CostraOffsetsResult(
        provenance=provenance,
        type_names=tuple(type_names.tolist()),
        n_offsets=m_type,
        n_zero=np.bincount(types[~nonzero], minlength=n_types),
        consistency=consistency,
        baseline=baseline,
        cell_group=cell_group,
        cell_type=cell_type,
        cell_rank=ranks,
        ci=statistics.cis(
            {
                "analogy accuracy": (statistics.mean, (ranks == 1).astype(np.float64), None),
                "analogy MRR": (statistics.mean, 1.0 / ranks, None),
            },
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        ),
        group_names=corpus.checked_groups.names,
    )


def run_costra_offsets(
    corpus: Corpus,
    encoder: Encoder,
    *,
    seed: int = 0,
    n_shuffles: int = N_SHUFFLES,
    n_resamples: int = statistics.DEFAULT_RESAMPLES,
) -> Job[CostraOffsetsResult]:
    """Encode a Costra corpus (fitting the encoder on its texts when it needs fitting,
    as the orderings evaluation does) and measure its transformation offsets."""

    costra_comparisons(corpus)  # fails before any encoding on a corpus that is not Costra
    texts = list(corpus.texts)
    fitted = yield from fitted_copy(encoder, texts)
    embeddings = yield from fitted.iter_encode(texts)
    yield Progress("measuring offsets", 0, 1)
    result = evaluate_costra_offsets(
        corpus,
        embeddings,
        seed=seed,
        n_shuffles=n_shuffles,
        n_resamples=n_resamples,
        provenance=Provenance.of(
            corpus, encoder, seed=seed, n_shuffles=n_shuffles, n_resamples=n_resamples
        ),
    )
    yield Progress("measuring offsets", 1, 1)
    return result
