"""The map as a web page, opened in Debian's headless chromium (WebGL in SwiftShader):
points drawn by the page's own WebGL renderer (pixels of the screenshot), hover shows
the sentence, word search ranks and rings matches, histograms and bar charts
cross-filter the map and the table, a box or lasso on the map selects, the table
exports, numbers colour on viridis, a click shows neighbours, and the filter expression
is the language of ``--where``: the same masks in Python and in the page.

``python3 tasks.py test`` installs chromium and chromium-driver where apt is available;
elsewhere the browser tests skip and say so.
"""

import json
import re
import shutil

import numpy as np
import pytest

from sentspace.app.analysis.columns import Categories, Numbers, sentence_columns
from sentspace.app.analysis.filters import corpus_table, passing
from sentspace.app.base.errors import InputError
from sentspace.app.base.jobs import run_job
from sentspace.app.base.palette import CATEGORICAL, OTHER, SEQUENTIAL, UNGROUPED
from sentspace.app.corpora import load_corpus
from sentspace.app.exporters.web_map import RING, map_page
from tests.browser import browser_or_skip, colour_pixels, open_page, page_data, wait_applied


@pytest.fixture(scope="module")
def corpus():
    return load_corpus("msrp-grouped")


def exported_map(path, corpus, *options):
    """``sentspace export-map`` of ``corpus`` by TF-IDF, PCA, with ``options``, written to
    ``path``."""
    from sentspace.app.cli import main

    words = ["export-map", "--corpus", corpus, "--encoder", "tfidf", *options, "--out", str(path)]
    assert main(words) == 0
    return path


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """``sentspace export-map`` of the bundled corpus, TF-IDF, PCA, with its regions."""
    return exported_map(tmp_path_factory.mktemp("map") / "map.html", "msrp-grouped", "--regions")


def unpacked(path):
    return page_data(path.read_text(encoding="utf-8"))


def coordinates_of(path):
    manifest, arrays = unpacked(path)
    return arrays[manifest["coordinates"]].reshape(-1, 2)


def column(page, title):
    """A column's manifest entry and its values (codes, numbers or texts)."""
    manifest, arrays = page
    found = next(c for c in manifest["columns"] if c["title"] == title)
    for key in ("codes", "values"):
        if key in found:
            return found, arrays[found[key]]
    kind = np.int32 if found["kind"] == "category" else np.float32
    return found, np.full(
        manifest["n"], np.nan if found["constant"] is None else found["constant"], kind
    )


def words(text):
    """The page's words: runs of letters and digits, lower-cased."""
    return set(re.findall(r"[^\W_]+", text.lower()))


def embedded(html):
    return page_data(html)[0]


def test_the_page_holds_its_data_compactly_and_needs_no_network(corpus, page):
    from sentspace.app.analysis.projection import project
    from sentspace.models.bow import TfIdf

    html = page.read_text(encoding="utf-8")
    data, arrays = page_data(html)
    assert data["n"] == len(corpus) == 859 and arrays[data["texts"]] == list(corpus.texts)
    assert arrays[data["ids"]] == list(corpus.ids)
    embeddings = TfIdf().fit(corpus.texts).encode(corpus.texts, sparse=True)
    assert np.array_equal(coordinates_of(page), run_job(project(embeddings, "pca")).coordinates)
    assert data["colour"] == "Paraphrase group"  # as the window first colours it
    titles = [c["title"] for c in data["columns"]]
    assert titles == [
        "Paraphrase group",
        "Group size",
        "Region",
        "Misclassified or not",
        "Words",
        "Faithfulness (10 neighbours kept)",
        "Line",
    ]
    # Codes as narrow as the names allow: 274 groups in int16, two values in int8.
    assert data["sections"][data["columns"][0]["codes"]]["dtype"] == "i2"
    assert data["sections"][data["columns"][3]["codes"]]["dtype"] == "i1"
    _, codes = column((data, arrays), "Paraphrase group")
    first = corpus.groups.first_group(len(corpus))
    assert np.array_equal(codes, first)
    _, sizes = column((data, arrays), "Group size")
    assert np.array_equal(sizes, np.bincount(first)[first])
    _, lengths = column((data, arrays), "Words")
    assert np.array_equal(lengths, [len(text.split()) for text in corpus.texts])
    line, values = column((data, arrays), "Line")  # a number in every row: a histogram
    assert line["kind"] == "number" and line["integer"] and values[0] == 1
    regions, _ = column((data, arrays), "Region")
    assert len(data["regions"]) == len(regions["names"]) > 1
    # The expression's names, as --where and the window name the columns.
    assert data["names"]["words"] == "Words" and data["names"]["region"] == "Region"
    # Each point's 10 nearest others by cosine in the TF-IDF space, most similar first.
    unit = embeddings.toarray() if hasattr(embeddings, "toarray") else np.asarray(embeddings)
    unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    cosines = unit @ unit.T
    np.fill_diagonal(cosines, -np.inf)
    nearest = data["neighbours"]
    assert nearest["k"] == 10
    indices = arrays[nearest["indices"]].reshape(-1, 10)
    assert indices.dtype == np.uint32
    shown = arrays[nearest["cosines"]].reshape(-1, 10)
    expected = -np.sort(-cosines, axis=1)[:, :10]
    assert np.allclose(shown / 10_000, expected, atol=1e-4)
    assert np.allclose(
        np.take_along_axis(cosines, indices.astype(int), axis=1), expected, atol=1e-5
    )
    assert [label for label, _, _ in data["regions"]] == regions["names"]
    provenance = dict(data["provenance"])
    assert provenance["Corpus"].startswith("msrp-grouped, 859 sentences")
    assert (
        provenance["Encoder"].startswith("tfidf")
        and "accuracy" in provenance["Classification"].lower()
    )
    assert provenance["Neighbours"] == "10 nearest in the original space by cosine, exact"
    # No address the page could fetch, and no plotly: the renderer is the page's own.
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html)
    assert "plotly" not in html.lower()
    assert len(html) < 250_000


