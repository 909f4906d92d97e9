"""Priority eviction (seed 004) over HTTP GraphQL against the real Neo4j and S3: an API whose
clients keep at most CAPACITY live records (and 2 under subject:carol) evicts, at the sweep, the
lowest priority and then the oldest first, counts it (the sweep's `evicted`, the metric), removes
the evicted content from object storage, and never touches another client's records.

The API here sweeps only on request (sweepExpiredMemories: the caller's client): its background
sweep, which would evict every client of the shared database, waits an hour."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from app.artifacts.store import make_client
from app.model.enums import Role
from app.settings import Settings
from tests.integration.conftest import Caller, new_caller, serve_in_thread
from tests.integration.memory_helpers import FORGET, RECALL_ID, error_of, listed, remember
from tests.integration.test_metrics import moved, scrape

CAPACITY = 5
SWEEP = "mutation { sweepExpiredMemories { scope purged evicted error } }"
SWEEPS = "{ memorySweeps { scope evicted } }"


@pytest.fixture(scope="module")
def capped_url(settings: Settings) -> Iterator[str]:
    capped = settings.model_copy(
        update={
            "memory_capacity": CAPACITY,
            "memory_namespace_capacity": {"subject:carol": 2},
            "memory_sweep_interval_s": 3_600.0,
        }
    )
    yield from serve_in_thread(capped)


def _admin(settings: Settings, url: str) -> Caller:
    return new_caller(settings, url, role=Role.ADMIN, agent_name="keeper")


def _write(caller: Caller, priorities: list[int], prefix: str = "k", **fields: Any) -> list[str]:
    """Records with these priorities, created in this order; their ids."""
    return [
        remember(caller, key=f"{prefix}{n}", text=f"note {n}", priority=p, **fields)["id"]
        for n, p in enumerate(priorities)
    ]


def _keys(caller: Caller) -> set[str]:
    return {record["key"] for record in listed(caller, first=50)["nodes"]}


def _sweep(caller: Caller) -> dict[str, Any]:
    run = dict(caller.data(SWEEP)["sweepExpiredMemories"])
    assert run["error"] is None and run["scope"] == "client"
    return run


def test_the_lowest_priority_then_the_oldest_are_evicted_and_counted(
    settings: Settings, capped_url: str, neo4j_session: Any
) -> None:
    alice = _admin(settings, capped_url)
    ids = _write(alice, [5, 1, 9, 1, 5, 5, 10, 2])
    before = scrape(capped_url)
    assert _sweep(alice)["evicted"] == 3
    assert _keys(alice) == {"k0", "k2", "k4", "k5", "k6"}
    assert error_of(alice.gql(RECALL_ID, {"id": ids[1]}))["code"] == "NOT_FOUND"
    gone = neo4j_session.run(
        "MATCH (r:MemoryRecord) WHERE r.id IN $ids RETURN count(r) AS n", ids=ids[1::2]
    )
    assert gone.single()["n"] == 1  # k1, k3, k7 purged; k5 kept

    _write(alice, [5, 5], prefix="later")
    assert _sweep(alice)["evicted"] == 2  # equal priority: the two oldest (k0, k4)
    assert _keys(alice) == {"k2", "k5", "k6", "later0", "later1"}
    assert _sweep(alice)["evicted"] == 0  # at capacity: nothing more
    assert [run["evicted"] for run in alice.data(SWEEPS)["memorySweeps"]][:3] == [0, 2, 3]
    assert moved(before, scrape(capped_url), "agentmem_memory_sweeper_evicted_total") == 5


def test_forgotten_records_do_not_count_and_other_clients_are_untouched(
    settings: Settings, capped_url: str
) -> None:
    alice, bob = _admin(settings, capped_url), _admin(settings, capped_url)
    ids = _write(alice, [5] * (CAPACITY + 1))
    alice.data(FORGET, {"id": ids[-1]})  # soft: inactive, kept, not counted
    bob_ids = _write(bob, [1] * (CAPACITY + 2))
    assert _sweep(alice)["evicted"] == 0
    assert len(_keys(bob)) == CAPACITY + 2  # alice's sweep is hers only
    assert _sweep(bob)["evicted"] == 2
    assert error_of(alice.gql(RECALL_ID, {"id": bob_ids[-1]}))["code"] == "NOT_FOUND"
    assert len(_keys(alice)) == CAPACITY  # bob's sweep never reached alice's


def test_a_namespace_capacity_evicts_within_its_prefix(settings: Settings, capped_url: str) -> None:
    alice = _admin(settings, capped_url)
    _write(alice, [5, 5, 5, 5], prefix="carol", namespace={"subject": "carol"})
    _write(alice, [1], prefix="dave", namespace={"subject": "dave"})
    assert _sweep(alice)["evicted"] == 2  # carol's two oldest; 3 records left, under CAPACITY
    assert _keys(alice) == {"carol2", "carol3", "dave0"}


def test_evicted_content_leaves_object_storage(settings: Settings, capped_url: str) -> None:
    alice = _admin(settings, capped_url)
    content = {"transcript": [f"line {i}: " + "words " * 20 for i in range(200)]}
    big = remember(alice, key="big", text="long call", content=content, priority=1)
    key = big["contentUri"].removeprefix(f"s3://{settings.s3_bucket}/")
    s3 = make_client(settings)
    assert s3.stat_object(settings.s3_bucket, key).size > settings.memory_inline_content_max
    _write(alice, [5] * CAPACITY)
    assert _sweep(alice)["evicted"] == 1
    assert "big" not in _keys(alice)
    assert not list(s3.list_objects(settings.s3_bucket, prefix=key))
