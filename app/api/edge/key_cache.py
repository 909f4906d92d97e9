"""Resolving presented API keys, with a short per-process cache.

A revoked key must be refused by every API process once its revocation is acknowledged (issue 13):
a found key is trusted TRUSTED_FOR_S from the start of its lookup, and a revocation answers only
after that long (app/domain/keys/repository.py); the expiry is checked again on every request. A key
lookup is one read on the unique index of ApiKey.key_hash (migration 0001): a busy key costs
one such read per process per TRUSTED_FOR_S, and concurrent requests that miss together share
it. `last_used_at` is written at most every LAST_USED_EVERY_S per key, off the request path.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime, timedelta

from app.domain.kernel.principal import Principal
from app.domain.keys import FoundKey, hash_secret, lookup, mark_used
from app.domain.keys.repository import TRUSTED_FOR_S
from app.graph.executor import GraphExecutor

log = logging.getLogger("app.auth")

MAX_ENTRIES = 10_000
LAST_USED_EVERY_S = 60.0
# What the resolver writes in the background (not a change any request made).
USAGE_PROPERTIES = frozenset({"last_used_at"})


class KeyCache:
    """Found keys by hash, each for `ttl_s` seconds (monotonic clock)."""

    def __init__(self, ttl_s: float = TRUSTED_FOR_S) -> None:
        self.ttl_s = ttl_s
        self._entries: dict[str, tuple[float, FoundKey | None]] = {}

    def get(self, key_hash: str) -> tuple[bool, FoundKey | None]:
        """(hit, key): a hit may be a remembered miss (None), so unknown keys stay cheap too."""
        entry = self._entries.get(key_hash)
        if entry is None or entry[0] < time.monotonic():
            return False, None
        return True, entry[1]

    def put(self, key_hash: str, found: FoundKey | None, *, looked_up_at: float) -> None:
        """`looked_up_at`: when the lookup was sent (monotonic); the trust runs from then, as
        what it read may be as old as that."""
        if len(self._entries) >= MAX_ENTRIES:
            self._entries.clear()
        self._entries[key_hash] = (looked_up_at + self.ttl_s, found)


class KeyResolver:
    """The principal of a presented secret, or None (unknown, malformed, revoked, expired)."""

    def __init__(self, graph: GraphExecutor, *, ttl_s: float = TRUSTED_FOR_S) -> None:
        self.graph = graph
        self.cache = KeyCache(ttl_s)
        self._lookups: dict[str, tuple[asyncio.Task[FoundKey | None], float]] = {}
        self._touches: set[asyncio.Task[None]] = set()

    async def principal(self, secret: str | None) -> Principal | None:
        if not secret:
            return None
        key_hash = hash_secret(secret)
        hit, found = self.cache.get(key_hash)
        if not hit:
            found = await self._shared_lookup(secret, key_hash)
        if found is None or not found.authenticates(datetime.now(UTC)):
            return None
        return found.principal

    async def _shared_lookup(self, secret: str, key_hash: str) -> FoundKey | None:
        """A lookup sent less than the trust period ago is shared; an older one still in
        flight may predate a revocation already answered, so a new one is sent."""
        shared = self._lookups.get(key_hash)
        if shared is None or time.monotonic() - shared[1] >= self.cache.ttl_s:
            sent = time.monotonic()
            task = asyncio.create_task(self._lookup(secret, key_hash, sent))
            self._lookups[key_hash] = shared = (task, sent)
            task.add_done_callback(lambda done: self._forget(key_hash, done))
        # Shielded: one caller giving up does not cancel the lookup the others wait for.
        return await asyncio.shield(shared[0])

    def _forget(self, key_hash: str, done: asyncio.Task[FoundKey | None]) -> None:
        if (shared := self._lookups.get(key_hash)) is not None and shared[0] is done:
            del self._lookups[key_hash]
        if not done.cancelled():
            done.exception()  # retrieved: the callers that still wait get it themselves

    async def _lookup(self, secret: str, key_hash: str, sent: float) -> FoundKey | None:
        found = await lookup(self.graph, secret=secret)
        self.cache.put(key_hash, found, looked_up_at=sent)
        if found is not None and _stale(found.last_used_at):
            touch = asyncio.create_task(self._touch(found.principal.key_id))
            self._touches.add(touch)
            touch.add_done_callback(self._touches.discard)
        return found

    async def close(self, timeout_s: float = 2.0) -> None:
        """At shutdown: let the last_used_at writes on their way finish (within `timeout_s`,
        before the driver closes), and cancel what is left."""
        pending = set(self._touches)
        if not pending:
            return
        _, late = await asyncio.wait(pending, timeout=timeout_s)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)

    async def _touch(self, key_id: str) -> None:
        try:
            await mark_used(self.graph, key_id=key_id)
        except Exception:  # noqa: BLE001 - last_used_at is a hint; the request was answered
            log.debug("could not mark API key %s used", key_id, exc_info=True)


def _stale(last_used_at: datetime | None) -> bool:
    if last_used_at is None:
        return True
    return datetime.now(UTC) - last_used_at > timedelta(seconds=LAST_USED_EVERY_S)
