"""sentspace: explore and evaluate sentence-embedding spaces.

The code lives in the repository's ``app/`` (the application and its Qt-free core),
``models/`` (the encoders) and ``resources/`` (bundled data), imported as
``sentspace.app``, ``sentspace.models`` and ``sentspace.resources``: under one name of
its own, a user's ``app.py`` or ``models.py`` beside a notebook shadows nothing.
"""

from __future__ import annotations

from pathlib import Path

_SOURCE = Path(__file__).resolve().parent.parent
# Run from a checkout (tests, ``python -m sentspace``), the three folders sit beside
# this one; an installed wheel has them inside it, where ``__path__`` finds them already.
if (_SOURCE / "pyproject.toml").is_file() and (_SOURCE / "app" / "__init__.py").is_file():
    __path__.append(str(_SOURCE))
