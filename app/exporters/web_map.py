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
(numbers) or a bar chart of its categories (past the palette's 18 colours, its top 10
and "other": ``columns.named_count``, as in the window; a chart that says nothing, as
the window decides, is left out); brushing a range or clicking bars filters the map, the
other charts and a paged, sortable table together, as do a box or lasso on the map and a
filter expression; the table's rows export as CSV or JSONL. The search box finds
sentences by words, ranked by how many of the query's words each has, rings them on the
map and lists them in the table. Any column colours the map as in the window, starting
with the window's colouring: categories with a legend naming those the chart names, any
"(other N)" in one warm grey drawn under them, numbers on viridis with the window's
colour bar (a long tail past it in its end colours). A click on a point shows its fields
and its nearest neighbours in the original space; regions are labelled at their centre,
and the side panel gives the run's provenance (corpus, encoder, projection, evaluation
headlines).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.analysis.ann import iter_knn
from sentspace.app.analysis.columns import (
    Categories,
    Column,
    Numbers,
    Texts,
    exploration_columns,
    named_count,
)
from sentspace.app.analysis.explore import Exploration
from sentspace.app.analysis.filters import make_chart
from sentspace.app.analysis.regions import Regions
from sentspace.app.analysis.results import Result, Score, package_version
from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.base.jobs import Job, run_job
from sentspace.app.base.palette import CATEGORICAL, OTHER, SEQUENTIAL, UNGROUPED, number_colours
from sentspace.app.state.colouring import METHOD_TITLES, colourings, default_colouring

TEMPLATE = Path(__file__).resolve().parents[1] / "resources" / "web_map.html"
#: The places in the template that map_page fills.
_TEMPLATE_KEY = re.compile(r"__(TITLE|PLOTLY_LICENCE|DATA|PLOTLY)__")
#: The rings of search matches: a colour in no palette of the page, over a white halo,
#: so they stay visible whatever colours the points beneath.
RING = "#ff00ff"
#: Nearest neighbours in the original space the page shows for a clicked point.
NEIGHBOURS = 10


def _column_data(column: Column) -> dict[str, Any]:
    if not isinstance(column, Texts):
        return {**_charted_data(column), "drawn": bool(make_chart(column).informative)}
    return {"kind": "text", "title": column.title, "values": list(map(str, column.values))}


def _charted_data(column: Categories | Numbers) -> dict[str, Any]:
    if isinstance(column, Numbers):
        values = np.asarray(column.values, dtype=np.float64)
        finite = values[np.isfinite(values)]
        scale = number_colours(values, column.title)[1]
        return {
            "kind": "number",
            "title": column.title,
            "values": _base64(values, "<f4"),
            "integer": bool(len(finite)) and bool(np.all(finite == np.round(finite))),
            # The window's colour bar, so a long tail colours the page as it does there.
            "scale": [scale.low, scale.high],
        }
    return {
        "kind": "category",
        "title": column.title,
        "names": list(column.names),
        "none": column.none,
        "colours": list(column.palette()),
        "explicit": bool(column.colours),
        # How many its legend and chart name, as in the window; the rest are "other".
        "named": named_count(len(column.names)),
        "codes": _base64(column.codes, "<i4"),
    }


