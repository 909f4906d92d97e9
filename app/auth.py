"""Authenticates /graphql requests by API key before any GraphQL work starts."""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.errors import send_unavailable
from app.api.introspection import KeylessIntrospection, selects_only_introspection
from app.api.request_body import BadBody, parse_json, request_json
from app.domain.errors import Unavailable
from app.domain.principal import Principal
from app.graph.executor import GraphExecutor
from app.key_cache import KeyResolver
from app.middleware import error_body, send_json

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
    user has pasted a key; nothing else is answered without one (app/api/introspection.py).
    """
    try:
        return selects_only_introspection(parse_json(body))
    except BadBody:
        return False


class RequireApiKey:
    def __init__(
        self, app: ASGIApp, *, graph: GraphExecutor, keyless: KeylessIntrospection
    ) -> None:
        self.app = app
        self.graph = graph
        self.keyless = keyless
        self.keys = KeyResolver(graph)  # revoked or expired keys refused within a second

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        if wants_ide(request):
            await self.app(scope, receive, send)
            return
        try:
            principal = await self._principal(presented_key(request))
        except Unavailable as error:  # the key cannot be checked: retry later, not 401 or 500
            await send_unavailable(send, error)
            return
        if principal is None:
            if request.method == "POST":
                body = await request.body()
                try:
                    parsed = request_json(scope, body)
                except BadBody as error:  # 400 with or without a key, before the 401
                    await send_json(send, 400, error_body(error.message, "BAD_REQUEST"))
                    return
                if parsed is not None and selects_only_introspection(parsed):
                    await self.keyless(scope, body, send)
                    return
            await send_json(send, 401, UNAUTHENTICATED)
            return
        scope.setdefault("state", {})["principal"] = principal
        await self.app(scope, receive, send)

    async def _principal(self, secret: str | None) -> Principal | None:
        return await self.keys.principal(secret)
