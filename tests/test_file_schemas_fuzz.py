"""Every file sentspace reads and writes itself (edit journals, workspaces, review
batches) is checked against its schema: real files, mutated (wrong types, keys missing
and extra, truncations, huge values, deep nesting), give each reader its result or the
format's error (an InputError: one line naming the file; exit 2 from the CLI), never
another exception.

The real files: a journal of the bundled grouped MSRP (moves, a split, a merge, review
marks, notes, undo, redo, a resolved conflict by two authors), one of the full SICK
(pair scores and labels), a saved workspace (an edit, a run, review lists, a result),
and the review batches `annotations batches` writes from it. Beside them, what names a
file or is typed: a workspace's journal path (a FIFO, a device, /proc/self/mem, a folder,
a name that names no file, one missing, a relative one), and filter expressions (real
ones mutated, and hostile ones: deep nesting, huge numbers, bytes that are not UTF-8),
each refused within seconds in one line or read."""

import json
import os
import shutil
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sentspace.app.analysis.filters import passing
from sentspace.app.annotations.agreement import agreement
from sentspace.app.annotations.history import History
from sentspace.app.annotations.journal import merge_journals, read_journal
from sentspace.app.annotations.session import AnnotationSession, decisions_of
from sentspace.app.base.errors import InputError
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus
from sentspace.app.workspace.batches import (
    INDEX,
    MANIFEST,
    batch_journals,
    export_batches,
    gather,
    split_batches,
)
from sentspace.app.workspace.codec import decode_state
from sentspace.app.workspace.format import load_workspace
from sentspace.app.workspace.paths import missing_journals
from sentspace.app.workspace.restore import restore_session
from tests.test_workspace_journals import within
from tests.test_workspace_schema import saved_workspace
from tests.workspace_files import manifest, manifest_text, rewrite

pytestmark = pytest.mark.filterwarnings("ignore:.*ignored a torn last line")

EXAMPLES = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)

#: Values put where another was: every JSON type, huge and odd ones.
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.just(2**80),
    st.just(-1),
    st.floats(),
    st.text(max_size=12),
    st.just("é" * 200_000),
    st.just([0] * 50_000),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
    st.just({"__array__": "<f4", "shape": [2], "bytes": "AAAA"}),
    st.just({"__dataclass__": "sentspace.app.analysis.projection.Projection", "fields": {}}),
    st.just({"__tuple__": "ab"}),
    st.just({"__items__": [[[1], 2]]}),
)
#: Stands for a node that becomes deep nesting in the text.
DEEP = "\u0000deep\u0000"


def nodes(tree, path=()):
    """Every (path, value) of a JSON tree, the root first."""
    yield path, tree
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from nodes(value, (*path, key))
    elif isinstance(tree, list):
        for number, value in enumerate(tree):
            yield from nodes(value, (*path, number))


def mutated(tree, draw):
    """``tree`` (parsed JSON) with one node replaced, removed, given an extra key or
    nested deep, chosen by ``draw``; the JSON text."""
    tree = json.loads(json.dumps(tree))
    path, node = draw(st.sampled_from(list(nodes(tree))), label="node")
    kind = draw(st.sampled_from(["replace", "remove", "extra", "deep"]), label="mutation")
    if kind == "extra" and isinstance(node, dict):
        node[draw(st.text(min_size=1, max_size=8), label="key")] = draw(VALUES)
    elif kind == "extra" and isinstance(node, list):
        node.append(draw(VALUES))
    elif not path:  # the root itself replaced
        tree = DEEP if kind == "deep" else draw(VALUES, label="value")
    else:
        parent = tree
        for key in path[:-1]:
            parent = parent[key]
        if kind == "remove":
            del parent[path[-1]]
        else:
            parent[path[-1]] = DEEP if kind == "deep" else draw(VALUES, label="value")
    depth = draw(st.sampled_from([70, 5000, 200_000]), label="depth")
    return json.dumps(tree).replace(json.dumps(DEEP), "[" * depth + "]" * depth)


def damage(text, draw):
    """``text`` cut short, or with one JSON line's node mutated."""
    if draw(st.booleans(), label="truncate"):
        return text[: draw(st.integers(0, max(len(text) - 1, 0)), label="at")]
    return mutated(json.loads(text), draw)


def damage_lines(text, draw):
    """A journal (JSON lines) with one line mutated, cut short, or a junk line added."""
    lines = text.splitlines()
    kind = draw(st.sampled_from(["line", "truncate", "junk"]), label="journal damage")
    if kind == "truncate":
        return text[: draw(st.integers(0, len(text) - 1), label="at")]
    number = draw(st.integers(1 if kind == "line" else 0, len(lines) - 1), label="line")
    if kind == "junk":
        lines.insert(number, json.dumps(draw(VALUES, label="junk")))
    else:
        lines[number] = mutated(json.loads(lines[number]), draw)
    return "\n".join(lines) + "\n"


