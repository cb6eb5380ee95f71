"""MTEB's published scores beside sentspace's own: reading MTEB result files.

MTEB (the Massive Text Embedding Benchmark) writes one JSON file per model and task, in
the schema of its ``TaskResult``::

    {"dataset_revision": ..., "task_name": "STSBenchmark", "mteb_version": "1.12.75",
     "scores": {"test": [{"main_score": 0.8203, "cosine_spearman": 0.8203,
                          "cosine_pearson": 0.8274, ..., "hf_subset": "default",
                          "languages": ["eng-Latn"]}]},
     "evaluation_time": 1.2}

laid out as ``results/<model>/<revision>/<Task>.json`` beside a ``model_meta.json``
(``{"name": "sentence-transformers/all-MiniLM-L6-v2", "revision": ...}``), the model's
folder named with ``__`` for ``/``. Files of mteb before 1.11 name the task
``mteb_dataset_name`` and hold ``{"test": {"cos_sim": {"spearman": ...}}}``; both are read.

The STS tasks (:data:`TASKS`) are sentspace's relatedness on the same pairs: MTEB's
``main_score`` is the Spearman correlation of cosine similarity with the gold scores,
which is relatedness's Spearman. **Scale**: every mteb version writes it on 0-1 (0.8203);
the numbers of the old leaderboard and of model cards (mteb's ``mteb_meta.py``, and
result files copied from them) are per cent (82.03). A correlation cannot pass 1, so a
``main_score`` whose size is above 1 is read as per cent and divided by 100, with every
correlation of that entry, and the result says so (``per_cent``).

Reading needs no mteb. An imported score is an :class:`ImportedResult`: a frozen
:class:`~sentspace.app.analysis.results.Result` marked ``imported``, with no per-pair outcomes, so
it is drawn beside runs (*Across encoders*, ``sentspace eval relatedness --compare``) and
never enters a paired test. :func:`counterpart` finds the same task's pairs in a
sentspace relatedness result and computes its Spearman over them; :func:`same_model`
tells whether that result's encoder is the model MTEB scored.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np

from sentspace.app.analysis.evaluations.relatedness import NAME as RELATEDNESS
from sentspace.app.analysis.evaluations.relatedness import POOLED
from sentspace.app.analysis.mteb_files import (
    KNOWN,
    MODEL_META,
    MTEB_SPLIT,
    TASKS,
    MtebTask,
    task_pairs,
)
from sentspace.app.analysis.results import Provenance, Result, Score
from sentspace.app.base.errors import InputError, NotFoundError
from sentspace.app.base.jobs import Job, Progress, run_job

#: How an imported result is labelled ("all-MiniLM-L6-v2 (MTEB, imported)").
IMPORTED = "MTEB, imported"
#: The sentspace encoder family of sentence-transformers models
#: (``models.transformer.SentenceTransformerEncoder.family``).
SENTENCE_TRANSFORMERS = "minilm"
UNNAMED = "unnamed model"


class UnknownTask(InputError):
    """An MTEB result of a task sentspace has no evaluation for (skipped in a folder)."""


@dataclass(frozen=True, eq=False)
class ImportedResult(Result):
    """One MTEB score of one model on one task, read from MTEB's result file.

    Attributes
    ----------
    model, model_revision : the model MTEB scored (``model_meta.json`` or the folder).
    task, split, hf_subset : the MTEB task, split and subset of the score.
    main_score : MTEB's main score on 0-1: the Spearman correlation of cosine
        similarity with the gold scores.
    metrics : the entry's other correlations (cosine_pearson, euclidean_spearman...),
        on 0-1.
    per_cent : the file held per cent; the numbers here are divided by 100.
    mteb_version, dataset_revision : as the file says ("" when it does not).
    source : the file read.
    """

    evaluation = RELATEDNESS
    imported = True
    model: str
    model_revision: str
    task: str
    split: str
    hf_subset: str
    main_score: float
    metrics: dict[str, float]
    per_cent: bool
    mteb_version: str
    dataset_revision: str
    source: str

    @property
    def label(self) -> str:
        return label_of(self.model)

    @property
    def mteb_task(self) -> MtebTask:
        return TASKS[self.task]

    @property
    def scale(self) -> str:
        return "per cent in the file, divided by 100" if self.per_cent else "0-1, as in the file"

    def summary(self) -> list[tuple[str, str]]:
        task = self.mteb_task
        return [
            ("imported from", self.source),
            ("MTEB task", f"{self.task} {self.split} ({task.n_pairs:,} pairs: {task.about})"),
            (
                "model",
                self.model + (f" @ {self.model_revision[:12]}" if self.model_revision else ""),
            ),
            ("main score (cosine spearman)", f"{self.main_score:.4f}"),
            ("scale", self.scale),
            ("mteb version", self.mteb_version or "not given"),
            *((name, f"{value:.4f}") for name, value in self.metrics.items()),
        ]

    def scores(self) -> list[Score]:
        n = self.mteb_task.n_pairs
        return [
            Score("main score (cosine spearman)", self.main_score, None, n),
            *(Score(name, value, None, n) for name, value in self.metrics.items()),
        ]

    def body(self) -> dict[str, Any]:
        return {
            "imported": IMPORTED,
            "model": self.model,
            "model_revision": self.model_revision,
            "task": self.task,
            "split": self.split,
            "hf_subset": self.hf_subset,
            "main_score": self.main_score,
            "metrics": dict(self.metrics),
            "per_cent": self.per_cent,
            "mteb_version": self.mteb_version,
            "dataset_revision": self.dataset_revision,
            "source": self.source,
        }


@dataclass(frozen=True)
class MtebImport:
    """What :func:`read_mteb_results` found: the results of tasks sentspace evaluates,
    and the names of the others' files it skipped."""

    results: tuple[ImportedResult, ...]
    skipped: tuple[str, ...] = ()

    def describe(self) -> str:
        tasks = ", ".join(
            dict.fromkeys(
                f"{r.label.removesuffix(f' ({IMPORTED})')} {r.task}" for r in self.results
            )
        )
        text = f"{len(self.results)} MTEB result{'s' if len(self.results) != 1 else ''} ({tasks})"
        if any(r.per_cent for r in self.results):
            text += ", read as per cent (divided by 100)"
        if self.skipped:
            text += (
                f"; {len(self.skipped)} file{'s' if len(self.skipped) != 1 else ''} of "
                f"tasks sentspace does not evaluate skipped"
            )
        return text


