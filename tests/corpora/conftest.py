import pytest

from sentspace.app.base.errors import CorpusError


def refused(load, path, *fragments) -> CorpusError:
    """The CorpusError ``load(path)`` raises; its message holds each of ``fragments``."""
    with pytest.raises(CorpusError) as caught:
        load(path)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, message
    return caught.value
