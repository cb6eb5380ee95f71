"""The filter every view follows (app/analysis/filters.py): ranges, categories, the typed
expression and its errors, cross-filter counts, and the session's filter saved with a
workspace."""

import json

import numpy as np
import pytest

from sentspace.app.analysis.columns import sentence_columns
from sentspace.app.analysis.filters import (
    OTHER,
    Chosen,
    Filter,
    FilterTable,
    Kept,
    Range,
    passing,
    table_of,
)
from sentspace.app.base.errors import InputError
from sentspace.app.workspace.snapshot import workspace_of


@pytest.fixture(scope="module")
def costra(shared_data):
    from sentspace.app.corpora import load_corpus

    return load_corpus(shared_data / "costra")


@pytest.fixture(scope="module")
def table(sick):
    return FilterTable(sentence_columns(sick))


def words(corpus):
    return np.array([len(t.split()) for t in corpus.texts])


def ends_of(pairs, keep):
    """The sentences of the pairs ``keep`` keeps."""
    return np.concatenate([pairs.first[keep], pairs.second[keep]])


def in_split(corpus, *names):
    """Whether each sentence is in a pair of one of the splits ``names``, brute force
    from the pairs (a pair column keeps the sentences of the pairs it keeps)."""
    pairs = corpus.pairs
    found = np.zeros(len(corpus), dtype=bool)
    for first, second, split in zip(pairs.first, pairs.second, pairs.split):
        if split in names:
            found[first] = found[second] = True
    return found


def test_range_category_and_expression_pass_what_they_say(sick, table):
    length = words(sick)
    assert len(sick) == 6077
    chosen = (
        Filter()
        .with_condition(Range("Words", 10, 15))
        .with_condition(Chosen("Split", ("test", "train")))
    )
    evaluated = table.evaluate(chosen)
    expected = (length >= 10) & (length <= 15) & in_split(sick, "test", "train")
    assert np.array_equal(evaluated.mask, expected)
    assert evaluated.count == 2316
    # The example, with the SQL words too; the same rows either way.
    typed = table.expression_mask('length > 12 and split == "test"')
    assert np.array_equal(typed, (length > 12) & in_split(sick, "test"))
    assert np.array_equal(table.expression_mask('LENGTH > 12 AND split == "test"'), typed)
    assert np.array_equal(
        table.expression_mask('not 5 <= words < 9 or split in ["trial"]'),
        ~((length >= 5) & (length < 9)) | in_split(sick, "trial"),
    )
    assert np.array_equal(
        table.expression_mask("(words > 10) & (gold_score >= 4.5)"),
        (length > 10) & np.isin(np.arange(len(sick)), ends_of(sick.pairs, sick.pairs.score >= 4.5)),
    )
    assert np.array_equal(
        table.expression_mask("score >= 4.5"),
        table.expression_mask("gold_score_mean_of_its_pairs >= 4.5"),
    )
    # A brush replacing another on the same column keeps one condition for it.
    assert chosen.with_condition(Range("Words", 3, 4)).chips()[-1] == ("Words", "Words 3–4")


def test_other_bar_chooses_every_category_beyond_the_top(sick):
    from sentspace.app.analysis.columns import Categories

    # SICK's sentence ids as categories: thousands, so most are in "other".
    ids = Categories.of_values("Id", [i[:3] for i in sick.ids])
    table = FilterTable([ids])
    top = set(table.charts["Id"].labels[:10])
    mask = table.passes(Chosen("Id", (OTHER,)))
    assert np.array_equal(mask, ~np.isin([i[:3] for i in sick.ids], list(top)))
    assert 0 < mask.sum() < len(sick)


