"""MTEB's result files read beside sentspace's runs (app/analysis/mteb_results.py): the file mteb
itself writes, the schema it documents (and its form before 1.11), per-cent scores, bad
files named with their problem, the same task's pairs found in a relatedness result,
and imported scores kept out of paired tests and kept in workspaces."""

import dataclasses
import json

import numpy as np
import pytest

from sentspace.app.analysis.evaluations.paired import paired_test
from sentspace.app.analysis.evaluations.relatedness import evaluate_relatedness
from sentspace.app.analysis.mteb_results import (
    TASKS,
    ImportedResult,
    arrange,
    counterpart,
    elsewhere,
    read_mteb_file,
    read_mteb_results,
    same_model,
)
from sentspace.app.analysis.results import Provenance
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.errors import EvaluationError, InputError
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import load_corpus
from sentspace.app.state.session import Session
from sentspace.app.workspace.codec import decode_state, encode_state
from sentspace.app.workspace.format import load_workspace, save_workspace
from sentspace.app.workspace.restore import restore_session
from sentspace.app.workspace.snapshot import workspace_of

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
REVISION = "8b3219a92973c328a8e22fadcfa821b5dc75636a"
#: MTEB's published STSBenchmark entry of all-MiniLM-L6-v2 (mteb 1.12.75), as its
#: results repository holds it: lists beside the numbers, keys in alphabetical order.
PUBLISHED = {
    "dataset_revision": "b0fddb56ed78048fa8b90373c8a3cfc37b684831",
    "evaluation_time": 1.2171757221221924,
    "kg_co2_emissions": 0.00018667650466967732,
    "mteb_version": "1.12.75",
    "scores": {
        "test": [
            {
                "cosine_pearson": 0.8274064239694425,
                "cosine_spearman": 0.8203247283076371,
                "euclidean_pearson": 0.8255616730069724,
                "euclidean_spearman": 0.8203247273691797,
                "hf_subset": "default",
                "languages": ["eng-Latn"],
                "main_score": 0.8203247283076371,
                "manhattan_pearson": 0.8249144382439639,
                "manhattan_spearman": 0.8194552517480638,
                "pearson": [0.8274064200542519, 0.0],
                "spearman": [0.8203246151241224, 0.0],
            }
        ]
    },
    "task_name": "STSBenchmark",
}


def mteb_layout(root, task, data, model=MINILM, revision=REVISION):
    """``data`` as ``root/results/<model>/<revision>/<task>.json`` with its model_meta.json,
    as mteb's ResultCache lays them out."""
    folder = root / "results" / model.replace("/", "__") / revision
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model_meta.json").write_text(json.dumps({"name": model, "revision": revision}))
    path = folder / f"{task}.json"
    path.write_text(json.dumps(data))
    return path


def test_reads_the_result_files_mteb_writes(tmp_path):
    mteb = pytest.importorskip("mteb", reason="the optional mteb extra writes the file")
    from mteb.cache import ResultCache

    task = mteb.get_task("STSBenchmark")  # metadata ships with mteb
    result = mteb.TaskResult.from_task_results(
        task,
        {
            "test": {
                "default": {
                    "main_score": 0.8203247283076371,
                    "cosine_spearman": 0.8203247283076371,
                    "cosine_pearson": 0.8274064239694425,
                }
            }
        },
        evaluation_time=1.2,
    )
    ResultCache(tmp_path).save_to_cache(result, mteb.get_model_meta(MINILM))
    assert task.metadata.n_samples == {"test": TASKS["STSBenchmark"].n_pairs}

    found = read_mteb_results(tmp_path)  # the whole cache folder
    (imported,) = found.results
    assert isinstance(imported, ImportedResult) and imported.imported
    assert imported.label == "all-MiniLM-L6-v2 (MTEB, imported)"
    assert (imported.model, imported.model_revision) == (MINILM, REVISION)
    assert (imported.task, imported.split, imported.hf_subset) == (
        "STSBenchmark",
        "test",
        "default",
    )
    assert imported.main_score == pytest.approx(0.820325, abs=1e-6)  # rounded by mteb
    assert imported.metrics["cosine_pearson"] == pytest.approx(0.827406, abs=1e-6)
    assert not imported.per_cent and imported.mteb_version == mteb.__version__
    assert dict(imported.summary())["scale"] == "0-1, as in the file"