def pairs_in(task: MtebTask, corpus: Any) -> int:
    """How many of ``corpus``'s pairs are ``task``'s (its subset and split)."""
    pairs = corpus.pairs
    if pairs is None or len(pairs) == 0:
        return 0
    names = [name for name in dict.fromkeys(pairs.subset) if task.covers(name)]
    mask = np.isin(np.asarray(pairs.subset, dtype=object), names)
    if task.split is not None:
        mask &= np.asarray(pairs.split, dtype=object) == task.split
    return int(mask.sum())


def elsewhere(found: MtebImport, corpus: Any) -> str:
    """Why the scores of ``found`` stand beside none of ``corpus``'s results: each task
    whose pairs it does not hold, with the corpus that does; "" when every one is
    here."""
    reasons = []
    for task in dict.fromkeys(result.mteb_task for result in found.results):
        held = pairs_in(task, corpus)
        if held != task.n_pairs:
            reasons.append(
                f"{task.name}'s {task.n_pairs:,} pairs are "
                + (f"{held:,} here" if held else "not here")
                + f" (open {task.corpus})"
            )
    return "; ".join(reasons)


def label_of(model: str) -> str:
    """An imported model's name in lists and charts: "all-MiniLM-L6-v2 (MTEB, imported)"."""
    return f"{model.rsplit('/', 1)[-1]} ({IMPORTED})"


# --- reading ---------------------------------------------------------------------------


def read_mteb_results(path: str | Path) -> MtebImport:
    """:func:`iter_read_mteb_results` run here."""
    return run_job(iter_read_mteb_results(path))