@pytest.mark.parametrize(
    "source, problem",
    [
        ("length >", "column 9: it ends too early"),
        ("lenght > 3", "column 1 ('lenght'): no column is called lenght; the names are"),
        ('split > "a"', "column 9 ('\"a\"'): Split has categories: compare it with =="),
        ('split == "tset"', "'tset' is not a value of Split"),
        ('__import__("os").system("x")', "a function call is not allowed"),
        ("words", "this is a value, not a condition"),
        ("words = 3", "compare with =="),
        ("words + 1 > 2", "arithmetic is not allowed"),
        ('words > "ten"', "Words holds numbers; 'ten' is text"),
        ("words.real > 3", "an attribute is not allowed"),
    ],
)
def test_a_bad_expression_says_where_and_why(table, source, problem):
    with pytest.raises(InputError, match="filter expression") as raised:
        table.expression_mask(source)
    assert problem in str(raised.value)


def test_cross_filter_counts_are_each_chart_under_the_other_conditions(sick, table):
    chosen = (
        Filter(expression="gold_score > 3")
        .with_condition(Range("Words", 8, 12))
        .with_condition(Chosen("Pair label", ("NEUTRAL", "ENTAILMENT")))
    )
    evaluated = table.evaluate(chosen)
    length, pairs = words(sick), sick.pairs
    labelled = np.isin([pairs.label_text(k) for k in pairs.label], ["NEUTRAL", "ENTAILMENT"])
    short = (length >= 8) & (length <= 12)
    # Pairs by their own label and score, and both sentences' words; sentences by
    # theirs, and by being in a pair of such a label, and of such a score.
    of_pairs = {
        "Words": short[pairs.first] & short[pairs.second],
        "Pair label": labelled,
        "": pairs.score > 3,
    }
    of_sentences = {
        "Words": short,
        "Pair label": np.isin(np.arange(len(sick)), ends_of(pairs, labelled)),
        "": np.isin(np.arange(len(sick)), ends_of(pairs, pairs.score > 3)),
    }
    assert np.array_equal(evaluated.pair_mask, np.logical_and.reduce(list(of_pairs.values())))
    for title, chart in table.charts.items():
        conditions = of_pairs if chart.of_pairs else of_sentences
        others = np.ones(len(chart.slot), dtype=bool)
        for key, mask in conditions.items():
            if key != title:
                others &= mask
        brute = np.zeros(len(chart.labels), dtype=int)
        for row in np.flatnonzero(others):
            brute[chart.slot[row]] += 1
        assert np.array_equal(table.counts(evaluated, title), brute), title
    # The pair charts count pairs: SICK's 9,927, not its sentences.
    assert table.totals("Pair label").sum() == len(pairs) == 9927
    assert table.counts(evaluated, "Words").sum() > evaluated.count
    assert table.totals("Words").sum() == len(sick)


def test_a_brush_recounts_only_the_rows_it_moved_across(sick):
    """Counts kept from the last evaluation plus the rows that changed equal counting
    afresh, through a brush dragged, a bar chosen, the expression and conditions
    removed; a chart whose counts did not change gets the same array back (not redrawn)."""
    table, fresh = FilterTable(sentence_columns(sick)), FilterTable(sentence_columns(sick))
    steps = [Filter().with_condition(Range("Words", 5, 8))]
    for high in (9, 10, 12, 11):
        steps.append(steps[-1].with_condition(Range("Words", 5, high)))
    steps.append(steps[-1].with_condition(Chosen("Pair label", ("NEUTRAL",))))
    steps.append(steps[-1].with_expression("gold_score > 3"))
    steps.append(steps[-1].with_condition(Range("Words", 6, 11)))
    steps.append(steps[-1].without("Words"))
    steps.append(Filter())
    before = {title: table.counts(table.evaluate(Filter()), title) for title in table.charts}
    previous = Filter()
    for chosen in steps:
        evaluated = table.evaluate(chosen)
        for title in table.charts:
            counts = table.counts(evaluated, title)
            fresh._counted.clear()
            assert np.array_equal(counts, fresh.counts(fresh.evaluate(chosen), title)), (
                chosen,
                title,
            )
            if title == "Words" and chosen.without(title) == previous.without(title):
                # Its own brush moving leaves its bars as they were.
                assert counts is before[title]
            before[title] = counts
        previous = chosen


