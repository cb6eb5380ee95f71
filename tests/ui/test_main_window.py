from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from tests.browser import map_manifest
from tests.ui.conftest import (
    JOB_TIMEOUT_MS,
    open_sick,
    run_and_wait,
    shift_drag,
    wait_for_job,
)


def metric(window, label):
    for row in range(window.classification.metrics.rowCount()):
        if window.classification.metrics.item(row, 0).text() == label:
            return window.classification.metrics.item(row, 1).text()
    raise KeyError(label)


def test_window_opens_on_the_bundled_corpus(window):
    assert window.corpus_panel.corpus_name.text() == "msrp-grouped"
    assert "859 sentences" in window.corpus_panel.corpus_counts.text()
    assert "274 paraphrase groups" in window.corpus_panel.corpus_counts.text()
    panel = window.corpus_panel
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()
    # Before any run the plot says what to do, on a sensible range.
    assert window.projection.hint.isVisible()
    assert window.projection.hint.textItem.toPlainText().startswith("Press Run")
    (x0, x1), _ = window.projection.view_box.viewRange()
    assert (x0, x1) == (-1, 1)


def test_run_shows_accuracy_and_859_points(qtbot, window):
    run_and_wait(qtbot, window)
    result = window.exploration.classification
    assert result.mean_accuracy > 0.95
    low, high = result.ci
    assert metric(window, "mean accuracy") == (
        f"{result.mean_accuracy:.4f} [{low:.4f}, {high:.4f}]"
    )
    assert [metric(window, f"fold {k} accuracy") for k in (1, 2, 3)] == [
        f"{a:.4f}" for a in result.fold_accuracy
    ]
    assert window.projection.point_count == 859
    assert len(window.projection.points.data) == 859
    assert len(window.projection.marked.data) == len(result.misclassified) > 0
    assert window.jobs.stage.text().startswith("Done in")
    assert window.corpus_panel.run_button.isEnabled()
    job_row = window.jobs.panel.row_of(window.jobs.job)
    assert job_row[:2] == ["bow on msrp-grouped", "done"]
    assert job_row[3].endswith(" s")


def test_tfidf_choice_runs_tfidf(qtbot, window):
    window.corpus_panel.choose("tfidf")
    run_and_wait(qtbot, window)
    assert window.exploration.classification.provenance.encoder_family == "tfidf"
    assert "tfidf" in window.classification.caption.text()


def test_cancel_stops_the_job_and_the_ui_stays_usable(qtbot, window):
    window.run()
    panel = window.corpus_panel
    assert panel.cancel_button.isEnabled() and panel.run_button.text() == "Queue run"
    with qtbot.waitSignal(window.jobs.job.worker.finished, timeout=JOB_TIMEOUT_MS):
        qtbot.mouseClick(window.corpus_panel.cancel_button, Qt.MouseButton.LeftButton)
    assert window.jobs.job.cancelled
    assert window.exploration is None
    assert window.jobs.stage.text() == "Cancelled: bow on msrp-grouped."
    assert window.jobs.panel.row_of(window.jobs.job)[1] == "cancelled"
    assert panel.run_button.isEnabled() and not panel.cancel_button.isEnabled()
    run_and_wait(qtbot, window)
    assert window.exploration is not None and window.projection.point_count == 859


def test_hover_shows_sentence_and_click_lists_its_group(qtbot, window):
    run_and_wait(qtbot, window)
    qtbot.waitExposed(window)
    qtbot.wait(100)  # let the plot's layout settle before mapping points to pixels
    view = window.projection
    corpus = window.corpus
    index = int(window.exploration.classification.misclassified[0])
    position = view.plot.mapFromScene(view.scene_position(index))
    with qtbot.waitSignal(view.hovered, timeout=2000) as hovered:
        qtbot.mouseMove(view.plot.viewport(), position)
    hovered_index = hovered.args[0]
    assert hovered_index >= 0
    assert corpus.texts[hovered_index] in window.statusBar().currentMessage()

    with qtbot.waitSignal(view.clicked, timeout=2000) as clicked:
        qtbot.mouseClick(view.plot.viewport(), Qt.MouseButton.LeftButton, pos=position)
    selected = clicked.args[0]
    group = window.selecting.group_of(selected)
    members = corpus.groups.members(group)
    assert window.selecting.list.count() == len(members)
    listed = [window.selecting.list.item(i).text() for i in range(window.selecting.list.count())]
    assert any(corpus.texts[selected] in text for text in listed)
    assert len(view.highlighted.data) == len(members)
    if selected == index:
        assert any(text.startswith("✗") for text in listed)


