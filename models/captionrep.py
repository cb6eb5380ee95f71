"""CaptionRep (Hill, Cho & Korhonen 2016): a sentence encoder trained to map each caption
of an image onto that image's vector.

The network is DictRep's (:mod:`sentspace.models.dictrep`): ``captionrep`` averages
learned word embeddings and maps the average linearly into the target space,
``captionrep-rnn`` reads the caption with an LSTM and maps its final state; the loss is
the cosine distance to the target, and the sentence vector is the mapped output.

It trains on Multi30K task 2 (``multi30k-captions``): the five independent English (or
German, ``language="de"``) descriptions of each of the 29,000 Flickr30k images of the
train split, never on the corpus it encodes, so evaluations train it once. The targets:

- ``image_features=FILE.npy`` (the paper's setting, e.g. CNN features of Flickr30k): a
  NumPy array of shape (29,000, D), numbers, row i the vector of the image on line i of
  ``task2/image_splits/train_images.txt`` (the image of line i of every
  ``train.K.LANG.gz``). Read with ``allow_pickle=False``; a file that is not such an
  array, has another number of rows, a non-finite value or an all-zero row is refused
  with the file and the problem. The sentence vector has D dimensions.
- Without a file, a **stand-in** (no image features ship with sentspace): each caption's
  target is the mean of the other four captions' vectors of its image in an LSA space of
  the training captions (TF-IDF, truncated SVD to ``stand_in_size`` dimensions, rows of
  unit length). It keeps what defines CaptionRep's objective, one target per image that
  its captions share and that no caption's own wording produces (the caption's own LSA
  vector is left out, so the network cannot learn to copy its input), but it knows only
  what the other describers wrote, not what the image shows: it is a caption-to-caption
  objective, and its results are not the paper's CaptionRep. The encoder's name, title,
  training report, saved sidecar and every result's provenance say "stand-in".

After training it scores caption retrieval on Multi30K val (1,014 images it never saw):
each caption queries all other val captions by cosine, and the image's other four are
the answers (MRR of the first answer, recall at 1 and 5, ties against the answer), beside
the same network with its untrained weights. The score is kept as ``retrieval_``, shown
as the job's last progress message and saved with the model. ``max_images`` trains on
the first images only (``captionrep?max_images=2000``, a quick run).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Self

import numpy as np

from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora.multi30k import DESCRIPTIONS, data_folder, load_captions
from sentspace.models.base import ModelError, require_at_least_one
from sentspace.models.dictrep import DictRepBOW, _network
from sentspace.models.neural import Vocabulary
from sentspace.models.tokenize import TOKEN_PATTERN, tokenize

#: Multi30K task 2's languages (independent descriptions, not translations).
LANGUAGES = ("en", "de")
TRAIN_SPLIT, HELD_OUT_SPLIT = "train", "val"
#: How the stand-in targets are named wherever the encoder is.
STAND_IN = "stand-in: other captions' LSA"
STAND_IN_TARGETS = (
    "stand-in targets, no image features: the mean LSA vector of each image's other captions"
)
#: Queries scored per block of the retrieval's similarity matrix.
QUERY_BLOCK = 512
#: Cosines this close count as a tie (the same text encoded in two batches differs by
#: float rounding); a tie counts against the answer.
TIE = 1e-6


@dataclass(frozen=True)
class CaptionRetrieval:
    """How well captions of images never trained on find each other, beside the same
    network untrained (what training added).

    Attributes
    ----------
    held_out : str
        Which captions ("Multi30K val en").
    n_captions, n_images : int
    mrr, recall_at_1, recall_at_5 : float
        Over every caption as a query among all others: the mean reciprocal rank of the
        first of its image's other captions, and the share of queries with one of them
        among the 1 or 5 nearest.
    untrained_mrr, untrained_recall_at_1, untrained_recall_at_5 : float
        The same for the network's seeded initial weights.
    """

    held_out: str
    n_captions: int
    n_images: int
    mrr: float
    recall_at_1: float
    recall_at_5: float
    untrained_mrr: float
    untrained_recall_at_1: float
    untrained_recall_at_5: float

    def message(self) -> str:
        return (
            f"finds an image's other captions in {self.held_out} ({self.n_captions:,} "
            f"captions of {self.n_images:,} images): MRR {self.mrr:.3f} (untrained "
            f"{self.untrained_mrr:.3f}), R@1 {self.recall_at_1:.3f} "
            f"({self.untrained_recall_at_1:.3f}), R@5 {self.recall_at_5:.3f} "
            f"({self.untrained_recall_at_5:.3f})"
        )


def caption_retrieval(embeddings: np.ndarray, images: np.ndarray) -> tuple[float, float, float]:
    """MRR, recall at 1 and at 5 of finding a caption's image's other captions among all
    other captions by cosine (``images``: the image of each row). A tie within
    :data:`TIE` counts against the answer; a zero vector ties with everything."""
    x = np.asarray(embeddings, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    x = x / np.where(norms > 0, norms, 1)
    images = np.asarray(images)
    ranks = np.empty(len(x), dtype=np.int64)
    for start in range(0, len(x), QUERY_BLOCK):
        rows = np.arange(start, min(start + QUERY_BLOCK, len(x)))
        similarity = x[rows] @ x.T
        same = images[rows, None] == images[None, :]
        same[np.arange(len(rows)), rows] = False
        other = ~same
        other[np.arange(len(rows)), rows] = False
        best = np.where(same, similarity, -np.inf).max(axis=1)
        ranks[rows] = 1 + (other & (similarity >= best[:, None] - TIE)).sum(axis=1)
    return float(np.mean(1 / ranks)), float(np.mean(ranks <= 1)), float(np.mean(ranks <= 5))


def image_list(split: str = TRAIN_SPLIT) -> tuple[Path, list[str]]:
    """Multi30K task 2's image list of ``split`` and the image file of each line."""
    path = data_folder() / "task2" / "image_splits" / f"{split}_images.txt"
    try:
        return path, path.read_text(encoding="utf-8").split()
    except OSError as error:
        raise ModelError(f"Multi30K's image list is unreadable ({error})", path) from None


