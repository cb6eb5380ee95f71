"""Pair-trained encoders (Triantafillou et al. 2016; Conneau et al. 2017's InferSent).

``pair-bow`` (mean of learned word embeddings) and ``pair-rnn`` (a GRU's final state)
are trained on labelled sentence pairs: a classifier reads [u, v, |u - v|, u * v] of
the two sentence vectors and predicts the pair's label with a softmax over its classes
(SICK's entailment classes, MSRP's paraphrase / not). Scored pairs (STS, SICK
relatedness) train by regression of cos(u, v) onto the score rescaled to [0, 1] (as
sentence-transformers' CosineSimilarityLoss; Tai et al.'s binned distribution needs a
second head and gains little for a cosine evaluation). ``objective`` says how pairs
with both golds (SICK) train: "both" sums the two losses on the same batches,
"labels-then-scores" makes a pass on the labels and then one on the scores every epoch
(SBERT's recipe; "auto"), "labels" or "scores" keeps one.

The pairs come from the corpus (evaluations give the training pairs only, see
:class:`TrainingPairs`) or from a file, ``pair-bow:FILE``: CSV or TSV with a header
naming ``sentence1``, ``sentence2`` and ``label`` and/or ``score``; errors name the
file and line. Inside the encoder, pairs travel as tab-separated rows
(:meth:`TrainingPairs.rows`), so training, fingerprint and the training-file cache are
:class:`sentspace.models.neural.NeuralEncoder`'s.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np

from sentspace.app.base.jobs import Job
from sentspace.models.base import ModelError, require_at_least_one
from sentspace.models.neural import (
    TRAINING_DEFAULTS,
    PaddedIdsEncoder,
    Ragged,
    Vocabulary,
    sentence_summary,
)
from sentspace.models.tokenize import tokenize
from sentspace.models.word2vec import read_text_lines

#: What a pair-trained encoder learns (its ``objective``; see :func:`training_targets`).
OBJECTIVES = ("auto", "labels-then-scores", "both", "labels", "scores")
#: What "auto" trains for a network trained from scratch (pair-bow, pair-rnn): the
#: labels' pass then the scores', which gains on relatedness where "both" gained
#: nothing and keeps the entailment a scores-only network loses (docs/encoders.md, SICK).
AUTO_OBJECTIVE = "labels-then-scores"
FILE_COLUMNS = ("sentence1", "sentence2", "label", "score")


@dataclass(frozen=True, eq=False)
class TrainingPairs:
    """Sentence pairs to train on, each with a label ("" for none) and/or a score (NaN).

    Evaluations build them from the training side only (:func:`corpus_pairs`).
    """

    first: tuple[str, ...]
    second: tuple[str, ...]
    label: tuple[str, ...]
    score: np.ndarray

    def __len__(self) -> int:
        return len(self.first)

    def rows(self) -> list[str]:
        """``first<TAB>second<TAB>label<TAB>score`` per pair (tabs in text become spaces)."""

        def clean(text: str) -> str:
            return text.replace("\t", " ").replace("\n", " ")

        return [
            f"{clean(a)}\t{clean(b)}\t{clean(label)}\t{'' if math.isnan(s) else repr(s)}"
            for a, b, label, s in zip(self.first, self.second, self.label, self.score.tolist())
        ]

    @classmethod
    def parse(cls, rows: Sequence[str]) -> TrainingPairs:
        """The pairs of :meth:`rows`' output; errors name the row."""
        first, second, labels, scores = [], [], [], []
        for number, row in enumerate(rows, 1):
            fields = row.split("\t")
            if len(fields) != 4:
                raise ModelError(
                    f"training row {number}: pair-trained encoders train on "
                    "labelled sentence pairs (sentence1, sentence2, label, "
                    "score), not single sentences: give the corpus's pairs or "
                    "a pairs file"
                )
            first.append(fields[0])
            second.append(fields[1])
            labels.append(fields[2].strip())
            try:
                scores.append(_score(fields[3]))
            except ValueError as error:
                raise ModelError(f"training row {number}: {error}") from None
        return cls(tuple(first), tuple(second), tuple(labels), np.array(scores, np.float64))


def _score(text: str) -> float:
    """The score in ``text``, NaN when blank; ValueError names the problem."""
    text = text.strip()
    if not text:
        return math.nan
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"score {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"score {text!r} is not finite")
    return value


