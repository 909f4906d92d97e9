"""Who opens a subscription connection (graphql-transport-ws): the API key travels in the
`connection_init` payload, as browsers cannot set headers on a WebSocket (`{"Authorization":
"Bearer <key>"}`, or `{"apiKey": "<key>"}`), else in the upgrade request's own headers (other
clients). Resolved by the same KeyResolver as /graphql and counted against the key's rate limit;
a connection without a valid key, or over its limit, is closed with 4403 before any operation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from strawberry.exceptions import ConnectionRejectionError

from app.api.edge.api_key import presented_key
from app.api.edge.key_cache import KeyResolver
from app.api.edge.rate_limit import KeyRateLimits
from app.domain.kernel.principal import Principal


def init_payload_key(params: Any) -> str | None:
    if not isinstance(params, Mapping):
        return None
    for name, value in params.items():
        if not isinstance(value, str) or not isinstance(name, str):
            continue
        lowered = name.lower()
        if lowered == "authorization" and value[:7].lower() == "bearer ":
            return value[7:].strip()
        if lowered in {"apikey", "api_key", "x-api-key"}:
            return value
    return None


@dataclass(frozen=True)
class ConnectionAuth:
    keys: KeyResolver
    rate_limits: KeyRateLimits

    async def principal(self, params: Any, headers: Mapping[bytes, bytes]) -> Principal:
        """The caller of a new connection, or ConnectionRejectionError (closed with 4403)."""
        secret = init_payload_key(params) or presented_key(headers)
        return await _checked(await self.keys.principal(secret), self.rate_limits)


async def _checked(principal: Principal | None, rate_limits: KeyRateLimits) -> Principal:
    if principal is None:
        raise ConnectionRejectionError(
            {
                "code": "UNAUTHENTICATED",
                "message": "send an API key in connection_init's "
                'payload: {"Authorization": "Bearer <key>"}',
            }
        )
    if await rate_limits.hit(principal):
        raise ConnectionRejectionError({"code": "RATE_LIMITED", "message": "too many requests"})
    return principal
