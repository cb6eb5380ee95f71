"""URAE: greedy trees, what training achieves on real MSRP text, saving."""

import numpy as np
import pytest

from sentspace.app.corpora.msrp import load_msrp
from sentspace.models import ModelError, load_trained
from sentspace.models.urae import URAE

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def msrp_sentences(shared_data):
    """The first 1,000 sentences of the full MSRP corpus (train and test pairs)."""
    return list(load_msrp(shared_data / "msrp").texts[:1000])


@pytest.fixture(scope="module")
def trained(msrp_sentences):
    return URAE().fit(msrp_sentences)


def nearest_in_group(matrix: np.ndarray, labels: np.ndarray) -> float:
    x = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    similarity = x @ x.T
    np.fill_diagonal(similarity, -np.inf)
    return float((labels[similarity.argmax(axis=1)] == labels).mean())


def test_greedy_trees_merge_every_sentence_to_one_root(trained):
    module = trained.module_
    ids = torch.tensor([[5, 6, 7, 8], [9, 10, 0, 0], [11, 0, 0, 0], [0, 0, 0, 0]])
    lengths = torch.tensor([4, 2, 1, 0])
    merges, nodes, total = module.trees(ids, lengths)
    steps = torch.stack(merges)
    assert ((steps >= 0).sum(0) == (lengths - 1).clamp(min=0)).all()  # n - 1 merges
    assert torch.allclose(nodes[:, 0].norm(dim=1), torch.tensor([1.0, 1, 1, 0]))
    assert torch.equal(nodes[2, 0], module.leaves[11])  # one word: the root is its leaf
    root, _ = module(ids, lengths, merges)  # replaying gives the same root
    assert torch.allclose(root, nodes[:, 0], atol=1e-6)
    # Undoing the merges rebuilds the leaves in their order, closer than chance.
    unfolded = module.unfold(nodes[:, 0], merges, 4)
    assert (unfolded[0] * module.leaves[ids[0]]).sum(1).mean() > 0.1


def test_training_lowers_the_loss_and_ranks_paraphrases_better(trained, msrp):
    """Nearest neighbour in its own paraphrase group on grouped MSRP (859 sentences):
    measured 0.18 untrained, 0.48 after two epochs (the default) on 1,000 MSRP sentences."""
    losses = np.array(trained.losses_)
    assert losses[-3:].mean() < 0.6 * losses[:3].mean()  # about 3.8 -> 1.8
    labels = msrp.groups.labels(len(msrp))
    before = nearest_in_group(trained.untrained().encode(msrp.texts), labels)
    after = nearest_in_group(trained.encode(msrp.texts), labels)
    assert after > before + 0.15, (before, after)


def test_mean_of_nodes_and_round_trip(trained, msrp, tmp_path):
    texts = list(msrp.texts[:40])
    mean = URAE(**{**trained.params(), "vector": "mean"})
    mean._use(trained.module_, trained.vocab_)
    one_word = mean.encode(["the", "zzqx"])
    leaf = trained.module_.leaves[trained.vocab_.index["the"]].cpu().numpy()
    assert np.allclose(one_word[0], leaf)  # a one-word tree is its leaf
    assert not one_word[1].any()  # no word with a vector: the zero vector
    assert not np.allclose(mean.encode(texts), trained.encode(texts))
    loaded = load_trained(trained.save(tmp_path))
    assert loaded.fingerprint() == trained.fingerprint()
    assert np.array_equal(loaded.encode(texts), trained.encode(texts))


def test_bad_parameters_and_texts_are_refused():
    with pytest.raises(ModelError, match="vector must be one of root, mean"):
        URAE(vector="leaves")
    with pytest.raises(ModelError, match="nothing to compose"):
        URAE().fit(["qzxv", "hello", ""])


def test_leaves_from_a_word_vector_file(tmp_path):
    """A ``source`` file gives the leaves (and the dimension); they are saved with the
    weights, so the model reloads identically."""
    words = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran"]
    rng = np.random.default_rng(0)
    vectors = tmp_path / "vectors.txt"
    vectors.write_text(
        f"{len(words)} 6\n"
        + "".join(f"{word} {' '.join(f'{x:.4f}' for x in rng.normal(size=6))}\n" for word in words)
    )
    texts = ["the cat sat on the mat", "a dog ran", "the dog sat on a cat", "a cat ran"] * 8
    encoder = URAE(source=str(vectors), epochs=1, batch_sentences=8).fit(texts)
    assert encoder.dim == 6 and len(encoder.vocab_.words) == 8
    probe = ["the cat sat", "an unknown zebra"]
    matrix = encoder.encode(probe)
    assert matrix.shape == (2, 6) and not matrix[1].any()
    loaded = load_trained(encoder.save(tmp_path))
    assert np.array_equal(loaded.encode(probe), matrix)