def read_pairs_file(path: str | Path) -> TrainingPairs:
    """The pairs of a CSV (``.csv``: commas) or TSV file with a header naming
    ``sentence1``, ``sentence2`` and ``label`` and/or ``score``.

    Raises
    ------
    ModelError
        Unreadable file, a header without those columns, a row with another number of
        fields, an empty sentence, a row with neither label nor score, or a score that
        is not a number (each with the file and line).
    """
    path = Path(path).expanduser()
    lines = read_text_lines(path)
    delimiter = "," if path.suffix.lower() == ".csv" else "\t"
    numbered = [(number, line) for number, line in enumerate(lines, 1) if line]
    if not numbered:
        raise ModelError("no header and no pairs", path, 1)
    records = list(csv.reader([line for _, line in numbered], delimiter=delimiter))
    header = [name.strip().lower() for name in records[0]]
    if not {"sentence1", "sentence2"} <= set(header) or not {"label", "score"} & set(header):
        raise ModelError(
            f"the header must name sentence1, sentence2 and label and/or score "
            f"(found {', '.join(header) or 'nothing'})",
            path,
            numbered[0][0],
        )
    column = {name: header.index(name) for name in FILE_COLUMNS if name in header}
    first, second, labels, scores = [], [], [], []
    for (number, _), fields in zip(numbered[1:], records[1:]):
        if delimiter == "\t":  # lines come stripped, trailing empty fields with them
            fields += [""] * (len(header) - len(fields))
        if len(fields) != len(header):
            raise ModelError(
                f"{len(fields)} fields where the header has {len(header)}", path, number
            )
        a, b = fields[column["sentence1"]].strip(), fields[column["sentence2"]].strip()
        if not a or not b:
            raise ModelError("empty sentence", path, number)
        label = fields[column["label"]].strip() if "label" in column else ""
        try:
            score = _score(fields[column["score"]]) if "score" in column else math.nan
        except ValueError as error:
            raise ModelError(str(error), path, number) from None
        if not label and math.isnan(score):
            raise ModelError("neither a label nor a score", path, number)
        first.append(a)
        second.append(b)
        labels.append(label)
        scores.append(score)
    if not first:
        raise ModelError("a header but no pairs", path, numbered[0][0])
    return TrainingPairs(tuple(first), tuple(second), tuple(labels), np.array(scores))


def corpus_pairs(corpus, pair_index: np.ndarray | None = None) -> TrainingPairs | None:
    """The pairs ``pair_index`` of ``corpus`` (default: its "train" split when it has one,
    else every pair) with their labels (class names, "" for none) and scores; None when
    the corpus has no pairs."""
    pairs = corpus.pairs
    if pairs is None or len(pairs) == 0:
        return None
    if pair_index is None:
        in_train = np.asarray(pairs.split, dtype=object) == "train"
        pair_index = np.flatnonzero(in_train) if in_train.any() else np.arange(len(pairs))
    pair_index = np.asarray(pair_index, dtype=np.int64)
    names = pairs.label_names

    def label_name(label: int) -> str:
        if label < 0:
            return ""
        return names[label] if names else str(label)

    return TrainingPairs(
        tuple(corpus.texts[i] for i in pairs.first[pair_index]),
        tuple(corpus.texts[i] for i in pairs.second[pair_index]),
        tuple(label_name(int(label)) for label in pairs.label[pair_index]),
        np.asarray(pairs.score[pair_index], dtype=np.float64),
    )


def pair_features(u, v):
    """[u, v, |u - v|, u * v] (InferSent's classifier input)."""
    import torch

    return torch.cat([u, v, (u - v).abs(), u * v], dim=1)


def _network(
    vocab_size: int,
    embedding_size: int,
    hidden_size: int,
    recurrent: bool,
    classifier_size: int,
    n_classes: int,
):
    import torch

    class PairNetwork(torch.nn.Module):
        """The sentence encoder, plus the pair classifier while training."""

        def __init__(self) -> None:
            super().__init__()
            self.embedding = torch.nn.Embedding(vocab_size, embedding_size, padding_idx=0)
            if recurrent:
                self.gru = torch.nn.GRU(embedding_size, hidden_size, batch_first=True)
            dim = hidden_size if recurrent else embedding_size
            self.classifier = (
                torch.nn.Sequential(
                    torch.nn.Linear(4 * dim, classifier_size),
                    torch.nn.Tanh(),
                    torch.nn.Linear(classifier_size, n_classes),
                )
                if n_classes
                else None
            )

        def forward(self, ids, lengths):
            """ids: (n, longest) padded; lengths: (n,) with every length >= 1."""
            return sentence_summary(self.embedding(ids), lengths, self.gru if recurrent else None)

    return PairNetwork()


@dataclass(frozen=True, eq=False)
class Pass:
    """One pass of an epoch over ``examples`` (pair indices), learning ``labels`` (-1:
    none) and ``scores`` (NaN: none), both indexed by pair."""

    examples: np.ndarray
    labels: np.ndarray
    scores: np.ndarray


