"""sentspace: explore and evaluate sentence-embedding spaces.

Everything outside :mod:`app.ui` is the Qt-free core.
"""
