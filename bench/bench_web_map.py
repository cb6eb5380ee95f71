"""How heavy and how fast is the exported web map, beside a bare WebGL draw of the same
points in the same browser (the floor)?

    .venv/bin/python bench/bench_web_map.py [--corpus multi30k-captions] [--synthetic 1000000]
        [--repeat 3] [--neighbours svd|exact] [--settle 0]

Two pages: the corpus (default the 145,000 Multi30K captions) by bag of words, a 2D PCA,
with its regions, written as ``sentspace export-map`` writes it; and ``--synthetic``
points (0: none) of made-up sentences in 20 clusters with a category, two numbers and
10 random neighbours each. Each point's 10 nearest in the original space: ``exact``
scans every pair (``--search auto`` on sparse rows: minutes at 145,000), ``svd`` (the
default) searches a 64-dimension truncated SVD of the rows with the project's index.

In Debian's headless chromium (SwiftShader WebGL, 1280x800, as the tests run it),
``--repeat`` times, the median of: the first draw (navigation to the page's ready mark:
payload unpacked, charts built, points drawn); per interaction (brush, bar, expression,
search, colour, click, box, lasso, clear, zoom) the longest main-thread task (a
PerformanceObserver of long tasks, which reports those over 50 ms, and the
interaction's own synchronous JavaScript; the page's worker, where the passes over
every point run, is another thread) and the time from the interaction to its pixels
(the page's answer drawn, as its body's data-applied reaching data-asked says, the
next frame drawn, a pixel read back from the map, the frame after for the charts and
table). The floor: a page with one WebGL canvas of the map's size drawing the same
points, timed the same way from a new opacity per point to its pixels. Each repeat
measures every page and then its floor, page after page, so that a load that changes
during the run (the machine is shared) weighs on the pages and their floors alike.
Prints one table per page: per interaction the medians, the ratio of the page's median
to the floor's, and the median of each repeat's ratio to its own floor. The first
interaction comes at the ready mark, while the GPU may still be drawing the first frame
and the worker reading the payload; ``--settle`` seconds of pause before it measure the
page as a person meets it, a moment after it appears.
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sentspace.app.analysis.columns import Categories, Numbers  # noqa: E402
from sentspace.app.analysis.explore import explore  # noqa: E402
from sentspace.app.analysis.regions import find_regions  # noqa: E402
from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.app.exporters.web_map import export_map, write_map  # noqa: E402
from sentspace.models import make_encoder  # noqa: E402
from tests.browser import chromium, open_page, page_data, wait_ready  # noqa: E402

# An interaction's body (JavaScript, awaiting what the page's function returns: every
# view updated), timed by MEASURE.
INTERACTIONS = {
    "brush": "await brushValues('Words', 8, 12)",
    "bar": "await toggleBar(charted.find(c => c.kind === 'category' && c.drawn), 0)",
    "expression": "await applyExpression('words > 12 and not words > 20')",
    "search": "await search('man guitar')",
    "search again": "await search('dog ball')",
    "colour": "await colourBy(columns.findIndex(c => c.title === 'Words'))",
    "click": "await choose(Math.floor(n / 2))",
    "box": (
        "const [x, y] = toData(view.width / 2, view.height / 2), r = 60 / view.scale;"
        "await select({kind: 'box', points: [[x - r, y - r], [x + r, y + r]]})"
    ),
    "lasso": (
        "const [x, y] = toData(view.width / 2, view.height / 2), r = 80 / view.scale;"
        "await select({kind: 'lasso', points: Array.from({length: 40}, (_, k) =>"
        " [x + r * Math.cos(k / 40 * 2 * Math.PI), y + r * Math.sin(k / 40 * 2 * Math.PI)])})"
    ),
    "clear": "await clearFilters()",
    "zoom": "view.scale *= 1.5; requestDraw(true)",
}
DRAWS = 5  # the bare draw's new opacities per repeat
FLOOR_ACTION = (
    "round++; for (let i = 0; i < n; i++) alpha[i] = (i + round) % 3 ? 255 : 60;"
    "gl.bindBuffer(gl.ARRAY_BUFFER, alphaBuffer); gl.bufferSubData(gl.ARRAY_BUFFER, 0, alpha);"
    "requestAnimationFrame(draw)"
)
# Runs an action, then waits for its pixels: the page's answer to it drawn (its body's
# data-applied reaching data-asked, watched by a MutationObserver: a timer's poll would
# add up to 4 ms to the page alone; a page without a worker has neither), the next
# animation frame, a pixel read back from `gl` in a task of its own (the GPU done; this
# task, the bench's wait, is not counted as the page's: the one task under way when
# the read starts, as tasks on the main thread never overlap), and the frame after (the
# charts and table painted).
MEASURE = """
const done = arguments[arguments.length - 1];
const tasks = [];
const observer = new PerformanceObserver(list => {
  for (const entry of list.getEntries()) tasks.push([entry.startTime, entry.duration]);
});
observer.observe({type: "longtask"});
const start = performance.now();
let reading = Infinity;
const running = (async () => { %s })();
const synchronous = performance.now() - start;
const applied = () => new Promise(resolve => {
  const body = document.body, done = () => body.dataset.applied === body.dataset.asked;
  if (done()) return resolve();
  const watch = new MutationObserver(() => { if (done()) { watch.disconnect(); resolve(); } });
  watch.observe(body, {attributes: true, attributeFilter: ["data-applied"]});
});
running
  .then(applied)
  .then(() => new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0))))
  .then(() => { reading = performance.now();
                const pixel = new Uint8Array(4);
                gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel); })
  .then(() => new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0))))
  .then(() => {
    const pixels = performance.now() - start;
    setTimeout(() => {
      observer.disconnect();
      const page = tasks.filter(([at, duration]) => at + duration < reading).map(([, duration]) => duration);
      done([Math.max(synchronous, ...page), pixels]);
    }, 100);
  });