def test_bad_corpus_shows_a_dialog_and_keeps_the_current_one(qtbot, window, tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "phrases.txt").write_bytes(b"fine\nnot \xff utf-8\n")
    (folder / "phrase_groups.csv").write_text("phrase_index,paraphrase_group_index\n0,0\n")
    window.open_corpus(folder)
    wait_for_job(qtbot, window)
    dialog = window.findChild(QMessageBox, "error-dialog")
    assert dialog is not None and dialog.isVisible()
    assert "phrases.txt, line 2: not valid UTF-8" in dialog.text()
    state, message = window.jobs.panel.row_of(window.jobs.job)[1:3]
    assert state == "failed" and "CorpusError" in message and "line 2" in message
    assert window.corpus.name == "msrp-grouped"
    assert window.corpus_panel.corpus_name.text() == "msrp-grouped"
    dialog.accept()
    run_and_wait(qtbot, window)
    assert window.projection.point_count == 859


def test_clicking_misclassified_lists_those_sentences(qtbot, window):
    run_and_wait(qtbot, window)
    result = window.exploration.classification
    row = next(
        r
        for r in range(window.classification.metrics.rowCount())
        if window.classification.metrics.item(r, 0).text() == "misclassified"
    )
    window.classification.metrics.cellClicked.emit(row, 1)
    assert window.selecting.list.count() == len(result.misclassified)
    assert len(window.projection.highlighted.data) == len(result.misclassified)
    first = window.selecting.list.item(0)
    sentence = first.data(Qt.ItemDataRole.UserRole)
    window.selecting.list.itemClicked.emit(first)
    group = window.selecting.group_of(sentence)
    members = window.corpus.groups.members(group)
    qtbot.waitUntil(lambda: window.selecting.list.count() == len(members))
    assert window.selecting.list.count() == len(window.corpus.groups.members(group))


def test_reproject_with_tsne_and_recolour(qtbot, window):
    run_and_wait(qtbot, window)
    embeddings = window.exploration.embeddings
    controls = window.corpus_panel.projection_controls
    assert controls.project_button.isEnabled()
    controls.method.setCurrentIndex(controls.method.findData("tsne"))
    assert controls.parameters() == {"perplexity": 30.0, "pca_dims": 50}
    assert controls.form.isRowVisible(controls.perplexity)
    assert not controls.form.isRowVisible(controls.n_neighbors)
    with qtbot.waitSignal(controls.project_button.clicked):
        qtbot.mouseClick(controls.project_button, Qt.MouseButton.LeftButton)
    wait_for_job(qtbot, window)
    exploration = window.exploration
    assert exploration.projection.method == "tsne"
    assert exploration.embeddings is embeddings  # nothing re-encoded
    assert window.projection.plot.getPlotItem().getAxis("bottom").labelText == "t-SNE 1"
    assert window.projection.point_count == 859
    assert "faithfulness" in window.projection.legend.text()

    def distinct_brushes():
        return {brush.color().name() for brush in window.projection.points.data["brush"]}

    by_group = distinct_brushes()
    controls.colour.setCurrentIndex(controls.colour.findData("misclassified_or_not"))
    assert distinct_brushes() == {"#4a90d9", "#d00000"}
    controls.colour.setCurrentIndex(controls.colour.findData("faithfulness"))
    assert distinct_brushes() != by_group and len(distinct_brushes()) > 3
    assert window.projection.colour_bar.isVisible()


def test_jobs_panel_cancels_the_selected_job(qtbot, window):
    window.run()
    job = window.jobs.job
    assert window.jobs.panel.row_of(job)[1] == "running"
    with qtbot.waitSignal(job.worker.finished, timeout=JOB_TIMEOUT_MS):
        window.jobs.panel.cancel_button.click()
    assert job.state == "cancelled" and window.jobs.panel.row_of(job)[1] == "cancelled"
    labels = [window.jobs.panel.tree.topLevelItem(i).text(0) for i in range(2)]
    assert labels == ["bow on msrp-grouped", "loading msrp-grouped"]  # newest first


