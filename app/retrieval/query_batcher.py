"""Query texts embedded together: concurrent searches share one model call.

The first text of a batch waits up to `wait_s` (Settings.embedding_query_wait_ms) for others,
less once `max_batch` texts wait; texts that arrive while the batch waits for a pool slot join
it, so under load one call answers every search that came in meanwhile. An error reaches every
caller of the batch; a caller that gives up (cancelled, timed out) leaves the batch running for
the others. Recent texts are answered from an LRU cache, and a text already in flight is not
computed twice.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from functools import partial

from app.retrieval.encode_pool import QUERY, EncodePool

# (model name, scope, text): a vector is only valid for the model that made it, and one client
# must not learn from a cache hit's speed what another searched (the scope is the client).
Key = tuple[str, str, str]
Encode = Callable[[list[str]], list[list[float]]]


class VectorCache:
    """The `size` most recently used vectors; size 0 keeps none."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Key, list[float]] = OrderedDict()

    def get(self, key: Key) -> list[float] | None:
        vector = self._items.get(key)
        if vector is not None:
            self._items.move_to_end(key)
        return vector

    def put(self, key: Key, vector: list[float]) -> None:
        if self.size == 0:
            return
        self._items[key] = vector
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


@dataclass
class QueryCounts:
    batches_total: int = 0  # model calls for query texts
    texts_total: int = 0  # texts those calls encoded
    cache_hits_total: int = 0  # texts answered from the cache or a computation in flight


class QueryBatcher:
    def __init__(
        self,
        pool: EncodePool,
        encode: Encode,
        *,
        model_name: str,
        wait_s: float,
        max_batch: int,
        cache_size: int,
    ) -> None:
        self.pool, self.encode, self.model_name = pool, encode, model_name
        self.wait_s, self.max_batch = wait_s, max_batch
        self.cache = VectorCache(cache_size)
        self.counts = QueryCounts()
        self._inflight: dict[Key, asyncio.Future[list[float]]] = {}
        self._pending: deque[Key] = deque()
        self._full = asyncio.Event()
        self._flusher: asyncio.Task[None] | None = None
        self._batches: set[asyncio.Task[None]] = set()  # referenced until done

    @property
    def queue_depth(self) -> int:
        """Texts waiting for a model call (not those being encoded)."""
        return len(self._pending)

    async def embed(self, texts: list[str], *, scope: str = "") -> list[list[float]]:
        return list(await asyncio.gather(*(self.vector(text, scope=scope) for text in texts)))

    async def vector(self, text: str, *, scope: str = "") -> list[float]:
        key = (self.model_name, scope, text)
        if (found := self.cache.get(key)) is not None:
            self.counts.cache_hits_total += 1
            return found
        shared = self._inflight.get(key)
        if shared is None:
            shared = self._enqueue(key)
        else:
            self.counts.cache_hits_total += 1
        # Shielded: one caller giving up must not cancel the vector the others wait for.
        return await asyncio.shield(shared)

    def _enqueue(self, key: Key) -> asyncio.Future[list[float]]:
        future = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        self._pending.append(key)
        if self._flusher is None or self._flusher.done():
            # A fresh event: the last one may belong to a loop that has ended since.
            self._full = asyncio.Event()
            self._flusher = asyncio.create_task(self._flush(), name="query-embeddings")
        if len(self._pending) >= self.max_batch:
            self._full.set()
        return future

    async def _flush(self) -> None:
        """Batches until no text waits. Each batch runs as its own task, so that with several
        pool threads the next batch can start beside it."""
        try:
            while self._pending:
                if len(self._pending) < self.max_batch and self.wait_s > 0:
                    with suppress(TimeoutError):
                        await asyncio.wait_for(self._full.wait(), self.wait_s)
                await self.pool.acquire(QUERY)
                keys = self._take()
                # Started here, on the slot just taken: a batch task cancelled before it first
                # runs would otherwise keep the slot forever.
                encoding = self.pool.start(QUERY, partial(self.encode, [text for *_, text in keys]))
                batch = asyncio.create_task(self._run(keys, encoding), name="query-batch")
                self._batches.add(batch)
                batch.add_done_callback(self._batches.discard)
        finally:
            self._abandon()  # texts left only when the loop is shutting down

    def _take(self) -> list[Key]:
        keys = [self._pending.popleft() for _ in range(min(self.max_batch, len(self._pending)))]
        if len(self._pending) < self.max_batch:
            self._full.clear()
        self.counts.batches_total += 1
        self.counts.texts_total += len(keys)
        return keys

    async def _run(self, keys: list[Key], encoding: asyncio.Future[list[list[float]]]) -> None:
        """Answers every caller of the batch once its model call (on `_flush`'s slot) ends."""
        try:
            vectors = await encoding
            answers = list(zip(keys, vectors, strict=True))
        except asyncio.CancelledError:
            self._fail(keys, None)
            raise
        except Exception as error:  # noqa: BLE001 - every caller of the batch gets it
            self._fail(keys, error)
            return
        for key, vector in answers:
            self.cache.put(key, vector)
            future = self._inflight.pop(key, None)
            if future is not None and not future.done():
                future.set_result(vector)

    def _fail(self, keys: list[Key], error: Exception | None) -> None:
        """Every caller of `keys` gets `error`; None: they are cancelled."""
        for key in keys:
            future = self._inflight.pop(key, None)
            if future is None or future.done():
                continue
            if error is None:
                future.cancel()
            else:
                future.set_exception(error)

    def _abandon(self) -> None:
        self._fail(list(self._pending), None)
        self._pending.clear()