def test_the_session_filter_is_an_event_and_comes_back_with_the_workspace(
    sick, shared_data, tmp_path
):
    from sentspace.app.base.jobs import run_job
    from sentspace.app.state.session import Session
    from sentspace.app.workspace.format import load_workspace, save_workspace
    from sentspace.app.workspace.model import WorkspaceError
    from sentspace.app.workspace.restore import restore_session

    session = Session()
    spec = str(shared_data / "sick")
    state = session.open(spec, sick, None)
    heard = []
    session.filtered.connect(lambda changed: heard.append(changed.filter))
    chosen = Filter(expression='split == "trial"').with_condition(Range("Words", 3, 9))
    session.set_filter(spec, chosen)
    session.set_filter(spec, chosen)  # the same: nobody is told again
    assert heard == [chosen] and state.filter == chosen
    assert session.selection.indices.size == 0  # the selection is its own
    expected = (words(sick) <= 9) & in_split(sick, "trial")
    assert np.array_equal(table_of(state).evaluate(chosen).mask, expected)
    assert expected.sum() == 505

    path = tmp_path / "w.sentspace"
    workspace = workspace_of(session)
    saved = workspace.corpora[0].state
    save_workspace(workspace, path)
    restored = run_job(restore_session(load_workspace(path), path))
    assert restored.current.filter == chosen
    # A workspace from before filters opens unfiltered; a malformed one names the key.
    del saved["filter"]
    assert run_job(restore_session(workspace, path)).current.filter == Filter()
    saved["filter"] = {"ranges": [["Words", "many"]]}
    with pytest.raises(WorkspaceError, match=r"corpora\[0\]\.state\.filter: not a filter"):
        run_job(restore_session(workspace, path))


def test_edited_and_reviewed_sentences_are_a_column(shared_data, tmp_path):
    from sentspace.app.annotations.session import AnnotationSession
    from sentspace.app.corpora import load_corpus

    corpus = load_corpus(shared_data / "sick" / "SICK_trial.txt")
    annotations = AnnotationSession.open(corpus, tmp_path / "journal.jsonl")
    try:
        annotations.edit_pair(0, score=1.0, reason="too high")
        annotations.mark_reviewed(f"sentence:{corpus.ids[5]}")
        column = next(
            c
            for c in sentence_columns(annotations.corpus, edits=annotations.edits)
            if c.title == "Edited or reviewed"
        )
    finally:
        annotations.close()
    edited = {int(corpus.pairs.first[0]), int(corpus.pairs.second[0])}
    assert set(np.flatnonzero(column.codes == 0)) == edited
    assert np.flatnonzero(column.codes == 1).tolist() == ([] if 5 in edited else [5])


def test_lists_and_rarely_repeated_values_are_text_not_categories(costra):
    """Costra's r1-r4 (ids of related sentences, tuples) are text shown as "840" or
    "791, 792", never 1,890 categories like "('840',)"; its type and seed group stay
    what they were; a column of values that rarely repeat among the sentences having
    one is text, one that repeats is categories."""
    from sentspace.app.analysis.columns import Categories, Numbers, Texts, metadata_columns
    from sentspace.app.corpora.model import Corpus

    columns = {column.title: column for column in metadata_columns(costra)}
    for name in ("R1", "R2", "R3", "R4"):
        assert isinstance(columns[name], Texts), name
    r3 = costra.metadata["r3"]
    row = next(k for k, v in enumerate(r3) if len(v) == 1)
    assert columns["R3"].values[row] == r3[row][0] and columns["R3"].values[0] == ""
    assert isinstance(columns["Type"], Categories) and len(columns["Type"].names) == 14
    assert isinstance(columns["Seed group"], Numbers)
    assert set(FilterTable(sentence_columns(costra)).charts) >= {"Type", "Words"}
    assert not set(FilterTable(sentence_columns(costra)).charts) & {"R1", "R2", "R3", "R4"}

    # 4 sentences with a value, 3 values: text; 4 with 2 values: categories.
    rare = ("", "", "", "", "a", "b", "c", "a")
    often = ("", "", "", "", "a", "b", "b", "a")
    corpus = Corpus(
        "c", tuple("abcdefgh"), tuple("12345678"), metadata={"rare": rare, "often": often}
    )
    kinds = [type(column) for column in metadata_columns(corpus)]
    assert kinds == [Texts, Categories]


