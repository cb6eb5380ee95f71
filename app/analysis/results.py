"""What every result records about how it was produced, so it can be reproduced, and
the :class:`Result` base every evaluation result builds on."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis.figures import result_figure
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder, content_hash

SCHEMA_VERSION = 1


def package_version() -> str:
    try:
        return metadata.version("sentspace")
    except metadata.PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Provenance:
    """The corpus, encoder, parameters and software a result was computed from."""

    corpus_name: str
    corpus_fingerprint: str
    encoder_name: str
    encoder_family: str
    encoder_params: dict[str, Any]
    encoder_fingerprint: str
    parameters: dict[str, Any]
    version: str = field(default_factory=package_version)
    #: Edits applied to the corpus as loaded when this was computed (Corpus.edits); a
    #: result whose fingerprint is not the corpus's now is from another version.
    corpus_edits: int = 0
    schema: int = SCHEMA_VERSION
    created: str = field(
        default_factory=lambda: _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    )

    @classmethod
    def of(cls, corpus: Corpus, encoder: Encoder, **parameters: Any) -> Provenance:
        """Provenance of a run; the encoder's fingerprint is of its unfitted form when the
        evaluation fits it itself, so it names the recipe, not one fold's state."""
        return cls(
            corpus_name=corpus.name,
            corpus_fingerprint=corpus.fingerprint,
            corpus_edits=corpus.edits,
            encoder_name=encoder.name,
            encoder_family=encoder.family,
            encoder_params=encoder.params(),
            encoder_fingerprint=encoder.fingerprint(),
            parameters=dict(parameters),
        )

    @classmethod
    def of_embeddings(cls, corpus: Corpus, embeddings: Embeddings, **parameters: Any) -> Provenance:
        """Provenance of a run on precomputed embeddings: the encoder is named
        "precomputed" and fingerprinted by the matrix's content."""
        if sp.issparse(embeddings):
            embeddings = sp.csr_array(embeddings)
        return cls(
            corpus_name=corpus.name,
            corpus_fingerprint=corpus.fingerprint,
            corpus_edits=corpus.edits,
            encoder_name="precomputed",
            encoder_family="precomputed",
            encoder_params={"shape": list(embeddings.shape), "dtype": str(embeddings.dtype)},
            encoder_fingerprint=content_hash(embeddings),
            parameters=dict(parameters),
        )


def provenance(
    corpus: Corpus, encoder: Encoder | None, embeddings: Embeddings, **parameters: Any
) -> Provenance:
    """:meth:`Provenance.of` the encoder when known, else of the precomputed embeddings."""
    if encoder is None:
        return Provenance.of_embeddings(corpus, embeddings, **parameters)
    return Provenance.of(corpus, encoder, **parameters)


#: The columns of a result's scores as a table (:meth:`Result.score_rows`).
SCORE_COLUMNS = ("metric", "value", "ci_low", "ci_high", "n")


@dataclass(frozen=True)
class Score:
    """One number a result reports: its value, bootstrap interval when there is one,
    and how many items it is over when that is known."""

    name: str
    #: A count (misclassified sentences) is an int, and prints as one.
    value: float
    ci: tuple[float, float] | None = None
    n: int | None = None

    @property
    def shown(self) -> str:
        """The value as printed: a count whole, a score to 4 decimals."""
        if isinstance(self.value, (int, np.integer)) and not isinstance(self.value, bool):
            return f"{int(self.value):,}"
        return f"{self.value:.4f}"

    def row(self) -> tuple[str, float, float | None, float | None, int | None]:
        low, high = (float(x) for x in self.ci) if self.ci is not None else (None, None)
        return self.name, float(self.value), low, high, None if self.n is None else int(self.n)


