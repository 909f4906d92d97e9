"""The one way the service talks to Neo4j: parameterised queries, counted round trips, each
call bounded in time, and a server that is gone answered as `Unavailable`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypedDict, TypeVar

from neo4j import READ_ACCESS, WRITE_ACCESS, AsyncDriver, AsyncManagedTransaction
from neo4j.exceptions import ConnectionPoolError, ServiceUnavailable, SessionExpired, TransientError

from app.domain.errors import Unavailable, retry_hint
from app.graph.values import exported, exported_plain

T = TypeVar("T")
Record = dict[str, Any]
# A server that refuses, drops or never answers, a pool with no connection to give, or a
# transient server state (starting, deadlocks) that outlived the driver's retries. TimeoutError
# (an OSError) is also what the call's own bound raises.
CONNECTIVITY_ERRORS = (
    ServiceUnavailable,
    SessionExpired,
    ConnectionPoolError,
    TransientError,
    OSError,
)


class DriverTimeouts(TypedDict):
    connection_timeout: float
    connection_acquisition_timeout: float
    max_transaction_retry_time: float


def driver_timeouts(timeout_s: float) -> DriverTimeouts:
    """The driver settings that bound connecting, waiting for a pooled connection and retrying
    a transaction (defaults: 30 s, 60 s, 30 s)."""
    return DriverTimeouts(
        connection_timeout=timeout_s,
        connection_acquisition_timeout=timeout_s,
        max_transaction_retry_time=timeout_s,
    )


@dataclass
class RoundTrips:
    """Cypher round trips made while answering one request."""

    count: int = 0
    queries: list[str] = field(default_factory=list)

    def add(self, query: str) -> None:
        self.count += 1
        self.queries.append(query.strip().splitlines()[0][:80] if query.strip() else "")


_round_trips: ContextVar[RoundTrips | None] = ContextVar("round_trips", default=None)


def start_counting() -> RoundTrips:
    """Begin a fresh round-trip count for the current request (task-local)."""
    counter = RoundTrips()
    _round_trips.set(counter)
    return counter


def _count(query: str) -> None:
    counter = _round_trips.get()
    if counter is not None:
        counter.add(query)


class Tx:
    """A write transaction: every `run` is one round trip inside the same transaction."""

    def __init__(self, tx: AsyncManagedTransaction) -> None:
        self._tx = tx

    async def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        _count(query)
        result = await self._tx.run(query, dict(params or {}))
        return [exported(record) for record in await result.fetch(1_000_000)]


class GraphExecutor:
    """Wraps the async driver; values always travel as parameters, never in the query text.

    With `timeout_s`, every call (a query, or a whole transaction with its retries) that takes
    longer raises `Unavailable`: the driver has no read timeout of its own, so a server that
    stopped answering (not refusing) would otherwise hold the request indefinitely. Without it
    (migrations, one-shot tools) calls take as long as they take.
    """

    def __init__(
        self, driver: AsyncDriver, *, database: str, timeout_s: float | None = None
    ) -> None:
        self.driver = driver
        self.database = database
        self.timeout_s = timeout_s

    def unbounded(self) -> GraphExecutor:
        """The same driver without the per-call bound (for migrations at start-up)."""
        return GraphExecutor(self.driver, database=self.database)

    async def read(self, query: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return await self._auto_commit(query, params, READ_ACCESS)

    async def read_plain(self, query: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        """`read` with every value made plain (app.graph.values.plain) in the same pass."""
        return await self._auto_commit(query, params, READ_ACCESS, convert=exported_plain)

    async def write(self, query: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        return await self._auto_commit(query, params, WRITE_ACCESS)

    async def _auto_commit(
        self,
        query: str,
        params: Mapping[str, Any] | None,
        access_mode: str,
        convert: Callable[[Any], Record] = exported,
    ) -> list[Record]:
        # A plain session run is measurably cheaper per call than driver.execute_query.
        _count(query)

        async def once() -> list[Record]:
            async with self.driver.session(
                database=self.database, default_access_mode=access_mode
            ) as session:
                result = await session.run(query, dict(params or {}))
                return [convert(record) for record in await result.fetch(1_000_000)]

        async def call() -> list[Record]:
            try:
                return await once()
            except (ServiceUnavailable, SessionExpired):
                if access_mode != READ_ACCESS:
                    raise  # a write may have committed: the caller must decide
                # The pool may have handed out a connection the server closed (it restarted);
                # the driver has dropped them now, and a read is safe to send again.
                return await once()

        return await self._bounded(call())

    async def in_transaction(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Run `work` in one write transaction: it commits if `work` returns, else rolls back."""

        async def _unit(tx: AsyncManagedTransaction) -> T:
            return await work(Tx(tx))

        async def call() -> T:
            async with self.driver.session(database=self.database) as session:
                return await session.execute_write(_unit)

        return await self._bounded(call())

    async def _bounded(self, call: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout(self.timeout_s):
                return await call
        except CONNECTIVITY_ERRORS as error:
            raise self.unavailable(error) from error

    def unavailable(self, error: BaseException) -> Unavailable:
        retry_after = retry_hint(self.timeout_s)
        return Unavailable(
            f"the graph database is unavailable ({type(error).__name__}); retry in {retry_after} s",
            retry_after_s=retry_after,
        )

    @asynccontextmanager
    async def session(self) -> AsyncIterator[Any]:
        async with self.driver.session(database=self.database) as session:
            yield session
