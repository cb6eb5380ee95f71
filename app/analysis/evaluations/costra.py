"""Costra 1.1 geometric orderings (EVALUATIONS.md section 5).

Does the space order Czech sentence transformations as annotators did? Each comparison
(:func:`sentspace.app.corpora.costra.costra_comparisons`) tests that one pair of sentences is
strictly more cosine-similar than another; a class score is the share that hold, and the
overall score the mean of the six class scores.

The numbers equal those of the ``costra`` package's reference evaluator
(``costra.costra.CostraEvaluator().evaluate``) on the same dense embeddings, bit for bit:
cosines are computed as it does, ``dot(a, b) / (norm(a) * norm(b))`` in the embeddings'
precision, with numpy's own dot kernel (batched ``matmul`` of row vectors runs the same
kernel as ``np.dot``), and rounded as it rounds. It is vectorised over the distinct
sentence pairs (each cosine once; dot and product commute bit for bit) instead of
looping over comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.cache import encode_corpus

# The Costra reader is imported where a Costra corpus is evaluated: the GUI's start path
# imports every evaluation module (tests/test_lazy_imports.py).
if TYPE_CHECKING:
    from sentspace.app.corpora.costra import CostraComparisons
from sentspace.app.analysis.results import Provenance, Result, Score, item_rows, names_at
from sentspace.app.base.errors import EvaluationError
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.costra import RULES, costra_comparisons
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder

NAME = "costra"
#: Digits the reference evaluator rounds every score to.
DIGITS = 3
#: Sentence pairs per block of gathered rows (bounds memory to 2 x block x dim floats).
PAIR_BLOCK = 8192


@dataclass(frozen=True, eq=False)
class CostraResult(Result):
    """Per-comparison cosines and outcomes, and the class scores they add up to.

    Attributes
    ----------
    comparisons : CostraComparisons
        Which sentences each comparison involves, its class, type, rule and seed group.
    sentence_ids : the corpus's sentence ids, which name the compared sentences.
    more_similar_cosine, less_similar_cosine : ndarray of shape (n_comparisons,)
        Cosine of the pair expected to be more / less similar (NaN for a zero vector).
    passed : ndarray of bool, shape (n_comparisons,)
        ``more_similar_cosine > less_similar_cosine`` (ties and NaN fail).
    n_degenerate : int
        Compared sentences whose embedding is zero or not finite; their comparisons fail,
        as in the reference evaluator.
    """

    evaluation = NAME
    comparisons: CostraComparisons
    sentence_ids: tuple[str, ...]
    more_similar_cosine: np.ndarray
    less_similar_cosine: np.ndarray
    passed: np.ndarray
    n_degenerate: int

    @property
    def class_names(self) -> tuple[str, ...]:
        return self.comparisons.CLASS_NAMES

    @property
    def class_total(self) -> np.ndarray:
        """Comparisons per class, shape (n_classes,)."""
        return np.bincount(self.comparisons.class_index, minlength=len(self.class_names))

    @property
    def class_correct(self) -> np.ndarray:
        """Comparisons that hold per class, shape (n_classes,)."""
        return np.bincount(
            self.comparisons.class_index[self.passed], minlength=len(self.class_names)
        )

    @property
    def class_scores(self) -> dict[str, float]:
        """Unrounded share of comparisons that hold, per class (0 for an empty class)."""
        return {
            name: correct / total if total else 0.0
            for name, correct, total in zip(
                self.class_names, self.class_correct.tolist(), self.class_total.tolist()
            )
        }

    def reference_scores(self) -> dict[str, float]:
        """The scores exactly as ``CostraEvaluator.evaluate`` returns them: class scores
        rounded to 3 digits, and "costra", the rounded mean of the rounded class scores;
        keys spelled as there ("opposite_meaning")."""
        scores = {
            name.replace(" ", "_"): round(score, DIGITS)
            for name, score in self.class_scores.items()
        }
        scores["costra"] = round(sum(scores.values()) / len(scores), DIGITS)
        return scores

    @property
    def mean(self) -> float:
        """The overall Costra score, as the reference evaluator computes it."""
        return self.reference_scores()["costra"]

    @property
    def failing(self) -> np.ndarray:
        """Indices of the comparisons that do not hold."""
        return np.flatnonzero(~self.passed)

    def summary(self) -> list[tuple[str, str]]:
        """The rows both the CLI and the GUI's metric panel show."""
        scores = self.reference_scores()
        rows = [
            (name, f"{scores[name.replace(' ', '_')]:.3f} ({correct} of {total})")
            for name, correct, total in zip(
                self.class_names, self.class_correct.tolist(), self.class_total.tolist()
            )
        ]
        rows.append(("mean", f"{scores['costra']:.3f}"))
        if self.n_degenerate:
            rows.append(("zero or non-finite embeddings", str(self.n_degenerate)))
        return rows

    def scores(self) -> list[Score]:
        scores = self.reference_scores()
        return [
            *(
                Score(name, scores[name.replace(" ", "_")], None, total)
                for name, total in zip(self.class_names, self.class_total.tolist())
            ),
            Score("mean", scores["costra"], None, len(self.passed)),
        ]

    def body(self) -> dict[str, Any]:

        comparisons = self.comparisons
        ids = np.asarray(self.sentence_ids, dtype=str)
        return {
            "scores": self.reference_scores(),
            "class_scores": self.class_scores,
            "class_correct": dict(zip(self.class_names, self.class_correct.tolist())),
            "class_total": dict(zip(self.class_names, self.class_total.tolist())),
            "n_degenerate": self.n_degenerate,
            # Sentences by the dataset's ids; "rows" index the corpus's sentences.
            "comparisons": item_rows(
                self,
                "more_similar, less_similar, rows, class, type, rule, "
                "cos_more=more_similar_cosine, cos_less=less_similar_cosine, passed",
                more_similar=ids[comparisons.more_similar],
                less_similar=ids[comparisons.less_similar],
                rows=item_rows(comparisons, "more_similar, less_similar"),
                **{"class": names_at(self.class_names, comparisons.class_index)},
                type=names_at(comparisons.transformation_names, comparisons.transformation),
                rule=names_at(RULES, comparisons.rule),
            ),
        }