@dataclass(frozen=True, eq=False)
class Result:
    """Base of every evaluation result: its provenance, the numbers it reports
    (:meth:`scores`) and the header every ``to_dict`` starts with.

    A subclass sets ``evaluation`` (the name ``sentspace eval`` takes) and gives
    ``summary()`` (the rows the CLI and the GUI show), ``scores()`` and ``body()`` (the
    rest of its dict). Per-item outcomes name sentences and pairs by the dataset's ids.
    """

    evaluation: ClassVar[str]
    #: Scores a short ``repr`` names.
    REPR_SCORES: ClassVar[int] = 3
    #: A score read from elsewhere (``app.mteb_results``): drawn beside runs, with no
    #: per-item outcomes, so never in a paired test.
    imported: ClassVar[bool] = False
    #: The score ``main_score`` gives: the one MTEB calls main for its task of this
    #: evaluation (relatedness: the pooled Spearman, MTEB's STS cosine_spearman); None:
    #: the first score.
    MAIN_SCORE: ClassVar[str | None] = None
    provenance: Provenance

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # @dataclass writes a __repr__ of every field (per-item arrays: tens of thousands
        # of characters) only where the class has none: give each result the short one.
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = Result.__repr__  # type: ignore[method-assign]
        # A property, unless the result holds its main score as a field (an imported
        # MTEB score), which a property of the base would refuse to set.
        if "main_score" not in cls.__dict__.get("__annotations__", {}):
            cls.main_score = property(Result._main_score)  # type: ignore[attr-defined]

    def _main_score(self) -> float:
        """The value of :attr:`MAIN_SCORE` (``result.main_score``)."""
        scores = self.scores()
        return next(
            (score.value for score in scores if score.name == self.MAIN_SCORE), scores[0].value
        )

    def __repr__(self) -> str:
        scores = self.scores()
        shown = ", ".join(
            f"{score.name} {score.shown}"
            + (f" [{score.ci[0]:.4f}, {score.ci[1]:.4f}]" if score.ci else "")
            for score in scores[: self.REPR_SCORES]
        )
        more = (
            f", ... {len(scores) - self.REPR_SCORES} more" if len(scores) > self.REPR_SCORES else ""
        )
        return (
            f"<{type(self).__name__}: {self.evaluation} of "
            f"{self.provenance.encoder_name} on {self.provenance.corpus_name}: "
            f"{shown}{more}>"
        )

    def _repr_html_(self) -> str:
        """The scores with their intervals as a table, for a notebook."""
        head = (
            f"<p><b>{html.escape(self.evaluation)}</b> of "
            f"{html.escape(self.provenance.encoder_name)} on "
            f"{html.escape(self.provenance.corpus_name)}</p>"
        )
        return head + html_table(
            ["metric", "value", "95% interval", "n"],
            [score_cells(score) for score in self.scores()],
        )

    def plot(self):
        """The window's chart of this result as a plotly figure (a notebook shows it;
        ``.write_html(path)`` or ``.write_image(path)`` saves it): relatedness as cosine
        against gold score, ranking as queries by their partner's rank, detection as the
        precision-recall curve...; a result without a chart as its scores with their
        intervals."""

        return result_figure(self)

    def summary(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def scores(self) -> list[Score]:
        """The numbers the result reports, with intervals where it has them."""
        return []

    def body(self) -> dict[str, Any]:
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:
        return {
            "evaluation": self.evaluation,
            "provenance": dataclasses.asdict(self.provenance),
            "metric_table": [dict(zip(SCORE_COLUMNS, score.row())) for score in self.scores()],
            **self.body(),
        }

    def intervals(self) -> dict[str, tuple[float, tuple[float, float]]]:
        """{name: (value, (low, high))} of the scores that have an interval."""
        return {
            score.name: (score.value, score.ci) for score in self.scores() if score.ci is not None
        }

    def score_rows(self) -> list[tuple[str, float, float | None, float | None, int | None]]:
        """:meth:`scores` as rows of :data:`SCORE_COLUMNS` (a CSV of numbers)."""
        return [score.row() for score in self.scores()]

    def to_frame(self):
        """:meth:`scores` as a tidy pandas DataFrame: the corpus, the task (the
        evaluation) and the split (:func:`evaluated_split`) on every row, then
        :data:`SCORE_COLUMNS` (no interval or count: NaN). pandas is imported here, for
        notebooks: the core needs none."""
        import pandas as pd  # noqa: PLC0415

        frame = pd.DataFrame(self.score_rows(), columns=list(SCORE_COLUMNS)).astype(
            {"value": float, "ci_low": float, "ci_high": float, "n": "Int64"}
        )
        where = {
            "corpus": self.provenance.corpus_name,
            "task": self.evaluation,
            "split": evaluated_split(self.provenance),
        }
        for position, (column, value) in enumerate(where.items()):
            frame.insert(position, column, value)
        return frame


def evaluated_split(provenance: Provenance) -> str:
    """The pair splits a result evaluated ("test", "test+train"), or "all" (every pair,
    every sentence)."""
    parameters = provenance.parameters
    splits = parameters.get("splits") or parameters.get("split")
    if isinstance(splits, str):
        return splits
    return "+".join(splits) if splits else "all"


def item_rows(source: Any, columns: str, **computed: Any) -> list[dict[str, Any]]:
    """Per-item outcomes as ``to_dict`` writes them: one dict per item, a key per column
    in the order ``columns`` names them, "pair=pair_id, row=pair_index, cosine": key
    "pair" from ``source.pair_id``, "cosine" from ``source.cosine``, and a key that
    ``computed`` has from there. A column holds one value per item; an array's become
    Python numbers, for JSON."""
    values: dict[str, Any] = {}
    for column in columns.split(","):
        key, _, attribute = column.strip().partition("=")
        value = computed[key] if key in computed else getattr(source, attribute or key)
        values[key] = value.tolist() if isinstance(value, np.ndarray) else value
    return [dict(zip(values, row)) for row in zip(*values.values())]


def names_at(names: Sequence[str], index: np.ndarray) -> np.ndarray:
    """The names at ``index`` (group, class or rule names by number), in an array of
    its shape, for :func:`item_rows`."""
    return np.asarray(names, dtype=object)[index]


def score_cells(score: Score) -> list[str]:
    """A score as table cells: metric, value, interval, count."""
    interval = "" if score.ci is None else f"[{score.ci[0]:.4f}, {score.ci[1]:.4f}]"
    return [score.name, score.shown, interval, "" if score.n is None else f"{score.n:,}"]


def html_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An HTML table of text cells (escaped), for notebooks."""
    head = "".join(f"<th>{html.escape(str(cell))}</th>" for cell in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(cell))}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
