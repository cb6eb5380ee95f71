"""The map as a web page, opened in Debian's headless chromium (WebGL in SwiftShader):
points drawn (pixels of the screenshot), hover shows the sentence, word search ranks and
rings matches, histograms and bar charts cross-filter the map and the table, a box on the
map selects, the table exports, numbers colour on viridis, a click shows neighbours.

``python3 tasks.py test`` installs chromium and chromium-driver where apt is available;
elsewhere the browser tests skip and say so.
"""

import base64
import json
import re
import shutil

import numpy as np
import pytest

from sentspace.app.analysis.columns import Categories, Numbers
from sentspace.app.base.jobs import run_job
from sentspace.app.base.palette import CATEGORICAL, OTHER, SEQUENTIAL, UNGROUPED
from sentspace.app.corpora import load_corpus
from sentspace.app.exporters.web_map import RING, map_page
from tests.browser import browser_or_skip, colour_pixels, open_page


@pytest.fixture(scope="module")
def corpus():
    return load_corpus("msrp-grouped")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """``sentspace export-map`` of the bundled corpus, TF-IDF, PCA, with its regions."""
    from sentspace.app.cli import main

    path = tmp_path_factory.mktemp("map") / "map.html"
    assert (
        main(
            [
                "export-map",
                "--corpus",
                "msrp-grouped",
                "--encoder",
                "tfidf",
                "--regions",
                "--out",
                str(path),
            ]
        )
        == 0
    )
    return path


def coordinates_of(path):
    data = embedded(path.read_text(encoding="utf-8"))
    return np.frombuffer(base64.b64decode(data["coordinates"]), dtype="<f4").reshape(-1, 2)


def column(data, title):
    found = next(c for c in data["columns"] if c["title"] == title)
    if "codes" in found:
        return found, np.frombuffer(base64.b64decode(found["codes"]), dtype="<i4")
    if found["kind"] == "number":
        return found, np.frombuffer(base64.b64decode(found["values"]), dtype="<f4")
    return found, found["values"]


def words(text):
    """The page's words: runs of letters and digits, lower-cased."""
    return set(re.findall(r"[^\W_]+", text.lower()))


def embedded(html):
    return json.loads(
        re.search(
            r'<script id="sentspace-data" type="application/json">'
            r"(.*?)</script>",
            html,
            re.S,
        ).group(1)
    )


def test_the_page_holds_its_data_compactly_and_needs_no_network(corpus, page):
    from sentspace.app.analysis.projection import project
    from sentspace.models.bow import TfIdf

    html = page.read_text(encoding="utf-8")
    data = embedded(html)
    assert data["n"] == len(corpus) == 859 and data["texts"] == list(corpus.texts)
    assert data["ids"] == list(corpus.ids)
    embeddings = TfIdf().fit(corpus.texts).encode(corpus.texts)
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
    _, codes = column(data, "Paraphrase group")
    first = corpus.groups.first_group(len(corpus))
    assert np.array_equal(codes, first)
    _, sizes = column(data, "Group size")
    assert np.array_equal(sizes, np.bincount(first)[first])
    _, lengths = column(data, "Words")
    assert np.array_equal(lengths, [len(text.split()) for text in corpus.texts])
    line, values = column(data, "Line")  # a number in every row: a histogram
    assert line["kind"] == "number" and line["integer"] and values[0] == 1
    regions, _ = column(data, "Region")
    assert len(data["regions"]) == len(regions["names"]) > 1
    # Each point's 10 nearest others by cosine in the TF-IDF space, most similar first.
    unit = embeddings.toarray() if hasattr(embeddings, "toarray") else np.asarray(embeddings)
    unit = unit / np.linalg.norm(unit, axis=1, keepdims=True)
    cosines = unit @ unit.T
    np.fill_diagonal(cosines, -np.inf)
    nearest = data["neighbours"]
    assert nearest["k"] == 10
    indices = np.frombuffer(base64.b64decode(nearest["indices"]), dtype="<i4").reshape(-1, 10)
    shown = np.frombuffer(base64.b64decode(nearest["cosines"]), dtype="<i2").reshape(-1, 10)
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
    # No address the page could fetch: plotly.js is inline, nothing is loaded.
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html)
    assert "plotly.js v" in html and "MIT" in html


