"""CaptionRep: what training on Multi30K's captions achieves, the image-features file it
takes, and saving."""

import os

import numpy as np
import pytest

import sentspace
from sentspace.app.corpora.multi30k import DATA_ENV, load_captions
from sentspace.models import ModelError, load_trained, make_encoder
from sentspace.models.captionrep import (
    STAND_IN,
    CaptionRep,
    CaptionRepRNN,
    caption_retrieval,
    image_list,
)

pytest.importorskip("torch")

TRAIN_IMAGES = 29_000


@pytest.fixture(scope="module", autouse=True)
def multi30k(shared_data):
    """Multi30K from the shared data, wherever the repository lies."""
    previous = os.environ.get(DATA_ENV)
    os.environ[DATA_ENV] = str(shared_data / "multi30k")
    yield shared_data / "multi30k"
    if previous is None:
        os.environ.pop(DATA_ENV)
    else:
        os.environ[DATA_ENV] = previous


@pytest.fixture(scope="module")
def val():
    return load_captions(language="en", split="val")


@pytest.fixture(scope="module")
def trained():
    """The bag-of-words network on the captions of the first 2,000 training images, stand-in
    targets (about 30 s on one busy core)."""
    return CaptionRep(max_images=2000, epochs=2).fit([])


def test_beats_its_untrained_self_at_finding_an_images_other_captions(trained, val):
    """Each of the 5,070 Multi30K val captions (1,014 images never trained on) queries the
    others; its image's other four are the answers. Measured: MRR 0.394 against 0.261
    untrained, R@1 0.308 against 0.195, R@5 0.482 against 0.326."""
    images = val.groups.group_index
    mrr, at_1, at_5 = caption_retrieval(trained.encode(val.texts), images)
    untrained = caption_retrieval(trained.untrained().encode(val.texts), images)
    assert mrr > untrained[0] + 0.1 and at_1 > untrained[1] + 0.08 and at_5 > untrained[2] + 0.1
    assert (mrr, at_1, at_5) == pytest.approx((0.394, 0.308, 0.482), abs=0.01)
    score = trained.retrieval_
    assert (score.n_captions, score.n_images) == (5070, 1014)
    assert (score.mrr, score.recall_at_1, score.recall_at_5) == (mrr, at_1, at_5)
    assert (
        score.untrained_mrr,
        score.untrained_recall_at_1,
        score.untrained_recall_at_5,
    ) == untrained
    assert score.message() in trained.training_report


def test_the_stand_in_is_named_wherever_the_encoder_is(trained):
    assert trained.name == f"captionrep({STAND_IN}, max_images=2000, epochs=2)"
    assert make_encoder("captionrep").name == f"captionrep({STAND_IN})"
    assert sentspace.encoder("captionrep-rnn").name == f"captionrep-rnn({STAND_IN})"
    assert "stand-in" in CaptionRep.title and "stand-in" in CaptionRepRNN.title
    assert "stand-in targets, no image features" in trained.training_report
    assert trained.training_scores["targets"].startswith("stand-in targets")
    assert trained.dim == 256 and not trained.learns_from_data


def test_retrieval_counts_ties_against_the_answer():
    """Each query's answer (the other row of its image) ties with a row of the other
    image; rows 1 and 2 are also nearer to each other than to their answers."""
    vectors = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.0, 1.0]])
    mrr, at_1, at_5 = caption_retrieval(vectors, np.array([0, 0, 1, 1]))
    # Ranks: query 0 -> 2 (a tie), 1 -> 3 (row 2 nearer, row 3 a tie), 2 -> 3, 3 -> 2.
    assert (mrr, at_1, at_5) == (pytest.approx(5 / 12), 0.0, 1.0)


def test_saved_and_loaded_it_encodes_alike_and_keeps_its_score(trained, val, tmp_path):
    path = trained.save(tmp_path)
    loaded = load_trained(path)
    assert type(loaded) is CaptionRep and loaded.name == trained.name
    assert loaded.fingerprint() == trained.fingerprint()
    assert loaded.retrieval_ == trained.retrieval_ and loaded.dim == trained.dim
    texts = list(val.texts[:300])
    np.testing.assert_array_equal(loaded.encode(texts), trained.encode(texts))
    assert np.load(path, allow_pickle=False).files  # arrays only, no pickle


