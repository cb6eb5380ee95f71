"""A projection as one web page to send: ``sentspace export-map`` and the window's
*File > Export map as web page…*.

The page is a single HTML file that needs no network and no server. It carries
plotly.js (MIT; the copy bundled in the ``plotly`` Python package, licence banner
included) and draws the points with its WebGL scatter (``scattergl``), fluid at 100,000
points and more. The data are embedded compactly: coordinates as base64 float32, each
categorical column as base64 int32 codes into its names, each numeric column as base64
float32 (NaN: none), each point's nearest neighbours in the original space as int32
indices and int16 cosines x 10,000, texts and ids as JSON.

In the page: every column (group, region, misclassified, words, group size,
faithfulness, a corpus's pair split, label and gold score, its metadata) is a histogram
(numbers) or a bar chart of its top 10 values and "other" (categories); brushing a range
or clicking bars filters the map, the other charts and a paged, sortable table together,
as do a box or lasso on the map and a filter expression; the table's rows export as CSV
or JSONL. The search box finds sentences by words, ranked by how many of the query's
words each has, rings them on the map and lists them in the table. Any column colours
the map: categories with a legend of their top 10 and "(other N)", numbers on viridis
with a colour bar. A click on a point shows its fields and its nearest neighbours in
the original space; regions are labelled at their centre, and the side panel gives the
run's provenance (corpus, encoder, projection, evaluation headlines).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.ann import iter_knn
from sentspace.app.atomic import write_text_atomic
from sentspace.app.colouring import METHOD_TITLES
from sentspace.app.corpora.model import Corpus
from sentspace.app.explore import Exploration
from sentspace.app.jobs import Job, run_job
from sentspace.app.palette import CATEGORICAL, MISCLASSIFIED, SEQUENTIAL, UNGROUPED
from sentspace.app.regions import NOISE, Regions
from sentspace.app.results import Result, Score, package_version

TEMPLATE = Path(__file__).resolve().parents[1] / "resources" / "web_map.html"
#: The places in the template that map_page fills.
_TEMPLATE_KEY = re.compile(r"__(TITLE|PLOTLY_LICENCE|DATA|PLOTLY)__")
#: The rings of search matches: a colour in no palette of the page, over a white halo,
#: so they stay visible whatever colours the points beneath.
RING = "#ff00ff"
#: Nearest neighbours in the original space the page shows for a clicked point.
NEIGHBOURS = 10


@dataclass(frozen=True, eq=False)
class Colouring:
    """One way to colour the points: ``codes`` (n,) index ``names`` (-1: ``none``)."""

    title: str
    names: tuple[str, ...]
    codes: np.ndarray
    colours: tuple[str, ...] = ()
    none: str = "none"

    @classmethod
    def of_values(cls, title: str, values: Sequence[Any], none: str = "none") -> Colouring:
        """A colouring by per-point values (strings, numbers); "" or None is ``none``.
        Categories come most frequent first (ties in natural order: "2" before "10"), so
        the top ten get the palette's first, most distinct colours."""
        text = np.array(["" if v is None else str(v) for v in values], dtype=object)
        names, codes, counts = np.unique(text, return_inverse=True, return_counts=True)
        if len(names) and names[0] == "":
            names, codes, counts = names[1:], codes - 1, counts[1:]
        order = sorted(range(len(names)), key=lambda k: (-counts[k], _natural(str(names[k]))))
        rank = np.empty(len(names) + 1, dtype=np.int64)
        rank[order], rank[-1] = np.arange(len(names)), -1
        return cls(title, tuple(names[order]), rank[codes.ravel()], none=none)

    def palette(self) -> tuple[str, ...]:
        return self.colours or tuple(CATEGORICAL[k % len(CATEGORICAL)]
                                     for k in range(len(self.names)))


@dataclass(frozen=True, eq=False)
class Numbers:
    """A numeric column: ``values`` (n,), NaN where a point has none. The page draws it
    as a histogram and colours by it on a continuous scale."""

    title: str
    values: np.ndarray


@dataclass(frozen=True, eq=False)
class Texts:
    """A column of free text (an id of the source, a note): shown in the table and the
    point's fields, exported, neither charted nor a colouring."""

    title: str
    values: tuple[str, ...]


Column = Colouring | Numbers | Texts


def _natural(text: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part.lower()
                 for part in re.split(r"(\d+)", text))