def test_reads_the_published_schema_without_mteb(tmp_path):
    path = mteb_layout(tmp_path, "STSBenchmark", PUBLISHED)
    imported = read_mteb_file(path)
    assert imported.main_score == 0.8203247283076371 and not imported.per_cent
    assert imported.mteb_version == "1.12.75" and imported.model == MINILM
    # The lists ("pearson": [value, p]) are not correlations of their own.
    assert set(imported.metrics) == {
        "cosine_pearson",
        "cosine_spearman",
        "euclidean_pearson",
        "euclidean_spearman",
        "manhattan_pearson",
        "manhattan_spearman",
    }
    summary = dict(imported.summary())
    assert summary["main score (cosine spearman)"] == "0.8203"
    assert summary["MTEB task"] == "STSBenchmark test (1,379 pairs: STS Benchmark test pairs)"
    # A lone file outside MTEB's layout: the model is unnamed, the score the same.
    lone = tmp_path / "STSBenchmark.json"
    lone.write_text(json.dumps(PUBLISHED))
    assert read_mteb_file(lone).label == "unnamed model (MTEB, imported)"


def test_per_cent_scores_are_read_on_0_to_1(tmp_path):
    """The old leaderboard's numbers (and files copied from it) are per cent."""
    data = json.loads(json.dumps(PUBLISHED))
    entry = data["scores"]["test"][0]
    for key in ("main_score", "cosine_spearman", "cosine_pearson"):
        entry[key] = round(entry[key] * 100, 2)
    found = read_mteb_results(mteb_layout(tmp_path, "STSBenchmark", data))
    (imported,) = found.results
    assert imported.per_cent
    assert imported.main_score == pytest.approx(0.8203)
    assert imported.metrics["cosine_pearson"] == pytest.approx(0.8274)
    assert dict(imported.summary())["scale"] == "per cent in the file, divided by 100"
    assert "read as per cent (divided by 100)" in found.describe()


def test_reads_results_written_before_mteb_1_11(tmp_path):
    path = tmp_path / "SICK-R.json"
    path.write_text(
        json.dumps(
            {
                "dataset_revision": "a6ea5a8cab320b040a23452cc28066d9beae2cee",
                "mteb_dataset_name": "SICK-R",
                "mteb_version": "1.0.3.dev0",
                "test": {
                    "cos_sim": {"pearson": 0.8391, "spearman": 0.7758},
                    "euclidean": {"pearson": 0.8078, "spearman": 0.7758},
                    "evaluation_time": 6.87,
                },
            }
        )
    )
    imported = read_mteb_file(path)
    assert (imported.task, imported.main_score) == ("SICK-R", 0.7758)
    assert imported.metrics == {
        "cosine_pearson": 0.8391,
        "cosine_spearman": 0.7758,
        "euclidean_pearson": 0.8078,
        "euclidean_spearman": 0.7758,
    }


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            '{"task_name": "STSBenchmark", "scores": {"test": [{"main_score": 0.8,}]}}',
            r"STSBenchmark\.json, line 1: not valid JSON: Expecting property name",
        ),
        (
            "[1, 2]",
            (
                r"STSBenchmark\.json: expected a JSON object \(MTEB's TaskResult\), "
                "found a list"
            ),
        ),
        ('{"scores": {}}', r"STSBenchmark\.json: no task_name: not an MTEB result file"),
        (
            '{"task_name": "STSBenchmark", "scores": {"dev": [{"main_score": 0.8}]}}',
            (
                r"STSBenchmark\.json: no 'test' scores \(MTEB scores STSBenchmark on its test split; "
                "the file has 'dev'\\)"
            ),
        ),
        (
            '{"task_name": "STSBenchmark", "scores": {"test": [{"main_score": "high"}]}}',
            r"STSBenchmark\.json: scores\.test\[0\]\.main_score is 'high', not a number",
        ),
        (
            '{"task_name": "STSBenchmark", "scores": {"test": [{"cosine_spearman": 0.8}]}}',
            r"STSBenchmark\.json: scores\.test\[0\]\.main_score is missing, not a number",
        ),
        (
            '{"task_name": "STSBenchmark", "scores": {"test": [{"main_score": 8203}]}}',
            r"STSBenchmark\.json: scores\.test\[0\]\.main_score 8203 is not a correlation",
        ),
        (
            '{"task_name": "Banking77Classification", "scores": {"test": []}}',
            (
                r"STSBenchmark\.json: MTEB task 'Banking77Classification' is not one sentspace "
                "evaluates"
            ),
        ),
    ],
)
def test_a_bad_file_is_named_with_its_problem(tmp_path, content, problem):
    path = tmp_path / "STSBenchmark.json"
    path.write_text(content)
    with pytest.raises(InputError, match=problem) as raised:
        read_mteb_results(path)
    assert raised.value.path == path


