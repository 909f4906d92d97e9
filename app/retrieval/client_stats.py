"""Each client's record count and mean indexed length for BM25, cached a short while per process:
reading them costs one pass over the client's records (about 30 ms at 10k records), and they
change slowly; a figure up to TTL_S old only shifts that client's own scores a little."""

from __future__ import annotations

import time
from collections.abc import Callable

from app.graph.executor import GraphExecutor
from app.retrieval.bm25 import ClientStats

TTL_S = 30.0
MAX_CLIENTS = 10_000
# record_type IS NOT NULL lets the planner seek the (client_id, record_type) index.
STATS_QUERY = (
    "MATCH (n:Searchable) WHERE n.client_id = $client_id AND n.record_type IS NOT NULL "
    "RETURN count(n) AS docs, coalesce(avg(size(n.search_text)), 0.0) AS mean_length"
)


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
        self._entries: dict[str, tuple[float, ClientStats]] = {}

    async def get(self, graph: GraphExecutor, client_id: str) -> ClientStats:
        now = self._clock()
        cached = self._entries.get(client_id)
        if cached is not None and cached[0] > now:
            return cached[1]
        rows = await graph.read(STATS_QUERY, {"client_id": client_id})
        stats = ClientStats(int(rows[0]["docs"]), float(rows[0]["mean_length"]))
        self._remember(client_id, stats, now)
        return stats

    def _remember(self, client_id: str, stats: ClientStats, now: float) -> None:
        self._entries.pop(client_id, None)
        if len(self._entries) >= self._max_clients:
            self._entries = {c: e for c, e in self._entries.items() if e[0] > now}
        while len(self._entries) >= self._max_clients:
            del self._entries[next(iter(self._entries))]  # the oldest entry
        self._entries[client_id] = (now + self._ttl_s, stats)


# One per process, like the key cache: every search of a client reads the same figures.
CLIENT_STATS = ClientStatsCache()
