"""Write transactions: a `Tx` to run queries in, and one transaction run with the driver's
retries while what depends on its outcome is settled (app/graph/commit_scope.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any, TypeVar

from neo4j import AsyncDriver, AsyncManagedTransaction

from app.graph.commit_scope import OpenTransaction, opened
from app.graph.round_trips import count_query
from app.graph.values import exported

T = TypeVar("T")
Record = dict[str, Any]


class Tx:
    """A write transaction: every `run` is one round trip inside the same transaction."""

    def __init__(self, tx: AsyncManagedTransaction) -> None:
        self._tx = tx

    async def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        count_query(query)
        result = await self._tx.run(query, dict(params or {}))
        return [exported(record) for record in await result.fetch(1_000_000)]


async def write_transaction(
    driver: AsyncDriver,
    database: str,
    work: Callable[[Tx], Awaitable[T]],
    bounded: Callable[[Awaitable[T]], Awaitable[T]],
) -> T:
    """`work` in one write transaction (retried by the driver), the whole within `bounded`. What
    blocks inside hand over to undo is undone when it certainly did not commit (each retried
    attempt included), or marked unresolved when the commit's fate is unknown."""
    transaction = OpenTransaction()

    async def unit(tx: AsyncManagedTransaction) -> T:
        await transaction.next_attempt()
        result = await work(Tx(tx))
        transaction.committing = True
        return result

    async def call() -> T:
        async with driver.session(database=database) as session:
            with pipelined_begin(session):
                return await session.execute_write(unit)

    with opened(transaction):
        try:
            result = await bounded(call())
        except BaseException as error:
            await transaction.failed(error)
            raise
    transaction.committed()
    return result


def pipelined_begin(session: Any) -> AbstractContextManager[Any]:
    """Within it, the session's transaction sends BEGIN with its first query, as the driver's
    own execute_query does: a round trip less per write. Not public API (a session attribute of
    the pinned driver; tests/unit/test_driver_internals.py): without it, BEGIN goes alone."""
    flag = getattr(session, "_pipelined_begin", None)
    return flag if isinstance(flag, AbstractContextManager) else nullcontext()
