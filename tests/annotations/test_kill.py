"""Kill a process in the middle of a series of journaled edits; nothing returned is lost."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sentspace.app.annotations.edits import MoveSentence
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus

ROOT = Path(__file__).resolve().parents[2]
#: Moves every sentence i (L{i+1}) of groups 0-199 into the next group, one edit at a
#: time, reporting each edit after the session returned it.
EDITING = """
import sys
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.corpora import load_corpus
corpus = load_corpus("msrp-grouped")
session = AnnotationSession.open(corpus, sys.argv[1], author="killed")
for i in range(600):
    group = session.group_names_of(i)[0]
    session.move(i, str(int(group) + 1), reason=f"step {i}")
    print(i, flush=True)
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
@pytest.mark.parametrize("kill_after", [5, 40])
def test_sigkill_mid_series_loses_no_returned_edit(tmp_path, kill_after):
    journal = tmp_path / "edits.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-c", EDITING, str(journal)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    reported = []
    for line in process.stdout:
        reported.append(int(line))
        if len(reported) == kill_after:
            os.kill(process.pid, signal.SIGKILL)
            break
    process.wait(timeout=60)
    assert process.returncode == -signal.SIGKILL

    corpus = load_corpus("msrp-grouped")
    session = AnnotationSession.open(corpus, journal)
    edits = session.edits
    # Every edit the process saw returned is there, in order; at most the ones in flight
    # when it died come after.
    assert len(edits) >= len(reported)
    assert [edit.reason for edit in edits[: len(reported)]] == [f"step {i}" for i in reported]
    assert all(isinstance(edit, MoveSentence) for edit in edits)
    # Consistent: one group per sentence, every sentence still grouped, and each moved
    # sentence sits in its original group + 1.
    groups = session.corpus.groups
    labels = groups.labels(len(corpus))
    assert (labels >= 0).all()
    original = corpus.groups.labels(len(corpus))
    for i in range(len(edits)):
        assert int(groups.names[labels[i]]) == int(corpus.groups.names[original[i]]) + 1
    for i in range(len(edits), len(corpus)):
        assert groups.names[labels[i]] == corpus.groups.names[original[i]]
    # The journal takes new edits after the crash.
    survived = len(edits)
    session.move(700, "0")
    session.close()
    assert len(AnnotationSession.open(corpus, journal).edits) == survived + 1