def test_inspector_shows_the_selected_sentence_and_its_neighbours(qtbot, window):
    run_and_wait(qtbot, window)
    window.select_sentence(0)
    inspector = window.inspecting.inspector
    corpus = window.corpus
    assert corpus.texts[0] in inspector.details.text()
    assert "L1" in inspector.details.text() and "paraphrase group" in inspector.details.text()
    assert inspector.neighbours.rowCount() == 10
    cosines = [float(inspector.neighbours.item(r, 0).text()) for r in range(10)]
    assert cosines == sorted(cosines, reverse=True) and cosines[0] <= 1.0
    # With bag of words, the nearest neighbours of sentence 0 are its two paraphrases.
    same_group = [inspector.neighbours.item(r, 1).text() for r in range(10)]
    assert same_group[:2] == ["✓", "✓"]
    assert {int(i) for i in inspector.neighbour_indices[:2]} == {1, 2}
    nearest = int(inspector.neighbour_indices[0])
    inspector.neighbours.cellClicked.emit(0, 2)
    qtbot.waitUntil(lambda: corpus.texts[nearest] in inspector.details.text())
    assert 0 in inspector.neighbour_indices[:2]  # and sentence 0 is among its nearest


def test_regex_search_marks_matching_sentences(qtbot, window):
    run_and_wait(qtbot, window)
    search = window.projection.search
    qtbot.keyClicks(search, r"nasdaq|dow jones")
    expected = [
        i
        for i, text in enumerate(window.corpus.texts)
        if "nasdaq" in text.lower() or "dow jones" in text.lower()
    ]
    assert len(expected) > 5
    assert len(window.projection.found.data) == len(expected)
    assert window.projection.search_result.text() == f"{len(expected)} of 859"
    search.setText("([unclosed")
    assert window.projection.search_result.text().startswith("invalid:")
    assert len(window.projection.found.data) == 0
    search.clear()
    assert window.projection.search_result.text() == ""


def test_export_embeddings_load_them_back_and_export_figures(qtbot, window, tmp_path):
    run_and_wait(qtbot, window)
    bow_result = window.exploration.classification
    window.files.export_embeddings(tmp_path / "bow.npy")
    wait_for_job(qtbot, window)
    assert (tmp_path / "bow.npy").exists() and (tmp_path / "bow.json").exists()
    window.files.export_projection(tmp_path / "xy.parquet")
    wait_for_job(qtbot, window)
    assert (tmp_path / "xy.parquet").stat().st_size > 0
    window.files.export_figure(tmp_path / "figure.png")
    window.files.export_figure(tmp_path / "figure.svg")
    assert (tmp_path / "figure.png").read_bytes()[:4] == b"\x89PNG"
    assert b"<svg" in (tmp_path / "figure.svg").read_bytes()[:2000]

    window.corpus_panel.load_embeddings(tmp_path / "bow.npy")
    wait_for_job(qtbot, window)
    assert window.corpus_panel.encoder_choice.currentText().startswith("precomputed:bow.npy")
    run_and_wait(qtbot, window)
    result = window.exploration.classification
    assert result.provenance.encoder_family == "precomputed"
    assert result.fold_accuracy == bow_result.fold_accuracy


def test_the_map_is_exported_in_the_background_and_a_failure_is_shown(qtbot, window, tmp_path):
    from PySide6.QtWidgets import QMessageBox

    run_and_wait(qtbot, window)
    path = tmp_path / "map.html"
    window.files.export_map(path)
    assert window.is_running  # a job: the window goes on meanwhile
    wait_for_job(qtbot, window)
    data = map_manifest(path)
    assert data["n"] == 859
    assert (
        window.statusBar()
        .currentMessage()
        .startswith(f"Wrote the map to {path}: sentspace export-map --corpus msrp-grouped ")
    )
    window.files.export_map(tmp_path / "missing folder" / "map.html")
    wait_for_job(qtbot, window)
    assert not (tmp_path / "missing folder").exists()
    qtbot.waitUntil(
        lambda: any(
            box.isVisible() and "map.html" in box.text() for box in window.findChildren(QMessageBox)
        )
    )


def test_evaluation_panel_runs_an_evaluation_and_shows_the_cli_numbers(qtbot, window, capsys):
    panel = window.evaluation_panel
    offered = [panel.choice.itemData(i) for i in range(panel.choice.count())]
    assert offered[0] == "classification"
    window.corpus_panel.choose("tfidf")
    panel.choice.setCurrentIndex(panel.choice.findData("classification"))
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    wait_for_job(qtbot, window)
    evaluation, result, command = panel.current
    assert evaluation == "classification" and result.provenance.encoder_family == "tfidf"
    assert command == "sentspace eval classification --corpus msrp-grouped --encoder tfidf --seed 0"
    shown = dict(panel.rows())
    from sentspace.app.cli import main

    assert main(command.split()[1:]) == 0
    printed = capsys.readouterr().out
    assert shown["mean accuracy"] in printed
    assert f"mean accuracy    {shown['mean accuracy']}" in printed