def test_a_folder_skips_other_tasks_and_names_a_bad_file(tmp_path):
    mteb_layout(tmp_path, "STSBenchmark", PUBLISHED)
    mteb_layout(
        tmp_path,
        "Banking77Classification",
        {"task_name": "Banking77Classification", "scores": {"test": [{}]}},
    )
    found = read_mteb_results(tmp_path)
    assert [r.task for r in found.results] == ["STSBenchmark"]
    assert [name.rsplit("/", 1)[-1] for name in found.skipped] == ["Banking77Classification.json"]
    bad = mteb_layout(tmp_path, "STS12", PUBLISHED)
    bad.write_text('{"task_name": "STS12", "scores": {"test": [{"main_score": }]}}')
    with pytest.raises(InputError, match="STS12.json, line 1: not valid JSON") as raised:
        read_mteb_results(tmp_path)
    assert raised.value.path == bad
    other = tmp_path / "other"
    mteb_layout(
        other,
        "Banking77Classification",
        {"task_name": "Banking77Classification", "scores": {"test": [{}]}},
    )
    with pytest.raises(InputError, match="none of its 1 MTEB result files is of a task"):
        read_mteb_results(other)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no MTEB result files"):
        read_mteb_results(empty)


def random_relatedness(corpus, splits):
    embeddings = np.random.default_rng(0).standard_normal((len(corpus), 8)).astype(np.float32)
    return evaluate_relatedness(corpus, embeddings, splits=splits, n_resamples=0)


def test_finds_the_task_pairs_in_a_relatedness_result(shared_data, tmp_path):
    imported = read_mteb_file(mteb_layout(tmp_path, "STSBenchmark", PUBLISHED))
    benchmark = load_corpus(str(shared_data / "sts" / "STSBenchmark"))
    test = random_relatedness(benchmark, ("test",))
    found = counterpart(imported, test)
    assert found.metrics == ("pooled spearman",)  # STS-B's one subset: not twice
    assert (found.spearman, found.n_pairs) == (test.pooled.spearman, 1379)
    # Every split of STS-B, or its dev split, are not MTEB's pairs.
    assert counterpart(imported, random_relatedness(benchmark, None)) is None
    assert counterpart(imported, random_relatedness(benchmark, ("dev",))) is None
    # The whole sts/ folder's test split: STS-B is one subset among the years.
    everything = load_corpus(str(shared_data / "sts"))
    years = random_relatedness(everything, ("test",))
    found = counterpart(imported, years)
    subset = next(c for c in years.subsets if c.subset == "STSBenchmark")
    assert found.metrics == ("STSBenchmark spearman",)
    assert found.spearman == pytest.approx(subset.spearman, abs=1e-12)
    # STS 2012 is five subsets there: no one score of the result, but its Spearman.
    sts12 = json.loads(json.dumps(PUBLISHED).replace("STSBenchmark", "STS12"))
    found = counterpart(read_mteb_file(mteb_layout(tmp_path, "STS12", sts12)), years)
    mask = np.array([s.startswith("2012/") for s in years.subset])
    from scipy import stats

    assert found.metrics == () and found.n_pairs == 3108 == mask.sum()
    assert found.spearman == pytest.approx(
        stats.spearmanr(years.cosine[mask], years.gold[mask]).statistic, abs=1e-12
    )
    assert counterpart(imported, imported) is None  # never an imported one


