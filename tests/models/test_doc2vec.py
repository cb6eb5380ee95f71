"""Models trained on the user's text: Doc2Vec, Word2Vec, fastText (repeatability, epochs as
a cancellable job, saving and refusing files sentspace did not save)."""

import json

import numpy as np
import pytest

from sentspace.app.base.jobs import Progress
from sentspace.models import ModelError, NotFittedError, load_trained, read_training_text
from sentspace.models.doc2vec import Doc2VecDBOW, Doc2VecDM
from sentspace.models.sidecar import file_sha256, sidecar_path
from sentspace.models.word2vec import FastTextEncoder, Word2VecEncoder, train_epochs
from tests.models.conftest import refused_as_a_stranger

#: Small and quick: the properties tested do not depend on size.
SMALL = {"vector_size": 24, "epochs": 4, "workers": 1, "seed": 7}
FAMILIES = [
    (Doc2VecDM, {}),
    (Doc2VecDM, {"dm_concat": True}),
    (Doc2VecDBOW, {}),
    (Word2VecEncoder, {}),
    (FastTextEncoder, {"buckets": 5000}),
]
IDS = ["dm-mean", "dm-concat", "dbow", "word2vec", "fasttext"]


@pytest.mark.parametrize(("cls", "extra"), FAMILIES, ids=IDS)
def test_two_trainings_and_encodings_are_identical(cls, extra, msrp):
    texts = list(msrp.texts)
    first = cls(**SMALL, **extra).fit(texts)
    second = cls(**SMALL, **extra).fit(texts)
    a, b = first.encode(texts), second.encode(texts)
    assert a.shape == (859, 24) and a.dtype == np.float32 and np.isfinite(a).all()
    assert np.array_equal(a, b)
    assert np.array_equal(a, first.encode(texts))  # encoding again: same rows
    assert first.fingerprint() == second.fingerprint()
    assert cls(**{**SMALL, "seed": 8}, **extra).fit(texts).fingerprint() != first.fingerprint()


def test_epoch_by_epoch_training_equals_one_gensim_call(msrp):
    from gensim.models import Doc2Vec
    from gensim.models.doc2vec import TaggedDocument

    corpus = [TaggedDocument(text.lower().split(), [i]) for i, text in enumerate(msrp.texts)]

    def model():
        m = Doc2Vec(vector_size=16, min_count=2, workers=1, seed=3, epochs=5)
        m.build_vocab(corpus)
        return m

    whole, stepped = model(), model()
    whole.train(corpus, total_examples=whole.corpus_count, epochs=5)
    reports = list(train_epochs(stepped, corpus, 5, "training"))
    assert [p.done for p in reports] == [1, 2, 3, 4, 5]
    assert np.array_equal(whole.dv.vectors, stepped.dv.vectors)
    assert np.array_equal(whole.syn1neg, stepped.syn1neg)
    assert (stepped.alpha, stepped.min_alpha, stepped.epochs) == (0.025, 0.0001, 5)


def count_train_calls(monkeypatch):
    from gensim.models import Doc2Vec

    calls = []
    original = Doc2Vec.train

    def train(self, *args, **kwargs):
        calls.append(kwargs["epochs"])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Doc2Vec, "train", train)
    return calls


def test_closing_the_job_stops_training_between_epochs(msrp, monkeypatch):
    calls = count_train_calls(monkeypatch)
    encoder = Doc2VecDM(**{**SMALL, "epochs": 10})
    job = encoder.iter_fit(msrp.texts)
    first = next(job)
    assert isinstance(first, Progress) and (first.done, first.total) == (0, 10)
    job.close()
    assert calls == [] and not encoder.is_fitted  # cancelled before any epoch

    job = encoder.iter_fit(msrp.texts)
    reports = [next(job), next(job)]
    job.close()
    assert [p.done for p in reports] == [0, 1]
    assert calls == [1]  # exactly one epoch ran
    assert not encoder.is_fitted
    with pytest.raises(NotFittedError):
        encoder.encode(["a sentence"])


