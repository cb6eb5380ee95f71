"""A projection as one web page to send: ``sentspace export-map`` and the window's
*File > Export map as web page…*.

The page is a single HTML file that needs no network and no server: the template and
scripts of ``resources/web_map/`` (a WebGL point renderer of its own, which a filter or
colouring changes by rewriting one byte per point on the GPU, and the filter language
of ``--where``, parsed by a grammar of its own) and the data. A small JSON manifest
describes one gzip'd binary payload (base64; the browser's ``DecompressionStream``
unpacks it): coordinates float32, category codes in the narrowest integer type plus the
names, numbers float32 (float64 where float32 would change one), each point's nearest
neighbours in the original space as uint32 indices and int16 cosines x 10,000, texts
and ids as one UTF-8 string each with where each ends; a column of one value is stored
once.

In the page: every column (group, region, misclassified, words, group size,
faithfulness, a corpus's pair split, label and gold score, its metadata) is a histogram
(numbers) or a bar chart of its categories (past the palette's 18 colours, its top 10
and "other": ``columns.named_count``, as in the window; a chart that says nothing, as
the window decides, is left out); brushing a range or clicking bars filters the map, the
other charts and a paged, sortable table together, as do a box or lasso on the map and a
filter expression; the table's rows export as CSV or JSONL. The search box finds
sentences by words, ranked by how many of the query's words each has, fades the points
with none of them, rings the best (at most 1,000) on the map and lists them in the
table. Any column colours the map as in the window, starting with the window's
colouring: categories with a legend naming those the chart names, any "(other N)" in
one warm grey drawn under them, numbers on viridis with the window's colour bar (a long
tail past it in its end colours). A click on a point shows its fields
and its nearest neighbours in the original space; regions are labelled at their centre,
and the side panel gives the run's provenance (corpus, encoder, projection, evaluation
headlines). The passes over every point (the filters' masks, the charts' counts, the
table's rows, the colour and layer bytes, search) run in a worker of the page's own,
made from its engine script (``engine.js``) as a Blob URL; a browser that refuses the
worker runs the same functions in the page.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
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
from sentspace.app.analysis.filters import FilterTable
from sentspace.app.analysis.regions import Regions
from sentspace.app.analysis.results import Result, Score, package_version
from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.base.jobs import Job, run_job
from sentspace.app.base.palette import CATEGORICAL, OTHER, SEQUENTIAL, UNGROUPED, number_colours
from sentspace.app.state.colouring import METHOD_TITLES, colourings, default_colouring

ASSETS = Path(__file__).resolve().parents[2] / "resources" / "web_map"
#: The places in the template that map_page fills.
_TEMPLATE_KEY = re.compile(r"__(TITLE|DATA|BYTES|ENGINE|SCRIPT)__")
#: The page's scripts, in the order they run: the engine (the filter language and the
#: passes over every point; its script element is also the source of the page's worker),
#: then the page.
ENGINE = ("expression.js", "engine.js")
SCRIPTS = ("map.js",)
#: The rings of search matches: a colour in no palette of the page, over a white halo,
#: so they stay visible whatever colours the points beneath.
RING = "#ff00ff"
#: Nearest neighbours in the original space the page shows for a clicked point.
NEIGHBOURS = 10
#: Index of no neighbour in the payload's uint32 neighbour lists.
NO_NEIGHBOUR = 0xFFFFFFFF


class _Payload:
    """Typed arrays laid end to end, each at a multiple of 8 bytes; the manifest names
    each section's place, dtype and length. Arrays of wider items are stored byte plane
    by byte plane (all first bytes, then all second bytes, ...), which gzip packs far
    tighter: indices below 2**24 have a plane of zeros."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0
        self.sections: dict[str, dict[str, Any]] = {}

    def add(self, name: str, array: np.ndarray, dtype: str) -> str:
        data = np.ascontiguousarray(array, dtype=dtype)
        width = data.dtype.itemsize
        raw = data.view(np.uint8).reshape(-1, width).T.tobytes() if width > 1 else data.tobytes()
        self.sections[name] = {
            "offset": self.size,
            "dtype": dtype.lstrip("<"),
            "length": int(data.size),
            "planes": width,
        }
        self.parts.append(raw + bytes(-len(raw) % 8))
        self.size += len(raw) + (-len(raw) % 8)
        return name

    def add_texts(self, name: str, texts: Sequence[str]) -> str:
        """Texts as one UTF-8 string and each one's end in UTF-16 units (what a
        JavaScript string is indexed by), so the page cuts one out only when shown."""
        strings = [str(t) for t in texts]
        ends = np.cumsum([len(t.encode("utf-16-le")) // 2 for t in strings], dtype=np.int64)
        if len(ends) and ends[-1] >= 2**32:
            raise ValueError(f"{name}: more text than the page can index (4 G characters)")
        self.add(f"{name}.ends", ends, "<u4")
        joined = "".join(strings).encode("utf-8")
        self.sections[name] = {"offset": self.size, "dtype": "utf8", "length": len(joined)}
        self.parts.append(joined + bytes(-len(joined) % 8))
        self.size += len(joined) + (-len(joined) % 8)
        return name

    def packed(self) -> tuple[str, str]:
        """The gzip'd bytes in base64 (a fixed gzip header: the same map, the same
        file) and the SHA-256 of the bytes before compression."""
        raw = b"".join(self.parts)
        packed = gzip.compress(raw, compresslevel=6, mtime=0)
        return base64.b64encode(packed).decode("ascii"), hashlib.sha256(raw).hexdigest()


def _column_data(
    column: Column, index: int, payload: _Payload, table: FilterTable
) -> dict[str, Any]:
    if isinstance(column, Texts):
        return {
            "kind": "text",
            "title": column.title,
            "values": payload.add_texts(f"column{index}", list(map(str, column.values))),
        }
    chart = table.charts[column.title]
    return {
        **_charted_data(column, f"column{index}", payload),
        "drawn": bool(chart.informative),
    }


def _charted_data(column: Categories | Numbers, name: str, payload: _Payload) -> dict[str, Any]:
    if isinstance(column, Numbers):
        values = np.asarray(column.values, dtype=np.float64)
        finite = values[np.isfinite(values)]
        scale = number_colours(values, column.title)[1]
        # float32 where it holds every value exactly (counts, halves), else float64, so
        # that an expression compares the numbers --where compares.
        exact = np.array_equal(values.astype(np.float32), values, equal_nan=True)
        return {
            "kind": "number",
            "title": column.title,
            # One value (or none) in every row: stored once.
            **(
                {"constant": _json_number(float(values[0]))}
                if len(values) and np.array_equal(values, np.full_like(values, values[0]), True)
                else {"values": payload.add(name, values, "<f4" if exact else "<f8")}
            ),
            "integer": bool(len(finite)) and bool(np.all(finite == np.round(finite))),
            # The window's colour bar, so a long tail colours the page as it does there.
            "scale": [scale.low, scale.high],
        }
    codes = np.asarray(column.codes)
    width = "<i1" if len(column.names) < 2**7 else "<i2" if len(column.names) < 2**15 else "<i4"
    return {
        "kind": "category",
        "title": column.title,
        "names": list(column.names),
        "none": column.none,
        "colours": list(column.palette()),
        "explicit": bool(column.colours),
        # How many its legend and chart name, as in the window; the rest are "other".
        "named": named_count(len(column.names)),
        # Each name as a number where every one is one (Costra's seed groups), so an
        # expression compares them as numbers, as the window does.
        "numbers": _name_numbers(column.names),
        **(
            {"constant": int(codes[0])}
            if len(codes) and np.all(codes == codes[0])
            else {"codes": payload.add(name, codes, width)}
        ),
    }


def _json_number(value: float) -> float | None:
    return value if np.isfinite(value) else None


def _name_numbers(names: Sequence[str]) -> list[float] | None:
    try:
        return [float(name) for name in names]
    except ValueError:
        return None


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
    payload = _Payload()
    nearest = None
    if neighbours is not None:
        indices, cosines = (np.asarray(a) for a in neighbours)
        if indices.shape != cosines.shape or indices.shape[0] != n:
            raise ValueError(f"neighbours of shape {indices.shape} for {n} points")
        nearest = {
            "k": int(indices.shape[1]),
            "indices": payload.add(
                "neighbours", np.where(indices < 0, NO_NEIGHBOUR, indices), "<u4"
            ),
            "cosines": payload.add("cosines", np.round(np.clip(cosines, -1, 1) * 10_000), "<i2"),
        }
    identifiers = [str(i) for i in (ids if ids is not None else range(n))]
    # The filter language's names of the columns, as the window and --where name them.
    table = FilterTable(columns)
    data = {
        "n": n,
        "title": title,
        "axes": list(axes),
        "coordinates": payload.add("coordinates", coordinates, "<f4"),
        "texts": payload.add_texts("texts", texts),
        # Ids that are the row numbers (a corpus without ids of its own) are not stored.
        "ids": None
        if identifiers == [str(i) for i in range(n)]
        else payload.add_texts("ids", identifiers),
        "columns": [_column_data(c, k, payload, table) for k, c in enumerate(columns)],
        "names": table.names,
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
    packed, digest = payload.packed()
    data["sections"] = payload.sections
    data["digest"] = digest
    # "<" escaped, so no text can close the script element that holds the data.
    manifest = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    engine, script = (
        "\n".join((ASSETS / name).read_text(encoding="utf-8") for name in names)
        for names in (ENGINE, SCRIPTS)
    )
    inserted = {
        "TITLE": _escape(title),
        "DATA": manifest,
        "BYTES": packed,
        "ENGINE": engine,
        "SCRIPT": script,
    }
    # One pass over the template alone: a key inside a sentence, the title or the
    # page's script is text, never a place to insert into.
    return _TEMPLATE_KEY.sub(
        lambda key: inserted[key.group(1)],
        (ASSETS / "page.html").read_text(encoding="utf-8"),
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