def test_a_chart_has_a_bar_per_category_the_palette_has_colours_for(costra):
    """Costra's 14 transformation types are 14 bars and no "other" (ten and "(other 4)"
    before), as its colouring names them; 274 groups are ten bars and "(other 264)"."""
    from sentspace.app.corpora import load_corpus

    table = FilterTable(sentence_columns(costra))
    chart = table.charts["Type"]
    types = chart.column.names
    assert len(types) == 14 and chart.labels[:14] == types and chart.other_slot == 14
    assert chart.labels[14] == "" and chart.informative  # no "other" bar
    counts = np.bincount(chart.slot, minlength=len(chart.labels))
    assert np.array_equal(counts[:14], np.bincount(chart.column.codes, minlength=14))
    assert not table.passes(Chosen("Type", (OTHER,))).any()
    assert table.passes(Chosen("Type", (types[13],))).sum() == counts[13] > 0

    grouped = FilterTable(sentence_columns(load_corpus("msrp-grouped")))
    groups = grouped.charts["Paraphrase group"]
    assert len(groups.column.names) == 274 and groups.other_slot == 10
    assert groups.labels[10] == "(other 264)"
    other = grouped.passes(Chosen("Paraphrase group", (OTHER,)))
    assert other.sum() == np.count_nonzero(groups.slot == 10) > 0


def test_a_kept_selection_filters_by_id_and_is_saved(sick, tmp_path):
    from sentspace.app.analysis.filters import Kept, export_rows

    table = FilterTable(sentence_columns(sick), sick.ids)
    ids = (sick.ids[3], sick.ids[40])
    chosen = Filter().with_condition(Kept(ids)).with_condition(Range("Words", 1, 100))
    assert np.flatnonzero(table.evaluate(chosen).mask).tolist() == [3, 40]
    assert set(Filter.from_dict(chosen.to_dict()).conditions) == set(chosen.conditions)
    assert chosen.chips()[0] == ("Selection", "kept selection: 2 sentences")
    with pytest.raises(InputError, match=r"\*.csv or \*.jsonl"):
        export_rows(tmp_path / "rows.txt", sick, sentence_columns(sick), np.array([3]))


def test_charts_that_say_nothing_are_not_drawn_but_still_filter():
    """On the 145,000 captions the image chart showed ten images of 5 sentences beside
    "(other 28,990)": the panel leaves it out; an expression still reads it. The
    corpus's groups and their sizes are drawn however many (issue 42 item 12)."""
    from sentspace.app.corpora import load_corpus

    captions = load_corpus("multi30k-captions")
    table = FilterTable(sentence_columns(captions), captions.ids)
    drawn = [title for title, chart in table.charts.items() if chart.informative]
    assert {"Words", "Paraphrase group", "Group size"} <= set(drawn)
    assert "Image" in table.charts and "Image" not in drawn
    chosen = Filter(expression='image == "1000092795.jpg"')
    assert table.evaluate(chosen).count == 5


def test_a_filter_written_as_an_expression_passes_the_same_sentences(sick, table):
    """What ``sentspace eval --where`` is given for the window's filter: brushed ranges
    (fractional ends too), chosen bars and the typed expression, one expression."""
    chosen = Filter(
        (Range("Words", 9, 12.5), Chosen("Pair label", ("NEUTRAL", "ENTAILMENT"))),
        'pairs >= 2 or split == "test"',
    )
    written = chosen.as_expression(table)
    assert written == (
        '9 <= words <= 12.5 and label in ["NEUTRAL", "ENTAILMENT"] '
        'and (pairs >= 2 or split == "test")'
    )
    mask = passing(sick, written)
    assert np.array_equal(mask, table.evaluate(chosen).mask) and 0 < mask.sum() < len(sick)
    with pytest.raises(InputError, match="categories beyond the top 10"):
        Filter((Chosen("Pair label", (OTHER,)),)).as_expression(table)
    with pytest.raises(InputError, match="keeps a selection"):
        Filter((Kept(("1",)),)).as_expression(table)


