"""Choice of projection method, its main parameters, and what colours the points."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QWidget,
)

from sentspace.app.analysis.projection import DEFAULTS
from sentspace.app.state.colouring import METHOD_TITLES


class ProjectionControls(QWidget):
    """Method, parameters and seed of the projection, and the colour scheme.

    Signals
    -------
    project_requested : the user pressed Project.
    colour_changed(str) : the key of the column chosen to colour by.
    """

    project_requested = Signal()
    colour_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.method = QComboBox()
        for key, title in METHOD_TITLES.items():
            self.method.addItem(title, key)
        self.method.setToolTip(
            "PCA is instant and linear; UMAP and t-SNE keep local "
            "neighbourhoods but distort distances"
        )
        umap, tsne = DEFAULTS["umap"], DEFAULTS["tsne"]
        self.n_neighbors = QSpinBox(minimum=2, maximum=200, value=umap["n_neighbors"])
        self.n_neighbors.setToolTip(
            "UMAP: neighbours per point; larger keeps more global structure"
        )
        self.min_dist = QDoubleSpinBox(
            minimum=0.0, maximum=1.0, singleStep=0.05, value=umap["min_dist"]
        )
        self.min_dist.setToolTip("UMAP: how tightly points may pack")
        # Not `metric`: that would shadow QWidget.metric(), which Qt calls as it paints.
        self.metric_choice = QComboBox()
        self.metric_choice.addItems(["cosine", "euclidean"])
        self.perplexity = QDoubleSpinBox(minimum=2.0, maximum=200.0, value=tsne["perplexity"])
        self.perplexity.setToolTip("t-SNE: effective number of neighbours")
        self.pca_first = QCheckBox("PCA to 50 dimensions first")
        self.pca_first.setChecked(True)
        self.pca_first.setToolTip(
            "Reduce linearly before UMAP/t-SNE: faster on wide embeddings such as bag of words"
        )
        self.seed = QSpinBox(minimum=0, maximum=2**31 - 1, value=0)
        self.seed.setToolTip("Random seed of the projection and of the evaluation's folds")
        self.project_button = QPushButton("Project")
        self.project_button.setToolTip(
            "Recompute the projection of the current embeddings (nothing is re-encoded)"
        )
        self.project_button.clicked.connect(self.project_requested)
        self.colour = QComboBox()
        self.colour.setToolTip(
            "Any column of the corpus or the run: categories name "
            "their 10 most frequent, the rest share one colour; numbers "
            "are drawn on a colour scale. Faithfulness: share of each "
            "point's 10 nearest neighbours in the embedding space that "
            "are also its neighbours in 2D"
        )
        self.colour.currentIndexChanged.connect(
            lambda: self.colour_changed.emit(self.colour.currentData())
        )

        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.addRow("Method", self.method)
        self.form.addRow("Neighbours", self.n_neighbors)
        self.form.addRow("Min. distance", self.min_dist)
        self.form.addRow("Metric", self.metric_choice)
        self.form.addRow("Perplexity", self.perplexity)
        self.form.addRow(self.pca_first)
        self.form.addRow("Seed", self.seed)
        self.form.addRow(self.project_button)
        # Over its choice, which takes the column's width: beside it, "Faithfulness (10
        # neighbours kept)" was cut in the 300 px column at 1280x800.
        self.form.addRow(QLabel("Colour by"))
        self.form.addRow(self.colour)
        self.method.currentIndexChanged.connect(self._show_method_options)
        self._show_method_options()

    def selected_method(self) -> str:
        return self.method.currentData()

    def parameters(self) -> dict[str, Any]:
        """The chosen method's parameters, as ``sentspace.app.analysis.projection.project`` takes them."""
        method = self.selected_method()
        pca_dims = 50 if self.pca_first.isChecked() else None
        if method == "umap":
            return {
                "n_neighbors": self.n_neighbors.value(),
                "min_dist": self.min_dist.value(),
                "metric": self.metric_choice.currentText(),
                "pca_dims": pca_dims,
            }
        if method == "tsne":
            return {"perplexity": self.perplexity.value(), "pca_dims": pca_dims}
        return {}

    def offer(self, choices: list[tuple[str, str]], chosen: str) -> None:
        """Offer the colourings ``choices`` ((key, title), the corpus's and its run's
        columns) with ``chosen`` shown; nothing is emitted (the corpus's own choice)."""
        self.colour.blockSignals(True)
        if [
            (self.colour.itemData(i), self.colour.itemText(i)) for i in range(self.colour.count())
        ] != choices:
            self.colour.clear()
            for key, title in choices:
                self.colour.addItem(title, key)
        self.colour.setCurrentIndex(max(0, self.colour.findData(chosen)))
        self.colour.blockSignals(False)

    def _show_method_options(self) -> None:
        method = self.selected_method()
        shown: dict[QWidget, bool] = {
            self.n_neighbors: method == "umap",
            self.min_dist: method == "umap",
            self.metric_choice: method == "umap",
            self.perplexity: method == "tsne",
            self.pca_first: method in ("umap", "tsne"),
        }
        for widget, visible in shown.items():
            self.form.setRowVisible(widget, visible)
