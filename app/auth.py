"""Authenticates /graphql requests by API key before any GraphQL work starts."""

from __future__ import annotations

import json
import time

from graphql import FieldNode, GraphQLError, OperationDefinitionNode, parse
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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
    """The GraphiQL page itself (strawberry executes a GET that carries a query instead)."""
    return (
        request.method == "GET"
        and "text/html" in request.headers.get("accept", "")
        and "query" not in request.query_params
    )


def only_introspection(body: bytes) -> bool:
    """True for a POST whose every operation selects only `__schema`, `__type`, `__typename`.

    The schema is public (schema.graphql is published), and GraphiQL introspects before the
    user has pasted a key; nothing else is answered without one.
    """
    try:
        document = parse(json.loads(body)["query"])
    except (ValueError, KeyError, TypeError, GraphQLError):
        return False
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if not operations or len(operations) != len(document.definitions):
        return False
    return all(
        isinstance(selection, FieldNode) and selection.name.value.startswith("__")
        for operation in operations
        for selection in operation.selection_set.selections
    )


def _replay(body: bytes) -> Receive:
    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


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
        request = Request(scope, receive)
        if wants_ide(request):
            await self.app(scope, receive, send)
            return
        principal = await self._principal(presented_key(request))
        if principal is None:
            if request.method == "POST":
                body = await request.body()
                if only_introspection(body):
                    await self.app(scope, _replay(body), send)
                    return
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
