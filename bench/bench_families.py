"""The seed papers' encoder families side by side (issue 16's closing table).

Each family trains once on real text through ``FAMILY:FILE`` (so every evaluation uses
the same trained model): FastSent, FastSent+AE and SkipThought on the ordered State of
the Union sentences, S(D)AE on the same sentences, DictRep on WordNet's definitions,
URAE and the gensim families (Word2Vec, fastText, Doc2Vec) on the same sentences,
pair-bow and pair-rnn on SICK's train pairs (written to a pairs file), and the NMT
encoders (``nmt:en-de``, ``nmt:en-fr``: Hill et al.'s encoder of a GRU encoder-decoder
trained to translate) on Multi30K task 1 train (29,000 caption pairs). bow, glove-mean
and MiniLM are the reference rows. Every number comes from the evaluations the app and
the CLI run (``sentspace.app.analysis.evaluations``), through the embedding cache:

- classification of grouped MSRP (white2015-paraphrase-grouped; 3-fold linear SVM),
- SICK relatedness on the test split (Spearman / Pearson of cosine; no encoder here
  trains on SICK test),
- MR transfer (senteval-transfer/MR; logistic regression, 5-fold CV here where
  SentEval uses 10, to fit a shared 2-core machine),
- Costra 1.1 (Czech), only for encoders that can read Czech: the trained families, GloVe
  and MiniLM are English-only, so their cell is "—",
- "captions NN same image": Multi30K task 2 val, English (5,070 descriptions written
  independently, five per image, 1,014 images): the share of descriptions whose nearest
  neighbour (cosine) describes the same image, against chance (4 of the 5,069 others),
- "NN same length": the share of SICK sentences whose nearest neighbour (cosine) has the
  same number of tokens, against chance (a crude probe of spaces grouped by form rather
  than meaning, as Hill et al. report for SDAE),
- training time on this machine (wall clock, shared CPU),
- what training gained: SICK test Spearman of the trained encoder minus that of its
  untrained baseline (the same network at its seeded initial weights; a random bag of
  words of the same size for the gensim families; MiniLM for pair-finetune). The tests
  in tests/models/test_learning.py guard each family's own outcome at a small budget.

Run: ``python bench/bench_families.py [--quick] [--pair-finetune] [--only fastsent,bow]``
(``--only`` takes row labels, e.g. ``nmt:en-de,nmt:en-fr,fastsent,sdae,skipthought,dictrep-bow,bow``
for Hill et al.'s comparison). The NMT rows train at their default sizes in both settings
(about 15-20 min a pair on 2 cores).
``--quick`` trains on a few hundred examples with small networks (minutes);
``--pair-finetune`` adds MiniLM fine-tuned as ``sentspace eval relatedness --split test``
fine-tunes it, on SICK train + trial (about 4 minutes on a quiet 2-core CPU; its row has
SICK relatedness only, as it trains on the pairs of the corpus it is evaluated on). Training files for subsets are written to the cache folder so that a
second run hits the embedding cache.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sentspace.app.analysis.cache import cache_dir, encode_corpus  # noqa: E402
from sentspace.app.analysis.evaluations.classification import run_classification  # noqa: E402
from sentspace.app.analysis.evaluations.costra import run_costra  # noqa: E402
from sentspace.app.analysis.evaluations.relatedness import evaluate_relatedness, run_relatedness  # noqa: E402
from sentspace.app.analysis.evaluations.transfer import run_transfer  # noqa: E402
from sentspace.app.analysis.neighbours import top_k  # noqa: E402
from sentspace.app.base.jobs import run_job  # noqa: E402
from sentspace.app.corpora import load_corpus  # noqa: E402
from sentspace.models import ENCODERS, make_encoder  # noqa: E402
from sentspace.models.base import Encoder  # noqa: E402
from sentspace.models.neural import NeuralEncoder, device  # noqa: E402
from sentspace.models.pairs import corpus_pairs  # noqa: E402
from sentspace.models.random_bow import RandomBagOfWords  # noqa: E402
from sentspace.models.tokenize import tokenize  # noqa: E402
from sentspace.models.word2vec import GensimEncoder  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
ENGLISH_ONLY = "English-only"
DASH = "—"


@dataclass(frozen=True)
class Settings:
    """Training data sizes and network sizes, printed above the table."""

    ordered_sentences: int  # State of the Union sentences, in order (17,122 in all)
    fastsent_epochs: int
    autoencoder_sentences: int  # of those, for S(D)AE and SkipThought
    definitions: int  # WordNet (word, definition) rows, every k-th
    pair_epochs: int
    recurrent_epochs: int  # S(D)AE, SkipThought, DictRep-RNN
    hidden_size: int  # recurrent networks' state
    vector_size: int  # FastSent's and the BOW families' word vectors
    transfer_folds: int  # MR's cross-validation (SentEval: 10)

    def describe(self) -> str:
        return (
            f"State of the Union: first {self.ordered_sentences:,} sentences for FastSent "
            f"({self.fastsent_epochs} epoch(s)), first {self.autoencoder_sentences:,} for S(D)AE and SkipThought "
            f"({self.recurrent_epochs} epoch(s)); WordNet: {self.definitions:,} definitions "
            f"(every k-th row; DictRep-BOW 2 epochs, DictRep-RNN {self.recurrent_epochs}); "
            f"SICK train: 4,500 pairs ({self.pair_epochs} epoch(s)); recurrent state {self.hidden_size}-d, word vectors "
            f"{self.vector_size}-d; MR: {self.transfer_folds}-fold CV"
        )


#: Each setting's (full, quick) value.
SIZES = {
    "ordered_sentences": (17_122, 600),
    "fastsent_epochs": (2, 2),
    "autoencoder_sentences": (6_000, 300),
    "definitions": (20_000, 600),
    "pair_epochs": (3, 1),
    "recurrent_epochs": (1, 1),
    "hidden_size": (128, 32),
    "vector_size": (128, 32),
    "transfer_folds": (5, 5),
}
FULL = Settings(**{name: full for name, (full, _) in SIZES.items()})
QUICK = Settings(**{name: quick for name, (_, quick) in SIZES.items()})


@dataclass(frozen=True)
class Row:
    """One encoder of the table: how to make it, what it trains on, whether it reads Czech."""

    label: str
    make: Callable[[Settings, dict[str, Path]], Encoder]
    trained_on: str
    costra: str | None = ENGLISH_ONLY  # None: evaluate Costra; else why not


def trained(family: str, data: str, **sizes) -> Callable[[Settings, dict[str, Path]], Encoder]:
    """A family trained on the training file ``data`` with ``sizes(settings)``."""

    def make(settings: Settings, files: dict[str, Path]) -> Encoder:
        params = {
            name: getattr(settings, value) if isinstance(value, str) else value
            for name, value in sizes.items()
        }
        return ENCODERS[family](training_file=str(files[data]), **params)

    return make


def reference(spec: str) -> Callable[[Settings, dict[str, Path]], Encoder]:
    return lambda settings, files: make_encoder(spec)


def trained_row(family: str, data: str, trained_on: str, **sizes) -> Row:
    """The row of ``family`` trained on ``data`` (see :func:`trained`)."""
    return Row(family, trained(family, data, **sizes), trained_on)


FASTSENT = dict(vector_size="vector_size", epochs="fastsent_epochs")
RECURRENT = dict(hidden_size="hidden_size", epochs="recurrent_epochs")
UNION = "State of the Union"
ORDERED = "State of the Union, ordered"
WORDNET = "WordNet definitions → GloVe"
SICK_TRAIN = "SICK train pairs"
ROWS = (
    trained_row("fastsent", "ordered", ORDERED, **FASTSENT),
    trained_row("fastsent-ae", "ordered", ORDERED, **FASTSENT),
    trained_row("skipthought", "autoencoder", ORDERED, **RECURRENT),
    trained_row("skipthought-combine", "autoencoder", ORDERED, **RECURRENT),
    trained_row("sae", "autoencoder", UNION, **RECURRENT),
    trained_row("sdae", "autoencoder", UNION, **RECURRENT),
    trained_row("sdae-embs", "autoencoder", f"{UNION} (+GloVe inputs)", **RECURRENT),
    trained_row("urae", "autoencoder", f"{UNION} (+GloVe leaves)", epochs="recurrent_epochs"),
    trained_row("word2vec", "ordered", UNION, vector_size="vector_size"),
    trained_row("fasttext", "ordered", UNION, vector_size="vector_size"),
    trained_row("doc2vec-dbow", "ordered", UNION, vector_size="vector_size"),
    trained_row("dictrep-bow", "definitions", WORDNET, embedding_size="vector_size"),
    trained_row("dictrep-rnn", "definitions", WORDNET, **RECURRENT),
    trained_row(
        "pair-bow", "pairs", SICK_TRAIN, embedding_size="vector_size", epochs="pair_epochs"
    ),
    trained_row("pair-rnn", "pairs", SICK_TRAIN, hidden_size="hidden_size", epochs="pair_epochs"),
    Row("nmt:en-de", reference("nmt:en-de"), "Multi30K task 1 train, En→De (29,000 pairs)"),
    Row("nmt:en-fr", reference("nmt:en-fr"), "Multi30K task 1 train, En→Fr (29,000 pairs)"),
    Row("bow", reference("bow"), "vocabulary of the evaluated text", costra=None),
    Row("glove-mean", reference("glove-mean"), "pretrained (GloVe 6B 50d)"),
    Row("minilm", reference("minilm"), "pretrained (all-MiniLM-L6-v2)"),
)


def training_files(settings: Settings, folder: Path) -> dict[str, Path]:
    """Subsets of the shared data as training files, in a fixed folder (the trained
    models' parameters name their file, so a stable path keeps the cache's keys)."""
    folder.mkdir(parents=True, exist_ok=True)
    ordered = (DATA / "state-union" / "sentences.txt").read_text(encoding="utf-8").splitlines()

    def first_sentences(n: int) -> list[str]:
        kept, count = [], 0
        for line in ordered:
            if count == n:
                break
            kept.append(line)
            count += bool(line.strip())
        return kept

    header, *rows = (
        (DATA / "wordnet-definitions" / "definitions.tsv").read_text(encoding="utf-8").splitlines()
    )
    step = max(1, len(rows) // settings.definitions)
    sick = load_corpus(DATA / "sick")
    contents = {
        "ordered": first_sentences(settings.ordered_sentences),
        "autoencoder": first_sentences(settings.autoencoder_sentences),
        "definitions": [header, *rows[::step][: settings.definitions]],
        "pairs": ["sentence1\tsentence2\tlabel\tscore", *corpus_pairs(sick).rows()],
    }
    files = {}
    for name, lines in contents.items():
        path = (
            folder / f"{name}-{len(lines)}.{'tsv' if name in ('definitions', 'pairs') else 'txt'}"
        )
        text = "\n".join(lines) + "\n"
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        files[name] = path
    return files


def same_length_share(corpus, embeddings) -> tuple[float, float]:
    """(share of sentences whose nearest neighbour has as many tokens, chance share)."""
    lengths = np.array([len(tokenize(text)) for text in corpus.texts])
    neighbours, _ = top_k(embeddings, embeddings, 1, exclude=np.arange(len(lengths)))
    share = float(np.mean(lengths[neighbours[:, 0]] == lengths))
    counts = np.bincount(lengths)
    # Chance: a neighbour drawn at random from the other sentences.
    chance = float(np.sum(counts * (counts - 1)) / (len(lengths) * (len(lengths) - 1)))
    return share, chance


def same_group_share(corpus, embeddings) -> tuple[float, float]:
    """(share of sentences whose nearest neighbour is in the same group, chance share)."""
    groups = np.full(len(corpus.texts), -1)
    groups[corpus.groups.sentence_index] = corpus.groups.group_index
    neighbours, _ = top_k(embeddings, embeddings, 1, exclude=np.arange(len(groups)))
    grouped = groups >= 0
    share = float(np.mean(groups[neighbours[grouped, 0]] == groups[grouped]))
    sizes = np.bincount(groups[grouped])
    chance = float(np.sum(sizes * (sizes - 1)) / (grouped.sum() * (len(groups) - 1)))
    return share, chance


def evaluate(
    row: Row, encoder: Encoder, corpora: dict, settings: Settings, seed: int
) -> dict[str, str]:
    cells = {}
    result = run_job(run_classification(corpora["msrp"], encoder, seed=seed))
    cells["msrp"] = f"{result.mean_accuracy:.3f}"
    related = run_job(
        run_relatedness(corpora["sick"], encoder, seed=seed, split="test", n_resamples=0)
    )
    cells["sick"] = f"{related.pooled.spearman:.3f} / {related.pooled.pearson:.3f}"
    cells["gain"] = sick_gain(encoder, related, corpora, seed)
    transfer = run_job(
        run_transfer(
            corpora["mr"], encoder, seed=seed, n_folds=settings.transfer_folds, n_resamples=0
        )
    )
    cells["mr"] = f"{transfer.accuracy:.3f}"
    if row.costra is None:
        costra = run_job(run_costra(corpora["costra"], encoder, seed=seed))
        cells["costra"] = f"{costra.mean:.3f}"
    else:
        cells["costra"] = f"{DASH} ({row.costra})"
    embeddings = run_job(encode_corpus(corpora["sick"], encoder))
    share, chance = same_length_share(corpora["sick"], embeddings)
    cells["length"] = f"{share:.3f} ({share / chance:.1f}x chance)"
    captions = run_job(encode_corpus(corpora["captions"], encoder))
    share, chance = same_group_share(corpora["captions"], captions)
    cells["captions"] = f"{share:.3f} ({share / chance:.0f}x chance)"
    return cells


def untrained_baseline(encoder: Encoder) -> Encoder | None:
    """What ``encoder`` (trained) is before training; None for the reference rows."""
    if isinstance(encoder, NeuralEncoder):
        return encoder.untrained()
    if isinstance(encoder, GensimEncoder):
        return RandomBagOfWords(dimension=encoder.vector_size, seed=encoder.seed)
    return None


def sick_gain(encoder: Encoder, related, corpora: dict, seed: int) -> str:
    """Trained minus untrained SICK test Spearman. The baseline encodes directly: asking
    an evaluation would fit it, i.e. train it."""
    baseline = untrained_baseline(encoder)
    if baseline is None:
        return DASH
    sick = corpora["sick"]
    before = evaluate_relatedness(
        sick, baseline.encode(sick.texts), splits=("test",), n_resamples=0, seed=seed
    ).pooled.spearman
    return f"{related.pooled.spearman - before:+.3f} (from {before:.3f})"


def pair_finetune_cells(corpora: dict, seed: int) -> tuple[dict[str, str], float]:
    """MiniLM fine-tuned one epoch as ``sentspace eval relatedness --split test`` does
    (on SICK train + trial), evaluated on SICK test only (it trains on the pairs of the
    corpus it is evaluated on; grouped MSRP and MR have none)."""
    sick = corpora["sick"]
    start = time.perf_counter()
    related = run_job(
        run_relatedness(
            sick, ENCODERS["pair-finetune"](seed=seed), seed=seed, split="test", n_resamples=0
        )
    )
    seconds = time.perf_counter() - start
    base = run_job(
        run_relatedness(sick, make_encoder("minilm"), seed=seed, split="test", n_resamples=0)
    ).pooled.spearman
    why = f"{DASH} (trains on the evaluated corpus's pairs; it has none)"
    return {
        "msrp": why,
        "sick": f"{related.pooled.spearman:.3f} / {related.pooled.pearson:.3f}",
        "mr": why,
        "costra": f"{DASH} ({ENGLISH_ONLY})",
        "length": DASH,
        "gain": f"{related.pooled.spearman - base:+.3f} (from {base:.3f}, MiniLM)",
        "captions": DASH,
    }, seconds


def column_cells(cells: dict[str, str]) -> list[str]:
    """An encoder's evaluated cells in the table's column order."""
    return [cells[key] for key in ("msrp", "sick", "gain", "mr", "costra", "length", "captions")]


def markdown_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    quick_help = "tiny training sets and networks: a few minutes"
    parser.add_argument("--quick", action="store_true", help=quick_help)
    finetune_help = "add MiniLM fine-tuned on SICK train (about 11 min on 2 cores)"
    parser.add_argument("--pair-finetune", action="store_true", help=finetune_help)
    parser.add_argument("--only", help="comma-separated row labels to run")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()
    logging.disable(logging.WARNING)  # the coverage warnings of out-of-domain text
    settings = QUICK if args.quick else FULL
    rows = [row for row in ROWS if not args.only or row.label in args.only.split(",")]
    files = training_files(settings, cache_dir() / "bench-families")
    corpora = {
        "msrp": load_corpus(DATA / "white2015-paraphrase-grouped" / "msrp_distribute"),
        "sick": load_corpus(DATA / "sick"),
        "mr": load_corpus(DATA / "senteval-transfer" / "MR"),
        "costra": load_corpus("costra"),
        "captions": load_corpus("multi30k-captions:en:val"),
    }
    print(
        f"# Encoder families side by side ({'quick' if args.quick else 'full'} settings, "
        f"seed {args.seed}, device {device()})\n\n{settings.describe()}.\n",
        flush=True,
    )
    header = [
        "encoder",
        "trained on",
        "training",
        "MSRP grouped acc",
        "SICK test ρ / r",
        "SICK ρ gain over untrained",
        "MR acc",
        "Costra",
        "NN same length (SICK)",
        "captions NN same image",
    ]
    # Rows print as they finish, so a long run's log holds every finished row.
    print(markdown_row(header) + "\n|" + "---|" * len(header), flush=True)
    for row in rows:
        encoder = row.make(settings, files)
        start = time.perf_counter()
        if encoder.requires_fit and (
            getattr(encoder, "training_file", None) or getattr(encoder, "pair", None)
        ):
            encoder.fit([])  # trains on its file (or pair) once; the evaluations reuse it
            training = f"{time.perf_counter() - start:.0f} s"
        else:
            training = DASH
        cells = evaluate(row, encoder, corpora, settings, args.seed)
        print(markdown_row([row.label, row.trained_on, training, *column_cells(cells)]), flush=True)
        print(
            f"{row.label}: done ({time.perf_counter() - start:.0f} s in all)",
            file=sys.stderr,
            flush=True,
        )
    if args.pair_finetune:
        cells, seconds = pair_finetune_cells(corpora, args.seed)
        trained_on = "SICK train + trial pairs (MiniLM, 1 epoch)"
        row_cells = ["pair-finetune", trained_on, f"{seconds:.0f} s", *column_cells(cells)]
        print(markdown_row(row_cells), flush=True)
    print(f"\nWhole run: {(time.perf_counter() - started) / 60:.1f} min.")
    print(
        f"\nCostra is Czech: {DASH} marks encoders whose vocabulary or training is "
        "English-only (every trained family here was trained on English text; GloVe "
        "and all-MiniLM-L6-v2 are English), so a number would measure unknown-word "
        "handling, not Costra's orderings. bow fits its vocabulary on Costra itself."
    )


if __name__ == "__main__":
    main()