def only_format_errors(call, *args):
    """``call(*args)``: its result, or None where it raised the format's error (an
    InputError naming the file, on one line). Any other exception fails the test."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a torn last line is said in a warning
            return call(*args)
    except InputError as error:
        assert str(error) and "\n" not in str(error).strip(), repr(error)
        return None


def exit_code(argv, capsys):
    """``sentspace ARGV``: 0, 1 (a run that differs) or 2 (an InputError, said in one
    line on stderr); anything else (a traceback) fails the test."""
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    error = capsys.readouterr().err
    assert code in (0, 1, 2), (code, error)
    if code == 2:
        assert error.startswith("sentspace: error: ") and error.count("\n") == 1, error
    return code


# --- the real files ---------------------------------------------------------------


@pytest.fixture(scope="module")
def msrp():
    return load_corpus("msrp-grouped")


@pytest.fixture(scope="module")
def msrp_journal(msrp, tmp_path_factory):
    path = tmp_path_factory.mktemp("msrp") / "edits.jsonl"
    ann = AnnotationSession.open(msrp, path, author="ann")
    ben = AnnotationSession.open(msrp, path, author="ben")
    names = msrp.groups.names
    ann.move(0, names[3], reason="same event")
    ann.split(names[1], [int(msrp.groups.members(1)[0])], reason="another claim")
    ann.merge([names[5], names[6]], reason="one story")
    ann.mark_reviewed(f"sentence:{msrp.ids[10]}")
    ann.note(f"group:{names[2]}", "check the dates")
    ann.undo()
    ann.redo()
    ben.move(0, names[4], source=names[0], reason="not seen ann's move")
    [conflict] = ben.conflicts
    ben.resolve(conflict, decisions_of(conflict)[-1], "ben checked the source")
    ann.close()
    ben.close()
    return path


@pytest.fixture(scope="module")
def sick_journal(sick, tmp_path_factory):
    path = tmp_path_factory.mktemp("sick") / "edits.jsonl"
    session = AnnotationSession.open(sick, path, author="ann")
    for pair, (score, label) in enumerate([(4.5, 2), (1.0, 0), (3.2, 1)]):
        session.edit_pair(pair, score=score, label=label, reason="rejudged")
    session.mark_reviewed("pair:5")
    session.note("pair:6", "ambiguous")
    session.undo()
    session.close()
    return path


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return saved_workspace(tmp_path_factory.mktemp("workspace"))


@pytest.fixture(scope="module")
def batches(workspace, msrp, tmp_path_factory):
    entry = load_workspace(workspace).corpora[0]
    history = History(msrp)
    records = read_journal(entry.journal, msrp.fingerprint)[1]
    history.feed(records)
    lists = decode_state(entry.state["review_lists"], history.corpus)
    folder = tmp_path_factory.mktemp("batches") / "out"
    export_batches(
        "msrp-grouped", msrp, lists, split_batches(lists, 2, copies=2), folder, records=records
    )
    return folder


def test_the_real_files_read_cleanly(msrp, sick, msrp_journal, sick_journal, workspace, batches):
    assert len(read_journal(msrp_journal, msrp.fingerprint)[1]) == 9
    history = History(msrp)
    history.feed(read_journal(msrp_journal)[1])
    assert not history.conflicts and len(history.edits) == 6
    assert len(read_journal(sick_journal, sick.fingerprint)[1]) == 6
    restored = run_job(restore_session(load_workspace(workspace), workspace))
    assert restored.current.review_lists and restored.current.runs
    restored.close_all()
    assert len(batch_journals([batches])) == 2


# --- journals -----------------------------------------------------------------------


def read_every_way(corpus, path, good, tmp_path, capsys, spec):
    """Every reader of a journal: read alone and merged with a good one, replayed,
    measured for agreement, opened as the window opens it, and by the CLI."""
    only_format_errors(read_journal, path, corpus.fingerprint)
    merged = only_format_errors(merge_journals, [path, good], corpus.fingerprint)
    if merged is not None:
        history = History(corpus)
        history.feed(merged[1])
        assert history.corpus is not None
        for conflict in history.conflicts:
            conflict.describe()
        agreement(corpus, merged[1])
    copy = tmp_path / "opened.jsonl"
    shutil.copy(path, copy)
    session = only_format_errors(AnnotationSession.open, corpus, copy)
    if session is not None:
        assert session.corpus is not None and session.conflicts is not None
        session.close()
    for command in (
        ["merge", str(path), str(good), "--out", str(tmp_path / "m.jsonl")],
        ["agreement", str(path), str(good)],
    ):
        exit_code(["annotations", *command, "--corpus", spec], capsys)


@pytest.mark.parametrize("which", ["msrp", "sick"])
@EXAMPLES
@given(data=st.data())
def test_mutated_journals_give_the_format_error_or_a_result(
    which, request, shared_data, tmp_path, capsys, data
):
    corpus = request.getfixturevalue(which)
    good = request.getfixturevalue(f"{which}_journal")
    spec = "msrp-grouped" if which == "msrp" else str(shared_data / "sick")
    path = tmp_path / "damaged.jsonl"
    path.write_text(damage_lines(good.read_text(), data.draw))
    read_every_way(corpus, path, good, tmp_path, capsys, spec)


# --- workspaces ---------------------------------------------------------------------


@settings(EXAMPLES, max_examples=30)
@given(data=st.data())
def test_mutated_workspaces_give_the_format_error_or_a_session(workspace, tmp_path, capsys, data):
    path = tmp_path / "damaged.sentspace"
    shutil.copyfile(workspace, path)
    rewrite(path, damage(manifest_text(workspace), data.draw))
    opened = only_format_errors(load_workspace, path)
    if opened is not None:
        restored = only_format_errors(run_job, restore_session(opened, path))
        if restored is not None:
            restored.close_all()
    only_format_errors(batch_journals, [path])
    out = tmp_path / "batches"
    shutil.rmtree(out, ignore_errors=True)
    exit_code(["annotations", "batches", str(path), "--people", "2", "--out", str(out)], capsys)


@settings(EXAMPLES, max_examples=6)
@given(data=st.data())
def test_sentspace_run_on_a_mutated_workspace_exits_0_1_or_2(workspace, tmp_path, capsys, data):
    # The evaluation entries and encoders are what `run` reads; mutate those.
    saved = manifest(workspace)
    part = data.draw(st.sampled_from(["evaluations", "encoders"]), label="part")
    damaged_part, saved[part] = mutated(saved[part], data.draw), DEEP
    path = tmp_path / "damaged.sentspace"
    shutil.copyfile(workspace, path)
    rewrite(path, json.dumps(saved).replace(json.dumps(DEEP), damaged_part))
    exit_code(["run", str(path)], capsys)


# --- review batches -----------------------------------------------------------------


@EXAMPLES
@given(data=st.data())
def test_mutated_batch_manifests_give_the_format_error_or_journals(
    batches, msrp, tmp_path, capsys, data
):
    folder = tmp_path / "batches"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(batches, folder)
    manifests = sorted([folder / INDEX, *folder.glob(f"*/{MANIFEST}")])
    target = data.draw(st.sampled_from(manifests), label="manifest")
    target.write_text(damage(target.read_text(), data.draw))
    for paths in ([folder], [target.parent]):
        only_format_errors(batch_journals, paths)
        only_format_errors(gather, paths, msrp.fingerprint)
    exit_code(["annotations", "merge", str(folder), "--out", str(tmp_path / "team.jsonl")], capsys)


def test_a_batch_manifest_of_the_wrong_shape_is_named(batches, tmp_path, capsys):
    folder = tmp_path / "batches"
    shutil.copytree(batches, folder)
    manifest = next(folder.glob(f"*/{MANIFEST}"))
    data = json.loads(manifest.read_text())
    for change, problem in (
        ({"journal": 3}, "journal: should be a string, found 3"),
        ({"journal": "../../etc/passwd"}, "is not a name in this folder"),
        ({"items": "all"}, "items: should be an object"),
        ({"version": 9}, "version: 9 is newer than this version reads"),
    ):
        manifest.write_text(json.dumps({**data, **change}))
        with pytest.raises(InputError, match=problem) as caught:
            batch_journals([manifest.parent])
        assert str(caught.value).startswith(f"{manifest}: ")
    index = json.loads((folder / INDEX).read_text())
    (folder / INDEX).write_text(json.dumps({**index, "batches": "two"}))
    assert main(["annotations", "merge", str(folder), "--out", str(tmp_path / "t.jsonl")]) == 2
    assert "batches.json: batches: should be a list, found 'two'" in capsys.readouterr().err


# --- a workspace's journal path ---------------------------------------------------------


#: Journal paths a workspace may name: "{here}" is a fresh folder beside it, "{fifo}" a
#: named pipe there.
JOURNAL_PATHS = st.one_of(
    st.sampled_from(
        [
            "{fifo}",
            "{here}",
            "{here}/gone/deeper/edits.jsonl",
            "{here}/../{here_name}/edits.jsonl",
            "/dev/null",
            "/dev/zero",
            "/dev/full",
            "/proc/self/mem",
            "/proc/self/status",
            "/etc/sentspace-fuzz/edits.jsonl",
            "/",
            "",
            " ",
            ".",
            "..",
            "edits.jsonl",
            "a\x00b.jsonl",
            "x" * 5000,
            "{here}/" + "y" * 300 + "/edits.jsonl",
            "a\nb.jsonl",
            "\udcff.jsonl",
        ]
    ),
    st.text(min_size=0, max_size=30),
)


@settings(EXAMPLES, max_examples=30)
@given(data=st.data())
def test_a_workspace_naming_any_journal_path_opens_or_is_refused_in_a_line(
    workspace, tmp_path, capsys, monkeypatch, data
):
    here = tmp_path / f"w{len(os.listdir(tmp_path))}"
    here.mkdir()
    working = here / "working folder"
    working.mkdir()
    monkeypatch.chdir(working)  # a relative journal is read beside the workspace
    os.mkfifo(here / "fifo")
    journal = (
        data.draw(JOURNAL_PATHS, label="journal")
        .replace("{fifo}", str(here / "fifo"))
        .replace("{here_name}", here.name)
        .replace("{here}", str(here))
    )
    saved = manifest(workspace)
    saved["corpora"][0]["journal"] = journal
    path = here / "study.sentspace"
    shutil.copyfile(workspace, path)
    rewrite(path, saved)
    with within(60):
        opened = only_format_errors(load_workspace, path)
        if opened is not None:
            only_format_errors(missing_journals, opened, path)
            restored = only_format_errors(run_job, restore_session(opened, path))
            if restored is not None:
                restored.close_all()
        only_format_errors(batch_journals, [path])
        exit_code(["annotations", "merge", str(path), "--out", str(here / "m.jsonl")], capsys)
    # Nothing made where the path pointed: no lock beside a device, no folder.
    assert not os.path.lexists("/dev/null.lock") and not os.path.exists("/etc/sentspace-fuzz")
    assert not (here / "gone").exists() and os.listdir(working) == []


# --- filter expressions -------------------------------------------------------------

#: Expressions the window, `eval --where` and `sentspace.where` read on grouped MSRP.
REAL_EXPRESSIONS = [
    "words > 20",
    "words > 20 and group_size >= 4",
    "not 5 <= words < 10 or paraphrase_group in ['1', '2']",
    "(words > 3) & (group_size < 3)",
    "LENGTH > 12 AND NOT words == 3",
]
#: Pieces an expression is made of, and pieces that broke readers.
PIECES = st.sampled_from(
    [
        "words",
        "group_size",
        "paraphrase_group",
        " and ",
        " or ",
        "not ",
        " in ",
        "==",
        ">",
        "<=",
        "-",
        "~",
        "&",
        "(",
        ")",
        "[",
        "]",
        ",",
        "'1'",
        '"',
        "3",
        "1" + "0" * 400,
        "9" * 5000,
        "1e999",
        "0x" + "f" * 300,
        "1j",
        "\udcff",
        "\ud800",
        "\x00",
        "\n",
        "\\",
        "#",
        "if 1 else ",
        "[1]",
        "()",
        ".real",
        "lambda: ",
    ]
)


@st.composite
def expressions(draw):
    """A real expression mutated, or pieces, each repeated up to thousands of times."""
    if draw(st.booleans(), label="from a real one"):
        text = draw(st.sampled_from(REAL_EXPRESSIONS), label="real")
        at = draw(st.integers(0, len(text)), label="at")
        cut = draw(st.integers(0, 3), label="cut")
        return text[:at] + draw(PIECES, label="piece") + text[at + cut :]
    parts = draw(
        st.lists(st.tuples(PIECES, st.sampled_from([1, 1, 2, 120, 5000])), min_size=1, max_size=8),
        label="pieces",
    )
    return "".join(piece * times for piece, times in parts)


@settings(EXAMPLES, max_examples=80)
@given(source=st.one_of(expressions(), st.text(max_size=40)))
def test_any_expression_gives_a_mask_or_one_line_naming_its_column(msrp, capsys, source):
    with within(60):
        mask = only_format_errors(passing, msrp, source)
        if mask is not None:
            assert mask.shape == (len(msrp),) and mask.dtype == bool
            return
        # The CLI stops on it before any work: exit 2, one line.
        argv = ["eval", "ranking", "--corpus", "msrp-grouped", "--encoder", "bow"]
        assert exit_code([*argv, f"--where={source}"], capsys) == 2
