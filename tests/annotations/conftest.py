import json
import subprocess
import sys
from pathlib import Path

import pytest

from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus():
    """The bundled grouped MSRP: 859 sentences in paraphrase groups."""
    return load_corpus("msrp-grouped")


def reopened(corpus, journal):
    """The journal as a fresh session reads it (replayed, then let go)."""
    session = AnnotationSession.open(corpus, journal, author="reader")
    session.close()
    return session


class Writer:
    """A writer process on a journal, running ``script`` (given the corpus, the journal
    and the author) and driven line by line on stdin; it answers each command with a
    line of JSON."""

    def __init__(self, script: str, journal: Path, author: str, corpus: str = "msrp-grouped"):
        self.process = subprocess.Popen(
            [sys.executable, "-c", script, corpus, str(journal), author],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def __call__(self, command: str) -> dict:
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        assert line, f"the writer died on {command!r}"
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0
