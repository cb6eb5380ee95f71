"""MTEB's result files as mteb writes them, from sentspace's results: the MTEB tasks
that are a sentspace evaluation on the same data (:data:`TASKS`), and the writer.

MTEB (the Massive Text Embedding Benchmark) keeps one JSON file per model and task,
``<org>__<model>/<revision>/<Task>.json`` beside a ``model_meta.json``, in the schema of
its ``TaskResult``. The writer reads a result's fields only (duck-typed: the evaluation
result classes call it, so it imports none of them); reading MTEB's files back into
results is ``app.mteb_results``. No mteb is needed here.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.base.errors import InputError
from sentspace.models import ENCODERS

MODEL_META = "model_meta.json"

#: The split MTEB evaluates its STS tasks on.
MTEB_SPLIT = "test"


@dataclass(frozen=True)
class MtebTask:
    """An MTEB task that is sentspace's relatedness on a corpus: which of the corpus's
    pairs it is (``subset``: ``pairs.subset`` equal to it, or starting with it when it
    ends in "/"; ``split``: the pair split it is, None for any) and how many there are."""

    name: str
    about: str
    subset: str
    split: str | None
    n_pairs: int
    #: Where sentspace reads those pairs (under the shared data, or a built-in name).
    corpus: str
    #: The dataset revision MTEB's task metadata pins, which a result file names.
    dataset_revision: str = ""

    def covers(self, subset: str) -> bool:
        return (
            subset.startswith(self.subset) if self.subset.endswith("/") else subset == self.subset
        )


#: MTEB's English STS tasks with sentspace's corpora of the same pairs. Pair counts are
#: MTEB's (``TaskMetadata.n_samples``) and sentspace's loaders' alike.
TASKS: dict[str, MtebTask] = {
    task.name: task
    for task in (
        MtebTask(
            "STSBenchmark",
            "STS Benchmark test pairs",
            "STSBenchmark",
            "test",
            1379,
            "sts/STSBenchmark",
            "b0fddb56ed78048fa8b90373c8a3cfc37b684831",
        ),
        MtebTask(
            "SICK-R",
            "every SICK pair",
            "SICK",
            None,
            9927,
            "sick",
            "20a6d6f312dd54037fe07a32d58e5e168867909d",
        ),
        MtebTask(
            "STS12",
            "SemEval STS 2012",
            "2012/",
            None,
            3108,
            "sts/STS2012-test",
            "a0d554a64d88156834ff5ae9920b964011b16384",
        ),
        MtebTask(
            "STS13",
            "SemEval STS 2013",
            "2013/",
            None,
            1500,
            "sts/STS2013-test",
            "7e90230a92c190f1bf69ae9002b8cea547a64cca",
        ),
        MtebTask(
            "STS14",
            "SemEval STS 2014",
            "2014/",
            None,
            3750,
            "sts/STS2014-test",
            "6031580fec1f6af667f0bd2da0a551cf4f0b2375",
        ),
        MtebTask(
            "STS15",
            "SemEval STS 2015",
            "2015/",
            None,
            3000,
            "sts/STS2015-test",
            "ae752c7c21bf194d8b67fd573edf7ae58183cbe3",
        ),
        MtebTask(
            "STS16",
            "SemEval STS 2016",
            "2016/",
            None,
            1186,
            "sts/STS2016-test",
            "4d8694f8f0e0100860b497b999b3dbed754a0513",
        ),
    )
}
KNOWN = "STSBenchmark, SICK-R, STS12-STS16"
#: The evaluation whose results MTEB's STS tasks are.
STS_EVALUATION = "relatedness"
#: The mteb release whose files this module writes, named in them when mteb is not
#: installed (mteb writes its own version).
MTEB_VERSION = "2.26.24"


def task_pairs(task: MtebTask, result: Any) -> tuple[np.ndarray, list[str]] | None:
    """Which pairs of ``result`` (a relatedness result) are ``task``'s, with the subsets
    they come from; None when it did not evaluate exactly those pairs (another corpus,
    another split, another evaluation, or an imported score)."""
    if (
        getattr(result, "imported", False)
        or getattr(result, "evaluation", "") != STS_EVALUATION
        or not hasattr(result, "subset")
    ):
        return None
    splits = result.provenance.parameters.get("splits")
    if task.split is not None and splits is not None and task.split not in splits:
        return None
    names = [name for name in dict.fromkeys(result.subset) if task.covers(name)]
    mask = np.isin(np.asarray(result.subset, dtype=object), names)
    return (mask, names) if int(mask.sum()) == task.n_pairs else None


# --- writing ---------------------------------------------------------------------------

#: The organisation a sentspace encoder is filed under in MTEB's layout.
SENTSPACE_ORGANISATION = "sentspace"
#: Decimals mteb rounds its scores to on disk (``TaskResult.to_disk``).
DECIMALS = 6


def mteb_version() -> str:
    """The version mteb writes into its files: the installed mteb's, else the release
    whose layout this module writes (:data:`MTEB_VERSION`)."""
    try:
        return metadata.version("mteb")
    except metadata.PackageNotFoundError:
        return MTEB_VERSION


def fits_on_corpus(family: str, params: dict[str, Any]) -> bool:
    """Whether an encoder of ``family`` with ``params`` learns from the sentences it is
    fitted on (a bag of words' vocabulary), rather than from its own file or not at
    all: an evaluation or :func:`sentspace.mteb_model` fits such an encoder on the
    corpus, which then is part of what the encoder is."""
    family_class = ENCODERS.get(family)
    return (
        family_class is not None and family_class.requires_fit and not params.get("training_file")
    )


def mteb_revision(
    encoder_fingerprint: str, family: str, params: dict[str, Any], corpus_fingerprint: str
) -> str:
    """The revision an encoder is filed under in MTEB's layout, whichever route wrote it
    (a result's :func:`write_mteb_results`, or mteb running
    :func:`sentspace.mteb_model`): its fingerprint (as a result's provenance records
    it) or, for one fitted on the corpus it encodes (:func:`fits_on_corpus`), a hash of
    that and the corpus's fingerprint."""
    if not fits_on_corpus(family, params):
        return encoder_fingerprint
    both = f"{encoder_fingerprint} fitted on {corpus_fingerprint}"
    return hashlib.sha256(both.encode()).hexdigest()[:16]


def mteb_model_name(encoder_name: str) -> str:
    """An encoder's MTEB model name: "sentspace/<encoder name>"."""
    return f"{SENTSPACE_ORGANISATION}/{encoder_name}"


def write_mteb_results(result: Any, folder: str | Path) -> list[Path]:
    """Write ``result`` (a relatedness result; read by its fields) as the MTEB result
    files mteb writes under ``folder``: one ``TaskResult`` JSON per MTEB task whose
    pairs it evaluated exactly (:data:`TASKS`), laid out as mteb's ``ResultCache`` lays
    them (``<org>__<model>/<revision>/<Task>.json`` beside ``model_meta.json``), so
    mteb's loaders and ``app.mteb_results`` take them. The model is
    :func:`mteb_model_name`, its revision :func:`mteb_revision`; the scores are the
    cosine correlations over the task's pairs, rounded as mteb rounds them, and
    ``mteb_version`` is :func:`mteb_version`.

    Raises
    ------
    InputError
        The result is not a relatedness result, scored pairs by a learned
        similarity, or evaluated no MTEB task's pairs (naming the split that has
        them, SICK-R's every pair).
    """
    from scipy import stats  # noqa: PLC0415 (lazy: slow)

    if getattr(result, "similarity", "cosine") != "cosine":
        raise InputError(
            f"MTEB's STS scores are of cosine similarity; this result scored "
            f"pairs by a {result.similarity} similarity"
        )
    found = {
        name: pairs
        for name, task in TASKS.items()
        if (pairs := task_pairs(task, result)) is not None
    }
    if not found:
        raise InputError(
            f"no MTEB task's pairs in this result (MTEB's STS tasks: {KNOWN}; "
            "a relatedness result of one of their corpora and splits"
            + _whole_task_hint(result)
            + ")"
        )
    provenance = result.provenance
    model = mteb_model_name(provenance.encoder_name)
    revision = mteb_revision(
        provenance.encoder_fingerprint,
        provenance.encoder_family,
        provenance.encoder_params,
        provenance.corpus_fingerprint,
    )
    where = Path(folder) / model.replace("/", "__").replace(" ", "_") / revision
    where.mkdir(parents=True, exist_ok=True)
    version = mteb_version()
    written = [where / MODEL_META]
    _write(
        written[0],
        {
            "name": model,
            "revision": revision,
            "framework": ["sentspace"],
            "languages": ["eng-Latn"],
            "similarity_fn_name": "cosine",
        },
    )
    for name, (mask, _) in found.items():
        cosine, gold = result.cosine[mask], result.gold[mask]
        spearman = float(stats.spearmanr(cosine, gold).statistic)
        pearson = float(stats.pearsonr(cosine, gold).statistic)
        # mteb's STS entry: its scores (the model's similarity, here cosine, then
        # cosine's), then the subset's languages and the version, as from_task_results
        # adds them.
        entry = {
            "pearson": pearson,
            "spearman": spearman,
            "cosine_pearson": pearson,
            "cosine_spearman": spearman,
            "main_score": spearman,
            "hf_subset": "default",
            "languages": ["eng-Latn"],
            "mteb_version": version,
        }
        path = where / f"{name}.json"
        _write(
            path,
            {
                "dataset_revision": TASKS[name].dataset_revision,
                "task_name": name,
                "mteb_version": version,
                "scores": {MTEB_SPLIT: [_rounded(entry)]},
                "evaluation_time": None,
                "kg_co2_emissions": None,
                "date": _dt.datetime.now(_dt.UTC).timestamp(),
                "evaluation_phases": None,
            },
        )
        written.append(path)
    return written


def _whole_task_hint(result: Any) -> str:
    """For a result of part of a task's pairs (SICK's test split, the default, of
    SICK-R's every pair): how to evaluate the whole task."""
    subsets = set(getattr(result, "subset", ()))
    for task in TASKS.values():
        if task.split is None and any(task.covers(subset) for subset in subsets):
            return (
                f"; {task.name} is every pair of {task.about.removeprefix('every ')} "
                f"({task.n_pairs:,}), and this result evaluated "
                f"{getattr(result, 'evaluated', '') or 'fewer'}: evaluate it with "
                f"split='all' (--split all) to write {task.name}"
            )
    return ""


def _rounded(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        key: round(value, DECIMALS) if isinstance(value, float) else value
        for key, value in entry.items()
    }


def _write(path: Path, payload: dict[str, Any]) -> None:
    """``payload`` as mteb writes its JSON: indented by 2."""
    write_text_atomic(path, json.dumps(payload, indent=2) + "\n")
