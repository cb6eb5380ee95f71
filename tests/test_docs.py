"""The documentation: the README stays a front page, every relative link leads to a file,
and the references generated from the code say what the code does now."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_a_front_page():
    assert len((ROOT / "README.md").read_text()) < 30_000


def test_the_architecture_page_is_short():
    assert len((ROOT / "docs" / "ARCHITECTURE.md").read_text()) < 15_000


def test_every_relative_link_leads_to_a_file():
    broken = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in PAGES
        for target in LINK.findall(page.read_text())
        if "://" not in target and not (page.parent / target).exists()
    ]
    assert broken == []


def test_no_page_links_outside_the_repository():
    outside = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in PAGES
        for target in LINK.findall(page.read_text())
        if "://" not in target
        and not (page.parent / target).resolve().is_relative_to(ROOT.resolve())
    ]
    assert outside == []


def test_the_generated_references_match_the_code():
    done = subprocess.run(
        [sys.executable, "scripts/references.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
