"""Sessions, opened only here: a `Tx` to run queries in, one managed write transaction run with
the driver's retries while what depends on its outcome is settled (app/graph/commit_scope.py),
and one read query retried as a managed read would be (`read_query`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    AsyncDriver,
    AsyncManagedTransaction,
    AsyncNeo4jDriver,
)
from neo4j.api import AsyncBookmarkManager
from neo4j.exceptions import DriverError, Neo4jError

from app.graph import change_feed
from app.graph.change_feed import (
    APPEND_CHANGES,
    PendingChanges,
    collecting,
    committed,
    feed_parameters,
)
from app.graph.commit_scope import OpenTransaction, opened
from app.graph.round_trips import cypher_call
from app.graph.values import exported

T = TypeVar("T")
# How long a read is tried again after retryable errors (the driver's own default for managed
# transactions); in a request, its deadline ends it sooner.
READ_RETRY_S = 30.0
Record = dict[str, Any]


class Tx:
    """A write transaction: every `run` is one round trip inside the same transaction.
    `pending`: the changes the transaction notes for the feed, and whether it wrote."""

    def __init__(self, tx: AsyncManagedTransaction, pending: PendingChanges) -> None:
        self._tx = tx
        self.pending = pending

    async def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        with cypher_call(query):
            result = await self._tx.run(query, dict(params or {}))
            records = [exported(record) for record in await result.fetch(1_000_000)]
            if change_feed.STRICT and not self.pending.wrote:  # the check needs to know
                self.pending.wrote = (await result.consume()).counters.contains_updates
            return records


async def write_transaction(
    driver: AsyncDriver,
    database: str,
    work: Callable[[Tx], Awaitable[T]],
    bounded: Callable[[Awaitable[T]], Awaitable[T]],
) -> T:
    """`work` in one write transaction (retried by the driver), the whole within `bounded`. What
    blocks inside hand over to undo is undone when it certainly did not commit (each retried
    attempt included), or marked unresolved when the commit's fate is unknown."""
    transaction, pending = OpenTransaction(), PendingChanges()
    positions: dict[str, int] = {}

    async def unit(tx: AsyncManagedTransaction) -> T:
        await transaction.next_attempt()
        pending.clear()
        positions.clear()
        wrapped = Tx(tx, pending)
        result = await work(wrapped)
        feeds = feed_parameters(pending)
        if feeds is not None:
            rows = await wrapped.run(APPEND_CHANGES, feeds)
            positions.update((row["client_id"], row["position"]) for row in rows)
        transaction.committing = True
        return result

    with opened(transaction), collecting(pending):
        try:
            result = await bounded(_managed_write(driver, database, unit))
        except BaseException as error:
            await transaction.failed(error)
            raise
    transaction.committed()
    if positions:
        committed(positions)
    return result


async def _managed_write(
    driver: AsyncDriver, database: str, unit: Callable[[AsyncManagedTransaction], Awaitable[T]]
) -> T:
    """`unit` in a managed write transaction: on a `neo4j://` cluster it goes to the leader, and
    the driver runs `unit` again after a transient error or a lost connection (never after a
    commit whose outcome is unknown)."""
    async with driver.session(database=database, bookmark_manager=bookmarks(driver)) as session:
        with pipelined_begin(session):
            return await session.execute_write(unit)


async def read_query(
    driver: AsyncDriver,
    database: str,
    query: str,
    params: dict[str, Any],
    convert: Callable[[Any], Record],
    *,
    leader: bool = False,
) -> list[Record]:
    """One read query, run again after an error the driver calls retryable (a transient server
    state, a lost or stale connection), as a managed read transaction would be. An auto-commit
    run: a read transaction's COMMIT is one round trip more per read (1.37x a read by id,
    measured; on a remote cluster a network round trip) and changes nothing for one query.
    Routed to a reader on a `neo4j://` cluster, to the leader with `leader` (an answer that must
    include every write committed anywhere, e.g. an API key's revocation)."""
    mode = WRITE_ACCESS if leader else READ_ACCESS
    started, attempt = time.monotonic(), 0
    while True:
        try:
            async with driver.session(
                database=database, default_access_mode=mode, bookmark_manager=bookmarks(driver)
            ) as session:
                result = await session.run(query, params)
                return [convert(record) for record in await result.fetch(1_000_000)]
        except (Neo4jError, DriverError) as error:
            if not error.is_retryable() or time.monotonic() - started > READ_RETRY_S:
                raise
        # At once the first time (the pool's connections to a restarted server are dropped
        # now), then backing off as the driver's own retries do.
        await asyncio.sleep(0 if attempt == 0 else min(1.0, 0.05 * 2**attempt))
        attempt += 1


def bookmarks(driver: AsyncDriver) -> AsyncBookmarkManager | None:
    """A routing driver's sessions share this process's bookmarks, as `execute_query`'s do: a
    read waits until the member answering it has this process's earlier writes (a record just
    created reads back). One server (`bolt://`) has nothing to wait for, and bookmarks cost
    about 0.2 ms a call."""
    return driver.execute_query_bookmark_manager if isinstance(driver, AsyncNeo4jDriver) else None


def pipelined_begin(session: Any) -> AbstractContextManager[Any]:
    """Within it, the session's transaction sends BEGIN with its first query, as the driver's
    own execute_query does: a round trip less per transaction. Not public API (a session
    attribute of the pinned driver; tests/unit/test_driver_internals.py): without it, BEGIN goes
    alone."""
    flag = getattr(session, "_pipelined_begin", None)
    return flag if isinstance(flag, AbstractContextManager) else nullcontext()