def features_file(tmp_path, array, name="features.npy"):
    path = tmp_path / name
    np.save(path, array, allow_pickle=True)
    return path


def test_image_features_file_aligned_trains_onto_the_images_vectors(tmp_path, val):
    """Features aligned with the image list: 8-d vectors, one per training image; the
    network learns to put each caption near its own image's vector."""
    rng = np.random.default_rng(0)
    features = rng.normal(size=(TRAIN_IMAGES, 8)).astype(np.float32)
    path = features_file(tmp_path, features)
    encoder = make_encoder(f"captionrep?image_features={path}&max_images=300&epochs=3")
    assert encoder.dim == 8 and encoder.image_features == str(path)
    assert encoder.name == "captionrep(image_features=features.npy, max_images=300, epochs=3)"
    encoder.fit([])
    assert "targets: image features features.npy (8-d)" in encoder.training_report
    train = load_captions(language="en", split="train")
    first = np.flatnonzero(train.groups.group_index < 300)
    predicted = encoder.encode([train.texts[i] for i in first])
    own = features[train.groups.group_index[first]]

    def cosine(a, b):
        return (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)

    untrained = encoder.untrained().encode([train.texts[i] for i in first])
    assert cosine(predicted, own).mean() > cosine(untrained, own).mean() + 0.3
    # The saved model names the file, which may be gone when it is loaded.
    saved = encoder.save(tmp_path / "models")
    path.unlink()
    loaded = load_trained(saved)
    assert loaded.name == encoder.name and loaded.dim == 8


def test_misaligned_image_features_are_refused_naming_the_file(tmp_path):
    images_path, images = image_list()
    assert len(images) == TRAIN_IMAGES
    path = features_file(tmp_path, np.ones((TRAIN_IMAGES - 1, 4), np.float32))
    with pytest.raises(
        ModelError,
        match=rf"features.npy: 28,999 rows, but Multi30K train has 29,000 images: row i "
        rf"must be the vector of the image on line i of {images_path.name}",
    ):
        make_encoder(f"captionrep?image_features={path}")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"IMAGE_FILE 0.1 0.2\n", "not a NumPy .npy array of numbers"),
        (np.ones(TRAIN_IMAGES, np.float32), r"an array of shape \(29000,\); expected 2-d"),
        (np.array([["a"]] * TRAIN_IMAGES), "holds <U1 values, not numbers"),
        (np.array([[{}]] * TRAIN_IMAGES, dtype=object), "not a NumPy .npy array of numbers"),
        (np.ones((TRAIN_IMAGES, 0), np.float32), "no columns"),
    ],
)
def test_malformed_image_features_are_refused_naming_the_file(tmp_path, content, problem):
    path = tmp_path / "features.npy"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        features_file(tmp_path, content)
    with pytest.raises(ModelError, match=rf"features.npy: {problem}"):
        CaptionRep(image_features=str(path))


def test_bad_values_are_refused_at_training_naming_row_and_image(tmp_path):
    _, images = image_list()
    features = np.ones((TRAIN_IMAGES, 4), np.float32)
    features[[6, 9]] = 0
    encoder = CaptionRep(image_features=str(features_file(tmp_path, features)), max_images=5)
    with pytest.raises(
        ModelError, match=rf"row 7 \(image {images[6]}\) has only zeros, as do 1 more rows"
    ):
        encoder.fit([])
    features[6:8, 1] = np.nan
    encoder = CaptionRep(image_features=str(features_file(tmp_path, features)), max_images=5)
    with pytest.raises(ModelError, match=r"row 7 .* a value that is not finite"):
        encoder.fit([])
    with pytest.raises(ModelError, match="no such image-features file"):
        CaptionRep(image_features=str(tmp_path / "missing.npy"))
    with pytest.raises(ModelError, match="captionrep trains on no file of yours"):
        make_encoder("captionrep:features.npy")
    with pytest.raises(ModelError, match="Multi30K's captions are in en and de, not 'fr'"):
        make_encoder("captionrep?language=fr")