def test_a_category_chart_leaves_out_an_empty_none_bar(costra, sick):
    """Every Costra sentence has a type and seed group, every SICK one a pair: their
    category charts drew an empty "none" / "no group" / "in no pair" bar; a column
    with sentences lacking a value keeps it."""
    from sentspace.app.analysis.columns import Categories
    from sentspace.app.analysis.filters import make_chart

    for corpus, titles in ((costra, ("Seed group", "Type")), (sick, ("Split", "Pair label"))):
        table = FilterTable(sentence_columns(corpus))
        for title in titles:
            chart = table.charts[title]
            assert not (chart.column.codes < 0).any() and chart.labels[-1] == "", title
            assert not table.passes(Chosen(title, (chart.column.none,))).any()
    partial = make_chart(Categories.of_values("Mark", ["a", "", "b", "a"]))
    assert partial.labels[-1] == "none" and partial.slot[1] == len(partial.labels) - 1


def test_costra_seed_group_is_one_column_that_compares_as_numbers(costra):
    """Costra's groups and its file's "seed group" numbers were both titled "Seed
    group", so the panel showed one and an expression read the other: the numbers, the
    same grouping again, are left out, and the groups' names (the seed numbers) compare
    as numbers, so ``seed_group <= 50`` and a brushed 0-50 keep the same sentences."""
    from sentspace.app.analysis.columns import Categories
    from sentspace.app.corpora.model import Corpus, Grouping

    columns = sentence_columns(costra)
    titles = [column.title for column in columns]
    assert len(titles) == len(set(titles)) and titles.count("Seed group") == 1
    seed = columns[titles.index("Seed group")]
    assert isinstance(seed, Categories) and len(seed.names) == 126

    table = FilterTable(columns)
    numbers = np.array(costra.metadata["seed group"])
    expected = numbers <= 50
    assert 0 < expected.sum() < len(costra)
    assert np.array_equal(table.expression_mask("seed_group <= 50"), expected)
    assert np.array_equal(table.passes(Range("Seed group", 0, 50)), expected)
    assert np.array_equal(table.expression_mask("seed_group == 7"), numbers == 7)
    with pytest.raises(InputError, match="Type has categories"):
        table.expression_mask("type < 5")

    # A file's column that groups otherwise keeps its values, under a title of its own.
    corpus = Corpus(
        "c",
        tuple("abcd"),
        tuple("1234"),
        groups=Grouping("topic", np.arange(4), np.array([0, 0, 1, 1]), ("x", "y")),
        metadata={"topic": ("p", "q", "p", "q")},
    )
    titles = [column.title for column in sentence_columns(corpus)]
    assert "Topic" in titles and "Topic (file)" in titles


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_an_export_opens_again_with_its_columns_under_their_expression_names(
    costra, tmp_path, suffix
):
    """The filter's Export wrote display titles ("Gold score (mean of its pairs)") and
    a reopened file kept only its texts: now each column is written under the name
    ``--where`` takes, and the file opened as a corpus filters by the same names to
    the same sentences."""
    from sentspace.app.analysis.filters import column_names, corpus_table, export_rows
    from sentspace.app.corpora import load_corpus

    table = corpus_table(costra)
    expression = 'type in ["future", "paraphrase"] and words >= 8'
    rows = np.flatnonzero(passing(costra, expression))
    assert len(rows) == 1064
    path = export_rows(tmp_path / f"kept{suffix}", costra, sentence_columns(costra), rows)
    if suffix == ".csv":
        header = path.read_text(encoding="utf-8").splitlines()[0].split(",")
    else:
        header = list(json.loads(path.read_text(encoding="utf-8").splitlines()[0]))
    assert header[:2] == ["id", "text"]
    names = column_names([column.title for column in sentence_columns(costra)])
    assert set(header[2:]) <= set(names) and {"words", "type", "r1"} <= set(header)
    assert "seed_group" in table.names
    reopened = load_corpus(path)
    assert reopened.ids == tuple(costra.ids[k] for k in rows)
    again = column_names([column.title for column in sentence_columns(reopened)])
    # Every column comes back under its name ("group": the corpus's groups again).
    assert set(header[2:]) <= set(again), set(header[2:]) - set(again)
    assert passing(reopened, expression).all()
    narrower = 'type == "future" and words >= 12 and seed_group <= 60'
    assert passing(reopened, narrower).sum() == passing(costra, narrower).sum() > 0


