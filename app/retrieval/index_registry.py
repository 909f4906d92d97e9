"""The memory indexes as one process sees them: read from the graph at most once per
Settings.embedding_index_refresh_s (a search pays a dictionary lookup), and read again at once
when the embedding worker finds the graph ahead of it."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from app.graph.executor import GraphExecutor
from app.model.enums import MemoryIndexStatus
from app.retrieval.memory_index import DEPLOYMENT, READ_ALL, index_of
from app.retrieval.vector_index import VectorIndex

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Entry:
    scope: str
    index: VectorIndex
    status: MemoryIndexStatus
    activated_at: Any = None


class RegistryView:
    """Which index a client's search uses and which its records are embedded for."""

    def __init__(self, entries: list[Entry], *, default: VectorIndex) -> None:
        self.default = default
        self._scopes: dict[str, list[Entry]] = defaultdict(list)
        for entry in entries:
            self._scopes[entry.scope].append(entry)

    def entries(self) -> list[Entry]:
        return [entry for entries in self._scopes.values() for entry in entries]

    def _entries(self, client_id: str) -> list[Entry]:
        return self._scopes.get(client_id, []) + self._scopes.get(DEPLOYMENT, [])

    def active(self, client_id: str) -> VectorIndex:
        """The client's own active index, else the deployment's (the last activated of any
        two), else the configured model's (a database not registered yet)."""
        for scope in (client_id, DEPLOYMENT):
            actives = [e for e in self._scopes.get(scope, []) if e.status == "active"]
            if actives:
                return max(actives, key=lambda e: str(e.activated_at or "")).index
        return self.default

    def live(self, client_id: str) -> list[VectorIndex]:
        """The active index first, then every other index not retired of the client's scopes
        (each model once): what a changed record of the client is embedded for."""
        found = [self.active(client_id)]
        for entry in self._entries(client_id):
            if entry.status != "retired" and entry.index.property not in {
                i.property for i in found
            }:
                found.append(entry.index)
        return found

    def hidden(self, client_id: str) -> tuple[str, ...]:
        """The vector properties a record of the client may carry besides `embedding` (which
        every record projection already leaves out)."""
        names = {e.index.property for e in self._entries(client_id)}
        names.add(self.active(client_id).property)
        return tuple(sorted(name for name in names if name != "embedding"))


class IndexRegistry:
    def __init__(self, graph: GraphExecutor, *, default: VectorIndex, refresh_s: float) -> None:
        self.graph, self.default, self.refresh_s = graph, default, refresh_s
        self._view: RegistryView | None = None
        self._read_at = -float("inf")
        self._lock: asyncio.Lock | None = None

    async def view(self) -> RegistryView:
        if self._view is not None and time.monotonic() - self._read_at < self.refresh_s:
            return self._view
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:  # one read for every caller that found the view old
            if self._view is None or time.monotonic() - self._read_at >= self.refresh_s:
                await self._refresh()
        assert self._view is not None
        return self._view

    async def _refresh(self) -> None:
        try:
            rows = await self.graph.read(READ_ALL)
        except Exception:
            if self._view is None:
                raise
            log.warning("memory indexes not re-read; keeping the last view", exc_info=True)
            return
        entries = [
            Entry(str(r["scope"]), index_of(r), MemoryIndexStatus(r["status"]), r["activated_at"])
            for r in rows
        ]
        self._view, self._read_at = RegistryView(entries, default=self.default), time.monotonic()

    def invalidate(self) -> None:
        """The next view is read from the graph."""
        self._read_at = -float("inf")
