"""The tokenisation shared by the word-based encoders."""

from __future__ import annotations

import re

#: Runs of word characters, and every other non-space character as its own token, so
#: punctuation counts as tokens (as in the bag-of-words baselines of White et al. 2015).
TOKEN_PATTERN = r"\w+|[^\w\s]"
_TOKEN_RE = re.compile(TOKEN_PATTERN)


def tokenize(text: str, lowercase: bool = True) -> list[str]:
    """Tokens of ``text``: ``"Don't stop."`` -> ``["don", "'", "t", "stop", "."]``."""
    return _TOKEN_RE.findall(text.lower() if lowercase else text)
