"""``params()`` read from each family's constructor: the same dictionaries as the
hand-written methods it replaced, so fingerprints, cached embeddings and saved
workspaces keep their keys."""

import inspect
import re
import typing
from typing import Any

import pytest

from sentspace.models import ENCODERS, ModelError, make_encoder
from sentspace.models.fastsent import FastSent
from sentspace.models.neural import NeuralEncoder
from tests.models.test_encoders import CHANGED_PARAMS

#: The parameters families of one kind share (their values pinned below, per family).
GENSIM = {
    "vector_size": 100,
    "window": 5,
    "min_count": 2,
    "epochs": 20,
    "lowercase": True,
    "seed": 0,
    "workers": 1,
    "training_file": None,
}
FASTSENT = {
    "vector_size": 128,
    "negatives": 5,
    "sample": 0.0001,
    "epochs": 2,
    "batch_sentences": 128,
    "learning_rate": 0.01,
    "min_count": 2,
    "max_vocab": 50000,
    "lowercase": True,
    "seed": 0,
    "training_file": None,
}
DICTREP = {
    "embedding_size": 256,
    "hidden_size": 256,
    "max_length": 40,
    "epochs": 2,
    "batch_sentences": 128,
    "learning_rate": 0.003,
    "min_count": 2,
    "max_vocab": 50000,
    "lowercase": True,
    "seed": 0,
    "training_file": None,
}
CAPTIONREP = {
    "image_features": None,
    "language": "en",
    "max_images": None,
    "stand_in_size": 256,
    **{key: value for key, value in DICTREP.items() if key != "training_file"},
    "epochs": 1,
}
SEQUENCE = {
    "embedding_size": 100,
    "hidden_size": 128,
    "max_length": 30,
    "noise_words": 1024,
    "epochs": 1,
    "batch_sentences": 64,
    "learning_rate": 0.003,
    "min_count": 2,
    "max_vocab": 20000,
    "lowercase": True,
    "seed": 0,
    "training_file": None,
}
PAIRS = {
    "embedding_size": 300,
    "hidden_size": 512,
    "classifier_size": 512,
    "objective": "auto",
    "max_length": 50,
    "epochs": 10,
    "batch_sentences": 64,
    "learning_rate": 0.001,
    "min_count": 1,
    "max_vocab": 50000,
    "lowercase": True,
    "seed": 0,
    "training_file": None,
}
WORD2VEC = {**GENSIM, "composition": "mean", "sg": False}

#: ``params()`` of every family's default encoder, as the hand-written methods gave it.
DEFAULT_PARAMS = {
    "bow": {"lowercase": True},
    "tfidf": {"lowercase": True},
    "pca-bow": {"dimension": 300, "lowercase": True, "seed": 0},
    "random-bow": {"dimension": 620, "seed": 0, "lowercase": True},
    "glove-mean": {"source": "glove-6b-50d", "lowercase": None},
    "glove-sum": {"source": "glove-6b-50d", "lowercase": None},
    "doc2vec-dm": {**GENSIM, "infer_epochs": 20, "dm_concat": False},
    "doc2vec-dbow": {**GENSIM, "infer_epochs": 20, "dbow_words": False},
    "word2vec": WORD2VEC,
    "fasttext": {**WORD2VEC, "min_n": 3, "max_n": 6, "buckets": 100000},
    "minilm": {"model": "all-MiniLM-L6-v2", "pooling": None},
    "e5-small": {"prefix": "query"},
    "fastsent": FASTSENT,
    "fastsent-ae": FASTSENT,
    "dictrep-bow": DICTREP,
    "dictrep-rnn": {**DICTREP, "embedding_size": 128, "hidden_size": 128},
    "captionrep": CAPTIONREP,
    "captionrep-rnn": {**CAPTIONREP, "embedding_size": 128, "hidden_size": 128},
    "sae": {"p_delete": 0.0, "p_swap": 0.0, **SEQUENCE},
    "sdae": {"p_delete": 0.1, "p_swap": 0.1, **SEQUENCE},
    "sdae-embs": {"p_delete": 0.1, "p_swap": 0.1, **SEQUENCE, "embedding_size": 50},
    "skipthought": SEQUENCE,
    "skipthought-combine": SEQUENCE,
    "pair-bow": PAIRS,
    "pair-rnn": {**PAIRS, "embedding_size": 128, "hidden_size": 256, "epochs": 5},
    "pair-finetune": {
        "base": "all-MiniLM-L6-v2",
        "epochs": 1,
        "batch_pairs": 16,
        "learning_rate": 2e-05,
        "objective": "auto",
        "seed": 0,
    },
    "urae": {
        "vector": "root",
        "source": "glove-6b-50d",
        "max_length": 40,
        "epochs": 2,
        "batch_sentences": 64,
        "learning_rate": 0.001,
        "min_count": 1,
        "max_vocab": 100000,
        "lowercase": True,
        "seed": 0,
        "training_file": None,
    },
    "nmt": {
        "pair": None,
        "target_file": None,
        **{key: value for key, value in SEQUENCE.items() if key != "noise_words"},
        "hidden_size": 256,
        "epochs": 2,
        "max_pairs": None,
    },
}


