"""Authenticates /graphql requests by API key before any GraphQL work starts."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.domain.apikeys import authenticate, hash_secret
from app.domain.principal import Principal
from app.graph.executor import GraphExecutor
from app.middleware import send_json

CACHE_SECONDS = 30.0
UNAUTHENTICATED = {
    "errors": [
        {
            "message": "missing or unknown API key; send 'Authorization: Bearer <key>' "
            "(create one with `agentmem create-key`)",
            "extensions": {"code": "UNAUTHENTICATED"},
        }
    ]
}


def presented_key(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.headers.get("x-api-key")


def wants_ide(request: Request) -> bool:
    return request.method == "GET" and "text/html" in request.headers.get("accept", "")


class KeyCache:
    """Keeps resolved keys briefly so each request does not pay a lookup; revocation lags by it."""

    def __init__(self, ttl_s: float = CACHE_SECONDS) -> None:
        self.ttl_s = ttl_s
        self._entries: dict[str, tuple[float, Principal]] = {}

    def get(self, key_hash: str) -> Principal | None:
        entry = self._entries.get(key_hash)
        if entry is None or entry[0] < time.monotonic():
            return None
        return entry[1]

    def put(self, key_hash: str, principal: Principal) -> None:
        if len(self._entries) > 10_000:
            self._entries.clear()
        self._entries[key_hash] = (time.monotonic() + self.ttl_s, principal)


class RequireApiKey:
    def __init__(self, app: ASGIApp, *, graph: GraphExecutor) -> None:
        self.app = app
        self.graph = graph
        self.cache = KeyCache()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        if wants_ide(request):
            await self.app(scope, receive, send)
            return
        principal = await self._principal(presented_key(request))
        if principal is None:
            await send_json(send, 401, UNAUTHENTICATED)
            return
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)

    async def _principal(self, secret: str | None) -> Principal | None:
        if not secret:
            return None
        key_hash = hash_secret(secret)
        cached = self.cache.get(key_hash)
        if cached is not None:
            return cached
        principal = await authenticate(self.graph, secret=secret)
        if principal is not None:
            self.cache.put(key_hash, principal)
        return principal
