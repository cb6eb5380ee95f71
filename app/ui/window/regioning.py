"""*View > Find regions*: regions of the layout shown at several levels
(``sentspace.app.analysis.regions.find_regions``), named by their keywords over the projection
(``RegionLabels``: coarse zoomed out, finer zoomed in, never over the points search or
selection mark), a "cluster" colour scheme, a click on a label selecting its
sentences, and *Export regions CSV*. The
regions belong to the corpus state in the session, so another corpus or a new layout
never shows them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QStatusBar, QWidget

from sentspace.app.analysis.regions import Regions, find_regions
from sentspace.app.state.session import Session
from sentspace.app.ui.kit.file_dialogs import save_file
from sentspace.app.ui.panels.projection_controls import ProjectionControls
from sentspace.app.ui.views.projection_view import ProjectionView
from sentspace.app.ui.views.region_labels import RegionLabels
from sentspace.app.ui.window.job_queue import JobQueue


class Regioning:
    """The actions and the labels drawn over ``projection`` for the corpus shown in
    ``session``; regions are found by ``jobs`` with ``controls``' seed; ``status`` is the
    status bar; ``parent`` owns the actions and dialogs."""

    def __init__(
        self,
        session: Session,
        jobs: JobQueue,
        projection: ProjectionView,
        controls: ProjectionControls,
        status: QStatusBar,
        parent: QWidget,
    ) -> None:
        self.session, self.jobs, self.projection = session, jobs, projection
        self.controls, self.status, self.parent = controls, status, parent
        self.labels: RegionLabels | None = None
        self.find_action = QAction("Find &regions", parent)
        self.find_action.setToolTip(
            "Split the layout shown into regions at several levels "
            "and name each by its keywords (finer names as you "
            "zoom in); click a name to select its sentences"
        )
        self.find_action.triggered.connect(self.find)
        self.export_action = QAction("Export &regions CSV…", parent)
        self.export_action.setToolTip(
            "One row per sentence: sentence, then region and label at each level"
        )
        self.export_action.triggered.connect(self._choose_csv_target)
        self.export_action.setEnabled(False)

    def follow(self) -> None:
        """Draw the regions of the corpus shown over its layout, once it is drawn."""
        session = self.session
        session.current_changed.connect(lambda _: self.show())
        self.projection.marks_changed.connect(self._marks_changed)
        for event in (session.ran, session.regions):
            session.on_current(event, lambda _: self.show())

    @property
    def regions(self) -> Regions | None:
        current = self.session.current
        return current.regions if current is not None else None

    def find(self) -> None:
        state = self.session.current
        if state is None or state.exploration is None:
            self.status.showMessage("Press Run first: regions are found on the layout")
            return
        exploration, spec = state.exploration, state.spec
        seed = self.controls.seed.value()
        self.jobs.start(
            find_regions(
                state.corpus,
                exploration.projection.coordinates,
                encoder=exploration.encoder,
                seed=seed,
            ),
            "finding regions",
            queue=True,
            on_result=lambda regions: self.session.set_regions(spec, exploration, regions),
        )

    def show(self) -> None:
        """Draw the current corpus's regions over its layout (none: take labels off)."""
        if self.labels is not None:
            self.labels.remove()
            self.labels.deleteLater()
            self.labels = None
        regions, current = self.regions, self.session.current
        self.export_action.setEnabled(regions is not None)
        # Regions imply a corpus shown: `current is not None` is said for the type checker.
        if regions is not None and current is not None and current.exploration is not None:
            self.labels = RegionLabels(
                self.projection.plot.getPlotItem(),
                regions,
                marked=self.projection.marked_positions,
                layout=current.exploration.projection.coordinates,
            )
            self.labels.region_clicked.connect(self.select_region)

    def _marks_changed(self) -> None:
        if self.labels is not None:
            self.labels.relayout()

    def select_region(self, level: int, cluster: int) -> None:
        regions = self.regions
        assert regions is not None  # a label is there to click only over regions
        indices = np.flatnonzero(regions.levels[level].labels == cluster)
        # Deferred: selecting may redraw the plot whose label is being clicked.
        QTimer.singleShot(0, lambda: self.session.selection.select(indices, source="cluster"))

    def export_csv(self, path: str | Path) -> None:
        regions, current = self.regions, self.session.current
        assert regions is not None and current is not None  # called with regions shown
        regions.export_csv(current.corpus.texts, path)
        self.status.showMessage(f"Saved {path}")

    def _choose_csv_target(self) -> None:
        if self.regions is not None:
            path = save_file(self.parent, "Export regions", "CSV (*.csv)")
            if path:
                self.export_csv(path)
