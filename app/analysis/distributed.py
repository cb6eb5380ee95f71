"""Encoding that outgrows one process: a corpus encoded in shards, by one of two engines.

The corpus is cut by row into shards of ``shard_rows`` sentences. Each finished shard is
written atomically as ``shard-NNNNN.parquet`` (``id`` string, ``vector``
fixed_size_list<float32>) and entered in ``manifest.json`` (encoder spec, parameters
and fingerprint, corpus fingerprint, dim, each shard's rows, id range and SHA-256), so a
crash or a killed worker loses only the shards in flight: a rerun keeps every shard the
manifest lists whose file still hashes the same, and encodes the rest.
``precomputed:DIR`` (:mod:`sentspace.models.precomputed`) opens such a folder as one array
aligned to the corpus by id.

Engines:

- ``local``: the shards one after another, in this process.
- ``ray``: Ray Data (the ``ray`` extra, imported only here and only when asked for). The
  missing shards become Ray Data blocks, encoded by ``map_batches`` on an actor pool
  (one model per actor: ``num_gpus=1`` each when the cluster has GPUs, a fraction of the
  CPUs otherwise); the driver gathers the rows of each shard and writes it as soon as it
  is complete. Without an address a local Ray instance is started with ``num_cpus``
  CPUs, so the same call runs on a laptop, a GPU workstation or a cluster.

The corpus is read once, on the driver, by the one reader that gives it its ids, so the
shards' ids are exactly the ids ``precomputed:DIR`` will align to. Encoders that must be
fitted (bag of words...) are fitted on the whole corpus first and shipped to the workers
fitted. Both engines encode the same batches: a shard is whole encoder batches, and each
batch (``batch_size`` rows from row ``k * batch_size``) is encoded by one ``encode``
call, as a direct encode does. So the shards are the same bits whichever engine wrote
them, on the same kind of device, and the same bits as a direct encode for encoders
whose direct encode batches that way (all but the transformers, whose direct encode
sorts the whole corpus by length into batches: there shards differ by rounding). On
GPUs the ray engine gives a transformer its larger GPU batch.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from sentspace.app.analysis import ann
from sentspace.app.analysis.dense_index import add_rows, iter_trained_ivf, ivf
from sentspace.app.analysis.neighbours import normalise
from sentspace.app.base.atomic import atomic_path, write_text_atomic
from sentspace.app.base.jobs import Job, Progress
from sentspace.app.corpora import load_corpus
from sentspace.app.corpora.model import Corpus
from sentspace.models import make_encoder
from sentspace.models.base import Encoder, ModelError, fitted_copy
from sentspace.models.precomputed import SHARD_FORMAT, SHARD_MANIFEST, read_embeddings, sha256_file

ENGINES = ("local", "ray")
#: A multiple of every encoder's batch size (64, 512, 2048).
DEFAULT_SHARD_ROWS = 65_536
#: CPUs of the local Ray instance started when no address is given.
DEFAULT_RAY_CPUS = 2


@dataclass(frozen=True)
class Shard:
    """Rows ``start:stop`` of the corpus, written to ``file``."""

    index: int
    start: int
    stop: int

    @property
    def rows(self) -> int:
        return self.stop - self.start

    @property
    def file(self) -> str:
        return f"shard-{self.index:05d}.parquet"


@dataclass(frozen=True)
class ShardedEncoding:
    """What :func:`encode_shards` did: the folder, its size, shards reused and written."""

    out_dir: Path
    rows: int
    dim: int
    shards: int
    reused: int
    written: int
    engine: str


def plan_shards(n_rows: int, shard_rows: int) -> list[Shard]:
    if shard_rows < 1:
        raise ValueError("shard_rows must be at least 1")
    return [
        Shard(index, start, min(start + shard_rows, n_rows))
        for index, start in enumerate(range(0, n_rows, shard_rows))
    ]


def _dense(matrix) -> np.ndarray:
    return np.ascontiguousarray(
        matrix.toarray() if sp.issparse(matrix) else matrix, dtype=np.float32
    )


def write_shard(
    out_dir: Path, shard: Shard, ids: Sequence[str], vectors: np.ndarray
) -> dict[str, Any]:
    """Write one shard atomically; its manifest entry."""
    import pyarrow as pa  # noqa: PLC0415 - only when shards are written
    import pyarrow.parquet as pq  # noqa: PLC0415

    vectors = _dense(vectors)
    column = pa.FixedSizeListArray.from_arrays(pa.array(vectors.reshape(-1)), vectors.shape[1])
    table = pa.table({"id": pa.array(list(ids), pa.string()), "vector": column})
    path = out_dir / shard.file
    with atomic_path(path) as temporary:
        pq.write_table(table, temporary)
    return {
        "index": shard.index,
        "file": shard.file,
        "start": shard.start,
        "rows": shard.rows,
        "first_id": ids[0],
        "last_id": ids[-1],
        "sha256": sha256_file(path),
    }


class Manifest:
    """``manifest.json`` of a shard folder: what is being encoded and the shards done."""

    def __init__(self, out_dir: Path, header: dict[str, Any]):
        self.path = out_dir / SHARD_MANIFEST
        self.header = header
        self.shards: dict[int, dict[str, Any]] = {}
        self.dim: int | None = None
        if self.path.exists():
            self._resume(out_dir)

    def _resume(self, out_dir: Path) -> None:
        """Keep the finished shards of an earlier run of the same encoding whose files
        still hash as recorded; refuse a folder that holds another encoding."""
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ModelError(f"not a readable manifest ({error})", self.path) from None
        same = {
            "format": saved.get("format") == self.header["format"],
            "encoder": (saved.get("encoder") or {}).get("fingerprint")
            == self.header["encoder"]["fingerprint"],
            "corpus": (saved.get("corpus") or {}).get("fingerprint")
            == self.header["corpus"]["fingerprint"],
            "shard size": saved.get("shard_rows") == self.header["shard_rows"],
        }
        for what, matches in same.items():
            if not matches:
                raise ModelError(
                    f"the folder holds another encoding ({what} differs); "
                    f"choose another output folder",
                    self.path,
                )
        for entry in saved.get("shards", []):
            file = out_dir / entry["file"]
            if file.is_file() and sha256_file(file) == entry["sha256"]:
                self.shards[entry["index"]] = entry
        self.dim = saved.get("dim") if self.shards else None

    def add(self, entry: dict[str, Any], dim: int) -> None:
        self.shards[entry["index"]] = entry
        self.dim = dim
        self.save()

    def save(self) -> None:
        write_text_atomic(
            self.path,
            json.dumps(
                {
                    **self.header,
                    "dim": self.dim,
                    "shards": [self.shards[index] for index in sorted(self.shards)],
                },
                indent=1,
            ),
        )


def _encode_batch(encoder: Encoder, texts: Sequence[str]) -> np.ndarray:
    """One encoder batch, as both engines encode it."""
    return _dense(encoder.encode(texts))


def encode_shards(
    corpus_source: str | Path | Corpus,
    encoder_spec: str | Encoder,
    out_dir: str | Path,
    *,
    shard_rows: int = DEFAULT_SHARD_ROWS,
    engine: str = "local",
    address: str | None = None,
    num_cpus: int = DEFAULT_RAY_CPUS,
    workers: int | None = None,
) -> Job[ShardedEncoding]:
    """Encode a corpus into a folder of Parquet shards and a manifest; a job.

    ``corpus_source`` is a corpus spec (built-in name or path) or a loaded corpus;
    ``encoder_spec`` an ``--encoder`` spelling or an encoder. A rerun into the same
    folder resumes: shards already finished are not encoded again. Closing the job stops
    between shards (local) or batches (ray); finished shards stay.

    ``address``, ``num_cpus`` and ``workers`` are for the ray engine: the cluster to join
    (None: start a local instance with ``num_cpus`` CPUs), and the actors to run (default:
    one per GPU, else one per CPU).
    """
    if engine not in ENGINES:
        raise ModelError(f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")
    corpus = corpus_source if isinstance(corpus_source, Corpus) else load_corpus(corpus_source)
    encoder = make_encoder(encoder_spec) if isinstance(encoder_spec, str) else encoder_spec
    encoder = yield from fitted_copy(encoder, corpus.texts)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    # Whole encoder batches per shard: the shards then hold a direct encode's bits.
    shard_rows = -(-shard_rows // encoder.batch_size) * encoder.batch_size
    shards = plan_shards(len(corpus), shard_rows)
    manifest = Manifest(
        out_dir,
        {
            "format": SHARD_FORMAT,
            "encoder": {
                "spec": encoder_spec if isinstance(encoder_spec, str) else encoder.name,
                "name": encoder.name,
                "family": encoder.family,
                "params": encoder.params(),
                "fingerprint": encoder.fingerprint(),
            },
            "corpus": {"name": corpus.name, "fingerprint": corpus.fingerprint, "rows": len(corpus)},
            "shard_rows": shard_rows,
            "n_shards": len(shards),
        },
    )
    todo = [shard for shard in shards if shard.index not in manifest.shards]

    def store(shard: Shard, vectors: np.ndarray) -> None:
        ids = corpus.ids[shard.start : shard.stop]
        manifest.add(write_shard(out_dir, shard, ids, vectors), int(vectors.shape[1]))

    run = _encode_local if engine == "local" else _encode_ray
    options: dict[str, Any] = (
        {} if engine == "local" else {"address": address, "num_cpus": num_cpus, "workers": workers}
    )
    if todo:
        yield from run(corpus, encoder, todo, store, **options)
    else:
        manifest.save()
    return ShardedEncoding(
        out_dir,
        len(corpus),
        int(manifest.dim or encoder.dim),
        len(shards),
        len(shards) - len(todo),
        len(todo),
        engine,
    )


def _stage(encoder: Encoder, shards: Sequence[Shard]) -> tuple[str, int]:
    return (
        f"encoding {len(shards)} shards with {encoder.name}",
        sum(shard.rows for shard in shards),
    )


def _encode_local(
    corpus: Corpus,
    encoder: Encoder,
    shards: Sequence[Shard],
    store: Callable[[Shard, np.ndarray], None],
) -> Job[None]:
    stage, total = _stage(encoder, shards)
    size = encoder.batch_size
    done = 0
    for shard in shards:
        parts = []
        for start in range(shard.start, shard.stop, size):
            stop = min(start + size, shard.stop)
            parts.append(_encode_batch(encoder, corpus.texts[start:stop]))
            yield Progress(stage, done + stop - shard.start, total)
        store(shard, np.concatenate(parts))
        done += shard.rows


class EncodeBatch:
    """The Ray Data actor: one encoder (so one model) per actor. Each input row is one
    encoder batch (its first corpus row and its texts); the output has a row per
    sentence."""

    def __init__(self, encoder: Encoder):
        self.encoder = encoder

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        starts, vectors = [], []
        for start, texts in zip(batch["start"], batch["texts"]):
            vectors.append(_encode_batch(self.encoder, [str(text) for text in texts]))
            starts.append(np.arange(start, start + len(texts)))
        return {"row": np.concatenate(starts), "vector": np.concatenate(vectors)}


@contextmanager
def _ray(address: str | None, num_cpus: int):
    """The ray module, connected to ``address`` or to a local instance of ``num_cpus``
    CPUs; an instance started here is shut down on leaving."""
    try:
        import ray  # noqa: PLC0415 - the optional extra, only for this engine
    except ImportError:
        raise ModelError(
            "the ray engine needs the ray extra: pip install 'sentspace[ray]'"
        ) from None
    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def _encode_ray(
    corpus: Corpus,
    encoder: Encoder,
    shards: Sequence[Shard],
    store: Callable[[Shard, np.ndarray], None],
    *,
    address: str | None,
    num_cpus: int,
    workers: int | None,
) -> Job[None]:
    import pyarrow as pa  # noqa: PLC0415

    stage, total = _stage(encoder, shards)
    yield Progress(f"starting Ray ({address or f'local, {num_cpus} CPUs'})", 0, total)
    with _ray(address, num_cpus) as ray:
        resources = ray.cluster_resources()
        gpus, cpus = int(resources.get("GPU", 0)), float(resources.get("CPU", 1))
        # One block per shard, one row per encoder batch: each actor call encodes exactly
        # the batches a direct encode would (see the module docstring); on GPUs, a
        # transformer's larger GPU batch.
        if gpus:
            actors = workers or gpus
            placement: dict[str, float] = {"num_gpus": 1}
            size = getattr(encoder, "cuda_batch_size", encoder.batch_size)
        else:
            actors = workers or max(1, int(cpus))
            # A little under the cluster's CPUs, so Ray Data's own tasks still schedule.
            placement = {"num_cpus": min(1.0, 0.9 * cpus / actors)}
            size = encoder.batch_size
        actors = min(actors, sum(-(-shard.rows // size) for shard in shards))
        blocks = []
        for shard in shards:
            starts = range(shard.start, shard.stop, size)
            blocks.append(
                pa.table(
                    {
                        "start": list(starts),
                        "texts": [
                            list(corpus.texts[start : min(start + size, shard.stop)])
                            for start in starts
                        ],
                    }
                )
            )
        vectors = ray.data.from_arrow(blocks).map_batches(
            EncodeBatch,
            fn_constructor_kwargs={"encoder": encoder},
            batch_size=1,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=actors),
            **placement,
        )
        shard_of = np.empty(len(corpus), dtype=np.int64)
        for position, shard in enumerate(shards):
            shard_of[shard.start : shard.stop] = position
        buffers: dict[int, np.ndarray] = {}
        filled = np.zeros(len(shards), dtype=np.int64)
        done = 0
        for batch in vectors.iter_batches(batch_size=None, batch_format="numpy"):
            rows, values = batch["row"], batch["vector"]
            for position in np.unique(shard_of[rows]):
                shard = shards[position]
                mine = shard_of[rows] == position
                if position not in buffers:
                    buffers[position] = np.empty((shard.rows, values.shape[1]), np.float32)
                buffers[position][rows[mine] - shard.start] = values[mine]
                filled[position] += int(mine.sum())
                if filled[position] == shard.rows:
                    store(shard, buffers.pop(position))
            done += len(rows)
            yield Progress(stage, done, total)


@dataclass(frozen=True)
class ShardedIndex:
    """What :func:`index_shards` built: an IVF-SQ8 over a shard folder's unit rows,
    stored where :func:`sentspace.app.analysis.ann.iter_build_index` finds it."""

    path: Path
    rows: int
    lists: int
    shards: int
    engine: str
    search: Any  # app.ann.Search: the tuned breadth's recall@10


def index_shards(
    folder: str | Path,
    *,
    engine: str = "local",
    address: str | None = None,
    num_cpus: int = DEFAULT_RAY_CPUS,
) -> Job[ShardedIndex]:
    """The approximate neighbour index of a folder of shards (``sentspace encode
    --engine``), built shard by shard; a job.

    The IVF-SQ8 is trained on a seeded sample of all the unit rows (on the driver), then
    each shard's rows are added to a copy of the trained, empty index, in this process
    (local) or in a Ray task per shard (ray), and the parts are merged in shard order:
    the same index, bit for bit, as adding every row at once. It is tuned and cached
    like any index (:mod:`sentspace.app.analysis.ann`), so ``precomputed:FOLDER`` searched approximately
    finds it instead of building one.
    """

    if engine not in ENGINES:
        raise ModelError(f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")
    folder = Path(folder)
    manifest = (
        json.loads((folder / SHARD_MANIFEST).read_text(encoding="utf-8"))
        if (folder / SHARD_MANIFEST).is_file()
        else None
    )
    if manifest is None:
        raise ModelError(
            f"{folder}: not a folder of shards (no {SHARD_MANIFEST}); write "
            "one with sentspace encode --engine local|ray"
        )
    unit = normalise(read_embeddings(folder).vectors).matrix
    shards = [(entry["start"], entry["rows"]) for entry in manifest["shards"]]
    stage = f"indexing {len(shards)} shards ({engine})"
    yield Progress(stage, 0, len(shards))
    index = yield from iter_trained_ivf(unit)
    add = _index_local if engine == "local" else _index_ray
    parts = add(index, unit, shards, address=address, num_cpus=num_cpus)
    try:
        for done, (start, part) in enumerate(parts, 1):
            index.merge_from(part, start)
            yield Progress(stage, done, len(shards))
    finally:
        parts.close()
    nprobe, search = yield from ann.tune(index, unit, min(10, len(unit) - 1))
    path = ann.store_index(index, unit, {search.k: (nprobe, search)})
    return ShardedIndex(path, len(unit), ivf(index).nlist, len(shards), engine, search)


def _index_part(serialized: np.ndarray, rows: np.ndarray):
    """``rows`` added to the trained index ``serialized`` (faiss.serialize_index)."""
    import faiss  # noqa: PLC0415

    part = faiss.deserialize_index(serialized)
    add_rows(part, rows)
    return part


def _index_local(index, unit: np.ndarray, shards, **_):
    import faiss  # noqa: PLC0415

    trained = faiss.serialize_index(index)
    for start, rows in shards:
        yield start, _index_part(trained, unit[start : start + rows])


def _index_ray(index, unit: np.ndarray, shards, *, address: str | None, num_cpus: int):
    import faiss  # noqa: PLC0415

    with _ray(address, num_cpus) as ray:
        # Parts travel back serialised (faiss indexes do not pickle).
        add = ray.remote(num_cpus=1)(
            lambda trained, rows: faiss.serialize_index(_index_part(trained, rows))
        )
        trained = ray.put(faiss.serialize_index(index))
        pending = [add.remote(trained, unit[start : start + rows]) for start, rows in shards]
        for (start, _), ref in zip(shards, pending):
            yield start, faiss.deserialize_index(ray.get(ref))
