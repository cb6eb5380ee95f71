"""The NMT encoder of Hill, Cho & Korhonen (2016, §2): the encoder of a GRU
encoder-decoder trained to translate, read as a sentence encoder.

Architecture: Cho et al. (2014)'s RNN encoder-decoder, the "standard architecture" the
paper trained, *without attention*. A GRU reads the source sentence; its final hidden
state c is the sentence vector. The decoder GRU starts from tanh(W c) and reads c beside
the previous target word at every step, so everything it knows about the source passes
through c. With attention (Bahdanau et al. 2015) the decoder would read every encoder
state, translation would improve, and the final state would no longer have to carry the
sentence: it is the vector Hill et al. evaluate only in the model without attention.
The softmax is a full one over the target vocabulary (Multi30K's is small).

It trains on parallel text, and encodes the source side:

- ``nmt:en-de``, ``nmt:en-fr``, ``nmt:cs-en`` (``pair``): Multi30K task 1 train of that
  pair (29,000 sentences), scored on its val split (1,014).
- ``nmt:FILE`` (``training_file``; *Train on* a file in the window): a TSV,
  source<TAB>target a line; ``nmt:SOURCE,TARGET``: two aligned files, line i of one the
  translation of line i of the other (``target_file``).
- plain ``nmt``: the rows given to ``fit``, source<TAB>target (as DictRep takes
  word<TAB>definition rows).

With a pair or a file it does not learn from the corpus it encodes, so evaluations train
it once. From a file or rows, the last tenth of the pairs (at most 1,000) is held out and
scored instead of trained on.

After training it translates the held-out pairs greedily and keeps
:class:`TranslationScore` as ``translation_`` (BLEU and chrF as MT papers compute them:
sacrebleu's defaults on the detokenised translations against the references as written,
case-insensitive when the model lowercases, with sacrebleu's signature; and next-word
accuracy; each beside copying the source), shows it as the job's last progress message
and saves it with the model. ``max_pairs`` trains on the first pairs only (a quick run:
``nmt:en-de?epochs=1&max_pairs=5000``).

Default sizes (100-d words, 256-d states, 2 epochs) train on the 29,000 pairs in minutes
on 2 cores; ``paper_params`` are the sizes of the standard architecture (Bahdanau et al.
2015's RNNencdec: 620-d words, 1000-unit GRUs, 30,000-word vocabularies).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np

from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.multi30k import LANGUAGES, _raw_folder, read_gz_lines
from sentspace.models.base import ModelError, NotFittedError, require_at_least_one
from sentspace.models.neural import (
    BOUNDARY,
    PAD,
    SPECIALS,
    TRAINING_DEFAULTS,
    UNK,
    NeuralEncoder,
    Ragged,
    Vocabulary,
    cpu_threads,
    device,
    packed,
)
from sentspace.models.tokenize import tokenize
from sentspace.models.word2vec import read_text_lines

#: A Multi30K language pair as a spec: ``nmt:en-de``.
PAIR = re.compile(r"^([a-z]{2})-([a-z]{2})$")
#: Pairs held out of a training file for the translation score: a tenth, at most this.
MAX_HELD_OUT = 1000
#: Sentences translated per batch (and progress report) when scoring.
SCORE_BATCH = 256


@dataclass(frozen=True)
class TranslationScore:
    """How well the trained network translates pairs it did not train on, beside
    copying the source (what a network that learnt nothing but the identity would do).

    Attributes
    ----------
    held_out : str
        Which pairs: "Multi30K val", or the held-out tail of the training file.
    n_pairs : int
    bleu, copy_bleu : float
        Corpus BLEU (sacrebleu, 0-100) of the greedy translations, detokenised, and of
        the source sentences, against the targets as written (``bleu_signature``).
    accuracy, copy_accuracy : float
        Share of target words predicted given the reference before them (teacher forced),
        and share equal to the source word at the same position.
    chrf, copy_chrf : float or None
        Corpus chrF (sacrebleu, 0-100) of the same; None in a model saved before it.
    bleu_signature : str
        sacrebleu's signature of the BLEU (tokeniser, case, version): what makes it
        comparable with a published BLEU. Empty in a model saved before it, whose BLEU
        was on the model's own tokens.
    chrf_signature : str
        sacrebleu's signature of the chrF (character and word n-gram orders, case:
        ``lc`` when the model lowercases, as the BLEU); empty in a model saved before it.
    """

    held_out: str
    n_pairs: int
    bleu: float
    copy_bleu: float
    accuracy: float
    copy_accuracy: float
    chrf: float | None = None
    copy_chrf: float | None = None
    bleu_signature: str = ""
    chrf_signature: str = ""

    def message(self) -> str:
        """The scores as printed, each with its sacrebleu signature where it has one."""
        chrf = (
            ""
            if self.chrf is None
            else f", chrF {self.chrf:.1f} (copying {self.copy_chrf:.1f}"
            f"{_signed(self.chrf_signature)})"
        )
        return (
            f"translates {self.held_out} ({self.n_pairs:,} pairs): BLEU "
            f"{self.bleu:.1f} (copying the source {self.copy_bleu:.1f}"
            f"{_signed(self.bleu_signature)}){chrf}, "
            f"next-word accuracy {self.accuracy:.1%} (copying "
            f"{self.copy_accuracy:.1%})"
        )


def _signed(signature: str) -> str:
    return f"; sacrebleu {signature}" if signature else ""


def _languages(pair: str) -> tuple[str, str]:
    """Source and target language of a Multi30K ``pair`` ("en-de"), checked before."""
    match = PAIR.match(pair)
    assert match is not None, f"{pair!r} is not a language pair"
    return match[1], match[2]


def detokenize(sentences: Sequence[Sequence[str]], pair: str | None = None) -> list[str]:
    """Token lists as text (Moses' detokeniser, for the target language of a Multi30K
    ``pair``), with the apostrophes :func:`tokenize` splits off joined again
    ("l ' homme" -> "l'homme")."""
    from sacremoses import MosesDetokenizer

    language = _languages(pair)[1] if pair else "en"
    moses = MosesDetokenizer(lang=language)
    return [_APOSTROPHE.sub("'", moses.detokenize(list(tokens))) for tokens in sentences]


#: An apostrophe between two word characters, with the spaces tokenising put around it.
_APOSTROPHE = re.compile(r"(?<=\w) ?' ?(?=\w)")


def _network(source_size: int, target_size: int, embedding_size: int, hidden_size: int):
    import torch

    class EncoderDecoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = torch.nn.Embedding(source_size, embedding_size, padding_idx=PAD)
            self.encoder = torch.nn.GRU(embedding_size, hidden_size, batch_first=True)
            self.target_embedding = torch.nn.Embedding(target_size, embedding_size, padding_idx=PAD)
            self.bridge = torch.nn.Linear(hidden_size, hidden_size)
            self.decoder = torch.nn.GRU(embedding_size + hidden_size, hidden_size, batch_first=True)
            self.output = torch.nn.Linear(hidden_size, target_size)

        def encode(self, ids, lengths):
            """The sentence vectors c: the encoder's final hidden states, (n, hidden)."""
            _, state = self.encoder(packed(self.embedding(ids), lengths))
            return state[-1]

        def decode(self, summary, inputs, state=None):
            """Decoder states after each of ``inputs`` (n, steps), and the last; ``state``
            None starts from the summary."""
            if state is None:
                state = torch.tanh(self.bridge(summary)).unsqueeze(0)
            context = summary.unsqueeze(1).expand(-1, inputs.shape[1], -1)
            hidden, state = self.decoder(
                torch.cat([self.target_embedding(inputs), context], dim=2), state
            )
            return hidden, state

    return EncoderDecoder()


