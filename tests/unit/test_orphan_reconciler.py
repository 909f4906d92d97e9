"""The reconciliation of possibly orphaned objects (review O2 of issue 11) against a fake graph
(which answers which URIs a node points at) and the fake store of test_staged_uploads; the
generated Cypher runs against the real Neo4j in tests/integration/test_staged_commit.py."""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.artifacts.orphans import OrphanReconciler, referenced_query
from app.domain.kernel.errors import Unavailable
from app.graph.executor import GraphExecutor
from tests.unit.test_staged_uploads import FakeStore


class FakeGraph:
    def __init__(self, referenced: set[str]) -> None:
        self.referenced = referenced
        self.down = False
        self.asked: list[dict[str, Any]] = []

    async def read(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        if self.down:
            raise Unavailable("the graph database is unavailable", retry_after_s=1)
        self.asked.append(params)
        return [{"uris": [uri for uri in params["uris"] if uri in self.referenced]}]


def stored(store: FakeStore, *names: str) -> list[str]:
    for name in names:
        store.objects[f"client/c1/{name}"] = b"x"
    return [f"s3://b/client/c1/{name}" for name in names]


def reconcile(reconciler: OrphanReconciler, graph: FakeGraph, store: FakeStore) -> int:
    fake: Any = graph
    typed: GraphExecutor = fake
    return asyncio.run(reconciler.reconcile(typed, store))


def test_unreferenced_objects_are_removed_and_referenced_ones_kept_after_the_grace() -> None:
    store = FakeStore()
    kept, gone = stored(store, "a.json", "b.json")
    reconciler = OrphanReconciler(grace_s=0.0)
    reconciler.add("c1", [kept, gone], reason="test")
    assert reconcile(reconciler, FakeGraph({kept}), store) == 1
    assert list(store.objects) == ["client/c1/a.json"]
    assert reconciler.pending == 0
    assert reconciler.stats.removed == 1 and reconciler.stats.referenced == 1


def test_nothing_is_checked_before_the_grace_has_passed() -> None:
    store = FakeStore()
    reconciler = OrphanReconciler(grace_s=60.0)
    reconciler.add("c1", stored(store, "a.json"), reason="test")
    graph = FakeGraph(set())
    assert reconcile(reconciler, graph, store) == 0
    assert graph.asked == [] and reconciler.pending == 1 and len(store.objects) == 1


@pytest.mark.parametrize("down", ["graph", "store"])
def test_an_outage_keeps_the_objects_queued_for_the_next_round(down: str) -> None:
    store = FakeStore()
    reconciler = OrphanReconciler(grace_s=0.0)
    reconciler.add("c1", stored(store, "a.json"), reason="test")
    graph = FakeGraph(set())
    graph.down, store.down = down == "graph", down == "store"
    assert reconcile(reconciler, graph, store) == 0
    assert reconciler.pending == 1
    graph.down = store.down = False
    assert reconcile(reconciler, graph, store) == 1
    assert store.objects == {} and reconciler.pending == 0


def test_what_is_still_queued_at_shutdown_is_counted_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reconciler = OrphanReconciler(grace_s=60.0)
    reconciler.add("c1", ["s3://b/client/c1/a.json"], reason="test")
    with caplog.at_level(logging.ERROR, logger="app.artifacts"):
        reconciler.abandon()
    assert reconciler.stats.abandoned == 1 and reconciler.pending == 0
    assert "client/c1/a.json" in caplog.text


def test_a_full_queue_refuses_counts_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    reconciler = OrphanReconciler(grace_s=60.0, limit=2)
    with caplog.at_level(logging.ERROR, logger="app.artifacts"):
        reconciler.add("c1", [f"s3://b/client/c1/{n}" for n in range(3)], reason="test")
    assert reconciler.pending == 2 and reconciler.stats.dropped == 1
    assert "orphan queue full" in caplog.text


def test_the_reference_check_covers_every_property_naming_an_object() -> None:
    query = referenced_query()
    for test in (
        "n.content_uri = uri",
        "n.prompt_text_uri = uri",
        "n.tool_call_log_uri = uri",
        "uri IN n.media_uris",
        "n.uri = uri",
    ):
        assert test in query
    assert query.count("n.client_id = $client_id") == query.count("EXISTS")


class Clocks:
    """The reconciler's two clocks, moved forward together by the test."""

    def __init__(self) -> None:
        self.monotonic = 0.0
        self.offset = 0.0

    def wall(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.monotonic += seconds
        self.offset += seconds


def test_an_object_uploaded_again_lately_is_kept_until_it_is_older_than_the_grace() -> None:
    store, clocks = FakeStore(), Clocks()
    reconciler = OrphanReconciler(
        grace_s=10.0, clock=lambda: clocks.monotonic, wall_clock=clocks.wall
    )
    uri = stored(store, "shared.json")[0]
    reconciler.add("c1", [uri], reason="test")  # write A failed
    clocks.advance(10.0)
    # write B of the same content uploads the same key again and waits on its commit
    store.objects["client/c1/shared.json"] = b"x"
    store.modified["client/c1/shared.json"] = datetime.now(UTC) + timedelta(seconds=clocks.offset)
    graph = FakeGraph(set())
    assert reconcile(reconciler, graph, store) == 0
    assert "client/c1/shared.json" in store.objects and reconciler.pending == 1
    assert reconciler.stats.deferred == 1 and reconciler.stats.removed == 0
    clocks.advance(5.0)
    assert reconcile(reconciler, graph, store) == 0 and len(graph.asked) == 1  # not due yet
    clocks.advance(5.0)
    graph.referenced.add(uri)  # B committed: its node points at the object
    assert reconcile(reconciler, graph, store) == 0
    assert reconciler.pending == 0 and reconciler.stats.referenced == 1
    assert "client/c1/shared.json" in store.objects


def test_a_deferred_object_nobody_points_at_is_removed_once_it_is_old() -> None:
    store, clocks = FakeStore(), Clocks()
    reconciler = OrphanReconciler(
        grace_s=10.0, clock=lambda: clocks.monotonic, wall_clock=clocks.wall
    )
    uri = stored(store, "shared.json")[0]
    store.modified["client/c1/shared.json"] = datetime.now(UTC)
    reconciler.add("c1", [uri], reason="test")
    clocks.advance(9.0)
    assert reconcile(reconciler, FakeGraph(set()), store) == 0  # not due
    clocks.advance(1.5)  # due, but uploaded 10.5 s ago on the wall clock: old enough
    assert reconcile(reconciler, FakeGraph(set()), store) == 1
    assert store.objects == {} and reconciler.pending == 0 and reconciler.stats.deferred == 0


def test_an_object_already_gone_leaves_the_queue() -> None:
    store = FakeStore()
    reconciler = OrphanReconciler(grace_s=0.0)
    reconciler.add("c1", ["s3://b/client/c1/never.json"], reason="test")
    reconcile(reconciler, FakeGraph(set()), store)  # its removal finds nothing
    assert reconciler.pending == 0 and reconciler.stats.deferred == 0
