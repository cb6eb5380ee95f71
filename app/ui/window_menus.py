"""The window's menus and shortcuts."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence

from app.ui.guides import GUIDES, TITLES
from app.workspace import (
    recent_workspaces,
)


class MenusMixin:
    """Part of :class:`app.ui.main_window.MainWindow`: the window's menus and shortcuts."""

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        open_action = QAction("&Open corpus file…", self)
        open_action.setShortcut(QKeySequence.StandardKey.Open)
        open_action.setToolTip("MSRP, SICK, STS, Costra, pyramid (.pyr), SentEval, or your "
                               "own CSV/TSV/JSONL; the format is detected")
        open_action.triggered.connect(self._choose_corpus_file)
        file_menu.addAction(open_action)
        open_folder = QAction("Open corpus &folder…", self)
        open_folder.setShortcut("Ctrl+Shift+O")
        open_folder.setToolTip("A dataset folder: MSRP, SICK, STS (any year), a grouped "
                               "corpus, Opinosis topics, a SentEval task, pyramid files")
        open_folder.triggered.connect(self._choose_corpus_folder)
        file_menu.addAction(open_folder)
        file_menu.addSeparator()
        for title, shortcut, handler in (
                ("Open &workspace…", None, self._choose_workspace),
                ("&Save workspace", QKeySequence.StandardKey.Save, self._save_workspace),
                ("Save workspace &as…", QKeySequence.StandardKey.SaveAs,
                 lambda: self._save_workspace(ask=True))):
            action = QAction(title, self)
            if shortcut is not None:
                action.setShortcut(shortcut)
            action.triggered.connect(handler)
            file_menu.addAction(action)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent_menu)
        file_menu.addSeparator()
        self.export_actions = []
        for title, handler in (
                ("Export &embeddings…", self._choose_embeddings_target),
                ("Export &projection coordinates…", self._choose_projection_target),
                ("Export &figure…", self._choose_figure_target)):
            action = QAction(title, self)
            action.triggered.connect(handler)
            action.setEnabled(False)
            file_menu.addAction(action)
            self.export_actions.append(action)
        file_menu.addAction(self.regioning.export_action)
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        # window(): the top level, which is not this window when it is nested in one.
        quit_action.triggered.connect(lambda: self.window().close())
        file_menu.addAction(quit_action)

        run_menu = self.menuBar().addMenu("&Run")
        self.run_action = QAction("&Run", self)
        self.run_action.setShortcut("Ctrl+R")
        self.run_action.triggered.connect(self.run)
        self.cancel_action = QAction("&Cancel", self)
        self.cancel_action.setShortcut("Esc")
        self.cancel_action.triggered.connect(self.cancel)
        run_menu.addAction(self.run_action)
        run_menu.addAction(self.cancel_action)
        run_menu.addSeparator()
        clear_cache = QAction("Clear the &embedding cache", self)
        clear_cache.setToolTip("Encoded corpora are kept on disk so a second run is "
                               "instant; this deletes them")
        clear_cache.triggered.connect(self.clear_embedding_cache)
        run_menu.addAction(clear_cache)

        find = QAction("&Find sentences", self)
        find.setShortcut(QKeySequence.StandardKey.Find)
        find.triggered.connect(self.projection.search.setFocus)
        self.addAction(find)

        view_menu = self.menuBar().addMenu("&View")
        reset_layout = QAction("&Reset layout", self)
        reset_layout.setToolTip("Put every panel and splitter back where it started")
        reset_layout.triggered.connect(self.reset_layout)
        view_menu.addAction(reset_layout)
        view_menu.addSeparator()
        view_menu.addAction(self.explaining.action)
        view_menu.addAction(self.regioning.find_action)

        evaluate_menu = self.menuBar().addMenu("&Evaluate")
        self.agreement_action = QAction("Misclassification &agreement of encoders…", self)
        self.agreement_action.setToolTip("Classify with several encoders on the same folds "
                                         "and compare their mistakes")
        self.agreement_action.triggered.connect(self._choose_agreement_encoders)
        evaluate_menu.addAction(self.agreement_action)

        annotations_menu = self.menuBar().addMenu("&Annotations")
        self.suspicious_action = QAction("Find &suspicious annotations", self)
        self.suspicious_action.setShortcut("Ctrl+Shift+A")
        self.suspicious_action.triggered.connect(self.find_suspicious)
        annotations_menu.addAction(self.suspicious_action)
        for title, shortcut, handler in (
                ("&Undo edit", QKeySequence.StandardKey.Undo, self.review_panel.undo),
                ("&Redo edit", QKeySequence.StandardKey.Redo, self.review_panel.redo)):
            action = QAction(title, self)
            action.setShortcut(shortcut)
            action.triggered.connect(handler)
            annotations_menu.addAction(action)
        compare_corrected = QAction("Evaluate &original and corrected corpus", self)
        compare_corrected.setToolTip("Run the evaluation chosen in the Evaluations panel "
                                     "on the corpus as loaded and as corrected")
        compare_corrected.triggered.connect(self.evaluate_before_and_after)
        annotations_menu.addAction(compare_corrected)
        export_corrected = QAction("&Export corrected corpus and change log…", self)
        export_corrected.triggered.connect(self._choose_corrected_target)
        annotations_menu.addAction(export_corrected)

        help_menu = self.menuBar().addMenu("&Help")
        for key, title in TITLES.items():
            guide = help_menu.addAction(title)
            guide.triggered.connect(
                lambda _=False, k=key, t=title: self._inform(t, GUIDES[k]))

    def _fill_recent_menu(self) -> None:
        self.recent_menu.clear()
        for path in recent_workspaces():
            action = self.recent_menu.addAction(str(path))
            action.triggered.connect(lambda _=False, p=path: self.open_workspace(p))
        self.recent_menu.setEnabled(not self.recent_menu.isEmpty())