def _column_data(column: Column) -> dict[str, Any]:
    if isinstance(column, Numbers):
        values = np.asarray(column.values, dtype=np.float64)
        finite = values[np.isfinite(values)]
        return {"kind": "number", "title": column.title, "values": _base64(values, "<f4"),
                "integer": bool(len(finite)) and bool(np.all(finite == np.round(finite)))}
    if isinstance(column, Texts):
        return {"kind": "text", "title": column.title, "values": list(map(str, column.values))}
    return {"kind": "category", "title": column.title, "names": list(column.names),
            "none": column.none, "colours": list(column.palette()),
            "codes": _base64(column.codes, "<i4")}


def _base64(array: np.ndarray, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode()


def _plotly_js() -> tuple[str, str]:
    """plotly.js's minified source and the package's licence line."""
    import plotly  # noqa: PLC0415
    from plotly.offline import get_plotlyjs  # noqa: PLC0415

    return get_plotlyjs(), f"the plotly {plotly.__version__} Python package's copy"


def map_page(texts: Sequence[str], coordinates: np.ndarray, *,
             ids: Sequence[str] | None = None, colourings: Sequence[Column] = (),
             regions: Sequence[tuple[str, float, float]] = (),
             provenance: Sequence[tuple[str, str]] = (), title: str = "sentspace map",
             axes: tuple[str, str] = ("", ""),
             neighbours: tuple[np.ndarray, np.ndarray] | None = None) -> str:
    """The HTML of a map of ``texts`` at ``coordinates`` (n, 2).

    ``colourings`` are the columns, charted and offered as colourings in that order (the
    first shown; :class:`Texts` only in the table), ``regions`` are labels drawn at
    (x, y), ``provenance`` (label, value) rows open the side panel, ``neighbours`` each
    point's nearest in the original space: indices (n, k), -1 for none, and cosines.
    """
    coordinates = np.asarray(coordinates, dtype=np.float32)
    n = len(texts)
    if coordinates.shape != (n, 2):
        raise ValueError(f"coordinates of shape {coordinates.shape} for {n} texts")
    for column in colourings:
        values = column.codes if isinstance(column, Colouring) else column.values
        if len(values) != n:
            raise ValueError(f"column {column.title!r} has {len(values)} values for "
                             f"{n} points")
    nearest = None
    if neighbours is not None:
        indices, cosines = (np.asarray(a) for a in neighbours)
        if indices.shape != cosines.shape or indices.shape[0] != n:
            raise ValueError(f"neighbours of shape {indices.shape} for {n} points")
        nearest = {"k": int(indices.shape[1]), "indices": _base64(indices, "<i4"),
                   "cosines": _base64(np.round(np.clip(cosines, -1, 1) * 10_000), "<i2")}
    data = {
        "n": n, "title": title, "axes": list(axes),
        "coordinates": _base64(coordinates, "<f4"),
        "texts": [str(t) for t in texts],
        "ids": [str(i) for i in (ids if ids is not None else range(n))],
        "columns": [_column_data(c) for c in colourings],
        "neighbours": nearest,
        "regions": [[label, float(x), float(y)] for label, x, y in regions],
        "provenance": [[str(label), str(value)] for label, value in provenance],
        "none_colour": UNGROUPED, "ring_colour": RING, "sequential": list(SEQUENTIAL),
    }
    # "<" escaped, so no text can close the script element that holds the data.
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace(
        "<", "\\u003c")
    script, licence = _plotly_js()
    inserted = {"TITLE": _escape(title), "PLOTLY_LICENCE": licence, "DATA": payload,
                "PLOTLY": script}
    # One pass over the template alone: a key inside a sentence, the title or the
    # library's source is text, never a place to insert into.
    return _TEMPLATE_KEY.sub(lambda key: inserted[key.group(1)],
                             TEMPLATE.read_text(encoding="utf-8"))


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_map(path: str | Path, texts: Sequence[str], coordinates: np.ndarray,
              **options: Any) -> Path:
    """Write :func:`map_page` to ``path`` (atomically) and return it."""
    write_text_atomic(path, map_page(texts, coordinates, **options))
    return Path(path)


def region_labels(regions: Regions, coordinates: np.ndarray
                  ) -> list[tuple[str, float, float]]:
    """Each region's label at the median 2D position of its points (its centre may be
    in the embedding space, where it was clustered)."""
    labels = []
    for cluster in range(regions.n_clusters):
        members = coordinates[regions.labels == cluster]
        if len(members):
            x, y = np.median(members, axis=0)
            labels.append((regions.label(cluster), float(x), float(y)))
    return labels


def exploration_colourings(exploration: Exploration, *, groups: np.ndarray | None = None,
                           regions: Regions | None = None,
                           labels: dict[str, Sequence[Any]] | None = None
                           ) -> list[Column]:
    """The columns of an exploration: group and its size, region, misclassified or not,
    words, faithfulness, each given label, what its pairs say of each sentence and each
    metadata column."""
    corpus = exploration.corpus
    colourings: list[Column] = []
    if corpus.groups is not None:
        codes = np.asarray(corpus.groups.first_group(len(corpus)) if groups is None
                           else groups)
        colourings.append(Colouring(corpus.groups.kind.capitalize() or "Group",
                                    tuple(corpus.groups.names), codes, none="no group"))
        sizes = np.bincount(codes[codes >= 0], minlength=len(corpus.groups.names))
        colourings.append(Numbers("Group size", np.where(codes >= 0, sizes[codes], np.nan)))
    if regions is not None:
        colourings.append(Colouring("Region", tuple(regions.label(c) for c in
                                                    range(regions.n_clusters)),
                                    np.where(regions.labels == NOISE, -1, regions.labels),
                                    none="in no region"))
    result = exploration.classification
    if result is not None:
        codes = np.full(len(corpus), -1)
        codes[result.sentence_index] = 0
        codes[result.misclassified] = 1
        colourings.append(Colouring("Misclassified or not", ("right", "misclassified"),
                                    codes, ("#4a90d9", MISCLASSIFIED), "not evaluated"))
    colourings.append(Numbers("Words", np.array([len(t.split()) for t in corpus.texts],
                                                dtype=np.float64)))
    faithful = exploration.faithfulness
    if faithful is not None:
        colourings.append(Numbers(f"Faithfulness ({faithful.k} neighbours kept)",
                                  faithful.overlap))
    for title, values in (labels or {}).items():
        colourings.append(Colouring.of_values(title, values))
    return colourings + pair_columns(corpus) + metadata_columns(corpus)


def pair_columns(corpus: Corpus) -> list[Column]:
    """What a corpus's pairs say of each sentence: its number of pairs, their splits,
    subsets and labels (several joined by " + "), and their mean gold score."""
    pairs = corpus.pairs
    if pairs is None or not len(pairs):
        return []
    n = len(corpus)
    ends = np.concatenate([pairs.first, pairs.second])
    columns: list[Column] = [Numbers("Pairs", np.bincount(ends, minlength=n).astype(float))]
    labelled = [pairs.label_text(int(label)) if label >= 0 else None
                for label in pairs.label]
    for title, values in (("Split", pairs.split), ("Subset", pairs.subset),
                          ("Pair label", labelled)):
        if len({v for v in values if v is not None}) > 1:
            columns.append(Colouring.of_values(title, _joined(n, ends, [*values, *values]),
                                               none="in no pair"))
    scores = np.concatenate([pairs.score, pairs.score])
    scored = np.isfinite(scores)
    if scored.any():
        total = np.bincount(ends[scored], weights=scores[scored], minlength=n)
        count = np.bincount(ends[scored], minlength=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            columns.append(Numbers("Gold score (mean of its pairs)", total / count))
    return columns


def _joined(n: int, ends: np.ndarray, values: Sequence[str | None]) -> list[str]:
    seen: list[set[str]] = [set() for _ in range(n)]
    for sentence, value in zip(ends.tolist(), values):
        if value is not None:
            seen[sentence].add(value)
    return [" + ".join(sorted(names, key=_natural)) for names in seen]


def metadata_columns(corpus: Corpus) -> list[Column]:
    """Each metadata column: numbers when every value is one, else categories when
    values repeat (at most half as many as sentences), else free text."""
    columns: list[Column] = []
    for name, values in corpus.metadata.items():
        title = name[:1].upper() + name[1:]
        numbers = _as_numbers(values)
        if numbers is not None:
            columns.append(Numbers(title, numbers))
        elif 1 < len(set(map(str, values))) <= len(corpus) // 2:
            columns.append(Colouring.of_values(title, values))
        else:
            columns.append(Texts(title, tuple("" if v is None else str(v) for v in values)))
    return columns


def _as_numbers(values: Sequence[Any]) -> np.ndarray | None:
    if any(isinstance(v, bool) for v in values):   # yes/no: two categories, not 0 and 1
        return None
    try:
        numbers = np.array([np.nan if v is None or v == "" else float(v) for v in values])
    except (TypeError, ValueError):
        return None
    return numbers if np.isfinite(numbers).any() else None


def original_neighbours(exploration: Exploration, k: int = NEIGHBOURS, *,
                        search: str = "auto", seed: int = 0
                        ) -> Job[tuple[np.ndarray, np.ndarray, str]]:
    """Each sentence's ``k`` nearest others in the original space (cosine), found as
    ``search`` says (:func:`sentspace.app.ann.iter_knn`), and how they were found."""
    embeddings = exploration.embeddings
    n = embeddings.shape[0]
    if n < 2:
        return np.full((n, 0), -1), np.zeros((n, 0)), "none"
    indices, cosines, how = yield from iter_knn(embeddings, embeddings, min(k, n - 1),
                                                exclude=np.arange(n), search=search,
                                                seed=seed)
    return indices, cosines, how.describe()


def exploration_provenance(exploration: Exploration, results: Sequence[Result] = ()
                           ) -> list[tuple[str, str]]:
    """Rows saying what the map shows and how it was made."""
    corpus, encoder, projection = (exploration.corpus, exploration.encoder,
                                   exploration.projection)
    parameters = ", ".join(f"{k} {v}" for k, v in projection.parameters.items())
    rows = [("Corpus", f"{corpus.name}, {len(corpus):,} sentences"
                       + (f", {corpus.edits} edits" if corpus.edits else "")
                       + f" (fingerprint {corpus.fingerprint[:12]})"),
            ("Encoder", f"{encoder.name} ({encoder.family}; fingerprint "
                        f"{encoder.fingerprint()[:12]})"),
            ("Projection", f"{METHOD_TITLES[projection.method]}: {parameters}"
                           + (f"; {projection.describe()}" if projection.fitted_on is not None
                              else ""))]
    faithful = exploration.faithfulness
    if faithful is not None:
        rows.append(("Faithfulness", f"{faithful.share(faithful.mean_overlap)} of "
                                     f"{faithful.k} nearest neighbours kept in 2D, "
                                     f"{faithful.describe()}"))
    evaluated = ([exploration.classification] if exploration.classification else [])
    for result in [*evaluated, *results]:
        rows.append((result.evaluation.capitalize(), "; ".join(map(_headline,
                                                                  result.scores()[:3]))))
    rows.append(("Made by", f"sentspace {package_version()}"))
    return rows


def _headline(score: Score) -> str:
    interval = f" (95% CI {score.ci[0]:.4g} to {score.ci[1]:.4g})" if score.ci else ""
    over = f", n = {score.n:,}" if score.n else ""
    return f"{score.name} {score.value:.4g}{interval}{over}"


def export_map(exploration: Exploration, path: str | Path, **options: Any) -> Path:
    """:func:`iter_export_map` run to the end in this thread."""
    return run_job(iter_export_map(exploration, path, **options))


def iter_export_map(exploration: Exploration, path: str | Path, *,
                    groups: np.ndarray | None = None, regions: Regions | None = None,
                    labels: dict[str, Sequence[Any]] | None = None,
                    results: Sequence[Result] = (), title: str | None = None,
                    search: str = "auto", seed: int = 0, command: str = "") -> Job[Path]:
    """Write ``exploration``'s projection as a self-contained web page to ``path``; a job
    (finding the neighbours is the long part: an index above 50,000 sentences).

    ``groups`` is each sentence's group as edited (default: the corpus's first group),
    ``regions`` those found on this layout (labelled on the map and a colouring),
    ``labels`` extra per-sentence colourings by name, ``results`` evaluations whose
    headlines join the provenance; each point's :data:`NEIGHBOURS` nearest in the
    original space are found as ``search`` says (:func:`original_neighbours`);
    ``command``, the shell command that writes the map again, is the last provenance row.
    """
    projection = exploration.projection
    corpus = exploration.corpus
    indices, cosines, how = yield from original_neighbours(exploration, search=search,
                                                           seed=seed)
    provenance = exploration_provenance(exploration, results)
    provenance.insert(-1, ("Neighbours", f"{indices.shape[1]} nearest in the original "
                                         f"space by cosine, {how}"))
    if command:
        provenance.append(("Command", command))
    return write_map(
        path, corpus.texts, projection.coordinates, ids=corpus.ids,
        colourings=exploration_colourings(exploration, groups=groups, regions=regions,
                                          labels=labels),
        regions=region_labels(regions, projection.coordinates) if regions is not None else (),
        provenance=provenance, neighbours=(indices, cosines),
        title=title or f"{corpus.name} by {exploration.encoder.name}",
        axes=projection.axis_labels)