def iter_read_mteb_results(path: str | Path) -> Job[MtebImport]:
    """The MTEB results in ``path``, as a job: one result file, or a folder read
    recursively (MTEB's ``results/<model>/<revision>/<Task>.json`` layout). In a folder,
    MTEB names each file by its task: files of tasks not in :data:`TASKS` are skipped
    unread (a clone of MTEB's results repository holds hundreds of thousands).

    Raises
    ------
    InputError
        Naming the file and the problem: not found, not JSON, not an MTEB result, no
        test split, a main score that is no correlation; a lone file of a task sentspace
        does not evaluate; a folder with no result of a task it does.
    """
    path = Path(path)
    if not path.exists():
        raise NotFoundError("no such file or folder", path)
    if path.is_file():
        return MtebImport((read_mteb_file(path),))
    yield Progress("finding MTEB result files", 0, 1)
    files = sorted(p for p in path.rglob("*.json") if p.name != MODEL_META and p.is_file())
    if not files:
        raise InputError("no MTEB result files (<Task>.json) here or in the folders below", path)
    results, skipped = [], []
    for number, file in enumerate(files):
        if number % 100 == 0:
            yield Progress("reading MTEB results", number, len(files))
        try:
            if file.stem not in TASKS:
                raise UnknownTask(f"MTEB task {file.stem!r} is not one sentspace evaluates", file)
            results.append(read_mteb_file(file))
        except UnknownTask:
            skipped.append(str(file.relative_to(path)))
    if not results:
        raise InputError(
            f"none of its {len(files)} MTEB result files is of a task "
            f"sentspace evaluates ({KNOWN}; MTEB names each file by its "
            "task, STSBenchmark.json...)",
            path,
        )
    return MtebImport(tuple(results), tuple(skipped))


def read_mteb_file(path: str | Path) -> ImportedResult:
    """One MTEB result file (see the module notes); the model is named by a
    ``model_meta.json`` beside it, else by MTEB's folder layout."""
    path = Path(path)
    data = _json_object(path)
    task_name = data.get("task_name", data.get("mteb_dataset_name"))
    if not isinstance(task_name, str) or not task_name:
        raise InputError(
            "no task_name: not an MTEB result file (MTEB's TaskResult has "
            "task_name, scores, mteb_version)",
            path,
        )
    if task_name not in TASKS:
        raise UnknownTask(
            f"MTEB task {task_name!r} is not one sentspace evaluates: it "
            f"compares the STS tasks ({KNOWN}) with relatedness",
            path,
        )
    entry, where = _test_entry(data, path)
    raw = entry.get("main_score")
    if raw is None and isinstance(entry.get("cos_sim"), dict):  # before mteb 1.11
        raw = entry["cos_sim"].get("spearman")
    if not _is_number(raw):
        raise InputError(f"{where}.main_score is {_shown(raw)}, not a number", path)
    per_cent = abs(raw) > 1
    scale = 100.0 if per_cent else 1.0
    main_score = raw / scale
    if not abs(main_score) <= 1:
        raise InputError(
            f"{where}.main_score {raw} is not a correlation, on 0-1 or in per cent", path
        )
    model, revision = _model_of(path)
    version = data.get("mteb_version", entry.get("mteb_version", ""))
    parameters = {
        "task": task_name,
        "split": MTEB_SPLIT,
        "mteb_version": str(version or ""),
        "scale": "per cent" if per_cent else "0-1",
        "source": str(path),
    }
    fingerprint = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    dataset_revision = str(data.get("dataset_revision") or "")
    return ImportedResult(
        provenance=Provenance(
            corpus_name=f"MTEB {task_name}",
            corpus_fingerprint=f"mteb:{task_name}:{dataset_revision}",
            encoder_name=label_of(model),
            encoder_family="mteb",
            encoder_params={"model": model, "revision": revision},
            encoder_fingerprint=fingerprint,
            parameters=parameters,
        ),
        model=model,
        model_revision=revision,
        task=task_name,
        split=MTEB_SPLIT,
        hf_subset=str(entry.get("hf_subset", "default")),
        main_score=float(main_score),
        metrics=_correlations(entry, scale),
        per_cent=per_cent,
        mteb_version=str(version or ""),
        dataset_revision=dataset_revision,
        source=str(path),
    )


