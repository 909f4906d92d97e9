"""How many searches of a process run their graph phase at once (Settings.search_concurrency).

A search costs Neo4j and the event loop several times what a read by id does; under load,
without a bound, every search in flight takes its share of the CPU at once and every other
request waits behind them all. Searches past the bound wait their turn (first come, first
served) after their query embedding, so that batches of embeddings still form; the other
requests go on (`bench load`: at 32 clients, the p99 of non-search requests 241 -> 27 ms).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from weakref import WeakKeyDictionary

_limit: int | None = None
# One semaphore per event loop: the suite runs several servers, each on a loop of its own.
_slots: WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = WeakKeyDictionary()


def limit_searches(limit: int | None) -> None:
    """At most `limit` searches at once per process from now on (None: no bound)."""
    global _limit  # noqa: PLW0603 - one process-wide setting, read by every search
    _limit = limit
    _slots.clear()


@asynccontextmanager
async def search_slot() -> AsyncIterator[None]:
    if _limit is None:
        yield
        return
    loop = asyncio.get_running_loop()
    slots = _slots.get(loop)
    if slots is None:
        slots = _slots[loop] = asyncio.Semaphore(_limit)
    async with slots:
        yield
