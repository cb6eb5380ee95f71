"""The map as a web page, opened in Debian's headless chromium (WebGL in SwiftShader):
points drawn (pixels of the screenshot), hover shows the sentence, search rings matches.

``python3 tasks.py test`` installs chromium and chromium-driver where apt is available;
elsewhere the browser tests skip and say so.
"""

import base64
import json
import re
import shutil

import numpy as np
import pytest

from sentspace.app.corpora import load_corpus
from sentspace.app.jobs import run_job
from sentspace.app.palette import CATEGORICAL, FOUND
from sentspace.app.web_map import Colouring, export_map, map_page
from tests.browser import browser_or_skip, colour_pixels, open_page


@pytest.fixture(scope="module")
def corpus():
    return load_corpus("msrp-grouped")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """``sentspace export-map`` of the bundled corpus, TF-IDF, PCA, with its regions."""
    from sentspace.app.cli import main

    path = tmp_path_factory.mktemp("map") / "map.html"
    assert main(["export-map", "--corpus", "msrp-grouped", "--encoder", "tfidf",
                 "--regions", "--out", str(path)]) == 0
    return path


def coordinates_of(path):
    data = embedded(path.read_text(encoding="utf-8"))
    return np.frombuffer(base64.b64decode(data["coordinates"]), dtype="<f4").reshape(-1, 2)


def embedded(html):
    return json.loads(re.search(r'<script id="sentspace-data" type="application/json">'
                                r"(.*?)</script>", html, re.S).group(1))


def test_the_page_holds_its_data_compactly_and_needs_no_network(corpus, page):
    from sentspace.app.projection import project
    from sentspace.models.bow import TfIdf

    html = page.read_text(encoding="utf-8")
    data = embedded(html)
    assert data["n"] == len(corpus) == 859 and data["texts"] == list(corpus.texts)
    assert data["ids"] == list(corpus.ids)
    embeddings = TfIdf().fit(corpus.texts).encode(corpus.texts)
    assert np.array_equal(coordinates_of(page),
                          run_job(project(embeddings, "pca")).coordinates)
    titles = [c["title"] for c in data["colourings"]]
    assert titles[:3] == ["Paraphrase group", "Region", "Misclassified or not"]
    group = data["colourings"][0]
    codes = np.frombuffer(base64.b64decode(group["codes"]), dtype="<i4")
    assert np.array_equal(codes, corpus.groups.first_group(len(corpus)))
    regions = next(c for c in data["colourings"] if c["title"] == "Region")
    assert len(data["regions"]) == len(regions["names"]) > 1
    assert [label for label, _, _ in data["regions"]] == regions["names"]
    provenance = dict(data["provenance"])
    assert provenance["Corpus"].startswith("msrp-grouped, 859 sentences")
    assert provenance["Encoder"].startswith("tfidf") and "accuracy" in provenance[
        "Classification"].lower()
    # No address the page could fetch: plotly.js is inline, nothing is loaded.
    assert not re.search(r'<(script|link|img)[^>]+(src|href)=', html)
    assert "plotly.js v" in html and "MIT" in html


def test_a_sentence_cannot_close_the_data_script():
    html = map_page(["</script><script>alert(1)</script>", "b", "c"],
                    np.zeros((3, 2)), colourings=[Colouring.of_values("k", ["x", "", "y"])])
    assert embedded(html)["texts"][0] == "</script><script>alert(1)</script>"
    assert embedded(html)["colourings"][0]["names"] == ["x", "y"]


def test_a_sentence_naming_a_template_key_is_only_text(tmp_path, browser):
    texts = ["Keys like __PLOTLY__ and __DATA__ are text.", "__TITLE__", "c"]
    html = map_page(texts, np.arange(6.0).reshape(3, 2), title="a __DATA__ map",
                    colourings=[Colouring.of_values("k", ["x", "y", "x"])])
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


def test_points_are_drawn_hover_shows_the_sentence_and_search_rings_matches(
        browser, corpus, page):
    texts = corpus.texts
    plot = open_page(browser, page)
    shot = plot.screenshot_as_png
    drawn = {colour: colour_pixels(shot, colour) for colour in CATEGORICAL[:10]}
    assert sum(count > 20 for count in drawn.values()) >= 8, drawn
    assert colour_pixels(shot, FOUND) == 0

    # The most isolated point, so the pointer is over it alone.
    from scipy.spatial import cKDTree
    coordinates = coordinates_of(page)
    distance, _ = cKDTree(coordinates).query(coordinates, 2)
    point = int(np.argmax(distance[:, 1]))
    px, py = browser.execute_script(
        "const layout = document.getElementById('map')._fullLayout;"
        "const i = arguments[0];"
        "return [layout.xaxis._offset + layout.xaxis.l2p(x[i]),"
        "        layout.yaxis._offset + layout.yaxis.l2p(y[i])];", point)
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait
    ActionChains(browser).move_to_element_with_offset(
        plot, int(px - plot.size["width"] / 2), int(py - plot.size["height"] / 2)).perform()
    hovered = browser.find_element("id", "hovered")
    WebDriverWait(browser, 10).until(lambda _: texts[point] in hovered.text)
    label = browser.find_element("css selector", ".hoverlayer .hovertext").text
    assert texts[point].split()[0] in label

    word = "million"
    expected = sum(word in text.lower() for text in texts)
    assert 5 < expected < 100
    browser.find_element("id", "search").send_keys(word)
    matches = browser.find_element("id", "matches")
    WebDriverWait(browser, 10).until(lambda _: matches.text)
    assert matches.text == f"{expected} sentences match"
    assert browser.execute_script(
        "return document.getElementById('map').data[1].x.length") == expected
    listed = [item.text for item in browser.find_elements("css selector", "#list li")]
    assert listed == [text for text in texts if word in text.lower()]
    ActionChains(browser).move_by_offset(5, 5).perform()     # the hover label away
    assert colour_pixels(plot.screenshot_as_png, FOUND) > 20 * expected


def test_a_legend_entry_lists_its_group(browser, corpus, page):
    open_page(browser, page)
    first = corpus.groups.first_group(len(corpus))
    browser.find_element("css selector", "#legend div[data-code='3']").click()
    listed = [item.text for item in browser.find_elements("css selector", "#list li")]
    assert listed == [corpus.texts[i] for i in np.flatnonzero(first == 3)]
    assert corpus.groups.names[3] in browser.find_element("id", "list-title").text


def test_the_browser_tests_say_why_they_skip(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(pytest.skip.Exception, match="chromium"):
        browser_or_skip()