def test_open_any_format_and_map_unclear_columns(qtbot, window, shared_data, tmp_path):
    window.open_corpus(shared_data / "sts" / "STS2014-test")
    wait_for_job(qtbot, window)
    assert window.corpus.pairs is not None and len(window.corpus.pairs) == 3750
    offered = [
        window.evaluation_panel.choice.itemData(i)
        for i in range(window.evaluation_panel.choice.count())
    ]
    assert offered == ["relatedness", "histograms"]

    table = tmp_path / "mine.csv"
    table.write_text(
        "a,b\nThe cat sat on the mat.,x\nA cat was sitting on a mat.,x\n"
        "Stocks fell sharply.,y\nShares dropped a lot.,y\n"
    )
    window.open_corpus(table)
    wait_for_job(qtbot, window)
    from sentspace.app.ui.panels.mapping_dialog import MappingDialog

    dialog = window.findChild(MappingDialog)
    assert dialog is not None and dialog.isVisible()
    assert not dialog.ok_button.isEnabled()
    assert dialog.preview.rowCount() == 5  # no header yet: the names row shows as data
    dialog.header.setChecked(True)
    assert dialog.preview.rowCount() == 4
    dialog.choose("text", 0)
    dialog.choose("group", 1)
    assert dialog.ok_button.isEnabled()
    dialog.accept()
    wait_for_job(qtbot, window)
    assert window.corpus.name == "mine" and len(window.corpus) == 4
    assert window.corpus.groups.n_groups == 2


def test_second_run_loads_embeddings_from_the_cache(qtbot, window, monkeypatch, tmp_path):
    from sentspace.app.analysis.cache import CACHE_DIR_ENV
    from sentspace.models.bow import BagOfWords

    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    batches = []
    encode_batch = BagOfWords._encode_batch
    monkeypatch.setattr(
        BagOfWords,
        "_encode_batch",
        lambda self, texts: batches.append(len(texts)) or encode_batch(self, texts),
    )
    run_and_wait(qtbot, window)
    assert batches == [859]  # encoded once, shared by projection and classification
    first = window.exploration
    run_and_wait(qtbot, window)
    assert batches == [859]  # the second run read the cache
    assert (first.embeddings != window.exploration.embeddings).nnz == 0
    assert window.exploration.classification.fold_accuracy == first.classification.fold_accuracy


def test_rectangle_and_lasso_selection_list_the_sentences(qtbot, window):
    import numpy as np

    run_and_wait(qtbot, window)
    xy = window.projection.coordinates
    (x0, y0), (x1, y1) = np.percentile(xy, 30, axis=0), np.percentile(xy, 60, axis=0)
    rectangle = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    expected = np.flatnonzero((xy[:, 0] > x0) & (xy[:, 0] < x1) & (xy[:, 1] > y0) & (xy[:, 1] < y1))
    with qtbot.waitSignal(window.projection.selected) as selected:
        window.projection.view_box.drawn.emit(rectangle)
    assert np.array_equal(np.sort(selected.args[0]), expected) and len(expected) > 10
    assert window.selecting.list.count() == len(expected)
    assert len(window.projection.highlighted.data) == len(expected)
    # A triangle (lasso) holds fewer points than its bounding box.
    triangle = np.array([(x0, y0), (x1, y0), (x0, y1)])
    inside = window.projection.select_polygon(triangle)
    assert 0 < len(inside) < len(expected)


def test_shift_drag_selects_a_rectangle_of_points(qtbot, window):
    from PySide6.QtCore import QPoint

    run_and_wait(qtbot, window)
    qtbot.waitExposed(window)
    qtbot.wait(100)
    viewport = window.projection.plot.viewport()
    with qtbot.waitSignal(window.projection.selected) as selected:
        shift_drag(qtbot, viewport, QPoint(200, 150), QPoint(450, 400))
    chosen = selected.args[0]
    assert 0 < len(chosen) < 859
    assert window.selecting.list.count() == len(chosen)


