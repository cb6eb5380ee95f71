"""sentspace: explore and evaluate sentence-embedding spaces.

Everything outside :mod:`sentspace.app.ui` is the Qt-free core.
"""

if __name__ == "app":
    # Imported by its folder's name (from the repository's root): the code imports itself
    # as sentspace.app, and two copies of one module would disagree.
    raise ImportError(
        "sentspace's app is imported as sentspace.app, e.g. "
        "`from sentspace.app.corpora import load_corpus`"
    )
