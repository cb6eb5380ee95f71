"""Comparing encoders, Costra orderings and annotation review, started from the
window."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QInputDialog,
)

from app.annotations.suspicious import iter_find_suspicious
from app.commands import eval_command
from app.errors import InputError
from app.evaluations import EVALUATIONS
from app.evaluations.agreement import run_agreement
from app.session import (
    EvaluationRun,
    compare_with_spaces,
)
from app.ui.window_helpers import (
    first_groups,
)
from models import ENCODERS, make_encoder


class AnalysesMixin:
    """Part of :class:`app.ui.main_window.MainWindow`: comparing encoders, Costra
    orderings and annotation review."""

    def _choose_agreement_encoders(self) -> None:
        dialog = QInputDialog(self)
        dialog.setWindowTitle("Misclassification agreement")
        dialog.setLabelText("Encoders to compare (comma-separated):")
        dialog.setTextValue(", ".join(ENCODERS))
        dialog.textValueSelected.connect(
            lambda text: self.compare_encoders([s.strip() for s in text.split(",") if s.strip()]))
        dialog.open()

    def compare_encoders(self, specs: list[str]) -> None:
        """Run the misclassification agreement of ``specs`` (2 or more) in the background."""
        if self.corpus is None or self.is_running:
            return
        try:
            encoders = [self.precomputed.get(spec) or make_encoder(spec) for spec in specs]
        except InputError as error:
            self._warn("Unknown encoder", str(error))
            return
        if len(encoders) < 2:
            self._warn("Misclassification agreement", "Choose two or more encoders.")
            return
        seed = self.projection_controls.seed.value()
        command = eval_command("agreement", self.corpus_spec, specs, seed)
        corpus_spec = self.corpus_spec
        self._start(run_agreement(self.corpus, encoders, seed=seed),
                    f"agreement of {len(encoders)} encoders",
                    on_result=lambda result: self.session.add_evaluation(
                        corpus_spec, EvaluationRun("agreement", ",".join(specs), seed,
                                                   result, command)))

    def compare_spaces(self) -> None:
        """Two projections side by side: the chosen encoder and the one to compare with."""
        if self.corpus is None or self.is_running:
            return
        spec_a, encoder_a = self.chosen_encoder()
        spec_b = self.compare_choice.currentData()
        encoder_b = make_encoder(spec_b)
        controls = self.projection_controls
        alignment = self.compare_view.selected_alignment()
        method = "umap" if alignment == "aligned-umap" else controls.selected_method()
        # The panel's parameters are those of its chosen method; AlignedUMAP takes UMAP's.
        parameters = controls.parameters() if method == controls.selected_method() else {}
        spec = self.corpus_spec
        self._start(compare_with_spaces(self.corpus, {spec_a: encoder_a, spec_b: encoder_b},
                                        method=method, alignment=alignment,
                                        seed=controls.seed.value(), **parameters),
                    f"comparing {encoder_a.name} with {encoder_b.name}",
                    on_result=lambda result: self.session.set_comparison(spec, *result))

    def _costra_shown(self) -> None:
        """The Costra tab needs a projection and the Costra evaluation: shown without
        them, it runs what is missing (a few seconds) instead of staying blank."""
        if (self.views.currentWidget() is not self.costra_page or self.corpus is None
                or self.is_running):
            return
        missing = []
        if self.exploration is None:
            missing.append("run")
            self.run()
        if self.costra_result is None:
            missing.append("evaluation")
            self.evaluate("costra", show=False)
        if missing:
            self.statusBar().showMessage("Running the Costra " + " and ".join(missing)
                                         + " to draw the orderings…")

    def _show_costra(self) -> None:
        """Draw the Costra orderings once both a projection and a Costra result of the
        current corpus exist."""
        result, exploration = self.costra_result, self.exploration
        if (result is None or exploration is None or result.provenance.corpus_fingerprint
                != exploration.corpus.fingerprint):
            return
        self.costra_view.set_data(exploration.corpus, exploration.projection.coordinates,
                                  result, exploration.projection.axis_labels)

    def find_suspicious(self) -> None:
        """Rank suspicious annotations of the (corrected) corpus with the chosen encoder."""
        if self.annotations is None or self.is_running:
            return
        _, encoder = self.chosen_encoder()
        spec = self.corpus_spec
        self._start(iter_find_suspicious(self.annotations.corpus, [encoder]),
                    "finding suspicious annotations",
                    on_result=lambda lists: self.session.set_review_lists(spec, lists))

    def _annotations_changed(self) -> None:
        """An edit, undo or redo: the same sentences in new groups, so the embeddings
        and projection stay; colours, lists and evaluations use the corrected corpus."""
        if self.corpus_page.is_built:
            self.corpus_browser.set_corpus(self.corpus)
        self.sentence_groups = first_groups(self.corpus)
        self.recolour()

    def evaluate_before_and_after(self) -> None:
        """The chosen evaluation on the original and on the corrected corpus, both shown
        in the Evaluations panel, so the effect of the corrections can be read off."""
        name = self.evaluation_panel.choice.currentData()
        if self.annotations is None or name is None or self.is_running:
            return
        spec, encoder = self.chosen_encoder()
        seed = self.projection_controls.seed.value()
        options = self.evaluation_panel.option_values()
        run, _ = EVALUATIONS[name]
        original, corrected = self.annotations.original, self.annotations.corpus

        def both():
            before = yield from run(original, encoder, seed=seed, **options)
            after = yield from run(corrected, encoder, seed=seed, **options)
            return before, after

        corpus_spec = self.corpus_spec

        def done(results) -> None:
            command = eval_command(name, corpus_spec, [spec], seed, options)
            for label, result in zip(("original", "corrected"), results):
                self.session.add_evaluation(corpus_spec, EvaluationRun(
                    name, spec, seed, result,
                    command if label == "original" else
                    f"sentspace run WORKSPACE  # {name} on the corrected corpus",
                    f"{name} ({label})", options))

        self._show_evaluations()
        self._start(both(), f"{name} before and after the corrections", on_result=done)