def _shifted(target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Decoder inputs (the boundary, then the target) and outputs (the target, then the
    boundary) of padded target ids."""
    n = len(target)
    inputs = np.concatenate([np.full((n, 1), BOUNDARY), target], axis=1)
    outputs = np.concatenate([target, np.full((n, 1), PAD)], axis=1)
    outputs[np.arange(n), (target != PAD).sum(1)] = BOUNDARY
    return inputs, outputs


def _joined(source: str, target: str) -> str:
    """A training pair as one text (the tokeniser reads a tab in a sentence as a space:
    one of Multi30K's German training lines has one)."""
    return f"{source.replace(chr(9), ' ')}\t{target.replace(chr(9), ' ')}"


def multi30k_files(pair: str, split: str) -> tuple[Path, Path]:
    """Task 1's source and target files of ``pair`` ("en-de") and ``split``."""

    source, target = _languages(pair)
    folder = _raw_folder("task1")
    return folder / f"{split}.{source}.gz", folder / f"{split}.{target}.gz"


def parse_pairs(lines: Sequence[str], path: Path | None = None) -> list[tuple[str, str]]:
    """(source, target) of ``source<TAB>target`` lines, blank lines skipped; errors name
    ``path`` and the line (or "training row N" without a path)."""
    pairs = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if line.count("\t") != 1:
            where = (path, number) if path is not None else ()
            raise ModelError(
                ("" if where else f"training row {number}: ") + "expected "
                "source<TAB>target (one tab; or two aligned files: "
                "nmt:SOURCE,TARGET)",
                *where,
            )
        source, target = (side.strip() for side in line.split("\t"))
        if source and target:
            pairs.append((source, target))
    return pairs


class NMT(NeuralEncoder):
    """The encoder of a GRU encoder-decoder trained to translate (module notes).

    Parameters
    ----------
    pair : str or None
        A Multi30K task 1 pair, "source-target" ("en-de", "en-fr", "cs-en").
    training_file : str or None
        A TSV of source<TAB>target lines, or the source file of two aligned files. As a
        spec (``nmt:...``) it may also be a pair ("en-de") or "SOURCE,TARGET".
    target_file : str or None
        The target file aligned with ``training_file``.
    embedding_size, hidden_size : int
        Word embedding and GRU state sizes (the sentence vector has ``hidden_size``).
    max_length : int
        Tokens of a sentence read, produced in training, and at most in a translation.
    epochs, batch_sentences, learning_rate, min_count, max_vocab, lowercase, seed
        As in :class:`sentspace.models.neural.NeuralEncoder`; both vocabularies keep
        words seen ``min_count`` times, at most ``max_vocab``.
    """

    family = "nmt"
    title = "NMT: encoder of a GRU encoder-decoder trained to translate (Hill et al. 2016)"
    batch_size = 256
    paper_params = {"embedding_size": 620, "hidden_size": 1000, "max_vocab": 30_000}
    file_params = ("training_file", "target_file")
    training_rows = "pairs"
    #: A GRU step of one batch is a few small products: two threads on two shared cores
    #: wait for each other (on a busy 2-core machine: 4.5 s a training batch against
    #: 1.1 s, 5,000 sentences encoded in 25-41 s against 2.4 s). Training, translating
    #: and encoding all run on it.
    cpu_threads = 1
    defaults = TRAINING_DEFAULTS

    def __init__(
        self,
        pair: str | None = None,
        training_file: str | None = None,
        target_file: str | None = None,
        embedding_size: int = 100,
        hidden_size: int = 256,
        max_length: int = 30,
        *,
        max_pairs: int | None = None,
        **training: Any,
    ):
        if training_file is not None and not Path(training_file).expanduser().is_file():
            # A spec: nmt:en-de or nmt:SOURCE,TARGET.
            if PAIR.match(training_file):
                pair, training_file = training_file, None
            elif training_file.count(",") == 1 and target_file is None:
                training_file, target_file = training_file.split(",")
        if target_file is not None and training_file is None:
            raise ModelError("target_file needs training_file, the source file it aligns with")
        if pair is not None and training_file is not None:
            raise ModelError("nmt trains on a Multi30K pair or on a file, not both")
        super().__init__(training_file=training_file, **training)
        self.embedding_size, self.hidden_size, self.max_length = require_at_least_one(
            embedding_size=embedding_size, hidden_size=hidden_size, max_length=max_length
        )
        if max_pairs is not None:
            require_at_least_one(max_pairs=max_pairs)
        if pair is not None:
            match = PAIR.match(pair)
            if not match or match[1] == match[2] or not {*match.groups()} <= {*LANGUAGES}:
                raise ModelError(
                    f"{pair!r} is not a Multi30K pair: two of "
                    f"{', '.join(LANGUAGES)}, as in en-de or cs-en"
                )
        if target_file is not None:
            path = Path(target_file).expanduser()
            if not path.is_file():
                raise ModelError("no such target file", path)
            target_file = str(path.absolute())
        self.pair, self.target_file = pair, target_file
        self.max_pairs = None if max_pairs is None else int(max_pairs)
        self.target_vocab_: Vocabulary | None = None
        self.translation_: TranslationScore | None = None

    @property
    def dim(self) -> int:
        return self.hidden_size

    @property
    def _trained_target_vocab(self) -> Vocabulary:
        """The target side's vocabulary, built with the source's when training."""
        assert self.target_vocab_ is not None, "read only once the vocabularies are built"
        return self.target_vocab_

    @property
    def learns_from_data(self) -> bool:
        """Trained on the rows given to ``fit`` unless it has a pair or file of its own."""
        return self.pair is None and self.training_file is None

    @property
    def name(self) -> str:
        """``nmt:en-de``, ``nmt:FILE`` or ``nmt:SOURCE,TARGET`` (plain ``nmt`` when it
        trains on the rows given to ``fit``), with the sizes that differ."""
        files = [Path(file).name for file in (self.training_file, self.target_file) if file]
        text = self.pair or ",".join(files)
        defaults = type(self)().params()
        changed = [
            f"{key}={value}"
            for key, value in self.params().items()
            if key not in ("pair", *self.file_params) and defaults[key] != value
        ]
        return (f"{self.family}:{text}" if text else self.family) + (
            f"({', '.join(changed)})" if changed else ""
        )

    @classmethod
    def _from_saved_params(cls, params: dict[str, Any]) -> Self:
        """A saved model's encoder; its training files need not exist any more."""
        encoder = cls(**{**params, "pair": None, "training_file": None, "target_file": None})
        encoder.pair, encoder.training_file, encoder.target_file = (
            params["pair"],
            params["training_file"],
            params["target_file"],
        )
        return encoder

    # Reading the parallel text -----------------------------------------------------------

    def _files(self) -> list[Path]:
        if self.pair is not None:
            return [*multi30k_files(self.pair, "train"), *multi30k_files(self.pair, "val")]
        return [Path(file) for file in (self.training_file, self.target_file) if file]

    def _parallel(
        self, texts: Sequence[str]
    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]], str, str]:
        """Training pairs, held-out pairs, and what each are called."""
        if self.pair is not None:
            paths = self._files()
            sides = [read_gz_lines(path) for path in paths]
            for source, target, path in ((0, 1, paths[0]), (2, 3, paths[2])):
                if len(sides[source]) != len(sides[target]):
                    raise ModelError(
                        f"{len(sides[source]):,} lines but "
                        f"{len(sides[target]):,} in {paths[target].name}: the "
                        "files do not align",
                        path,
                    )
            return (
                list(zip(*sides[:2])),
                list(zip(*sides[2:])),
                f"Multi30K train {self.pair}",
                f"Multi30K val {self.pair}",
            )
        if self.training_file is not None:
            pairs, called = self._read_pairs(), ",".join(path.name for path in self._files())
        else:
            pairs, called = parse_pairs(texts), f"{len(texts):,} training rows"
        if not pairs:
            raise ModelError(f"no source and target sentence pair in {called}")
        held = min(MAX_HELD_OUT, len(pairs) // 10)
        return (
            pairs[: len(pairs) - held],
            pairs[len(pairs) - held :],
            called,
            f"the last {held:,} pairs of {called}",
        )

    def _read_pairs(self) -> list[tuple[str, str]]:
        """The pairs of the training file(s): a TSV, or two aligned files."""
        assert self.training_file is not None, "called only with a training file"
        path = Path(self.training_file)
        lines = read_text_lines(path)
        if self.target_file is None:
            return parse_pairs(lines, path)
        target_path = Path(self.target_file)
        targets = read_text_lines(target_path)
        if len(lines) != len(targets):
            raise ModelError(
                f"{len(lines):,} lines, but {target_path.name} has "
                f"{len(targets):,}: the files do not align",
                path,
            )
        return [(s, t) for s, t in zip(lines, targets) if s and t]

    # Training ---------------------------------------------------------------------------

    def iter_fit(self, texts: Sequence[str]) -> Job[Self]:
        """Train on the parallel text (a pair, a file, else ``texts`` as
        source<TAB>target rows), then score the translations of the held-out pairs
        (``translation_``); a process trains each pair or file and parameters once.
        Closed while scoring, it is left trained and unscored."""
        memo: dict[str, Any] = {}
        if not self.learns_from_data:
            memo = self._remembered_training(self._files())
            if "state" in memo:
                state, self.target_vocab_, self.translation_ = memo["state"]
                self._restore(*state)
                return self
            yield Progress(f"reading {self.name}", 0, 1)
        train, held_out, trained_on, held_out_name = self._parallel(texts)
        if self.max_pairs is not None and self.max_pairs < len(train):
            train, trained_on = (
                train[: self.max_pairs],
                f"the first {self.max_pairs:,} pairs of {trained_on}",
            )
        yield from self._train([_joined(s, t) for s, t in train], trained_on)
        self.translation_ = None
        if held_out:
            sources, targets = zip(*held_out)
            score = yield from self.iter_score(sources, targets, held_out_name)
            yield Progress(score.message(), 1, 1)
            self.translation_ = score
        memo["state"] = (
            (
                self.module_,
                self.vocab_,
                self.corpus_fingerprint_,
                self.n_training_sentences_,
                self.losses_,
            ),
            self.target_vocab_,
            self.translation_,
        )
        return self

    def _tokens(self, text: str) -> list[str]:
        return tokenize(text, self.lowercase)[: self.max_length]

    def _prepare(self, texts: list[str], vocab: Vocabulary | None = None):
        """Source<TAB>target rows as ids; with ``vocab`` (the trained source vocabulary)
        the trained target vocabulary reads the targets too."""
        pairs = [line.split("\t") for line in texts]
        sources = [self._tokens(source) for source, _ in pairs]
        targets = [self._tokens(target) for _, target in pairs]
        if vocab is None:
            vocab = Vocabulary.build(sources, self.min_count, self.max_vocab)
            self.target_vocab_ = Vocabulary.build(targets, self.min_count, self.max_vocab)
        target_vocab = self._trained_target_vocab
        if not vocab.words or not target_vocab.words:
            raise ModelError(
                f"no word occurs at least min_count={self.min_count} times on "
                f"both sides of the {len(texts):,} training pairs"
            )
        source_ids = Ragged.of([vocab.ids(tokens, keep_unknown=True) for tokens in sources])
        target_ids = Ragged.of([target_vocab.ids(tokens, keep_unknown=True) for tokens in targets])
        return vocab, (source_ids, target_ids), len(texts)

    def _new_module(self, vocab: Vocabulary):
        return _network(
            len(vocab), len(self._trained_target_vocab), self.embedding_size, self.hidden_size
        )

    def _batches(self, data, generator) -> Iterator[Any]:
        sources, targets = data
        for rows in self._order(len(sources), generator):
            yield sources.padded(rows), sources.lengths[rows], targets.padded(rows)

    def _logits(self, module, source, source_lengths, target):
        """Teacher-forced logits over the target vocabulary at every target word and
        sentence end (not at padding: the output layer is most of the work), and the ids
        they predict."""
        import torch

        where = module.output.weight.device
        summary = module.encode(
            torch.as_tensor(source, device=where), torch.as_tensor(np.maximum(source_lengths, 1))
        )
        inputs, outputs = _shifted(target)
        hidden, _ = module.decode(summary, torch.as_tensor(inputs, device=where))
        real = torch.as_tensor(outputs != PAD, device=where)
        return module.output(hidden[real]), torch.as_tensor(outputs, device=where)[real]

    def _loss(self, module, batch, generator):
        """Cross-entropy of every target word and the end of the sentence."""
        import torch

        logits, outputs = self._logits(module, *batch)
        return torch.nn.functional.cross_entropy(logits, outputs)

    def untrained(self) -> Self:
        copy = super().untrained()
        copy.target_vocab_ = self.target_vocab_
        return copy

    # Translating ------------------------------------------------------------------------

    def translate(self, texts: Sequence[str]) -> list[list[str]]:
        """Greedy translations of ``texts`` as target tokens (up to ``max_length``)."""
        import torch

        if self.module_ is None:
            raise NotFittedError(f"{self.name} must be trained before translating")
        sequences = self._ids(texts, keep_unknown=True)
        words = SPECIALS + self._trained_target_vocab.words
        translations = []
        with torch.inference_mode(), cpu_threads(self.cpu_threads):
            for start in range(0, len(texts), SCORE_BATCH):
                rows = np.arange(start, min(start + SCORE_BATCH, len(texts)))
                ids = self._greedy(
                    sequences.padded(rows, self.max_length),
                    np.minimum(sequences.lengths[rows], self.max_length),
                )
                for row in ids:
                    end = np.flatnonzero(row == BOUNDARY)
                    translations.append([words[i] for i in row[: end[0] if len(end) else None]])
        return translations

    def _greedy(self, source: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Most likely next word at each step, from the boundary; (n, steps) ids."""
        import torch

        module = self.module_
        where = module.output.weight.device
        summary = module.encode(
            torch.as_tensor(source, device=where), torch.as_tensor(np.maximum(lengths, 1))
        )
        token = torch.full((len(source), 1), BOUNDARY, device=where)
        state, steps = None, []
        finished = torch.zeros(len(source), dtype=torch.bool, device=where)
        for _ in range(self.max_length):
            hidden, state = module.decode(summary, token, state)
            token = module.output(hidden[:, -1]).argmax(dim=1, keepdim=True)
            steps.append(token)
            finished |= token[:, 0] == BOUNDARY
            if finished.all():
                break
        return torch.cat(steps, dim=1).cpu().numpy()

    def iter_score(
        self, sources: Sequence[str], targets: Sequence[str], held_out: str = "held-out pairs"
    ) -> Job[TranslationScore]:
        """BLEU, chrF and next-word accuracy on (source, target) pairs beside copying the
        source; a job with progress per batch of translations."""
        import torch
        from sacrebleu.metrics import BLEU, CHRF

        references = [tokenize(text, self.lowercase) for text in targets]
        copies = [tokenize(text, self.lowercase) for text in sources]
        hypotheses: list[list[str]] = []
        correct = 0
        # Next-word accuracy over the words the network reads (max_length of each).
        target_ids = Ragged.of(
            [
                self._trained_target_vocab.ids(tokens[: self.max_length], keep_unknown=True)
                for tokens in references
            ]
        )
        source_ids = self._ids(sources, keep_unknown=True)
        for start in range(0, len(sources), SCORE_BATCH):
            rows = np.arange(start, min(start + SCORE_BATCH, len(sources)))
            hypotheses += self.translate(sources[start : rows[-1] + 1])
            with torch.inference_mode(), cpu_threads(self.cpu_threads):
                logits, outputs = self._logits(
                    self.module_,
                    source_ids.padded(rows, self.max_length),
                    np.minimum(source_ids.lengths[rows], self.max_length),
                    target_ids.padded(rows),
                )
            predicted = logits.argmax(dim=1)
            # Words only (not the end), and an unknown word is never predicted right.
            words = (outputs != BOUNDARY) & (outputs != UNK)
            correct += int((predicted == outputs)[words].sum())
            yield Progress(f"translating {held_out}", int(rows[-1]) + 1, len(sources))
        n_words = int(target_ids.lengths.sum())
        copied = sum(
            sum(a == b for a, b in zip(copy, reference[: self.max_length]))
            for copy, reference in zip(copies, references)
        )

        # As MT papers score: sacrebleu's own tokeniser (13a) on detokenised output
        # against the references as written; case-insensitive when the model lowercases
        # (both signatures say case:lc), since it cannot restore case.
        bleu, chrf = BLEU(lowercase=self.lowercase), CHRF(lowercase=self.lowercase)
        translations = detokenize(hypotheses, self.pair)
        references_as_written = [list(targets)]
        scores = {
            name: round(metric.corpus_score(outputs, references_as_written).score, 2)
            for name, metric, outputs in (
                ("bleu", bleu, translations),
                ("copy_bleu", bleu, list(sources)),
                ("chrf", chrf, translations),
                ("copy_chrf", chrf, list(sources)),
            )
        }
        return TranslationScore(
            held_out,
            len(sources),
            accuracy=correct / max(n_words, 1),
            copy_accuracy=copied / max(n_words, 1),
            bleu_signature=str(bleu.get_signature()),
            chrf_signature=str(chrf.get_signature()),
            **scores,
        )

    @property
    def training_report(self) -> str | None:
        trained = super().training_report
        parts = [
            part for part in (trained, self.translation_ and self.translation_.message()) if part
        ]
        return "; ".join(parts) or None

    @property
    def training_scores(self) -> dict[str, Any] | None:
        scores = super().training_scores
        if scores is not None and self.translation_ is not None:
            scores["translation"] = asdict(self.translation_)
        return scores

    # Saving -----------------------------------------------------------------------------

    def _saved_state(self):
        arrays, fields = super()._saved_state()
        return arrays, {
            **fields,
            "target_vocabulary": list(self.target_vocab_.words),
            "target_counts": self.target_vocab_.counts.tolist(),
            "translation": self.translation_ and asdict(self.translation_),
        }

    def _restore_saved(self, arrays, fields) -> None:
        self.target_vocab_ = Vocabulary(
            tuple(fields["target_vocabulary"]), np.asarray(fields["target_counts"], dtype=np.int64)
        )
        super()._restore_saved(arrays, fields)
        self.translation_ = (
            TranslationScore(**fields["translation"]) if fields.get("translation") else None
        )

    def _encode_ids(self, sequences: Ragged):
        import torch

        rows = np.arange(len(sequences))
        lengths = np.maximum(np.minimum(sequences.lengths, self.max_length), 1)
        with cpu_threads(self.cpu_threads):
            return self.module_.encode(
                torch.as_tensor(sequences.padded(rows, self.max_length), device=device()),
                torch.as_tensor(lengths),
            )
