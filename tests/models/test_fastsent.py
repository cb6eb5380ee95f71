"""FastSent / FastSent+AE, and what every PyTorch-trained family shares (models/neural.py):
repeatable training, progress per batch and cancel, save/load round trip, refusing files
sentspace did not save, ordered training text."""

import json

import numpy as np
import pytest

from sentspace.app.base.jobs import Progress
from sentspace.models import ModelError, NotFittedError, load_trained, make_encoder
from sentspace.models.fastsent import FastSent, FastSentAE
from sentspace.models.neural import Ragged, documents_of, read_ordered_text
from sentspace.models.sidecar import sidecar_path
from tests.models.conftest import refused_as_a_stranger

pytest.importorskip("torch")

SMALL = {"vector_size": 16, "epochs": 1, "batch_sentences": 64, "seed": 3}


@pytest.fixture(scope="module")
def state_union(shared_data):
    return read_ordered_text(shared_data / "state-union" / "sentences.txt")


def test_reads_the_state_union_addresses_in_order(state_union):
    """SOURCE.txt: 17,122 sentences, 65 addresses separated by blank lines."""
    documents = documents_of(state_union)
    assert len(documents) == 17_122
    assert len(np.unique(documents)) == 65 and (np.diff(documents) >= 0).all()
    assert state_union[0] and state_union[-1] and "" not in state_union[:2]


def test_ragged_take_and_padded():
    ragged = Ragged.of([np.array([5, 6]), np.array([], np.int64), np.array([7, 8, 9])])
    ids, owner = ragged.take(np.array([2, 0]))
    assert ids.tolist() == [7, 8, 9, 5, 6] and owner.tolist() == [0, 0, 0, 1, 1]
    assert ragged.padded(np.array([0, 1, 2])).tolist() == [[5, 6, 0], [0, 0, 0], [7, 8, 9]]
    assert ragged.padded(np.array([2, 0]), max_length=2).tolist() == [[7, 8], [5, 6]]


@pytest.mark.parametrize("cls", [FastSent, FastSentAE])
def test_training_is_repeatable_and_the_loss_falls(cls, state_union):
    texts = state_union[:1200]
    first = cls(**{**SMALL, "epochs": 2}).fit(texts)
    second = cls(**{**SMALL, "epochs": 2}).fit(texts)
    assert first.fingerprint() == second.fingerprint()
    assert np.array_equal(first.encode(texts[:50]), second.encode(texts[:50]))
    losses = np.array(first.losses_)
    assert np.mean(losses[-5:]) < 0.8 * np.mean(losses[:5])
    # Learnt, not memorised: the next 400 sentences' loss is below the untrained one's.
    held_out = state_union[1200:1600]
    trained, untrained = (first.held_out_loss(held_out), first.untrained().held_out_loss(held_out))
    assert trained < 0.9 * untrained, (trained, untrained)
    assert cls(**{**SMALL, "seed": 4}).fit(texts).fingerprint() != first.fingerprint()


def neighbour_rank(matrix: np.ndarray, documents: np.ndarray) -> float:
    """Mean rank (0 = nearest) of each sentence's next sentence among all others by cosine."""
    x = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    similarity = x @ x.T
    np.fill_diagonal(similarity, -np.inf)
    rows = np.flatnonzero(documents[:-1] == documents[1:])
    target = similarity[rows, rows + 1]
    return float(np.mean((similarity[rows] > target[:, None]).sum(axis=1)))


@pytest.mark.parametrize("cls", [FastSent, FastSentAE])
def test_learns_that_neighbouring_sentences_belong_together(cls, state_union):
    """Trained on 25 addresses, FastSent (and FastSent+AE) ranks a held-out sentence's
    next sentence much nearer than the same network at its initial weights (a random bag
    of words) does: mean rank about 400 against 600 of the 1,600 sentences of the last
    five addresses (GloVe mean: 367)."""
    documents = documents_of(state_union)
    sentences = [text for text in state_union if text]
    breaks = [i for i, text in enumerate(state_union) if not text]
    training = state_union[breaks[34] + 1 : breaks[59]]
    settings = {"vector_size": 32, "epochs": 3, "seed": 0}
    encoder = cls(**settings).fit(training)
    untrained = encoder.untrained()
    held_out = documents >= 60
    test = [sentences[i] for i in np.flatnonzero(held_out)]
    trained_rank = neighbour_rank(encoder.encode(test), documents[held_out])
    untrained_rank = neighbour_rank(untrained.encode(test), documents[held_out])
    assert trained_rank < 0.8 * untrained_rank, (trained_rank, untrained_rank)