def check_image_features(path: Path) -> int:
    """The dimension of an image-features file: its header says a 2-d array of numbers
    with a row per Multi30K train image (module notes). ModelError names the file and
    the problem."""
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        raise ModelError("no such image-features file", path) from None
    except (OSError, ValueError) as error:
        raise ModelError(
            f"not a NumPy .npy array of numbers ({error}); expected shape (images, dimensions)",
            path,
        ) from None
    if not isinstance(array, np.ndarray):  # an .npz archive
        array.close()
        raise ModelError(
            "an .npz archive; expected one .npy array of shape (images, dimensions)", path
        )
    shape, dtype = array.shape, array.dtype
    del array
    if len(shape) != 2:
        raise ModelError(
            f"an array of shape {shape}; expected 2-d, (images, dimensions): a row per image",
            path,
        )
    if not (np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.integer)):
        raise ModelError(f"holds {dtype} values, not numbers", path)
    images_path, images = image_list()
    if shape[0] != len(images):
        raise ModelError(
            f"{shape[0]:,} rows, but Multi30K train has {len(images):,} images: row i must "
            f"be the vector of the image on line i of {images_path.name}",
            path,
        )
    if shape[1] < 1:
        raise ModelError("no columns: every image needs a vector of at least 1 number", path)
    return int(shape[1])


def read_image_features(path: Path) -> np.ndarray:
    """The image-features file as float32, its header and values checked (a non-finite
    value or an all-zero row, which has no direction, is refused naming row and image)."""
    check_image_features(path)
    features = np.load(path, allow_pickle=False).astype(np.float32)
    _, images = image_list()
    finite = np.isfinite(features).all(axis=1)
    zero = ~features.any(axis=1)
    for bad, problem in ((~finite, "a value that is not finite"), (zero, "only zeros")):
        if bad.any():
            row = int(np.argmax(bad))
            raise ModelError(
                f"row {row + 1} (image {images[row]}) has {problem}"
                + (f", as do {bad.sum() - 1:,} more rows" if bad.sum() > 1 else ""),
                path,
            )
    return features


