"""Authenticates /graphql requests by API key before any GraphQL work starts.

Without a key only introspection is answered (app/api/edge/introspection.py), so a keyless body is
read only up to KEYLESS_MAX_BODY bytes and parsed only within that: a keyless introspection
document has at most 1,000 tokens, and parsing a 1 MB body for nothing took 0.36 s of event loop.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.edge.api_key import UNAUTHENTICATED, presented_key
from app.api.edge.asgi import error_body, headers_of, send_json
from app.api.edge.introspection import IntrospectionAnswers
from app.api.edge.key_cache import KeyResolver
from app.api.edge.rate_limit import KeyRateLimits, key_limit_reason, send_rate_limited
from app.api.edge.request_body import BadBody, request_json
from app.api.errors import send_unavailable
from app.api.read.view_request import read_body, replay
from app.domain.kernel.errors import Unavailable
from app.web.body_limits import declared_size

KEYLESS_MAX_BODY = 32_768


def wants_ide(scope: Scope, headers: Mapping[bytes, bytes]) -> bool:
    """The GraphiQL page itself (strawberry executes a GET that carries a query instead)."""
    return (
        scope["method"] == "GET"
        and b"text/html" in headers.get(b"accept", b"")
        and "query" not in Request(scope).query_params
    )


class RequireApiKey:
    def __init__(
        self,
        app: ASGIApp,
        *,
        keys: KeyResolver,
        introspection: IntrospectionAnswers,
        rate_limits: KeyRateLimits,
    ) -> None:
        self.app = app
        self.introspection = introspection
        self.rate_limits = rate_limits
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # its key comes with connection_init (ws_auth.py)
            await self.app(scope, receive, send)
            return
        headers = headers_of(scope)
        if wants_ide(scope, headers):
            await self.app(scope, receive, send)
            return
        try:
            principal = await self.keys.principal(presented_key(headers))
        except Unavailable as error:  # the key cannot be checked: retry later, not 401 or 500
            await send_unavailable(send, error)
            return
        if principal is None:
            await self._keyless(scope, receive, send, headers)
            return
        scope.setdefault("state", {})["principal"] = principal
        if exceeded := await self.rate_limits.hit(principal):
            why = key_limit_reason(principal)
            await send_rate_limited(send, exceeded, why)
            return
        if scope["method"] == "POST":
            body = await read_body(receive)
            if await self.introspection.answered_with_key(scope, body, send):
                return
            receive = replay(body)
        await self.app(scope, receive, send)

    async def _keyless(
        self, scope: Scope, receive: Receive, send: Send, headers: Mapping[bytes, bytes]
    ) -> None:
        """Introspection alone is answered without a key (the schema is public); anything
        else, 401 (or 400 for a small body that is not usable JSON)."""
        body = await _small_post_body(scope, receive, headers)
        if body is not None:
            try:
                parsed = request_json(scope, body)
            except BadBody as error:
                await send_json(send, 400, error_body(error.message, "BAD_REQUEST"))
                return
            if parsed is not None and await self.introspection.answered(scope, body, parsed, send):
                return
        await send_json(send, 401, UNAUTHENTICATED)


async def _small_post_body(
    scope: Scope, receive: Receive, headers: Mapping[bytes, bytes]
) -> bytes | None:
    """The body of a POST of at most KEYLESS_MAX_BODY bytes; None for any other request (a
    longer body is left unread)."""
    if scope["method"] != "POST" or declared_size(headers) > KEYLESS_MAX_BODY:
        return None
    return await _read_at_most(receive, KEYLESS_MAX_BODY)


async def _read_at_most(receive: Receive, limit: int) -> bytes | None:
    """The request body, or None (the rest left unread) once it is longer than `limit`."""
    chunks: list[bytes] = []
    size, more = 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size, more = size + len(chunk), message.get("more_body", False)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)
