"""DictRep: reading (word, definition) tables, and what training on WordNet achieves."""

import numpy as np
import pytest

from sentspace.models import ModelError, load_trained, make_encoder
from sentspace.models.dictrep import DictRepBOW, DictRepRNN, read_definitions
from sentspace.models.word_vectors import DEFAULT_SOURCE, load_table

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def wordnet(shared_data):
    return read_definitions(shared_data / "wordnet-definitions" / "definitions.tsv")


def test_reads_every_row_of_the_wordnet_table(wordnet):
    """SOURCE.txt: 185,152 rows under a header of four columns, 128,501 of a one-token word."""
    assert len(wordnet) == 185_152
    assert wordnet[0] == ("'hood", "an urban, often lower-income inner-city area")
    words = [word for word, _ in wordnet]
    assert sum(" " not in word for word in words) == 128_501


def test_bad_rows_name_the_file_and_line(tmp_path):
    path = tmp_path / "definitions.tsv"
    path.write_text("dog\ta domestic animal\ncat\n")
    with pytest.raises(
        ModelError,
        match=r"definitions.tsv, line 2: 1 tab-separated columns "
        r"where 2 are expected",
    ):
        read_definitions(path)
    path.write_text("word\tpos\tdefinition\ndog\tn\ta domestic animal\n\ncat\tn\n")
    with pytest.raises(ModelError, match=r"line 4: 2 tab-separated columns where 3 .*header"):
        read_definitions(path)
    path.write_text("word\tdefinition\tpos\ndog\t\tn\n")
    with pytest.raises(ModelError, match="line 2: empty word or definition"):
        read_definitions(path)
    with pytest.raises(ModelError, match="training row 1: 1 tab-separated columns"):
        DictRepBOW().fit(["A sentence of the corpus, not a definition."])


def held_out_split(rows, n_words=300, seed=0):
    """Training rows, and the rows of ``n_words`` words never seen in training."""
    table = load_table(DEFAULT_SOURCE)
    known = table.rows([word.lower() for word, _ in rows]) >= 0
    words = sorted({word for (word, _), ok in zip(rows, known) if ok})
    held = set(np.random.default_rng(seed).choice(words, n_words, replace=False).tolist())
    training = [f"{w}\t{d}" for (w, d), ok in zip(rows, known) if ok and w not in held]
    return training, [(w, d) for w, d in rows if w in held]


def median_rank(encoder, test) -> float:
    """Median rank of each definition's own word among the held-out words' GloVe vectors."""
    table = load_table(DEFAULT_SOURCE)
    words, word_of = np.unique([w.lower() for w, _ in test], return_inverse=True)
    vectors = table.vectors[table.rows(list(words))]
    x = encoder.encode([d for _, d in test])
    similarity = (x / np.linalg.norm(x, axis=1, keepdims=True)) @ (
        vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    ).T
    own = similarity[np.arange(len(test)), word_of]
    return float(np.median((similarity > own[:, None]).sum(axis=1))), len(words)


def test_bow_maps_held_out_definitions_near_their_word(wordnet):
    """One epoch on a sixth of WordNet's rows: a definition of a word never seen in
    training lands nearer that word's GloVe vector than most of the other 299 held-out
    words (median rank about 65; chance 150)."""
    training, test = held_out_split(wordnet)
    encoder = DictRepBOW(epochs=1, seed=0).fit(training[::6])
    rank, n_words = median_rank(encoder, test)
    assert n_words == 300 and rank < 0.6 * n_words / 2, rank
    assert encoder.skipped_rows_ == 0
    losses = np.array(encoder.losses_)
    assert losses[-10:].mean() < 0.8 * losses[0]  # from about 1: orthogonal to the target


def test_rnn_maps_held_out_definitions_near_their_word_and_round_trip(wordnet, tmp_path):
    """The LSTM reader, a small budget (2 epochs on every 60th row): the held-out
    definitions land nearer their word than at the initial weights."""
    training, test = held_out_split(wordnet)
    encoder = DictRepRNN(embedding_size=32, hidden_size=32, epochs=2, seed=0).fit(training[::60])
    losses = np.array(encoder.losses_)
    assert losses[-5:].mean() < 0.9 * losses[:5].mean()
    (trained, _), (untrained, _) = (
        median_rank(encoder, test),
        median_rank(encoder.untrained(), test),
    )
    assert trained < untrained - 10, (trained, untrained)  # measured 131 against 150
    loaded = load_trained(encoder.save(tmp_path))
    texts = [definition for _, definition in wordnet[:40]]
    assert np.array_equal(loaded.encode(texts), encoder.encode(texts))


def test_trains_on_the_file_named_on_the_command_line(shared_data):
    path = shared_data / "wordnet-definitions" / "definitions.tsv"
    encoder = make_encoder(f"dictrep-bow:{path}")
    assert DictRepBOW.read_training_file(path)[1] == "'tween\tin between"
    assert encoder.name == "dictrep-bow:definitions.tsv" and not encoder.learns_from_data