def stand_in_targets(
    captions: Sequence[str], images: np.ndarray, size: int, lowercase: bool, seed: int
) -> np.ndarray:
    """Each caption's stand-in target (module notes): the mean of the unit-length LSA
    vectors of its image's other captions, float32 (n, size; fewer when there are
    fewer captions or distinct words). TF-IDF and SVD are fitted on ``captions`` alone, in float64;
    the SVD's random start comes from ``seed``."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    tfidf = TfidfVectorizer(
        token_pattern=TOKEN_PATTERN, lowercase=lowercase, dtype=np.float64
    ).fit_transform(captions)
    size = min(size, min(tfidf.shape) - 1)
    if size < 1:
        raise ModelError("too few training captions or distinct words for an LSA space")
    lsa = TruncatedSVD(size, random_state=seed).fit_transform(tfidf)
    norms = np.linalg.norm(lsa, axis=1, keepdims=True)
    lsa /= np.where(norms > 0, norms, 1)
    n_images = int(images.max()) + 1
    sums = np.zeros((n_images, size))
    np.add.at(sums, images, lsa)
    others = np.bincount(images, minlength=n_images)[images] - 1
    return ((sums[images] - lsa) / np.maximum(others, 1)[:, None]).astype(np.float32)


class CaptionRep(DictRepBOW):
    """Caption -> its image's vector (or the declared stand-in), through a mean of word
    embeddings (module notes).

    Parameters
    ----------
    image_features : str or None
        A ``.npy`` file of shape (29,000, D), row i the vector of the image on line i of
        Multi30K's ``task2/image_splits/train_images.txt``; None: stand-in targets.
    language : str
        The captions' language, "en" or "de".
    max_images : int or None
        Train on the captions of the first images only (None: all 29,000).
    stand_in_size : int
        Dimensions of the stand-in's LSA space (and so of the sentence vector without
        image features).
    embedding_size, hidden_size, max_length, epochs, batch_sentences, learning_rate,
    min_count, max_vocab, lowercase, seed
        As in :class:`sentspace.models.dictrep.DictRepBOW`.
    """

    family = "captionrep"
    title = (
        "CaptionRep, bag of words (captions -> image features; without them a "
        "stand-in, the other captions' LSA; Hill et al. 2016)"
    )
    training_rows = "captions"
    file_params = ("image_features",)

    #: Always trains on Multi30K's captions.
    omitted_params = ("training_file",)
    defaults = {"epochs": 1}

    def __init__(
        self,
        image_features: str | None = None,
        language: str = "en",
        max_images: int | None = None,
        stand_in_size: int = 256,
        **sizes_and_training: Any,
    ):
        super().__init__(**sizes_and_training)
        if language not in LANGUAGES:
            raise ModelError(
                f"Multi30K's captions are in {' and '.join(LANGUAGES)}, not {language!r}"
            )
        require_at_least_one(stand_in_size=stand_in_size)
        if max_images is not None:
            require_at_least_one(max_images=max_images)
        self.language, self.stand_in_size = language, int(stand_in_size)
        self.max_images = None if max_images is None else int(max_images)
        self.image_features: str | None = None
        #: The targets' dimension: the file's columns, else the stand-in's size (fewer
        #: when there are fewer captions or distinct words; set once trained).
        self.target_size_ = self.stand_in_size
        if image_features is not None:
            path = Path(image_features).expanduser()
            self.target_size_ = check_image_features(path)
            self.image_features = str(path.absolute())
        self.retrieval_: CaptionRetrieval | None = None
        #: The current training's targets, a row per caption (see :meth:`iter_fit`).
        self._training_targets: np.ndarray | None = None

    @property
    def dim(self) -> int:
        return self.target_size_

    @property
    def learns_from_data(self) -> bool:
        """Never: it trains on Multi30K's captions, whatever it encodes."""
        return False

    @property
    def targets(self) -> str:
        """What the network learns to predict, as every output names it."""
        if self.image_features is None:
            return STAND_IN_TARGETS
        return f"image features {Path(self.image_features).name} ({self.target_size_}-d)"

    @property
    def name(self) -> str:
        """``captionrep(image_features=FILE)`` or ``captionrep(stand-in: ...)``, with the
        parameters that differ from the defaults."""
        defaults = type(self)().params()
        changed = [
            f"{key}={value}"
            for key, value in self.params().items()
            if key != "image_features" and defaults[key] != value
        ]
        target = (
            STAND_IN
            if self.image_features is None
            else f"image_features={Path(self.image_features).name}"
        )
        return f"{self.family}({', '.join([target, *changed])})"

    @classmethod
    def _from_saved_params(cls, params: dict[str, Any]) -> Self:
        """A saved model's encoder; its image-features file need not exist any more."""
        encoder = cls(**{**params, "image_features": None})
        encoder.image_features = params["image_features"]
        return encoder

    # Training ---------------------------------------------------------------------------

    def _files(self) -> list[Path]:
        folder = data_folder() / "task2"
        captions = [
            folder / "raw" / f"{split}.{k}.{self.language}.gz"
            for split in (TRAIN_SPLIT, HELD_OUT_SPLIT)
            for k in range(1, DESCRIPTIONS + 1)
        ]
        return captions + ([Path(self.image_features)] if self.image_features else [])

    def iter_fit(self, texts: Sequence[str]) -> Job[Self]:
        """Train on Multi30K's training captions and their targets (``texts`` are not
        read: module notes), then score caption retrieval on val (``retrieval_``); a
        process trains each set of parameters and files once. Closed while scoring, it is
        left trained and unscored."""
        # A missing file is said by the reader below.
        memo = self._remembered_training(path for path in self._files() if path.exists())
        if "state" in memo:
            state, self.target_size_, self.retrieval_ = memo["state"]
            self._restore(*state)
            return self
        yield Progress(f"reading Multi30K {TRAIN_SPLIT} captions ({self.language})", 0, 1)
        corpus = load_captions(language=self.language, split=TRAIN_SPLIT)
        assert corpus.groups is not None, "a group per image"
        images = corpus.groups.group_index
        keep = images < (self.max_images or len(images))
        captions, images = [t for t, k in zip(corpus.texts, keep) if k], images[keep]
        if self.image_features is None:
            yield Progress("computing the stand-in targets (LSA of the other captions)", 0, 1)
            targets = stand_in_targets(
                captions, images, self.stand_in_size, self.lowercase, self.seed
            )
        else:
            targets = read_image_features(Path(self.image_features))[images]
        n_images = len(np.unique(images))
        self._training_targets = targets
        try:
            yield from self._train(
                captions,
                f"Multi30K {TRAIN_SPLIT} {self.language} ({n_images:,} images), "
                + ("stand-in targets" if self.image_features is None else "image features"),
            )
        finally:
            self._training_targets = None
        self.retrieval_ = None
        self.retrieval_ = yield from self.iter_score_retrieval()
        yield Progress(self.retrieval_.message(), 1, 1)
        memo["state"] = (
            self._trained(),
            self.target_size_,
            self.retrieval_,
        )
        return self

    def _prepare(self, texts: list[str], vocab: Vocabulary | None = None):
        import torch

        targets = self._training_targets
        if targets is None or len(targets) != len(texts):
            raise ModelError(
                f"{self.family} trains on Multi30K's captions and their images' "
                "targets, not on other texts; its held-out measure is caption retrieval "
                "(retrieval_)"
            )
        token_lists = [tokenize(text, self.lowercase)[: self.max_length] for text in texts]
        if vocab is None:
            self.target_size_ = targets.shape[1]
        vocab, captions, examples = self._id_rows(
            token_lists,
            vocab,
            f"no word occurs min_count={self.min_count} times in the "
            f"{len(texts):,} training captions",
        )
        return vocab, (captions, examples, torch.as_tensor(targets)), len(examples)

    def _new_module(self, vocab: Vocabulary):
        return _network(
            len(vocab), self.embedding_size, self.hidden_size, self.target_size_, self.recurrent
        )

    def untrained(self) -> Self:
        copy = super().untrained()
        copy.target_size_ = self.target_size_
        return copy

    def iter_score_retrieval(self, split: str = HELD_OUT_SPLIT) -> Job[CaptionRetrieval]:
        """Caption retrieval on Multi30K ``split`` by this network and by its untrained
        self (:class:`CaptionRetrieval`); a job with progress per encoding batch."""
        corpus = load_captions(language=self.language, split=split)
        assert corpus.groups is not None, "a group per image"
        images = corpus.groups.group_index
        scores: list[float] = []
        for encoder in (self, self.untrained()):
            embeddings = yield from encoder.iter_encode(corpus.texts)
            scores += caption_retrieval(embeddings, images)
        return CaptionRetrieval(
            f"Multi30K {split} {self.language}", len(corpus), len(np.unique(images)), *scores
        )

    @property
    def training_report(self) -> str | None:
        trained = super().training_report
        if trained is None:
            return None
        parts = [trained, f"targets: {self.targets}"]
        return "; ".join(parts + ([self.retrieval_.message()] if self.retrieval_ else []))

    @property
    def training_scores(self) -> dict[str, Any] | None:
        scores = super().training_scores
        if scores is not None:
            scores["targets"] = self.targets
            scores["retrieval"] = self.retrieval_ and asdict(self.retrieval_)
        return scores

    # Saving -----------------------------------------------------------------------------

    def _saved_state(self):
        arrays, fields = super()._saved_state()
        return arrays, {
            **fields,
            "targets": self.targets,
            "target_size": self.target_size_,
            "retrieval": self.retrieval_ and asdict(self.retrieval_),
        }

    def _restore_saved(self, arrays, fields) -> None:
        self.target_size_ = int(fields["target_size"])
        super()._restore_saved(arrays, fields)
        self.retrieval_ = CaptionRetrieval(**fields["retrieval"]) if fields["retrieval"] else None


class CaptionRepRNN(CaptionRep):
    """Caption -> its image's vector (or the declared stand-in), through an LSTM
    (smaller default sizes than ``captionrep``: an LSTM step costs far more than a sum)."""

    family = "captionrep-rnn"
    title = (
        "CaptionRep, LSTM (captions -> image features; without them a stand-in, the "
        "other captions' LSA; Hill et al. 2016)"
    )
    recurrent = True

    defaults = {"embedding_size": 128, "hidden_size": 128}
