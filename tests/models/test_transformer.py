"""Transformer encoders: the bundled all-MiniLM-L6-v2, local model folders, pooling, the
missing-extra message. Needs the transformers extra (CI installs it)."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sentspace.models import ModelError, make_encoder
from sentspace.models import transformer as tf
from sentspace.models.transformer import SentenceTransformerEncoder, bundled_model_dir

ROOT = Path(__file__).resolve().parents[2]
needs_extra = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="sentence_transformers is not importable: pip install 'sentspace[transformers]'",
)


def unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def minilm():
    if not SentenceTransformerEncoder.available():
        pytest.skip("the transformers extra is not installed")
    return make_encoder("minilm")


@pytest.fixture(scope="module")
def msrp_minilm(minilm, msrp):
    return minilm.encode(msrp.texts)


@needs_extra
def test_bundled_model_gives_unit_normable_384_d_vectors(minilm, msrp_minilm):
    assert minilm.dim == 384 and minilm.device_ in ("cpu", "cuda")
    assert msrp_minilm.shape == (859, 384) and msrp_minilm.dtype == np.float32
    norms = np.linalg.norm(msrp_minilm, axis=1)
    assert np.isfinite(msrp_minilm).all() and (norms > 0).all()
    np.testing.assert_allclose(np.linalg.norm(unit(msrp_minilm), axis=1), 1, atol=1e-6)
    np.testing.assert_allclose(norms, 1, atol=1e-5)  # the model ends in Normalize


@needs_extra
def test_ranks_a_paraphrase_above_an_unrelated_sentence(msrp, msrp_minilm):
    """Each group's first two members against the first member of the next group."""
    groups = msrp.groups
    x = unit(msrp_minilm.astype(np.float64))
    anchors, paraphrases, unrelated = [], [], []
    for g in range(groups.n_groups):
        members = groups.members(g)
        other = groups.members((g + 1) % groups.n_groups)[0]
        anchors.append(members[0])
        paraphrases.append(members[1])
        unrelated.append(other)
    paraphrase = np.einsum("ij,ij->i", x[anchors], x[paraphrases])
    unrelated_cos = np.einsum("ij,ij->i", x[anchors], x[unrelated])
    assert (paraphrase > unrelated_cos).all()
    assert paraphrase.mean() == pytest.approx(0.8571, abs=2e-3)
    assert unrelated_cos.mean() == pytest.approx(0.0511, abs=2e-3)
    # The first group: two sentences on FileVault in Panther, then one on the Nasdaq.
    assert "FileVault" in msrp.texts[anchors[0]] and "FileVault" in msrp.texts[paraphrases[0]]
    assert "Nasdaq" in msrp.texts[unrelated[0]]
    assert paraphrase[0] == pytest.approx(0.9384, abs=2e-3)
    assert unrelated_cos[0] == pytest.approx(0.0856, abs=2e-3)


@needs_extra
def test_wrapper_equals_sentence_transformers_encode(minilm, msrp, msrp_minilm):
    from sentence_transformers import SentenceTransformer

    direct = SentenceTransformer(
        str(bundled_model_dir()), device=minilm.device_, local_files_only=True
    )
    texts = list(msrp.texts[:200])
    expected = direct.encode(texts, batch_size=64, convert_to_numpy=True)
    np.testing.assert_allclose(msrp_minilm[:200], expected, atol=1e-5)


@needs_extra
def test_progress_per_batch_and_cancel(minilm, msrp, monkeypatch):
    monkeypatch.setattr(SentenceTransformerEncoder, "batch_size", 50)
    monkeypatch.setattr(SentenceTransformerEncoder, "cuda_batch_size", 50)
    calls = []
    original = SentenceTransformerEncoder._run
    monkeypatch.setattr(
        SentenceTransformerEncoder,
        "_run",
        lambda self, model, texts: calls.append(len(texts)) or original(self, model, texts),
    )
    job = minilm.iter_encode(msrp.texts)
    reports = [next(job) for _ in range(3)]
    job.close()
    assert [(p.done, p.total) for p in reports] == [(0, 859), (50, 859), (100, 859)]
    assert calls == [50, 50]  # nothing ran after the cancelling yield


