"""A session as a workspace: what the window saves (:func:`workspace_of`), the
reverse of :func:`sentspace.app.workspace.restore.restore_session`.

The window takes the session (:func:`taken`, on its own thread, in a millisecond) when
Save is asked and builds the workspace from what it took (:func:`workspace_from`: the
results encoded, summaries, corpus files hashed) in the save job, so the file holds
the session as it was when Save was asked, whatever the user does while it is written."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np

from sentspace.app.analysis.evaluations import EVALUATIONS

#: The evaluation a run makes of a corpus with groups (``explore``).
from sentspace.app.state.session import CorpusState, Session
from sentspace.app.workspace.codec import bars_tests_entry, encode_state
from sentspace.app.workspace.format import corpus_entry, encoder_entry, evaluation_entry
from sentspace.app.workspace.model import Workspace
from sentspace.models import make_encoder
from sentspace.models.base import Encoder


def workspace_of(session: Session, view: dict[str, Any] | None = None) -> Workspace:
    """Everything needed to come back: the corpora (the current one first, each with
    its journal), the encoders, every evaluation result with what its charts draw,
    each corpus's runs (projection layout, faithfulness, classification), Costra
    result, Compare result and the spaces it encoded, review lists, regions,
    explanation, imported scores, chosen encoder, view settings and selection;
    ``view`` is the window's own state."""
    return workspace_from(taken(session), view)


def taken(session: Session) -> tuple[CorpusState, ...]:
    """The session's corpora as they are now, the current one first (with the selection
    shown), for :func:`workspace_from` to read in another thread while the session
    goes on changing. Each is a copy whose dicts and lists are copies; the results and
    arrays in them are shared, not copied (they are never changed in place once made;
    a new selection is a new array), so this takes no longer for a larger session."""
    current = session.current
    states = sorted(session.states.values(), key=lambda state: state is not current)
    return tuple(
        dataclasses.replace(
            state,
            runs=dict(state.runs),
            evaluations=list(state.evaluations),
            compared=dict(state.compared),
            review_lists=dict(state.review_lists),
            precomputed=dict(state.precomputed),
            view=copy.deepcopy(state.view),
            selection=session.selection.snapshot() if state is current else dict(state.selection),
            paired_tests=list(state.paired_tests),
        )
        for state in states
    )


def workspace_from(
    states: tuple[CorpusState, ...], view: dict[str, Any] | None = None
) -> Workspace:
    """The workspace of the corpora :func:`taken` took (see :func:`workspace_of`)."""
    encoders: dict[str, Encoder] = {}

    def encoder_index(state: CorpusState, spec: str, encoder: Encoder | None = None) -> int:
        if spec not in encoders:
            encoders[spec] = encoder or state.precomputed.get(spec) or make_encoder(spec)
        return list(encoders).index(spec)

    corpora, evaluations = [], []
    for number, state in enumerate(states):
        runs = [
            {
                "encoder": encoder_index(state, spec, run.exploration.encoder),
                "training_text": run.training_text,
                "exploration": encode_state(
                    {
                        "projection": run.exploration.projection,
                        "faithfulness": run.exploration.faithfulness,
                        "classification": run.exploration.classification,
                        "notes": run.exploration.notes,
                    }
                ),
            }
            for spec, run in state.runs.items()
        ]
        extra = {
            "runs": runs,
            "shown": state.shown,
            "encoder": state.encoder,
            "review_lists": encode_state(state.review_lists),
            "view": state.view,
            "selection": {
                key: value.tolist() if isinstance(value, np.ndarray) else value
                for key, value in state.selection.items()
            },
            "filter": state.filter.to_dict(),
            "regions": encode_state(state.regions),
            "explanation": encode_state(state.explanation),
            "imported": encode_state(state.imported),
            "paired_tests": [
                entry
                for bars in state.paired_tests
                if (entry := bars_tests_entry(bars, [run.result for run in state.evaluations]))
                is not None
            ],
            "comparison": encode_state(state.comparison),
            "compared": [
                encoder_index(state, spec, space[1]) for spec, space in state.compared.items()
            ],
            # Agreement compares several encoders, which one workspace
            # evaluation entry cannot name: kept whole with its corpus.
            "agreements": [
                {
                    "position": position,
                    "encoders": run.encoder,
                    "seed": run.seed,
                    "command": run.command,
                    "result": encode_state(run.result),
                }
                for position, run in enumerate(state.evaluations)
                if run.name not in EVALUATIONS
            ],
        }
        journal = state.annotations.journal.path if state.annotations else None
        corpora.append(corpus_entry(state.spec, state.original, journal, state=extra))
        for run in (run for run in state.evaluations if run.name in EVALUATIONS):
            evaluations.append(
                evaluation_entry(
                    run.name,
                    run.result,
                    corpus=number,
                    encoder=encoder_index(state, run.encoder),
                    seed=run.seed,
                    options=run.options,
                    corrected=run.result.provenance.corpus_fingerprint
                    != state.original.fingerprint,
                    label=run.label,
                )
            )
    return Workspace(
        corpora=tuple(corpora),
        encoders=tuple(encoder_entry(spec, encoder) for spec, encoder in encoders.items()),
        evaluations=tuple(evaluations),
        view=dict(view or {}),
    )
