"""The session: every corpus open in the window, what was made of each, and the one
selection every view shows. Qt-free (napari's ``components`` idea): the views subscribe
to plain callback events and turn clicks into calls here.

A :class:`Session` holds one :class:`CorpusState` per open corpus, keyed by the spec it
was opened from, and which one is ``current``. Results are routed by the session to the
corpus they were asked for (a queued job may finish after another corpus was shown), and
only the current corpus's changes reach the views. The workspace package saves it
(:func:`sentspace.app.workspace.snapshot.workspace_of`) and restores it
(:func:`sentspace.app.workspace.restore.restore_session`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sentspace.app.analysis.cache import cached_encode
from sentspace.app.analysis.compare import compare_encoders
from sentspace.app.analysis.evaluations import COMPARISONS, EVALUATIONS
from sentspace.app.analysis.explore import Exploration
from sentspace.app.analysis.filters import Filter
from sentspace.app.analysis.projection import DEFAULTS
from sentspace.app.annotations.history import History
from sentspace.app.annotations.journal import journal_path
from sentspace.app.annotations.session import AnnotationSession
from sentspace.app.base.commands import (
    LAYOUT_PARAMETERS,
    ORIGINAL,
    Version,
    eval_command,
    export_map_command,
)
from sentspace.app.base.jobs import Job
from sentspace.app.corpora.model import Corpus
from sentspace.models.base import Embeddings, Encoder, fitted_copy

#: The evaluation a run makes of a corpus with groups (``explore``).
CLASSIFICATION = "classification"


class Event:
    """A list of callbacks called in order with the emitted arguments."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., Any]] = []

    def connect(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        self._callbacks.append(callback)
        return callback

    def disconnect(self, callback: Callable[..., Any]) -> None:
        self._callbacks.remove(callback)

    def emit(self, *args: Any) -> None:
        for callback in list(self._callbacks):
            callback(*args)


class Selection:
    """The sentences selected, in the corpus shown: ``indices`` (sorted, unique), the
    ``focus`` sentence the Inspector shows (-1: none) and the ``source`` that set them
    ("point", "rectangle", "lasso", "search", "chart", "review", "costra", "compare",
    "neighbours"...). ``corpus`` is the spec of the corpus its numbers index and
    ``version`` that corpus's fingerprint (its edits) when they were chosen, so a view
    can tell a selection of another corpus or version from its own. ``changed`` is
    emitted with the selection after each change."""

    def __init__(self) -> None:
        self.indices = np.empty(0, dtype=np.int64)
        self.focus = -1
        self.source = ""
        self.corpus = ""
        self.version = ""
        self.changed = Event()

    def belongs_to(self, state: CorpusState | None) -> bool:
        """Whether the selection's numbers index ``state``'s corpus as it is now."""
        return (
            state is not None
            and self.corpus == state.spec
            and self.version == state.corpus.fingerprint
        )

    def select(
        self,
        indices: Sequence[int] | np.ndarray,
        *,
        focus: int | None = None,
        source: str = "",
        emit: bool = True,
    ) -> None:
        """Select ``indices``; the focus is ``focus``, by default the first of them.
        Without ``emit``, nobody is told (yet)."""
        indices = np.asarray(indices, dtype=np.int64).reshape(-1)
        self.focus = int(focus) if focus is not None else (int(indices[0]) if len(indices) else -1)
        self.indices = np.unique(indices if self.focus < 0 else np.append(indices, self.focus))
        self.source = source
        if emit:
            self.changed.emit(self)

    def clear(self) -> None:
        self.select([], focus=-1, source="")

    def snapshot(self) -> dict[str, Any]:
        """The selection as a dict; ``indices`` is this selection's own array, shared,
        since a new selection makes a new one (a workspace writes it as a list)."""
        return {"indices": self.indices, "focus": self.focus, "source": self.source}

    def restore(self, snapshot: dict[str, Any] | None, emit: bool = True) -> None:
        snapshot = snapshot or {}
        self.select(
            snapshot.get("indices", []),
            focus=snapshot.get("focus", -1),
            source=snapshot.get("source", ""),
            emit=emit,
        )


@dataclass(eq=False)
class EncoderRun:
    """An encoder run on a corpus: its spec, its exploration (fitted encoder, embeddings,
    projection, faithfulness, classification) and the training text file it learnt from
    (None: the corpus itself)."""

    spec: str
    exploration: Exploration
    training_text: str | None = None

    @property
    def space(self) -> tuple[str, Encoder, Embeddings]:
        """Its column in the neighbours view: (name, fitted encoder, embeddings)."""
        exploration = self.exploration
        return exploration.encoder.name, exploration.encoder, exploration.embeddings


@dataclass(eq=False)
class EvaluationRun:
    """An evaluation asked for on a corpus, and its result."""

    name: str
    encoder: str
    seed: int
    result: Any
    command: str = ""
    #: The name shown in the results list ("classification (corrected)").
    label: str = ""
    #: The evaluation's options (``sentspace.app.analysis.evaluations.OPTIONS``) it was run with.
    options: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.label = self.label or self.name

    def same_as(self, other: EvaluationRun) -> bool:
        """Whether ``other`` asks the same thing of the same version of the corpus."""
        return (
            (self.name, self.encoder, self.seed, self.options, self.label)
            == (other.name, other.encoder, other.seed, other.options, other.label)
            and self.result.provenance.corpus_fingerprint
            == other.result.provenance.corpus_fingerprint
        )


def edits_since(result: Any, corpus: Corpus) -> int | None:
    """How many edits ``corpus`` has that ``result`` was computed before: 0 when it
    describes ``corpus`` as it is now, None when it describes another version that is
    not an earlier one (edits taken back since)."""
    provenance = result.provenance
    if provenance.corpus_fingerprint == corpus.fingerprint:
        return 0
    behind = corpus.edits - getattr(provenance, "corpus_edits", 0)
    return behind if behind > 0 else None


def describe_result(result: Any, evaluation: str, corpus: Corpus | None = None) -> str:
    """A result's line in a results list: of the sentences passing a filter, it says
    which; one computed before later edits of ``corpus`` says so."""
    provenance = result.provenance
    note = version_note(result, corpus) if corpus is not None else ""
    where = provenance.parameters.get("where")
    # What the filter kept, as the evaluation counted it ("2,793 of 4,906 test pairs:
    # where label == ..."); a result of before that was counted says its expression.
    kept = provenance.parameters.get("evaluated") or (where and f"where {where}")
    return (
        f"{evaluation} · {provenance.encoder_name} on {provenance.corpus_name}"
        + (f" · {kept}" if kept else "")
        + (f" · {note}" if note else "")
    )


def version_note(result: Any, corpus: Corpus) -> str:
    """ "" for a result of ``corpus`` as it is now, else which version it describes."""
    behind = edits_since(result, corpus)
    if behind == 0:
        return ""
    if behind is None:
        return "on another version of the corpus"
    return f"before {behind} edit{'s' if behind > 1 else ''}"


@dataclass(eq=False)
class CorpusState:
    """One open corpus and everything made of it in this session."""

    spec: str
    original: Corpus
    annotations: AnnotationSession | None = None
    #: Every encoder run on it, by encoder spec, in the order run.
    runs: dict[str, EncoderRun] = field(default_factory=dict)
    #: The run the projection shows (the last one made), by encoder spec.
    shown: str | None = None
    #: The encoder chosen when it was left.
    encoder: str | None = None
    evaluations: list[EvaluationRun] = field(default_factory=list)
    costra_result: Any = None
    #: The last Compare encoders result (app.compare.SpaceComparison).
    comparison: Any = None
    #: The spaces Compare encoded, by encoder spec, as :attr:`spaces` gives them.
    compared: dict[str, tuple[str, Encoder, Embeddings]] = field(default_factory=dict)
    #: Suspicious-annotation tables, by kind.
    review_lists: dict[str, Any] = field(default_factory=dict)
    #: Embeddings loaded from files, aligned to this corpus, by encoder spec.
    precomputed: dict[str, Any] = field(default_factory=dict)
    #: The view's settings (colour scheme, search, projection method, seed, parameters).
    view: dict[str, Any] = field(default_factory=dict)
    #: The selection when it was left.
    selection: dict[str, Any] = field(default_factory=dict)
    #: What every view shows of it (the Filter panel's charts, chips and expression).
    filter: Filter = field(default_factory=Filter)
    #: Regions (app.regions.Regions) found on the layout shown; a new layout drops them.
    regions: Any = None
    #: The last pair explained (app.explain.PairExplanation).
    explanation: Any = None
    #: How the last job asked for on it ended ("Done in 2.1 s.", "Failed: ...").
    status: str = ""
    #: Published scores read from MTEB's result files (app.mteb_results.ImportedResult),
    #: drawn beside this corpus's results of the same task; never in a paired test.
    imported: tuple[Any, ...] = ()
    #: Paired tests of *Across encoders* bars made of its results, most recent last
    #: (app.evaluations.paired.BarsTests): saved with them, shown again unmade.
    paired_tests: list[Any] = field(default_factory=list)

    @property
    def corpus(self) -> Corpus:
        """The corpus with its edits applied."""
        return self.annotations.corpus if self.annotations is not None else self.original

    @property
    def exploration(self) -> Exploration | None:
        run = self.runs.get(self.shown) if self.shown is not None else None
        return run.exploration if run is not None else None

    @property
    def classification(self) -> EvaluationRun | None:
        """The classification the run shown is drawn with: its rings, legend, the
        Classification tab and the Evaluations panel's row all read this one record.
        Of the shown run's encoder, the last one of the corpus as it is now, else the
        last one asked (then of another version: ``version_note`` says which)."""
        if self.shown is None:
            return None
        mine = [
            run
            for run in self.evaluations
            if run.name == CLASSIFICATION
            and run.encoder == self.shown
            and hasattr(run.result, "misclassified")
        ]
        now = [
            run
            for run in mine
            if run.result.provenance.corpus_fingerprint == self.corpus.fingerprint
        ]
        runs = now or mine
        return runs[-1] if runs else None

    def record_classification(self, encoder: str, result: Any) -> bool:
        """Keep a run's classification ``result`` with the evaluations (one asked
        before of the same version with the same seed gives way); False when it is
        there already (a new layout of the same run)."""
        if result is None or any(run.result is result for run in self.evaluations):
            return False
        seed = result.provenance.parameters.get("seed", 0)
        run = EvaluationRun(
            CLASSIFICATION,
            encoder,
            seed,
            result,
            self.eval_command(
                CLASSIFICATION, [encoder], seed, fingerprint=result.provenance.corpus_fingerprint
            ),
        )
        self.evaluations = [old for old in self.evaluations if not old.same_as(run)]
        self.evaluations.append(run)
        return True

    @property
    def spaces(self) -> dict[str, tuple[str, Encoder, Embeddings]]:
        """Every encoder space of this corpus: its runs', then those Compare encoded."""
        return {**self.compared, **{spec: run.space for spec, run in self.runs.items()}}

    def version(self, fingerprint: str | None = None) -> Version | None:
        """The journal records that make the version of this corpus with ``fingerprint``
        (default: as it is now) from the original: none for the original; for the corpus
        as it is now, the journal up to the last record replayed; for an earlier version
        (a result from before later edits), up to the first record that gave it. None
        when the journal never gave it."""
        annotations, corpus = self.annotations, self.corpus
        if annotations is None or corpus is self.original:
            return ORIGINAL
        journal = (str(annotations.journal.path),)
        if fingerprint is None or fingerprint == corpus.fingerprint:
            return Version(journal, annotations.last_replayed)
        if fingerprint == self.original.fingerprint:
            return ORIGINAL
        history = History(self.original)
        for record in annotations.journal.records:
            history.feed([record])
            if history.corpus.fingerprint == fingerprint:
                return Version(journal, record.id)
        return None

    def eval_command(
        self,
        evaluation: str,
        encoders: Sequence[str],
        seed: int,
        options: dict[str, str] | None = None,
        fingerprint: str | None = None,
    ) -> str:
        """:func:`~sentspace.app.base.commands.eval_command` of this corpus's version with
        ``fingerprint`` (default: as it is now), its journal named when it is edited; ""
        when no command can make that version."""
        version = self.version(fingerprint)
        return (
            ""
            if version is None
            else eval_command(evaluation, self.spec, encoders, seed, options, version)
        )

    def evaluation(
        self,
        name: str,
        specs: Sequence[str],
        encoders: Sequence[Encoder],
        seed: int,
        options: dict[str, str] | None = None,
        *,
        original: bool = False,
        label: str = "",
    ) -> Job[EvaluationRun]:
        """Evaluation ``name`` (or comparison, of several encoders) of the corpus as it is
        now (the original with ``original``) by ``encoders`` (their ``specs``), as a job
        giving the :class:`EvaluationRun` with the command that makes it again. The
        corpus and the command are taken now: a job queued behind others evaluates what
        was shown when it was asked for."""
        options = dict(options or {})
        corpus = self.original if original else self.corpus
        command = self.eval_command(name, specs, seed, options, corpus.fingerprint)
        if name in COMPARISONS:
            job = COMPARISONS[name][0](corpus, list(encoders), seed=seed)
            return _evaluation_run(job, name, ",".join(specs), seed, command, label, {})
        job = EVALUATIONS[name][0](corpus, encoders[0], seed=seed, **options)
        return _evaluation_run(job, name, specs[0], seed, command, label, options)

    def map_command(
        self, exploration: Exploration, encoder: str, out: str | Path, regions: bool = False
    ) -> str:
        """The ``sentspace export-map`` command that writes ``exploration`` (of this
        corpus, by the encoder ``encoder``) with its layout to ``out``; "" when no
        command can make its version of the corpus."""

        version = self.version(exploration.corpus.fingerprint)
        projection = exploration.projection
        defaults = {"seed": projection.parameters.get("seed", 0), **DEFAULTS[projection.method]}
        layout = {
            name: value
            for name, value in projection.parameters.items()
            if value != defaults.get(name)
        }
        if version is None or not set(layout) <= set(LAYOUT_PARAMETERS):
            return ""
        return export_map_command(
            self.spec,
            encoder,
            projection.method,
            defaults["seed"],
            out,
            layout=layout,
            regions=regions,
            version=version,
        )

    def close(self) -> None:
        if self.annotations is not None:
            self.annotations.close()


def _evaluation_run(
    job: Job[Any],
    name: str,
    spec: str,
    seed: int,
    command: str,
    label: str,
    options: dict[str, str],
) -> Job[EvaluationRun]:
    result = yield from job
    return EvaluationRun(name, spec, seed, result, command, label, options)


class Session:
    """The open corpora, the current one, and the selection in it.

    Events (plain callbacks, no Qt), each called with the state concerned
    ------
    corpus_opened(state), corpus_closed(spec), current_changed(state or None);
    ran (a run's exploration), evaluated (a result added or replaced), compared (a
    Compare result), spaces (an encoder space for the neighbours), reviewed (review
    lists), edited (an edit, undo or redo: a new version), regions, explained,
    precomputed (embeddings loaded), viewed(state, key) (a setting of ``state.view``),
    filtered (``state.filter`` changed),
    status (how its last job ended), imported (MTEB scores read); ``modified(state)``
    after any change worth saving.

    A view subscribes with :meth:`on_current` to hear only of the corpus shown, and
    redraws from ``session.current`` when ``current_changed`` fires.
    """

    def __init__(self) -> None:
        self.states: dict[str, CorpusState] = {}
        self.current: CorpusState | None = None
        self.selection = Selection()
        self.corpus_opened = Event()
        self.corpus_closed = Event()
        self.current_changed = Event()
        self.ran, self.evaluated, self.compared = Event(), Event(), Event()
        self.spaces, self.reviewed, self.edited = Event(), Event(), Event()
        self.regions, self.explained, self.precomputed = Event(), Event(), Event()
        self.viewed, self.status, self.imported = Event(), Event(), Event()
        self.filtered = Event()
        self.modified = Event()

    def on_current(self, event: Event, callback: Callable[..., Any]) -> None:
        """Call ``callback`` with ``event``'s arguments when it concerns the corpus
        shown; a change to another corpus is drawn when that one is switched to."""
        event.connect(
            lambda state, *rest: callback(state, *rest) if state is self.current else None
        )

    # --- corpora ------------------------------------------------------------------

    def twin_of(self, corpus: Corpus, journal: str | Path | None = None) -> str | None:
        """The spec of the open corpus whose edits go to the journal ``corpus`` would use
        (the same corpus under another name: a built-in and its folder)."""
        path = Path(journal) if journal is not None else journal_path(corpus)
        return next(
            (
                spec
                for spec, state in self.states.items()
                if state.annotations is not None and state.annotations.journal.path == path
            ),
            None,
        )

    def open(self, spec: str, corpus: Corpus, annotations: AnnotationSession | None) -> CorpusState:
        """Hold ``corpus`` (opened from ``spec``, with its edit session) and make it
        current; one opened again from the same spec replaces the old one."""
        if spec in self.states:
            self._forget(spec)
        state = CorpusState(spec, corpus, annotations)
        self.states[spec] = state
        self.corpus_opened.emit(state)
        self.switch(spec)
        return state

    def switch(self, spec: str) -> CorpusState:
        """Make the corpus opened from ``spec`` current, with its selection as left."""
        state = self.states[spec]
        if self.current is not None and self.current is not state:
            self.current.selection = self.selection.snapshot()
        self.current = state
        # The selection is the new corpus's before anyone hears of the switch: a view
        # showing the new corpus must not read the old one's sentence numbers.
        self.selection.restore(state.selection, emit=False)
        self._own_selection()
        self.current_changed.emit(state)
        self.selection.changed.emit(self.selection)
        return state

    def close(self, spec: str) -> None:
        """Forget a corpus and what was made of it (its edit journal stays on disk);
        closing the current one shows the first one left, or none."""
        if spec not in self.states:
            return
        self._forget(spec)
        if self.current is not None and self.current.spec == spec:
            self.current = None
            if self.states:
                self.switch(next(iter(self.states)))
            else:
                self.selection.clear()
                self.selection.corpus = self.selection.version = ""
                self.current_changed.emit(None)

    def _own_selection(self) -> None:
        """The selection indexes the current corpus as it is now."""
        current = self.current
        self.selection.corpus = current.spec if current is not None else ""
        self.selection.version = current.corpus.fingerprint if current is not None else ""

    def _forget(self, spec: str) -> None:
        self.states.pop(spec).close()
        self.corpus_closed.emit(spec)

    def close_all(self) -> None:
        """Forget every corpus; none is current."""
        for spec in list(self.states):
            self._forget(spec)
        self.current = None
        self.selection.clear()
        self._own_selection()
        self.current_changed.emit(None)

    def replace_with(self, other: Session) -> None:
        """Hold what ``other`` holds instead (a workspace opened), its current corpus
        current with its selection."""
        self.close_all()
        for spec, state in other.states.items():
            self.states[spec] = state
            self.corpus_opened.emit(state)
        if other.current is not None:
            self.switch(other.current.spec)

    # --- results, routed to the corpus they were asked for ---------------------------

    def state(self, spec: str) -> CorpusState | None:
        return self.states.get(spec)

    def _tell(self, event: Event, spec: str, *rest: Any, saved: bool = True) -> CorpusState | None:
        state = self.states.get(spec)
        if state is not None:
            event.emit(state, *rest)
            if saved:
                self.modified.emit(state)
        return state

    def add_run(
        self, spec: str, encoder: str, exploration: Exploration, training_text: str | None = None
    ) -> None:
        """A run's result, to the corpus it was run on (dropped if it was closed)."""
        state = self.states.get(spec)
        if state is None:
            return
        state.runs[encoder] = EncoderRun(encoder, exploration, training_text)
        state.shown = state.encoder = encoder
        state.regions = None
        # Its classification is an evaluation like any: listed, compared, re-run.
        recorded = state.record_classification(encoder, exploration.classification)
        self._tell(self.ran, spec)
        if recorded:
            self._tell(self.evaluated, spec, state.evaluations[-1])

    def set_regions(self, spec: str, exploration: Exploration, regions: Any) -> None:
        """Regions found on ``exploration``'s layout; dropped when another layout was
        shown on that corpus meanwhile."""
        state = self.states.get(spec)
        if state is None or state.exploration is not exploration:
            return
        state.regions = regions
        self._tell(self.regions, spec)

    def add_evaluation(self, spec: str, run: EvaluationRun) -> None:
        """A result, to the corpus it was asked for; one asking the same thing of the
        same version as an earlier one replaces it (no two identical bars)."""
        state = self.states.get(spec)
        if state is None:
            return
        state.evaluations = [old for old in state.evaluations if not old.same_as(run)]
        state.evaluations.append(run)
        if run.name == "costra" and run.label == run.name:
            state.costra_result = run.result
        self._tell(self.evaluated, spec, run)

    def add_imported(self, spec: str, results: Sequence[Any]) -> None:
        """MTEB scores read from files (``app.mteb_results``), kept with the corpus
        ``spec``; one of the same model, revision, task and split as an earlier one
        replaces it."""
        state = self.states.get(spec)
        if state is None:
            return

        def key(result: Any) -> tuple[str, ...]:
            return result.model, result.model_revision, result.task, result.split

        new = {key(result) for result in results}
        state.imported = (*(old for old in state.imported if key(old) not in new), *results)
        self._tell(self.imported, spec)

    def clear_imported(self, spec: str) -> None:
        """Forget the MTEB scores imported on the corpus ``spec``."""
        state = self.states.get(spec)
        if state is not None and state.imported:
            state.imported = ()
            self._tell(self.imported, spec)

    def set_comparison(
        self,
        spec: str,
        comparison: Any,
        spaces: dict[str, tuple[str, Encoder, Embeddings]] | None = None,
    ) -> None:
        """A Compare result, with the two spaces it encoded (by encoder spec)."""
        if spec in self.states:
            state = self.states[spec]
            state.comparison = comparison
            state.compared.update(spaces or {})
            self._tell(self.compared, spec)

    def add_space(self, spec: str, encoder: str, space: tuple[str, Encoder, Embeddings]) -> None:
        """A space encoded for the Inspector and the neighbours view (no run needed)."""
        if spec in self.states:
            self.states[spec].compared[encoder] = space
            self._tell(self.spaces, spec)

    def set_review_lists(self, spec: str, lists: dict[str, Any]) -> None:
        if spec in self.states:
            self.states[spec].review_lists = dict(lists)
            self._tell(self.reviewed, spec)

    def add_precomputed(self, spec: str, key: str, encoder: Any) -> None:
        if spec in self.states:
            self.states[spec].precomputed[key] = encoder
            self._tell(self.precomputed, spec, saved=False)

    def set_explanation(self, spec: str, explanation: Any) -> None:
        """The pair explained last on the corpus ``spec``."""
        if spec in self.states:
            self.states[spec].explanation = explanation
            self._tell(self.explained, spec)

    def set_view(self, spec: str, key: str, value: Any) -> None:
        """A setting the user made on the corpus ``spec`` (search, corpus filter,
        neighbours query, Costra comparison...), kept with it and saved."""
        state = self.states.get(spec)
        if state is not None and state.view.get(key) != value:
            state.view[key] = value
            self._tell(self.viewed, spec, key, saved=False)

    def set_filter(self, spec: str, chosen: Filter) -> None:
        """The filter of the corpus ``spec`` (separate from the selection), saved."""
        state = self.states.get(spec)
        if state is not None and state.filter != chosen:
            state.filter = chosen
            self._tell(self.filtered, spec)

    def set_status(self, spec: str, status: str) -> None:
        """How the last job asked for on the corpus ``spec`` ended."""
        if spec in self.states:
            self.states[spec].status = status
            self._tell(self.status, spec, saved=False)

    def corpus_edited(self, spec: str) -> None:
        """An edit, undo or redo of the corpus's annotations: a new version, which the
        selection of that corpus now indexes (edits keep the sentences)."""
        if self.current is not None and self.current.spec == spec:
            self._own_selection()
        self._tell(self.edited, spec)


def encoded_space(corpus: Corpus, encoder: Encoder) -> Job[tuple[str, Encoder, Embeddings]]:
    """(name, fitted encoder, embeddings) of ``corpus``, through the embedding cache."""

    fitted = yield from fitted_copy(encoder, corpus.texts)
    embeddings = yield from (
        cached_encode(fitted, corpus.fingerprint, corpus.texts)
        if fitted.cacheable
        else fitted.iter_encode(corpus.texts)
    )
    return fitted.name, fitted, embeddings


def compare_with_spaces(
    corpus: Corpus, encoders: dict[str, Encoder], **options: Any
) -> Job[tuple[Any, dict[str, tuple[str, Encoder, Embeddings]]]]:
    """:func:`sentspace.app.analysis.compare.compare_encoders` of the two ``encoders`` (by spec), with the
    spaces it compared, so the neighbours view and Inspector can use them too."""

    spaces = {}
    for spec, encoder in encoders.items():
        spaces[spec] = yield from encoded_space(corpus, encoder)
    comparison = yield from compare_encoders(corpus, *encoders.values(), **options)
    return comparison, spaces