def resolved_objective(
    objective: str, pairs: TrainingPairs | None = None, auto: str = AUTO_OBJECTIVE
) -> str:
    """``objective``, or for "auto" the family's ``auto``; an ``auto`` of "scores" trains
    on the labels where ``pairs`` have no score (MSRP). ModelError when unknown."""
    if objective not in OBJECTIVES:
        raise ModelError(f"objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    if objective != "auto":
        return objective
    if auto == "scores" and pairs is not None and not np.isfinite(pairs.score).any():
        return "labels"
    return auto


def training_targets(
    pairs: TrainingPairs, objective: str
) -> tuple[tuple[str, ...], tuple[Pass, ...]]:
    """What a pair-trained model learns from, and in which order: ``(classes, passes)``.

    ``objective`` is a resolved name of :data:`OBJECTIVES` (not "auto"). Every epoch
    makes the passes in order; a pass holds the pairs it visits, their labels indexing
    ``classes`` (-1: not learnt in this pass, no label, or fewer than two classes, which
    cannot be told apart) and their scores rescaled to [0, 1] (NaN: not learnt here).
    "both" learns both golds from the same batches; "labels-then-scores" learns the
    labels in a pass of their own, then the scores (SBERT's recipe, NLI then STS:
    summed on the same batches, the classifier's loss swamps the cosine's and SICK
    relatedness gains nothing).

    Raises
    ------
    ModelError
        No pair has what the objective trains on.
    """
    classes = (
        tuple(sorted({label for label in pairs.label if label})) if objective != "scores" else ()
    )
    if len(classes) < 2:
        classes = ()
    index = {name: i for i, name in enumerate(classes)}
    labels = np.array([index.get(label, -1) for label in pairs.label], np.int64)
    scores = pairs.score if objective != "labels" else np.full(len(pairs), np.nan)
    finite = np.isfinite(scores)
    if finite.any():
        low, high = scores[finite].min(), scores[finite].max()
        scores = (scores - low) / (high - low) if high > low else np.where(finite, 1.0, np.nan)
    if objective == "labels-then-scores":
        no_labels, no_scores = np.full_like(labels, -1), np.full_like(scores, np.nan)
        passes: tuple[Pass, ...] = (
            Pass(np.flatnonzero(labels >= 0), labels, no_scores),
            Pass(np.flatnonzero(np.isfinite(scores)), no_labels, scores),
        )
    else:
        passes = (Pass(np.flatnonzero((labels >= 0) | np.isfinite(scores)), labels, scores),)
    passes = tuple(p for p in passes if len(p.examples))
    if not passes:
        raise ModelError(
            f"none of the {len(pairs):,} training pairs has what objective="
            f"{objective!r} trains on (labels of 2 or more classes, or scores)"
        )
    return classes, passes


class PairBOW(PaddedIdsEncoder):
    """Mean of word embeddings trained on labelled pairs through [u, v, |u-v|, u*v].

    Parameters
    ----------
    embedding_size : int
        Dimension of the word embeddings (the sentence vector of ``pair-bow``).
    hidden_size : int
        GRU state size, the sentence vector of ``pair-rnn``.
    classifier_size : int
        Hidden layer of the pair classifier (used only while training).
    objective : {"auto", "labels-then-scores", "both", "labels", "scores"}
        What trains (:func:`training_targets`): "auto" is :data:`AUTO_OBJECTIVE`.
    max_length : int
        Tokens of a sentence read (training and encoding alike).
    epochs, batch_sentences, learning_rate, min_count, max_vocab, lowercase, seed,
    training_file
        As in :class:`sentspace.models.neural.NeuralEncoder`; ``batch_sentences`` counts pairs and
        ``training_file`` is a pairs file (:func:`read_pairs_file`).
    """

    family = "pair-bow"
    title = "Pair-trained bag of words (labelled pairs; Triantafillou et al. 2016)"
    training_rows = "pairs"
    recurrent = False
    defaults = {
        **TRAINING_DEFAULTS,
        "epochs": 10,
        "learning_rate": 0.001,
        "min_count": 1,
        "max_vocab": 50_000,
    }

    def __init__(
        self,
        embedding_size: int = 300,
        hidden_size: int = 512,
        classifier_size: int = 512,
        objective: str = "auto",
        max_length: int = 50,
        **training: Any,
    ):
        super().__init__(**training)
        self.embedding_size, self.hidden_size, self.classifier_size, self.max_length = (
            require_at_least_one(
                embedding_size=embedding_size,
                hidden_size=hidden_size,
                classifier_size=classifier_size,
                max_length=max_length,
            )
        )
        resolved_objective(objective)
        self.objective = objective
        #: The label classes of the last training (the classifier's outputs).
        self.classes_: tuple[str, ...] = ()
        #: Pairs in each pass of an epoch of the last training (training_targets).
        self._pass_sizes: tuple[int, ...] = ()

    @property
    def learns_from_pairs(self) -> bool:
        """Trained on the corpus's pairs, unless it trains on its own pairs file."""
        return self.training_file is None

    def iter_fit_pairs(self, pairs: TrainingPairs) -> Job[Self]:
        """Train on ``pairs`` (progress per batch; see :meth:`NeuralEncoder.iter_fit`)."""
        return self.iter_fit(pairs.rows())

    @property
    def dim(self) -> int:
        return self.hidden_size if self.recurrent else self.embedding_size

    @classmethod
    def read_training_file(cls, path: Path) -> list[str]:
        return read_pairs_file(path).rows()

    def _prepare(self, texts: list[str], vocab: Vocabulary | None = None):
        # Training only: held_out_loss, which would pass the trained vocabulary, is refused.
        assert vocab is None, "a pair encoder has no held-out loss"
        import torch

        pairs = TrainingPairs.parse(texts)
        classes, passes = training_targets(pairs, resolved_objective(self.objective))
        first = [tokenize(text, self.lowercase)[: self.max_length] for text in pairs.first]
        second = [tokenize(text, self.lowercase)[: self.max_length] for text in pairs.second]
        examples = np.unique(np.concatenate([p.examples for p in passes]))
        vocab = Vocabulary.build(
            [first[i] for i in examples] + [second[i] for i in examples],
            self.min_count,
            self.max_vocab,
        )
        if not vocab.words:
            raise ModelError(
                f"no word of the training pairs is seen min_count={self.min_count} times"
            )
        self.classes_ = classes
        sides = tuple(
            Ragged.of([vocab.ids(tokens, keep_unknown=True) for tokens in side])
            for side in (first, second)
        )
        gold = tuple(
            (p.examples, torch.as_tensor(p.labels), torch.as_tensor(p.scores, dtype=torch.float32))
            for p in passes
        )
        self._pass_sizes = tuple(len(p.examples) for p in passes)
        return vocab, (sides, gold), sum(self._pass_sizes)

    def _new_module(self, vocab: Vocabulary):
        return _network(
            len(vocab),
            self.embedding_size,
            self.hidden_size,
            self.recurrent,
            self.classifier_size,
            len(self.classes_),
        )

    def _use(self, module, vocab: Vocabulary) -> None:
        # The classifier served training only: the saved model is the sentence encoder.
        module.classifier = None
        super()._use(module, vocab)

    def held_out_loss(self, texts: Sequence[str]) -> float:
        raise ModelError(
            f"{self.name} has no held-out loss: its classifier serves training "
            "only; evaluate it on held-out pairs (relatedness, transfer)"
        )

    def _batch_count(self, n_examples: int) -> int:
        count = super()._batch_count
        return sum(count(size) for size in self._pass_sizes)

    def _batches(self, data, generator) -> Iterator[Any]:
        sides, passes = data
        for examples, labels, scores in passes:
            for batch in self._order(len(examples), generator):
                rows = examples[batch]
                yield (
                    [(side.padded(rows), side.lengths[rows]) for side in sides],
                    labels[rows],
                    scores[rows],
                )

    def _loss(self, module, batch, generator):
        import torch

        (first, second), labels, scores = batch
        u, v = self._forward(module, *first), self._forward(module, *second)
        labels, scores = labels.to(u.device), scores.to(u.device)
        loss = u.new_zeros(())
        labelled = labels >= 0
        if labelled.any():
            logits = module.classifier(pair_features(u[labelled], v[labelled]))
            loss = loss + torch.nn.functional.cross_entropy(logits, labels[labelled])
        scored = torch.isfinite(scores)
        if scored.any():
            cosine = torch.nn.functional.cosine_similarity(u[scored], v[scored])
            loss = loss + torch.nn.functional.mse_loss(cosine, scores[scored])
        return loss


class PairRNN(PairBOW):
    """A GRU sentence encoder trained on labelled pairs (SNLI-RNN of Triantafillou et al.),
    with smaller default sizes than InferSent's: a GRU step costs far more than a sum."""

    family = "pair-rnn"
    title = "Pair-trained GRU (labelled pairs; Triantafillou et al. 2016)"
    recurrent = True

    defaults = {"embedding_size": 128, "hidden_size": 256, "epochs": 5}