def test_a_column_of_one_value_is_stored_once_and_ids_that_are_row_numbers_not_at_all():
    n = 10_000
    texts = [f"sentence {k}" for k in range(n)]

    def written():
        columns = [
            Categories.of_values("Split", ["train"] * n),
            Numbers("Score", np.full(n, 2.5)),
            Numbers("Words", np.arange(n, dtype=float)),
        ]
        return map_page(texts, np.zeros((n, 2)), columns=columns)

    html = written()
    data, arrays = page_data(html)
    split, score, counted = data["columns"]
    assert split["constant"] == 0 and "codes" not in split
    assert score["constant"] == 2.5 and "values" not in score
    assert np.array_equal(arrays[counted["values"]], np.arange(n))
    assert data["ids"] is None and arrays[data["texts"]] == texts
    # The same map, the same file: nothing in it changes from one writing to the next.
    assert written() == html


def test_a_sentence_cannot_close_the_data_script():
    html = map_page(
        ["</script><script>alert(1)</script>", "b", "c"],
        np.zeros((3, 2)),
        title="</script> a title",
        columns=[Categories.of_values("</script>", ["x", "", "y"])],
    )
    data, arrays = page_data(html)
    assert arrays[data["texts"]][0] == "</script><script>alert(1)</script>"
    assert data["columns"][0]["names"] == ["x", "y"] and data["title"] == "</script> a title"
    assert html.count("</script>") == 4  # the manifest's, the payload's, the engine's, the page's


def test_categories_come_most_frequent_first_and_numbers_in_natural_order():
    colouring = Categories.of_values("k", ["10", "2", "x", "", "2", "10", "10", "9"])
    assert colouring.names == ("10", "2", "9", "x")
    assert list(colouring.codes) == [0, 1, 3, -1, 1, 0, 0, 2]


def test_metadata_columns_are_numbers_categories_or_text():
    from sentspace.app.analysis.columns import Texts, metadata_columns
    from sentspace.app.corpora.model import Corpus

    corpus = Corpus(
        "c",
        tuple("abcdef"),
        tuple("123456"),
        metadata={
            "rating": ("1", "2.5", "", "10", "2", "3"),
            "genre": ("x", "y", "x", "x", "y", "x"),
            "note": ("n1", "n2", "n3", "n4", "n5", "n6"),
            "gold": (True, False, True, True, False, True),
        },
    )
    rating, genre, note, gold = metadata_columns(corpus)
    assert isinstance(rating, Numbers) and rating.title == "Rating"
    assert np.array_equal(rating.values, [1, 2.5, np.nan, 10, 2, 3], equal_nan=True)
    assert genre.names == ("x", "y") and list(genre.codes) == [0, 1, 0, 0, 1, 0]
    assert isinstance(note, Texts) and note.values[0] == "n1"
    assert gold.names == ("True", "False")


def test_a_sentence_naming_a_template_key_is_only_text(tmp_path, browser):
    texts = ["Keys like __SCRIPT__ and __DATA__ are text.", "__TITLE__", "__BYTES__"]
    html = map_page(
        texts,
        np.arange(6.0).reshape(3, 2),
        title="a __DATA__ map",
        columns=[Categories.of_values("k", ["x", "y", "x"])],
    )
    data, arrays = page_data(html)
    assert arrays[data["texts"]] == texts
    path = tmp_path / "keys.html"
    path.write_text(html, encoding="utf-8")
    open_page(browser, path)
    assert browser.title == "a __DATA__ map"
    assert browser.execute_script("return [n, texts.at(0), texts.at(2)]") == [3, texts[0], texts[2]]


@pytest.fixture(scope="module")
def browser():
    driver = browser_or_skip()
    yield driver
    driver.quit()


def screen_of(browser, indices):
    """Where the page draws each point of ``indices``, in pixels of the map element."""
    return browser.execute_script(
        "return arguments[0].map(i => toScreen(xy[2 * i], xy[2 * i + 1]))",
        [int(i) for i in indices],
    )


