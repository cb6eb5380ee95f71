"""The battery every registered encoder passes, and every family on the grouped MSRP corpus."""

import numpy as np
import pytest
import scipy.sparse as sp

from sentspace.app.base.jobs import Progress
from sentspace.models import ENCODERS, ModelError, NotFittedError, make_encoder
from sentspace.models.pairs import TrainingPairs

#: A parameter change per family that must change the fingerprint.
CHANGED_PARAMS = {
    "bow": {"lowercase": False},
    "tfidf": {"lowercase": False},
    "pca-bow": {"dimension": 10},
    "random-bow": {"seed": 1},
    "glove-mean": {"lowercase": False},
    "glove-sum": {"lowercase": False},
    "doc2vec-dm": {"dm_concat": True},
    "doc2vec-dbow": {"seed": 1},
    "word2vec": {"sg": True},
    "fasttext": {"min_n": 2},
    "minilm": {"pooling": "cls"},
    "e5-small": {"prefix": "passage"},
    "fastsent": {"vector_size": 16},
    "fastsent-ae": {"negatives": 3},
    "dictrep-bow": {"embedding_size": 16},
    "dictrep-rnn": {"hidden_size": 16},
    "captionrep": {"max_images": 50},
    "captionrep-rnn": {"max_images": 50},
    "sae": {"hidden_size": 16},
    "sdae": {"p_delete": 0.2},
    "sdae-embs": {"p_swap": 0.0},
    "skipthought": {"noise_words": 64},
    "skipthought-combine": {"hidden_size": 64},
    "pair-bow": {"embedding_size": 16},
    "pair-rnn": {"hidden_size": 16},
    "pair-finetune": {"seed": 1},
    "urae": {"vector": "mean"},
    "nmt": {"hidden_size": 16},
}
#: Families whose rows depend on their batch by float rounding (a transformer, DictRep
#: and the other networks pad each batch to its longest sentence, which changes the
#: shapes of their matrix products).
BATCH_TOLERANCE = {
    "minilm": 1e-5,
    "dictrep-bow": 1e-5,
    "dictrep-rnn": 1e-5,
    "captionrep": 1e-5,
    "captionrep-rnn": 1e-5,
    "sae": 1e-5,
    "sdae": 1e-5,
    "sdae-embs": 1e-5,
    "skipthought": 1e-5,
    "skipthought-combine": 1e-5,
    "pair-bow": 1e-5,
    "pair-rnn": 1e-5,
    "pair-finetune": 1e-5,
    "urae": 1e-5,
    "nmt": 1e-5,
}
#: Families that train on data of their own (Multi30K's 145,000 captions), whatever texts
#: they are given: the battery trains them on the first 100 images.
OWN_DATA = {"captionrep": {"max_images": 100}, "captionrep-rnn": {"max_images": 100}}
#: Default names other than the family: CaptionRep names its stand-in targets.
DEFAULT_NAMES = {
    "captionrep": "captionrep(stand-in: other captions' LSA)",
    "captionrep-rnn": "captionrep-rnn(stand-in: other captions' LSA)",
}
#: Families whose optional extra is not installed here.
MISSING = {name for name, cls in ENCODERS.items() if not cls.available()}


def families():
    """Every registered family; those of an extra that is not installed skip."""
    return [
        pytest.param(
            name, marks=pytest.mark.skip(reason=f"not installed: {ENCODERS[name].install_hint}")
        )
        if name in MISSING
        else name
        for name in sorted(ENCODERS)
    ]


def construct(name, **params):
    """A family's encoder with ``params``; one with data of its own, cut (OWN_DATA)."""
    return ENCODERS[name](**{**OWN_DATA.get(name, {}), **params})


UNICODE = ["Zürich ist schön — naïve café", "東京は大きい 🙂", "Ελληνικά; «quotes» … ½"]


def train(encoder, texts):
    """``encoder`` fitted on ``texts``; DictRep trains on (word, definition) rows, here each
    sentence as the "definition" of its last word; pair-trained ones on consecutive
    sentences as pairs labelled alternately 0 and 1 (one batch for fine-tuning MiniLM)."""
    if encoder.learns_from_pairs:
        texts = texts[:17] if encoder.family == "pair-finetune" else texts
        return encoder.fit(
            TrainingPairs(
                tuple(texts[:-1]),
                tuple(texts[1:]),
                tuple(str(i % 2) for i in range(len(texts) - 1)),
                np.full(len(texts) - 1, np.nan),
            ).rows()
        )
    if encoder.family.startswith("dictrep"):
        texts = [f"{(text.split() or ['x'])[-1].strip('.,')}\t{text}" for text in texts]
    if encoder.family == "nmt":  # source<TAB>target rows: each sentence to the next
        texts = [f"{source}\t{target}" for source, target in zip(texts, texts[1:])]
    return encoder.fit(texts)