def test_an_imported_bar_goes_right_after_the_run_of_its_model(shared_data, tmp_path):
    """What Across encoders draws (app/ui/panels/evaluation_panel.py), decided here."""
    imported = read_mteb_file(mteb_layout(tmp_path, "STSBenchmark", PUBLISHED))
    sick = read_mteb_file(mteb_layout(tmp_path, "SICK-R", dict(PUBLISHED, task_name="SICK-R")))
    test_file = load_corpus(str(shared_data / "sts" / "STSBenchmark" / "sts-test.csv"))
    bow = random_relatedness(test_file, None)
    minilm = dataclasses.replace(
        bow,
        provenance=dataclasses.replace(
            bow.provenance,
            encoder_name="minilm",
            encoder_family="minilm",
            encoder_params={"model": "all-MiniLM-L6-v2", "pooling": None},
        ),
    )
    placed = arrange("pooled spearman", bow, [bow, minilm, bow], [imported, sick])
    assert placed.order == (("run", 0), ("run", 1), ("imported", 0), ("run", 2))
    assert placed.notes == (
        (
            f"all-MiniLM-L6-v2 (MTEB, imported) 0.8203; sentspace's minilm "
            f"{bow.pooled.spearman:.4f}, on MTEB's 1,379 STSBenchmark test pairs"
        ),
        "1 imported MTEB score is of other pairs: SICK-R",
    )
    alone = arrange("pooled spearman", bow, [bow], [imported])
    assert alone.order == (("run", 0), ("imported", 0))
    assert alone.notes[0] == (
        "all-MiniLM-L6-v2 (MTEB, imported) 0.8203; no sentspace run "
        "of this model on MTEB's 1,379 STSBenchmark test pairs"
    )
    pearson = arrange("pooled pearson", bow, [bow], [imported])
    assert pearson.order == (("run", 0),) and "choose 'pooled spearman'" in pearson.notes[0]


def test_same_model_is_the_sentence_transformers_model_of_that_name(tmp_path):
    imported = read_mteb_file(mteb_layout(tmp_path, "STSBenchmark", PUBLISHED))

    def provenance(family, **params):
        return Provenance("c", "f", family, family, params, "e", {})

    assert same_model(imported, provenance("minilm", model="all-MiniLM-L6-v2", pooling=None))
    assert same_model(
        imported, provenance("minilm", model="/models/all-MiniLM-L6-v2", pooling=None)
    )
    assert not same_model(imported, provenance("minilm", model="all-MiniLM-L6-v2", pooling="cls"))
    assert not same_model(imported, provenance("minilm", model="/models/e5", pooling=None))
    assert not same_model(imported, provenance("bow"))


def test_an_imported_score_has_no_paired_test(tmp_path):
    imported = read_mteb_file(mteb_layout(tmp_path, "STSBenchmark", PUBLISHED))
    with pytest.raises(EvaluationError, match="imported score with no per-item outcomes"):
        paired_test("relatedness", imported, imported)


def test_imported_scores_are_kept_in_the_workspace(tmp_path):
    first = read_mteb_file(mteb_layout(tmp_path, "STSBenchmark", PUBLISHED))
    again = read_mteb_file(mteb_layout(tmp_path / "again", "STSBenchmark", PUBLISHED))
    sick = read_mteb_file(mteb_layout(tmp_path, "SICK-R", dict(PUBLISHED, task_name="SICK-R")))
    assert decode_state(encode_state(first)).to_dict() == first.to_dict()
    session = Session()
    heard = []
    session.imported.connect(lambda state: heard.append(state.spec))
    corpus = load_corpus("msrp-grouped")
    session.open(
        "msrp-grouped", corpus, AnnotationSession.open(corpus, tmp_path / "msrp.edits.jsonl")
    )
    session.add_imported("msrp-grouped", [first, sick])
    session.add_imported("msrp-grouped", [again])  # the same score read again
    assert session.current.imported == (sick, again) and heard == ["msrp-grouped"] * 2
    path = save_workspace(workspace_of(session), tmp_path / "study", remember=False)
    restored = run_job(restore_session(load_workspace(path), path))
    try:
        kept = restored.current.imported
        assert [r.to_dict() for r in kept] == [r.to_dict() for r in (sick, again)]
        assert all(isinstance(r, ImportedResult) for r in kept)
    finally:
        restored.close_all()
        session.close_all()