@needs_extra
def test_cls_pooling_rebuilds_the_pooling_module(minilm, msrp, msrp_minilm):
    cls = make_encoder("minilm").__class__(pooling="cls")
    texts = list(msrp.texts[:40])
    matrix = cls.encode(texts)
    assert matrix.shape == (40, 384) and cls.dim == 384
    assert not np.allclose(matrix, msrp_minilm[:40], atol=1e-3)
    assert cls.fingerprint() != minilm.fingerprint()
    mean = SentenceTransformerEncoder(pooling="mean").encode(texts)
    np.testing.assert_allclose(mean, msrp_minilm[:40], atol=1e-5)  # its own pooling


@needs_extra
def test_local_model_folder(minilm, msrp, msrp_minilm, tmp_path):
    folder = tmp_path / "my-model"
    shutil.copytree(bundled_model_dir(), folder)
    encoder = make_encoder(f"st:{folder}")
    assert encoder.name == "st:my-model" and encoder.params()["model"] == str(folder)
    np.testing.assert_allclose(encoder.encode(msrp.texts[:20]), msrp_minilm[:20], atol=1e-5)
    assert encoder._fitted_state() == minilm._fitted_state()  # same files, same hash
    # Changing a weight file changes the fingerprint (the hash follows size and mtime).
    before = encoder.fingerprint()
    weights = folder / "model.safetensors"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    os.utime(weights, ns=(1, 1))
    assert encoder.fingerprint() != before


def test_folder_that_is_not_a_sentence_transformers_model(tmp_path):
    if not SentenceTransformerEncoder.available():
        pytest.skip("the transformers extra is not installed")
    with pytest.raises(ModelError, match="no such model folder"):
        make_encoder(f"st:{tmp_path / 'missing'}")
    (tmp_path / "file.bin").write_bytes(b"x")
    with pytest.raises(ModelError, match="is a file"):
        make_encoder(f"st:{tmp_path / 'file.bin'}")
    with pytest.raises(ModelError, match="has no modules.json"):
        make_encoder(f"st:{tmp_path}")
    (tmp_path / "modules.json").write_text("{not json")
    with pytest.raises(ModelError, match="modules.json is not a list of modules"):
        make_encoder(f"st:{tmp_path}")
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {
            "idx": 1,
            "name": "1",
            "path": "1_Pooling",
            "type": "sentence_transformers.models.Pooling",
        },
    ]
    (tmp_path / "modules.json").write_text(json.dumps(modules))
    with pytest.raises(ModelError, match="neither config_sentence_transformers.json"):
        make_encoder(f"st:{tmp_path}")
    (tmp_path / "sentence_bert_config.json").write_text("{}")
    with pytest.raises(ModelError, match="transformer module '.' has no config.json"):
        make_encoder(f"st:{tmp_path}")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelError, match="module folder '1_Pooling', which is missing"):
        make_encoder(f"st:{tmp_path}")
    # Shaped like a model but not loadable: refused when first used, with the folder.
    (tmp_path / "1_Pooling").mkdir()
    with pytest.raises(ModelError, match="sentence-transformers cannot load the model"):
        make_encoder(f"st:{tmp_path}").encode(["a sentence"])


def test_bad_pooling_is_refused():
    if not SentenceTransformerEncoder.available():
        pytest.skip("the transformers extra is not installed")
    with pytest.raises(ModelError, match="pooling must be one of"):
        SentenceTransformerEncoder(pooling="max-ish")


def test_missing_extra_names_the_install_command(monkeypatch):
    monkeypatch.setattr(tf, "_missing_packages", lambda: ["torch", "sentence_transformers"])
    assert not SentenceTransformerEncoder.available()
    with pytest.raises(ModelError, match=r"pip install 'sentspace\[transformers\]'"):
        make_encoder("minilm")
    with pytest.raises(ModelError, match=r"torch, sentence_transformers missing"):
        make_encoder("st:/some/folder")


@needs_extra
def test_import_and_fingerprint_need_no_torch():
    """Listing the family and keying the cache never import torch (a cache hit is cheap)."""
    code = (
        "import sys; from sentspace.models import make_encoder; e = make_encoder('minilm'); "
        "print(e.fingerprint()); assert 'torch' not in sys.modules, 'torch imported'"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