"""
FLOOR_PAGE = """<!DOCTYPE html><html><body style="margin:0">
<canvas id="c" width="%(width)d" height="%(height)d"></canvas>
<script id="xy" type="application/octet-stream">%(xy)s</script>
<script>
const xy = new Float32Array(Uint8Array.from(atob(document.getElementById("xy").textContent),
                                            c => c.charCodeAt(0)).buffer);
const n = xy.length / 2, alpha = new Uint8Array(n).fill(255);
let round = 0;
const gl = document.getElementById("c").getContext("webgl", {antialias: false});
const shader = (type, source) => { const s = gl.createShader(type); gl.shaderSource(s, source);
                                   gl.compileShader(s); return s; };
const program = gl.createProgram();
gl.attachShader(program, shader(gl.VERTEX_SHADER, `attribute vec2 p; attribute float a;
  uniform vec4 box; varying float o; void main() { gl_Position = vec4((p - box.xy) * box.zw, 0, 1);
  gl_PointSize = 3.0; o = a / 255.0; }`));
gl.attachShader(program, shader(gl.FRAGMENT_SHADER, `precision mediump float; varying float o;
  void main() { gl_FragColor = vec4(0.2 * o, 0.4 * o, 0.7 * o, o); }`));
gl.linkProgram(program);
gl.useProgram(program);
const buffer = data => { const b = gl.createBuffer(); gl.bindBuffer(gl.ARRAY_BUFFER, b);
                         gl.bufferData(gl.ARRAY_BUFFER, data, gl.DYNAMIC_DRAW); return b; };
const positionBuffer = buffer(xy), alphaBuffer = buffer(alpha);
let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
for (let i = 0; i < n; i++) {
  x0 = Math.min(x0, xy[2 * i]); x1 = Math.max(x1, xy[2 * i]);
  y0 = Math.min(y0, xy[2 * i + 1]); y1 = Math.max(y1, xy[2 * i + 1]);
}
gl.uniform4f(gl.getUniformLocation(program, "box"), (x0 + x1) / 2, (y0 + y1) / 2,
             2 / (x1 - x0), 2 / (y1 - y0));
gl.enable(gl.BLEND);
gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
function draw() {
  gl.clearColor(1, 1, 1, 1);
  gl.clear(gl.COLOR_BUFFER_BIT);
  const p = gl.getAttribLocation(program, "p"), a = gl.getAttribLocation(program, "a");
  gl.bindBuffer(gl.ARRAY_BUFFER, positionBuffer);
  gl.enableVertexAttribArray(p);
  gl.vertexAttribPointer(p, 2, gl.FLOAT, false, 0, 0);
  gl.bindBuffer(gl.ARRAY_BUFFER, alphaBuffer);
  gl.enableVertexAttribArray(a);
  gl.vertexAttribPointer(a, 1, gl.UNSIGNED_BYTE, false, 0, 0);
  gl.drawArrays(gl.POINTS, 0, n);
}
draw();
requestAnimationFrame(() => { document.body.dataset.ready = "true";
                              document.body.dataset.readyAt = performance.now(); });