def test_a_relatedness_result_is_written_as_mteb_result_files_mteb_reads(shared_data, tmp_path):
    mteb = pytest.importorskip("mteb", reason="the optional mteb extra validates the file")
    from sentspace.app.analysis.evaluations.relatedness import run_relatedness
    from sentspace.app.base.errors import InputError
    from sentspace.models.bow import BagOfWords

    # Every test pair of the STS folder: STSBenchmark and the five SemEval years.
    everything = load_corpus(str(shared_data / "sts"))
    result = run_job(run_relatedness(everything, BagOfWords(), split="test", n_resamples=0))
    written = result.to_mteb(tmp_path)
    tasks = sorted(path.stem for path in written if path.name != "model_meta.json")
    assert tasks == ["STS12", "STS13", "STS14", "STS15", "STS16", "STSBenchmark"]
    for path in written[1:]:
        parsed = mteb.TaskResult.from_disk(path)  # mteb's own schema
        task = TASKS[parsed.task_name]
        assert parsed.dataset_revision == mteb.get_task(task.name).metadata.dataset["revision"]
        imported = read_mteb_file(path)
        found = counterpart(imported, result)
        assert found.n_pairs == task.n_pairs
        # Rounded to 6 decimals, as mteb writes its scores.
        assert parsed.get_score() == imported.main_score == pytest.approx(found.spearman, abs=5e-7)
    assert read_mteb_results(tmp_path).results[0].model == "sentspace/bow"
    benchmark = next(c for c in result.subsets if c.subset == "STSBenchmark")
    by_task = {path.stem: path for path in written}
    assert read_mteb_file(by_task["STSBenchmark"]).main_score == pytest.approx(
        benchmark.spearman, abs=5e-7
    )
    # Pairs that are no MTEB task's (STS-B's dev split), or a learned similarity: refused.
    with pytest.raises(InputError, match="no MTEB task's pairs"):
        random_relatedness(
            load_corpus(str(shared_data / "sts" / "STSBenchmark")), ("dev",)
        ).to_mteb(tmp_path / "dev")


def test_an_import_says_which_corpora_hold_its_pairs(tmp_path, shared_data):
    found = read_mteb_results(mteb_layout(tmp_path, "STSBenchmark", PUBLISHED))
    assert elsewhere(found, load_corpus(str(shared_data / "sts" / "STSBenchmark"))) == ""
    msrp = load_corpus(str(shared_data / "msrp" / "msr_paraphrase_test.txt"))
    assert elsewhere(found, msrp) == (
        "STSBenchmark's 1,379 pairs are not here (open sts/STSBenchmark)"
    )
    sick_trial = load_corpus(str(shared_data / "sick" / "SICK_trial.txt"))
    sick_r = read_mteb_results(
        mteb_layout(tmp_path / "sick", "SICK-R", {**PUBLISHED, "task_name": "SICK-R"})
    )
    assert elsewhere(sick_r, sick_trial) == "SICK-R's 9,927 pairs are 500 here (open sick)"


def test_a_sentspace_encoder_runs_in_mtebs_own_sts_evaluation(shared_data, monkeypatch, tmp_path):
    """mteb.evaluate takes sentspace.mteb_model as a model: on STS-B's test pairs, read
    from the local files into mteb's own STSBenchmark task (no network), its score is
    sentspace's relatedness Spearman of the same fitted encoder."""
    mteb = pytest.importorskip("mteb", reason="the optional mteb extra runs the evaluation")
    from datasets import Dataset

    import sentspace
    from sentspace.app.analysis.evaluations.relatedness import run_relatedness

    for offline in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.setenv(offline, "1")
    benchmark = load_corpus(str(shared_data / "sts" / "STSBenchmark"))
    model = sentspace.mteb_model("bow", benchmark)
    assert isinstance(model, mteb.models.EncoderProtocol)
    pairs = benchmark.pairs
    test = np.asarray(pairs.split) == "test"
    task = mteb.get_task("STSBenchmark")
    task.dataset = {
        "default": {
            "test": Dataset.from_dict(
                {
                    "sentence1": [benchmark.texts[i] for i in pairs.first[test]],
                    "sentence2": [benchmark.texts[i] for i in pairs.second[test]],
                    "score": pairs.score[test].tolist(),
                }
            )
        }
    }
    task.data_loaded = True
    # The task's own evaluation (mteb's STS evaluator); mteb.evaluate runs the same after
    # importing sentence-transformers, 18 s more here.
    scores = task.evaluate(model, "test", encode_kwargs={"batch_size": 32})["default"]
    ours = run_job(run_relatedness(benchmark, model.model, split="test", n_resamples=0))
    assert ours.pooled.n_pairs == int(test.sum()) == 1379
    assert scores["cosine_pearson"] == pytest.approx(ours.pooled.pearson, abs=1e-6)
    # The model's own similarity is relatedness's cosine: the same Spearman. (Was:
    # mteb's float32 cosine only.)
    assert scores["spearman"] == pytest.approx(ours.pooled.spearman, abs=1e-12)
    # Bag-of-words cosines tie often, and mteb's cosine_spearman, in float32, rounds
    # ties apart: its fourth decimal moves (0.44535 against 0.44551).
    assert scores["main_score"] == pytest.approx(ours.pooled.spearman, abs=5e-4)
    with pytest.raises(ValueError, match="bow must be fitted first"):
        sentspace.mteb_model("bow")
    # An encoder trained on its own file needs no corpus: trained as it is built.
    sentences = tmp_path / "sentences.txt"
    sentences.write_text("\n".join(benchmark.texts[:200]) + "\n")
    trained = sentspace.mteb_model(f"fastsent:{sentences}")
    assert trained.mteb_model_meta.name == "sentspace/fastsent:sentences.txt"
    assert trained.model.is_fitted and trained.mteb_model_meta.embed_dim == 128