def move_to(browser, plot, px, py):
    """The mouse to (px, py) of the map element (selenium's offsets: from its centre)."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).move_to_element_with_offset(
        plot, int(round(px - plot.size["width"] / 2)), int(round(py - plot.size["height"] / 2))
    ).perform()


def faded(browser):
    """Points the page draws faded (left out by the filters or the search): layer 0 on the GPU."""
    return browser.execute_script(
        "return layerBytes.reduce((sum, layer) => sum + (layer === 0), 0)"
    )


def test_points_are_drawn_hover_shows_the_sentence_and_search_rings_matches(browser, corpus, page):
    from selenium.webdriver.support.ui import WebDriverWait

    texts = corpus.texts
    plot = open_page(browser, page)
    shot = plot.screenshot_as_png
    # The ten largest groups in colours of their own (a few hidden under others), the
    # other 264 in one warm grey.
    drawn = {colour: colour_pixels(shot, colour) for colour in CATEGORICAL[:10]}
    assert sum(count > 20 for count in drawn.values()) >= 5, drawn
    assert colour_pixels(shot, OTHER, tolerance=4) > 1000
    assert colour_pixels(shot, RING) == 0

    # The most isolated point, so the pointer is over it alone.
    from scipy.spatial import cKDTree

    coordinates = coordinates_of(page)
    distance, _ = cKDTree(coordinates).query(coordinates, 2)
    point = int(np.argmax(distance[:, 1]))
    [(px, py)] = screen_of(browser, [point])
    move_to(browser, plot, px, py)
    hovered = browser.find_element("id", "hovered")
    WebDriverWait(browser, 10).until(lambda _: texts[point] in hovered.text)
    tooltip = browser.find_element("id", "tooltip")
    assert tooltip.is_displayed() and texts[point] in tooltip.text
    assert corpus.ids[point] in tooltip.text

    word = "million"
    expected = [i for i, text in enumerate(texts) if word in words(text)]
    assert 5 < len(expected) < sum(word in text.lower() for text in texts)  # not "millions"
    browser.find_element("id", "search").send_keys(word)
    matches = browser.find_element("id", "matches")
    WebDriverWait(browser, 10).until(lambda _: matches.text)
    assert matches.text == f"{len(expected)} sentences have the word"
    assert browser.execute_script("return Array.from(rings.found.indices)") == expected
    assert table_indices(browser) == expected
    move_to(browser, plot, 2, 2)  # the tooltip away
    assert not tooltip.is_displayed()
    assert colour_pixels(plot.screenshot_as_png, RING) > 20 * len(expected)


def table_indices(browser):
    return [
        int(row.get_attribute("data-index"))
        for row in browser.find_elements("css selector", "#rows tbody tr")
    ]


def test_a_legend_entry_lists_its_group(browser, corpus, page):
    open_page(browser, page)
    first = corpus.groups.first_group(len(corpus))
    sizes = np.bincount(first)
    entries = browser.find_elements("css selector", "#legend div[data-code]")
    # The ten largest groups, then "(other N)".
    top = [int(entry.get_attribute("data-code")) for entry in entries]
    assert len(top) == 10 and list(sizes[top]) == sorted(sizes, reverse=True)[:10]
    other = browser.find_element("css selector", "#legend div.muted").text
    assert other == f"(other {len(sizes) - 10}: {len(first) - sizes[top].sum()} sentences)"
    entries[2].click()
    listed = [item.text for item in browser.find_elements("css selector", "#list li")]
    assert listed == [corpus.texts[i] for i in np.flatnonzero(first == top[2])]
    assert corpus.groups.names[top[2]] in browser.find_element("id", "list-title").text


def test_the_browser_tests_say_why_they_skip(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.skip.Exception, match="chromium"):
        browser_or_skip()


def map_chip_count(browser):
    chip = browser.find_element("css selector", ".chip[data-key='map']")
    return int(re.search(r"\((\d+)\)", chip.text).group(1))


def test_a_box_on_the_map_selects_the_table_exports_it_and_clear_drops_it(browser, corpus, page):
    from selenium.webdriver.common.action_chains import ActionChains

    plot = open_page(browser, page)
    browser.find_element("id", "mode-box").click()
    # A box from the 20th to the 50th percentile of x, over all of y's plotting area.
    xy = coordinates_of(page).astype(np.float64)
    x0, x1 = np.quantile(xy[:, 0], [0.2, 0.5])
    (px0, _), (px1, _) = screen_of_values(browser, [(x0, 0), (x1, 0)])
    height = plot.size["height"]
    move_to(browser, plot, px0, 15)
    ActionChains(browser).click_and_hold().move_by_offset(
        int(px1 - px0), height - 50
    ).release().perform()
    wait_applied(browser)
    # The box as the page holds it, in data coordinates.
    shape = browser.execute_script("return selection")
    assert shape["kind"] == "box"
    (x0, y0), (x1, y1) = shape["points"]
    inside = np.flatnonzero(
        (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
    )
    assert 100 < len(inside) < len(corpus) // 2
    count = map_chip_count(browser)
    assert count == len(inside)
    shown = browser.find_element("id", "shown")
    assert shown.text == f"{count} of {len(corpus)} sentences"
    assert table_indices(browser) == list(inside[:50])
    # Faded on the map: every point outside the box, and its outline drawn.
    assert faded(browser) == len(corpus) - count
    assert browser.find_element("id", "selection-outline").get_attribute("d")

    browser.find_element("id", "export-csv").click()
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(downloaded(browser))))
    assert len(rows) == count
    by_id = {identifier: i for i, identifier in enumerate(corpus.ids)}
    chosen = [by_id[row["id"]] for row in rows]
    assert chosen == list(inside)
    assert all(row["text"] == corpus.texts[i] for row, i in zip(rows, chosen))
    first = corpus.groups.first_group(len(corpus))
    assert all(
        row["Paraphrase group"] == corpus.groups.names[first[i]] for row, i in zip(rows, chosen)
    )
    browser.find_element("id", "export-jsonl").click()
    lines = [json.loads(line) for line in downloaded(browser).splitlines()]
    assert [line["id"] for line in lines] == [row["id"] for row in rows]
    assert all(line["Words"] == len(corpus.texts[i].split()) for line, i in zip(lines, chosen))

    # Clear filters drops the box with the rest: no "Map selection (0)" chip is left
    # and every sentence is shown at the first click (issue 42, item 13).
    browser.find_element("id", "clear-filters").click()
    wait_applied(browser)
    assert browser.find_elements("css selector", ".chip") == []
    assert shown.text == f"{len(corpus)} of {len(corpus)} sentences"
    assert faded(browser) == 0
    assert browser.find_element("id", "selection-outline").get_attribute("d") == ""
    assert browser.execute_script("return selection") is None


def screen_of_values(browser, points):
    return browser.execute_script(
        "return arguments[0].map(([x, y]) => toScreen(x, y))", [list(map(float, p)) for p in points]
    )


def test_a_lasso_selects_the_points_inside_it_and_its_chip_removes_it(browser, corpus, page):
    from selenium.webdriver.common.action_chains import ActionChains

    plot = open_page(browser, page)
    browser.find_element("id", "mode-lasso").click()
    xy = coordinates_of(page).astype(np.float64)
    # A triangle about the points' centre, drawn in 30 steps.
    cx, cy = np.median(xy, axis=0)
    [(px, py)] = screen_of_values(browser, [(cx, cy)])
    corners = [(px - 150, py + 90), (px + 150, py + 90), (px, py - 120)]
    move_to(browser, plot, *corners[0])
    chain = ActionChains(browser).click_and_hold()
    for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1]):
        for _ in range(10):
            chain.move_by_offset(int((bx - ax) / 10), int((by - ay) / 10))
    chain.release().perform()
    wait_applied(browser)
    shape = browser.execute_script("return selection")
    assert shape["kind"] == "lasso" and len(shape["points"]) > 20
    polygon = np.asarray(shape["points"])
    odd = np.zeros(len(xy), dtype=bool)
    for (ax, ay), (bx, by) in zip(polygon, np.roll(polygon, 1, axis=0)):
        with np.errstate(divide="ignore", invalid="ignore"):
            crosses = ((ay > xy[:, 1]) != (by > xy[:, 1])) & (
                xy[:, 0] < (bx - ax) * (xy[:, 1] - ay) / (by - ay) + ax
            )
        odd ^= crosses
    assert 50 < odd.sum() < len(corpus) - 50
    assert map_chip_count(browser) == odd.sum()
    assert faded(browser) == len(corpus) - odd.sum()
    browser.find_element("css selector", ".chip[data-key='map']").click()
    wait_applied(browser)
    assert browser.find_elements("css selector", ".chip") == []
    assert faded(browser) == 0


# A run of changes, each awaited, and what the page shows after each: the table's count,
# the chips, the search's report, every point's layer and colour byte, the first page's
# rows, every chart's bars and the expression's error; then two changes asked at once, of which only the second's answer is drawn.
CHANGES = """
const done = arguments[arguments.length - 1];
const seen = [];
const look = () => seen.push([
  document.getElementById('shown').textContent, document.getElementById('chips').textContent,
  document.getElementById('matches').textContent, Array.from(layerBytes).join(''),
  Array.from(colourBytes).join(' '), table().join(' '),
  [...document.querySelectorAll('#charts .bar span, #charts rect title')].map(e => e.textContent),
  document.getElementById('expression-error').textContent]);
