"""Leases and embedding claims under concurrency, against the real Neo4j: many transactions race
for the same lease, turn or records at once, and exactly one wins each (app/graph/leases.py,
app/retrieval/claims.py). The claim idiom (lock, then read again) is what makes this hold:
MATCH alone takes no lock."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from app.graph.executor import GraphExecutor
from app.graph.leases import Lease, new_holder
from app.retrieval.claims import Claimant, candidates_query, claim, expired_query
from app.retrieval.index_rows import returned
from app.retrieval.searchable import SEARCHABLE
from app.runtime import connected
from app.settings import Settings

RACERS = 12
# Dated long before anything else, so that these scans see only this test's records.
SINCE = datetime(1999, 6, 1, tzinfo=UTC)
CREATE = """
UNWIND range(1, $count) AS i
CREATE (:Lesson {id: randomUUID(), client_id: $client_id, statement: 'lesson ' + i,
                 scope: 'global', status: 'active', created_at: datetime($since),
                 updated_at: datetime($since) + duration({seconds: i})})
"""
EXPIRE = """
MATCH (n:Lesson {client_id: $client_id})
SET n.index_claim_until = datetime() - duration({minutes: 1})
"""


def _leases(graph: GraphExecutor, name: str, ttl_s: float) -> list[Lease]:
    return [Lease(graph, name=name, holder=new_holder(), ttl_s=ttl_s) for _ in range(RACERS)]


async def _lease_scenario(graph: GraphExecutor, name: str) -> None:
    racers = _leases(graph, name, ttl_s=2.0)
    won = await asyncio.gather(*(lease.acquire() for lease in racers))
    assert sum(won) == 1
    winner = racers[won.index(True)]
    assert await winner.acquire()  # the holder renews
    others = [lease for lease in racers if lease is not winner]
    await others[0].release()  # not its lease: nothing happens
    assert not any(await asyncio.gather(*(lease.acquire() for lease in others)))

    await asyncio.sleep(2.2)  # the holder "died": its lease expires, one other takes it
    retaken = await asyncio.gather(*(lease.acquire() for lease in others))
    assert sum(retaken) == 1
    assert not await winner.acquire()
    await others[retaken.index(True)].release()
    assert await winner.acquire()


async def _turn_scenario(graph: GraphExecutor, name: str) -> None:
    racers = _leases(graph, name, ttl_s=30.0)
    turns = await asyncio.gather(*(lease.take_turn(60.0) for lease in racers))
    due = [turn for turn in turns if turn.due]
    assert len(due) == 1 and due[0].runs == 1
    assert all(58 < turn.wait_s < 62 for turn in turns)
    holder = racers[turns.index(due[0])]
    await holder.release()
    # Released, but the interval has not passed: nobody's turn.
    again = await asyncio.gather(*(lease.take_turn(60.0) for lease in racers))
    assert not any(turn.due for turn in again)
    # A process with a shorter interval finds the job due, once.
    short = await asyncio.gather(*(lease.take_turn(0.001) for lease in racers))
    assert [turn.due for turn in short].count(True) == 1 and max(t.runs for t in short) == 2


async def _claim_scenario(graph: GraphExecutor, client_id: str) -> None:
    spec, count = SEARCHABLE["Lesson"], 40
    await graph.write(CREATE, {"count": count, "client_id": client_id, "since": SINCE.isoformat()})
    found = await graph.read(
        candidates_query(spec, newest_first=False), {"since": SINCE, "batch": count}
    )
    assert len(found) == count
    workers = [Claimant(new_holder(), claim_s=60.0) for _ in range(RACERS)]
    # Every worker read the same candidates (as workers scanning at once do); each claims them.
    claimed = await asyncio.gather(
        *(claim(graph, spec, found, w, returning=returned(spec)) for w in workers)
    )
    ids = Counter(row["id"] for rows in claimed for row in rows)
    assert set(ids) == {row["id"] for row in found} and set(ids.values()) == {1}
    # None of this test's records is a candidate any more (records of other tests may be:
    # the shared suite database has some the worker never scans, dated before its watermark).
    left = await graph.read(
        candidates_query(spec, newest_first=False), {"since": SINCE, "batch": 10 * count}
    )
    assert not [row for row in left if row["client_id"] == client_id]

    # Every holder "died" a minute ago (the lease test waits for real expiry; here a wait
    # would let other workers sharing this database take the records first).
    await graph.write(EXPIRE, {"client_id": client_id})
    expired = await graph.read(expired_query(spec), {"batch": count})
    assert {row["id"] for row in expired} == set(ids)
    retaken = await asyncio.gather(
        *(claim(graph, spec, expired, w, returning=returned(spec)) for w in workers[:4])
    )
    assert sorted(row["id"] for rows in retaken for row in rows) == sorted(ids)


async def _scenarios(settings: Settings) -> None:
    run, client_id = uuid.uuid4().hex[:8], f"test-leases-{uuid.uuid4().hex[:8]}"
    async with connected(settings) as graph:
        names = [f"test-lease-{run}", f"test-turn-{run}"]
        try:
            await _lease_scenario(graph, names[0])
            await _turn_scenario(graph, names[1])
            await _claim_scenario(graph, client_id)
        finally:
            params: dict[str, Any] = {"names": names, "client_id": client_id}
            await graph.write("MATCH (l:Lease) WHERE l.name IN $names DELETE l", params)
            await graph.write("MATCH (n:Lesson {client_id: $client_id}) DELETE n", params)


def test_exactly_one_racer_wins_each_lease_turn_and_record(settings: Settings) -> None:
    asyncio.run(_scenarios(settings))
