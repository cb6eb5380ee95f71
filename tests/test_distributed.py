"""Sharded encoding (app/analysis/distributed.py): the same bits as a direct encode, on either
engine; resume after a kill; damaged shards named."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sentspace.app.analysis.distributed import encode_shards
from sentspace.app.base.jobs import run_job
from sentspace.app.cli import main
from sentspace.app.corpora import load_corpus
from sentspace.models import make_encoder
from sentspace.models.base import ModelError
from sentspace.models.bow import BagOfWords
from sentspace.models.precomputed import SHARD_MANIFEST, Precomputed

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def msrp(shared_data):
    corpus = load_corpus(shared_data / "msrp")
    assert len(corpus) == 10_944
    return corpus


@pytest.fixture(scope="module")
def glove_direct(msrp):
    return make_encoder("glove-mean").encode(msrp.texts)


@pytest.fixture(scope="module")
def glove_shards(msrp, tmp_path_factory):
    out = tmp_path_factory.mktemp("glove-shards")
    done = run_job(encode_shards(msrp, "glove-mean", out, shard_rows=2048))
    return out, done


def manifest(folder: Path) -> dict:
    return json.loads((folder / SHARD_MANIFEST).read_text())


def test_local_shards_equal_the_direct_encode(msrp, glove_direct, glove_shards):
    out, done = glove_shards
    assert (done.rows, done.dim, done.shards, done.written) == (10_944, 50, 6, 6)
    saved = manifest(out)
    assert [s["rows"] for s in saved["shards"]] == [2048] * 5 + [704]
    assert saved["shards"][0]["first_id"] == msrp.ids[0]
    assert saved["shards"][-1]["last_id"] == msrp.ids[-1]
    assert saved["corpus"]["fingerprint"] == msrp.fingerprint
    assert saved["encoder"]["fingerprint"] == make_encoder("glove-mean").fingerprint()
    precomputed = Precomputed(out, msrp)
    assert precomputed.aligned_by == "id"
    assert precomputed.aligned() is precomputed.vectors  # in corpus order: no copy
    np.testing.assert_array_equal(precomputed.encode(msrp.texts), glove_direct)


def test_a_rerun_keeps_every_finished_shard(msrp, glove_shards):
    out, _ = glove_shards
    before = {path.name: path.stat().st_ino for path in out.glob("*.parquet")}
    again = run_job(encode_shards(msrp, "glove-mean", out, shard_rows=2048))
    assert (again.reused, again.written) == (6, 0)
    assert {path.name: path.stat().st_ino for path in out.glob("*.parquet")} == before


def test_a_fitted_encoder_is_encoded_fitted(tmp_path):
    corpus = load_corpus("msrp-grouped")
    direct = make_encoder("bow").fit(corpus.texts).encode(corpus.texts)
    run_job(encode_shards(corpus, "bow", tmp_path))
    np.testing.assert_array_equal(Precomputed(tmp_path, corpus).encode(corpus.texts), direct)


def test_damaged_or_missing_shards_are_named(msrp, glove_direct, tmp_path):
    run_job(encode_shards(msrp, "glove-mean", tmp_path, shard_rows=4096))
    shard = tmp_path / "shard-00001.parquet"
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="differs from its SHA-256") as error:
        Precomputed(tmp_path, msrp)
    assert error.value.path == shard
    # A rerun encodes the damaged shard again, and only it.
    again = run_job(encode_shards(msrp, "glove-mean", tmp_path, shard_rows=4096))
    assert (again.reused, again.written) == (2, 1)
    np.testing.assert_array_equal(Precomputed(tmp_path, msrp).encode(msrp.texts), glove_direct)
    (tmp_path / "shard-00002.parquet").unlink()
    with pytest.raises(ModelError, match="shard file missing") as error:
        Precomputed(tmp_path, msrp)
    assert error.value.path == tmp_path / "shard-00002.parquet"
    with pytest.raises(ModelError, match="another encoding"):
        run_job(encode_shards(msrp, "glove-sum", tmp_path, shard_rows=4096))


def test_cancel_stops_between_shards_and_keeps_what_is_done(msrp, tmp_path):
    job = encode_shards(msrp, "glove-mean", tmp_path, shard_rows=2048)
    next(job)  # closed inside the first shard: nothing written
    job.close()
    assert not list(tmp_path.iterdir())
    job = encode_shards(msrp, "glove-mean", tmp_path, shard_rows=2048)
    for _ in job:
        if (tmp_path / SHARD_MANIFEST).exists():
            break
    job.close()
    assert [s["index"] for s in manifest(tmp_path)["shards"]] == [0]
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        SHARD_MANIFEST,
        "shard-00000.parquet",
    ]


def test_cli_encodes_shards_that_evaluate_as_the_encoder(tmp_path, capsys):
    out = str(tmp_path / "bow")
    encode = ["encode", "--engine", "local", "--corpus", "msrp-grouped", "--encoder", "bow"]
    assert main([*encode, "--out", out]) == 0
    assert "859 x 2842 embeddings in 1 shards" in capsys.readouterr().out
    encoders = ["--encoder", f"precomputed:{out}", "--encoder", "bow"]
    assert main(["eval", "classification", "--corpus", "msrp-grouped", *encoders]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    accuracy = next(row for row in rows if row[:2] == ["mean", "accuracy"])
    # Each encoder's value, then its interval in brackets.
    precomputed, direct = accuracy[2], accuracy[5]
    assert precomputed == direct and accuracy[3].startswith("[")
    assert float(precomputed) == pytest.approx(0.9837, abs=0.003)


#: Drives the encode and SIGKILLs its own process in the middle of the second shard
#: (encoded, not yet written), so the kill lands at the same point on any machine.
KILLED_ENCODE = """
import os, signal, sys
from sentspace.app.analysis.distributed import encode_shards
for progress in encode_shards(sys.argv[1], "glove-mean", sys.argv[2], shard_rows=2048):
    if progress.done > 2048:
        os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_encode_resumes_without_redoing_finished_shards(
    shared_data, msrp, glove_shards, tmp_path
):
    """The rerun keeps the shard finished before the kill (the same file) and ends with
    the bytes an uninterrupted run writes."""
    done = subprocess.run(
        [sys.executable, "-c", KILLED_ENCODE, str(shared_data / "msrp"), str(tmp_path)],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert sorted(path.name for path in tmp_path.glob("*.parquet")) == ["shard-00000.parquet"]
    first = (tmp_path / "shard-00000.parquet").stat().st_ino
    with pytest.raises(ModelError, match="5 of 6 shards are not encoded yet"):
        Precomputed(tmp_path, msrp)
    resumed = run_job(encode_shards(msrp, "glove-mean", tmp_path, shard_rows=2048))
    assert (resumed.reused, resumed.written) == (1, 5)
    assert (tmp_path / "shard-00000.parquet").stat().st_ino == first
    assert manifest(tmp_path)["shards"] == manifest(glove_shards[0])["shards"]


class KilledOnce(BagOfWords):
    """Bag of words whose process kills itself on the first batch it is given, once (the
    marker file says it did)."""

    family = "bow-killed-once"

    def __init__(self, marker: str = "", **params):
        super().__init__(**params)
        self.marker = marker

    def params(self):
        return {**super().params(), "marker": self.marker}

    def _encode_batch(self, texts):
        if self.marker and not os.path.exists(self.marker):
            Path(self.marker).touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return super()._encode_batch(texts)


def test_ray_engine_equals_the_direct_encode(msrp, glove_direct, glove_shards, tmp_path):
    """A local 2-CPU Ray instance, two actors: the same bits as the direct encode, after
    a cancelled run resumed; for an encoder fitted on the driver too, with its actor
    killed mid-run (Ray restarts it); Ray shut down after."""
    import ray  # the ray extra is in the default environment (tasks.py)

    corpus = load_corpus("msrp-grouped")
    bow = make_encoder("bow").fit(corpus.texts).encode(corpus.texts)
    marker = tmp_path / "killed"
    glove = tmp_path / "glove"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        job = encode_shards(msrp, "glove-mean", glove, shard_rows=2048, engine="ray", workers=2)
        for _ in job:
            if (glove / SHARD_MANIFEST).exists():
                break
        job.close()
        kept = len(manifest(glove)["shards"])
        done = run_job(
            encode_shards(msrp, "glove-mean", glove, shard_rows=2048, engine="ray", workers=2)
        )
        run_job(encode_shards(corpus, KilledOnce(str(marker)), tmp_path / "bow", engine="ray"))
    finally:
        ray.shutdown()
    assert 1 <= kept < 6
    assert (done.reused, done.written, done.engine) == (kept, 6 - kept, "ray")
    np.testing.assert_array_equal(Precomputed(glove, msrp).encode(msrp.texts), glove_direct)
    # Byte for byte the local engine's files.
    assert [s["sha256"] for s in manifest(glove)["shards"]] == [
        s["sha256"] for s in manifest(glove_shards[0])["shards"]
    ]
    assert marker.exists()
    np.testing.assert_array_equal(Precomputed(tmp_path / "bow", corpus).encode(corpus.texts), bow)


def test_an_index_built_shard_by_shard_on_ray_is_the_one_built_at_once(
    msrp, glove_direct, glove_shards, monkeypatch, capsys
):
    """The MSRP glove-mean shards indexed by a local 2-CPU Ray instance, one task per
    shard: the same IVF-SQ8, byte for byte, as the local engine's and as adding every
    row at once; stored where searching the precomputed embeddings finds it."""
    import faiss

    from sentspace.app.analysis import ann
    from sentspace.app.analysis.distributed import index_shards

    folder, _ = glove_shards
    assert main(["index", str(folder), "--engine", "ray", "--num-cpus", "2"]) == 0
    out = capsys.readouterr().out
    assert "IVF-SQ8 index of 10,944 rows (280 lists, 6 shards added by ray)" in out
    by_ray = faiss.read_index(str(ann.index_dir() / out.rsplit(": ", 1)[1].strip()))
    local = run_job(index_shards(folder))
    assert local.search.recall >= 0.95 and local.search.method == "ivf-sq8"
    at_once = run_job(ann.iter_build_index(ann.normalise(glove_direct).matrix, cache=False))
    expected = faiss.serialize_index(at_once)
    assert np.array_equal(faiss.serialize_index(faiss.read_index(str(local.path))), expected)
    assert np.array_equal(faiss.serialize_index(by_ray), expected)

    def refuse(*args):
        raise AssertionError("an index was built")

    monkeypatch.setattr(ann, "iter_trained_ivf", refuse)
    embeddings = Precomputed(folder, msrp).encode(msrp.texts)
    _, _, search = ann.knn(embeddings, embeddings, 10, search="ann")
    assert search.method == "ivf-sq8" and search.recall >= 0.95