def test_a_sentence_cannot_close_the_data_script():
    html = map_page(
        ["</script><script>alert(1)</script>", "b", "c"],
        np.zeros((3, 2)),
        columns=[Categories.of_values("k", ["x", "", "y"])],
    )
    assert embedded(html)["texts"][0] == "</script><script>alert(1)</script>"
    assert embedded(html)["columns"][0]["names"] == ["x", "y"]


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
    texts = ["Keys like __PLOTLY__ and __DATA__ are text.", "__TITLE__", "c"]
    html = map_page(
        texts,
        np.arange(6.0).reshape(3, 2),
        title="a __DATA__ map",
        columns=[Categories.of_values("k", ["x", "y", "x"])],
    )
    assert embedded(html)["texts"] == texts
    assert html.count("plotly.js v") == 1
    path = tmp_path / "keys.html"
    path.write_text(html, encoding="utf-8")
    open_page(browser, path)
    assert browser.title == "a __DATA__ map"
    assert browser.execute_script("return document.getElementById('map').data[0].x.length") == 3


@pytest.fixture(scope="module")
def browser():
    driver = browser_or_skip()
    yield driver
    driver.quit()


def test_points_are_drawn_hover_shows_the_sentence_and_search_rings_matches(browser, corpus, page):
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
    px, py = browser.execute_script(
        "const layout = document.getElementById('map')._fullLayout;"
        "const i = arguments[0];"
        "return [layout.xaxis._offset + layout.xaxis.l2p(x[i]),"
        "        layout.yaxis._offset + layout.yaxis.l2p(y[i])];",
        point,
    )
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait

    ActionChains(browser).move_to_element_with_offset(
        plot, int(px - plot.size["width"] / 2), int(py - plot.size["height"] / 2)
    ).perform()
    hovered = browser.find_element("id", "hovered")
    WebDriverWait(browser, 10).until(lambda _: texts[point] in hovered.text)
    label = browser.find_element("css selector", ".hoverlayer .hovertext").text
    assert texts[point].split()[0] in label

    word = "million"
    expected = [i for i, text in enumerate(texts) if word in words(text)]
    assert 5 < len(expected) < sum(word in text.lower() for text in texts)  # not "millions"
    browser.find_element("id", "search").send_keys(word)
    matches = browser.find_element("id", "matches")
    WebDriverWait(browser, 10).until(lambda _: matches.text)
    assert matches.text == f"{len(expected)} sentences have the word"
    assert browser.execute_script("return document.getElementById('map').data[2].x.length") == len(
        expected
    )
    assert table_indices(browser) == expected
    ActionChains(browser).move_by_offset(5, 5).perform()  # the hover label away
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


def test_a_box_on_the_map_selects_and_the_table_exports_it(browser, corpus, page):
    from selenium.webdriver.common.action_chains import ActionChains

    plot = open_page(browser, page)
    browser.find_element("css selector", ".modebar-btn[data-val='select']").click()
    # A box from the 20th to the 50th percentile of x, over all of y's plotting area.
    xy = coordinates_of(page)
    x0, x1 = np.quantile(xy[:, 0], [0.2, 0.5])
    (px0, px1), (py0, py1) = browser.execute_script(
        "const l = document.getElementById('map')._fullLayout, xa = l.xaxis, ya = l.yaxis;"
        "return [arguments[0].map(v => xa._offset + xa.l2p(v)),"
        "        [ya._offset + 5, ya._offset + ya._length - 5]];",
        [float(x0), float(x1)],
    )
    half_width, half_height = plot.size["width"] / 2, plot.size["height"] / 2
    ActionChains(browser).move_to_element_with_offset(
        plot, int(px0 - half_width), int(py0 - half_height)
    ).click_and_hold().move_by_offset(int(px1 - px0), int(py1 - py0)).release().perform()
    # The box as plotly drew it, in data coordinates.
    drawn = browser.execute_script("return document.getElementById('map').layout.selections[0]")
    (x0, x1), (y0, y1) = (sorted([drawn["x0"], drawn["x1"]]), sorted([drawn["y0"], drawn["y1"]]))
    inside = np.flatnonzero(
        (xy[:, 0] >= x0) & (xy[:, 0] <= x1) & (xy[:, 1] >= y0) & (xy[:, 1] <= y1)
    )
    assert 100 < len(inside) < len(corpus) // 2
    chip = browser.find_element("css selector", ".chip[data-key='map']")
    count = int(re.search(r"\((\d+)\)", chip.text).group(1))
    assert count == len(inside)
    shown = browser.find_element("id", "shown").text
    assert shown == f"{count} of {len(corpus)} sentences"
    assert table_indices(browser) == list(inside[:50])
    # Faded on the map: every point outside the box drawn in the faded colour.
    colour = np.asarray(
        browser.execute_script(
            "return Array.from(document.getElementById('map').data[0].marker.color)"
        )
    )
    assert (colour == colour.max()).sum() == len(corpus) - count

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


