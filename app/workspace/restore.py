"""A saved workspace opened again as a session: corpora with their journals, runs,
results, view settings and the selection, each checked against the schema its field
declares (:data:`SAVED_STATE`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.analysis.cache import cached_encode
from sentspace.app.analysis.compare import SpaceComparison
from sentspace.app.analysis.evaluations import EVALUATIONS
from sentspace.app.analysis.explain import PairExplanation
from sentspace.app.analysis.explore import Exploration
from sentspace.app.analysis.filters import Filter
from sentspace.app.analysis.mteb_results import ImportedResult
from sentspace.app.analysis.regions import Regions
from sentspace.app.analysis.results import Result
from sentspace.app.analysis.suspicious import ReviewList
from sentspace.app.annotations.history import History
from sentspace.app.annotations.journal import read_journal
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.jobs import Job, Progress, run_job
from sentspace.app.base.schema import (
    SchemaError,
    check_fields,
    describe,
    field_hints,
)
from sentspace.app.corpora import (
    load_corpus,
    load_named_corpus,
)
from sentspace.app.corpora.model import Corpus
from sentspace.app.state.session import (
    CLASSIFICATION,
    CorpusState,
    EncoderRun,
    EvaluationRun,
    Session,
    encoded_space,
)
from sentspace.app.workspace.codec import bars_tests_of_entry, decode_state
from sentspace.app.workspace.format import load_workspace
from sentspace.app.workspace.model import (
    EncoderEntry,
    SavedResult,
    Workspace,
    WorkspaceError,
)
from sentspace.app.workspace.paths import workspace_journal
from sentspace.models import ENCODERS, make_encoder
from sentspace.models.base import Encoder, fitted_copy
from sentspace.models.precomputed import Precomputed
from sentspace.models.word2vec import read_training_text

#: What a corpus entry's ``state`` holds (:func:`~sentspace.app.workspace.snapshot.workspace_of`), as read back:
#: key -> (type, required). Keys not listed (a newer version's) are left alone.
SAVED_STATE: dict[str, tuple[Any, bool]] = {
    "runs": (list, False),
    "shown": (str | None, False),
    "encoder": (str | None, False),
    "review_lists": (dict, False),
    "view": (dict, False),
    "selection": (dict, False),
    "regions": (Any, False),
    "explanation": (Any, False),
    "imported": (Any, False),
    "agreements": (list, False),
    "compared": (list[int], False),
    "comparison": (Any, False),
    "filter": (dict, False),
    "paired_tests": (list, False),
}
SAVED_RUN = {
    "encoder": (int, True),
    "training_text": (str | None, False),
    "exploration": (dict, True),
}
SAVED_AGREEMENT = {
    "position": (int, True),
    "encoders": (str, True),
    "seed": (int, True),
    "command": (str, True),
    "result": (dict, True),
}
SAVED_SELECTION = {"indices": (list[int], False), "focus": (int, False), "source": (str, False)}


def _saved(
    values: Any, fields: dict[str, tuple[Any, bool]], where: str, path: str | Path
) -> dict[str, Any]:
    """``values`` checked against ``fields`` (keys it does not list ignored)."""
    try:
        if not isinstance(values, dict):
            raise SchemaError(where, f"should be an object, found {describe(values)}")
        return check_fields(
            {key: value for key, value in values.items() if key in fields}, fields, where
        )
    except SchemaError as error:
        raise WorkspaceError(str(error), path) from None


def _decoded(
    saved: dict[str, Any], key: str, corpus: Corpus, where: str, path: str | Path, kind: Any
) -> Any:
    """``saved[key]`` (None when missing) decoded as a ``kind``; errors name ``where.key``."""
    return decode_state(saved.get(key), corpus, where=f"{where}.{key}", path=path, kind=kind)


def saved_review_lists(data: Any, corpus: Corpus, where: str, path: str | Path) -> dict[str, Any]:
    """The review lists a workspace saved (kind -> ReviewList), each checked row by row
    against ``corpus``: its columns of one length, every row's key and sentences there.

    Raises
    ------
    WorkspaceError
        ``data`` is not such lists, or a row names what the corpus does not have.
    """

    lists = decode_state(data, corpus, where=where, path=path, kind=dict[str, ReviewList])
    for kind, items in lists.items():
        try:
            items.take(np.arange(len(items)))  # every per-row column as long as the rest
            for row in range(len(items)):
                items.key(row)
                if not all(0 <= s < len(corpus) for s in items.sentences_of(row)):
                    raise IndexError(f"row {row} names a sentence outside the corpus")
            items.columns()
        except (IndexError, ValueError, KeyError, TypeError) as error:
            raise WorkspaceError(
                f"{where}.{kind}: not a list of this corpus ({error})", path
            ) from None
    return lists


def restore_session(workspace: Workspace, path: str | Path) -> Job[Session]:
    """The session a workspace saved (:func:`~sentspace.app.workspace.snapshot.workspace_of`), as a job: each
    corpus is loaded and its journal replayed, each run's embeddings come back through
    the embedding cache (the saved layout is kept, not recomputed), and results are
    restored with the arrays their charts draw. The first corpus is current.

    Raises
    ------
    WorkspaceError
        A corpus's saved state is malformed (a key of the wrong type, an encoder index
        outside the list, a result that is not one, a layout for another number of
        sentences, a selection outside the corpus); the message names the key path.
    EditError
        A journal the workspace names is missing (``JournalMissing``, saying how to
        start one), not a journal file (a FIFO, a device, a folder) or not a journal.
    """

    session = Session()
    entries = workspace.corpora
    parts_of_run = {
        name: (hint, True)
        for name, hint in field_hints(Exploration).items()
        if name in ("projection", "faithfulness", "classification", "notes")
    }

    def encoder_of(state: CorpusState, number: int, where: str) -> Encoder:
        """Encoder ``number`` of the workspace, which ``where`` names."""
        if not 0 <= number < len(workspace.encoders):
            raise WorkspaceError(f"{where}: {number} is not an encoder the workspace lists", path)
        entry = workspace.encoders[number]
        if entry.family != "precomputed":
            return make_workspace_encoder(entry, path)
        params = _saved(entry.params, {"path": (str, True)}, f"encoders[{number}].params", path)
        state.precomputed[entry.spec] = Precomputed(params["path"], state.corpus)
        return state.precomputed[entry.spec]

    for number, entry in enumerate(entries):
        yield Progress(f"opening {entry.spec}", number, len(entries))
        where = f"corpora[{number}].state"
        saved = _saved(entry.state or {}, SAVED_STATE, where, path)
        original = (
            load_workspace_corpus(workspace, number, path)
            if entry.files
            else load_corpus(entry.spec)
        )
        # A journal the workspace names must be there (the window asks first to start
        # a missing one beside the workspace); one saved without: the data folder's.
        journal = workspace_journal(workspace, number, path)
        annotations = AnnotationSession.open(original, journal, create=journal is None)
        state = CorpusState(entry.spec, original, annotations)
        corpus = state.corpus
        for run_number, run in enumerate(saved.get("runs", [])):
            at = f"{where}.runs[{run_number}]"
            run = _saved(run, SAVED_RUN, at, path)
            encoder = encoder_of(state, run["encoder"], f"{at}.encoder")
            spec = workspace.encoders[run["encoder"]].spec
            parts = _saved(
                decode_state(run["exploration"], corpus, where=f"{at}.exploration", path=path),
                parts_of_run,
                f"{at}.exploration",
                path,
            )
            shape = parts["projection"].coordinates.shape
            if shape != (len(corpus), 2):
                raise WorkspaceError(
                    f"{at}.exploration.projection: a layout of shape "
                    f"{shape} for {len(corpus):,} sentences",
                    path,
                )
            training = run.get("training_text")
            texts = (
                read_training_text(training)
                if training and Path(training).is_file()
                else corpus.texts
            )
            fitted = yield from fitted_copy(encoder, texts)
            embeddings = (
                yield from cached_encode(fitted, corpus.fingerprint, corpus.texts)
                if fitted.cacheable
                else fitted.iter_encode(corpus.texts)
            )
            state.runs[spec] = EncoderRun(
                spec,
                Exploration(
                    corpus,
                    fitted,
                    embeddings,
                    parts["projection"],
                    parts["faithfulness"],
                    parts["classification"],
                    tuple(parts["notes"]),
                ),
                training,
            )
        for position, index in enumerate(saved.get("compared", [])):
            encoder = encoder_of(state, index, f"{where}.compared[{position}]")
            state.compared[workspace.encoders[index].spec] = yield from encoded_space(
                corpus, encoder
            )
        state.comparison = _decoded(
            saved, "comparison", corpus, where, path, SpaceComparison | None
        )
        state.shown, state.encoder = saved.get("shown"), saved.get("encoder")
        state.review_lists = saved_review_lists(
            saved.get("review_lists", {}), corpus, f"{where}.review_lists", path
        )
        state.view = dict(saved.get("view", {}))
        state.selection = _saved(
            saved.get("selection", {}), SAVED_SELECTION, f"{where}.selection", path
        )
        chosen = [*state.selection.get("indices", []), state.selection.get("focus", -1)]
        if any(not -1 <= index < len(corpus) for index in chosen) or -1 in chosen[:-1]:
            raise WorkspaceError(
                f"{where}.selection: a sentence outside the corpus's {len(corpus):,}", path
            )
        try:
            state.filter = Filter.from_dict(saved.get("filter", {}))
        except ValueError as error:
            raise WorkspaceError(f"{where}.filter: {error}", path) from None
        state.regions = _decoded(saved, "regions", corpus, where, path, Regions | None)
        state.explanation = _decoded(
            saved, "explanation", corpus, where, path, PairExplanation | None
        )
        state.imported = (
            _decoded(saved, "imported", corpus, where, path, tuple[ImportedResult, ...] | None)
            or ()
        )
        session.states[entry.spec] = state
    for number, evaluation in enumerate(workspace.evaluations):
        state = session.states[entries[evaluation.corpus].spec]
        spec = workspace.encoders[evaluation.encoder].spec
        result = (
            decode_state(
                evaluation.state,
                state.corpus,
                where=f"evaluations[{number}].state",
                path=path,
                kind=Result,
            )
            if evaluation.state is not None
            else SavedResult(evaluation)
        )
        options = {name: str(value) for name, value in evaluation.options.items()}
        run = EvaluationRun(
            evaluation.name,
            spec,
            evaluation.seed,
            result,
            state.eval_command(
                evaluation.name,
                [spec],
                evaluation.seed,
                options,
                result.provenance.corpus_fingerprint,
            ),
            evaluation.label or evaluation.name,
            options,
        )
        state.evaluations.append(run)
        if run.name == "costra" and run.label == run.name:
            state.costra_result = result
    for number, entry in enumerate(entries):
        state = session.states[entry.spec]
        where = f"corpora[{number}].state.agreements"
        saved_state = _saved(entry.state or {}, SAVED_STATE, f"corpora[{number}].state", path)
        for position, saved in enumerate(saved_state.get("agreements", [])):
            saved = _saved(saved, SAVED_AGREEMENT, f"{where}[{position}]", path)
            state.evaluations.insert(
                saved["position"],
                EvaluationRun(
                    "agreement",
                    saved["encoders"],
                    saved["seed"],
                    decode_state(
                        saved["result"],
                        state.corpus,
                        where=f"{where}[{position}].result",
                        path=path,
                        kind=Result,
                    ),
                    saved["command"],
                ),
            )
        # Once its results are all listed: the tests name them by position.
        listed = [(run.label, run.result, run.command) for run in state.evaluations]
        for position, saved in enumerate(saved_state.get("paired_tests", [])):
            at = f"corpora[{number}].state.paired_tests[{position}]"
            bars = bars_tests_of_entry(saved, listed, at, path)
            if bars is not None:
                state.paired_tests.append(bars)
    for state in session.states.values():
        # A workspace saved before runs' classifications were evaluations lists them.
        for spec, run in state.runs.items():
            classification = run.exploration.classification
            if classification is not None and not any(
                old.name == CLASSIFICATION
                and old.encoder == spec
                and old.result.provenance.corpus_fingerprint
                == classification.provenance.corpus_fingerprint
                for old in state.evaluations
            ):
                state.record_classification(spec, classification)
    if entries:
        session.current = session.states[entries[0].spec]
        session.selection.restore(session.current.selection)
        session._own_selection()
    return session


def load_workspace_corpus(
    workspace: Workspace, index: int, path: str | Path, *, corrected: bool = False
) -> Corpus:
    """Load corpus ``index`` of the workspace saved at ``path``; with ``corrected``, with
    its journal's edits applied.

    Raises
    ------
    WorkspaceError
        A file it needs no longer exists, or the files now load into another corpus.
    """
    entry = workspace.corpora[index]
    named = not os.path.isabs(entry.spec)
    # A named corpus is wherever its name finds it now (a package, the shared data
    # folder): its fingerprint says whether it is the one saved.
    missing = [] if named else [source for source in entry.files if not Path(source).is_file()]
    if not named and not Path(entry.spec).exists():
        missing.insert(0, entry.spec)
    if missing:
        raise WorkspaceError(f"corpus {index} refers to {missing[0]}, which no longer exists", path)
    corpus = load_named_corpus(entry.spec) if named else load_corpus(entry.spec)
    if corpus.fingerprint != entry.fingerprint:
        raise WorkspaceError(
            f"corpus {entry.spec} has changed since the workspace was "
            f"saved (fingerprint {corpus.fingerprint}, saved "
            f"{entry.fingerprint})",
            path,
        )
    if not corrected:
        return corpus
    journal = workspace_journal(workspace, index, path)
    if journal is None:
        raise WorkspaceError(f"corpus {entry.spec} was saved without an edit journal", path)
    history = History(corpus)
    history.feed(read_journal(journal, corpus.fingerprint)[1])
    return history.corpus


def make_workspace_encoder(entry: EncoderEntry, path: str | Path | None = None) -> Encoder:
    """The encoder an entry describes: its family with the saved parameters, or its spec
    for encoders outside the registry (word-vector files, precomputed). Parameters the
    family does not take (or refuses) are a :class:`WorkspaceError` naming ``path``."""
    if entry.family in ENCODERS:
        try:
            return ENCODERS[entry.family](**entry.params)
        except (TypeError, ValueError) as error:
            raise WorkspaceError(
                f"encoder {entry.spec}: its saved parameters do not fit {entry.family} ({error})",
                path,
            ) from None
    return make_encoder(entry.spec)


def run_workspace(
    path: str | Path, on_progress: Callable[[Progress], Any] | None = None
) -> list[Any]:
    """Re-run every evaluation of the workspace at ``path``, in order, headless.

    Each runs as saved (corpus, corrected or not, encoder with its parameters, seed,
    options); the results' ``summary()`` rows are those the workspace saved when nothing
    has changed (compare with :func:`changed_summaries`).

    Raises
    ------
    WorkspaceError
        The workspace is corrupt or a file it needs is missing or changed.
    """
    workspace = load_workspace(path)
    corpora: dict[tuple[int, bool], Corpus] = {}
    results = []
    for entry in workspace.evaluations:
        key = (entry.corpus, entry.corrected)
        if key not in corpora:
            corpora[key] = load_workspace_corpus(
                workspace, entry.corpus, path, corrected=entry.corrected
            )
        encoder = make_workspace_encoder(workspace.encoders[entry.encoder], path)
        run, _ = EVALUATIONS[entry.name]
        results.append(
            run_job(run(corpora[key], encoder, seed=entry.seed, **entry.options), on_progress)
        )
    return results


def changed_summaries(
    workspace: Workspace, results: list[Any]
) -> list[tuple[int, list[list[str]], list[list[str]]]]:
    """``(evaluation index, saved rows, new rows)`` for each result whose summary
    differs from the saved one; empty when the run reproduced the workspace."""
    return [
        (number, entry.summary, new)
        for number, (entry, result) in enumerate(zip(workspace.evaluations, results))
        if (new := [[label, value] for label, value in result.summary()]) != entry.summary
    ]