def _construct(family, **params):
    cls = ENCODERS[family]
    if not cls.available():
        pytest.skip(f"{family}: its optional extra is not installed")
    return cls(**params)


def test_every_family_is_pinned():
    assert set(DEFAULT_PARAMS) == set(ENCODERS)


@pytest.mark.parametrize("family", sorted(DEFAULT_PARAMS))
def test_default_params_are_unchanged(family):
    assert _construct(family).params() == DEFAULT_PARAMS[family]


@pytest.mark.parametrize("family", sorted(CHANGED_PARAMS))
def test_changed_params_read_back_and_clone(family):
    encoder = _construct(family, **CHANGED_PARAMS[family])
    assert encoder.params() == {**DEFAULT_PARAMS[family], **CHANGED_PARAMS[family]}
    assert encoder.clone().params() == encoder.params()


def test_params_hold_the_value_the_constructor_stored(tmp_path):
    """The attribute, not the argument: a training file is kept as an absolute path."""
    (tmp_path / "train.txt").write_text("a b\n", encoding="utf-8")
    encoder = make_encoder(f"word2vec:{tmp_path / 'train.txt'}")
    assert encoder.params()["training_file"] == str((tmp_path / "train.txt").absolute())


def test_a_spec_sets_parameters_as_the_types_of_their_defaults(tmp_path):
    encoder = make_encoder("nmt:en-de?epochs=1&max_pairs=5000&lowercase=false")
    assert (encoder.pair, encoder.epochs, encoder.max_pairs, encoder.lowercase) == (
        "en-de",
        1,
        5000,
        False,
    )
    assert encoder.name == "nmt:en-de(epochs=1, lowercase=False, max_pairs=5000)"
    assert make_encoder("pca-bow?dimension=20").params() == {
        "dimension": 20,
        "lowercase": True,
        "seed": 0,
    }
    corpus = tmp_path / "speeches.txt"
    corpus.write_text("A sentence.\n", encoding="utf-8")
    trained = make_encoder(f"fastsent:{corpus}?epochs=4")
    assert (trained.training_file, trained.epochs) == (str(corpus), 4)
    for spec, problem in (
        ("bow?dimension=3", "bow has no parameter 'dimension'"),
        ("nmt:en-de?epochs=two", "epochs takes a whole number, not 'two'"),
        ("bow?lowercase=maybe", "lowercase is true or false"),
        ("bow?lowercase", "'lowercase' in the spec's parameters is not name=value"),
    ):
        with pytest.raises(ModelError, match=re.escape(problem)):
            make_encoder(spec)


class _Shared(FastSent):
    """A family as a new one is written: its own parameters, the defaults it changes."""

    family = "shared-test"
    defaults = {"epochs": 3, "min_count": 1}

    def __init__(self, width: int = 8, **fastsent: Any):
        super().__init__(**fastsent)
        self.width = int(width)


class _SharedWide(_Shared):
    family = "shared-test-wide"
    defaults = {"width": 64, "epochs": 1}


def test_a_family_declares_its_own_parameters_and_the_defaults_it_changes():
    pytest.importorskip("torch")
    expected = {
        "width": 8,
        "vector_size": 128,
        "negatives": 5,
        "sample": 1e-4,
        "epochs": 3,
        "batch_sentences": 128,
        "learning_rate": 0.01,
        "min_count": 1,
        "max_vocab": 50_000,
        "lowercase": True,
        "seed": 0,
        "training_file": None,
    }
    assert _Shared().params() == expected
    assert list(inspect.signature(_Shared).parameters) == list(expected)
    assert _SharedWide().params() == {**expected, "width": 64, "epochs": 1}
    assert _SharedWide(5, 32).params() == {**expected, "width": 5, "vector_size": 32, "epochs": 1}
    assert typing.get_type_hints(_SharedWide.__init__)["learning_rate"] is float
    with pytest.raises(TypeError, match="depth"):
        _Shared(depth=2)
    # CaptionRep always trains on Multi30K's captions: it leaves training_file out.
    assert "training_file" not in inspect.signature(ENCODERS["captionrep"]).parameters
    # A family's own parameters keep their places among the inherited ones.
    assert list(inspect.signature(ENCODERS["doc2vec-dm"]).parameters)[3:6] == [
        "epochs",
        "dm_concat",
        "infer_epochs",
    ]
    assert list(inspect.signature(ENCODERS["fasttext"]).parameters)[5:9] == [
        "sg",
        "min_n",
        "max_n",
        "buckets",
    ]
    # NMT's keyword-only max_pairs follows the training parameters, where it always was.
    assert list(inspect.signature(ENCODERS["nmt"]).parameters)[-3:] == [
        "lowercase",
        "seed",
        "max_pairs",
    ]


def test_a_training_parameter_without_a_default_is_refused_when_the_family_is_defined():
    with pytest.raises(ValueError, match="non-default argument follows default argument"):

        class _Undeclared(NeuralEncoder):
            family = "undeclared-test"

            def __init__(self, width: int = 8, **training: Any):
                super().__init__(**training)
