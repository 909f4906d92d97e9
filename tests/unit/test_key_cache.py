"""The API key resolver's cache (app/api/edge/key_cache.py) with a fake graph that counts its
reads."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.api.edge.key_cache import KeyResolver
from app.domain.kernel.errors import ValidationFailed
from app.domain.keys import expires_in
from app.domain.keys.admin import revoke_key
from app.domain.keys.repository import (
    TRUSTED_FOR_S,
    FoundKey,
    KeyStatus,
    check_expiry,
    generate_secret,
    key_status,
)


class FakeGraph:
    """Answers the key lookup with one stored key; counts lookups and writes."""

    def __init__(self, expires_at: datetime | None) -> None:
        self.expires_at = expires_at
        self.reads = 0
        self.writes = 0

    async def read_latest(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        self.reads += 1
        await asyncio.sleep(0.01)  # long enough for concurrent misses to overlap
        row = {"id": "k1", "client_id": "c1", "role": "agent", "agent_name": "brad"}
        row["revoked"] = False  # FIND_KEY returns the flag; key_status decides
        return [row | {"expires_at": self.expires_at, "last_used_at": datetime.now(UTC)}]

    async def write(self, query: str, params: dict[str, Any], **_: Any) -> list[dict[str, Any]]:
        self.writes += 1
        return []


def test_expiry_is_checked_on_every_cache_hit() -> None:
    graph = FakeGraph(expires_at=datetime.now(UTC) + timedelta(seconds=0.3))
    resolver = KeyResolver(graph, ttl_s=60)  # type: ignore[arg-type]
    secret = generate_secret()

    async def scenario() -> tuple[Any, Any]:
        before = await resolver.principal(secret)
        await asyncio.sleep(0.35)
        return before, await resolver.principal(secret)

    before, after = asyncio.run(scenario())
    assert before is not None and before.agent_name == "brad"
    assert after is None and graph.reads == 1  # refused from the cache, no second lookup


def test_concurrent_misses_share_one_lookup_and_the_cache_expires() -> None:
    graph = FakeGraph(expires_at=None)
    resolver = KeyResolver(graph, ttl_s=0.1)  # type: ignore[arg-type]
    secret = generate_secret()

    async def scenario() -> list[Any]:
        found = await asyncio.gather(*(resolver.principal(secret) for _ in range(20)))
        await asyncio.sleep(0.15)
        return [*found, await resolver.principal(secret)]

    found = asyncio.run(scenario())
    assert all(p is not None and p.key_id == "k1" for p in found)
    assert graph.reads == 2  # one shared lookup, one after the entry expired
    assert graph.writes == 0  # last_used_at is recent: nothing to mark


class SlowLookupGraph(FakeGraph):
    """A key lookup that takes `lookup_s`: what it read is as old as its start."""

    def __init__(self, lookup_s: float) -> None:
        super().__init__(expires_at=None)
        self.lookup_s = lookup_s

    async def read_latest(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        await asyncio.sleep(self.lookup_s)
        return await super().read_latest(query, params)


def test_a_found_key_is_trusted_from_its_lookups_start_not_its_end() -> None:
    graph = SlowLookupGraph(lookup_s=0.2)
    resolver = KeyResolver(graph, ttl_s=0.3)  # type: ignore[arg-type]
    secret = generate_secret()

    async def scenario() -> None:
        await resolver.principal(secret)  # sent at 0, answered at about 0.21
        await asyncio.sleep(0.15)  # 0.36: past 0.3 from the start, within 0.3 of the end
        await resolver.principal(secret)

    asyncio.run(scenario())
    assert graph.reads == 2


def test_a_lookup_in_flight_longer_than_the_trust_period_is_not_joined() -> None:
    graph = SlowLookupGraph(lookup_s=0.4)
    resolver = KeyResolver(graph, ttl_s=0.3)  # type: ignore[arg-type]
    secret = generate_secret()

    async def scenario() -> None:
        first = asyncio.create_task(resolver.principal(secret))
        await asyncio.sleep(0.35)  # the first lookup is still out, sent 0.35 s ago
        await asyncio.gather(first, resolver.principal(secret))

    asyncio.run(scenario())
    assert graph.reads == 2


def test_a_revocation_is_answered_only_once_no_process_may_trust_the_key() -> None:
    class RevokingGraph:
        async def write(self, query: str, params: dict[str, Any], **_: Any) -> list[dict[str, Any]]:
            return [{"key": {"id": params["id"], "revoked": True}, "was_revoked": False}]

    async def timed_revocation() -> float:
        started = time.monotonic()
        await revoke_key(RevokingGraph(), client_id="c1", key_id=str(uuid.uuid4()))  # type: ignore[arg-type]
        return time.monotonic() - started

    assert asyncio.run(timed_revocation()) >= TRUSTED_FOR_S


def test_malformed_and_missing_keys_never_reach_the_graph() -> None:
    graph = FakeGraph(expires_at=None)
    resolver = KeyResolver(graph)  # type: ignore[arg-type]
    assert asyncio.run(resolver.principal("not-a-key")) is None
    assert asyncio.run(resolver.principal(None)) is None
    assert graph.reads == 0


def test_expires_in_takes_units() -> None:
    now = datetime(2027, 1, 1, tzinfo=UTC)
    assert expires_in("30d", now=now) == now + timedelta(days=30)
    assert expires_in("90m", now=now) == now + timedelta(minutes=90)
    assert expires_in("3600", now=now) == now + timedelta(hours=1)
    for bad in ("0", "soon", "-5m", "1y"):
        with pytest.raises(ValidationFailed, match="expires-in"):
            expires_in(bad, now=now)


class SlowTouchGraph(FakeGraph):
    """A key never marked used, whose last_used_at write takes `write_s`."""

    def __init__(self, write_s: float) -> None:
        super().__init__(expires_at=None)
        self.write_s = write_s
        self.finished = 0

    async def read_latest(self, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        rows = await super().read_latest(query, params)
        return [rows[0] | {"last_used_at": None}]

    async def write(self, query: str, params: dict[str, Any], **_: Any) -> list[dict[str, Any]]:
        self.writes += 1
        await asyncio.sleep(self.write_s)
        self.finished += 1
        return []


def test_close_waits_for_last_used_writes_within_its_bound() -> None:
    async def scenario(graph: SlowTouchGraph, timeout_s: float) -> float:
        resolver = KeyResolver(graph)  # type: ignore[arg-type]
        assert await resolver.principal(generate_secret()) is not None
        started = time.monotonic()
        await resolver.close(timeout_s=timeout_s)
        assert not resolver._touches  # nothing left running after the driver closes
        return time.monotonic() - started

    quick = SlowTouchGraph(write_s=0.05)
    asyncio.run(scenario(quick, timeout_s=5))
    assert (quick.writes, quick.finished) == (1, 1)  # awaited, not dropped
    stuck = SlowTouchGraph(write_s=60)
    assert asyncio.run(scenario(stuck, timeout_s=0.1)) < 5  # bounded: the write is cancelled
    assert (stuck.writes, stuck.finished) == (1, 0)


def test_one_statement_of_whether_a_key_authenticates() -> None:
    now = datetime(2027, 1, 1, tzinfo=UTC)
    later, earlier = now + timedelta(seconds=1), now - timedelta(seconds=1)
    assert key_status(False, None, now) is KeyStatus.ACTIVE
    assert key_status(False, later, now) is KeyStatus.ACTIVE
    assert key_status(False, now, now) is KeyStatus.EXPIRED
    assert key_status(True, later, now) is KeyStatus.REVOKED
    assert key_status(None, None, now) is KeyStatus.REVOKED  # no flag: refused, as before
    found = FoundKey(principal=None, expires_at=earlier, last_used_at=None)  # type: ignore[arg-type]
    assert not found.authenticates(now)
    with pytest.raises(ValidationFailed) as naive:
        check_expiry(datetime(2027, 2, 1), now=now)
    assert naive.value.details.get("field") == "expires_at"
