"""The one way the service talks to Neo4j: parameterised queries, counted round trips, each
call bounded in time (and by the request's deadline, app/request_deadline.py), and a server
that is gone answered as `Unavailable`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from neo4j import AsyncDriver

from app.domain.kernel.errors import Unavailable, retry_hint
from app.graph.change_feed import ChangedBy, note_all
from app.graph.outages import CONNECTIVITY_ERRORS, driver_timeouts, graph_unavailable
from app.graph.round_trips import RoundTrips, cypher_call, start_counting
from app.graph.transactions import Record, Tx, read_query, write_transaction
from app.graph.values import exported, exported_plain
from app.request_deadline import call_deadline

__all__ = [
    "BACKGROUND_TIMEOUT_S",
    "GraphExecutor",
    "Record",
    "RoundTrips",
    "Tx",
    "driver_timeouts",
    "start_counting",
]

T = TypeVar("T")
# Background jobs (sweeper, access log, purges, embedding) wait this long per call: their work
# may be heavy, and nobody waits for an answer; a server that never answers still ends them.
BACKGROUND_TIMEOUT_S = 120.0


class GraphExecutor:
    """Wraps the async driver; values always travel as parameters, never in the query text.

    With `timeout_s`, every call (a query, or a whole transaction with its retries) that takes
    longer raises `Unavailable`: the driver has no read timeout of its own, so a server that
    stopped answering (not refusing) would otherwise hold the request indefinitely. Inside a
    request the request's deadline also applies. Without either (migrations, one-shot tools)
    calls take as long as they take. `retry_after_s`: the hint an outage answer carries.
    """

    def __init__(
        self,
        driver: AsyncDriver,
        *,
        database: str,
        timeout_s: float | None = None,
        retry_after_s: int | None = None,
    ) -> None:
        self.driver = driver
        self.database = database
        self.timeout_s = timeout_s
        self.retry_after_s = retry_after_s or retry_hint(timeout_s)

    def unbounded(self) -> GraphExecutor:
        """The same driver without the per-call bound (for migrations at start-up)."""
        return GraphExecutor(self.driver, database=self.database, retry_after_s=self.retry_after_s)

    def background(self) -> GraphExecutor:
        """The same driver with the long bound of background jobs (BACKGROUND_TIMEOUT_S)."""
        return GraphExecutor(
            self.driver,
            database=self.database,
            timeout_s=BACKGROUND_TIMEOUT_S,
            retry_after_s=self.retry_after_s,
        )

    async def read(self, query: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return await self._read(query, params, exported)

    async def read_plain(self, query: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        """`read` with every value made plain (app.graph.values.plain) in the same pass."""
        return await self._read(query, params, exported_plain)

    async def read_latest(
        self, query: str, params: Mapping[str, Any] | None = None
    ) -> list[Record]:
        """`read` answered by the cluster's leader: it sees every committed write, whichever
        process made it (one server: the same as `read`)."""
        return await self._read(query, params, exported, leader=True)

    async def write(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        changed: ChangedBy | None = None,
    ) -> list[Record]:
        """One query in a write transaction of its own (`in_transaction`'s: retried by the
        driver, settled); `changed`: what it changes, for the change feed (app/graph/
        change_feed.py), fixed or made from the query's rows."""

        async def work(tx: Tx) -> list[Record]:
            rows = await tx.run(query, params)
            note_all(changed, rows)
            return rows

        return await self.in_transaction(work)

    async def _read(
        self,
        query: str,
        params: Mapping[str, Any] | None,
        convert: Callable[[Any], Record],
        *,
        leader: bool = False,
    ) -> list[Record]:
        call = read_query(
            self.driver, self.database, query, dict(params or {}), convert, leader=leader
        )
        with cypher_call(query):
            return await self._bounded(call)

    async def in_transaction(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Run `work` in one write transaction: it commits if `work` returns, else rolls back
        (and what blocks inside staged is settled: app/graph/transactions.py)."""
        return await write_transaction(self.driver, self.database, work, self._bounded)

    async def _bounded(self, call: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout_at(call_deadline(self.timeout_s)):
                return await call
        except CONNECTIVITY_ERRORS as error:
            raise self.unavailable(error) from error

    def unavailable(self, error: BaseException) -> Unavailable:
        return graph_unavailable(error, self.retry_after_s)
