"""The access log's writer: an in-process buffer written to the graph in UNWIND batches by a
background task (see app/domain/memory/access_log.py).

No entry is silently lost. Entries are made safe to encode when submitted, so one bad entry
cannot fail a batch; a batch the graph still refuses for its data is split until the bad entry
is alone, which is rejected (counted, logged) while the rest are written
(app/domain/memory/access_log_batches.py); a batch that fails otherwise (an outage, a database
error: nothing one entry caused), or is interrupted (a cancellation), goes back to the front of
the buffer and is retried with backoff until it is older than `max_age_s` (then counted as
failed and logged); a full buffer refuses new entries, counted and logged. `close` (at
shutdown) lets the background task finish its flush, writes what is left within a bound, and
counts and logs what still could not be written.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from app.domain.kernel.errors import Unavailable
from app.domain.memory.access_log_batches import Batch, Item, WriterStats, safe_entry, write_batch
from app.graph.executor import GraphExecutor

log = logging.getLogger("app.access_log")
BACKOFF_MAX_S = 5.0
CLOSE_TIMEOUT_S = 10.0


@dataclass
class AccessLogWriter:
    graph: GraphExecutor
    batch: int = 500
    flush_ms: int = 200
    queue_max: int = 50_000
    max_age_s: float = 900.0
    close_timeout_s: float = CLOSE_TIMEOUT_S
    stats: WriterStats = field(default_factory=WriterStats)
    _buffer: list[Item] = field(default_factory=list)  # oldest first
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _outages: int = 0  # consecutive failed flushes, for the backoff
    _full: bool = False
    _closing: bool = False

    def submit(self, entry: dict[str, Any]) -> None:
        # Never blocks the request: beyond queue_max (the graph is down or far behind) entries
        # are refused rather than held without bound.
        if len(self._buffer) >= self.queue_max:
            self.stats.dropped += 1
            if not self._full:
                self._full = True
                log.error(
                    "access log: buffer full (%d entries); refusing new entries", self.queue_max
                )
            return
        self._buffer.append((time.monotonic(), safe_entry(entry)))
        if len(self._buffer) >= self.batch:
            self.request_flush()

    def request_flush(self) -> None:
        """Have the background task flush now rather than at the next interval."""
        self._wake.set()

    @property
    def pending(self) -> int:
        return len(self._buffer)

    async def flush(self) -> int:
        """Write everything buffered now; the number of entries written. Stops at an outage,
        keeping what is unwritten for the next flush; a cancellation keeps it too."""
        async with self._lock:
            self._give_up(time.monotonic() - self.max_age_s)
            written = 0
            while self._buffer:
                batch = Batch(self._buffer[: self.batch])
                size = len(batch.parts[0])
                del self._buffer[: self.batch]
                started = time.perf_counter()
                try:
                    written += await write_batch(self.graph, batch, self.stats)
                except BaseException as error:
                    self._buffer[:0] = batch.unwritten()
                    if not isinstance(error, Exception):
                        raise  # a cancellation: the entries are back in the buffer
                    self._kept_to_retry(error)
                    break
                self._outages = 0
                self.stats.flushes += 1
                self.stats.last_flush_ms = round((time.perf_counter() - started) * 1000, 2)
                self.stats.last_batch = size
            self._note_room()
            return written

    def _kept_to_retry(self, error: Exception) -> None:
        self._outages += 1
        self.stats.retried += 1
        level = logging.WARNING if isinstance(error, Unavailable) else logging.ERROR
        log.log(level, "access log: %d entries kept to retry (%r)", self.pending, error)

    def _note_room(self) -> None:
        if self._full and len(self._buffer) < self.queue_max:
            self._full = False
            log.error("access log: buffer has room again; %d refused", self.stats.dropped)

    def _give_up(self, cutoff: float) -> None:
        """Count and log as failed the entries submitted before `cutoff` (monotonic time): they
        waited through outages longer than max_age_s, or the writer is closing."""
        fresh = next((n for n, (at, _) in enumerate(self._buffer) if at >= cutoff), None)
        count = len(self._buffer) if fresh is None else fresh
        if count:
            ids = [entry.get("id") for _, entry in self._buffer[:count]]
            del self._buffer[:count]
            self.stats.failed += count
            log.error("access log: %d entries could not be written: %s", count, ids)

    def backoff_s(self) -> float:
        """How long to wait before the next flush: longer after each consecutive outage."""
        if not self._outages:
            return self.flush_ms / 1000
        return min(BACKOFF_MAX_S, self.flush_ms / 1000 * 2**self._outages)

    async def run(self) -> None:
        """Flush every flush_ms, or early when a full batch waits; until `close` (it returns
        after the flush under way) or cancelled."""
        while not self._closing:
            await self._pause()
            if self._closing:
                return
            await self.flush()

    async def _pause(self) -> None:
        """Until the backoff has passed, a full batch waits (not during an outage: that does not
        hurry a retry), or the writer is closing."""
        deadline = asyncio.get_running_loop().time() + self.backoff_s()
        while not self._closing:
            try:
                async with asyncio.timeout_at(deadline):
                    await self._wake.wait()
            except TimeoutError:
                return
            self._wake.clear()
            if not self._outages:
                return

    async def close(self, task: asyncio.Task[None] | None = None) -> None:
        """The last flush (at shutdown): `task` (the background `run`) finishes the flush under
        way, then what is left is written, all within close_timeout_s; what still cannot be
        written is counted and logged."""
        self._closing = True
        self._wake.set()
        try:
            async with asyncio.timeout(self.close_timeout_s):
                if task is not None:
                    await asyncio.wait({task})
                await self.flush()
        except TimeoutError:
            log.error("access log: the last flush did not end in %s s", self.close_timeout_s)
        if task is not None and not task.done():
            task.cancel()  # its flush puts the entries it was writing back in the buffer
            await asyncio.wait({task})
        self._give_up(cutoff=float("inf"))

    def totals(self) -> dict[str, int]:
        keep = ("written", "retried", "failed", "rejected", "dropped")
        return {"pending": self.pending} | {k: getattr(self.stats, k) for k in keep}

    def details(self) -> dict[str, Any]:
        return {"pending": self.pending, **self.stats.__dict__}