def _float_matrix(embeddings: Embeddings) -> Embeddings:
    """float32 and float64 stay as they are (the precision the reference computes in)."""
    if embeddings.dtype in (np.float32, np.float64):
        return embeddings
    return embeddings.astype(np.float64)


def _row_dots(X: Embeddings, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``dot(X[first[k]], X[second[k]])`` for every k, shape (n,).

    Dense: a batched (1 x d) @ (d x 1) matmul, which numpy evaluates with the same dot
    kernel as ``np.dot`` on two vectors, so each value is bitwise what ``np.dot`` gives.
    Sparse: row-wise products, exact for count vectors (sums of small integers).
    """
    if sp.issparse(X):
        X = sp.csr_array(X)
        sums = X[first].multiply(X[second]).sum(axis=1)
        return np.asarray(sums, dtype=X.dtype).ravel()
    out = np.empty(len(first), dtype=X.dtype)
    for start in range(0, len(first), PAIR_BLOCK):
        block = slice(start, start + PAIR_BLOCK)
        out[block] = np.matmul(X[first[block], None, :], X[second[block], :, None])[:, 0, 0]
    return out


def evaluate_costra(
    corpus: Corpus, embeddings: Embeddings, *, provenance: Provenance | None = None
) -> CostraResult:
    """Score precomputed embeddings of a Costra corpus.

    Parameters
    ----------
    corpus : Corpus loaded by :func:`sentspace.app.corpora.costra.load_costra`.
    embeddings : ndarray or sparse matrix of shape (len(corpus), dim)
        One row per corpus row, in corpus order (the reference evaluator's order).
    provenance : what produced the embeddings; by default "precomputed", with a hash of
        the matrix as encoder fingerprint.

    Raises
    ------
    EvaluationError
        The corpus is not Costra, or the embeddings have the wrong number of rows.
    """

    comparisons = costra_comparisons(corpus)
    if embeddings.ndim != 2 or embeddings.shape[0] != len(corpus):
        raise EvaluationError(
            f"expected one embedding per sentence, {len(corpus)} rows; got shape {embeddings.shape}"
        )
    X = _float_matrix(embeddings)
    first, second = comparisons.pairs.T
    used = np.unique(comparisons.pairs)
    norms = np.full(len(corpus), np.nan, dtype=X.dtype)
    norms[used] = np.sqrt(_row_dots(X, used, used))
    with np.errstate(divide="ignore", invalid="ignore"):
        cosine = _row_dots(X, first, second) / (norms[first] * norms[second])
    more, less = cosine[comparisons.more_pair], cosine[comparisons.less_pair]
    # A non-finite entry makes the norm non-finite, so the norms flag every bad row.
    degenerate = ~(np.isfinite(norms[used]) & (norms[used] > 0))
    if provenance is None:
        provenance = Provenance.of_embeddings(corpus, X)
    return CostraResult(
        provenance=provenance,
        comparisons=comparisons,
        sentence_ids=corpus.ids,
        more_similar_cosine=more,
        less_similar_cosine=less,
        passed=more > less,
        n_degenerate=int(degenerate.sum()),
    )


def run_costra(
    corpus: Corpus, encoder: Encoder, *, seed: int = 0, tokenized: bool = False
) -> Job[CostraResult]:
    """Encode a Costra corpus and score the orderings.

    Parameters
    ----------
    corpus : Corpus loaded by :func:`sentspace.app.corpora.costra.load_costra`.
    encoder : fitted on all the encoded texts first when it requires fitting (nothing is
        trained on labels here, so there is nothing to leak).
    seed : recorded for reproducibility; the evaluation itself is deterministic.
    tokenized : encode the tokenized column (Morphodita tokens, what the reference's
        ``get_sentences()`` hands out by default) rather than the sentences themselves.
        Off by default so the scores, the explorer's projection and exported embeddings
        all come from the same encoding of the same text.
    """

    costra_comparisons(corpus)  # fails before any encoding on a corpus that is not Costra
    embeddings = yield from encode_corpus(
        corpus, encoder, texts=list(corpus.metadata["tokenized"]) if tokenized else None
    )
    yield Progress("comparing", 0, 1)
    result = evaluate_costra(
        corpus,
        embeddings,
        provenance=Provenance.of(corpus, encoder, seed=seed, tokenized=tokenized),
    )
    yield Progress("comparing", 1, 1)
    return result


def seed_group_paths(
    corpus: Corpus, group: int
) -> tuple[int, dict[str, list[int]], dict[str, list[int]]]:
    """The seed of a seed group and its transformations, by type.

    Interpolations and extrapolations are stored under the type of the transformation
    they extend, with their order in the r1/r2 id lists: each row lies between every
    sentence of its r1 and every sentence of its r2. Which list is the seed's side is
    read from where the seed appears (most often); each row's place on the path is then
    the number of sentences the lists put before it, directly or through others.

    Returns
    -------
    seed : the seed's row.
    paths : type -> rows of that type ordered away from the seed, seed first (types
        whose rows carry r1/r2 lists).
    spokes : type -> rows of the other types (no order: paraphrases, basic and
        modality transformations), in corpus order.
    """
    types = corpus.metadata["type"]
    row_of_id = {sentence_id: row for row, sentence_id in enumerate(corpus.ids)}
    members = corpus.checked_groups.members(group).tolist()
    seed = next(row for row in members if types[row] == "seed")
    by_type: dict[str, list[int]] = {}
    for row in members:
        if row != seed:
            by_type.setdefault(types[row], []).append(row)
    paths, spokes = {}, {}
    for name, rows in by_type.items():
        sides = {
            column: {row: [row_of_id[i] for i in corpus.metadata[column][row]] for row in rows}
            for column in ("r1", "r2")
        }
        if not any(sides["r1"][row] or sides["r2"][row] for row in rows):
            spokes[name] = rows
            continue
        seed_in_r1 = sum(seed in sides["r1"][row] for row in rows)
        seed_in_r2 = sum(seed in sides["r2"][row] for row in rows)
        near, far = (
            (sides["r1"], sides["r2"]) if seed_in_r1 >= seed_in_r2 else (sides["r2"], sides["r1"])
        )
        nodes = [seed, *rows]
        position = {row: k for k, row in enumerate(nodes)}
        # before[a, b]: a lies between the seed and b, directly or through others.
        before = np.zeros((len(nodes), len(nodes)), dtype=bool)
        for row in rows:
            for other in near[row]:
                if other in position:
                    before[position[other], position[row]] = True
            for other in far[row]:
                if other in position:
                    before[position[row], position[other]] = True
        for k in range(len(nodes)):
            before |= before[:, k : k + 1] & before[k : k + 1, :]
        place = dict(zip(nodes, before.sum(axis=0).tolist()))
        paths[name] = [seed] + sorted(rows, key=lambda row: (place[row], row))
    return seed, paths, spokes