def test_iter_fit_reports_every_epoch(msrp):
    encoder = Doc2VecDBOW(**SMALL)
    job = encoder.iter_fit(msrp.texts)
    done = []
    while True:
        try:
            done.append(next(job).done)
        except StopIteration as stop:
            assert stop.value is encoder
            break
    assert done == [0, 1, 2, 3, 4] and encoder.is_fitted


@pytest.mark.parametrize(("cls", "extra"), FAMILIES, ids=IDS)
def test_save_and_load_round_trip(cls, extra, msrp, tmp_path):
    encoder = cls(**SMALL, **extra).fit(msrp.texts)
    path = encoder.save(tmp_path)
    assert path.parent == tmp_path and path.name == f"{cls.family}-{encoder.fingerprint()}.npz"
    sidecar = json.loads(sidecar_path(path).read_text())
    assert sidecar["params"] == encoder.params()
    assert sidecar["corpus_fingerprint"] == encoder.corpus_fingerprint_
    assert sidecar["n_training_sentences"] == 859 and sidecar["gensim"]
    loaded = load_trained(path)
    assert type(loaded) is cls and loaded.fingerprint() == encoder.fingerprint()
    texts = list(msrp.texts[:50])
    assert np.array_equal(loaded.encode(texts), encoder.encode(texts))


def test_saves_to_the_models_folder_by_default(msrp, tmp_path):
    path = Doc2VecDBOW(**SMALL).fit(msrp.texts[:200]).save()
    assert path.parent == tmp_path / "models"  # SENTSPACE_MODELS_DIR (conftest)


def test_tampered_model_file_is_refused(msrp, tmp_path):
    path = Doc2VecDM(**SMALL).fit(msrp.texts).save(tmp_path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="SHA-256 differs from its sidecar"):
        load_trained(path)
    with pytest.raises(ModelError, match="SHA-256 differs"):
        Doc2VecDM.load(path)


def test_model_file_without_our_sidecar_is_never_unpickled(msrp, tmp_path, monkeypatch):
    import pickle

    unpickled = []
    monkeypatch.setattr(pickle, "load", lambda *a, **k: unpickled.append(1))
    stranger = tmp_path / "downloaded.model"
    refused_as_a_stranger(
        stranger,
        b"\x80\x04not really a model",
        "no sidecar downloaded.model.json.*saved itself",
        {"family": "doc2vec-dm"},
    )
    # A genuine sidecar copied beside another file names its own file.
    path = Doc2VecDM(**SMALL).fit(msrp.texts[:200]).save(tmp_path)
    sidecar_path(stranger).write_text(sidecar_path(path).read_text())
    with pytest.raises(ModelError, match="describes 'doc2vec-dm-.*npz', not this file"):
        load_trained(stranger)
    # A sidecar of one family does not load through another's class.
    with pytest.raises(ModelError, match="describes a doc2vec-dm model, not doc2vec-dbow"):
        Doc2VecDBOW.load(path)
    assert unpickled == []


def test_a_pickle_is_refused_even_with_a_matching_sidecar(msrp, tmp_path, monkeypatch):
    """Someone who writes both files gets no code run: saved models are read with
    ``allow_pickle=False``, and gensim's old native files (pickles) are refused."""
    import pickle

    unpickled = []
    monkeypatch.setattr(pickle, "load", lambda *a, **k: unpickled.append(1))
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: unpickled.append(1))
    path = Doc2VecDM(**SMALL).fit(msrp.texts[:200]).save(tmp_path)
    sidecar = json.loads(sidecar_path(path).read_text())
    with open(path, "wb") as f:
        np.savez(f, **{"wv.vectors": np.array([object()], dtype=object)})
    sidecar_path(path).write_text(json.dumps({**sidecar, "sha256": file_sha256(path)}))
    with pytest.raises(ModelError, match="npz: not a readable array file.*allow_pickle"):
        load_trained(path)
    sidecar_path(path).write_text(json.dumps({**sidecar, "format": "sentspace-gensim-model"}))
    with pytest.raises(ModelError, match="earlier sentspace.*train it again"):
        load_trained(path)
    assert unpickled == []


def test_a_saved_state_that_does_not_fit_the_family_is_refused(msrp, tmp_path):
    path = Word2VecEncoder(**SMALL).fit(msrp.texts[:200]).save(tmp_path)
    sidecar = json.loads(sidecar_path(path).read_text())
    sidecar_path(path).write_text(json.dumps({**sidecar, "words": sidecar["words"][:-1]}))
    with pytest.raises(ModelError, match="does not fit word2vec: .* word vectors for"):
        load_trained(path)


