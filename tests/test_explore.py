"""The explorer hands one encoded space down: the corpus is fitted and encoded once,
and the projection and the classification both use that matrix."""

from __future__ import annotations

from sentspace.app.analysis.cache import CACHE_DIR_ENV
from sentspace.app.analysis.explore import explore
from sentspace.app.base.jobs import run_job
from sentspace.app.corpora import DEFAULT_CORPUS, load_corpus
from sentspace.models.bow import BagOfWords


def test_explore_fits_and_encodes_the_corpus_once(monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path))  # a miss: the encoder must run
    corpus = load_corpus(DEFAULT_CORPUS)
    fitted_on, encoded = [], []
    fit, encode_batch = BagOfWords.fit, BagOfWords._encode_batch
    monkeypatch.setattr(
        BagOfWords, "fit", lambda self, texts: fitted_on.append(len(texts)) or fit(self, texts)
    )
    monkeypatch.setattr(
        BagOfWords,
        "_encode_batch",
        lambda self, texts: encoded.append(len(texts)) or encode_batch(self, texts),
    )

    exploration = run_job(explore(corpus, BagOfWords()))

    assert fitted_on == [859]
    assert sum(encoded) == 859
    assert exploration.embeddings.shape[0] == 859
    assert exploration.classification is not None
    assert len(exploration.classification.predicted_group) == 859