#: Expressions that crashed the parser or the evaluator (issue 42, item 14), and what
#: each is refused for, at which column.
HOSTILE = [
    ("words > 1" + "0" * 400, "column 9 (100000000000…000000, 401 digits): a number beyond"),
    ("words > 1e400", "column 9 (1e400): a number beyond ±1.8e308"),
    ("words > " + "9" * 5000, "column 9 (999999999999…999999, 5,000 digits): a number beyond"),
    ("not " * 5000 + "words > 3", "column 401: nested more than 100 levels deep"),
    ("-" * 5000 + "1 < words", "column 101: nested more than 100 levels deep"),
    (" & ".join(["(words > 3)"] * 5000), "column 1401: nested more than 100 levels deep"),
    ("(" * 150 + "words > 3" + ")" * 150, "column 101: nested more than 100 levels deep"),
    ("words > 3 and split == '\udcff'", "column 25: the byte 0xff, which is not UTF-8 text"),
    ("words > 3\x00", "column 10: a NUL character, which is not text"),
    ("'\ud800' == split", "column 2: a lone surrogate U+D800, which is not text"),
    ("words > 3 or " * 20_000 + "words > 3", "column 100001: longer than 100,000 characters"),
]


@pytest.mark.parametrize("source, problem", HOSTILE, ids=range(len(HOSTILE)))
def test_a_hostile_expression_is_an_input_error_naming_the_column(sick, table, source, problem):
    with pytest.raises(InputError, match="filter expression, column") as raised:
        table.expression_mask(source)
    assert problem in str(raised.value) and len(str(raised.value)) < 200
    # What sentspace.where and eval's where= take: the same, as a ValueError.
    with pytest.raises(InputError):
        passing(sick, source)


def test_nesting_up_to_the_limit_and_line_breaks_still_read(table, sick):
    length = words(sick)
    deep = "not " * 98 + "words > 3"
    assert np.array_equal(table.expression_mask(deep), length > 3)
    chain = " & ".join(["(words > 3)"] * 99)
    assert np.array_equal(table.expression_mask(chain), length > 3)
    # A long list of values, and line breaks (columns count as on one line).
    many = "words in [" + ", ".join(map(str, range(3, 3000))) + "]"
    assert np.array_equal(table.expression_mask(many), length >= 3)
    assert np.array_equal(
        table.expression_mask("words > 3\r\nor words < 2"), (length > 3) | (length < 2)
    )
    with pytest.raises(InputError, match="column 14 "):
        table.expression_mask("words > 3\nor lenght < 2")


def test_where_from_a_shell_with_a_non_utf8_byte_exits_2_with_one_line():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for where in (b"words > \xff", b"words > 1" + b"0" * 400, b"not " * 5000 + b"words > 3"):
        done = subprocess.run(
            [
                os.fsencode(sys.executable),
                b"-m",
                b"sentspace",
                b"eval",
                b"ranking",
                b"--corpus",
                b"msrp-grouped",
                b"--where",
                where,
            ],
            cwd=root,
            capture_output=True,
            timeout=120,
            check=False,
        )
        error = done.stderr.decode("utf-8", "replace")
        assert done.returncode == 2, error
        assert error.startswith("sentspace: error: filter expression, column ")
        assert error.count("\n") == 1, error
