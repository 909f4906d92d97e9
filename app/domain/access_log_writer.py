"""The access log's writer: an in-process buffer written to the graph in UNWIND batches by a
background task (see app/domain/access_log.py).

No entry is silently lost. Entries are made safe to encode when submitted, so one bad entry
cannot fail a batch; a batch the graph still refuses for its data is split until the bad entry
is alone, which is rejected (counted, logged) while the rest are written; a batch that fails on
an outage goes back to the front of the buffer and is retried with backoff until it is older
than `max_age_s` (then counted as failed and logged); a full buffer refuses new entries,
counted and logged.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from app.domain.errors import Unavailable
from app.graph.executor import GraphExecutor

log = logging.getLogger("app.access_log")

WRITE_ENTRIES = """
UNWIND $entries AS entry
CREATE (e:AccessLogEntry)
SET e = entry
"""
# Identifiers and details are short; a hostile request's megabyte of input is not kept whole.
MAX_TEXT = 1_000
BACKOFF_MAX_S = 5.0


def safe_text(value: str) -> str:
    """The text, cut to MAX_TEXT, with what UTF-8 cannot encode (lone surrogates) replaced."""
    value = value[:MAX_TEXT]
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


def safe_entry(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: safe_text(v) if isinstance(v, str) else v for k, v in entry.items()}


@dataclass
class WriterStats:
    written: int = 0
    retried: int = 0  # writes that failed on an outage and were kept to try again
    failed: int = 0  # entries given up after max_age_s of outage
    rejected: int = 0  # entries the graph refused for their data, each alone
    dropped: int = 0  # entries refused because the buffer was full
    flushes: int = 0
    last_flush_ms: float = 0.0
    last_batch: int = 0


@dataclass
class AccessLogWriter:
    graph: GraphExecutor
    batch: int = 500
    flush_ms: int = 200
    queue_max: int = 50_000
    max_age_s: float = 900.0
    stats: WriterStats = field(default_factory=WriterStats)
    # (monotonic time submitted, entry), oldest first
    _buffer: list[tuple[float, dict[str, Any]]] = field(default_factory=list)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _outages: int = 0  # consecutive failed flushes, for the backoff
    _full: bool = False

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
        keeping what is unwritten for the next flush."""
        async with self._lock:
            self._give_up(time.monotonic() - self.max_age_s)
            written = 0
            while self._buffer:
                chunk = self._buffer[: self.batch]
                del self._buffer[: self.batch]
                started = time.perf_counter()
                try:
                    written += await self._write(chunk)
                except _Outage as outage:
                    self._buffer[:0] = outage.unwritten
                    self._outages += 1
                    self.stats.retried += 1
                    log.warning("access log: %d entries kept to retry (%s)", self.pending, outage)
                    break
                self._outages = 0
                self.stats.flushes += 1
                self.stats.last_flush_ms = round((time.perf_counter() - started) * 1000, 2)
                self.stats.last_batch = len(chunk)
            if self._full and len(self._buffer) < self.queue_max:
                self._full = False
                log.error("access log: buffer has room again; %d refused", self.stats.dropped)
            return written

    async def _write(self, chunk: list[tuple[float, dict[str, Any]]]) -> int:
        """Writes the chunk, halving a part the graph refuses for its data until the bad entry
        is alone; an outage raises with every entry not yet written."""
        parts, written = [chunk], 0
        while parts:
            part = parts.pop()
            try:
                await self.graph.write(WRITE_ENTRIES, {"entries": [entry for _, entry in part]})
            except Unavailable as error:
                unwritten = [item for rest in [part, *reversed(parts)] for item in rest]
                raise _Outage(error, unwritten) from error
            except Exception as error:  # noqa: BLE001 - a data error: isolate the bad entry
                if len(part) == 1:
                    self._reject(part[0][1], error)
                else:
                    middle = len(part) // 2
                    parts += [part[middle:], part[:middle]]
                continue
            written += len(part)
            self.stats.written += len(part)
        return written

    def _reject(self, entry: dict[str, Any], error: Exception) -> None:
        self.stats.rejected += 1
        log.error(
            "access log: entry %s (client %s, %s) rejected by the graph: %s",
            entry.get("id"),
            entry.get("client_id"),
            entry.get("operation"),
            error,
        )

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
        """Flush every flush_ms, or early when a full batch waits; until cancelled."""
        while True:
            if self._outages:  # a full batch waiting does not hurry a retry
                await asyncio.sleep(self.backoff_s())
            else:
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=self.backoff_s())
                except TimeoutError:
                    pass
            self._wake.clear()
            await self.flush()

    async def close(self) -> None:
        """The last flush (at shutdown): what still cannot be written is counted and logged."""
        await self.flush()
        self._give_up(cutoff=float("inf"))

    def totals(self) -> dict[str, int]:
        keep = ("written", "retried", "failed", "rejected", "dropped")
        return {"pending": self.pending} | {k: getattr(self.stats, k) for k in keep}

    def details(self) -> dict[str, Any]:
        return {"pending": self.pending, **self.stats.__dict__}


class _Outage(Exception):
    def __init__(self, cause: Unavailable, unwritten: list[tuple[float, dict[str, Any]]]) -> None:
        super().__init__(cause.message)
        self.unwritten = unwritten
