"""Waiting for a client's change feed to move past a position, in one process.

Subscribers of one process share one poll: every POLL interval, while anyone waits, one query
reads the feed position of each client waited on (the feed in Neo4j is the source, so writes of
every API process are seen). A commit of this process wakes its waiters at once
(change_feed.on_commit). A wait also ends after `timeout_s`, so a subscriber re-reads now and then
whatever happened (a missed wake-up costs latency, never a change).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter

from app.graph.change_feed import on_commit, remove_listener
from app.graph.executor import GraphExecutor

log = logging.getLogger("app")
POSITIONS = """
MATCH (f:ChangeFeed) WHERE f.client_id IN $clients
RETURN f.client_id AS client_id, f.position AS position
"""


class FeedWatcher:
    def __init__(self, graph: GraphExecutor, *, poll_s: float) -> None:
        self.graph = graph
        self.poll_s = poll_s
        self.known: dict[str, int] = {}
        self._events: dict[str, asyncio.Event] = {}
        self._waiting: Counter[str] = Counter()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._poller: asyncio.Task[None] | None = None
        on_commit(self._committed)

    async def wait_past(self, client_id: str, position: int, *, timeout_s: float) -> None:
        """Returns once the client's feed is known to be past `position`, or after timeout_s."""
        self._start()
        self._waiting[client_id] += 1
        try:
            async with asyncio.timeout(timeout_s):
                while self.known.get(client_id, -1) <= position:
                    await self._events.setdefault(client_id, asyncio.Event()).wait()
        except TimeoutError:
            return
        finally:
            self._waiting[client_id] -= 1
            if not self._waiting[client_id]:
                del self._waiting[client_id]

    def advanced(self, positions: dict[str, int]) -> None:
        for client_id, position in positions.items():
            if position > self.known.get(client_id, -1):
                self.known[client_id] = position
                event = self._events.pop(client_id, None)
                if event is not None:
                    event.set()

    def _committed(self, positions: dict[str, int]) -> None:
        """A commit in this process (perhaps on another thread's loop: the test servers')."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.advanced, dict(positions))

    def _start(self) -> None:
        if self._poller is None or self._poller.done():
            self._loop = asyncio.get_running_loop()
            self._poller = asyncio.create_task(self._poll_forever(), name="change-feed-poll")

    async def _poll_forever(self) -> None:
        while True:
            clients = sorted(self._waiting)
            if clients:
                try:
                    rows = await self.graph.read_latest(POSITIONS, {"clients": clients})
                    self.advanced({row["client_id"]: int(row["position"]) for row in rows})
                except Exception as error:  # noqa: BLE001 - the next poll retries; waits time out
                    log.warning("change feed poll failed: %s", error)
            await asyncio.sleep(self.poll_s)

    async def close(self) -> None:
        remove_listener(self._committed)
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError, RuntimeError):
                await self._poller