def test_progress_per_batch_and_cancel_keeps_the_encoder_unfitted(state_union):
    encoder = FastSent(**SMALL)
    job = encoder.iter_fit(state_union[:1000])
    reports = [next(job) for _ in range(3)]
    job.close()
    assert all(isinstance(p, Progress) for p in reports)
    assert [p.done for p in reports] == [1, 2, 3] and reports[0].total == 16
    assert not encoder.is_fitted
    with pytest.raises(NotFittedError):
        encoder.encode(["a sentence"])


def test_save_and_load_round_trip(state_union, tmp_path):
    encoder = FastSentAE(**SMALL).fit(state_union[:1500])
    path = encoder.save(tmp_path)
    assert path.name == f"fastsent-ae-{encoder.fingerprint()}.npz"
    sidecar = json.loads(sidecar_path(path).read_text())
    assert (
        sidecar["params"] == encoder.params() and sidecar["n_training_sentences"] == 1498
    )  # two blank lines
    loaded = load_trained(path)
    assert type(loaded) is FastSentAE and loaded.fingerprint() == encoder.fingerprint()
    texts = state_union[2000:2100]
    assert np.array_equal(loaded.encode(texts), encoder.encode(texts))


def test_changed_or_foreign_model_files_are_refused(state_union, tmp_path):
    path = FastSent(**SMALL).fit(state_union[:500]).save(tmp_path)
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match=r"\.npz: the file's SHA-256 differs"):
        load_trained(path)
    stranger = tmp_path / "downloaded.safetensors"
    refused_as_a_stranger(
        stranger, b"not weights", "downloaded.safetensors: no sidecar", {"format": "other"}
    )
    with pytest.raises(ModelError, match="describes a fastsent model, not fastsent-ae"):
        FastSentAE.load(path.with_name(path.name))


def test_trains_on_a_file_given_on_the_command_line(shared_data):
    path = shared_data / "state-union" / "sentences.txt"
    encoder = make_encoder(f"fastsent:{path}")
    assert encoder.training_file == str(path.absolute()) and not encoder.learns_from_data
    assert encoder.name == "fastsent:sentences.txt"
    assert make_encoder("fastsent").learns_from_data
    with pytest.raises(ModelError, match="nope.txt: no such training file"):
        make_encoder("fastsent:nope.txt")


def test_clear_errors_for_text_without_neighbours():
    with pytest.raises(ModelError, match="no word occurs at least min_count=2"):
        FastSent().fit(["one two", "three four"])
    with pytest.raises(ModelError, match="no training sentence has a neighbour"):
        FastSent(min_count=1).fit(["alone here", "", "another document"])
    with pytest.raises(ModelError, match="vector_size and negatives must be at least 1"):
        FastSent(vector_size=0)


def test_a_file_trained_encoder_is_fitted_once_per_process_and_not_per_fold(
    state_union, tmp_path, msrp, monkeypatch
):
    """Evaluations clone and refit; an encoder trained on its own file is trained once and
    its embeddings are shared by the folds (it learned nothing from the corpus)."""
    from sentspace.app.analysis.evaluations.classification import run_classification
    from sentspace.app.base.jobs import run_job

    path = tmp_path / "speeches.txt"
    path.write_text("\n".join(state_union[:800]) + "\n")
    first = make_encoder(f"fastsent:{path}").fit([])
    monkeypatch.setattr(FastSent, "_prepare", lambda *a: pytest.fail("trained again"))
    again = make_encoder(f"fastsent:{path}").fit(["ignored"])
    assert again.fingerprint() == first.fingerprint() and again.losses_ == first.losses_
    result = run_job(run_classification(msrp, make_encoder(f"fastsent:{path}"), seed=0))
    assert result.provenance.parameters["refit_per_fold"] is False
