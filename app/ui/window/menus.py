"""The window's menus and shortcuts, each action calling the controller that owns it."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence

from sentspace.app.base.guides import GUIDES, TITLES
from sentspace.app.ui.window.enabling import StatefulActions

#: The corpora opened by name (bundled, from a package, from the shared data folder),
#: and what each is.
NAMED_CORPORA = {
    "msrp-grouped": "MSRP paraphrases grouped (White et al. 2015): 859 sentences, bundled",
    "costra": "Costra 1.1: Czech sentences transformed in 15 ways, from the costra package",
    "multi30k-captions": "Multi30K: five English descriptions per image, 145,000 sentences "
    "in 29,000 groups (also :de, :de:val...)",
    "multi30k-parallel": "Multi30K test 2016: one sentence in English, German, French "
    "and Czech, the translations as pairs",
}


def build_menus(window) -> StatefulActions:
    """The menu bar of ``window`` (a MainWindow, its controllers built), each action
    calling the controller that owns it; returns the actions enabled by state."""
    file_menu = window.menuBar().addMenu("&File")
    open_action = QAction("&Open corpus file…", window)
    open_action.setShortcut(QKeySequence.StandardKey.Open)
    open_action.setToolTip(
        "MSRP, SICK, STS, Costra, pyramid (.pyr), SentEval, or your "
        "own CSV/TSV/JSONL; the format is detected"
    )
    open_action.triggered.connect(window.files.choose_corpus_file)
    file_menu.addAction(open_action)
    open_folder = QAction("Open corpus &folder…", window)
    open_folder.setShortcut("Ctrl+Shift+O")
    open_folder.setToolTip(
        "A dataset folder: MSRP, SICK, STS (any year), a grouped "
        "corpus, Opinosis topics, a SentEval task, pyramid files"
    )
    open_folder.triggered.connect(window.files.choose_corpus_folder)
    file_menu.addAction(open_folder)
    named = file_menu.addMenu("Open &dataset")
    named.setToolTipsVisible(True)
    for name, tip in NAMED_CORPORA.items():
        action = named.addAction(name)
        action.setToolTip(tip)
        action.triggered.connect(lambda _=False, spec=name: window.open_corpus(spec))
    file_menu.addSeparator()
    for title, shortcut, handler in (
        ("Open &workspace…", None, window.files.choose_workspace),
        ("&Save workspace", QKeySequence.StandardKey.Save, window.files.save_workspace),
        (
            "Save workspace &as…",
            QKeySequence.StandardKey.SaveAs,
            lambda: window.files.save_workspace(ask=True),
        ),
    ):
        action = QAction(title, window)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(handler)
        file_menu.addAction(action)
    recent_menu = file_menu.addMenu("Open &recent")
    recent_menu.aboutToShow.connect(lambda: window.files.fill_recent_menu(recent_menu))
    file_menu.addSeparator()
    exports = []
    for title, handler in (
        ("Export &embeddings…", window.files.choose_embeddings_target),
        ("Export &projection coordinates…", window.files.choose_projection_target),
        ("Export &figure…", window.files.choose_figure_target),
        ("Export &map as web page…", window.files.choose_map_target),
    ):
        action = QAction(title, window)
        action.triggered.connect(handler)
        action.setEnabled(False)
        file_menu.addAction(action)
        exports.append(action)
    file_menu.addAction(window.regioning.export_action)
    file_menu.addSeparator()
    quit_action = QAction("&Quit", window)
    quit_action.setShortcut(QKeySequence.StandardKey.Quit)
    # window(): the top level, which is not this window when it is nested in one.
    quit_action.triggered.connect(lambda: window.window().close())
    file_menu.addAction(quit_action)

    run_menu = window.menuBar().addMenu("&Run")
    run_action = QAction("&Run", window)
    run_action.setShortcut("Ctrl+R")
    run_action.triggered.connect(window.analyses.run)
    cancel_action = QAction("&Cancel", window)
    cancel_action.setShortcut("Esc")
    cancel_action.triggered.connect(window.jobs.cancel)
    run_menu.addAction(run_action)
    run_menu.addAction(cancel_action)
    run_menu.addSeparator()
    clear_cache = QAction("Clear the &embedding cache", window)
    clear_cache.setToolTip(
        "Encoded corpora are kept on disk so a second run is instant; this deletes them"
    )
    clear_cache.triggered.connect(window.analyses.clear_embedding_cache)
    run_menu.addAction(clear_cache)

    find = QAction("&Find sentences", window)
    find.setShortcut(QKeySequence.StandardKey.Find)
    find.triggered.connect(window.projection.search.setFocus)
    window.addAction(find)

    view_menu = window.menuBar().addMenu("&View")
    reset_layout = QAction("&Reset layout", window)
    reset_layout.setToolTip("Put every panel and splitter back where it started")
    reset_layout.triggered.connect(window.docks.reset)
    view_menu.addAction(reset_layout)
    view_menu.addSeparator()
    view_menu.addAction(window.explaining.action)
    view_menu.addAction(window.regioning.find_action)

    evaluate_menu = window.menuBar().addMenu("&Evaluate")
    agreement_action = QAction("Misclassification &agreement of encoders…", window)
    agreement_action.setToolTip(
        "Classify with several encoders on the same folds and compare their mistakes"
    )
    agreement_action.triggered.connect(window.analyses.choose_agreement_encoders)
    evaluate_menu.addAction(agreement_action)
    evaluate_menu.addSeparator()
    panel = window.evaluation_panel
    for action in (panel.import_file_action, panel.import_folder_action):
        shown = QAction(f"Import MTEB {action.text()[0].lower()}{action.text()[1:]}", window)
        shown.setToolTip(
            "Published MTEB scores beside this corpus's runs of the same "
            "pairs (Evaluations > Across encoders)"
        )
        shown.triggered.connect(action.trigger)
        evaluate_menu.addAction(shown)

    annotations_menu = window.menuBar().addMenu("&Annotations")
    suspicious_action = QAction("Find &suspicious annotations", window)
    suspicious_action.setShortcut("Ctrl+Shift+A")
    suspicious_action.triggered.connect(window.analyses.find_suspicious)
    annotations_menu.addAction(suspicious_action)
    for title, shortcut, handler in (
        ("&Undo edit", QKeySequence.StandardKey.Undo, window.review_panel.undo),
        ("&Redo edit", QKeySequence.StandardKey.Redo, window.review_panel.redo),
    ):
        action = QAction(title, window)
        action.setShortcut(shortcut)
        action.triggered.connect(handler)
        annotations_menu.addAction(action)
    compare_corrected = QAction("Evaluate &original and corrected corpus", window)
    compare_corrected.setToolTip(
        "Run the evaluation chosen in the Evaluations panel "
        "on the corpus as loaded and as corrected"
    )
    compare_corrected.triggered.connect(window.analyses.evaluate_before_and_after)
    annotations_menu.addAction(compare_corrected)
    annotations_menu.addSeparator()
    for title, handler in (
        ("Resolve &conflicts…", window.teamwork.resolve_conflicts),
        ("Split the review into &batches…", window.teamwork.split_into_batches),
        ("&Bring back review batches…", lambda: window.teamwork.bring_back()),
    ):
        action = QAction(title, window)
        action.triggered.connect(handler)
        annotations_menu.addAction(action)
    annotations_menu.addSeparator()
    export_corrected = QAction("&Export corrected corpus and change log…", window)
    export_corrected.triggered.connect(window.files.choose_corrected_target)
    annotations_menu.addAction(export_corrected)

    help_menu = window.menuBar().addMenu("&Help")
    reproduce = help_menu.addAction("Reproduce a &paper…")
    reproduce.setToolTip("Re-run a paper's published tables beside its numbers")
    reproduce.triggered.connect(window.analyses.reproduce)
    help_menu.addSeparator()
    for key, title in TITLES.items():
        guide = help_menu.addAction(title)
        guide.triggered.connect(lambda _=False, k=key, t=title: window.inform(t, GUIDES[k]))
    return StatefulActions(run_action, cancel_action, agreement_action, suspicious_action, exports)