def test_missing_extra_greys_out_its_encoder(qtbot, monkeypatch):
    from PySide6.QtWidgets import QComboBox

    from sentspace.app.ui.kit.widgets import fill_encoder_choice
    from sentspace.models.transformer import INSTALL_HINT, SentenceTransformerEncoder

    monkeypatch.setattr(SentenceTransformerEncoder, "available", classmethod(lambda cls: False))
    choice = QComboBox()
    qtbot.addWidget(choice)
    fill_encoder_choice(choice)
    item = choice.model().item(choice.findData("minilm"))
    assert not item.isEnabled() and INSTALL_HINT in item.toolTip()
    assert choice.model().item(choice.findData("bow")).isEnabled()


def test_clear_embedding_cache(qtbot, window, monkeypatch, tmp_path):
    from sentspace.app.analysis.cache import CACHE_DIR_ENV

    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))
    run_and_wait(qtbot, window)
    assert any(tmp_path.iterdir())
    assert window.analyses.clear_embedding_cache() > 0
    assert not any(p.suffix in (".npy", ".npz") for p in tmp_path.rglob("*"))


def test_group_alone_greys_the_rest_and_draws_spokes(qtbot, window):
    run_and_wait(qtbot, window)
    window.selecting.alone.setChecked(True)
    window.select_sentence(0)
    colours = [brush.color().name() for brush in window.projection.points.data["brush"]]
    members = window.corpus.groups.members(window.selecting.group_of(0))
    assert sum(colour != "#e4e4e4" for colour in colours) == len(members) == 3
    x, _ = window.projection.spokes.getData()
    assert len(x) == 2 * len(members)
    window.selecting.alone.setChecked(False)
    assert (
        window.projection.spokes.getData()[0] is None
        or len(window.projection.spokes.getData()[0]) == 0
    )


def test_doc2vec_trains_on_a_chosen_text_file(qtbot, window, tmp_path, shared_data):
    lines = (
        (shared_data / "msrp" / "msr_paraphrase_data.txt")
        .read_text(encoding="utf-8-sig")
        .splitlines()[1:1500]
    )
    text = tmp_path / "news.txt"
    text.write_text("\n".join(line.split("\t")[1] for line in lines) + "\n")
    window.corpus_panel.load_training_text(text)
    wait_for_job(qtbot, window)
    assert window.corpus_panel.training_text.currentText() == "news.txt (1,499 sentences)"
    window.corpus_panel.choose("doc2vec-dbow")
    window.run()
    stages = []
    window.jobs.job.worker.yielded.connect(lambda progress: stages.append(progress.stage))
    wait_for_job(qtbot, window)
    assert window.exploration is not None and window.projection.point_count == 859
    encoder = window.exploration.encoder
    assert encoder.family == "doc2vec-dbow" and encoder.training_file == str(text.resolve())
    assert encoder.n_training_sentences_ == 1499
    assert any("news.txt" in stage and "epoch" in stage for stage in stages)

    # The evaluation asked for from its panel trains on the file too, once, not per fold.
    panel = window.evaluation_panel
    window.show_evaluations()
    panel.choice.setCurrentIndex(panel.choice.findData("classification"))
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    wait_for_job(qtbot, window)
    evaluation = window.session.current.evaluations[-1]
    assert evaluation.encoder == f"doc2vec-dbow:{text}" and str(text) in evaluation.command
    provenance = evaluation.result.provenance
    assert provenance.encoder_name == "doc2vec-dbow:news.txt"
    assert provenance.encoder_params["training_file"] == str(text.resolve())
    assert provenance.parameters["refit_per_fold"] is False


def test_fastsent_trains_on_the_chosen_ordered_text_file(qtbot, window, tmp_path, shared_data):
    speeches = (shared_data / "state-union" / "sentences.txt").read_text().split("\n\n")
    text = tmp_path / "speeches.txt"
    text.write_text("\n\n".join(speech[:20_000] for speech in speeches[:3]) + "\n")
    window.corpus_panel.load_training_text(text)
    wait_for_job(qtbot, window)
    window.corpus_panel.choose("fastsent")
    window.run()
    stages = []
    window.jobs.job.worker.yielded.connect(lambda progress: stages.append(progress.stage))
    wait_for_job(qtbot, window)
    # The file-trained encoder has its own entry, so evaluations train on the file too.
    assert window.corpus_panel.encoder_choice.currentData() == f"fastsent:{text}"
    encoder = window.exploration.encoder
    assert encoder.training_file == str(text.resolve()) and encoder.n_training_sentences_ > 100
    assert window.projection.point_count == 859
    assert any("speeches.txt (epoch 1 of 2" in stage for stage in stages)


