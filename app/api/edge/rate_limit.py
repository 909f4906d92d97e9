"""Rate limits: one mechanism (the `limits` library) for every door and every limit, keyless
introspection per remote address and requests per API key alike.

Counts are kept in fixed windows: a key's window starts at its first request, it may send the
limit's amount within the window, and a refused request learns when the window ends. Not the
moving window: `limits`' in-memory moving window rescans every key in a worker thread after
each hit (8.3 ms of CPU per request with 200 keys, fixed windows 0.24 ms, the event loop's own
work included; a fixed-window hit alone is 12-20 us).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from limits import RateLimitItem
from limits.aio.storage import MemoryStorage, Storage
from limits.aio.strategies import FixedWindowRateLimiter
from limits.errors import ConfigurationError, StorageError
from limits.storage import storage_from_string
from starlette.types import Send

from app.api.edge.asgi import error_body, send_json
from app.domain.kernel.principal import Principal
from app.model.enums import Role
from app.settings import rate_limit_items

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Exceeded:
    """A refused request: the limit it went over and the whole seconds until its window ends."""

    limit: str
    retry_after_s: int


def rate_limit_storage(uri: str) -> Storage:
    """The counts' storage for a URI as `limits` writes it for its synchronous API
    (memory://, redis://host:6379): this service takes its async variant."""
    async_uri = uri if uri.startswith("async+") else f"async+{uri}"
    try:
        storage = storage_from_string(async_uri, wrap_exceptions=True)
    except ConfigurationError as error:
        raise ValueError(f"AGENTMEM_RATE_LIMIT_STORAGE_URI {uri!r}: {error}") from None
    if not isinstance(storage, Storage):
        raise ValueError(f"AGENTMEM_RATE_LIMIT_STORAGE_URI {uri!r} is no async storage")
    return storage


class RateLimit:
    """Limits counted per key (an address, a key id), each limit in its own window."""

    def __init__(self, limits: Sequence[RateLimitItem], *, scope: str, storage: Storage) -> None:
        self.limits = tuple(limits)
        self.scope = scope  # keeps these counts apart from other limits' in a shared storage
        self._windows = FixedWindowRateLimiter(storage)

    async def hit(self, key: str) -> Exceeded | None:
        """Counts a request of `key`; None when every limit allows it."""
        try:
            for limit in self.limits:
                if not await self._windows.hit(limit, self.scope, key):
                    return await self._exceeded(limit, key)
        except StorageError as error:
            # A limit protects the service; it is not a dependency to fail every request on.
            log.warning("rate limit %s not counted: %s", self.scope, error.storage_error)
        return None

    async def _exceeded(self, limit: RateLimitItem, key: str) -> Exceeded:
        window = await self._windows.get_window_stats(limit, self.scope, key)
        return Exceeded(_spoken(limit), max(1, math.ceil(window.reset_time - time.time())))


class KeyRateLimits:
    """Requests per API key, by the key's role (settings.key_rate_limits); every door that
    resolves a key counts its requests here (HTTP today)."""

    def __init__(self, by_role: Mapping[Role, str], storage: Storage) -> None:
        self._by_role = {
            role: RateLimit(rate_limit_items(text), scope=f"key:{role.value}", storage=storage)
            for role, text in by_role.items()
        }

    async def hit(self, principal: Principal) -> Exceeded | None:
        limit = self._by_role.get(principal.role)
        return None if limit is None else await limit.hit(principal.key_id)


def _spoken(limit: RateLimitItem) -> str:
    """ "5 per 3 seconds", "6000 per minute" (`limits` writes "6000 per 1 minute")."""
    unit = limit.GRANULARITY.name
    return f"{limit.amount} per {unit if limit.multiples == 1 else f'{limit.multiples} {unit}s'}"


def in_memory() -> Storage:
    """Counts in this process only (a limit nobody shares)."""
    return MemoryStorage(wrap_exceptions=True)


def key_limit_reason(principal: Principal) -> str:
    """Why a key's request is refused when its role's limit is reached (every door)."""
    return f"too many requests with this API key of role {principal.role.value}"


def limited_message(exceeded: Exceeded, why: str, advice: str = "") -> str:
    return f"{why} (limit: {exceeded.limit}); retry in {exceeded.retry_after_s} s{advice}"


async def send_rate_limited(send: Send, exceeded: Exceeded, why: str, advice: str = "") -> None:
    """HTTP 429 in the edge's JSON shape, `Retry-After` in whole seconds."""
    seconds = exceeded.retry_after_s
    message = limited_message(exceeded, why, advice)
    refusal = error_body(message, "RATE_LIMITED", retryAfterSeconds=seconds)
    await send_json(send, 429, refusal, [(b"retry-after", str(seconds).encode())])
