"""The on-disk embedding cache (app/analysis/cache.py)."""

import json
import os

import numpy as np
import pytest
import scipy.sparse as sp

import sentspace.app.analysis.cache
from sentspace.app.analysis.cache import EmbeddingCache, cache_dir, cached_encode, encode_corpus
from sentspace.app.base.jobs import run_job
from sentspace.models import NotFittedError, make_encoder
from sentspace.models.precomputed import Precomputed


class Counting:
    """Counts the batches an encoder really encodes (so a cache hit shows as zero)."""

    def __init__(self, encoder, monkeypatch):
        self.batches = 0
        original = encoder._encode_batch

        def counted(texts):
            self.batches += 1
            return original(texts)

        monkeypatch.setattr(encoder, "_encode_batch", counted)


def encode(encoder, corpus, cache=None):
    return run_job(cached_encode(encoder, corpus.fingerprint, corpus.texts, cache))


def test_cache_dir_follows_the_environment(tmp_path):
    assert cache_dir() == tmp_path / "cache"


@pytest.mark.parametrize("name", ["glove-mean", "bow"])
def test_hit_returns_identical_arrays_without_encoding(name, msrp, monkeypatch):
    first = make_encoder(name)
    if first.requires_fit:
        first.fit(msrp.texts)
    computed = encode(first, msrp)
    second = make_encoder(name)
    if second.requires_fit:
        second.fit(msrp.texts)
    counter = Counting(second, monkeypatch)
    cached = encode(second, msrp)
    assert counter.batches == 0
    assert type(cached) is type(computed) and cached.dtype == np.float32
    if sp.issparse(computed):
        assert (cached != computed).nnz == 0
    else:
        np.testing.assert_array_equal(cached, computed)
        # Memory-mapped copy-on-write: writeable (scikit-learn does not copy it), and
        # writing changes the array, never the cached file.
        assert cached.flags.writeable and not cached.flags.owndata
        cached[0] = 0
        np.testing.assert_array_equal(
            encode(
                make_encoder(name).fit(msrp.texts) if second.requires_fit else make_encoder(name),
                msrp,
            ),
            computed,
        )
    if name == "glove-mean":
        assert second.coverage_ == first.coverage_  # the report comes back too


