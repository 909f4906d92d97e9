"""What the GraphQL view reads of a POST before answering it: the whole body, and whether it is one
plain JSON operation that the view's direct path answers (anything else goes to strawberry's
view, with the body replayed)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive, Scope

from app.api.edge.asgi import error_body, headers_of, http_error_code
from app.api.edge.request_body import ParsedBody, parsed_body

STREAMING_ACCEPT = ("multipart/mixed", "text/event-stream")
REQUEST_KEYS = frozenset({"query", "variables", "operationName", "extensions"})
# The body parsed at the edge, while strawberry's view handles the same request (a batch):
# its own parse of the replayed body takes this instead of parsing again.
REPLAYED: ContextVar[ParsedBody | None] = ContextVar("replayed_body", default=None)


def refusal(status: int, message: str) -> Response:
    return JSONResponse(error_body(message, http_error_code(status)), status_code=status)


def single_operation(scope: Scope, body: bytes) -> dict[str, Any] | None:
    """The parsed body when it is one plain JSON operation that the direct path answers; None
    for anything else, an unusable body included (the view refuses it)."""
    headers = headers_of(scope)
    content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    accept = headers.get(b"accept", b"").decode("latin-1")
    if content_type != b"application/json" or any(kind in accept for kind in STREAMING_ACCEPT):
        return None
    data = parsed_body(scope, body).value  # None where the body is unusable
    if not isinstance(data, dict) or not REQUEST_KEYS.issuperset(data):
        return None
    kinds = (
        isinstance(data.get("query"), str),
        isinstance(data.get("variables"), dict | None),
        isinstance(data.get("operationName"), str | None),
        isinstance(data.get("extensions"), dict | None),
    )
    return data if all(kinds) else None


def replayed(data: str | bytes) -> ParsedBody | None:
    """The body parsed at the edge, when strawberry's view is about to parse the same text."""
    known = REPLAYED.get()
    return known if known is not None and known.body == data else None


async def read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b""
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


def replay(body: bytes) -> Receive:
    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    return receive
