"""The one way the service talks to Neo4j: parameterised queries, counted round trips."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

from neo4j import READ_ACCESS, WRITE_ACCESS, AsyncDriver, AsyncManagedTransaction

from app.graph.values import exported, exported_plain

T = TypeVar("T")
Record = dict[str, Any]


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
    """Wraps the async driver; values always travel as parameters, never in the query text."""

    def __init__(self, driver: AsyncDriver, *, database: str) -> None:
        self.driver = driver
        self.database = database

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
        async with self.driver.session(
            database=self.database, default_access_mode=access_mode
        ) as session:
            result = await session.run(query, dict(params or {}))
            return [convert(record) for record in await result.fetch(1_000_000)]

    async def in_transaction(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Run `work` in one write transaction: it commits if `work` returns, else rolls back."""

        async def _unit(tx: AsyncManagedTransaction) -> T:
            return await work(Tx(tx))

        async with self.driver.session(database=self.database) as session:
            return await session.execute_write(_unit)

    @asynccontextmanager
    async def session(self) -> AsyncIterator[Any]:
        async with self.driver.session(database=self.database) as session:
            yield session