@pytest.mark.parametrize("damage", ["flip", "truncate", "json"])
def test_damaged_entry_is_recomputed_never_used(damage, msrp, monkeypatch):
    encoder = make_encoder("random-bow")
    expected = encode(encoder, msrp)
    cache = EmbeddingCache()
    data = next(cache.root.glob("*.npy"))
    if damage == "flip":
        content = bytearray(data.read_bytes())
        content[len(content) // 2] ^= 0x01
        data.write_bytes(bytes(content))
    elif damage == "truncate":
        data.write_bytes(data.read_bytes()[:-100])
    else:
        meta = next(cache.root.glob("*.json"))
        meta.write_text(meta.read_text()[:-5])
    fresh = make_encoder("random-bow")
    counter = Counting(fresh, monkeypatch)
    again = encode(fresh, msrp)
    assert counter.batches == 1
    np.testing.assert_array_equal(again, expected)
    # The recomputed entry replaced the damaged one and is now a clean hit.
    assert cache.load(cache.key(fresh.fingerprint(), msrp.fingerprint)) is not None


def test_flipped_byte_in_sparse_entry(msrp, monkeypatch):
    encoder = make_encoder("bow").fit(msrp.texts)
    expected = encode(encoder, msrp)
    data = next(EmbeddingCache().root.glob("*.npz"))
    content = bytearray(data.read_bytes())
    content[-200] ^= 0x10
    data.write_bytes(bytes(content))
    counter = Counting(encoder, monkeypatch)
    again = encode(encoder, msrp)
    assert counter.batches == 1 and (again != expected).nnz == 0


def test_key_separates_encoders_and_corpora(msrp):
    cache = EmbeddingCache()
    matrix = np.ones((2, 3), np.float32)
    cache.store(cache.key("enc1", "corpusA"), matrix, {})
    assert cache.load(cache.key("enc2", "corpusA")) is None
    assert cache.load(cache.key("enc1", "corpusB")) is None
    loaded, meta = cache.load(cache.key("enc1", "corpusA"))
    np.testing.assert_array_equal(loaded, matrix)
    assert meta["shape"] == [2, 3]


def test_unfitted_encoder_is_refused(msrp):
    with pytest.raises(NotFittedError):
        encode(make_encoder("pca-bow"), msrp)


def test_lru_eviction_and_clear(tmp_path):
    cache = EmbeddingCache(tmp_path / "small", limit_bytes=3 * 4500)
    matrix = np.zeros((1000, 1), np.float32)  # 4,128 bytes + JSON each
    for key in ("a", "b", "c"):
        cache.store(key, matrix, {})
    assert [entry.key for entry in cache.entries()] == ["a", "b", "c"]
    for age, key in ((300, "b"), (200, "c"), (100, "a")):  # "a" used most recently
        entry_path = cache.root / f"{key}.npy"
        stat = entry_path.stat()
        os.utime(entry_path, (stat.st_atime, stat.st_mtime - age))
    cache.store("d", matrix, {})
    assert sorted(entry.key for entry in cache.entries()) == ["a", "c", "d"]
    assert cache.size() <= cache.limit_bytes
    assert not list(cache.root.glob(".*.tmp"))  # atomic writes leave nothing behind
    freed = cache.clear()
    assert freed > 3 * 4128 and cache.entries() == [] and cache.size() == 0


def test_entry_bigger_than_the_limit_is_not_kept(tmp_path):
    cache = EmbeddingCache(tmp_path, limit_bytes=1000)
    cache.store("big", np.zeros((1000, 1), np.float32), {})
    assert cache.load("big") is None


def test_module_clear_empties_the_default_cache(msrp):
    encode(make_encoder("random-bow"), msrp)
    assert EmbeddingCache().size() > 0
    assert sentspace.app.analysis.cache.clear() > 0
    assert EmbeddingCache().size() == 0


def test_unwritable_cache_still_returns_the_matrix(msrp, tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    matrix = encode(make_encoder("glove-mean"), msrp, EmbeddingCache(blocker / "cache"))
    assert matrix.shape == (859, 50)


def test_metadata_describes_the_entry(msrp):
    encoder = make_encoder("glove-mean")
    encode(encoder, msrp)
    meta = json.loads(next(EmbeddingCache().root.glob("*.json")).read_text())
    assert meta["encoder"] == "glove-mean" and meta["corpus_fingerprint"] == msrp.fingerprint
    assert meta["encoder_fingerprint"] == encoder.fingerprint()
    assert meta["format"] == "npy" and len(meta["sha256"]) == 64
    assert meta["report"]["n_unknown"] == 39


def test_encode_corpus_fits_a_copy_and_goes_through_the_cache(msrp, monkeypatch):
    encoder = make_encoder("tfidf")
    batches = []
    encode_batch = type(encoder)._encode_batch
    monkeypatch.setattr(
        type(encoder),
        "_encode_batch",
        lambda self, texts: batches.append(1) or encode_batch(self, texts),
    )
    computed = run_job(encode_corpus(msrp, encoder))
    assert not encoder.is_fitted and len(batches) == 1
    fitted = make_encoder("tfidf").fit(msrp.texts)
    assert (computed != fitted.encode(msrp.texts, sparse=True)).nnz == 0
    assert EmbeddingCache().load(EmbeddingCache.key(fitted.fingerprint(), msrp.fingerprint))
    batches.clear()
    again = run_job(encode_corpus(msrp, encoder))
    assert not batches and (again != computed).nnz == 0
    # Texts drawn from the corpus (here its first 100 sentences) are fitted on and keyed
    # by themselves: TF-IDF weights of the subset, not of the corpus.
    subset = list(msrp.texts[:100])
    part = run_job(encode_corpus(msrp, make_encoder("tfidf"), texts=subset))
    own = make_encoder("tfidf").fit(subset).encode(subset, sparse=True)
    assert part.shape == own.shape and (part != own).nnz == 0
    assert part.shape[1] < computed.shape[1]


def test_precomputed_embeddings_are_not_cached_again(msrp, tmp_path):
    path = tmp_path / "glove.npy"
    np.save(path, make_encoder("glove-mean").encode(msrp.texts))
    stored = run_job(encode_corpus(msrp, Precomputed(path, msrp)))
    np.testing.assert_array_equal(stored, np.load(path))
    assert EmbeddingCache().entries() == []