def test_add_a_word_vector_file_as_an_encoder(qtbot, window, tmp_path):
    from PySide6.QtWidgets import QMessageBox

    vectors = tmp_path / "tiny.vec"
    words = ["the", "a", "of", "to", "in", "and", "said", "."]
    vectors.write_text(
        f"{len(words)} 3\n"
        + "".join(f"{word} {i % 3} {(i + 1) % 3} {i / 10}\n" for i, word in enumerate(words))
    )
    window.corpus_panel.add_encoder(f"path:{vectors}")
    assert window.corpus_panel.encoder_choice.currentData() == f"path:{vectors}"
    assert window.corpus_panel.encoder_choice.currentText().endswith("tiny.vec")
    run_and_wait(qtbot, window)
    assert window.exploration.embeddings.shape == (859, 3)
    window.corpus_panel.add_encoder(f"st:{tmp_path}")  # not a sentence-transformers folder
    dialog = window.findChild(QMessageBox, "error-dialog")
    assert dialog is not None and str(tmp_path) in dialog.text()


def test_pair_bow_trains_on_a_chosen_pairs_file(qtbot, window, tmp_path, shared_data):
    """Grouped MSRP has no pairs to train pair-bow on: a pairs file chosen in *Train on*
    (SICK's first 300 training pairs) is what it learns from, evaluations included."""
    from PySide6.QtWidgets import QMessageBox

    rows = (shared_data / "sick" / "SICK_train.txt").read_text(encoding="utf-8").splitlines()[1:301]
    pairs = tmp_path / "sick-pairs.tsv"
    pairs.write_text(
        "sentence1\tsentence2\tscore\tlabel\n"
        + "".join("\t".join(row.split("\t")[1:5]) + "\n" for row in rows)
    )
    window.corpus_panel.load_training_pairs(pairs)
    wait_for_job(qtbot, window)
    panel = window.corpus_panel
    assert panel.training_text.currentText() == "sick-pairs.tsv (300 pairs)"
    panel.choose("bow")  # not trained on pairs: the corpus, as before
    assert panel.chosen_encoder()[0] == "bow" and panel.training() == (None, None)
    panel.choose("pair-bow")
    run_and_wait(qtbot, window)
    assert panel.encoder_choice.currentData() == f"pair-bow:{pairs}"
    encoder = window.exploration.encoder
    assert encoder.family == "pair-bow" and encoder.training_file == str(pairs.resolve())
    assert window.projection.point_count == 859

    broken = tmp_path / "broken.csv"
    broken.write_text("sentence1,sentence2,label\nA man walks.,A man is walking.\n")
    window.corpus_panel.load_training_pairs(broken)
    wait_for_job(qtbot, window)
    dialog = window.findChild(QMessageBox, "error-dialog")
    assert "broken.csv" in dialog.text() and "line 2" in dialog.text()
    assert panel.training_text.currentText() == "sick-pairs.tsv (300 pairs)"


def test_every_named_corpus_is_in_the_open_dataset_menu(qtbot, window):
    from sentspace.app.corpora import BUILTIN, FROM_DATA, FROM_PACKAGES
    from sentspace.app.ui.window.menus import NAMED_CORPORA

    assert set(NAMED_CORPORA) == {*BUILTIN, *FROM_PACKAGES, *FROM_DATA}
    menu = next(
        action.menu()
        for action in window.menuBar().actions()[0].menu().actions()
        if action.menu() is not None and "dataset" in action.text()
    )
    next(action for action in menu.actions() if action.text() == "multi30k-parallel").trigger()
    wait_for_job(qtbot, window)
    assert window.corpus.name.startswith("multi30k") and len(window.corpus) == 4000
    assert len(window.corpus.pairs) == 6000


def test_a_run_without_groups_says_why_and_what_training_achieved(qtbot, window, shared_data):
    open_sick(qtbot, window, shared_data, encoder="sdae")
    run_and_wait(qtbot, window)
    caption = window.classification.caption.text()
    assert "needs paraphrase groups" in caption and "Evaluations tab" in caption
    encoder = window.exploration.encoder
    assert encoder.training_report.startswith(
        f"trained on {encoder.n_training_sentences_:,} sentences, 1 epoch, loss "
    )
    assert encoder.training_report in caption
