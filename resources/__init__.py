"""Bundled data and assets; each data set keeps its licence file beside it."""

if __name__ == "resources":
    # Imported by its folder's name (from the repository's root): the code imports itself
    # as sentspace.resources, and two copies of one module would disagree.
    raise ImportError(
        "sentspace's resources is imported as sentspace.resources, e.g. "
        "`from sentspace.resources import CORPORA`"
    )


from pathlib import Path

RESOURCES = Path(__file__).resolve().parent
CORPORA = RESOURCES / "corpora"
