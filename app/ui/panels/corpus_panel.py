"""The Corpus dock: the corpus shown, the encoder chosen (with encoders added from
files and embeddings computed elsewhere), what trained encoders learn from, Run and
Cancel, the progress of the running job, and the projection's settings."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLabel,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sentspace.app.base.errors import InputError
from sentspace.app.state.session import CorpusState, Session
from sentspace.app.ui.kit.file_dialogs import ENCODERS, open_file, open_folder
from sentspace.app.ui.kit.widgets import fill_encoder_choice, narrow_choice
from sentspace.app.ui.panels.projection_controls import ProjectionControls
from sentspace.models import DEFAULT_ENCODER, TRAINED_ON_FILE, make_encoder
from sentspace.models.pairs import PairBOW, read_pairs_file
from sentspace.models.precomputed import Precomputed
from sentspace.models.word2vec import read_training_text

if TYPE_CHECKING:  # a panel builds on no controller: the type alone
    from sentspace.app.ui.window.job_queue import JobQueue

#: Families trained on labelled pairs: a *Train on* pairs file is theirs.
PAIR_FAMILIES = frozenset(
    family for family, cls in TRAINED_ON_FILE.items() if issubclass(cls, PairBOW)
)


class CorpusPanel:
    """The panel's widgets and the encoder they choose, for the corpora of ``session``,
    with jobs run by ``jobs``; ``warn(title, text)`` says what cannot be used."""

    def __init__(self, session: Session, jobs: JobQueue, warn: Callable[[str, str], None]) -> None:
        self.session, self.jobs, self.warn = session, jobs, warn
        self.corpus_name = QLabel("Loading…")
        self.corpus_name.setStyleSheet("font-weight: bold; font-size: 14px")
        self.corpus_counts = QLabel()
        self.corpus_source = QLabel()
        self.corpus_source.setWordWrap(True)
        self.corpus_source.setStyleSheet("color: #666")
        self.encoder_choice = QComboBox()
        fill_encoder_choice(self.encoder_choice)
        self.encoder_choice.setCurrentIndex(self.encoder_choice.findData(DEFAULT_ENCODER))
        self.encoder_choice.setToolTip("The sentence encoder (the papers call it a model)")
        narrow_choice(self.encoder_choice)
        self.load_embeddings_button = QPushButton("Add encoder…")
        self.load_embeddings_button.setToolTip(
            "Embeddings computed elsewhere, your word "
            "vectors, or a local sentence-transformers model"
        )
        add_menu = QMenu(self.load_embeddings_button)
        add_menu.addAction(
            "Load embeddings… (.npy, .npz, vectors.tsv, .parquet)", self._choose_embeddings
        )
        add_menu.addAction(
            "Word vectors, mean… (word2vec, GloVe, fastText file)",
            lambda: self._choose_encoder_file("path:"),
        )
        add_menu.addAction("Word vectors, sum…", lambda: self._choose_encoder_file("path-sum:"))
        add_menu.addAction(
            "Sentence-transformers model folder…", lambda: self._choose_encoder_file("st:")
        )
        self.load_embeddings_button.setMenu(add_menu)
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip(
            "Encode the corpus, project it with PCA and run the classification evaluation (Ctrl+R)"
        )
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop the running job (Esc)")
        self.cancel_button.clicked.connect(jobs.cancel)
        self.projection_controls = ProjectionControls()
        self.training_text = QComboBox()
        self.training_text.addItem("this corpus", None)
        self.training_text.addItem("a text file…", "choose")
        self.training_text.addItem("a pairs file…", "choose-pairs")
        self.training_text.setToolTip(
            "What encoders that are trained (Doc2Vec, Word2Vec, "
            "fastText, TF-IDF...) learn from: the corpus's own "
            "sentences, or a plain text file, one sentence a line "
            "(FastSent, SkipThought: in reading order, a blank "
            "line ending a document; DictRep: word<TAB>definition)"
            "; pair-bow and pair-rnn: the corpus's training pairs, "
            "or a CSV/TSV pairs file with sentence1, sentence2 and "
            "label and/or score"
        )
        self.training_text.activated.connect(self._training_text_chosen)
        #: Sentences of each training text file read, by path.
        self.training_sets: dict[str, list[str]] = {}
        #: Pairs files read (for the families in PAIR_FAMILIES only).
        self.pairs_files: set[str] = set()
        self.widget = self._lay_out()

    def _lay_out(self) -> QWidget:
        panel = QWidget()
        layout = QVBoxLayout(panel)
        form = QFormLayout()
        form.addRow("Encoder", self.encoder_choice)
        form.addRow("", self.load_embeddings_button)
        form.addRow("Train on", self.training_text)
        for widget in (self.corpus_name, self.corpus_counts, self.corpus_source):
            layout.addWidget(widget)
        layout.addSpacing(12)
        layout.addLayout(form)
        for widget in (self.run_button, self.cancel_button, self.jobs.progress, self.jobs.stage):
            layout.addWidget(widget)
        layout.addSpacing(12)
        heading = QLabel("Projection")
        heading.setStyleSheet("font-weight: bold")
        layout.addWidget(heading)
        layout.addWidget(self.projection_controls)
        layout.addStretch(1)
        panel.setMinimumWidth(240)
        return panel

    # --- the corpus shown ---------------------------------------------------------

    def follow(self, session) -> None:
        """The corpus shown with its encoder and projection settings as left; a run
        chooses its encoder; embeddings loaded for it are offered."""
        session.current_changed.connect(self._show_state)
        session.on_current(session.ran, lambda state: self.choose(state.encoder))
        session.on_current(session.precomputed, self.offer_precomputed)

    def _show_state(self, state: CorpusState | None) -> None:
        self.show_corpus(state)
        if state is not None:
            self.apply_view(state)

    def show_corpus(self, state: CorpusState | None) -> None:
        """Name, counts and source of the corpus shown; its own precomputed embeddings
        are offered (another corpus's are aligned to that corpus, so they go)."""
        for key in [self.encoder_choice.itemData(i) for i in range(self.encoder_choice.count())]:
            if isinstance(key, str) and key.startswith("precomputed:"):
                self.encoder_choice.removeItem(self.encoder_choice.findData(key))
        if state is None:
            self.corpus_name.setText("No corpus")
            return
        corpus = state.corpus
        self.corpus_name.setText(corpus.name)
        counts = f"{len(corpus):,} sentences"
        if corpus.groups is not None:
            counts += f"\n{corpus.groups.n_groups:,} {corpus.groups.kind}s"
        if corpus.pairs is not None:
            counts += f"\n{len(corpus.pairs):,} sentence pairs"
        self.corpus_counts.setText(counts)
        self.corpus_source.setText(
            Path(corpus.sources[0]).parent.as_posix() if corpus.sources else ""
        )
        self.corpus_source.setToolTip("\n".join(corpus.sources))
        self.offer_precomputed(state)

    def remember_view(self, state: CorpusState | None, search: str) -> None:
        """Keep the shown corpus's encoder choice and view settings (and ``search``),
        to restore them when it is shown again."""
        if state is None:
            return
        controls = self.projection_controls
        state.encoder = self.encoder_choice.currentData()
        # Updated, not replaced: the view also holds what other views keep for it.
        state.view.update(
            {
                "method": controls.selected_method(),
                "seed": controls.seed.value(),
                "parameters": controls.parameters(),
                "search": search,
            }
        )

    def apply_view(self, state: CorpusState) -> None:
        controls, view = self.projection_controls, state.view
        if "method" in view:
            controls.method.setCurrentIndex(max(0, controls.method.findData(view["method"])))
            controls.seed.setValue(view.get("seed", 0))
        self.choose(state.encoder)

    def choose(self, spec: str | None) -> None:
        """Choose encoder ``spec`` when it is offered."""
        index = self.encoder_choice.findData(spec)
        if index >= 0:
            self.encoder_choice.setCurrentIndex(index)

    # --- the encoder chosen -------------------------------------------------------

    def chosen_encoder(self):
        """(spec, encoder) chosen; a family trained on a file (a *Train on* file chosen)
        becomes ``family:file``, its own entry, so evaluations train on that file too
        and their command says so."""
        family, training = self.encoder_choice.currentData(), self.training_text.currentData()
        if family in TRAINED_ON_FILE and (
            training in self.training_sets
            and family not in PAIR_FAMILIES
            or training in self.pairs_files
            and family in PAIR_FAMILIES
        ):
            self.add_encoder(f"{family}:{training}")
        choice = self.encoder_choice.currentData()
        current = self.session.current
        precomputed = current.precomputed if current is not None else {}
        return choice, precomputed.get(choice) or make_encoder(choice)

    def training(self) -> tuple[str | None, list[str] | None]:
        """The training text file chosen (None: the corpus, also when a pairs file is:
        the encoder trained on it names it) and its sentences."""
        path = self.training_text.currentData()
        return (path, self.training_sets[path]) if path in self.training_sets else (None, None)

    def add_encoder(self, spec: str) -> None:
        """Offer the encoder ``spec`` (``path:FILE``, ``path-sum:FILE``, ``st:FOLDER``,
        ``family:FILE``) in the encoder choice; a bad file or folder is said at once."""
        try:
            encoder = make_encoder(spec)
        except InputError as error:
            self.warn("Cannot use this encoder", str(error))
            return
        if self.encoder_choice.findData(spec) < 0:
            self.encoder_choice.addItem(
                f"{encoder.title}: {Path(spec.split(':', 1)[1]).name}", spec
            )
        self.choose(spec)

    def _choose_encoder_file(self, prefix: str) -> None:
        if prefix == "st:":
            path = open_folder(
                self.widget, "A sentence-transformers model folder", purpose=ENCODERS
            )
        else:
            path = open_file(
                self.widget,
                "Word vectors",
                "Word vectors (*.txt *.vec *.bin *.gz);;All files (*)",
                purpose=ENCODERS,
            )
        if path:
            self.add_encoder(prefix + path)

    def _choose_embeddings(self) -> None:
        path = open_file(
            self.widget,
            "Load embeddings",
            "Embeddings (*.npy *.npz *.tsv *.parquet);;All files (*)",
            purpose=ENCODERS,
        )
        if path:
            self.load_embeddings(path)

    def load_embeddings(self, path: str | Path) -> None:
        """Read and align a file of embeddings in the background; it becomes an encoder
        of the current corpus."""
        session = self.session
        if session.current is None or self.jobs.is_running:
            return
        corpus, spec = session.current.corpus, session.current.spec

        def loaded(encoder: Precomputed) -> None:
            key = f"precomputed:{encoder.path}"
            session.add_precomputed(spec, key, encoder)
            if session.current is not None and spec == session.current.spec:
                self.choose(key)

        self.jobs.start(
            lambda: Precomputed(path, corpus),
            f"loading embeddings {Path(path).name}",
            on_result=loaded,
        )

    def offer_precomputed(self, state: CorpusState) -> None:
        for key, encoder in state.precomputed.items():
            if self.encoder_choice.findData(key) < 0:
                self.encoder_choice.addItem(
                    f"{encoder.name} ({encoder.dim}-d, aligned by {encoder.aligned_by})", key
                )

    def _training_text_chosen(self, index: int) -> None:
        choice = self.training_text.itemData(index)
        if choice not in ("choose", "choose-pairs"):
            return
        pairs = choice == "choose-pairs"
        path = open_file(
            self.widget,
            "Training pairs (sentence1, sentence2, label and/or score)"
            if pairs
            else "Training text (one sentence a line)",
            "Pairs (*.csv *.tsv);;All files (*)" if pairs else "Text (*.txt);;All files (*)",
            purpose=ENCODERS,
        )
        if path:
            (self.load_training_pairs if pairs else self.load_training_text)(path)
        else:
            self.training_text.setCurrentIndex(0)

    def load_training_text(self, path: str | Path) -> None:
        """Read a plain text file in the background; trained encoders learn from it."""

        def loaded(sentences: list[str]) -> None:
            self.training_sets[str(path)] = sentences
            self._offer_training(path, f"{len(sentences):,} sentences")

        self._read(lambda: read_training_text(path), path, loaded)

    def load_training_pairs(self, path: str | Path) -> None:
        """Read a pairs file in the background (a bad row is said with its line);
        pair-bow and pair-rnn learn from it instead of the corpus's training pairs."""

        def loaded(pairs) -> None:
            self.pairs_files.add(str(path))
            self._offer_training(path, f"{len(pairs):,} pairs")

        self._read(lambda: read_pairs_file(path), path, loaded)

    def _read(self, read, path: str | Path, loaded) -> None:
        def failed_back() -> None:
            if self.training_text.currentData() in ("choose", "choose-pairs"):
                self.training_text.setCurrentIndex(0)

        job = self.jobs.start(read, f"reading {Path(path).name}", on_result=loaded)
        job.worker.finished.connect(failed_back)

    def _offer_training(self, path: str | Path, size: str) -> None:
        index = self.training_text.findData(str(path))
        if index < 0:
            self.training_text.insertItem(1, f"{Path(path).name} ({size})", str(path))
            index = 1
        self.training_text.setCurrentIndex(index)