def downloaded(browser):
    """The text of the file the page last offered, read back from its Blob URL."""
    return browser.execute_async_script(
        "const done = arguments[0];"
        "fetch(document.getElementById('download').href).then(r => r.text()).then(done);"
    )


@pytest.fixture(scope="module")
def sick(tmp_path_factory):
    """The full SICK (6,077 sentences, 9,927 pairs), TF-IDF, PCA, as a web map."""
    from sentspace.app.cli import main

    path = tmp_path_factory.mktemp("sick") / "sick.html"
    assert (
        main(
            [
                "export-map",
                "--corpus",
                "/work/shared/data/sick",
                "--encoder",
                "tfidf",
                "--out",
                str(path),
            ]
        )
        == 0
    )
    return load_corpus("/work/shared/data/sick"), path


def test_sick_charts_cross_filter_search_ranks_words_and_numbers_colour(browser, sick):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait

    corpus, path = sick
    data = embedded(path.read_text(encoding="utf-8"))
    n = len(corpus)
    # What SICK's pairs say of each sentence are columns: a map with no regions has colours.
    titles = [c["title"] for c in data["columns"]]
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
    brushed = (lengths >= 18) & (lengths <= 29)
    shown = browser.find_element("id", "shown")
    assert shown.text == f"{brushed.sum():,} of {n:,} sentences"
    chips = [chip.text for chip in browser.find_elements("css selector", ".chip")]
    assert chips == ["Words 18–29 ×"]
    # Every other chart counts the brushed sentences; its own keeps all.
    bar = browser.find_element(
        "css selector", ".chart[data-column='Split'] .bar[data-label='train']"
    )
    assert bar.text == f"train · {(brushed & train_only).sum():,}"
    # A click on a bar filters too, with the brush.
    bar.click()
    both = brushed & train_only
    assert shown.text == f"{both.sum():,} of {n:,} sentences"
    assert sorted(table_indices(browser)) == list(np.flatnonzero(both)[:50])
    colour = np.asarray(
        browser.execute_script(
            "return Array.from(document.getElementById('map').data[0].marker.color)"
        )
    )
    assert (colour == colour.max()).sum() == n - both.sum()
    # A filter expression narrows it further; sorting the table by words puts the longest first.
    expression = browser.find_element("id", "expression")
    expression.send_keys('pair_label == "NEUTRAL"', Keys.ENTER)
    label, label_codes = column(data, "Pair label")
    neutral = np.array([c >= 0 and label["names"][c] == "NEUTRAL" for c in label_codes])
    assert shown.text == f"{(both & neutral).sum():,} of {n:,} sentences"
    header = browser.find_element("css selector", "#rows th[data-key='words']")
    header.click()
    browser.find_element("css selector", "#rows th[data-key='words']").click()
    first = table_indices(browser)[0]
    assert lengths[first] == lengths[both & neutral].max()
    browser.find_element("id", "clear-filters").click()
    assert shown.text == f"{n:,} of {n:,} sentences"

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
    box.clear()
    box.send_keys("cat")
    WebDriverWait(browser, 10).until(
        lambda _: matches.text.startswith(f"{sum('cat' in w for w in has)} sentences have the word")
    )

    # Colour by a number: viridis with a colour bar, from the lowest score to the highest.
    Select(browser.find_element("id", "colouring")).select_by_visible_text(
        "Gold score (mean of its pairs)"
    )
    scale = [span.text for span in browser.find_elements("css selector", "#legend .scale span")]
    assert scale == [
        f"{np.nanmin(gold):.3g}",
        "Gold score (mean of its pairs)",
        f"{np.nanmax(gold):.3g}",
    ]
    ActionChains(browser).move_to_element_with_offset(
        plot, -plot.size["width"] // 2 + 2, 0
    ).perform()
    shot = plot.screenshot_as_png
    assert colour_pixels(shot, SEQUENTIAL[0], 30) > 20
    assert colour_pixels(shot, SEQUENTIAL[-1], 30) > 20
    assert colour_pixels(shot, CATEGORICAL[0]) == 0
    # Search rings stay visible over any colouring: a colour in none of the palettes.
    assert RING not in (*CATEGORICAL, *SEQUENTIAL, UNGROUPED)
    assert colour_pixels(shot, RING) > 100


def test_a_click_shows_the_point_and_its_neighbours_in_the_original_space(browser, sick):
    corpus, path = sick
    data = embedded(path.read_text(encoding="utf-8"))
    indices = np.frombuffer(base64.b64decode(data["neighbours"]["indices"]), "<i4")
    open_page(browser, path)
    browser.execute_script("choose(arguments[0])", 100)
    listed = [
        item.get_attribute("title")
        for item in browser.find_elements("css selector", "#neighbours li")
    ]
    assert listed == [corpus.ids[i] for i in indices.reshape(-1, 10)[100]]
    fields = browser.find_element("id", "point").text
    assert corpus.texts[100] in fields and "Gold score" in fields
    assert browser.execute_script("return document.getElementById('map').data[4].x.length") == 11


