"""pair-finetune: MiniLM fine-tuned on real SICK train pairs with sentence-transformers'
losses, saved as safetensors in a folder and loaded back offline."""

import numpy as np
import pytest

from sentspace.app.base.jobs import Progress
from sentspace.app.corpora import load_corpus
from sentspace.models import ModelError, make_encoder
from sentspace.models.pair_finetune import PairFinetune
from sentspace.models.pairs import TrainingPairs, corpus_pairs

pytest.importorskip("sentence_transformers")


def test_fine_tunes_on_sick_pairs_and_round_trips(shared_data, tmp_path):
    """32 SICK train pairs (entailment labels and relatedness scores): the
    labels-then-scores objective makes 2 batches on the labels, then 2 on the scores
    (the default, scores, 2 on the scores only); every batch reports
    progress, the model moves away from the base, and the saved folder (safetensors, no
    pickle) encodes identically; a changed file is refused."""
    sick = load_corpus(shared_data / "sick")
    pairs = corpus_pairs(sick)
    subset = TrainingPairs(pairs.first[:32], pairs.second[:32], pairs.label[:32], pairs.score[:32])
    encoder = PairFinetune(learning_rate=1e-4, objective="labels-then-scores")
    job = encoder.iter_fit_pairs(subset)
    reports = []
    while True:
        try:
            reports.append(next(job))
        except StopIteration:
            break
    assert [r.done for r in reports if isinstance(r, Progress)][-4:] == [1, 2, 3, 4]
    assert len(encoder.losses_) == 4 and all(np.isfinite(encoder.losses_))
    texts = list(sick.texts[:20])
    tuned = encoder.encode(texts)
    base = make_encoder("minilm").encode(texts)
    assert tuned.shape == (20, 384) and not np.allclose(tuned, base, atol=1e-4)
    folder = encoder.folder
    assert (folder / "model.safetensors").is_file()
    assert not [p for p in folder.rglob("*") if p.suffix in (".bin", ".pkl", ".pt")]
    loaded = PairFinetune.load(folder)
    assert loaded.fingerprint() == encoder.fingerprint()
    assert np.array_equal(loaded.encode(texts), tuned)
    (folder / "config.json").write_text((folder / "config.json").read_text() + " ")
    with pytest.raises(ModelError, match="differ from the digest in its sidecar"):
        PairFinetune.load(folder)


def test_spec_names_the_base_model(tmp_path):
    assert make_encoder("pair-finetune").base == "all-MiniLM-L6-v2"
    with pytest.raises(ModelError):
        make_encoder(f"pair-finetune:{tmp_path}")  # not a sentence-transformers folder
