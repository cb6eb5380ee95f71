"""``sentspace.show``: in-memory data reaches a window in another process, no pickle."""

import json
import os
import subprocess

import numpy as np
import pytest

import sentspace
from sentspace import _api
from sentspace.app.workspace.show_data import (
    CORPUS_FILE,
    EMBEDDINGS_FILE,
    label_groups,
    read_show_data,
    write_show_data,
)

TEXTS = [f"sentence {i} about {'cats' if i % 2 else 'dogs'}" for i in range(40)]
LABELS = ["cat" if i % 2 else "dog" for i in range(40)]


def test_the_data_travels_as_json_and_an_npz_and_comes_back(tmp_path):
    corpus = sentspace.load_corpus(TEXTS)
    embeddings = np.random.default_rng(0).normal(size=(40, 8)).astype(np.float32)
    write_show_data(tmp_path, corpus, embeddings, [None, *LABELS[1:]])
    assert sorted(path.name for path in tmp_path.iterdir()) == [CORPUS_FILE, EMBEDDINGS_FILE]
    assert json.loads((tmp_path / CORPUS_FILE).read_text())["texts"] == TEXTS
    with np.load(tmp_path / EMBEDDINGS_FILE, allow_pickle=False) as archive:
        np.testing.assert_array_equal(archive["embeddings"], embeddings)
    back, path, _ = read_show_data(tmp_path)
    assert path == tmp_path / EMBEDDINGS_FILE
    assert back.texts == corpus.texts and back.ids == corpus.ids
    assert back.groups.names == ("cat", "dog") and back.groups.kind == "class"
    assert 0 not in back.groups.sentence_index  # labelled None: in no group


def test_a_corpus_keeps_its_own_groups_without_labels(tmp_path):
    corpus = sentspace.load_corpus("msrp-grouped")
    write_show_data(tmp_path, corpus)
    back, path, encoder = read_show_data(tmp_path)
    assert path is None and encoder == "bow"
    assert back.fingerprint == corpus.fingerprint  # texts and groups, as loaded


def test_bad_labels_and_embeddings_are_refused(tmp_path):
    corpus = sentspace.load_corpus(TEXTS)
    with pytest.raises(ValueError, match="39 labels for 40"):
        write_show_data(tmp_path, corpus, labels=LABELS[1:])
    with pytest.raises(ValueError, match="one row per sentence"):
        write_show_data(tmp_path, corpus, np.zeros((3, 2)))
    with pytest.raises(ValueError, match="NaN"):
        label_groups([1.0, float("nan")])


def test_show_opens_a_window_holding_the_corpus_and_its_map(monkeypatch):
    """The command and folder ``show`` starts, run with ``--check`` headless."""
    started = []
    monkeypatch.setattr(
        _api.subprocess, "Popen", lambda command, env: started.append((command, env))
    )
    embeddings = np.random.default_rng(0).normal(size=(40, 8)).astype(np.float32)
    sentspace.show(TEXTS, embeddings, labels=LABELS)
    monkeypatch.undo()
    [(command, env)] = started
    folder = command[-1]
    done = subprocess.run(
        [*command, "--check"],
        env={**env, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "sentences 40, groups 2, encoder precomputed:embeddings.npz (8-d), map 40 points"
    )
    assert not os.path.exists(folder)  # the window's process cleans up