</script></body></html>"""


def corpus_page(name: str, neighbours: str, folder: Path) -> tuple[Path, str]:
    """The corpus's page as ``sentspace export-map --encoder bow --method pca --regions``
    writes it; the neighbours as ``neighbours`` says. Returns it and what it took."""
    corpus = load_corpus(name)
    start = time.perf_counter()
    exploration = run_job(explore(corpus, make_encoder("bow"), method="pca"))
    explored = time.perf_counter() - start
    start = time.perf_counter()
    regions = run_job(
        find_regions(corpus, exploration.projection.coordinates, encoder=exploration.encoder)
    )
    found = time.perf_counter() - start
    path = folder / f"{corpus.name}.html"
    start = time.perf_counter()
    if neighbours == "exact":
        export_map(exploration, path, regions=regions, search="exact")
        how = "exact"
    else:
        from sklearn.decomposition import TruncatedSVD

        embeddings = exploration.embeddings
        reduced = TruncatedSVD(64, random_state=0).fit_transform(embeddings).astype(np.float32)
        reduced /= np.maximum(np.linalg.norm(reduced, axis=1, keepdims=True), 1e-12)
        # The page export-map writes, its neighbours found by an index in the reduced space.
        export_map(replace(exploration, embeddings=reduced), path, regions=regions, search="ann")
        how = "64-d SVD, index"
    written = time.perf_counter() - start
    return path, (
        f"{corpus.name}, {len(corpus):,} sentences, bow, PCA: encoded and projected in "
        f"{explored:.0f} s, regions {found:.0f} s, page written in {written:.1f} s "
        f"(neighbours: {how})"
    )


VOCABULARY = (
    "man woman dog cat child ball street water red blue shirt playing running sitting "
    "standing holding looking walking young old small large green white black wearing "
    "people group two three front near field park beach snow grass road car bike"
).split()


def synthetic_page(n: int, folder: Path) -> tuple[Path, str]:
    rng = np.random.default_rng(0)
    clusters = rng.integers(0, 20, n)
    centres = rng.normal(scale=6, size=(20, 2))
    coordinates = centres[clusters] + rng.normal(size=(n, 2))
    lengths = rng.integers(4, 16, n)
    chosen = rng.integers(0, len(VOCABULARY), lengths.sum())
    vocabulary = np.array(VOCABULARY)
    cuts = np.cumsum(lengths)[:-1]
    texts = [" ".join(words) for words in np.split(vocabulary[chosen], cuts)]
    start = time.perf_counter()
    path = write_map(
        folder / "synthetic.html",
        texts,
        coordinates,
        columns=[
            Categories(
                "Cluster", tuple(f"cluster {k}" for k in range(20)), clusters.astype(np.int32)
            ),
            Numbers("Words", lengths.astype(float)),
            Numbers("Score", np.round(rng.uniform(0, 5, n), 1)),
        ],
        regions=[(f"cluster {k}", float(x), float(y)) for k, (x, y) in enumerate(centres)],
        neighbours=(rng.integers(0, n, (n, 10)), rng.uniform(0.3, 1, (n, 10))),
        title=f"{n:,} synthetic sentences",
    )
    return path, f"{n:,} synthetic points: page written in {time.perf_counter() - start:.1f} s"


def measure(browser, path: Path, settle: float, rows: dict[str, list]) -> None:
    """One run of the page: adds to each row (longest main-thread task, interaction to
    pixels) in seconds."""
    browser.get("about:blank")
    open_page(browser, path, timeout=600)
    time.sleep(settle)
    ready = float(browser.execute_script("return document.body.dataset.readyAt")) / 1000
    rows.setdefault("first draw", []).append((float("nan"), ready))
    for name, body in INTERACTIONS.items():
        task, pixels = browser.execute_async_script(MEASURE % body)
        rows.setdefault(name, []).append((task / 1000, pixels / 1000))


def floor(browser, path: Path, firsts: list, draws: list) -> None:
    """One run of the bare draw: adds its first draw and DRAWS new-opacity-to-pixels, in
    seconds."""
    browser.get("about:blank")
    wait_ready(browser, path, timeout=600)
    firsts.append(float(browser.execute_script("return document.body.dataset.readyAt")) / 1000)
    for _ in range(DRAWS):
        draws.append(browser.execute_async_script(MEASURE % FLOOR_ACTION)[1] / 1000)


def floor_page(browser, path: Path, folder: Path) -> Path:
    """The bare draw of ``path``'s points on a canvas of its map's size (the page open)."""
    size = browser.execute_script("return [canvas.width, canvas.height]")
    manifest, arrays = page_data(path.read_text(encoding="utf-8"))
    coordinates = base64.b64encode(arrays[manifest["coordinates"]].tobytes()).decode()
    bare = folder / f"floor-{path.stem}.html"
    bare.write_text(
        FLOOR_PAGE % {"width": size[0], "height": size[1], "xy": coordinates}, encoding="utf-8"
    )
    return bare


def report(title: str, path: Path, rows: dict, firsts: list, draws: list) -> None:
    """The medians of the runs, and the ratio both ways: median over median, and the
    median of each repeat's ratio to the floor measured right after it (which a load
    that changes between repeats moves less)."""
    bare = (statistics.median(firsts), statistics.median(draws))
    # Each repeat's floor: the median of its own draws.
    per_repeat = [statistics.median(draws[k : k + DRAWS]) for k in range(0, len(draws), DRAWS)]
    print(f"\n{title}")
    print(
        f"page {path.stat().st_size / 1e6:.1f} MB; bare WebGL draw of the same points: "
        f"first draw {bare[0]:.2f} s, new opacity to pixels {bare[1] * 1000:.0f} ms (the floor)"
    )
    print(f"{'':14s} {'longest task':>13s} {'to pixels':>10s} {'vs floor':>9s} {'per repeat':>11s}")
    for name, runs in rows.items():
        task = statistics.median(r[0] for r in runs)
        pixels = statistics.median(r[1] for r in runs)
        floors = firsts if name == "first draw" else per_repeat
        ratio = pixels / (bare[0] if name == "first draw" else bare[1])
        paired = statistics.median(r[1] / f for r, f in zip(runs, floors))
        shown = "" if np.isnan(task) else f"{task * 1000:10.0f} ms"
        print(f"{name:14s} {shown:>13s} {pixels * 1000:7.0f} ms {ratio:8.1f}x {paired:10.1f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="multi30k-captions", help="'' for none")
    parser.add_argument("--synthetic", type=int, default=1_000_000)
    parser.add_argument("--neighbours", choices=("svd", "exact"), default="svd")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--settle",
        type=float,
        default=0,
        help="seconds between the ready mark and the first interaction (a person's pause)",
    )
    parser.add_argument(
        "--pages", nargs="*", default=(), help="pages written before: measured only"
    )
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp())
    pages = [(Path(page), Path(page).name) for page in args.pages]
    if args.corpus and not pages:
        pages.append(corpus_page(args.corpus, args.neighbours, folder))
    if args.synthetic and not args.pages:
        pages.append(synthetic_page(args.synthetic, folder))
    for _, title in pages:
        print(title, flush=True)
    browser = chromium()
    browser.set_script_timeout(600)
    # Per page: its rows; its floor page (written once the page has been open), and the
    # floor's first draws and draws.
    rows: dict[Path, dict] = {path: {} for path, _ in pages}
    bares: dict[Path, Path] = {}
    firsts: dict[Path, list] = {path: [] for path, _ in pages}
    draws: dict[Path, list] = {path: [] for path, _ in pages}
    try:
        for _ in range(args.repeat):
            for path, _ in pages:
                measure(browser, path, args.settle, rows[path])
                if path not in bares:
                    bares[path] = floor_page(browser, path, folder)
                floor(browser, bares[path], firsts[path], draws[path])
    finally:
        browser.quit()
    for path, title in pages:
        report(title, path, rows[path], firsts[path], draws[path])
    return 0


if __name__ == "__main__":
    sys.exit(main())
