"""Debian's chromium, headless, driven by selenium (never a downloaded browser), for the
tests and the bench of the web map."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--window-size=1280,800",
)


def chromium():
    """A selenium driver of /usr/bin/chromium; raises RuntimeError when it is missing."""
    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not binary or not driver:
        raise RuntimeError(
            "Debian's chromium and chromium-driver are not installed "
            "(python3 tasks.py test installs them where apt-get runs as "
            "root; else: sudo apt-get install chromium chromium-driver)"
        )
    from selenium import webdriver

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in FLAGS:
        options.add_argument(flag)
    return webdriver.Chrome(
        options=options, service=webdriver.ChromeService(executable_path=driver)
    )


def browser_or_skip():
    try:
        return chromium()
    except RuntimeError as missing:
        pytest.skip(str(missing))


def open_page(browser, path: Path, timeout: float = 60):
    """Open ``path`` and wait until the map is drawn; returns the map's element."""
    wait_ready(browser, path, timeout)
    return browser.find_element("id", "map")


def wait_ready(browser, path: Path, timeout: float = 60) -> None:
    """Open ``path`` and wait until its body is marked ready."""
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(Path(path).resolve().as_uri())
    WebDriverWait(browser, timeout).until(
        lambda b: b.execute_script("return document.body.dataset.ready === 'true'")
    )


def wait_applied(browser, timeout: float = 60) -> None:
    """Wait until the page has drawn the answer to the latest change asked of its engine
    (the worker answers asynchronously; the body's data-applied reaches data-asked)."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, timeout).until(
        lambda b: b.execute_script(
            "return document.body.dataset.applied === document.body.dataset.asked"
        )
    )


def colour_pixels(png: bytes, colour: str, tolerance: int = 12) -> int:
    """Pixels of a PNG within ``tolerance`` (per channel) of a hex ``colour``."""
    from PySide6.QtGui import QImage

    image = QImage.fromData(png).convertToFormat(QImage.Format.Format_RGB888)
    width, height, stride = image.width(), image.height(), image.bytesPerLine()
    rows = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(height, stride)
    rgb = rows[:, : width * 3].reshape(height, width, 3).astype(int)
    target = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(rgb - target).max(axis=2) <= tolerance).sum())


def page_data(html: str) -> tuple[dict, dict]:
    """The manifest of a page ``app/exporters/web_map.py`` wrote and its payload's arrays by
    section name (texts as lists of strings), unpacked as the page unpacks them."""
    import base64
    import gzip
    import json
    import re

    def script(name: str) -> str:
        return re.search(rf'<script id="{name}" type="[^"]+">(.*?)</script>', html, re.S).group(1)

    manifest = json.loads(script("sentspace-data"))
    raw = gzip.decompress(base64.b64decode(script("sentspace-bytes")))
    arrays: dict = {}
    for name, section in manifest["sections"].items():
        start, length = section["offset"], section["length"]
        if section["dtype"] == "utf8":
            arrays[name] = raw[start : start + length].decode("utf-8")
            continue
        width = section["planes"]
        planes = np.frombuffer(raw, np.uint8, length * width, start).reshape(width, length)
        arrays[name] = planes.T.copy().view("<" + section["dtype"]).ravel()
    for name in [name for name in arrays if name + ".ends" in arrays]:
        joined, ends = arrays.pop(name), arrays.pop(name + ".ends")
        # Ends count UTF-16 units, as the page's strings do.
        units = joined.encode("utf-16-le")
        starts = np.concatenate([[0], ends[:-1]]).astype(int)
        arrays[name] = [
            units[2 * a : 2 * b].decode("utf-16-le") for a, b in zip(starts, ends.astype(int))
        ]
    return manifest, arrays


def map_manifest(path: Path) -> dict:
    """The manifest of the web map written at ``path``."""
    return page_data(path.read_text(encoding="utf-8"))[0]
