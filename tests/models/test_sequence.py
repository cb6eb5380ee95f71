"""S(D)AE and SkipThought: the noise model, training on real text, vocabulary expansion."""

import numpy as np
import pytest

from sentspace.models import ModelError, load_trained
from sentspace.models.neural import UNK, read_ordered_text
from sentspace.models.sequence import (
    CombineSkip,
    DenoisingAutoencoder,
    DenoisingAutoencoderGlove,
    SequentialAutoencoder,
    SkipThought,
    corrupt,
)

torch = pytest.importorskip("torch")

TINY = {
    "embedding_size": 32,
    "hidden_size": 32,
    "noise_words": 256,
    "seed": 1,
    "batch_sentences": 32,
}


def test_noise_deletes_words_and_swaps_non_overlapping_bigrams():
    ids = np.arange(10, 30)
    generator = torch.Generator().manual_seed(0)
    assert corrupt(ids, 0.0, 0.0, generator) is ids
    swapped = corrupt(ids, 0.0, 1.0, generator)
    assert swapped.tolist() == [
        11,
        10,
        13,
        12,
        15,
        14,
        17,
        16,
        19,
        18,
        21,
        20,
        23,
        22,
        25,
        24,
        27,
        26,
        29,
        28,
    ]
    kept = [len(corrupt(ids, 0.1, 0.0, generator)) for _ in range(500)]
    assert np.mean(kept) == pytest.approx(18, abs=0.2)  # 10% of 20 words deleted
    assert len(corrupt(np.array([4]), 0.99, 0.0, torch.Generator().manual_seed(1))) == 1
    first = [corrupt(ids, 0.1, 0.1, torch.Generator().manual_seed(5)).tolist() for _ in range(2)]
    assert first[0] == first[1]  # seeded: repeatable


def test_paper_noise_defaults():
    assert (SequentialAutoencoder().p_delete, SequentialAutoencoder().p_swap) == (0, 0)
    assert (DenoisingAutoencoder().p_delete, DenoisingAutoencoder().p_swap) == (0.1, 0.1)
    glove = DenoisingAutoencoderGlove(**TINY)
    assert glove.embedding_size == 50 and glove.p_delete == 0.1


@pytest.mark.parametrize(
    "cls", [SequentialAutoencoder, DenoisingAutoencoder, DenoisingAutoencoderGlove]
)
def test_autoencoders_learn_msrp_sentences_and_round_trip(cls, msrp, tmp_path):
    """The learning outcome: on 200 sentences never trained on, the (denoising)
    reconstruction loss is well below the untrained network's."""
    encoder = cls(**{**TINY, "epochs": 3}).fit(msrp.texts[:400])
    losses = np.array(encoder.losses_)
    assert losses[-5:].mean() < 0.9 * losses[:5].mean()  # about 6.4 -> 5.5
    held_out = list(msrp.texts[600:800])
    trained, untrained = (
        encoder.held_out_loss(held_out),
        encoder.untrained().held_out_loss(held_out),
    )
    assert trained < 0.9 * untrained, (trained, untrained)
    if cls.fixed_glove:  # the GloVe input vectors stay as they were
        from sentspace.models.word_vectors import DEFAULT_SOURCE, load_table

        table = load_table(DEFAULT_SOURCE)
        row = encoder.vocab_.index["the"]
        assert np.array_equal(
            encoder.module_.embedding.weight[row].cpu().numpy(), table.vectors[table.index["the"]]
        )
    loaded = load_trained(encoder.save(tmp_path))
    texts = list(msrp.texts[500:540])
    assert np.array_equal(loaded.encode(texts), encoder.encode(texts))


@pytest.fixture(scope="module")
def state_union(shared_data):
    return read_ordered_text(shared_data / "state-union" / "sentences.txt")


@pytest.fixture(scope="module")
def skipthought(state_union):
    return SkipThought(**{**TINY, "epochs": 2}).fit(state_union[:700])


def test_skipthought_learns_to_predict_the_neighbouring_sentences(skipthought, state_union):
    """The learning outcome: on the next 400 sentences, never trained on, decoding the
    previous and the next sentence costs well below the untrained network's loss
    (measured 4.9 against 7.2)."""
    losses = np.array(skipthought.losses_)
    assert losses[-5:].mean() < 0.85 * losses[:5].mean()
    held_out = state_union[700:1100]
    trained, untrained = (
        skipthought.held_out_loss(held_out),
        skipthought.untrained().held_out_loss(held_out),
    )
    assert trained < 0.8 * untrained, (trained, untrained)


def test_vocabulary_expansion_gives_unseen_words_their_own_vectors(skipthought, tmp_path):
    """ "Quasar" and "nebula" are not in the training text; GloVe knows them, so they read as
    different words, where without expansion both would be the unknown word."""
    assert "quasar" not in skipthought.vocab_.index and "nebula" not in skipthought.vocab_.index
    assert skipthought.module_.expansion.abs().sum() > 0
    texts = ["a quasar", "a nebula", "a qzxwvk"]
    quasar, nebula, unknown = matrix = skipthought.encode(texts)
    assert not np.allclose(quasar, nebula)
    assert not np.allclose(quasar, unknown)
    loaded = load_trained(skipthought.save(tmp_path))
    assert np.array_equal(loaded.encode(texts), matrix)


def test_combine_skip_concatenates_uni_and_bi_skip_and_round_trips(shared_data, tmp_path):
    """[uni-skip GRU's final state; bi-skip's forward final state; its backward final
    state], each direction half the size, so 2 x hidden_size dimensions."""
    speeches = read_ordered_text(shared_data / "state-union" / "sentences.txt")
    texts, held_out = speeches[:400], speeches[400:800]
    combine = CombineSkip(**TINY).fit(texts)
    assert combine.dim == 64 and combine.module_.bi_encoder.hidden_size == 16
    # The learning outcome, on sentences never trained on (as SkipThought's).
    trained, untrained = (
        combine.held_out_loss(held_out),
        combine.untrained().held_out_loss(held_out),
    )
    assert trained < 0.9 * untrained, (trained, untrained)
    with pytest.raises(ModelError, match="must be even"):
        CombineSkip(hidden_size=33)
    # Sentences read as they are: every word in the vocabulary (none expanded), none cut.
    sequences = combine._ids(texts, keep_unknown=True)
    probe = [
        text
        for text, ids in zip(texts, np.split(sequences.ids, sequences.offsets[1:-1]))
        if 0 < len(ids) <= combine.max_length and (ids != UNK).all()
    ][:6]
    matrix = combine.encode(probe)
    assert matrix.shape == (6, 64)
    module = combine.module_
    for text, row in zip(probe, matrix):  # one at a time: no padding
        ids = combine._ids([text], keep_unknown=True).padded(np.arange(1))
        with torch.inference_mode():
            embedded = module.embedding(torch.as_tensor(ids))
            _, uni = module.encoder(embedded)
            both, _ = module.bi_encoder(embedded)
        np.testing.assert_allclose(row[:32], uni[0, 0].numpy(), atol=1e-5)
        np.testing.assert_allclose(row[32:48], both[0, -1, :16].numpy(), atol=1e-5)
        np.testing.assert_allclose(row[48:], both[0, 0, 16:].numpy(), atol=1e-5)
    loaded = load_trained(combine.save(tmp_path))
    assert type(loaded) is CombineSkip and loaded.fingerprint() == combine.fingerprint()
    assert np.array_equal(loaded.encode(probe), matrix)