def test_mteb_files_name_mtebs_version_and_one_revision_per_encoder(shared_data, tmp_path):
    """Was: ``mteb_version`` "sentspace 0.1.0", and the same fitted bag of words filed
    under one revision by ``to_mteb`` and another by ``mteb_model``."""
    mteb = pytest.importorskip("mteb", reason="the optional mteb extra reads the files")
    import sentspace
    from sentspace.app.analysis.evaluations.relatedness import run_relatedness
    from sentspace.models.bow import BagOfWords

    benchmark = sentspace.load_corpus(shared_data / "sts" / "STSBenchmark")
    result = run_job(run_relatedness(benchmark, BagOfWords(), split="test", n_resamples=0))
    [meta, path] = result.to_mteb(tmp_path)
    written = json.loads(path.read_text())
    assert written["mteb_version"] == mteb.__version__
    assert written["scores"]["test"][0]["mteb_version"] == mteb.__version__
    parsed = mteb.TaskResult.from_disk(path)
    assert parsed.get_score() == round(result.pooled.spearman, 6)
    model = sentspace.mteb_model("bow", benchmark)
    assert path.parent.name == model.mteb_model_meta.revision
    assert json.loads(meta.read_text())["revision"] == model.mteb_model_meta.revision
    # Another corpus fits another vocabulary: another revision.
    trial = sentspace.load_corpus(shared_data / "sick" / "SICK_trial.txt")
    assert sentspace.mteb_model("bow", trial).mteb_model_meta.revision != path.parent.name
    # An encoder fitted on nothing (MiniLM, your own model) is its fingerprint.
    unfitted = sentspace.encoder("minilm")
    assert sentspace.mteb_model(unfitted).mteb_model_meta.revision == unfitted.fingerprint()
    # A plain list, as a notebook calls it, with or without mteb's keywords.
    texts = list(benchmark.texts[:5])
    np.testing.assert_array_equal(model.encode(texts), model.model.encode(texts))
    assert model.encode(texts[0]).shape == (model.mteb_model_meta.embed_dim,)


def test_sicks_default_split_says_how_to_write_sick_r(shared_data, tmp_path):
    """MTEB's SICK-R is every SICK pair (9,927); sentspace's default is SICK's test split
    (4,927): the refusal says which split writes it, and that split does."""
    from sentspace.app.analysis.evaluations.relatedness import run_relatedness
    from sentspace.app.base.errors import InputError
    from sentspace.models.bow import BagOfWords

    sick = load_corpus(str(shared_data / "sick"))
    with pytest.raises(InputError, match="evaluate it with split='all'"):
        run_job(run_relatedness(sick, BagOfWords(), n_resamples=0)).to_mteb(tmp_path)
    everything = run_job(run_relatedness(sick, BagOfWords(), split="all", n_resamples=0))
    [_, path] = everything.to_mteb(tmp_path)
    assert path.name == "SICK-R.json"
    assert read_mteb_file(path).main_score == pytest.approx(everything.pooled.spearman, abs=5e-7)


def test_the_mteb_writer_imports_no_evaluation():
    """The evaluations' results call the writer: it must not import them back (it did,
    through a circle closed by an import inside a function)."""
    import subprocess
    import sys

    script = (
        "import sys, sentspace.app.analysis.mteb_files\n"
        "print(sorted(m for m in sys.modules if m.startswith('sentspace.app.analysis.evaluations')))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
