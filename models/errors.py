"""The errors of encoders and their model files, below both the encoders
(:mod:`sentspace.models.base`) and the files they are saved in
(:mod:`sentspace.models.sidecar`)."""

from __future__ import annotations

from sentspace.app.base.errors import InputError


class NotFittedError(RuntimeError):
    """``encode`` was called on an encoder that must be fitted first."""


class ModelError(InputError):
    """A model file or model parameter the user gave cannot be used (file and problem)."""