def _json_object(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text ({error.reason} at byte {error.start})", path) from None
    except OSError as error:
        raise InputError(f"cannot be read: {error.strerror or error}", path) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"not valid JSON: {error.msg} (column {error.colno})", path, error.lineno
        ) from None
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object (MTEB's TaskResult), found {_shown(data)}", path)
    return data


def _test_entry(data: dict[str, Any], path: Path) -> tuple[dict[str, Any], str]:
    """The scores of the test split, English or the only subset, and where they are in
    the file (for messages)."""
    if "scores" in data:
        scores = data["scores"]
        if not isinstance(scores, dict):
            raise InputError(f"scores is {_shown(scores)}, expected an object of splits", path)
        if MTEB_SPLIT not in scores:
            raise InputError(
                f"no {MTEB_SPLIT!r} scores (MTEB scores {data.get('task_name')}"
                f" on its test split; the file has "
                f"{', '.join(map(repr, scores)) or 'none'})",
                path,
            )
        entries = scores[MTEB_SPLIT]
        if (
            not isinstance(entries, list)
            or not entries
            or not all(isinstance(e, dict) for e in entries)
        ):
            raise InputError(
                f"scores.{MTEB_SPLIT} is {_shown(entries)}, expected a list of score objects", path
            )
        chosen = next(
            (k for k, e in enumerate(entries) if e.get("hf_subset") in ("default", "en", "en-en")),
            0,
        )
        return entries[chosen], f"scores.{MTEB_SPLIT}[{chosen}]"
    # Before mteb 1.11: {"test": {"cos_sim": {...}, ...}}, or per subset {"test": {"en": ...}}.
    split = data.get(MTEB_SPLIT)
    if not isinstance(split, dict):
        raise InputError(f"no scores and no {MTEB_SPLIT!r} object: not an MTEB result file", path)
    if "main_score" in split or "cos_sim" in split:
        return split, MTEB_SPLIT
    for subset in ("default", "en", "en-en"):
        if isinstance(split.get(subset), dict):
            return split[subset], f"{MTEB_SPLIT}.{subset}"
    raise InputError(f"{MTEB_SPLIT} has no main_score nor cos_sim.spearman", path)


def _correlations(entry: dict[str, Any], scale: float) -> dict[str, float]:
    """The entry's correlations other than the main score, flattened as mteb 1.11 and
    later name them (cos_sim.spearman -> cosine_spearman), on 0-1."""
    flat: dict[str, Any] = {}
    for key, value in entry.items():
        if isinstance(value, dict):
            prefix = {"cos_sim": "cosine"}.get(key, key)
            flat.update({f"{prefix}_{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    return {
        key: float(value) / scale
        for key, value in flat.items()
        if key.endswith(("spearman", "pearson")) and _is_number(value)
    }


def _model_of(path: Path) -> tuple[str, str]:
    """(model name, revision) from ``model_meta.json`` beside the file, else from MTEB's
    layout ``<org>__<model>/<revision>/<Task>.json``; else :data:`UNNAMED`."""
    meta = path.parent / MODEL_META
    if meta.is_file():
        data = _json_object(meta)
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise InputError('no model name ("name")', meta)
        return name, str(data.get("revision") or path.parent.name)
    folder = path.parent.parent.name
    if "__" in folder:
        return folder.replace("__", "/", 1), path.parent.name
    if "__" in path.parent.name:  # <model>/<Task>.json, no revision folder
        return path.parent.name.replace("__", "/", 1), ""
    return UNNAMED, ""


def _is_number(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _shown(value: Any) -> str:
    if value is None:
        return "missing"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


# --- beside sentspace's results ------------------------------------------------------


@dataclass(frozen=True)
class Counterpart:
    """An imported task's pairs in a sentspace relatedness result: the result's scores
    over exactly those pairs (``metrics``: "pooled spearman", "STSBenchmark spearman";
    empty when they are part of a larger subset), and the Spearman over them."""

    metrics: tuple[str, ...]
    spearman: float
    n_pairs: int


def counterpart(imported: ImportedResult, result: Any) -> Counterpart | None:
    """The pairs of ``imported``'s task in ``result`` (a relatedness result) with its
    Spearman over them, or None when the result did not evaluate exactly those pairs
    (another corpus, another split, another evaluation, or another imported score)."""
    found = task_pairs(imported.mteb_task, result)
    if found is None:
        return None
    mask, names = found
    # A lone subset's scores are the pooled ones (one row each, "pooled").
    metrics = ((f"{POOLED} spearman",) if mask.all() else ()) + (
        (f"{names[0]} spearman",) if len(names) == 1 and len(result.subsets) > 1 else ()
    )
    if mask.all():
        spearman = float(result.pooled.spearman)
    else:
        from scipy import stats  # noqa: PLC0415 (lazy: slow)

        spearman = float(stats.spearmanr(result.cosine[mask], result.gold[mask]).statistic)
    return Counterpart(metrics, spearman, int(mask.sum()))


def same_model(imported: ImportedResult, provenance: Provenance) -> bool:
    """Whether ``provenance``'s encoder is the model MTEB scored: a sentence-transformers
    model of the same name (the bundled all-MiniLM-L6-v2, or a local folder so named)
    with its own pooling."""
    params = provenance.encoder_params
    return (
        provenance.encoder_family == SENTENCE_TRANSFORMERS
        and params.get("pooling") is None
        and imported.model != UNNAMED
        and Path(str(params.get("model", ""))).name.lower()
        == imported.model.rsplit("/", 1)[-1].lower()
    )


def beside(imported: ImportedResult, results: Sequence[Any]) -> list[tuple[Any, Counterpart]]:
    """The ``results`` (sentspace's runs) that evaluated ``imported``'s task pairs, each
    with its :class:`Counterpart`, in order."""
    return [
        (result, found)
        for result in results
        if (found := counterpart(imported, result)) is not None
    ]


@dataclass(frozen=True)
class Arrangement:
    """The bars of one metric across encoders with the imported scores among them:
    ``order`` holds ("run", index into the runs) and ("imported", index into the
    imported scores), each imported bar right after the run of the same model; ``notes``
    say what each imported bar is beside, and why others are not drawn."""

    order: tuple[tuple[str, int], ...]
    notes: tuple[str, ...]


def arrange(
    metric: str, current: Any, runs: Sequence[Any], imported: Sequence[ImportedResult]
) -> Arrangement:
    """Where the imported scores go among ``runs`` (results of one evaluation of one
    corpus) when the chart shows ``metric`` of ``current``: those whose task pairs are
    exactly the pairs ``metric`` is computed over, a bar each without an interval."""
    order: list[tuple[str, int]] = [("run", k) for k in range(len(runs))]
    notes, elsewhere = [], []
    for number, score in enumerate(imported):
        found = counterpart(score, current)
        if found is None:
            elsewhere.append(score)
            continue
        if metric not in found.metrics:
            notes.append(
                f"{score.label} ({score.task}): MTEB's score is a Spearman of "
                f"these pairs; choose {found.metrics[0]!r} to see it"
                if found.metrics
                else f"{score.label} ({score.task}): its pairs are part of a subset "
                f"here, with no score of their own"
            )
            continue
        same = [
            (k, mine)
            for k, run in enumerate(runs)
            if same_model(score, run.provenance) and (mine := counterpart(score, run)) is not None
        ]
        at = next(
            (
                position
                for position, (kind, k) in enumerate(order)
                if kind == "run" and same and k == same[-1][0]
            ),
            len(order) - 1,
        )
        while at + 1 < len(order) and order[at + 1][0] == "imported":
            at += 1
        order.insert(at + 1, ("imported", number))
        scale = ", per cent in the file" if score.per_cent else ""
        note = f"{score.label} {score.main_score:.4f}{scale}; "
        if same:
            run, mine = runs[same[-1][0]], same[-1][1]
            note += f"sentspace's {run.provenance.encoder_name} {mine.spearman:.4f}, on "
        else:
            note += "no sentspace run of this model on "
        notes.append(note + f"MTEB's {found.n_pairs:,} {score.task} {score.split} pairs")
    if elsewhere:
        tasks = ", ".join(dict.fromkeys(score.task for score in elsewhere))
        notes.append(
            f"{len(elsewhere)} imported MTEB score"
            f"{'s are' if len(elsewhere) > 1 else ' is'} of other pairs: {tasks}"
        )
    return Arrangement(tuple(order), tuple(notes))
