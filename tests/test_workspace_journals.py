"""A workspace's edit journal is opened only where it can be read, and made only where
the user agreed (issue 42, items 16 and 17): a journal that is a FIFO, a device,
/proc/self/mem, a folder, or a name that names no file is refused within seconds with
one line naming it and the problem (exit 2 from the CLI), nothing made beside it; a
missing one is refused with how to start another, never created wherever its path
points; a relative journal path is read in the workspace's folder, not the working
folder."""

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sentspace.app.annotations.edits import EditError
from sentspace.app.annotations.journal import read_journal
from sentspace.app.annotations.journal_files import JournalMissing, check_journal
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus
from sentspace.app.state.session import Session
from sentspace.app.workspace.format import load_workspace, save_workspace, verify
from sentspace.app.workspace.paths import missing_journals, with_new_journals
from sentspace.app.workspace.restore import load_workspace_corpus, restore_session
from sentspace.app.workspace.snapshot import workspace_of
from tests.workspace_files import manifest, rewrite

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def within(seconds):
    """Fail, rather than hang, where the body takes longer than ``seconds``."""

    def late(*_):
        raise TimeoutError(f"still waiting after {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def corpus():
    return load_corpus("msrp-grouped")


@pytest.fixture(scope="module")
def saved(corpus, tmp_path_factory):
    """A workspace of the bundled grouped MSRP with one edit in its journal: its JSON."""
    folder = tmp_path_factory.mktemp("saved")
    session = Session()
    annotations = AnnotationSession.open(corpus, folder / "msrp.edits.jsonl", author="ann")
    session.open("msrp-grouped", corpus, annotations)
    annotations.move(5, corpus.groups.names[7], reason="belongs with 7")
    session.corpus_edited("msrp-grouped")
    path = save_workspace(workspace_of(session), folder / "study", remember=False)
    session.close_all()
    return manifest(path), folder / "msrp.edits.jsonl", path


def workspace_naming(saved, folder, journal):
    """A copy of the saved workspace in ``folder`` whose corpus names ``journal``."""
    data = json.loads(json.dumps(saved[0]))
    data["corpora"][0]["journal"] = journal
    data["relative"] = {}
    path = folder / "study.sentspace"
    shutil.copyfile(saved[2], path)
    rewrite(path, data)
    return path


def restored(path):
    session = run_job(restore_session(load_workspace(path), path))
    session.close_all()
    return session


FIFO, LONG = "a FIFO", "x" * 5000
#: Each journal a workspace may name that is no journal file, and what is said of it.
NOT_FILES = {
    FIFO: "is a FIFO (a named pipe), not a journal file",
    "/dev/null": "/dev/null: is a device, not a journal file",
    "/proc/self/mem": "/proc/self/mem: cannot read the journal: Input/output error",
    "": "the journal's name '' names no file",
    ".": "is a folder, not a journal file",
    "/tmp": "/tmp: is a folder, not a journal file",
    "edits\x00.jsonl": (
        "edits\\x00.jsonl: the journal's name holds a NUL byte, which no file name does"
    ),
    LONG: "x…" + "x" * 60 + ": cannot read the journal: File name too long",  # cut short
}


@pytest.mark.parametrize(
    "journal", list(NOT_FILES), ids=["fifo", "null", "mem", "empty", "dot", "tmp", "nul", "long"]
)
def test_a_journal_that_is_no_file_is_refused_within_seconds_by_every_opener(
    saved, tmp_path, capsys, journal
):
    if journal == FIFO:
        journal = str(tmp_path / "edits.jsonl")
        os.mkfifo(journal)
    path = workspace_naming(saved, tmp_path, journal)
    problem = NOT_FILES.get(journal, NOT_FILES[FIFO])
    before = sorted(os.listdir(tmp_path))
    with within(20):
        # The window's check before it restores, and the restore itself.
        with pytest.raises(EditError) as caught:
            missing_journals(load_workspace(path), path)
        assert problem in str(caught.value) and "\n" not in str(caught.value)
        assert len(str(caught.value)) < 300
        with pytest.raises(EditError, match=re.escape(problem.split(": ")[-1])):
            restored(path)
        workspace = load_workspace(path)
        with pytest.raises(EditError, match=re.escape(problem.split(": ")[-1])):
            load_workspace_corpus(workspace, 0, path, corrected=True)
        assert [change.problem for change in verify(workspace)][-1] in problem
        for argv in (
            ["annotations", "merge", str(path), "--out", str(tmp_path / "team.jsonl")],
            ["eval", "ranking", "--corpus", "msrp-grouped", "--journal", str(path)],
        ):
            assert main(argv) == 2
            error = capsys.readouterr().err
            assert error.startswith("sentspace: error: ") and error.count("\n") == 1
            assert problem in error
    # Nothing made beside it: no lock file, no folder, no journal.
    assert sorted(os.listdir(tmp_path)) == before
    assert not os.path.exists("/dev/null.lock") and not os.path.exists("/proc/self/mem.lock")


def test_a_journal_file_given_to_the_cli_that_is_a_fifo_is_refused(corpus, tmp_path):
    fifo = tmp_path / "edits.jsonl"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "sentspace", "annotations", "agreement", str(fifo)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert (
        done.stderr == f"sentspace: error: {fifo}: is a FIFO (a named pipe), not a journal file\n"
    )
    with pytest.raises(EditError, match="is a FIFO"), within(20):
        AnnotationSession.open(corpus, fifo)
    assert sorted(os.listdir(tmp_path)) == ["edits.jsonl"]


def test_a_missing_journal_is_refused_with_how_to_start_one_and_nothing_is_made(
    saved, tmp_path, capsys
):
    gone = tmp_path / "share" / "team" / "edits.jsonl"  # under folders that are not there
    path = workspace_naming(saved, tmp_path, str(gone))
    how = "open the workspace in the window (File > Open workspace), which offers to start"
    with pytest.raises(JournalMissing) as caught:
        restored(path)
    assert str(caught.value) == (
        f"{gone}: missing: no journal file at this path (the edit journal of corpus "
        f"msrp-grouped in study.sentspace); {how} a new journal beside it"
    )
    for argv in (
        ["eval", "ranking", "--corpus", "msrp-grouped", "--journal", str(path)],
        ["annotations", "merge", str(path), "--out", str(tmp_path / "team.jsonl")],
    ):
        assert main(argv) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and how in error and str(gone) in error
    assert sorted(os.listdir(tmp_path)) == ["study.sentspace"]  # no folder, no journal
    assert missing_journals(load_workspace(path), path) == [0]


def test_a_journal_the_user_agreed_to_is_started_beside_the_workspace_only(saved, corpus, tmp_path):
    gone = tmp_path / "share" / "edits.jsonl"
    path = workspace_naming(saved, tmp_path, str(gone))
    workspace = load_workspace(path)
    chosen = with_new_journals(workspace, missing_journals(workspace, path), path)
    journal = Path(chosen.corpora[0].journal)
    assert journal == tmp_path / f"study.{corpus.fingerprint}.edits.jsonl"
    assert read_journal(journal, corpus.fingerprint)[1] == []  # empty, of this corpus
    assert not gone.parent.exists()
    session = run_job(restore_session(chosen, path))
    session.current.annotations.move(1, corpus.groups.names[2])
    session.close_all()
    # Asked again (the workspace not saved since): the journal started then is used.
    again = with_new_journals(workspace, [0], path)
    assert again.corpora[0].journal == str(journal)
    assert len(read_journal(journal)[1]) == 1


def test_a_relative_journal_is_read_in_the_workspace_folder_from_any_working_folder(
    saved, tmp_path, monkeypatch
):
    folder = tmp_path / "study"
    folder.mkdir()
    journal = folder / "msrp.edits.jsonl"
    journal.write_bytes(saved[1].read_bytes())
    path = workspace_naming(saved, folder, "msrp.edits.jsonl")
    opened = []
    for working in (tmp_path, folder, Path("/")):
        monkeypatch.chdir(working)
        entry = load_workspace(path).corpora[0]
        assert entry.journal == str(journal)
        session = run_job(restore_session(load_workspace(path), path))
        opened.append(
            (session.current.annotations.journal.path, len(session.current.annotations.edits))
        )
        session.close_all()
    assert opened == [(journal, 1)] * 3
    assert sorted(os.listdir(tmp_path)) == ["study"]  # no journal in the working folders
    assert sorted(os.listdir(folder)) == [
        "msrp.edits.jsonl",
        "msrp.edits.jsonl.lock",
        "study.sentspace",
    ]


def test_the_checks_take_moments(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    started = time.perf_counter()
    for name in (tmp_path / "fifo", "/dev/zero", "/proc/self/mem", tmp_path / "none"):
        with pytest.raises(EditError):
            check_journal(name)
    assert time.perf_counter() - started < 1
