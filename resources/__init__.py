"""Bundled data and assets; each data set keeps its licence file beside it."""

from pathlib import Path

RESOURCES = Path(__file__).resolve().parent
CORPORA = RESOURCES / "corpora"