def test_empty_training_corpus_and_vocabulary_are_clear_errors():
    with pytest.raises(ModelError, match="training corpus is empty"):
        Doc2VecDM().fit(["", "   "])
    with pytest.raises(ModelError, match="training corpus is empty"):
        Word2VecEncoder().fit([])
    with pytest.raises(ModelError, match="no word occurs at least min_count=5 times"):
        Doc2VecDBOW(min_count=5).fit(["one two three", "four five"])


def test_sentences_without_known_words_are_counted_zero_rows(msrp):
    encoder = Doc2VecDBOW(**SMALL).fit(msrp.texts)
    matrix = encoder.encode(["The company said.", "qzxwvk vbnmqz", ""])
    assert matrix[0].any() and not matrix[1:].any()
    assert encoder.coverage_.zero_rows == (1, 2)
    assert encoder.coverage_.top_unknown == (("qzxwvk", 1), ("vbnmqz", 1))


def test_fasttext_gives_unseen_words_ngram_vectors(msrp):
    encoder = FastTextEncoder(**SMALL, buckets=5000).fit(msrp.texts)
    assert "unprofitably" not in encoder.model_.wv.key_to_index
    matrix = encoder.encode(["unprofitably"])
    assert matrix[0].any() and encoder.coverage_.n_unknown == 0
    words = Word2VecEncoder(**SMALL).fit(msrp.texts)
    assert not words.encode(["unprofitably"]).any()
    assert words.coverage_.zero_rows == (0,)


def test_word2vec_mean_and_sum_share_cosines(msrp):
    texts = list(msrp.texts[:100])
    mean = Word2VecEncoder(**SMALL).fit(msrp.texts).encode(texts)
    total = Word2VecEncoder(**SMALL, composition="sum").fit(msrp.texts).encode(texts)
    norm = lambda x: x / np.linalg.norm(x, axis=1, keepdims=True)  # noqa: E731
    np.testing.assert_allclose(norm(mean), norm(total), atol=1e-5)
    assert not np.allclose(mean, total)


@pytest.mark.parametrize("bad", [{"vector_size": 0}, {"epochs": 0}, {"infer_epochs": 0}])
def test_bad_parameters(bad):
    with pytest.raises(ModelError, match="must be at least 1"):
        Doc2VecDM(**bad)


