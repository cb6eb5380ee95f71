import pytest

from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus


@pytest.fixture(scope="module")
def corpus():
    """The bundled grouped MSRP: 859 sentences in paraphrase groups."""
    return load_corpus("msrp-grouped")


def reopened(corpus, journal):
    """The journal as a fresh session reads it (replayed, then let go)."""
    session = AnnotationSession.open(corpus, journal, author="reader")
    session.close()
    return session
