"""What the window computes on the corpus shown, each as a job whose result the
session routes to the corpus it was asked for: Run (encode, project, classify), a new
projection, evaluations (also before and after the corrections), the misclassification
agreement of encoders, Compare encoders, the Costra orderings and suspicious
annotations."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.analysis.cache import EmbeddingCache
from sentspace.app.analysis.evaluations import EVALUATIONS
from sentspace.app.analysis.evaluations.agreement import default_encoders
from sentspace.app.analysis.evaluations.passing import passing
from sentspace.app.analysis.explore import explore, reproject
from sentspace.app.analysis.mteb_results import elsewhere, iter_read_mteb_results
from sentspace.app.analysis.suspicious import iter_find_suspicious
from sentspace.app.annotations.agreement import agreement
from sentspace.app.annotations.journal import merge_journals
from sentspace.app.base.errors import InputError
from sentspace.app.state.session import Session, compare_with_spaces
from sentspace.app.ui.kit.file_dialogs import EXPORTS, JOURNALS, open_file, open_folder
from sentspace.app.ui.kit.widgets import fill_encoder_choice, narrow_choice
from sentspace.app.ui.panels.annotator_agreement import AnnotatorAgreementDialog
from sentspace.app.ui.panels.corpus_panel import CorpusPanel
from sentspace.app.ui.panels.encoder_checklist import EncoderChecklist
from sentspace.app.ui.panels.evaluation_panel import EvaluationPanel
from sentspace.app.ui.panels.reproduce_dialog import ReproduceDialog
from sentspace.app.ui.window.job_queue import JobQueue
from sentspace.app.ui.window.tabs import Views
from sentspace.models import make_encoder


class Analyses:
    """What is computed on the corpus shown in ``session``: run by ``jobs`` with the
    encoder and settings chosen in ``panel``; ``evaluations`` is the Evaluations panel
    (its choice and options; ``show_evaluations()`` brings it forward); ``status`` is the
    status bar, ``warn(title, text)`` says what cannot be done, ``parent`` owns the
    dialogs. ``tabs`` (the centre's views: Compare's alignment, the Costra tab) is set
    once they are built, since they show Compare's choice built here."""

    def __init__(
        self,
        session: Session,
        jobs: JobQueue,
        panel: CorpusPanel,
        evaluations: EvaluationPanel,
        show_evaluations: Callable[[], None],
        status,
        warn: Callable[[str, str], None],
        parent: QWidget,
    ) -> None:
        self.session, self.jobs, self.panel = session, jobs, panel
        self.evaluations, self.show_evaluations = evaluations, show_evaluations
        self.status, self.warn, self.parent = status, warn, parent
        self.tabs: Views | None = None
        self.controls = panel.projection_controls
        self.compare_choice = QComboBox()
        fill_encoder_choice(self.compare_choice)
        narrow_choice(self.compare_choice, 24)
        self.compare_choice.setCurrentIndex(self.compare_choice.findData("tfidf"))
        self.compare_button = QPushButton("Compare")
        self.compare_button.setToolTip(
            "Encode with both, project both, align the second "
            "layout to the first, and list the sentences whose "
            "neighbours changed most"
        )
        self.compare_button.clicked.connect(self.compare_spaces)
        panel.run_button.clicked.connect(self.run)
        self.controls.project_requested.connect(self.project_again)
        evaluations.import_requested.connect(self.import_mteb)

    def compare_page(self, view: QWidget) -> QWidget:
        """Compare's choice and button above ``view``."""
        page = QWidget()
        row = QHBoxLayout()
        row.addWidget(QLabel("Compare with"))
        row.addWidget(self.compare_choice)
        row.addWidget(self.compare_button)
        row.addStretch(1)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(row)
        layout.addWidget(view, stretch=1)
        return page

    @property
    def state(self):
        return self.session.current

    def _busy(self) -> bool:
        return self.state is None or self.jobs.is_running

    def run(self) -> None:
        """Encode, project and evaluate the current corpus with the chosen encoder; asked
        for while a job runs, after it (so several encoders can be lined up)."""
        state = self.state
        if state is None:
            return
        key, encoder = self.panel.chosen_encoder()
        training, texts = self.panel.training()
        controls = self.controls
        job = explore(
            state.corpus,
            encoder,
            method=controls.selected_method(),
            seed=controls.seed.value(),
            projection_parameters=controls.parameters(),
            training_texts=texts,
        )
        # The session routes the result to the corpus it was run on, shown or not (a
        # queued run may finish after another corpus was opened).
        self.jobs.start(
            job,
            f"{encoder.name} on {state.corpus.name}",
            on_result=lambda exploration: self.session.add_run(
                state.spec, key, exploration, training
            ),
            queue=True,
        )

    def run_shown(self) -> None:
        """Run the encoder of the run shown again (on the corpus as edited since)."""
        state = self.state
        if state is not None and state.shown is not None:
            self.panel.choose(state.shown)
            self.run()

    def project_again(self) -> None:
        """Recompute only the projection of the current embeddings."""
        state = self.state
        if self._busy() or state.exploration is None:
            return
        controls = self.controls
        job = reproject(
            state.exploration,
            controls.selected_method(),
            seed=controls.seed.value(),
            **controls.parameters(),
        )
        shown, training = state.shown, state.runs[state.shown].training_text
        self.jobs.start(
            job,
            f"projecting with {controls.method.currentText()}",
            on_result=lambda exploration: self.session.add_run(
                state.spec, shown, exploration, training
            ),
        )

    def evaluate(self, name: str, show: bool = True, options: dict[str, str] | None = None) -> None:
        """Run evaluation ``name`` on the corpus with the chosen encoder and ``options``
        (``sentspace.app.analysis.evaluations.OPTIONS``), in the background; asked for while another job
        runs, it is queued after it. With ``show``, the Evaluations tab comes forward.
        A ``where`` option (only the sentences passing the filter) is read now on the
        corpus's own columns, as ``sentspace eval --where`` reads it: a filter of a
        run's regions or classification cannot be, and a dialog says so."""
        state = self.state
        if state is None:
            return
        try:
            passing(state.corpus, (options or {}).get("where", ""))
        except InputError as error:
            self.warn(
                "Cannot evaluate the sentences passing the filter",
                f"{error}.\n\nAn evaluation reads the filter on the corpus's own columns, "
                "as sentspace eval --where does: not a run's regions, classification "
                "or faithfulness.",
            )
            return
        spec, encoder = self.panel.chosen_encoder()
        if show:
            self.show_evaluations()
        self.jobs.start(
            state.evaluation(name, [spec], [encoder], self.controls.seed.value(), options),
            f"{name}: {encoder.name}",
            on_result=lambda run: self.session.add_evaluation(state.spec, run),
            queue=True,
        )

    def import_mteb(self, path: str) -> None:
        """Read MTEB's result file or results folder at ``path`` (a job: a results
        repository is large) and keep its scores with the corpus shown, where *Across
        encoders* draws them beside the runs of the same pairs. A bad file is named in
        a dialog."""
        state = self.state
        if state is None:
            self.warn(
                "Import MTEB results",
                "Open a corpus first: imported scores are "
                "kept with it, beside its relatedness results.",
            )
            return

        def done(found) -> None:
            self.session.add_imported(state.spec, found.results)
            # A score of pairs this corpus lacks is drawn nowhere here: say why.
            why = elsewhere(found, state.corpus)
            message = f"Imported {found.describe()}." + (
                f" Not drawn on {state.corpus.name}: {why}." if why else ""
            )
            # Once the queue has said how the job ended.
            self.jobs.when_idle(lambda: self.status.showMessage(message))

        self.show_evaluations()
        self.jobs.start(
            iter_read_mteb_results(path),
            f"importing MTEB results from {path}",
            on_result=done,
            queue=True,
        )

    def rerun(self, row: int) -> None:
        """Run the evaluation of results row ``row`` again, as it was asked for (its
        encoder, seed and options), on the corpus as it is now."""
        state = self.state
        if state is None or not 0 <= row < len(state.evaluations):
            return
        old = state.evaluations[row]
        if old.name not in EVALUATIONS:  # agreement: asked again from its dialog
            self.compare_encoders(old.encoder.split(","))
            return
        try:
            encoder = state.precomputed.get(old.encoder) or make_encoder(old.encoder)
        except InputError as error:
            self.warn("Cannot re-run this result", str(error))
            return
        self.jobs.start(
            state.evaluation(old.name, [old.encoder], [encoder], old.seed, old.options),
            f"{old.name}: {encoder.name} (re-run)",
            on_result=lambda run: self.session.add_evaluation(state.spec, run),
            queue=True,
        )

    def evaluate_before_and_after(self) -> None:
        """The chosen evaluation on the original and on the corrected corpus, both shown
        in the Evaluations panel, so the effect of the corrections can be read off."""
        state = self.state
        name = self.evaluations.choice.currentData()
        if self._busy() or state.annotations is None or name is None:
            return
        spec, encoder = self.panel.chosen_encoder()
        seed = self.controls.seed.value()
        options = self.evaluations.option_values()
        # Both taken now, each with the command that makes it (the corrected one names
        # the journal and its last record).
        before = state.evaluation(
            name, [spec], [encoder], seed, options, original=True, label=f"{name} (original)"
        )
        after = state.evaluation(
            name, [spec], [encoder], seed, options, label=f"{name} (corrected)"
        )

        def both():
            return (yield from before), (yield from after)

        def done(runs) -> None:
            for run in runs:
                self.session.add_evaluation(state.spec, run)

        self.show_evaluations()
        self.jobs.start(both(), f"{name} before and after the corrections", on_result=done)

    def choose_agreement_encoders(self) -> EncoderChecklist | None:
        """Ask which encoders to compare (the dialog, open), those already run on this
        corpus ticked (:func:`default_encoders`); OK runs the agreement."""
        state = self.state
        if state is None:
            return None
        named = {
            spec: f"{run.exploration.encoder.name} (run on this corpus)"
            for spec, run in state.runs.items()
        }
        named.update(
            {
                spec: f"{encoder.name} (loaded embeddings)"
                for spec, encoder in state.precomputed.items()
            }
        )
        dialog = EncoderChecklist(
            "Misclassification agreement",
            named,
            default_encoders(
                list(state.runs), list(state.precomputed), self.panel.encoder_choice.currentData()
            ),
            self.parent,
        )
        dialog.accepted.connect(lambda: self.compare_encoders(dialog.checked()))
        dialog.open()
        return dialog

    def compare_encoders(self, specs: list[str]) -> None:
        """Run the misclassification agreement of ``specs`` (2 or more) in the background."""
        state = self.state
        if self._busy():
            return
        try:
            encoders = [state.precomputed.get(spec) or make_encoder(spec) for spec in specs]
        except InputError as error:
            self.warn("Unknown encoder", str(error))
            return
        if len(encoders) < 2:
            self.warn("Misclassification agreement", "Choose two or more encoders.")
            return
        self.show_evaluations()
        self.jobs.start(
            state.evaluation("agreement", specs, encoders, self.controls.seed.value()),
            f"agreement of {len(encoders)} encoders",
            on_result=lambda run: self.session.add_evaluation(state.spec, run),
        )

    def compare_spaces(self) -> None:
        """Two projections side by side: the chosen encoder and the one to compare with."""
        state = self.state
        if self._busy():
            return
        spec_a, encoder_a = self.panel.chosen_encoder()
        spec_b = self.compare_choice.currentData()
        encoder_b = make_encoder(spec_b)
        controls = self.controls
        alignment = self.tabs.compare_view.selected_alignment()
        method = "umap" if alignment == "aligned-umap" else controls.selected_method()
        # The panel's parameters are those of its chosen method; AlignedUMAP takes UMAP's.
        parameters = controls.parameters() if method == controls.selected_method() else {}
        self.jobs.start(
            compare_with_spaces(
                state.corpus,
                {spec_a: encoder_a, spec_b: encoder_b},
                method=method,
                alignment=alignment,
                seed=controls.seed.value(),
                **parameters,
            ),
            f"comparing {encoder_a.name} with {encoder_b.name}",
            on_result=lambda result: self.session.set_comparison(state.spec, *result),
        )

    def costra_shown(self) -> None:
        """The Costra tab needs a projection and the Costra evaluation: shown without
        them, it runs what is missing (a few seconds) instead of staying blank."""
        state = self.state
        views = self.tabs
        if views.currentWidget() is not views.costra_page or self._busy():
            return
        missing = []
        if state.exploration is None:
            missing.append("run")
            self.run()
        if state.costra_result is None:
            missing.append("evaluation")
            self.evaluate("costra", show=False)
        if missing:
            self.jobs.announce(
                "Running the Costra " + " and ".join(missing) + " to draw the orderings…"
            )

    def annotator_agreement(self) -> AnnotatorAgreementDialog | None:
        """How much the annotators of the corpus shown agree, over its journal and the
        journals the user adds (the dialog, open)."""
        state = self.state
        if state is None or state.annotations is None:
            return None
        original, own = state.original, state.annotations.journal.path

        def compute(journals: list[str]):
            _, records = merge_journals([own, *journals], original.fingerprint)
            return agreement(original, records)

        dialog = AnnotatorAgreementDialog(
            state.corpus,
            compute,
            lambda: open_file(
                self.parent,
                "Add an annotator's journal",
                "Edit journals (*.jsonl);;All files (*)",
                purpose=JOURNALS,
            ),
            self.parent,
        )
        dialog.sentences_selected.connect(
            lambda indices: self.session.selection.select(indices, source="review")
        )
        dialog.open()
        return dialog

    def reproduce(self) -> ReproduceDialog:
        """*Help > Reproduce a paper…*: the dialog, open; its runs are jobs like any."""
        from sentspace.app.reproduce import PAPERS  # noqa: PLC0415 (lazy: the tables)
        from sentspace.app.reproduce.report import COLUMNS, cells  # noqa: PLC0415

        dialog = ReproduceDialog(
            {name: paper.title for name, paper in PAPERS.items()}, cells, COLUMNS, self.parent
        )
        dialog.run_requested.connect(lambda name, variant: self._reproduce(dialog, name, variant))
        dialog.save_requested.connect(lambda: self._save_reproduction(dialog))
        dialog.open()
        return dialog

    def _reproduce(self, dialog: ReproduceDialog, name: str, variant: str) -> None:
        from sentspace.app.reproduce import PAPERS, run_reproduction  # noqa: PLC0415
        from sentspace.app.reproduce.report import by_table, header  # noqa: PLC0415

        seed = self.controls.seed.value()
        dialog.set_running(True)
        handle = self.jobs.start(
            run_reproduction(PAPERS[name], variant=variant, seed=seed),
            f"reproducing {name} ({variant})",
            queue=True,
            of_corpus=False,
            on_result=lambda report: dialog.show_report(report, header(report), by_table(report)),
        )
        # Failed or cancelled, the dialog may run again.
        handle.changed.connect(
            lambda: dialog.set_running(False) if handle.done and handle.state != "done" else None
        )

    def _save_reproduction(self, dialog: ReproduceDialog) -> list | None:
        from sentspace.app.reproduce.report import write_report  # noqa: PLC0415

        folder = open_folder(self.parent, "Save the report in a folder", purpose=EXPORTS)
        if not folder or dialog.report is None:
            return None
        written = write_report(dialog.report, folder)
        self.status.showMessage(
            "Wrote " + ", ".join(path.name for path in written) + f" in {folder}"
        )
        return written

    def find_suspicious(self) -> None:
        """Rank suspicious annotations of the (corrected) corpus with the chosen encoder."""
        state = self.state
        if self._busy() or state.annotations is None:
            return
        _, encoder = self.panel.chosen_encoder()
        self.jobs.start(
            iter_find_suspicious(state.annotations.corpus, [encoder]),
            "finding suspicious annotations",
            on_result=lambda lists: self.session.set_review_lists(state.spec, lists),
        )

    def clear_embedding_cache(self) -> int:
        freed = EmbeddingCache().clear()
        self.status.showMessage(f"Cleared the embedding cache ({freed / 2**20:.1f} MiB)")
        return freed
