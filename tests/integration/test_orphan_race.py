"""The orphan reconciliation of a shared (content-addressed) key racing a write of the same
content (review 2 of issue 11, M-3), on the real Neo4j and S3: write A failed and queued the
object; write B (a retry) uploaded the same key again and has not committed its node when the
reconciliation looks. The object must survive until B's node points at it; an object nobody
uploaded lately and nobody points at is removed."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from app.artifacts.keys import StoredArtifact
from app.artifacts.store import ArtifactStore
from app.runtime import connected
from app.settings import Settings
from tests.integration.conftest import Caller
from tests.integration.test_orphaned_uploads import objects_of
from tests.integration.test_staged_commit import owner, store_of

POINT_AT = "CREATE (:MemoryRecord {id: $id, client_id: $c, content_uri: $uri})"
FORGET = "MATCH (r:MemoryRecord {id: $id}) DELETE r"
GRACE_S = 30.0


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def reconciling_store(settings: Settings) -> tuple[ArtifactStore, Clock]:
    store, clock = store_of(settings), Clock()
    store.orphans.grace_s, store.orphans.clock = GRACE_S, clock
    return store, clock


def test_a_key_uploaded_again_by_a_write_in_flight_is_not_removed(
    settings: Settings, alice: Caller, neo4j_session: Any
) -> None:
    store, clock = reconciling_store(settings)
    principal = owner(alice)
    parts = ("memory", "content", f"{uuid.uuid4().hex}.json")
    record_id = str(uuid.uuid4())

    async def scenario() -> list[int]:
        async with connected(settings) as graph:
            first: StoredArtifact = await store.put(principal, parts, b"{}", content_type="x/y")
            store.orphans.add(alice.client_id, [first.uri], reason="write A failed")
            clock.now += GRACE_S
            await store.put(principal, parts, b"{}", content_type="x/y")  # write B, in flight
            removed = [await store.orphans.reconcile(graph, store)]
            assert objects_of(settings, alice.client_id) == [first.key]
            neo4j_session.run(POINT_AT, id=record_id, c=alice.client_id, uri=first.uri).consume()
            clock.now += GRACE_S  # B committed; the object's next check finds its node
            removed.append(await store.orphans.reconcile(graph, store))
            return removed

    try:
        assert asyncio.run(scenario()) == [0, 0]
        assert objects_of(settings, alice.client_id) == [client_key_of(parts, alice)]
        assert store.orphans.stats.deferred == 1 and store.orphans.stats.referenced == 1
        assert store.orphans.pending == 0
    finally:
        neo4j_session.run(FORGET, id=record_id).consume()


def test_an_object_not_uploaded_lately_that_nobody_points_at_is_removed(
    settings: Settings, alice: Caller
) -> None:
    store, clock = reconciling_store(settings)
    store.orphans.wall_clock = lambda: time.time() + GRACE_S  # as if uploaded long ago
    principal = owner(alice)

    async def scenario() -> int:
        async with connected(settings) as graph:
            stored = await store.put(principal, ("stray.json",), b"{}", content_type="x/y")
            store.orphans.add(alice.client_id, [stored.uri], reason="test")
            clock.now += GRACE_S
            return await store.orphans.reconcile(graph, store)

    assert asyncio.run(scenario()) == 1
    assert objects_of(settings, alice.client_id) == []


def client_key_of(parts: tuple[str, ...], caller: Caller) -> str:
    return "/".join(("client", caller.client_id, *parts))