def test_a_column_the_palette_has_colours_for_is_named_whole(shared_data, tmp_path, browser):
    """Costra's 14 transformation types: the page is told to name all 14 (ten and
    "(other 4)" before) and its legend and chart do; its 126 seed groups are told ten."""
    from sentspace.app.analysis.columns import sentence_columns

    costra = load_corpus(shared_data / "costra")
    groups, *rest = sentence_columns(costra)
    columns = [groups, *(c for c in rest if c.title in ("Type", "Words"))]
    html = map_page(
        costra.texts,
        np.random.default_rng(0).normal(size=(len(costra), 2)),
        columns=columns,
        colour="Type",
    )
    types, _ = column(embedded(html), "Type")
    assert len(types["names"]) == types["named"] == 14
    seeds, _ = column(embedded(html), "Seed group")
    assert len(seeds["names"]) == 126 and seeds["named"] == 10

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


def test_numbers_need_a_value_for_every_point():
    with pytest.raises(ValueError, match="'w' has 2 values for 3 points"):
        map_page(["a", "b", "c"], np.zeros((3, 2)), columns=[Numbers("w", np.ones(2))])


def test_region_names_get_finer_as_the_map_is_zoomed_in(browser, page):
    data = embedded(page.read_text(encoding="utf-8"))
    levels = [data["regions"], *data["finer_regions"]]
    assert len(levels) == 3 and len(levels[0]) == 8 < len(levels[1]) < len(levels[2])
    open_page(browser, page)
    names = "return document.getElementById('map').layout.annotations.map(a => a.text)"

    def shown_of(level):
        shown = browser.execute_script(names)
        labels = [label for label, _, _ in level]
        # Names placed largest region first, those that would overlap one left out.
        assert shown and set(shown) <= set(labels)
        order = [labels.index(name) for name in shown]
        assert order == sorted(order)
        return shown

    assert len(shown_of(levels[0])) >= 6
    # Zoom by a factor about a point (the largest fine region's name, so one is in view).
    zoom = (
        "const plot = document.getElementById('map');"
        "const [x0, x1] = plot.layout.xaxis.range, [y0, y1] = plot.layout.yaxis.range;"
        "const [f, cx, cy] = arguments;"
        "return Plotly.relayout(plot, {'xaxis.range': [cx - (x1 - x0) * f / 2,"
        " cx + (x1 - x0) * f / 2], 'yaxis.range': [cy - (y1 - y0) * f / 2,"
        " cy + (y1 - y0) * f / 2]});"
    )
    _, x, y = levels[-1][0]
    browser.execute_script(zoom, 0.1, x, y)
    shown_of(levels[-1])
    browser.execute_script(zoom, 10, x, y)
    shown_of(levels[0])
    # Names that would overlap are left out.
    boxes = browser.execute_script(
        "return [...document.querySelectorAll('.annotation')].map(a => {"
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
    assert column(embedded(html), "Words")[0]["scale"] == [scale.low, scale.high] == [1, 29]
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
    step = dict(
        browser.execute_script(
            "const drawn = document.getElementById('map').data[0].marker.color;"
            "return Array.from(order.keys(), p => [order[p], drawn[p]]);"
        )
    )
    assert step[0] == step[int(np.flatnonzero(words == 29)[0])]  # 80 as the bar's end, 29
    legend = browser.find_element("id", "legend").text
    assert "values from 1 to 80: beyond the bar in its end colours" in legend


def centre_colours(browser, plot, indices):
    """The colour of the screenshot of ``plot`` at the centre of each point of ``indices``."""
    from PySide6.QtGui import QImage

    image = QImage.fromData(plot.screenshot_as_png)
    centres = browser.execute_script(
        "const layout = document.getElementById('map')._fullLayout;"
        "return arguments[0].map(i => [layout.xaxis._offset + layout.xaxis.l2p(x[i]),"
        "                              layout.yaxis._offset + layout.yaxis.l2p(y[i])]);",
        [int(i) for i in indices],
    )
    return [image.pixelColor(round(px), round(py)).name() for px, py in centres]


def close(colour, other, tolerance=12):
    return all(
        abs(int(colour[k : k + 2], 16) - int(other[k : k + 2], 16)) <= tolerance for k in (1, 3, 5)
    )
