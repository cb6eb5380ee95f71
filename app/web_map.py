"""A projection as one web page to send: ``sentspace export-map`` and the window's
*File > Export map as web page…*.

The page is a single HTML file that needs no network and no server. It carries
plotly.js (MIT; the copy bundled in the ``plotly`` Python package, licence banner
included) and draws the points with its WebGL scatter (``scattergl``), fluid at 100,000
points and more. The data are embedded compactly: coordinates as base64 float32, each
colouring as base64 int32 codes into its category names, texts and ids as JSON (about
the size of the texts plus 12 bytes a point, beside plotly.js's 4.8 MB).

In the page: hover shows a sentence (also in the side panel), a select switches the
colouring (group, region, label, metadata column...) with its legend, the search box
rings the sentences that contain its words and lists them, a click on a point or a
legend entry lists that group, regions are labelled at their centre, and the side panel
gives the run's provenance (corpus, encoder, projection, evaluation headlines).
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

from sentspace.app.atomic import write_text_atomic
from sentspace.app.colouring import METHOD_TITLES, categorical_columns
from sentspace.app.explore import Exploration
from sentspace.app.palette import CATEGORICAL, FOUND, MISCLASSIFIED, UNGROUPED
from sentspace.app.regions import NOISE, Regions
from sentspace.app.results import Result, Score, package_version

TEMPLATE = Path(__file__).resolve().parents[1] / "resources" / "web_map.html"
#: The places in the template that map_page fills.
_TEMPLATE_KEY = re.compile(r"__(TITLE|PLOTLY_LICENCE|DATA|PLOTLY)__")


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
        """A colouring by per-point values (strings, numbers); "" or None is ``none``."""
        text = np.array(["" if v is None else str(v) for v in values], dtype=object)
        names, codes = np.unique(text, return_inverse=True)
        if len(names) and names[0] == "":
            names, codes = names[1:], codes - 1
        return cls(title, tuple(names), codes, none=none)

    def palette(self) -> tuple[str, ...]:
        return self.colours or tuple(CATEGORICAL[k % len(CATEGORICAL)]
                                     for k in range(len(self.names)))


def _base64(array: np.ndarray, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode()


def _plotly_js() -> tuple[str, str]:
    """plotly.js's minified source and the package's licence line."""
    import plotly  # noqa: PLC0415
    from plotly.offline import get_plotlyjs  # noqa: PLC0415

    return get_plotlyjs(), f"the plotly {plotly.__version__} Python package's copy"


def map_page(texts: Sequence[str], coordinates: np.ndarray, *,
             ids: Sequence[str] | None = None, colourings: Sequence[Colouring] = (),
             regions: Sequence[tuple[str, float, float]] = (),
             provenance: Sequence[tuple[str, str]] = (), title: str = "sentspace map",
             axes: tuple[str, str] = ("", "")) -> str:
    """The HTML of a map of ``texts`` at ``coordinates`` (n, 2).

    ``colourings`` are offered in that order (the first shown), ``regions`` are labels
    drawn at (x, y), ``provenance`` (label, value) rows open the side panel.
    """
    coordinates = np.asarray(coordinates, dtype=np.float32)
    n = len(texts)
    if coordinates.shape != (n, 2):
        raise ValueError(f"coordinates of shape {coordinates.shape} for {n} texts")
    for colouring in colourings:
        if len(colouring.codes) != n:
            raise ValueError(f"colouring {colouring.title!r} has {len(colouring.codes)} "
                             f"codes for {n} points")
    data = {
        "n": n, "title": title, "axes": list(axes),
        "coordinates": _base64(coordinates, "<f4"),
        "texts": [str(t) for t in texts],
        "ids": [str(i) for i in (ids if ids is not None else range(n))],
        "colourings": [{"title": c.title, "names": list(c.names), "none": c.none,
                        "colours": list(c.palette()), "codes": _base64(c.codes, "<i4")}
                       for c in colourings],
        "regions": [[label, float(x), float(y)] for label, x, y in regions],
        "provenance": [[str(label), str(value)] for label, value in provenance],
        "none_colour": UNGROUPED, "found_colour": FOUND,
    }
    # "<" escaped, so no text can close the script element that holds the data.
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace(
        "<", "\\u003c")
    script, licence = _plotly_js()
    values = {"TITLE": _escape(title), "PLOTLY_LICENCE": licence, "DATA": payload,
              "PLOTLY": script}
    # One pass over the template alone: a key inside a sentence, the title or the
    # library's source is text, never a place to insert into.
    return _TEMPLATE_KEY.sub(lambda key: values[key.group(1)],
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
                           ) -> list[Colouring]:
    """The colourings of an exploration: group, region, misclassified or not, each given
    label and each categorical metadata column (as the Projection panel offers them)."""
    corpus = exploration.corpus
    colourings = []
    if corpus.groups is not None:
        codes = corpus.groups.first_group(len(corpus)) if groups is None else groups
        colourings.append(Colouring(corpus.groups.kind.capitalize() or "Group",
                                    tuple(corpus.groups.names), np.asarray(codes),
                                    none="no group"))
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
    for title, values in (labels or {}).items():
        colourings.append(Colouring.of_values(title, values))
    for column in categorical_columns(corpus):
        colourings.append(Colouring.of_values(column.capitalize(), corpus.metadata[column]))
    return colourings


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


def export_map(exploration: Exploration, path: str | Path, *,
               groups: np.ndarray | None = None, regions: Regions | None = None,
               labels: dict[str, Sequence[Any]] | None = None,
               results: Sequence[Result] = (), title: str | None = None) -> Path:
    """Write ``exploration``'s projection as a self-contained web page to ``path``.

    ``groups`` is each sentence's group as edited (default: the corpus's first group),
    ``regions`` those found on this layout (labelled on the map and a colouring),
    ``labels`` extra per-sentence colourings by name, ``results`` evaluations whose
    headlines join the provenance.
    """
    projection = exploration.projection
    corpus = exploration.corpus
    return write_map(
        path, corpus.texts, projection.coordinates, ids=corpus.ids,
        colourings=exploration_colourings(exploration, groups=groups, regions=regions,
                                          labels=labels),
        regions=region_labels(regions, projection.coordinates) if regions is not None else (),
        provenance=exploration_provenance(exploration, results),
        title=title or f"{corpus.name} by {exploration.encoder.name}",
        axes=projection.axis_labels)