def dense(matrix) -> np.ndarray:
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


@pytest.fixture(scope="module")
def fit_texts(msrp):
    return list(msrp.texts[:120])


@pytest.fixture(scope="module")
def fitted(fit_texts):
    """One fitted (where needed) encoder per family, shared by the module."""
    encoders = {}
    for name in ENCODERS:
        if name in MISSING:
            continue
        encoder = construct(name)
        encoders[name] = train(encoder, fit_texts) if encoder.requires_fit else encoder
    return encoders


def test_registry_has_every_family_of_issue_5():
    assert {
        "bow",
        "tfidf",
        "pca-bow",
        "random-bow",
        "glove-mean",
        "glove-sum",
        "doc2vec-dm",
        "doc2vec-dbow",
        "word2vec",
        "fasttext",
        "minilm",
    } <= set(ENCODERS)
    assert set(CHANGED_PARAMS) == set(ENCODERS), "add the new family to CHANGED_PARAMS"


@pytest.mark.parametrize("name", families())
def test_class_protocol(name):
    cls = ENCODERS[name]
    assert cls.family == name and cls.title
    encoder = cls()
    assert make_encoder(name).params() == encoder.params()
    assert encoder.name == DEFAULT_NAMES.get(name, name)
    assert type(encoder)(**encoder.params()).params() == encoder.params()


@pytest.mark.parametrize("name", families())
def test_shape_dtype_determinism(name, fitted, msrp):
    encoder = fitted[name]
    texts = list(msrp.texts[100:160])
    first = encoder.encode(texts)
    assert first.shape == (60, encoder.dim)
    assert first.dtype == np.float32
    assert np.array_equal(dense(first), dense(encoder.encode(texts)))
    # Batching does not change rows.
    np.testing.assert_allclose(
        dense(first[:7]),
        dense(encoder.encode(texts[:7])),
        rtol=0,
        atol=BATCH_TOLERANCE.get(name, 0),
    )


@pytest.mark.parametrize("name", families())
def test_fresh_instance_gives_same_output_and_fingerprint(name, fitted, fit_texts, msrp):
    other = construct(name)
    if other.requires_fit:
        train(other, fit_texts)
    texts = list(msrp.texts[200:230])
    assert other.fingerprint() == fitted[name].fingerprint()
    assert np.array_equal(dense(other.encode(texts)), dense(fitted[name].encode(texts)))


@pytest.mark.parametrize("name", families())
def test_empty_and_unicode_input(name, fitted):
    encoder = fitted[name]
    empty = encoder.encode([])
    assert empty.shape == (0, encoder.dim) and empty.dtype == np.float32
    matrix = encoder.encode(UNICODE + ["", "   "])
    assert matrix.shape == (5, encoder.dim) and matrix.dtype == np.float32
    assert np.isfinite(dense(matrix)).all()


@pytest.mark.parametrize("name", families())
def test_fingerprint_changes_with_params_and_fit(name, fitted, fit_texts, msrp):
    encoder = fitted[name]
    changed = construct(name, **CHANGED_PARAMS[name])
    if changed.requires_fit:
        train(changed, fit_texts)
    assert changed.fingerprint() != encoder.fingerprint()
    if encoder.requires_fit:
        refit = train(encoder.clone(), list(msrp.texts[300:420]))
        # One with data of its own learns the same from any texts it is given.
        assert (refit.fingerprint() == encoder.fingerprint()) == (name in OWN_DATA)


@pytest.mark.parametrize("name", families())
def test_clone_and_fit_requirement(name, fitted):
    clone = fitted[name].clone()
    assert clone.params() == fitted[name].params()
    if clone.requires_fit:
        assert not clone.is_fitted
        with pytest.raises(NotFittedError):
            clone.encode(["a sentence"])