def test_read_training_text(tmp_path):
    path = tmp_path / "train.txt"
    path.write_text("\ufeffFirst sentence.\n\n  Second one.  \r\nThird\n", encoding="utf-8")
    assert read_training_text(path) == ["First sentence.", "Second one.", "Third"]
    (tmp_path / "blank.txt").write_text("\n  \n")
    with pytest.raises(ModelError, match="blank.txt: the file has no sentence"):
        read_training_text(tmp_path / "blank.txt")
    (tmp_path / "latin1.txt").write_bytes("ok\nok\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(ModelError, match=r"latin1.txt, line 3: not UTF-8 text"):
        read_training_text(tmp_path / "latin1.txt")
    (tmp_path / "model.bin").write_bytes(b"abc\0\1\2")
    with pytest.raises(ModelError, match="binary data"):
        read_training_text(tmp_path / "model.bin")
    with pytest.raises(ModelError, match="cannot read the training text"):
        read_training_text(tmp_path / "missing.txt")
    with pytest.raises(ModelError, match="is a folder"):
        read_training_text(tmp_path)


def test_training_text_reads_multi30k_czech_gzip_directly(shared_data, tmp_path):
    """``FAMILY:train.cs.gz`` trains on Multi30K's Czech side as distributed: every one
    of the 29,000 captions, diacritics intact, in file order (no blank line, so FastSent
    sees one document); a truncated gzip file is refused by name."""
    from sentspace.models.neural import read_ordered_text
    from sentspace.models.word2vec import read_text_lines

    path = shared_data / "multi30k" / "task1" / "raw" / "train.cs.gz"
    lines = read_text_lines(path)
    assert len(lines) == 29_000
    assert read_training_text(path) == lines == read_ordered_text(path)
    assert lines[0] == "Dva mladí bílí muži jsou venku poblíž mnoha keřů."
    assert lines[-1] and all(lines)
    (tmp_path / "cut.txt.gz").write_bytes(path.read_bytes()[:2000])
    with pytest.raises(ModelError, match="cut.txt.gz: not a readable gzip file"):
        read_training_text(tmp_path / "cut.txt.gz")


def test_trains_on_a_plain_text_file(shared_data, tmp_path):
    texts = read_training_text(shared_data / "senteval-transfer" / "MR" / "rt-polarity.pos")
    assert len(texts) > 5000
    encoder = Doc2VecDBOW(**SMALL).fit(texts)
    assert encoder.n_training_sentences_ == len(texts)
    assert np.isfinite(encoder.encode(texts[:20])).all()


def test_word2vec_trained_on_a_text_file_is_not_refitted_inside_folds(
    shared_data, msrp, tmp_path, monkeypatch
):
    """``word2vec:FILE`` trains on the State of the Union sentences, not on the corpus it
    encodes: classification on grouped MSRP fits it once and shares its embeddings across
    the folds, its provenance names the file, and it survives a save/reload."""
    from sentspace.app.analysis.evaluations.classification import run_classification
    from sentspace.app.base.jobs import run_job
    from sentspace.models import make_encoder

    path = shared_data / "state-union" / "sentences.txt"
    fits, fit = [], Word2VecEncoder.iter_fit

    def counted_fit(self, texts):
        fits.append(len(texts))
        return (yield from fit(self, texts))

    monkeypatch.setattr(Word2VecEncoder, "iter_fit", counted_fit)
    encoder = make_encoder(f"word2vec:{path}")
    encoder.epochs = 3  # the property tested does not depend on epochs
    assert not encoder.learns_from_data and make_encoder("word2vec").learns_from_data
    result = run_job(run_classification(msrp, encoder, seed=0))
    assert len(fits) == 1  # once, not once per fold
    assert result.provenance.parameters["refit_per_fold"] is False
    assert result.provenance.encoder_name == "word2vec:sentences.txt(epochs=3)"
    assert result.provenance.encoder_params["training_file"] == str(path.absolute())
    assert result.mean_accuracy > 0.3  # 274 groups: chance < 0.01

    fitted = encoder.clone().fit(["never seen: the file is the training text"])
    assert fitted.n_training_sentences_ == len(read_training_text(path)) == 17_122
    assert fitted.fingerprint() != Word2VecEncoder(epochs=3).fit(msrp.texts).fingerprint()
    reloaded = load_trained(fitted.save(tmp_path))
    assert reloaded.name == "word2vec:sentences.txt(epochs=3)"
    assert reloaded.fingerprint() == fitted.fingerprint()
    assert np.array_equal(reloaded.encode(msrp.texts[:50]), fitted.encode(msrp.texts[:50]))


def test_the_file_s_sentences_enter_the_fingerprint(tmp_path):
    path = tmp_path / "text.txt"
    path.write_text("the cat sat on the mat\nthe dog sat on the log\n" * 20)
    encoder = Doc2VecDBOW(**SMALL, training_file=str(path))
    first = encoder.clone().fit([])
    path.write_text("the cat sat on the log\nthe dog sat on the mat\n" * 20)
    assert encoder.clone().fit([]).fingerprint() != first.fingerprint()
    with pytest.raises(ModelError, match="nope.txt: no such training file"):
        Word2VecEncoder(training_file=str(tmp_path / "nope.txt"))


def test_where_the_training_file_lives_does_not_change_the_fingerprint(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "text.txt").write_text("the cat sat on the mat\nthe dog sat on the log\n" * 20)
    (tmp_path / "link").symlink_to(real)
    through_link = Doc2VecDBOW(**SMALL, training_file=str(tmp_path / "link" / "text.txt"))
    direct = Doc2VecDBOW(**SMALL, training_file=str(real / "text.txt"))
    assert through_link.training_file == str(tmp_path / "link" / "text.txt")
    assert through_link.fit([]).fingerprint() == direct.fit([]).fingerprint()
