"""How heavy and how fast is the exported web map at 100,000 points?

    .venv/bin/python bench/bench_web_map.py [--points 100000] [--repeat 3]

``--points`` distinct sentences spliced from real ones (``bench_scale.make_sentences``),
glove-mean, a 2D PCA as the layout, coloured by 40 groups (k-means on the embeddings,
seeded) and by sentence length. Prints the file's size, the time to write it, and, in
Debian's headless chromium (SwiftShader WebGL, as the tests run it), the best of
``--repeat`` loads: from ``driver.get`` to the page's ready mark (plotly.js parsed, the
data decoded, the WebGL scatter drawn and the legend filled), then a search over every
sentence, a switch of colouring and a zoom step (until the page shows them).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_scale import make_sentences  # noqa: E402
from sentspace.app.web_map import Colouring, write_map  # noqa: E402
from sentspace.models import make_encoder  # noqa: E402
from tests.browser import chromium, open_page  # noqa: E402


# Ten zoom steps in (as a wheel would make), each waited for until redrawn.
ZOOM = """
const done = arguments[arguments.length - 1], plot = document.getElementById("map");
let [x0, x1] = plot._fullLayout.xaxis.range, step = 0;
function next() {
  if (step++ === 10) return done();
  const middle = (x0 + x1) / 2, half = (x1 - x0) * 0.45;
  [x0, x1] = [middle - half, middle + half];
  Plotly.relayout(plot, {"xaxis.range": [x0, x1]}).then(next);
}
next();
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from sklearn.cluster import MiniBatchKMeans
    from sklearn.decomposition import PCA

    texts = make_sentences(args.points)
    X = np.asarray(make_encoder("glove-mean").encode(texts), dtype=np.float32)
    coordinates = PCA(n_components=2, random_state=0).fit_transform(X)
    groups = MiniBatchKMeans(40, random_state=0, n_init=1).fit_predict(X)
    colourings = [Colouring("Group", tuple(f"group {k}" for k in range(40)), groups),
                  Colouring.of_values("Words", [min(len(t.split()) // 10 * 10, 50)
                                                for t in texts])]
    folder = tempfile.TemporaryDirectory()
    path = Path(folder.name) / "map.html"
    start = time.perf_counter()
    write_map(path, texts, coordinates, colourings=colourings, title="bench")
    written = time.perf_counter() - start
    text_mb = sum(len(t.encode()) for t in texts) / 1e6
    print(f"{args.points:,} points: {path.stat().st_size / 1e6:.1f} MB "
          f"(texts {text_mb:.1f} MB, plotly.js 4.8 MB), written in {written:.2f} s")

    browser = chromium()
    loads, searches, switches, zooms = [], [], [], []
    try:
        for _ in range(args.repeat):
            browser.get("about:blank")
            start = time.perf_counter()
            open_page(browser, path, timeout=300)
            loads.append(time.perf_counter() - start)
            start = time.perf_counter()
            browser.execute_script("search(arguments[0])", "the president")
            searches.append(time.perf_counter() - start)
            start = time.perf_counter()
            browser.execute_script("colourBy(1)")
            switches.append(time.perf_counter() - start)
            start = time.perf_counter()
            browser.execute_async_script(ZOOM)
            zooms.append((time.perf_counter() - start) / 10)
        found = browser.find_element("id", "matches").text
    finally:
        browser.quit()
    print(f"load to drawn: best {min(loads):.2f} s, worst {max(loads):.2f} s "
          f"(of {args.repeat})")
    print(f"search 'the president' ({found}): best {min(searches):.2f} s; "
          f"switch colouring: best {min(switches):.2f} s; a zoom step redrawn: best "
          f"{min(zooms) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
