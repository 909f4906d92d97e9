"""At most `search_concurrency` searches run their graph phase at once per process."""

from __future__ import annotations

import asyncio

from app.retrieval.search_slots import limit_searches, search_slot


def _most_at_once(limit: int | None, searches: int) -> tuple[int, list[int]]:
    running, most, order = 0, 0, []

    async def one(n: int) -> None:
        nonlocal running, most
        async with search_slot():
            running += 1
            most = max(most, running)
            order.append(n)
            await asyncio.sleep(0.01)
            running -= 1

    async def scenario() -> None:
        await asyncio.gather(*(one(n) for n in range(searches)))

    limit_searches(limit)
    try:
        asyncio.run(scenario())
    finally:
        limit_searches(None)
    return most, order


def test_searches_past_the_bound_wait_their_turn_in_order() -> None:
    most, order = _most_at_once(2, 7)
    assert most == 2
    assert order == list(range(7))  # first come, first served


def test_without_a_bound_every_search_runs_at_once() -> None:
    most, _ = _most_at_once(None, 7)
    assert most == 7


def test_each_event_loop_has_slots_of_its_own() -> None:
    assert _most_at_once(3, 5)[0] == 3
    assert _most_at_once(3, 5)[0] == 3  # a new loop: the old loop's semaphore is not reused
