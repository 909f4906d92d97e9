"""The embedding worker: indexes changed searchable records in batches, off the request path.

Each cycle runs two passes per label: a fresh pass (newest first, recent window) so that new
writes become searchable within about a second even behind a backlog, and a backlog pass
(oldest first from a persisted cursor) that drains older records and measures the lag. Any
number of workers share the graph: each claims what it embeds (claims.py), and a few times per
claim term looks for claims that ran out (their worker died), which no cursor goes back for.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from datetime import UTC, datetime, timedelta

from app.graph.executor import GraphExecutor
from app.graph.leases import new_holder
from app.retrieval.claims import Claimant
from app.retrieval.embedder import Embedder
from app.retrieval.indexing import PassResult, TextLoader, expired_claims_pass, index_pass
from app.retrieval.searchable import SEARCHABLE, SearchableSpec
from app.retrieval.worker_status import WorkerStatus

log = logging.getLogger(__name__)

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Writes commit a little after their updated_at; rescanning this much behind the cursor keeps
# transactions shorter than it from being missed.
SAFETY = timedelta(seconds=60)
FRESH_WINDOW = timedelta(minutes=2)
# How often a cursor that only followed the clock (no records) is written to the database.
CURSOR_PERSIST_S = 60.0
# How often expired claims are looked for, as a part of the claim term.
EXPIRED_CHECKS_PER_CLAIM = 4
READ_CURSORS = "MATCH (c:EmbeddingCursor) RETURN c.label AS label, c.since AS since"
# Several workers may run (API processes, embed-worker): a cursor only ever moves forward.
SAVE_CURSOR = (
    "MERGE (c:EmbeddingCursor {label: $label}) "
    "SET c.since = CASE WHEN c.since IS NULL OR c.since < $since THEN $since ELSE c.since END"
)
RESET_CURSORS = "MATCH (c:EmbeddingCursor) DELETE c"


class EmbeddingWorker:
    def __init__(
        self,
        graph: GraphExecutor,
        embedder: Embedder,
        *,
        batch: int,
        poll_s: float,
        claim_s: float,
        load_text: TextLoader | None = None,
    ) -> None:
        self.graph, self.embedder, self.load_text = graph, embedder, load_text
        self.batch, self.poll_s = batch, poll_s
        self.claimant = Claimant(holder=new_holder(), claim_s=claim_s)
        self._expired_checked_at = -math.inf  # the first cycle looks
        self.backlog_batch = max(1, min(batch, 32))
        self._fresh_since: dict[str, datetime] = {}
        self.status = WorkerStatus()
        self._cursors: dict[str, datetime] = {}
        self._persisted_at: dict[str, float] = {}
        self._task: asyncio.Task[None] | None = None

    async def load_cursors(self) -> None:
        rows = await self.graph.read_plain(READ_CURSORS)
        self._cursors = {row["label"]: row["since"] for row in rows}

    async def run_cycle(self) -> bool:
        """Fresh records of every label, then a small backlog batch per label with the fresh
        passes repeated in between, so new writes never wait behind a backlog.
        True when a batch was full (more is waiting)."""
        more, oldest = await self._fresh_passes(), None
        more = await self._expired_claims() or more
        for label, spec in SEARCHABLE.items():
            cursor = self._cursors.get(label, EPOCH)
            started = datetime.now(UTC)
            backlog = await self._pass(spec, self.backlog_batch, since=cursor - SAFETY)
            full = backlog.seen >= self.backlog_batch
            if full and backlog.oldest is not None:
                oldest = min(oldest or backlog.oldest, backlog.oldest)
            # Records dated ahead of the clock must not drag the cursor past today's writes.
            new_cursor = started - SAFETY
            if full and backlog.newest is not None:
                new_cursor = min(backlog.newest, new_cursor)
            moved = max(cursor, new_cursor)
            await self._save_cursor(label, moved, moved_by_records=backlog.seen > 0)
            if backlog.seen:  # an idle backlog pass took no time: no need to look again
                more = await self._fresh_passes() or more
            more = more or full
        self.status.oldest_pending = oldest
        return more

    async def _fresh_passes(self) -> bool:
        """Newest first, down to the point since which everything was indexed: writes made
        while this worker runs (however long a bulk ingest takes) never queue behind the
        backlog of older records."""
        more = False
        for label, spec in SEARCHABLE.items():
            default = (self.status.started_at or datetime.now(UTC)) - FRESH_WINDOW
            since = self._fresh_since.get(label, default)
            started = datetime.now(UTC)
            fresh = await self._pass(spec, self.batch, since=since, newest_first=True)
            if fresh.seen >= self.batch:
                more = True
            else:
                self._fresh_since[label] = max(since, started - SAFETY)
        return more

    async def _expired_claims(self) -> bool:
        """Records whose claim ran out, of every label, a few times per claim term."""
        now = time.monotonic()
        if now - self._expired_checked_at < self.claimant.claim_s / EXPIRED_CHECKS_PER_CLAIM:
            return False
        more = False
        for spec in SEARCHABLE.values():
            result = await expired_claims_pass(
                self.graph,
                self.embedder,
                spec=spec,
                batch=self.backlog_batch,
                claimant=self.claimant,
                load_text=self.load_text,
            )
            more = self._count(result) >= self.backlog_batch or more
        if not more:  # else the next cycle goes on with them
            self._expired_checked_at = now
        return more

    async def _pass(
        self, spec: SearchableSpec, batch: int, *, since: datetime, newest_first: bool = False
    ) -> PassResult:
        """One indexing pass over `spec`'s label, counted in the status."""
        result = await index_pass(
            self.graph,
            self.embedder,
            load_text=self.load_text,
            spec=spec,
            batch=batch,
            newest_first=newest_first,
            since=since,
            claimant=self.claimant,
        )
        self._count(result)
        return result

    def _count(self, result: PassResult) -> int:
        """Counts a pass in the status; the records it saw."""
        self.status.indexed_total += result.embedded
        self.status.failed_total += result.failed
        return result.seen

    async def _save_cursor(self, label: str, since: datetime, *, moved_by_records: bool) -> None:
        """An idle pass moves the cursor with the clock; persisting that on every cycle would be
        a write per label twice a second. A cursor persisted late only makes a restarted worker
        rescan a little (scans return pending records only)."""
        if self._cursors.get(label) == since:
            return
        self._cursors[label] = since
        now = time.monotonic()
        if moved_by_records or now - self._persisted_at.get(label, 0.0) >= CURSOR_PERSIST_S:
            self._persisted_at[label] = now
            await self.graph.write(SAVE_CURSOR, {"label": label, "since": since})

    async def run_forever(self) -> None:
        self.status.running, self.status.started_at = True, datetime.now(UTC)
        await self.load_cursors()
        while True:
            try:
                more = await self.run_cycle()
                self.status.last_error = None
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the worker outlives a bad cycle; the status shows it
                log.exception("embedding cycle failed")
                self.status.last_error = f"{type(error).__name__}: {error}"[:500]
                more = False
            if not more:
                await asyncio.sleep(self.poll_s)

    def start(self) -> None:
        self._task = asyncio.create_task(self.run_forever(), name="embedding-worker")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        self.status.running = False


async def reset_cursors(graph: GraphExecutor) -> None:
    """Makes the next cycles rescan everything (re-embedding after a model change)."""
    await graph.write(RESET_CURSORS)
