"""Each client's record count and mean indexed length for BM25, per set of record types
searched, cached per process: reading them costs one pass over those records (about 30 ms at
10k records, seconds at a million), and they change slowly; a figure a little old only shifts
that client's own scores a little.

One read at a time per entry (single flight). An expired entry is served as it is while one
refresh runs in the background, outside every request's deadline and bounded as background
work is (graph.background()): a client too large to count within a request's deadline still
gets answers. Only the first search of an entry waits for the figures, within its request's
deadline (past it: Unavailable, and the read goes on for the next search).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from app.graph.executor import GraphExecutor
from app.request_deadline import call_deadline
from app.retrieval.bm25 import ClientStats

log = logging.getLogger(__name__)
TTL_S = 30.0
# After a failed refresh, the old figures serve this long before the next try.
RETRY_S = 5.0
MAX_CLIENTS = 10_000
Key = tuple[str, tuple[str, ...]]


def stats_query(record_types: Sequence[str]) -> str:
    # A record_type condition lets the planner seek the (client_id, record_type) index.
    types = "n.record_type IN $record_types" if record_types else "n.record_type IS NOT NULL"
    return (
        f"MATCH (n:Searchable) WHERE n.client_id = $client_id AND {types} "
        "RETURN count(n) AS docs, coalesce(avg(size(n.search_text)), 0.0) AS mean_length"
    )


@dataclass
class _Entry:
    stats: ClientStats
    fresh_until: float


class ClientStatsCache:
    def __init__(
        self,
        *,
        ttl_s: float = TTL_S,
        max_clients: int = MAX_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ttl_s = ttl_s
        self._max_clients = max_clients
        self._clock = clock
        self._entries: dict[Key, _Entry] = {}
        self._reads: dict[Key, asyncio.Task[ClientStats]] = {}

    async def get(
        self, graph: GraphExecutor, client_id: str, record_types: Sequence[str] = ()
    ) -> ClientStats:
        key = (client_id, tuple(sorted(record_types)))
        entry = self._entries.get(key)
        if entry is None:
            return await self._first_read(graph, key)
        if entry.fresh_until <= self._clock():
            self._read(graph, key)
        return entry.stats

    async def _first_read(self, graph: GraphExecutor, key: Key) -> ClientStats:
        read = self._read(graph, key)
        try:
            async with asyncio.timeout_at(call_deadline(graph.timeout_s)):
                return await asyncio.shield(read)  # a waiter that gives up leaves it running
        except TimeoutError as error:
            raise graph.unavailable(error) from error

    def _read(self, graph: GraphExecutor, key: Key) -> asyncio.Task[ClientStats]:
        """The entry's read in progress, or a new one."""
        loop = asyncio.get_running_loop()
        running = self._reads.get(key)
        if running is not None and running.get_loop() is loop:
            return running
        # An empty context: the read belongs to no request, so no request's deadline ends it.
        work = self._fetch(graph.background(), key)
        task = loop.create_task(work, context=contextvars.Context())
        self._reads[key] = task
        task.add_done_callback(partial(self._settled, key))
        return task

    async def _fetch(self, graph: GraphExecutor, key: Key) -> ClientStats:
        client_id, record_types = key
        params = {"client_id": client_id, "record_types": list(record_types)}
        rows = await graph.read(stats_query(record_types), params)
        stats = ClientStats(int(rows[0]["docs"]), float(rows[0]["mean_length"]))
        self._remember(key, stats)
        return stats

    def _settled(self, key: Key, task: asyncio.Task[ClientStats]) -> None:
        if self._reads.get(key) is task:
            del self._reads[key]
        error = None if task.cancelled() else task.exception()
        entry = self._entries.get(key)
        if error is not None and entry is not None:
            log.warning("refreshing search statistics of client %s failed: %r", key[0], error)
            entry.fresh_until = self._clock() + RETRY_S

    def _remember(self, key: Key, stats: ClientStats) -> None:
        now = self._clock()
        self._entries.pop(key, None)
        if len(self._entries) >= self._max_clients:
            self._entries = {k: e for k, e in self._entries.items() if e.fresh_until > now}
        while len(self._entries) >= self._max_clients:
            del self._entries[next(iter(self._entries))]  # the oldest entry
        self._entries[key] = _Entry(stats, now + self._ttl_s)


# One per process, like the key cache: every search of a client reads the same figures.
CLIENT_STATS = ClientStatsCache()
