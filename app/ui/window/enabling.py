"""What can be asked for while a job runs (or none) on the corpus shown: the buttons
and menu actions enabled by the session's state and the job queue's."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QPushButton

from sentspace.app.analysis.evaluations import APPLICABLE
from sentspace.app.state.session import Session
from sentspace.app.ui.panels.corpus_panel import CorpusPanel
from sentspace.app.ui.panels.evaluation_panel import EvaluationPanel
from sentspace.app.ui.window.job_queue import JobQueue


@dataclass
class StatefulActions:
    """The menu actions that depend on the state (built by ``build_menus``)."""

    run: QAction
    cancel: QAction
    agreement: QAction
    suspicious: QAction
    exports: list[QAction] = field(default_factory=list)


class Enabling:
    """Enables ``actions``, the corpus panel's buttons, ``compare_button`` and the
    evaluation panel by what ``session`` shows and whether ``jobs`` runs one."""

    def __init__(
        self,
        session: Session,
        jobs: JobQueue,
        panel: CorpusPanel,
        compare_button: QPushButton,
        evaluation_panel: EvaluationPanel,
        actions: StatefulActions,
    ) -> None:
        self.session, self.jobs, self.panel = session, jobs, panel
        self.compare_button, self.evaluation_panel = compare_button, evaluation_panel
        self.actions = actions

    def follow(self) -> None:
        session = self.session
        for event in (session.current_changed, session.ran, session.evaluated, session.edited):
            event.connect(lambda *_: self.update(self.jobs.is_running))
        self.jobs.running_changed.connect(self.update)
        self.update(self.jobs.is_running)

    def update(self, running: bool) -> None:
        state, actions, panel = self.session.current, self.actions, self.panel
        has_corpus = state is not None
        explored = state is not None and state.exploration is not None
        idle = not running and has_corpus
        # Runs queue behind a running job, so the encoder can be changed for the next.
        panel.run_button.setEnabled(has_corpus)
        panel.run_button.setText("Queue run" if running else "Run")
        actions.run.setEnabled(has_corpus)
        panel.projection_controls.project_button.setEnabled(not running and explored)
        self.compare_button.setEnabled(idle)
        panel.load_embeddings_button.setEnabled(idle)
        self.evaluation_panel.set_busy(running)
        # Idle implies a corpus shown: `state is not None` is said for the type checker.
        actions.suspicious.setEnabled(idle and state is not None and state.annotations is not None)
        actions.agreement.setEnabled(
            idle and state is not None and APPLICABLE["classification"](state.corpus)
        )
        for action in actions.exports:
            action.setEnabled(not running and explored)
        panel.cancel_button.setEnabled(running)
        actions.cancel.setEnabled(running)