def _base64(array: np.ndarray, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode()


def _plotly_js() -> tuple[str, str]:
    """plotly.js's minified source and the package's licence line."""
    import plotly  # noqa: PLC0415
    from plotly.offline import get_plotlyjs  # noqa: PLC0415

    return get_plotlyjs(), f"the plotly {plotly.__version__} Python package's copy"


def map_page(
    texts: Sequence[str],
    coordinates: np.ndarray,
    *,
    ids: Sequence[str] | None = None,
    columns: Sequence[Column] = (),
    regions: Sequence[tuple[str, float, float]] = (),
    finer_regions: Sequence[Sequence[tuple[str, float, float]]] = (),
    provenance: Sequence[tuple[str, str]] = (),
    title: str = "sentspace map",
    axes: tuple[str, str] = ("", ""),
    neighbours: tuple[np.ndarray, np.ndarray] | None = None,
    colour: str | None = None,
) -> str:
    """The HTML of a map of ``texts`` at ``coordinates`` (n, 2).

    ``columns`` are the columns, charted and offered as colourings in that order (the
    one titled ``colour`` shown first, else the first; :class:`Texts` only in the
    table), ``regions`` are labels drawn at
    (x, y), ``finer_regions`` those of each finer level, coarse to fine (the page names
    finer regions as it is zoomed in), ``provenance`` (label, value) rows open the side panel, ``neighbours`` each
    point's nearest in the original space: indices (n, k), -1 for none, and cosines.
    """
    coordinates = np.asarray(coordinates, dtype=np.float32)
    n = len(texts)
    if coordinates.shape != (n, 2):
        raise ValueError(f"coordinates of shape {coordinates.shape} for {n} texts")
    for column in columns:
        values = column.codes if isinstance(column, Categories) else column.values
        if len(values) != n:
            raise ValueError(f"column {column.title!r} has {len(values)} values for {n} points")
    nearest = None
    if neighbours is not None:
        indices, cosines = (np.asarray(a) for a in neighbours)
        if indices.shape != cosines.shape or indices.shape[0] != n:
            raise ValueError(f"neighbours of shape {indices.shape} for {n} points")
        nearest = {
            "k": int(indices.shape[1]),
            "indices": _base64(indices, "<i4"),
            "cosines": _base64(np.round(np.clip(cosines, -1, 1) * 10_000), "<i2"),
        }
    data = {
        "n": n,
        "title": title,
        "axes": list(axes),
        "coordinates": _base64(coordinates, "<f4"),
        "texts": [str(t) for t in texts],
        "ids": [str(i) for i in (ids if ids is not None else range(n))],
        "columns": [_column_data(c) for c in columns],
        "neighbours": nearest,
        "regions": [[label, float(x), float(y)] for label, x, y in regions],
        "finer_regions": [
            [[label, float(x), float(y)] for label, x, y in level] for level in finer_regions
        ],
        "provenance": [[str(label), str(value)] for label, value in provenance],
        "none_colour": UNGROUPED,
        "other_colour": OTHER,
        "categorical": list(CATEGORICAL),
        "colour": colour,
        "ring_colour": RING,
        "sequential": list(SEQUENTIAL),
    }
    # "<" escaped, so no text can close the script element that holds the data.
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    script, licence = _plotly_js()
    inserted = {
        "TITLE": _escape(title),
        "PLOTLY_LICENCE": licence,
        "DATA": payload,
        "PLOTLY": script,
    }
    # One pass over the template alone: a key inside a sentence, the title or the
    # library's source is text, never a place to insert into.
    return _TEMPLATE_KEY.sub(
        lambda key: inserted[key.group(1)], TEMPLATE.read_text(encoding="utf-8")
    )


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_map(
    path: str | Path, texts: Sequence[str], coordinates: np.ndarray, **options: Any
) -> Path:
    """Write :func:`map_page` to ``path`` (atomically) and return it."""
    write_text_atomic(path, map_page(texts, coordinates, **options))
    return Path(path)


def region_labels(
    regions: Regions, coordinates: np.ndarray, level: int = 0
) -> list[tuple[str, float, float]]:
    """Each region's label at ``level`` (0: coarse) at the median 2D position of its
    points (regions found on the embeddings may have their mean between clusters)."""
    regions_of_level = regions.levels[level]
    labels = []
    for cluster in range(regions_of_level.n_clusters):
        members = coordinates[regions_of_level.labels == cluster]
        if len(members):
            x, y = np.median(members, axis=0)
            labels.append((regions_of_level.label(cluster), float(x), float(y)))
    return labels


def original_neighbours(
    exploration: Exploration, k: int = NEIGHBOURS, *, search: str = "auto", seed: int = 0
) -> Job[tuple[np.ndarray, np.ndarray, str]]:
    """Each sentence's ``k`` nearest others in the original space (cosine), found as
    ``search`` says (:func:`sentspace.app.analysis.ann.iter_knn`), and how they were found."""
    embeddings = exploration.embeddings
    n = embeddings.shape[0]
    if n < 2:
        return np.full((n, 0), -1), np.zeros((n, 0)), "none"
    indices, cosines, how = yield from iter_knn(
        embeddings, embeddings, min(k, n - 1), exclude=np.arange(n), search=search, seed=seed
    )
    return indices, cosines, how.describe()


def exploration_provenance(
    exploration: Exploration, results: Sequence[Result] = ()
) -> list[tuple[str, str]]:
    """Rows saying what the map shows and how it was made."""
    corpus, encoder, projection = (exploration.corpus, exploration.encoder, exploration.projection)
    parameters = ", ".join(f"{k} {v}" for k, v in projection.parameters.items())
    rows = [
        (
            "Corpus",
            f"{corpus.name}, {len(corpus):,} sentences"
            + (f", {corpus.edits} edits" if corpus.edits else "")
            + f" (fingerprint {corpus.fingerprint[:12]})",
        ),
        ("Encoder", f"{encoder.name} ({encoder.family}; fingerprint {encoder.fingerprint()[:12]})"),
        (
            "Projection",
            f"{METHOD_TITLES[projection.method]}: {parameters}"
            + (f"; {projection.describe()}" if projection.fitted_on is not None else ""),
        ),
    ]
    faithful = exploration.faithfulness
    if faithful is not None:
        rows.append(
            (
                "Faithfulness",
                f"{faithful.share(faithful.mean_overlap)} of "
                f"{faithful.k} nearest neighbours kept in 2D, "
                f"{faithful.describe()}",
            )
        )
    evaluated = [exploration.classification] if exploration.classification else []
    for result in [*evaluated, *results]:
        rows.append(
            (result.evaluation.capitalize(), "; ".join(map(_headline, result.scores()[:3])))
        )
    rows.append(("Made by", f"sentspace {package_version()}"))
    return rows


def _headline(score: Score) -> str:
    interval = f" (95% CI {score.ci[0]:.4g} to {score.ci[1]:.4g})" if score.ci else ""
    over = f", n = {score.n:,}" if score.n else ""
    return f"{score.name} {score.value:.4g}{interval}{over}"


def export_map(exploration: Exploration, path: str | Path, **options: Any) -> Path:
    """:func:`iter_export_map` run to the end in this thread."""
    return run_job(iter_export_map(exploration, path, **options))


def iter_export_map(
    exploration: Exploration,
    path: str | Path,
    *,
    groups: np.ndarray | None = None,
    regions: Regions | None = None,
    labels: dict[str, Sequence[Any]] | None = None,
    results: Sequence[Result] = (),
    title: str | None = None,
    search: str = "auto",
    seed: int = 0,
    command: str = "",
    colour: str | None = None,
) -> Job[Path]:
    """Write ``exploration``'s projection as a self-contained web page to ``path``; a job
    (finding the neighbours is the long part: an index above 50,000 sentences).

    ``groups`` is each sentence's group as edited (default: the corpus's first group),
    ``regions`` those found on this layout (labelled on the map and a colouring),
    ``labels`` extra per-sentence colourings by name, ``results`` evaluations whose
    headlines join the provenance; each point's :data:`NEIGHBOURS` nearest in the
    original space are found as ``search`` says (:func:`original_neighbours`);
    ``command``, the shell command that writes the map again, is the last provenance row;
    ``colour`` the key of the colouring shown first (as the window keeps it; default:
    the window's first colouring of this corpus, :func:`colouring.default_colouring`).
    """
    projection = exploration.projection
    corpus = exploration.corpus
    indices, cosines, how = yield from original_neighbours(exploration, search=search, seed=seed)
    provenance = exploration_provenance(exploration, results)
    provenance.insert(
        -1, ("Neighbours", f"{indices.shape[1]} nearest in the original space by cosine, {how}")
    )
    if command:
        provenance.append(("Command", command))
    columns = exploration_columns(exploration, groups=groups, regions=regions, labels=labels)
    offered = colourings(columns)
    shown = offered.get(colour or default_colouring(corpus, offered))
    return write_map(
        path,
        corpus.texts,
        projection.coordinates,
        ids=corpus.ids,
        columns=columns,
        colour=shown.title if shown is not None else None,
        regions=region_labels(regions, projection.coordinates) if regions is not None else (),
        finer_regions=[
            region_labels(regions, projection.coordinates, level)
            for level in range(1, len(regions.levels))
        ]
        if regions is not None
        else (),
        provenance=provenance,
        neighbours=(indices, cosines),
        title=title or f"{corpus.name} by {exploration.encoder.name}",
        axes=projection.axis_labels,
    )