@pytest.mark.parametrize("name", families())
def test_progress_per_batch_and_cancel(name, fitted, msrp, monkeypatch):
    encoder = fitted[name]
    monkeypatch.setattr(type(encoder), "batch_size", 100)
    job = encoder.iter_encode(msrp.texts)
    reports = []
    for progress in job:
        assert isinstance(progress, Progress)
        reports.append(progress)
        if len(reports) == 3:
            job.close()  # cancelling: the generator stops at this yield
            break
    assert reports[-1].total == len(msrp) and reports[-1].done < len(msrp)


@pytest.mark.parametrize("name", families())
def test_encodes_grouped_msrp(name, msrp):
    encoder = construct(name)
    if encoder.requires_fit:
        train(encoder, msrp.texts)
    matrix = encoder.encode(msrp.texts)
    expected_dim = {
        "pca-bow": 300,
        "random-bow": 620,
        "glove-mean": 50,
        "glove-sum": 50,
        "doc2vec-dm": 100,
        "doc2vec-dbow": 100,
        "word2vec": 100,
        "fasttext": 100,
        "minilm": 384,
        "e5-small": 384,
        "fastsent": 128,
        "fastsent-ae": 128,
        "dictrep-bow": 50,
        "dictrep-rnn": 50,
        "captionrep": 256,
        "captionrep-rnn": 256,
        "sae": 128,
        "sdae": 128,
        "sdae-embs": 128,
        "skipthought": 128,
        "skipthought-combine": 256,
        "pair-bow": 300,
        "pair-rnn": 256,
        "pair-finetune": 384,
        "urae": 50,
        "nmt": 256,
    }.get(name, 2842)  # BOW vocabulary of the corpus
    assert matrix.shape == (859, expected_dim) == (len(msrp), encoder.dim)
    values = matrix.data if sp.issparse(matrix) else matrix
    assert np.isfinite(values).all()
    assert (abs(matrix).sum(axis=1) > 0).all()  # every sentence has a vector


def test_unknown_encoder_names_the_known_ones():
    with pytest.raises(
        ModelError,
        match="unknown encoder 'nope'.*glove-mean.*path:<file>.*"
        "st:<model folder>.*<trained family>:<file>",
    ):
        make_encoder("nope")


def cosines(matrix) -> np.ndarray:
    x = dense(matrix).astype(np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    x = x / np.where(norms > 0, norms, 1)
    return x @ x.T


def test_sum_and_mean_give_identical_cosines(msrp):
    mean = make_encoder("glove-mean").encode(msrp.texts)
    total = make_encoder("glove-sum").encode(msrp.texts)
    assert not np.allclose(mean, total)
    np.testing.assert_allclose(cosines(mean), cosines(total), atol=1e-5)


def nearest_neighbour_in_group(matrix, labels: np.ndarray) -> float:
    """Share of sentences whose most cosine-similar other sentence is in their group."""
    similarity = cosines(matrix)
    np.fill_diagonal(similarity, -np.inf)
    return float((labels[similarity.argmax(axis=1)] == labels).mean())


def test_paraphrase_ranking_on_msrp(msrp):
    """Nearest neighbour in its own paraphrase group, per sentence (chance: about 0.4%).

    Issue 5 expected GloVe mean to beat random BOW here. It does not: the grouped MSRP
    paraphrases share most of their words, so word overlap (which a 620-d random bag of
    words preserves almost exactly) is the stronger signal than 50-d GloVe averages, as
    White et al. (2015) found for their bag-of-words baselines on this corpus. The test
    pins the measured numbers so a change in either encoder shows.
    """
    labels = msrp.groups.labels(len(msrp))
    glove = nearest_neighbour_in_group(make_encoder("glove-mean").encode(msrp.texts), labels)
    random_bow = nearest_neighbour_in_group(make_encoder("random-bow").encode(msrp.texts), labels)
    bow_encoder = make_encoder("bow").fit(msrp.texts)
    bow = nearest_neighbour_in_group(bow_encoder.encode(msrp.texts), labels)
    assert glove == pytest.approx(0.9546, abs=5e-4)
    assert random_bow == pytest.approx(0.9814, abs=5e-4)
    assert bow == pytest.approx(0.9849, abs=5e-4)
    assert glove > 0.9  # far above chance: the vectors carry the sentences' content


def test_default_iter_fit_is_fit_as_a_job(msrp):
    encoder = make_encoder("bow")
    job = encoder.iter_fit(msrp.texts[:50])
    with pytest.raises(StopIteration) as stop:
        next(job)
    assert stop.value.value is encoder and encoder.is_fitted
