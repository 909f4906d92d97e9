"""The access log's writer: an in-process buffer written to the graph in UNWIND batches by a
background task (see app/domain/access_log.py)."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from app.graph.executor import GraphExecutor

log = logging.getLogger("app.access_log")

WRITE_ENTRIES = """
UNWIND $entries AS entry
CREATE (e:AccessLogEntry)
SET e = entry
"""


@dataclass
class WriterStats:
    written: int = 0
    dropped: int = 0
    failed: int = 0
    flushes: int = 0
    last_flush_ms: float = 0.0
    last_batch: int = 0


@dataclass
class AccessLogWriter:
    graph: GraphExecutor
    batch: int = 500
    flush_ms: int = 200
    queue_max: int = 50_000
    stats: WriterStats = field(default_factory=WriterStats)
    _buffer: list[dict[str, Any]] = field(default_factory=list)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def submit(self, entry: dict[str, Any]) -> None:
        # Never blocks the request: beyond queue_max (the graph is down or far behind) entries
        # are counted as dropped rather than held without bound.
        if len(self._buffer) >= self.queue_max:
            self.stats.dropped += 1
            return
        self._buffer.append(entry)
        if len(self._buffer) >= self.batch:
            self._wake.set()

    @property
    def pending(self) -> int:
        return len(self._buffer)

    async def flush(self) -> int:
        """Write everything buffered now; the number of entries written."""
        async with self._lock:
            written = 0
            while self._buffer:
                chunk, self._buffer = self._buffer[: self.batch], self._buffer[self.batch :]
                started = asyncio.get_running_loop().time()
                try:
                    await self.graph.write(WRITE_ENTRIES, {"entries": chunk})
                except Exception:  # noqa: BLE001 - the log must not take the service down
                    self.stats.failed += len(chunk)
                    log.exception("access log: %d entries could not be written", len(chunk))
                    continue
                elapsed = asyncio.get_running_loop().time() - started
                self.stats.flushes += 1
                self.stats.last_flush_ms = round(elapsed * 1000, 2)
                self.stats.last_batch = len(chunk)
                self.stats.written += len(chunk)
                written += len(chunk)
            return written

    async def run(self) -> None:
        """Flush every flush_ms, or early when a full batch waits; until cancelled."""
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=self.flush_ms / 1000)
            except TimeoutError:
                pass
            self._wake.clear()
            await self.flush()

    def details(self) -> dict[str, Any]:
        return {"pending": self.pending, **self.stats.__dict__}
