"""How heavy and how fast is the exported web map on the 145,000 Multi30K captions?

    .venv/bin/python bench/bench_web_map.py [--corpus multi30k-captions] [--repeat 3]

The corpus encoded with glove-mean, a 2D PCA, written by ``export_map`` (each point's 10
nearest in the original space found as ``--search`` says). Prints the file's size and
the time to write it, and, in Debian's headless chromium (SwiftShader WebGL, as the tests
run it), the best and worst of ``--repeat`` runs of: a load (``driver.get`` to the page's
ready mark: plotly.js parsed, the data decoded, the charts built, the WebGL scatter
drawn), a brush of a histogram (18 to 29 words), a click on a bar (the largest group), a
word search (the first builds the page's index of words) and another, a switch to
colouring by a number (words) and a zoom step, each until the page has drawn it (two
animation frames after plotly's promise). "Filter" times another brush with the map's
repaint left out: the typed-array passes over every point, the charts' counts and the
table, which is what scales with the points in the page's own code; "restyle" the
JavaScript of plotly's repaint (its calc) before any drawing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sentspace.app.analysis.explore import explore  # noqa: E402
from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.app.exporters.web_map import export_map  # noqa: E402
from sentspace.models import make_encoder  # noqa: E402
from tests.browser import chromium, open_page  # noqa: E402

DRAWN = "requestAnimationFrame(() => requestAnimationFrame(done))"
STEPS = {
    "brush 18-29 words": "brushValues('Words', 18, 29)",
    "click the top bar": "return toggleBar(charted[0], 0)",
    "search 'man guitar'": "search('man guitar')",
    "search 'dog ball' after": "search('dog ball')",
    "colour by words": "colourBy(columns.findIndex(c => c.title === 'Words'))",
    "zoom step": (
        "const [a, b] = plot._fullLayout.xaxis.range, m = (a + b) / 2, h = (b - a) * 0.45;"
        "return Plotly.relayout(plot, {'xaxis.range': [m - h, m + h]})"
    ),
}
# The brush's own work: the map's repaint swapped out for nothing.
FILTER = (
    "const painting = window.paint; window.paint = () => null;"
    "const start = performance.now(); brushValues('Words', 12, 16);"
    "const took = performance.now() - start; window.paint = painting; return took;"
)
# plotly's share of a repaint before drawing: the restyle's JavaScript (its calc).
RESTYLE = "const start = performance.now(); paint(); return performance.now() - start;"


def timed(browser, script: str) -> float:
    start = time.perf_counter()
    browser.execute_async_script(
        "const done = arguments[0];"
        f"Promise.resolve((() => {{ {script if 'return' in script else 'return ' + script} }})())"
        f".then(() => {DRAWN});"
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="multi30k-captions")
    parser.add_argument("--search", default="auto", help="how neighbours are found")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    corpus = load_corpus(args.corpus)
    start = time.perf_counter()
    exploration = run_job(explore(corpus, make_encoder("glove-mean"), method="pca"))
    explored = time.perf_counter() - start
    folder = tempfile.TemporaryDirectory()
    path = Path(folder.name) / "map.html"
    start = time.perf_counter()
    export_map(exploration, path, search=args.search)
    written = time.perf_counter() - start
    text_mb = sum(len(t.encode()) for t in corpus.texts) / 1e6
    print(
        f"{corpus.name}, {len(corpus):,} sentences: encoded and projected in "
        f"{explored:.0f} s; map {path.stat().st_size / 1e6:.1f} MB (texts {text_mb:.1f} MB, "
        f"plotly.js 4.8 MB), written in {written:.1f} s (10 neighbours each included)"
    )

    browser = chromium()
    times: dict[str, list[float]] = {"load": [], "filter (no repaint)": []}
    try:
        for _ in range(args.repeat):
            browser.get("about:blank")
            start = time.perf_counter()
            open_page(browser, path, timeout=600)
            times["load"].append(time.perf_counter() - start)
            for name, script in STEPS.items():
                times.setdefault(name, []).append(timed(browser, script))
            browser.execute_script("document.getElementById('clear-filters').click()")
            times["filter (no repaint)"].append(browser.execute_script(FILTER) / 1000)
            times.setdefault("restyle (its JS)", []).append(browser.execute_script(RESTYLE) / 1000)
        found = browser.find_element("id", "matches").text
    finally:
        browser.quit()
    for name, seconds in times.items():
        print(f"{name:24s} best {min(seconds):6.2f} s   worst {max(seconds):6.2f} s")
    print(f"search: {found}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
