"""``pair-finetune:BASE``: a sentence-transformers model fine-tuned on labelled pairs
with sentence-transformers' own losses (Reimers & Gurevych 2019).

Labelled pairs train through ``SoftmaxLoss`` (a classifier on [u, v, |u - v|, u * v]),
scored pairs through ``CosineSimilarityLoss`` (cosine regressed onto the score rescaled
to [0, 1]); ``objective`` orders them as
:func:`sentspace.models.pairs.training_targets` says. The training loop is written here
rather than ``SentenceTransformer.fit`` so that progress comes per batch and closing the
job stops at the next batch. Pairs come as :class:`sentspace.models.pairs.TrainingPairs`
from the corpus (training pairs only inside evaluations).

The fine-tuned model is saved by ``SentenceTransformer.save`` (weights as safetensors,
never a pickle) in its own folder under :func:`sentspace.models.sidecar.models_dir`, beside a
sidecar JSON with the parameters and the folder's digest, checked on load; encoding is
:class:`sentspace.models.transformer.SentenceTransformerEncoder`'s on that folder, offline.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Self

import numpy as np

from sentspace.app.base.atomic import write_text_atomic
from sentspace.app.base.jobs import Job, Progress, run_job
from sentspace.models.base import Embeddings, Encoder, ModelError, NotFittedError
from sentspace.models.neural import seeded
from sentspace.models.pairs import TrainingPairs, resolved_objective, training_targets
from sentspace.models.sidecar import models_dir, sidecar_path
from sentspace.models.transformer import (
    _OFFLINE,
    BUNDLED_MODEL,
    INSTALL_HINT,
    SentenceTransformerEncoder,
    _device,
    model_dir_digest,
)
from sentspace.models.word2vec import corpus_digest


class PairFinetune(Encoder):
    """A sentence-transformers model fine-tuned on labelled or scored pairs.

    Parameters
    ----------
    base : str
        The model to start from: :data:`sentspace.models.transformer.BUNDLED_MODEL` (MiniLM) or a
        local sentence-transformers folder.
    epochs : int
        Passes over the training pairs.
    batch_pairs : int
        Pairs per optimiser step.
    learning_rate : float
        AdamW's learning rate (warm-up over the first 10% of steps, as
        sentence-transformers' own training does).
    objective : {"auto", "labels-then-scores", "both", "labels", "scores"}
        As in :class:`sentspace.models.pairs.PairBOW`, but "auto" is :attr:`AUTO`: the
        scores where the pairs have them, else the labels.
    seed : int
        Seeds the classifier head, dropout and the batch order.
    """

    family = "pair-finetune"
    title = (
        "Fine-tuned sentence-transformer on scored or labelled pairs (sentence-transformers losses)"
    )
    install_hint = INSTALL_HINT
    requires_fit = True
    learns_from_data = True
    learns_from_pairs = True
    #: What "auto" trains where pairs are scored. Measured on SICK test after 1 epoch
    #: (bench/measure_pair_finetune.py; MiniLM 0.7715 Spearman, 0.8315 entailment):
    #: scores 0.8283 / 0.8449, labels-then-scores 0.8135 / 0.8405, both 0.768. A
    #: pretrained encoder already tells entailment apart; the cosine loss trains what
    #: relatedness measures, and entailment gains too.
    AUTO = "scores"
    #: ``--encoder pair-finetune:BASE`` fine-tunes the model folder BASE.
    path_prefix = "pair-finetune:"
    batch_size = 64

    def __init__(
        self,
        base: str = BUNDLED_MODEL,
        epochs: int = 1,
        batch_pairs: int = 16,
        learning_rate: float = 2e-5,
        objective: str = "auto",
        seed: int = 0,
    ):
        self._base = SentenceTransformerEncoder(model=base)
        if int(epochs) < 1 or int(batch_pairs) < 1:
            raise ModelError(
                f"epochs and batch_pairs must be at least 1, not {epochs}, {batch_pairs}"
            )
        if not float(learning_rate) > 0:
            raise ModelError(f"learning_rate must be positive, not {learning_rate}")
        resolved_objective(objective)
        self.base, self.epochs, self.batch_pairs = self._base.model, int(epochs), int(batch_pairs)
        self.learning_rate, self.objective, self.seed = float(learning_rate), objective, int(seed)
        self.tuned_: SentenceTransformerEncoder | None = None
        self.corpus_fingerprint_: str | None = None
        self.losses_: list[float] = []

    @classmethod
    def available(cls) -> bool:
        return SentenceTransformerEncoder.available()

    @property
    def dim(self) -> int:
        return (self.tuned_ or self._base).dim

    def _fitted_state(self) -> str | None:
        if self.tuned_ is None:
            return None
        # The folder's content, not its path: the same training gives the same encoder
        # wherever the models folder is.
        return f"{self.corpus_fingerprint_}-{self.tuned_._fitted_state()}"

    def fit(self, texts: Sequence[str]) -> Self:
        """Train on pair rows (:meth:`sentspace.models.pairs.TrainingPairs.rows`)."""
        return run_job(self.iter_fit(texts))

    def iter_fit(self, texts: Sequence[str]) -> Job[Self]:
        return (yield from self.iter_fit_pairs(TrainingPairs.parse(texts)))

    def iter_fit_pairs(self, pairs: TrainingPairs) -> Job[Self]:
        """Fine-tune a fresh copy of the base model on ``pairs``, a progress report per
        batch; closing the job stops at the next batch and leaves this encoder as it was.

        Raises
        ------
        ModelError
            No pair has what the objective trains on.
        """

        import torch

        os.environ.update(_OFFLINE)
        from sentence_transformers import SentenceTransformer

        try:
            from sentence_transformers.sentence_transformer.losses import (
                CosineSimilarityLoss,
                SoftmaxLoss,
            )
        except ImportError:  # sentence-transformers < 6
            from sentence_transformers.losses import CosineSimilarityLoss, SoftmaxLoss
        classes, passes = training_targets(
            pairs, resolved_objective(self.objective, pairs, self.AUTO)
        )
        yield Progress(f"loading {self._base.name}", 0, 1)
        with seeded(self.seed):
            model = SentenceTransformer(
                str(self._base.directory), device=_device(), local_files_only=True
            )
            dimension = (
                getattr(model, "get_embedding_dimension", None)
                or model.get_sentence_embedding_dimension
            )()
            assert dimension is not None, "the base model's pooling fixes the dimension"
            dimension = int(dimension)
            softmax = (
                SoftmaxLoss(model, dimension, len(classes), concatenation_sent_multiplication=True)
                if any((p.labels >= 0).any() for p in passes)
                else None
            )
            cosine = (
                CosineSimilarityLoss(model)
                if any(np.isfinite(p.scores).any() for p in passes)
                else None
            )
            trained = [
                p for loss in (softmax, cosine) if loss is not None for p in loss.parameters()
            ]
            optimizer = torch.optim.AdamW(
                list({id(p): p for p in trained}.values()), lr=self.learning_rate
            )
            total = self.epochs * sum(-(-len(p.examples) // self.batch_pairs) for p in passes)
            warmup = max(1, total // 10)
            schedule = torch.optim.lr_scheduler.LambdaLR(
                optimizer, lambda step: min(1.0, (step + 1) / warmup)
            )
            # sentence-transformers 6 renamed tokenize to preprocess.
            tokenize = getattr(model, "preprocess", None) or model.tokenize
            generator = torch.Generator().manual_seed(self.seed)
            n_pairs = len(np.unique(np.concatenate([p.examples for p in passes])))
            losses = []
            model.train()
            for epoch in range(self.epochs):
                for step in passes:
                    heads = (
                        (softmax, step.labels >= 0, step.labels, torch.long),
                        (cosine, np.isfinite(step.scores), step.scores, torch.float32),
                    )
                    order = step.examples[
                        torch.randperm(len(step.examples), generator=generator).numpy()
                    ]
                    for start in range(0, len(order), self.batch_pairs):
                        rows = order[start : start + self.batch_pairs]
                        # A tensor once a head adds to it (a Python 0.0 keeps its dtype).
                        loss: Any = 0.0
                        for head, has_gold, gold, dtype in heads:
                            keep = rows[has_gold[rows]]
                            if head is None or not len(keep):
                                continue
                            features = [
                                _to(tokenize([side[i] for i in keep]), model.device)
                                for side in (pairs.first, pairs.second)
                            ]
                            loss = loss + head(
                                features,
                                torch.as_tensor(gold[keep], dtype=dtype, device=model.device),
                            )
                        optimizer.zero_grad(set_to_none=True)
                        loss.backward()
                        torch.nn.utils.clip_grad_norm_(trained, 1.0)
                        optimizer.step()
                        schedule.step()
                        losses.append(float(loss.item()))
                        yield Progress(
                            f"fine-tuning {self._base.name} on {n_pairs:,} pairs "
                            f"(epoch {epoch + 1} of {self.epochs}, loss "
                            f"{losses[-1]:.3f})",
                            len(losses),
                            total,
                        )
        model.eval()
        corpus_fingerprint = corpus_digest(pairs.rows())
        self._save(model, corpus_fingerprint, losses)
        return self

    def _save(self, model, corpus_fingerprint: str, losses: list[float]) -> None:
        """Write the fine-tuned folder and its sidecar, and encode with it from now on."""
        staging = models_dir() / f".{self.family}-{time.time_ns()}"
        model.save(str(staging), create_model_card=False, safe_serialization=True)
        digest = model_dir_digest(staging)
        folder = models_dir() / f"{self.family}-{corpus_fingerprint[:8]}-{digest}"
        if folder.exists():
            shutil.rmtree(staging)
        else:
            staging.rename(folder)
        sidecar = {
            "format": "sentspace-pair-finetune",
            "version": 1,
            "family": self.family,
            "params": self.params(),
            "corpus_fingerprint": corpus_fingerprint,
            "digest": digest,
            "losses": losses,
        }
        write_text_atomic(sidecar_path(folder), json.dumps(sidecar))
        self._restore(folder, corpus_fingerprint, losses)

    def _restore(self, folder: Path, corpus_fingerprint: str, losses: list[float]) -> None:
        self.tuned_ = SentenceTransformerEncoder(model=str(folder))
        self.corpus_fingerprint_, self.losses_ = corpus_fingerprint, list(losses)

    @property
    def folder(self) -> Path:
        """The fine-tuned model's folder (:meth:`load` takes it back)."""
        if self.tuned_ is None:
            raise NotFittedError(f"{self.name} must be fitted first")
        return Path(self.tuned_.model)

    @classmethod
    def load(cls, folder: str | Path) -> Self:
        """The fine-tuned encoder saved in ``folder``; ModelError when its sidecar is
        missing or the folder's files differ from the digest the sidecar recorded."""
        folder = Path(folder).expanduser().resolve()
        path = sidecar_path(folder)
        try:
            sidecar = json.loads(path.read_text(encoding="utf-8"))
            params, digest = sidecar["params"], sidecar["digest"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ModelError(
                f"no readable sidecar {path.name} beside the model folder ({error})", folder
            ) from None
        if sidecar.get("family") != cls.family:
            raise ModelError(f"{path.name} does not describe a {cls.family} model", folder)
        if not folder.is_dir() or model_dir_digest(folder) != digest:
            raise ModelError(
                "the model folder's files differ from the digest in its "
                "sidecar: it was changed after sentspace saved it",
                folder,
            )
        encoder = cls(**params)
        encoder._restore(folder, sidecar["corpus_fingerprint"], sidecar.get("losses", []))
        return encoder

    def iter_encode(self, texts: Sequence[str]) -> Job[Embeddings]:
        if self.tuned_ is None:
            raise NotFittedError(f"{self.name} must be fitted before encoding")
        return (yield from self.tuned_.iter_encode(texts))

    def _encode_batch(self, texts: Sequence[str]) -> Embeddings:
        assert self.tuned_ is not None, "iter_encode checked"
        return self.tuned_._encode_batch(texts)

    @property
    def name(self) -> str:
        defaults = type(self)().params()
        changed = [
            f"{key}={value}"
            for key, value in self.params().items()
            if key != "base" and defaults.get(key) != value
        ]
        name = (
            self.family
            if self.base == BUNDLED_MODEL
            else f"{self.path_prefix}{Path(self.base).name}"
        )
        return f"{name}({', '.join(changed)})" if changed else name


def _to(features: dict, device) -> dict:
    """The tokenizer's tensors moved to ``device`` (other entries, e.g. the modality
    name sentence-transformers 6 adds, as they are)."""
    return {
        key: value.to(device) if hasattr(value, "to") else value for key, value in features.items()
    }