const table = () => [...document.querySelectorAll('#rows tbody tr')].map(r => r.dataset.index);
const settled = () => new Promise(resolve => {
  const test = () => document.body.dataset.applied === document.body.dataset.asked
    ? requestAnimationFrame(resolve) : setTimeout(test, 10);
  test();
});
(async () => {
  await brushValues('Words', 10, 25); look();
  await toggleBar(charted.find(c => c.kind === 'category' && c.drawn), 0); look();
  await applyExpression('words > 12 and not words > 20'); look();
  await applyExpression('words > '); look();
  const [x, y] = toData(view.width / 2, view.height / 2), r = 150 / view.scale;
  await select({kind: 'box', points: [[x - r, y - r], [x + r, y + r]]}); look();
  await clearFilters(); look();
  await search('said'); look();
  document.querySelector("#rows th[data-key='words']").click(); await settled(); look();
  await colourBy(columns.findIndex(c => c.title === 'Words')); look();
  let answers = 0;
  const draw = drawAnswer;
  drawAnswer = changed => { answers++; draw(changed); };
  const first = brushValues('Words', 5, 9), second = select({kind: 'lasso', points:
    [[x - r, y - r], [x + r, y - r], [x, y + r]]});
  await first; look();
  seen.push([answers, document.body.dataset.asked === document.body.dataset.applied]);
  await second;
})().then(() => done([document.body.dataset.engine, seen]), problem => done(String(problem.stack)));
"""


@pytest.mark.parametrize(
    "refusal",
    [
        "window.Worker = undefined;",
        # A worker that fails after the page has asked it a change: the page answers it.
        "window.Worker = class { postMessage(message) { if (message.op !== 'load')"
        " setTimeout(() => this.onerror(new Event('error'))); } terminate() {} };",
        # A real worker that dies after answering four changes: the page asks all again.
        "const RealWorker = window.Worker; window.Worker = class extends RealWorker {"
        " postMessage(message, ...rest) { super.postMessage(message, ...rest);"
        " this.asked = (this.asked || 0) + (message.op === 'load' ? 0 : 1);"
        " if (this.asked === 5) { super.terminate(); setTimeout(() =>"
        " this.onerror(new Event('error'))); } } };",
    ],
    ids=["refused", "failing", "dying"],
)
def test_without_its_worker_the_page_answers_every_change_the_same(browser, page, refusal):
    open_page(browser, page)
    engine, expected = browser.execute_async_script(CHANGES)
    assert engine == "worker"
    brushed, bar, expression, mistake, box, cleared, found, ordered, coloured, *_ = expected
    assert brushed[0] != bar[0] != expression[0] == mistake[0]  # a mistake keeps the filter
    assert mistake[-1].startswith("filter expression") and "Map selection" in box[1]
    assert cleared[1] == "" and found[2].endswith("have the word")  # no chip, no error left
    assert ordered[5] != found[5] and coloured[4] != ordered[4]
    assert expected[-1] == [1, True]  # the two changes asked at once: one answer drawn
    added = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": refusal})
    try:
        open_page(browser, page)
        assert browser.execute_async_script(CHANGES) == ["page", expected]
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", added)


def downloaded(browser):
    """The text of the file the page last offered, read back from its Blob URL."""
    return browser.execute_async_script(
        "const done = arguments[0];"
        "fetch(document.getElementById('download').href).then(r => r.text()).then(done);"
    )


# Every word of the page's texts and a few queries of several, searched by the word
# index the worker builds in its idle time and by the scan it uses until then.
SEARCHED = """
const done = arguments[arguments.length - 1];
const made = () => crossFilter({data: DATA, xy, texts, ids, columns});
const scanning = made(), indexed = made();
for (const _ of indexed.index()) {}
const every = new Set();
for (let i = 0; i < n; i++) for (const word of words(texts.at(i))) every.add(word);
const queries = [...every].sort().map(word => [word]).concat(arguments[0]);
const matched = (filter, query) => {
  const found = filter.handle({op: "search", words: query}).answer.search;
  return Array.from(found.matched).join("");
};
done(queries.map(query => [query, matched(scanning, query), matched(indexed, query)]));
"""


def test_the_word_index_finds_what_the_scan_finds(browser, corpus, page, tmp_path):
    """Each sentence's count of a query's words, from the index and from the scan, on the
    bundled corpus (against Python's words) and on texts whose words are hard to cut."""
    open_page(browser, page)
    several = [["man", "guitar"], ["the", "said", "nothing"], ["percent", "2003"]]
    answers = browser.execute_async_script(SEARCHED, several)
    has = [words(text) for text in corpus.texts]
    assert len(answers) == len(set().union(*has)) + len(several) == 2822
    for query, scanned, indexed in answers:
        assert indexed == scanned == "".join(str(len(set(query) & w)) for w in has), query
    hard = [
        "A man plays a guitar; the woman's guitar-man, many men.",
        "MAN man Man: manman x2 2x x22",
        "Café au lait, naïve İstanbul 𝐀𝐁 bold 𝐀",
        "don't stop, don t",
    ]
    path = tmp_path / "hard.html"
    path.write_text(map_page(hard, np.zeros((len(hard), 2))), encoding="utf-8")
    open_page(browser, path)
    queries = [["man"], ["guitar", "man"], ["𝐀𝐁"], ["café", "naïve"], ["t", "don"], ["2x"]]
    answers = browser.execute_async_script(SEARCHED, queries)
    for query, scanned, indexed in answers:
        assert indexed == scanned, query
    assert dict((tuple(q), a) for q, a, _ in answers)[("man",)] == "1100"


@pytest.fixture(scope="module")
def sick(tmp_path_factory, shared_data):
    """The full SICK (6,077 sentences, 9,927 pairs), TF-IDF, PCA, as a web map."""
    path = tmp_path_factory.mktemp("sick") / "sick.html"
    return load_corpus(shared_data / "sick"), exported_map(path, str(shared_data / "sick"))


def test_sick_charts_cross_filter_search_ranks_words_and_numbers_colour(browser, sick):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    corpus, path = sick
    data = unpacked(path)
    n = len(corpus)
    # What SICK's pairs say of each sentence are columns: a map with no regions has colours.
    titles = [c["title"] for c in data[0]["columns"]]
    assert titles == [
        "Words",
        "Faithfulness (10 neighbours kept)",
        "Pairs",
        "Split",
        "Pair label",
        "Gold score (mean of its pairs)",
        "Source",
    ]
    split, split_codes = column(data, "Split")
    split_of = np.array([split["names"][c] for c in split_codes])
    ends = np.concatenate([corpus.pairs.first, corpus.pairs.second])
    train_only = np.array(
        [set(np.asarray(corpus.pairs.split * 2)[ends == i]) == {"train"} for i in range(n)]
    )
    assert np.array_equal(split_of == "train", train_only)
    _, gold = column(data, "Gold score (mean of its pairs)")
    scores = np.concatenate([corpus.pairs.score, corpus.pairs.score])
    assert np.isclose(gold[0], scores[ends == 0].mean(), atol=1e-6)
    lengths = np.array([len(text.split()) for text in corpus.texts])

    plot = open_page(browser, path)
    # Brush 18 to 29 words with the mouse across the histogram.
    low, width, bins = browser.execute_script(
        "const c = columns.find(c => c.title === 'Words'); return [c.low, c.width, c.nBins];"
    )
    assert width == 1
    histogram = browser.find_element("css selector", ".chart[data-column='Words'] svg")
    browser.execute_script("arguments[0].scrollIntoView()", histogram)
    left = histogram.size["width"] / 2

    def at(value):
        return int((value - low + 0.5) / bins * histogram.size["width"] - left)

    ActionChains(browser).move_to_element_with_offset(
        histogram, at(18), 0
    ).click_and_hold().move_by_offset(at(29) - at(18), 0).release().perform()
    wait_applied(browser)
    brushed = (lengths >= 18) & (lengths <= 29)
    shown = browser.find_element("id", "shown")
    assert shown.text == f"{brushed.sum():,} of {n:,} sentences"
    chips = [chip.text for chip in browser.find_elements("css selector", ".chip")]
    assert chips == ["Words 18–29 ×"]
    assert faded(browser) == n - brushed.sum()
    # Every other chart counts the brushed sentences; its own keeps all.
    bar = browser.find_element(
        "css selector", ".chart[data-column='Split'] .bar[data-label='train']"
    )
    assert bar.text == f"train · {(brushed & train_only).sum():,}"
    # A click on a bar filters too, with the brush.
    bar.click()
    wait_applied(browser)
    both = brushed & train_only
    assert shown.text == f"{both.sum():,} of {n:,} sentences"
    assert sorted(table_indices(browser)) == list(np.flatnonzero(both)[:50])
    assert faded(browser) == n - both.sum()
    # A filter expression narrows it further, with the mask --where computes; sorting
    # the table by words puts the longest first.
    expression = browser.find_element("id", "expression")
    expression.send_keys("pairs >= 2 and not words > 28", Keys.ENTER)
    wait_applied(browser)
    where = passing(corpus, "pairs >= 2 and not words > 28")
    assert shown.text == f"{(both & where).sum():,} of {n:,} sentences"
    assert faded(browser) == n - (both & where).sum()
    header = browser.find_element("css selector", "#rows th[data-key='words']")
    header.click()
    wait_applied(browser)
    browser.find_element("css selector", "#rows th[data-key='words']").click()
    wait_applied(browser)
    first = table_indices(browser)[0]
    assert lengths[first] == lengths[both & where].max()
    # A bad expression says what is wrong, as --where does, and keeps the filter.
    expression.clear()
    expression.send_keys("label > 3", Keys.ENTER)
    wait_applied(browser)
    assert browser.find_element("id", "expression-error").text == (
        "filter expression, column 9 ('3'): Pair label has categories: compare it with == or !="
    )
    assert shown.text == f"{(both & where).sum():,} of {n:,} sentences"
    browser.find_element("id", "clear-filters").click()
    wait_applied(browser)
    assert shown.text == f"{n:,} of {n:,} sentences"
    assert browser.find_element("id", "expression-error").text == ""

    # Words, not substrings: ranked by how many of the query's words a sentence has.
    box = browser.find_element("id", "search")
    box.send_keys("man guitar")
    matches = browser.find_element("id", "matches")
    has = [words(text) for text in corpus.texts]
    both_words = sum({"man", "guitar"} <= w for w in has)
    some = sum(bool({"man", "guitar"} & w) for w in has)
    assert both_words == 88 and sum("man guitar" in t.lower() for t in corpus.texts) == 0
    WebDriverWait(browser, 10).until(lambda _: matches.text)
    assert matches.text == (
        f"{both_words} sentences have all 2 words, {some:,} have one "
        "or more; ringed: those with all"
    )
    ranked = table_indices(browser)
    assert all({"man", "guitar"} <= has[i] for i in ranked)
    assert shown.text == f"{some:,} of {n:,} sentences matching the search"
    browser.find_element("id", "next").click()
    browser.find_element("id", "next").click()  # rows 101-150: 88 with both words, then one
    ranked = table_indices(browser)
    assert [len({"man", "guitar"} & has[i]) for i in ranked] == [1] * 50
    # Past 1,000 matches the first 1,000 (the table's first rows) are ringed, and every
    # point without the word is faded, so each match still stands out.
    man = [i for i, w in enumerate(has) if "man" in w]
    assert len(man) == 1549
    box.clear()
    box.send_keys("man")
    WebDriverWait(browser, 10).until(lambda _: matches.text.startswith(f"{len(man):,} sentences"))
    assert matches.text == "1,549 sentences have the word; ringed: the first 1,000"
    assert browser.execute_script("return Array.from(rings.found.indices)") == man[:1000]
    assert table_indices(browser) == man[:50]
    assert faded(browser) == n - len(man)
    browser.execute_async_script("search('').then(arguments[0])")
    assert faded(browser) == 0 and matches.text == ""

    # Colour by a number: viridis with a colour bar, from the lowest score to the highest.
    Select(browser.find_element("id", "colouring")).select_by_visible_text(
        "Gold score (mean of its pairs)"
    )
    wait_applied(browser)
    scale = [span.text for span in browser.find_elements("css selector", "#legend .scale span")]
    assert scale == [
        f"{np.nanmin(gold):.3g}",
        "Gold score (mean of its pairs)",
        f"{np.nanmax(gold):.3g}",
    ]
    move_to(browser, plot, 2, 2)
    shot = plot.screenshot_as_png
    assert colour_pixels(shot, SEQUENTIAL[0], 30) > 20
    assert colour_pixels(shot, SEQUENTIAL[-1], 30) > 20
    assert colour_pixels(shot, CATEGORICAL[0]) == 0
    # Search rings stay visible over any colouring: a colour in none of the palettes.
    box.clear()
    box.send_keys("cat")
    WebDriverWait(browser, 10).until(
        lambda _: matches.text.startswith(f"{sum('cat' in w for w in has)} sentences have the word")
    )
    assert RING not in (*CATEGORICAL, *SEQUENTIAL, UNGROUPED)
    assert colour_pixels(plot.screenshot_as_png, RING) > 100


def test_a_click_shows_the_point_and_its_neighbours_in_the_original_space(browser, sick):
    from scipy.spatial import cKDTree
    from selenium.webdriver.common.action_chains import ActionChains

    corpus, path = sick
    data, arrays = unpacked(path)
    indices = arrays[data["neighbours"]["indices"]].reshape(-1, 10)
    plot = open_page(browser, path)
    browser.execute_script("choose(arguments[0])", 100)
    listed = [
        item.get_attribute("title")
        for item in browser.find_elements("css selector", "#neighbours li")
    ]
    assert listed == [corpus.ids[i] for i in indices[100]]
    fields = browser.find_element("id", "point").text
    assert corpus.texts[100] in fields and "Gold score" in fields
    assert browser.execute_script("return Array.from(rings.chosen.indices)") == [100, *indices[100]]
    # A click with the mouse on the most isolated point chooses it.
    coordinates = arrays[data["coordinates"]].reshape(-1, 2)
    distance, _ = cKDTree(coordinates).query(coordinates, 2)
    point = int(np.argmax(distance[:, 1]))
    [(px, py)] = screen_of(browser, [point])
    move_to(browser, plot, px, py)
    ActionChains(browser).click().perform()
    assert corpus.texts[point] in browser.find_element("id", "point").text
    assert browser.execute_script("return rings.chosen.indices[0]") == point


def test_the_page_filters_with_the_language_of_where_and_the_same_masks(
    browser, tmp_path, shared_data
):
    """Each expression evaluated by ``sentspace eval --where``'s code (filters.passing)
    and by the page's own parser in chromium, on SICK's columns: the same sentences,
    and the same message for a mistake."""
    corpus = load_corpus(shared_data / "sick")
    path = tmp_path / "sick-columns.html"
    path.write_text(
        map_page(corpus.texts, np.zeros((len(corpus), 2)), columns=sentence_columns(corpus)),
        encoding="utf-8",
    )
    assert embedded(path.read_text(encoding="utf-8"))["names"] == corpus_table(corpus).names
    open_page(browser, path)
    run = (
        "try { return Array.from(expressionMask(arguments[0], expressionTable(DATA, columns))); }"
        "catch (problem) { return problem.message; }"
    )
    expressions = [
        'words > 12 and pair_label == "NEUTRAL"',
        'label in ["NEUTRAL", "CONTRADICTION"]',
        'label not in ["NEUTRAL"] and words <= 9',
        "not 5 <= words < 10",
        'split != "train" or score >= 3.6',
        '(words > 8) & ~(pair_label == "ENTAILMENT") | (pairs >= 4)',
        "score > 4.5 OR words < 4",
        'NOT split IN ["train", "test"]',
        "gold_score < 2.25 and split == 'test' and length >= 1e1",
        "10 < words and -1 < score",
        "score == 5 or score == 1",
        "words in [3, 5, 7, 1_0]",
        "not not (pairs == 2)",
    ]
    # The page reads a pair column per sentence (its pairs' values merged), where
    # --where now keeps the pairs whose own value passes (issue 42, item 2): the page
    # is compared on the columns both read alike until it filters pairs too.
    pair_columns = ("label", "split", "score")
    expressions = [e for e in expressions if not any(name in e for name in pair_columns)]
    # The same typed into the page: answered by its worker, the sentences left out faded.
    typed = (
        "const [source, done] = arguments; applyExpression(source).then(() => done(["
        "document.getElementById('expression-error').textContent,"
        " Array.from(layerBytes, layer => layer > 0)]))"
    )
    assert browser.execute_script("return document.body.dataset.engine") == "worker"
    for expression in expressions:
        expected = passing(corpus, expression)
        assert 0 < expected.sum() < len(corpus), expression
        got = browser.execute_script(run, expression)
        assert isinstance(got, list), (expression, got)
        assert np.array_equal(np.asarray(got, dtype=bool), expected), expression
        assert browser.execute_async_script(typed, expression) == ["", expected.tolist()]
    mistakes = [
        "foo > 1",
        'words > "a"',
        "label > 3",
        'label == "X"',
        "words",
        '(words) > "a"',
        "len(text) > 3",
        "words = 3",
        "words >",
        "words > 3 and",
        "words in 3",
        "words == pairs",
        "-words > 3",
        "split == 'it''s'",
    ]
    mistakes = [m for m in mistakes if not any(name in m for name in pair_columns)]
    for mistake in mistakes:
        with pytest.raises(InputError) as raised:
            passing(corpus, mistake)
        got = browser.execute_script(run, mistake)
        assert isinstance(got, str), mistake
        assert browser.execute_async_script(typed, mistake)[0] == got
        if "syntax" not in str(raised.value):
            assert got == str(raised.value), mistake


def test_a_column_the_palette_has_colours_for_is_named_whole(shared_data, tmp_path, browser):
    """Costra's 14 transformation types: the page is told to name all 14 (ten and
    "(other 4)" before) and its legend and chart do; its 126 seed groups are told ten."""
    costra = load_corpus(shared_data / "costra")
    groups, *rest = sentence_columns(costra)
    columns = [groups, *(c for c in rest if c.title in ("Type", "Words"))]
    html = map_page(
        costra.texts,
        np.random.default_rng(0).normal(size=(len(costra), 2)),
        columns=columns,
        colour="Type",
    )
    types, _ = column(page_data(html), "Type")
    assert len(types["names"]) == types["named"] == 14
    seeds, _ = column(page_data(html), "Seed group")
    assert len(seeds["names"]) == 126 and seeds["named"] == 10
    # Seed groups named by numbers compare as numbers, in the page as in the window.
    assert seeds["numbers"] == [float(name) for name in seeds["names"]]

    path = tmp_path / "costra.html"
    path.write_text(html, encoding="utf-8")
    open_page(browser, path)
    legend = browser.find_element("id", "legend")
    named = [e.text for e in legend.find_elements("css selector", "div[data-code]")]
    assert len(named) == 14 and "(other" not in legend.text
    bars = browser.execute_script(
        "return [...document.querySelectorAll('#charts .chart')]"
        ".find(c => c.dataset.column === 'Type').querySelectorAll('.bar').length"
    )
    assert bars == 14
    expression = "seed_group <= 10 and seed_group != 3"
    got = browser.execute_script(
        "return Array.from(expressionMask(arguments[0], expressionTable(DATA, columns)))",
        expression,
    )
    assert np.array_equal(np.asarray(got, dtype=bool), passing(costra, expression))


def test_numbers_need_a_value_for_every_point():
    with pytest.raises(ValueError, match="'w' has 2 values for 3 points"):
        map_page(["a", "b", "c"], np.zeros((3, 2)), columns=[Numbers("w", np.ones(2))])


def test_region_names_get_finer_as_the_map_is_zoomed_in(browser, page):
    data = embedded(page.read_text(encoding="utf-8"))
    levels = [data["regions"], *data["finer_regions"]]
    assert len(levels) == 3 and len(levels[0]) == 8 < len(levels[1]) < len(levels[2])
    open_page(browser, page)

    def shown_of(level):
        shown = [e.text for e in browser.find_elements("css selector", "#labels div")]
        labels = [label for label, _, _ in level]
        # Names placed largest region first, those that would overlap one left out.
        assert shown and set(shown) <= set(labels)
        order = [labels.index(name) for name in shown]
        assert order == sorted(order)
        return shown

    assert len(shown_of(levels[0])) >= 6
    # Zoom by a factor about a point (the largest fine region's name, so one is in view),
    # with the mouse wheel.
    zoom = (
        "const [factor, x, y, done] = arguments;"
        "view.cx = x; view.cy = y; const [px, py] = toScreen(x, y);"
        "const wheel = new WheelEvent('wheel', {deltaY: -Math.log(factor) / 0.0015,"
        " clientX: px + map.getBoundingClientRect().left,"
        " clientY: py + map.getBoundingClientRect().top, bubbles: true, cancelable: true});"
        "canvas.dispatchEvent(wheel);"
        "requestAnimationFrame(() => requestAnimationFrame(done));"
    )
    _, x, y = levels[-1][0]
    browser.execute_async_script(zoom, 10, x, y)
    assert browser.execute_script("return view.scale / view.whole.scale") == pytest.approx(10)
    shown_of(levels[-1])
    browser.execute_async_script(zoom, 0.1, x, y)
    shown_of(levels[0])
    # Names that would overlap are left out.
    boxes = browser.execute_script(
        "return [...document.querySelectorAll('#labels div')].map(a => {"
        "const r = a.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })"
    )
    assert all(
        a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
    )


def test_the_page_colours_as_the_window_does(tmp_path, browser):
    """Of more categories than the palette's 18 colours, every one past the ten largest is
    the one warm grey the legend names (the
    captions' 28,990 other groups were drawn in the palette's colours, cycled), drawn
    under the named ones as the window's density draws them; numbers colour on the
    window's scale (a long tail in its end colours), points with no value under the
    others; and the page opens on the colouring it is given (the window's own)."""
    from sentspace.app.base.palette import number_colours

    rng = np.random.default_rng(0)
    kinds = np.repeat(np.arange(20), 40)
    coordinates = rng.normal(size=(len(kinds), 2))
    # Every other of the other categories' points on a named one, later in the data.
    covering = np.flatnonzero(kinds >= 10)[::2]
    hidden = rng.choice(np.flatnonzero(kinds < 10), len(covering), replace=False)
    coordinates[covering] = coordinates[hidden]
    words = rng.integers(1, 30, len(kinds)).astype(float)
    words[:4] = 80  # a long tail: the bar spans the 1st to 99th percentiles, as in the window
    words[covering] = np.nan
    html = map_page(
        [f"s{k}" for k in range(len(kinds))],
        coordinates,
        columns=[
            Numbers("Words", words),
            Categories("Kind", tuple(f"k{k}" for k in range(20)), kinds),
            Numbers("Group size", np.full(len(kinds), 5.0)),
        ],
        colour="Kind",
    )
    scale = number_colours(words, "Words")[1]
    assert column(page_data(html), "Words")[0]["scale"] == [scale.low, scale.high] == [1, 29]
    path = tmp_path / "colours.html"
    path.write_text(html, encoding="utf-8")
    plot = open_page(browser, path)
    chosen = browser.execute_script(
        "const s = document.getElementById('colouring'); return s.options[s.selectedIndex].text"
    )
    assert chosen == "Kind"
    shot = plot.screenshot_as_png
    assert colour_pixels(shot, OTHER, tolerance=4) > 100
    assert all(colour_pixels(shot, colour, tolerance=4) > 20 for colour in CATEGORICAL[:10])
    # Drawn in the data's order, every one of these showed the grey point over it.
    assert not any(close(colour, OTHER) for colour in centre_colours(browser, plot, hidden))
    legend = browser.find_element("id", "legend").text
    assert "(other 10: 400 sentences)" in legend
    # A chart that says nothing is left out, as in the window: one value for all.
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#charts .chart')]"
        ".filter(c => !c.hidden).map(c => c.dataset.column)"
    )
    assert shown == ["Words", "Kind"]

    browser.execute_async_script("colourBy(0).then(arguments[0])")
    assert not any(close(colour, UNGROUPED) for colour in centre_colours(browser, plot, hidden))
    step = browser.execute_script("return Array.from(colourBytes)")
    assert step[0] == step[int(np.flatnonzero(words == 29)[0])]  # 80 as the bar's end, 29
    legend = browser.find_element("id", "legend").text
    assert "values from 1 to 80: beyond the bar in its end colours" in legend


def centre_colours(browser, plot, indices):
    """The colour of the screenshot of ``plot`` at the centre of each point of ``indices``."""
    from PySide6.QtGui import QImage

    image = QImage.fromData(plot.screenshot_as_png)
    return [image.pixelColor(round(px), round(py)).name() for px, py in screen_of(browser, indices)]


def close(colour, other, tolerance=12):
    return all(
        abs(int(colour[k : k + 2], 16) - int(other[k : k + 2], 16)) <= tolerance for k in (1, 3, 5)
    )
